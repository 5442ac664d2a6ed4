// Distributed segmented scans and reductions: segments of the concatenated
// sequence (ranks in the communicator's order) may span any number of ranks.
//
//   sweep::mpi::segmented_inclusive_scan(comm, space, in, segments, out [, op] [, scan_options]);
//   sweep::mpi::segmented_exclusive_scan(comm, space, in, segments, out, init [, op] [, scan_options]);
//   index_t sweep::mpi::segmented_reduce(comm, space, in, head_flags(flags), totals [, op]);
//
// `segments`:
//   sweep::head_flags(flags)       the rank's own flags, one per local
//                                  element; nonzero starts a segment (the
//                                  global element 0 always starts one)
//   sweep::segment_offsets(offs)   the global offsets, the same View
//                                  contents on every rank: n_segments + 1
//                                  non-decreasing positions in the
//                                  concatenated sequence, first 0, last the
//                                  global length
// Semantics: exactly sweep::segmented_*_scan on the concatenated input and
// segments, both directions, any monoid; the exclusive init starts every
// segment. segmented_reduce writes, on each rank, the totals of the
// segments whose first element lies on that rank, in order (a segment that
// spans ranks is owned by the rank of its head), and returns how many; an
// exclusive prefix sum of the counts over the ranks numbers them globally.
//
// Method: the local segmented scan with the identity; each rank's summary
// (whether it holds a head, and the fold of its open end) goes through one
// MPI_Exscan under the lifted (head, value) operator, registered as a
// non-commutative MPI_Op (ranks reversed for backward scans); the carry then
// fixes only the leading run before the rank's first head (backward: the
// trailing run after its last head), and a non-identity exclusive init one
// more pass. Traffic: the local segmented scan plus the runs fixed.
//
// Errors: the checks of the single-process call on any rank (short outputs,
// overlaps, bad offsets, the refused algorithms), offsets whose last entry
// is not the global length, or options that differ between ranks ->
// std::invalid_argument on every rank, nothing written.
#pragma once

#include <sweep/mpi/scan.hpp>
#include <sweep/segmented_scan.hpp>

#include <cstdint>
#include <string>
#include <tuple>

