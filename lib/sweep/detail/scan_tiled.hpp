// Tiled scan (the C++ AMP design): each team scans one tile locally and
// records the tile's total; the tile totals are scanned by the same
// algorithm, recursively, until they fit one tile; a last pass combines each
// element with its tile's prefix. Work O(n), traffic about 4n, depth
// O(tile * log_tile(n)). Every level's tile totals and the total come from
// one workspace lease.
#pragma once

#include <sweep/detail/scan_io.hpp>
#include <sweep/detail/team_scan.hpp>
#include <sweep/detail/workspace.hpp>

namespace sweep::detail {

/// One level: scans io in tiles, recursing on the tile totals.
template <class ExecSpace, class IO, class T = typename IO::value_type>
T scan_tiled_level(const ExecSpace& space, const IO& io, const T& init, bool exclusive, index_t tile,
                   const std::string& label, workspace_lease<typename ExecSpace::memory_space>& lease) {
  using Policy = Kokkos::TeamPolicy<ExecSpace>;
  using Scratch = Kokkos::View<T*, typename ExecSpace::scratch_memory_space, Kokkos::MemoryUnmanaged>;
  const index_t n = io.n;
  const index_t ntiles = (n + tile - 1) / tile;
  constexpr int tuned = tuning<ExecSpace>::scan::team_size;
  const auto scratch_bytes = [](int ts) { return Scratch::shmem_size(team_scan_scratch_elems<T>(ts)); };
  const int team_size = fitted_team_size<ExecSpace>(tuned, scratch_bytes, "sweep scan (tiled)");
  const auto net = make_partials_network<ExecSpace, tuned>(team_size);
  const std::size_t scratch = scratch_bytes(team_size);
  // A single tile starts from init and is the whole answer; otherwise tiles
  // start from the identity and are corrected by the propagation pass.
  const bool single = ntiles == 1;
  const auto sums = lease.template view<T>(static_cast<std::size_t>(ntiles));
  const auto total = single ? lease.template scalar<T>() : decltype(lease.template scalar<T>())();
  Kokkos::parallel_for(
      label + "::tile_scan",
      Policy(space, static_cast<int>(ntiles), team_size).set_scratch_size(0, Kokkos::PerTeam(scratch)),
      KOKKOS_LAMBDA(const typename Policy::member_type& team) {
        Scratch parts(team.team_scratch(0), team_scan_scratch_elems<T>(team.team_size()));
        const index_t first = static_cast<index_t>(team.league_rank()) * tile;
        const index_t count = (n - first) < tile ? (n - first) : tile;
        const T sum = team_scan_range(
            team, count, io.op, single ? init : IO::identity(), exclusive,
            [&](index_t j) { return io.load(first + j); }, [&](index_t j, const T& v) { io.store(first + j, v); },
            parts.data(), net);
        if (team.team_rank() == 0) {
          sums(team.league_rank()) = sum;
          if (single) total() = sum;
        }
      });
  if (single) {
    T h;
    Kokkos::deep_copy(space, h, total);
    space.fence();
    return h;
  }
  // Exclusive scan of the tile sums with init: each tile's prefix.
  auto sums_io = make_buffer_io(sums, io.op);
  const T all = scan_tiled_level(space, sums_io, init, true, tile, label, lease);
  Kokkos::parallel_for(
      label + "::propagate", sweep::detail::range_policy<ExecSpace>(space, 0, n),
      KOKKOS_LAMBDA(const index_t i) { io.store(i, io.combine(sums(i / tile), io.reload(i))); });
  return all;
}

template <class ExecSpace, class IO, class T = typename IO::value_type>
T scan_tiled(const ExecSpace& space, const IO& io, const T& init, bool exclusive, index_t tile,
             const std::string& label) {
  using lease_t = workspace_lease<typename ExecSpace::memory_space>;
  std::size_t bytes = lease_t::piece(sizeof(T));  // the total
  for (index_t m = io.n;;) {
    const index_t ntiles = (m + tile - 1) / tile;
    bytes += lease_t::piece(static_cast<std::size_t>(ntiles) * sizeof(T));
    if (ntiles <= 1) break;
    m = ntiles;
  }
  lease_t lease(bytes);
  lease.release_after(space);  // an exception leaves the buffer pending on space
  const T all = scan_tiled_level(space, io, init, exclusive, tile, label, lease);
  // The propagation passes use the lease: done before it is returned (as
  // the per-call allocation's release waited for them).
  space.fence();
  lease.settled();
  return all;
}

}  // namespace sweep::detail
