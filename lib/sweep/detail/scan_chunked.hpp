// Chunked scan, the multi-core scheme: the sequence is cut into one
// contiguous chunk per thread; each thread scans its chunk, the chunk totals
// are scanned, and each thread combines its chunk with its base. Work 2n,
// traffic 4n, three parallel phases. The chunk totals and the total come
// from a workspace lease.
#pragma once

#include <sweep/detail/scan_io.hpp>
#include <sweep/detail/team_scan.hpp>
#include <sweep/detail/workspace.hpp>

namespace sweep::detail {

template <class ExecSpace, class IO, class T = typename IO::value_type>
T scan_chunked(const ExecSpace& space, const IO& io, const T& init, bool exclusive, const std::string& label) {
  using Mem = typename ExecSpace::memory_space;
  const index_t n = io.n;
  index_t nchunks = static_cast<index_t>(concurrency(space));
  if (nchunks > n) nchunks = n;
  if (nchunks < 1) nchunks = 1;
  const index_t per = (n + nchunks - 1) / nchunks;
  nchunks = (n + per - 1) / per;
  using lease_t = workspace_lease<Mem>;
  lease_t lease(lease_t::piece(static_cast<std::size_t>(nchunks) * sizeof(T)) + lease_t::piece(sizeof(T)));
  lease.release_after(space);  // an exception leaves the buffer pending on space
  const auto bases = lease.template view<T>(static_cast<std::size_t>(nchunks));
  const auto total = lease.template scalar<T>();
  Kokkos::parallel_for(
      label + "::chunk_scan", sweep::detail::range_policy<ExecSpace>(space, 0, nchunks), KOKKOS_LAMBDA(const index_t c) {
        const index_t b = c * per, e = (b + per) < n ? (b + per) : n;
        bases(c) = serial_scan(
            io.op, IO::identity(), exclusive, [&](index_t i) { return io.load(i); },
            [&](index_t i, const T& v) { io.store(i, v); }, b, e);
      });
  Kokkos::parallel_for(
      label + "::scan_totals", sweep::detail::range_policy<ExecSpace>(space, 0, 1), KOKKOS_LAMBDA(const int) {
        T run = init;
        for (index_t c = 0; c < nchunks; ++c) {
          T next = io.combine(run, bases(c));
          bases(c) = run;
          run = next;
        }
        total() = run;
      });
  Kokkos::parallel_for(
      label + "::add_bases", sweep::detail::range_policy<ExecSpace>(space, 0, nchunks), KOKKOS_LAMBDA(const index_t c) {
        const index_t b = c * per, e = (b + per) < n ? (b + per) : n;
        const T base = bases(c);
        for (index_t i = b; i < e; ++i) io.store(i, io.combine(base, io.reload(i)));
      });
  T h;
  Kokkos::deep_copy(space, h, total);
  space.fence();
  lease.settled();
  return h;
}

}  // namespace sweep::detail