namespace sweep::mpi {
namespace detail {

/// A rank's contribution across a rank boundary: the fold of its open run
/// and whether it holds a segment head (which stops what came before).
template <class T>
struct carried {
  T value;
  std::int32_t head;
};

/// The segmented (lifted) operator on carried values; associative, never
/// commutative.
template <class Op>
struct lifted {
  using T = typename Op::value_type;
  using value_type = carried<T>;
  Op op;
  static value_type identity() {
    value_type v{};
    v.value = Op::identity();
    v.head = 0;
    return v;
  }
  value_type operator()(const value_type& a, const value_type& b) const {
    if (b.head) return b;
    value_type r{};
    r.value = op(a.value, b.value);
    r.head = a.head;
    return r;
  }
};

/// The first and last i in [0, n) with flags(i) != 0 (n and -1 when none).
template <class ExecSpace, class Flags>
std::pair<index_t, index_t> head_range(const ExecSpace& space, const Flags& flags, index_t n, const char* label) {
  index_t first = n, last = -1;
  if (n == 0) return {first, last};
  Kokkos::parallel_reduce(
      label, range<ExecSpace>(space, 0, n),
      KOKKOS_LAMBDA(const index_t i, index_t& lo) {
        if (flags(i) != 0 && i < lo) lo = i;
      },
      Kokkos::Min<index_t>(first));
  Kokkos::parallel_reduce(
      label, range<ExecSpace>(space, 0, n),
      KOKKOS_LAMBDA(const index_t i, index_t& hi) {
        if (flags(i) != 0 && i > hi) hi = i;
      },
      Kokkos::Max<index_t>(last));
  space.fence();
  // A reducer starts from its own identity (the extreme values), not from
  // the variable's value: no head leaves them there.
  if (first > n) first = n;
  if (last < -1) last = -1;
  return {first, last};
}

/// Local head flags (bytes) of the elements [begin, begin + n) from the
/// global offsets.
template <class ExecSpace, class Offsets>
Kokkos::View<std::uint8_t*, typename ExecSpace::memory_space> flags_from_offsets(const ExecSpace& space,
                                                                                const Offsets& offsets, index_t begin,
                                                                                index_t n) {
  Kokkos::View<std::uint8_t*, typename ExecSpace::memory_space> flags("sweep::mpi::head_flags", n);
  const index_t m = static_cast<index_t>(offsets.extent(0));
  Kokkos::parallel_for(
      "sweep::mpi::offsets_to_flags", range<ExecSpace>(space, 0, m), KOKKOS_LAMBDA(const index_t s) {
        const index_t o = static_cast<index_t>(offsets(s));
        if (o >= begin && o < begin + n) flags(o - begin) = 1;
      });
  return flags;
}

/// out(i) = init (+) [carry (+)] out(i), the carry only on [lo, hi).
template <class ExecSpace, class View, class Op, class T = typename Op::value_type>
void finish_segmented(const ExecSpace& space, const View& out, index_t n, index_t lo, index_t hi, const Op& op,
                      const T& carry, const T& init) {
  const bool with_carry = lo < hi && !same_bytes(carry, Op::identity());
  const bool with_init = !same_bytes(init, Op::identity());
  if (!with_init) {
    if (with_carry) left_combine(space, out, lo, hi, op, carry, "sweep::mpi::segmented::carry");
    return;
  }
  Kokkos::parallel_for(
      "sweep::mpi::segmented::init", range<ExecSpace>(space, 0, n), KOKKOS_LAMBDA(const index_t i) {
        T v = out(i);
        if (with_carry && i >= lo && i < hi) v = op(carry, v);
        out(i) = op(init, v);
      });
}

template <class ExecSpace, class InView, class Segments, class OutView, class Op, class T = typename Op::value_type>
void segmented_scan(const char* where, MPI_Comm comm, const ExecSpace& space, const InView& in,
                    const Segments& segments, const OutView& out, const T& init, bool exclusive, const Op& op,
                    const scan_options& opt) {
  sweep::detail::static_check_segmented<ExecSpace, InView, OutView, Segments, Op>();
  constexpr int kind = sweep::detail::segments_kind<Segments>::value;
  static_assert(kind == sweep::detail::kind_flags || kind == sweep::detail::kind_offsets,
                "sweep::mpi segmented scans take head_flags (local) or segment_offsets (global)");
  sweep::detail::scoped_region region(where);
  require_comm(comm, where);
  const index_t n = static_cast<index_t>(in.extent(0));
  index_t begin = 0, total_n = 0;
  std::tie(begin, total_n) = offset_and_total(comm, n);
  checked(comm, where, [&] {
    sweep::detail::check_scan_views(where, in, out);
    sweep::detail::require(!sweep::detail::overlap(out, sweep::detail::repr_view(segments)), where,
                           "out overlaps the segments' View; the scan would overwrite them");
    sweep::detail::require(runs_segmented(opt.algorithm), where, "algorithm ", to_string(opt.algorithm),
                           " re-reads its own output and has no segmented form; use one of ",
                           segmented_algorithm_names());
    sweep::detail::require(opt.chunk_size >= 0, where, "chunk_size is ", opt.chunk_size,
                           "; it must not be negative");
    if constexpr (kind == sweep::detail::kind_offsets) {
      const index_t last = sweep::detail::repr_length(space, segments, where);
      sweep::detail::require(last == total_n, where, "segment_offsets ends at ", last, " but the ranks hold ",
                             total_n, " elements together; the last offset must be the global length");
    } else {
      sweep::detail::check_segments(space, segments, n, where);
    }
  });
  require_same_scan_options(comm, where, opt);
  const auto flags = [&] {
    if constexpr (kind == sweep::detail::kind_offsets) return flags_from_offsets(space, segments.offsets, begin, n);
    else return segments.flags;
  }();
  const bool backward = opt.direction == direction::backward;
  index_t first_head = n, last_head = -1;
  std::tie(first_head, last_head) = head_range(space, flags, n, "sweep::mpi::segmented::heads");
  if (n > 0) {
    const sweep::head_flags<std::remove_cv_t<decltype(flags)>> local(flags);
    if (exclusive) sweep::segmented_exclusive_scan(std::string(where), space, in, local, out, Op::identity(), op, opt);
    else sweep::segmented_inclusive_scan(std::string(where), space, in, local, out, op, opt);
  }
  const ordered_comm ordered(comm, backward);
  auto finish = [&](const auto& oop) {
    // The fold of the rank's open end: after its last head (forward), or
    // before its first head (backward), read from the local result.
    carried<T> summary{};
    summary.value = Op::identity();
    summary.head = first_head < n ? 1 : 0;
    const index_t edge = backward ? 0 : n - 1;
    if (n > 0 && !(backward && first_head == 0)) {
      summary.value = read_element(space, out, edge);
      if (exclusive) summary.value = oop(summary.value, static_cast<T>(read_element(space, in, edge)));
    }
    const auto carry = rank_prefix(ordered.get(), lifted<std::remove_cvref_t<decltype(oop)>>{oop}, summary).first;
    const index_t lo = backward ? (last_head < 0 ? 0 : last_head) : 0;
    const index_t hi = backward ? n : first_head;
    finish_segmented(space, out, n, lo, hi, oop, carry.value, init);
    space.fence();
  };
  if (backward) finish(sweep::detail::flipped<Op>{op});
  else finish(op);
}

}  // namespace detail

template <class ExecSpace, class InView, class Segments, class OutView,
          monoid Op = sweep::detail::default_op<InView>>
  requires(Kokkos::is_execution_space<ExecSpace>::value && sweep::detail::is_segments_v<Segments>)
void segmented_inclusive_scan(MPI_Comm comm, const ExecSpace& space, const InView& in, const Segments& segments,
                              const OutView& out, const Op& op = Op{}, const scan_options& opt = {}) {
  detail::segmented_scan("sweep::mpi::segmented_inclusive_scan", comm, space, in, segments, out, Op::identity(), false,
                         op, opt);
}

template <class ExecSpace, class InView, class Segments, class OutView>
  requires(Kokkos::is_execution_space<ExecSpace>::value && sweep::detail::is_segments_v<Segments>)
void segmented_inclusive_scan(MPI_Comm comm, const ExecSpace& space, const InView& in, const Segments& segments,
                              const OutView& out, const scan_options& opt) {
  segmented_inclusive_scan(comm, space, in, segments, out, sweep::detail::default_op<InView>{}, opt);
}

template <class ExecSpace, class InView, class Segments, class OutView, class Init,
          monoid Op = sweep::detail::default_op<InView>>
  requires(Kokkos::is_execution_space<ExecSpace>::value && sweep::detail::is_segments_v<Segments>)
void segmented_exclusive_scan(MPI_Comm comm, const ExecSpace& space, const InView& in, const Segments& segments,
                              const OutView& out, const Init& init, const Op& op = Op{},
                              const scan_options& opt = {}) {
  detail::segmented_scan("sweep::mpi::segmented_exclusive_scan", comm, space, in, segments, out,
                         static_cast<typename Op::value_type>(init), true, op, opt);
}

template <class ExecSpace, class InView, class Segments, class OutView, class Init>
  requires(Kokkos::is_execution_space<ExecSpace>::value && sweep::detail::is_segments_v<Segments>)
void segmented_exclusive_scan(MPI_Comm comm, const ExecSpace& space, const InView& in, const Segments& segments,
                              const OutView& out, const Init& init, const scan_options& opt) {
  segmented_exclusive_scan(comm, space, in, segments, out, init, sweep::detail::default_op<InView>{}, opt);
}

/// Totals of the segments that start on this rank (see the header); returns
/// their number.
template <class ExecSpace, class InView, class FlagView, class TotalView,
          monoid Op = sweep::detail::default_op<InView>>
  requires Kokkos::is_execution_space<ExecSpace>::value
index_t segmented_reduce(MPI_Comm comm, const ExecSpace& space, const InView& in, const head_flags<FlagView>& segments,
                         const TotalView& totals, const Op& op = Op{}) {
  using T = typename Op::value_type;
  static_assert(std::is_same_v<typename TotalView::value_type, T>,
                "sweep::mpi::segmented_reduce: `totals` must be a non-const View of the operator's value_type");
  const char* where = "sweep::mpi::segmented_reduce";
  sweep::detail::scoped_region region(where);
  detail::require_comm(comm, where);
  const index_t n = static_cast<index_t>(in.extent(0));
  const auto begin = detail::offset_and_total(comm, n).first;
  const auto flags = segments.flags;
  index_t first_head = n, last_head = -1, owned = 0;
  bool continues = false;
  detail::checked(comm, where, [&] {
    sweep::detail::check_segments(space, segments, n, where);
    sweep::detail::require(!sweep::detail::overlap(totals, in) && !sweep::detail::overlap(totals, flags), where,
                           "totals overlaps in or the flags");
    std::tie(first_head, last_head) = detail::head_range(space, flags, n, "sweep::mpi::segmented_reduce::heads");
    if (begin == 0 && n > 0) first_head = 0;  // the global element 0 starts a segment
    continues = n > 0 && first_head > 0;
    const index_t heads = n == 0 ? 0 : sweep::detail::count_heads(space, sweep::detail::flag_heads<FlagView>{flags},
                                                                  n, where);
    owned = heads - (continues ? 1 : 0);
    sweep::detail::require(static_cast<index_t>(totals.extent(0)) >= owned, where, "totals has ", totals.extent(0),
                           " elements but ", owned, " segments start on this rank");
  });
  const index_t local_segments = owned + (continues ? 1 : 0);
  Kokkos::View<T*, typename ExecSpace::memory_space> local(
      Kokkos::view_alloc(Kokkos::WithoutInitializing, "sweep::mpi::segmented_reduce::local"), local_segments);
  if (n > 0) sweep::segmented_reduce(std::string(where), space, in, segments, local, op);
  // What flows in from the right: the leading runs of the next ranks, up
  // to the first rank with a head (ranks reversed, operands swapped).
  detail::carried<T> summary{};
  summary.value = continues ? detail::read_element(space, local, 0) : Op::identity();
  summary.head = first_head < n ? 1 : 0;
  const detail::ordered_comm reversed(comm, true);
  using flip = sweep::detail::flipped<Op>;
  const auto carry = detail::rank_prefix(reversed.get(), detail::lifted<flip>{flip{op}}, summary).first;
  const index_t skip = continues ? 1 : 0;
  const bool with_carry = owned > 0 && !detail::same_bytes(carry.value, Op::identity());
  const T tail = carry.value;
  Kokkos::parallel_for(
      "sweep::mpi::segmented_reduce::owned", detail::range<ExecSpace>(space, 0, owned), KOKKOS_LAMBDA(const index_t k) {
        const T v = local(k + skip);
        totals(k) = (with_carry && k == owned - 1) ? op(v, tail) : v;
      });
  space.fence();
  return owned;
}

}  // namespace sweep::mpi
