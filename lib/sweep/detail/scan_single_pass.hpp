// Single-pass scan with decoupled look-back (the protocol: detail/look_back.hpp).
// Chunks are handed out in order by an atomic counter. A chunk folds its
// inputs, resolves its prefix by look-back, and scans its inputs from that
// base. On a CPU the chunk is sized to stay in L2 between the fold and the
// scan, so memory sees one read and one write per element: traffic 2n, the
// copy's.
//
// The chunk work is the backend's: `Kernels` (scan_backend<S>::chunk_kernels<IO>)
// may fold and scan a chunk itself (the host's raw-pointer and vector
// kernels, host/scan_chunks.hpp); where it declines, the portable team
// loops run.
#pragma once

#include <sweep/detail/look_back.hpp>
#include <sweep/detail/scan_io.hpp>
#include <sweep/detail/team_scan.hpp>

namespace sweep::detail {

/// The portable chunk work: none (the team loops run).
struct portable_chunk_kernels {
  template <class T>
  KOKKOS_INLINE_FUNCTION bool fold(index_t, index_t, bool, T&) const {
    return false;
  }
  template <class T>
  KOKKOS_INLINE_FUNCTION bool scan(index_t, index_t, const T&, const T&, bool) const {
    return false;
  }
};

template <class ExecSpace, class IO, class Kernels, class Sink = total_on_host, class T = typename IO::value_type>
T scan_single_pass(const ExecSpace& space, const IO& io, const T& init, bool exclusive, index_t chunk,
                   const Kernels& kernels, const std::string& label, const Sink& sink = Sink{}) {
  using Mem = typename ExecSpace::memory_space;
  using Policy = Kokkos::TeamPolicy<ExecSpace>;
  using Scratch = Kokkos::View<T*, typename ExecSpace::scratch_memory_space, Kokkos::MemoryUnmanaged>;
  using IndexScratch = Kokkos::View<index_t*, typename ExecSpace::scratch_memory_space, Kokkos::MemoryUnmanaged>;
  const index_t n = io.n;
  const index_t nchunks = (n + chunk - 1) / chunk;
  constexpr int tuned = tuning<ExecSpace>::scan::team_size;
  const auto scratch_bytes = [](int ts) {
    return Scratch::shmem_size(team_scan_scratch_elems<T>(ts) + 1) + IndexScratch::shmem_size(1);
  };
  const int team_size = fitted_team_size<ExecSpace>(tuned, scratch_bytes, "sweep scan (single_pass)");
  const auto net = make_partials_network<ExecSpace, tuned>(team_size);
  const std::size_t scratch = scratch_bytes(team_size);

  look_back_storage<T, Mem> storage(space, nchunks);
  const look_back_tiles<T> tiles = storage.tiles();
  index_t* const ticket = storage.template ticket<index_t>();
  Kokkos::parallel_for(
      label + "::single_pass",
      Policy(space, static_cast<int>(nchunks), team_size).set_scratch_size(0, Kokkos::PerTeam(scratch)),
      KOKKOS_LAMBDA(const typename Policy::member_type& team) {
        const int nt = team.team_size();
        Scratch parts(team.team_scratch(0), team_scan_scratch_elems<T>(nt) + 1);
        IndexScratch id(team.team_scratch(0), 1);
        if (team.team_rank() == 0) id(0) = Kokkos::atomic_fetch_add(ticket, index_t(1));
        team.team_barrier();
        const index_t c = id(0);
        const index_t first = c * chunk;
        const index_t count = (n - first) < chunk ? (n - first) : chunk;
        auto load = [&](index_t j) { return io.load(first + j); };
        T aggregate;
        if (!kernels.fold(first, count, exclusive, aggregate))
          aggregate = team_reduce_range(team, count, io.op, load, parts.data());
        if (team.team_rank() == 0) parts(nt + 1) = tiles.resolve(io, c, aggregate, init);
        team.team_barrier();
        const T prefix = parts(nt + 1);
        if (kernels.scan(first, count, prefix, aggregate, exclusive)) return;
        team_scan_range(
            team, count, io.op, prefix, exclusive, load, [&](index_t j, const T& v) { io.store(first + j, v); },
            parts.data(), net);
      });
  return sink.finish(space, storage);
}

}  // namespace sweep::detail
