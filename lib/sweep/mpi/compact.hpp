// Distributed compaction and block redistribution.
//
//   pack_result sweep::mpi::pack(comm, space, words, n_bits, in, out);
//   pack_result sweep::mpi::pack_if(comm, space, in, out, pred);
//   View        sweep::mpi::rebalance(comm, space, part [, transport]);
//
// pack keeps the elements of the rank's `in` whose bit is set in `words`
// (bit i%32 of words(i/32), n_bits = in's length), in order, in
// out[0, count); pack_if keeps those with pred(in(i)) true (pred callable on
// the space). The result says where the rank's part lies in the global
// packed sequence: offset (packed elements on the ranks before) and total
// (packed elements on all ranks). The local pack is Sweep's rank_select
// bitmask index (one pass over mask and elements); the global offsets are
// one MPI_Exscan and one MPI_Allreduce of a count.
//
// rebalance redistributes a distributed sequence (each rank's part, in rank
// order) into equal blocks: rank r receives the global elements
// [floor(N r / P), floor(N (r + 1) / P)). One MPI_Allgather of the part
// sizes, one MPI_Alltoallv of the elements (device memory staged through
// the host unless the MPI is GPU-aware; see transport in core.hpp).
//
// Errors (every rank throws the same std::invalid_argument, nothing
// written): n_bits different from in's length or words too short; out
// shorter than the rank's packed count; in and out overlapping.
#pragma once

#include <sweep/bitmask_index.hpp>
#include <sweep/mpi/core.hpp>

#include <cstdint>
#include <optional>
#include <vector>

