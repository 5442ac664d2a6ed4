// Distributed prefix scans: the global sequence is the concatenation of the
// ranks' local Views in the communicator's rank order; each rank passes its
// own part and gets its own part of the result.
//
//   T sweep::mpi::inclusive_scan(comm, space, in, out [, op] [, scan_options]);
//   T sweep::mpi::exclusive_scan(comm, space, in, out, init [, op] [, scan_options]);
//
// Semantics are exactly sweep::inclusive_scan / exclusive_scan on the
// concatenated input, both directions, any monoid (value types trivially
// copyable; operands never reordered, so non-commutative monoids are
// exact). Every rank returns the global total. Ranks may hold any number of
// elements, zero included. The scan_options (direction, algorithm, tile
// and chunk sizes) must be the same on every rank.
//
// Method: the local scan (Sweep's single-pass scan by default) with the
// identity, one MPI_Exscan of the rank totals under the monoid registered
// as a non-commutative MPI_Op (backward scans use the reversed rank order),
// one MPI_Bcast of the global total, then a local fix-up out[i] = p (+)
// out[i] with the rank's prefix p, skipped where p is the identity (rank 0
// of an inclusive scan). Traffic: the local scan's 2n plus 2n for the
// fix-up; MPI: two collectives of one value.
//
// Errors: the checks of sweep::inclusive_scan on any rank, or options that
// differ between ranks -> std::invalid_argument on every rank (see
// sweep/mpi/core.hpp); nothing is written on any rank.
#pragma once

#include <sweep/mpi/core.hpp>
#include <sweep/scan.hpp>

#include <string>

namespace sweep::mpi {
namespace detail {

/// out(i) = op(p, out(i)) for i in [begin, end).
template <class ExecSpace, class View, class Op, class T = typename Op::value_type>
void left_combine(const ExecSpace& space, const View& out, index_t begin, index_t end, const Op& op, const T& p,
                  const char* label) {
  if (end <= begin) return;
  Kokkos::parallel_for(
      label, range<ExecSpace>(space, begin, end), KOKKOS_LAMBDA(const index_t i) { out(i) = op(p, out(i)); });
}

/// The options every rank of a scan must share.
inline void require_same_scan_options(MPI_Comm comm, const char* where, const scan_options& opt) {
  require_same(comm, where,
               {{"scan_options::direction", static_cast<long long>(opt.direction)},
                {"scan_options::algorithm", static_cast<long long>(opt.algorithm)},
                {"scan_options::tile_size", opt.tile_size},
                {"scan_options::chunk_size", opt.chunk_size}});
}

template <class ExecSpace, class InView, class OutView, class Op, class T = typename Op::value_type>
T scan(const char* where, MPI_Comm comm, const ExecSpace& space, const InView& in, const OutView& out, const T& init,
       bool exclusive, const Op& op, const scan_options& opt) {
  sweep::detail::static_check_scan<ExecSpace, InView, OutView, Op>();
  sweep::detail::scoped_region region(where);
  require_comm(comm, where);
  checked(comm, where, [&] {
    sweep::detail::check_scan_views(where, in, out);
    sweep::detail::require(opt.tile_size == 0 || opt.tile_size >= 2, where, "tile_size is ", opt.tile_size,
                           "; it must be 0 (the space's default) or at least 2");
    sweep::detail::require(opt.chunk_size >= 0, where, "chunk_size is ", opt.chunk_size,
                           "; it must not be negative");
  });
  require_same_scan_options(comm, where, opt);
  const bool backward = opt.direction == direction::backward;
  const index_t n = static_cast<index_t>(in.extent(0));
  const T local = n == 0 ? Op::identity()
                         : sweep::detail::scan(std::string(where), space, in, out, Op::identity(), exclusive, op, opt);
  // In the order the scan runs (ranks reversed for a backward scan) the
  // operator is op or op with swapped operands, and the rank prefix always
  // combines from the left.
  const ordered_comm ordered(comm, backward);
  auto finish = [&](const auto& oop) {
    const auto prefix = rank_prefix(ordered.get(), oop, local);
    const T p = oop(init, prefix.first);
    if (!same_bytes(p, Op::identity())) left_combine(space, out, 0, n, oop, p, "sweep::mpi::scan::fixup");
    space.fence();
    return oop(init, prefix.second);
  };
  if (backward) return finish(sweep::detail::flipped<Op>{op});
  return finish(op);
}

}  // namespace detail

template <class ExecSpace, class InView, class OutView, monoid Op = sweep::detail::default_op<InView>>
  requires Kokkos::is_execution_space<ExecSpace>::value
typename Op::value_type inclusive_scan(MPI_Comm comm, const ExecSpace& space, const InView& in, const OutView& out,
                                       const Op& op = Op{}, const scan_options& opt = {}) {
  return detail::scan("sweep::mpi::inclusive_scan", comm, space, in, out, Op::identity(), false, op, opt);
}

template <class ExecSpace, class InView, class OutView>
  requires Kokkos::is_execution_space<ExecSpace>::value
auto inclusive_scan(MPI_Comm comm, const ExecSpace& space, const InView& in, const OutView& out,
                    const scan_options& opt) {
  return inclusive_scan(comm, space, in, out, sweep::detail::default_op<InView>{}, opt);
}

template <class ExecSpace, class InView, class OutView, class Init, monoid Op = sweep::detail::default_op<InView>>
  requires Kokkos::is_execution_space<ExecSpace>::value
typename Op::value_type exclusive_scan(MPI_Comm comm, const ExecSpace& space, const InView& in, const OutView& out,
                                       const Init& init, const Op& op = Op{}, const scan_options& opt = {}) {
  return detail::scan("sweep::mpi::exclusive_scan", comm, space, in, out, static_cast<typename Op::value_type>(init),
                      true, op, opt);
}

template <class ExecSpace, class InView, class OutView, class Init>
  requires Kokkos::is_execution_space<ExecSpace>::value
auto exclusive_scan(MPI_Comm comm, const ExecSpace& space, const InView& in, const OutView& out, const Init& init,
                    const scan_options& opt) {
  return exclusive_scan(comm, space, in, out, init, sweep::detail::default_op<InView>{}, opt);
}

}  // namespace sweep::mpi
