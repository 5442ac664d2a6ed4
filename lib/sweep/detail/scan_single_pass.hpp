// Single-pass scan with decoupled look-back. Chunks are handed out in order
// by an atomic counter (so every chunk's predecessors are already running
// or done: no deadlock, on CPUs and GPUs alike). A chunk folds its inputs,
// publishes that aggregate, walks back over its predecessors' published
// aggregates until it meets an inclusive prefix, publishes its own inclusive
// prefix, and scans its inputs from that base. On a CPU the chunk is sized
// to stay in L2 between the fold and the scan, so memory sees one read and
// one write per element: traffic 2n, the copy's.
//
// The chunk work is the backend's: `Kernels` (scan_backend<S>::chunk_kernels<IO>)
// may fold and scan a chunk itself (the host's raw-pointer and vector
// kernels, host/scan_chunks.hpp); where it declines, the portable team
// loops run.
#pragma once

#include <sweep/detail/scan_io.hpp>
#include <sweep/detail/team_scan.hpp>

namespace sweep::detail {

enum : int { chunk_empty = 0, chunk_aggregate = 1, chunk_inclusive = 2 };

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

/// True when a chunk's aggregate is already its inclusive prefix whatever
/// comes before (a segmented value holding a head): it is published as
/// inclusive at once and look-back stops there.
template <class IO, class = void>
struct io_closes_prefix : std::false_type {};
template <class IO>
struct io_closes_prefix<IO, std::void_t<decltype(IO::closes_prefix(std::declval<typename IO::value_type>()))>>
    : std::true_type {};

template <class IO, class T>
KOKKOS_INLINE_FUNCTION bool closes_prefix(const T& aggregate) {
  if constexpr (io_closes_prefix<IO>::value) return IO::closes_prefix(aggregate);
  else return false;
}

template <class ExecSpace, class IO, class Kernels, class T = typename IO::value_type>
T scan_single_pass(const ExecSpace& space, const IO& io, const T& init, bool exclusive, index_t chunk,
                   const Kernels& kernels, const std::string& label) {
  using Mem = typename ExecSpace::memory_space;
  using Policy = Kokkos::TeamPolicy<ExecSpace>;
  using Scratch = Kokkos::View<T*, typename ExecSpace::scratch_memory_space, Kokkos::MemoryUnmanaged>;
  using IndexScratch = Kokkos::View<index_t*, typename ExecSpace::scratch_memory_space, Kokkos::MemoryUnmanaged>;
  const index_t n = io.n;
  const index_t nchunks = (n + chunk - 1) / chunk;
  constexpr int team_size = scan_tuning<ExecSpace>::team_size;
  const auto net = make_partials_network<team_network_t<ExecSpace, team_size>>(team_size);
  const std::size_t scratch =
      Scratch::shmem_size(team_scan_scratch_elems<T>(team_size) + 1) + IndexScratch::shmem_size(1);

  Kokkos::View<int*, Mem> flags(label + "::flags", nchunks);  // zero: chunk_empty
  Kokkos::View<T*, Mem> aggregates(Kokkos::view_alloc(Kokkos::WithoutInitializing, label + "::aggregates"),
                                   nchunks);
  Kokkos::View<T*, Mem> inclusives(Kokkos::view_alloc(Kokkos::WithoutInitializing, label + "::inclusives"),
                                   nchunks);
  Kokkos::View<index_t, Mem> ticket(label + "::ticket");
  Kokkos::parallel_for(
      label + "::single_pass",
      Policy(space, static_cast<int>(nchunks), team_size).set_scratch_size(0, Kokkos::PerTeam(scratch)),
      KOKKOS_LAMBDA(const typename Policy::member_type& team) {
        const int nt = team.team_size();
        Scratch parts(team.team_scratch(0), team_scan_scratch_elems<T>(nt) + 1);
        IndexScratch id(team.team_scratch(0), 1);
        if (team.team_rank() == 0) id(0) = Kokkos::atomic_fetch_add(&ticket(), index_t(1));
        team.team_barrier();
        const index_t c = id(0);
        const index_t first = c * chunk;
        const index_t count = (n - first) < chunk ? (n - first) : chunk;
        auto load = [&](index_t j) { return io.load(first + j); };
        T aggregate;
        if (!kernels.fold(first, count, exclusive, aggregate))
          aggregate = team_reduce_range(team, count, io.op, load, parts.data());
        if (team.team_rank() == 0) {
          T prefix = init;
          if (c == 0) {
            inclusives(0) = io.combine(init, aggregate);
            Kokkos::memory_fence();
            Kokkos::atomic_exchange(&flags(0), int(chunk_inclusive));
          } else {
            const bool closed = closes_prefix<IO>(aggregate);
            if (closed) {
              inclusives(c) = aggregate;
              Kokkos::memory_fence();
              Kokkos::atomic_exchange(&flags(c), int(chunk_inclusive));
            } else {
              aggregates(c) = aggregate;
              Kokkos::memory_fence();
              Kokkos::atomic_exchange(&flags(c), int(chunk_aggregate));
            }
            T behind = IO::identity();
            index_t j = c - 1;
            while (true) {
              const int f = volatile_load(&flags(j));
              if (f == chunk_empty) continue;  // predecessor still folding
              Kokkos::memory_fence();
              if (f == chunk_inclusive) {
                behind = io.combine(volatile_load(&inclusives(j)), behind);
                break;
              }
              behind = io.combine(volatile_load(&aggregates(j)), behind);
              --j;
            }
            prefix = behind;
            if (!closed) {
              inclusives(c) = io.combine(prefix, aggregate);
              Kokkos::memory_fence();
              Kokkos::atomic_exchange(&flags(c), int(chunk_inclusive));
            }
          }
          parts(nt + 1) = prefix;
        }
        team.team_barrier();
        const T prefix = parts(nt + 1);
        if (kernels.scan(first, count, prefix, aggregate, exclusive)) return;
        team_scan_range(
            team, count, io.op, prefix, exclusive, load, [&](index_t j, const T& v) { io.store(first + j, v); },
            parts.data(), net);
      });
  return read_element(inclusives, nchunks - 1);
}

}  // namespace sweep::detail