namespace sweep::mpi {

/// Where a rank's packed part lies in the global packed sequence.
struct pack_result {
  index_t count = 0;   ///< packed elements on this rank (written to out[0, count))
  index_t offset = 0;  ///< packed elements on the ranks before this one
  index_t total = 0;   ///< packed elements on all ranks
};

namespace detail {

template <class ExecSpace, class Words, class InView, class OutView>
pack_result pack_words(const char* where, MPI_Comm comm, const ExecSpace& space, const Words& words, index_t n_bits,
                       const InView& in, const OutView& out) {
  using Mem = typename Words::memory_space;
  using index_type = bitmask_index<bitmask::rank_select, Mem>;
  std::optional<index_type> index;
  checked(comm, where, [&] {
    sweep::detail::require(n_bits == static_cast<index_t>(in.extent(0)), where, "n_bits is ", n_bits, " but in has ",
                           in.extent(0), " elements; the mask must describe every element of in");
    sweep::detail::require(!sweep::detail::overlap(in, out), where, "in and out overlap");
    index.emplace(space, words, n_bits);
    sweep::detail::require(static_cast<index_t>(out.extent(0)) >= index->count(), where, "out has ", out.extent(0),
                           " elements but ", index->count(), " are selected on this rank");
  });
  pack_result r;
  r.count = index->count();
  if (r.count > 0)
    index->pack(space, in, Kokkos::subview(out, Kokkos::pair<index_t, index_t>(0, r.count)));
  space.fence();
  std::tie(r.offset, r.total) = offset_and_total(comm, r.count);
  return r;
}

}  // namespace detail

template <class ExecSpace, class Words, class InView, class OutView>
  requires Kokkos::is_execution_space<ExecSpace>::value
pack_result pack(MPI_Comm comm, const ExecSpace& space, const Words& words, index_t n_bits, const InView& in,
                 const OutView& out) {
  const char* where = "sweep::mpi::pack";
  sweep::detail::scoped_region region(where);
  detail::require_comm(comm, where);
  return detail::pack_words(where, comm, space, words, n_bits, in, out);
}

template <class ExecSpace, class InView, class OutView, class Pred>
  requires Kokkos::is_execution_space<ExecSpace>::value
pack_result pack_if(MPI_Comm comm, const ExecSpace& space, const InView& in, const OutView& out, const Pred& pred) {
  const char* where = "sweep::mpi::pack_if";
  sweep::detail::scoped_region region(where);
  detail::require_comm(comm, where);
  const index_t n = static_cast<index_t>(in.extent(0));
  const index_t nw = (n + 31) / 32;
  Kokkos::View<std::uint32_t*, typename ExecSpace::memory_space> words(
      Kokkos::view_alloc(Kokkos::WithoutInitializing, "sweep::mpi::pack_if::mask"), nw);
  Kokkos::parallel_for(
      "sweep::mpi::pack_if::mask", detail::range<ExecSpace>(space, 0, nw), KOKKOS_LAMBDA(const index_t w) {
        std::uint32_t bits = 0;
        const index_t end = (32 * w + 32 < n) ? 32 * w + 32 : n;
        for (index_t i = 32 * w; i < end; ++i)
          if (pred(in(i))) bits |= std::uint32_t(1) << (i - 32 * w);
        words(w) = bits;
      });
  return detail::pack_words(where, comm, space, words, n, in, out);
}

/// The global sequence of the ranks' parts, re-split into equal blocks.
template <class ExecSpace, class View>
  requires Kokkos::is_execution_space<ExecSpace>::value
Kokkos::View<typename View::non_const_value_type*, typename View::memory_space> rebalance(
    MPI_Comm comm, const ExecSpace& space, const View& part, transport t = transport::automatic) {
  using T = typename View::non_const_value_type;
  using Mem = typename View::memory_space;
  const char* where = "sweep::mpi::rebalance";
  sweep::detail::scoped_region region(where);
  detail::require_comm(comm, where);
  const int size = detail::comm_size(comm), rank = detail::comm_rank(comm);
  const index_t n = static_cast<index_t>(part.extent(0));
  std::vector<long long> counts(static_cast<std::size_t>(size));
  const long long mine = n;
  detail::check_mpi(MPI_Allgather(&mine, 1, MPI_LONG_LONG, counts.data(), 1, MPI_LONG_LONG, comm), "MPI_Allgather");
  std::vector<index_t> start(static_cast<std::size_t>(size) + 1, 0);
  for (int r = 0; r < size; ++r) start[r + 1] = start[r] + counts[r];
  const index_t total = start[size];
  // floor(total * r / size) without overflow.
  auto block = [&](int r) { return (total / size) * r + ((total % size) * r) / size; };
  std::vector<int> send_counts(size), send_displs(size), recv_counts(size), recv_displs(size);
  detail::checked(comm, where, [&] {
    for (int r = 0; r < size; ++r) {
      const index_t s0 = std::max(start[rank], block(r)), s1 = std::min(start[rank + 1], block(r + 1));
      send_counts[r] = detail::as_count(std::max<index_t>(0, s1 - s0), where);
      send_displs[r] = detail::as_count(std::max<index_t>(0, s0 - start[rank]), where);
      const index_t r0 = std::max(start[r], block(rank)), r1 = std::min(start[r + 1], block(rank + 1));
      recv_counts[r] = detail::as_count(std::max<index_t>(0, r1 - r0), where);
      recv_displs[r] = detail::as_count(std::max<index_t>(0, r0 - block(rank)), where);
    }
  });
  Kokkos::View<T*, Mem> out(Kokkos::view_alloc(Kokkos::WithoutInitializing, "sweep::mpi::rebalance"),
                            block(rank + 1) - block(rank));
  if (part.extent(0) <= 1 || part.stride(0) == 1) {
    detail::alltoallv(comm, space, part, send_counts, send_displs, out, recv_counts, recv_displs, t);
  } else {
    Kokkos::View<T*, Mem> packed(Kokkos::view_alloc(Kokkos::WithoutInitializing, "sweep::mpi::rebalance::send"), n);
    Kokkos::deep_copy(space, packed, part);
    detail::alltoallv(comm, space, packed, send_counts, send_displs, out, recv_counts, recv_displs, t);
  }
  return out;
}

}  // namespace sweep::mpi
