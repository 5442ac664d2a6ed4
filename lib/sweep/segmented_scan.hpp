// Segmented scans and reductions: one scan per segment of a sequence of
// sequences (edges per vertex, neighbours per particle), in one pass.
//
//   sweep::segmented_inclusive_scan([label,] space, in, segments, out [, op] [, scan_options]);
//   sweep::segmented_exclusive_scan([label,] space, in, segments, out, init [, op] [, scan_options]);
//   index_t sweep::segmented_reduce([label,] space, in, segments, totals [, op]);   // -> n_segments
//
// `segments`, all first-class:
//   sweep::head_flags(flags)           bytes, nonzero = a segment starts here
//                                      (element 0 always starts one)
//   sweep::head_bits(words, n_bits)    the same, bit i%32 of words(i/32)
//   sweep::segment_offsets(offsets)    n_segments+1 monotone offsets, first 0,
//                                      last n; empty segments allowed
//   sweep::segment_keys(keys)          a new segment wherever keys(i) != keys(i-1)
// Conversions: segment_count, to_head_flags, to_segment_offsets (a
// compaction of the heads on Sweep's scan) and to_segment_ids (a scan of
// the heads, or an element-blocked walk of the offsets).
//
// Semantics: within each segment, exactly sweep::inclusive_scan /
// exclusive_scan; the exclusive init is applied at the start of every
// segment. Backward scans run each segment from its end. Operands are never
// reordered, so non-commutative monoids are exact. segmented_reduce writes
// the fold of segment s to totals(s) (the identity for an empty segment).
//
// Algorithms (scan_options::algorithm):
//   single_pass     operator lifting: the segmented operator on (head, value)
//                   pairs fed to the single-pass look-back scan; one read
//                   and one write per element, balanced by elements (a
//                   huge segment among tiny ones costs nothing extra).
//   blelloch        the segmented up-sweep / down-sweep with flag
//                   propagation and a copy of the original flags; work 2n.
//   sequential, hillis_steele, brent_kung   the plain algorithms, lifted.
//   automatic       host: sequential below 4096 elements, else single_pass;
//                   other spaces: single_pass.
// tiled and chunked re-read their own output, which lifting cannot do;
// they are refused with std::invalid_argument.
// Offsets are turned into head bits first (n/8 bytes, one pass).
//
// Errors (std::invalid_argument naming the problem, nothing written):
// flags/bits/keys shorter than in; offsets empty, not starting at 0, not
// ending at n, or decreasing; out shorter than in or overlapping it (other
// than in place) or the segments; an algorithm without a segmented form;
// totals shorter than the number of segments or overlapping in or the
// segments; a conversion's output shorter than it needs or overlapping the
// segments' View (the same View included: no conversion runs in place).
#pragma once

#include <sweep/core.hpp>
#include <sweep/monoid.hpp>
#include <sweep/scan.hpp>
#include <sweep/detail/segment_repr.hpp>
#include <sweep/detail/segmented_io.hpp>

#include <string>
#include <type_traits>

namespace sweep {
namespace detail {

/// Runs a lifted (or functor) scan with `algo` (automatic or an algorithm
/// that runs lifted segmented scans).
template <class ExecSpace, class IO>
void run_lifted(const ExecSpace& space, const IO& io, scan_algorithm algo, bool exclusive, index_t chunk,
                const std::string& label) {
  scan_options opt;
  opt.algorithm = algo;
  opt.chunk_size = chunk;
  run_scan_io<true>(space, io, IO::identity(), exclusive, opt, label);
}

template <class ExecSpace, class InView, class OutView, class Segments, class Op>
constexpr void static_check_segmented() {
  static_check_scan<ExecSpace, InView, OutView, Op>();
  static_assert(is_segments_v<Segments>,
                "sweep segmented scan: `segments` must be sweep::head_flags, head_bits, segment_offsets or segment_keys");
}

template <bool Backward, class ExecSpace, class Heads, class InView, class OutView, class Op,
          class T = typename Op::value_type>
void run_segmented(const std::string& label, const ExecSpace& space, const Heads& heads, const InView& in,
                   const OutView& out, const T& init, bool exclusive, const Op& op, const scan_options& opt) {
  const index_t n = static_cast<index_t>(in.extent(0));
  auto out_n = Kokkos::subview(out, Kokkos::pair<index_t, index_t>(0, n));
  segmented_scan_io<Heads, InView, decltype(out_n), Op, Backward> io{heads, in, out_n, {op}, n, init, exclusive};
  if (!run_own_segmented(scan_algorithm_list{}, opt.algorithm, space, io, label))
    run_lifted(space, io, opt.algorithm, exclusive, opt.chunk_size, label);
}

template <class ExecSpace, class InView, class Segments, class OutView, class Op, class T = typename Op::value_type>
void segmented_scan(const std::string& label, const ExecSpace& space, const InView& in, const Segments& segments,
                    const OutView& out, const T& init, bool exclusive, const Op& op, const scan_options& opt) {
  static_check_segmented<ExecSpace, InView, OutView, Segments, Op>();
  scoped_region region(label);
  const char* where = exclusive ? "sweep::segmented_exclusive_scan" : "sweep::segmented_inclusive_scan";
  const index_t n = static_cast<index_t>(in.extent(0));
  check_scan_views(where, in, out);
  // Offsets of a non-empty input are checked to be monotone as make_heads
  // converts them, before anything is written (one read of them).
  check_segments(space, segments, n, where, n == 0);
  require(!overlap(out, repr_view(segments)), where, "out overlaps the segments' View; the scan would overwrite them");
  require(runs_segmented(opt.algorithm), where, "algorithm ", to_string(opt.algorithm),
          " re-reads its own output and has no segmented form; use one of ", segmented_algorithm_names());
  require(opt.chunk_size >= 0, where, "chunk_size is ", opt.chunk_size, "; it must not be negative");
  if (n == 0) return;
  head_scratch<ExecSpace> scratch;
  const auto heads = make_heads(space, segments, n, label, scratch, where);
  if (opt.direction == direction::backward)
    run_segmented<true>(label, space, heads, in, out, init, exclusive, flipped<Op>{op}, opt);
  else
    run_segmented<false>(label, space, heads, in, out, init, exclusive, op, opt);
}

/// load(i) = 1 where pred(i) holds (a head), else 0.
template <class Pred>
struct head_count {
  Pred pred;
  KOKKOS_INLINE_FUNCTION index_t operator()(index_t i) const { return pred(i) ? 1 : 0; }
};

/// With the exclusive count of pred: out(k) = position of the k-th match.
template <class Pred, class View>
struct store_position {
  Pred pred;
  View out;
  KOKKOS_INLINE_FUNCTION void operator()(index_t i, index_t k) const {
    if (pred(i)) out(k) = static_cast<typename View::non_const_value_type>(i);
  }
};

/// ids(i) = (number of heads up to i) - 1.
template <class View>
struct store_segment_id {
  View ids;
  KOKKOS_INLINE_FUNCTION void operator()(index_t i, index_t heads_so_far) const {
    ids(i) = static_cast<typename View::non_const_value_type>(heads_so_far - 1);
  }
};

template <class ExecSpace, class Pred>
index_t count_heads(const ExecSpace& space, const Pred& pred, index_t n, const std::string& label) {
  index_t count = 0;
  Kokkos::parallel_reduce(
      label + "::count_heads", sweep::detail::range_policy<ExecSpace>(space, 0, n),
      KOKKOS_LAMBDA(const index_t i, index_t& c) { c += pred(i) ? 1 : 0; }, count);
  return count;
}

/// Compaction on Sweep's scan: out(k) = the k-th i in [0, n) where pred(i)
/// holds (out needs that many entries).
template <class ExecSpace, class Pred, class View>
void compact_positions(const ExecSpace& space, const Pred& pred, index_t n, const View& out, const std::string& label) {
  functor_io<head_count<Pred>, store_position<Pred, View>, plus<index_t>> io{{pred}, {pred, out}, {}, n};
  run_lifted(space, io, scan_algorithm::automatic, true, 0, label);
}

/// Segment s of offsets holds at least one element.
template <class V>
struct nonempty_segment {
  V off;
  KOKKOS_INLINE_FUNCTION bool operator()(index_t s) const { return off(s + 1) > off(s); }
};

template <class ExecSpace, class Op, class InView, class Segments, class TotalView>
index_t segmented_reduce(const std::string& label, const ExecSpace& space, const InView& in,
                         const Segments& segments, const TotalView& totals, const Op& op) {
  static_assert(Kokkos::is_execution_space<ExecSpace>::value,
                "sweep::segmented_reduce: the first argument must be a Kokkos execution space instance");
  static_assert(is_rank1_view_v<InView> && is_rank1_view_v<TotalView>,
                "sweep::segmented_reduce: `in` and `totals` must be rank-1 Views");
  static_assert(accessible_from_v<ExecSpace, InView> && accessible_from_v<ExecSpace, TotalView>,
                "sweep::segmented_reduce: `in` and `totals` must be accessible from the execution space");
  static_assert(std::is_same_v<typename TotalView::value_type, typename Op::value_type>,
                "sweep::segmented_reduce: `totals` must be a non-const View of the operator's value_type");
  static_assert(is_segments_v<Segments>, "sweep::segmented_reduce: `segments` must be a Sweep segment representation");
  using Mem = typename ExecSpace::memory_space;
  scoped_region region(label);
  const char* where = "sweep::segmented_reduce";
  const index_t n = static_cast<index_t>(in.extent(0));
  check_segments(space, segments, n, where, false);  // make_heads checks that offsets rise
  constexpr bool offsets = is_offsets_v<Segments>;
  Kokkos::View<index_t*, Mem> ordinal;
  head_scratch<ExecSpace> scratch;
  const auto heads = make_heads(space, segments, n, label, scratch, where);
  index_t nseg;
  if constexpr (offsets) nseg = static_cast<index_t>(segments.offsets.extent(0)) - 1;
  else nseg = count_heads(space, heads, n, label);
  require(static_cast<index_t>(totals.extent(0)) >= nseg, where, "totals has ", totals.extent(0),
          " elements but there are ", nseg, " segments");
  require(!overlap(totals, in) && !overlap(totals, repr_view(segments)), where,
          "totals overlaps in or the segments' View");
  if (nseg == 0) return 0;
  if constexpr (offsets) {
    // Empty segments get the identity; non-empty ones are found by
    // compacting their indices.
    const nonempty_segment<decltype(segments.offsets)> nonempty{segments.offsets};
    const index_t filled = count_heads(space, nonempty, nseg, label);
    if (filled < nseg) {
      Kokkos::deep_copy(space, Kokkos::subview(totals, Kokkos::pair<index_t, index_t>(0, nseg)), Op::identity());
      ordinal = Kokkos::View<index_t*, Mem>(Kokkos::view_alloc(Kokkos::WithoutInitializing, label + "::ordinal"),
                                            filled);
      compact_positions(space, nonempty, nseg, ordinal, label + "::compact");
    }
  }
  if (n == 0) return nseg;
  segmented_reduce_io<decltype(heads), InView, TotalView, decltype(ordinal), Op> io{heads, in, totals, ordinal,
                                                                                    {op}, n};
  run_lifted(space, io, scan_algorithm::automatic, false, 0, label);
  return nseg;
}

/// The door of every conversion: the output View's shape, then the
/// representation's checks and the number of elements it describes. The
/// output must not overlap the representation: the conversions read
/// neighbouring entries (keys(i - 1), a chunk's first head) while other
/// threads write, so even the same View would be overwritten before it is
/// read. `rise` as repr_length: false where the conversion goes through
/// make_heads, which checks offsets as it converts them (when n > 0).
template <class ExecSpace, class Segments, class OutView>
index_t conversion_length(const ExecSpace& space, const Segments& segments, const OutView& out, const char* where,
                          const char* out_name, bool rise = true) {
  static_assert(is_rank1_view_v<OutView> && accessible_from_v<ExecSpace, OutView>,
                "sweep conversions: the output must be a rank-1 View accessible from the space");
  const index_t n = repr_length(space, segments, where, rise);
  if (!rise && n == 0) repr_length(space, segments, where);  // nothing to convert: check them here
  require(!overlap(out, repr_view(segments)), where, out_name, " (", out.extent(0),
          " entries) overlaps the segments' View; the conversion would overwrite what it reads");
  return n;
}

}  // namespace detail

// ---------------------------------------------------------------- scans

template <class ExecSpace, class InView, class Segments, class OutView,
          monoid Op = detail::default_op<InView>>
  requires(Kokkos::is_execution_space<ExecSpace>::value && detail::is_segments_v<Segments>)
void segmented_inclusive_scan(const std::string& label, const ExecSpace& space, const InView& in,
                              const Segments& segments, const OutView& out, const Op& op = Op{},
                              const scan_options& opt = {}) {
  detail::segmented_scan(label, space, in, segments, out, Op::identity(), false, op, opt);
}

template <class ExecSpace, class InView, class Segments, class OutView>
  requires(Kokkos::is_execution_space<ExecSpace>::value && detail::is_segments_v<Segments>)
void segmented_inclusive_scan(const std::string& label, const ExecSpace& space, const InView& in,
                              const Segments& segments, const OutView& out, const scan_options& opt) {
  segmented_inclusive_scan(label, space, in, segments, out, detail::default_op<InView>{}, opt);
}

template <class ExecSpace, class InView, class Segments, class OutView,
          monoid Op = detail::default_op<InView>>
  requires(Kokkos::is_execution_space<ExecSpace>::value && detail::is_segments_v<Segments>)
void segmented_inclusive_scan(const ExecSpace& space, const InView& in, const Segments& segments,
                              const OutView& out, const Op& op = Op{}, const scan_options& opt = {}) {
  segmented_inclusive_scan(std::string("sweep::segmented_inclusive_scan"), space, in, segments, out, op, opt);
}

template <class ExecSpace, class InView, class Segments, class OutView>
  requires(Kokkos::is_execution_space<ExecSpace>::value && detail::is_segments_v<Segments>)
void segmented_inclusive_scan(const ExecSpace& space, const InView& in, const Segments& segments,
                              const OutView& out, const scan_options& opt) {
  segmented_inclusive_scan(std::string("sweep::segmented_inclusive_scan"), space, in, segments, out,
                           detail::default_op<InView>{}, opt);
}

template <class ExecSpace, class InView, class Segments, class OutView, class Init,
          monoid Op = detail::default_op<InView>>
  requires(Kokkos::is_execution_space<ExecSpace>::value && detail::is_segments_v<Segments>)
void segmented_exclusive_scan(const std::string& label, const ExecSpace& space, const InView& in,
                              const Segments& segments, const OutView& out, const Init& init, const Op& op = Op{},
                              const scan_options& opt = {}) {
  detail::segmented_scan(label, space, in, segments, out, static_cast<typename Op::value_type>(init), true, op, opt);
}

template <class ExecSpace, class InView, class Segments, class OutView, class Init>
  requires(Kokkos::is_execution_space<ExecSpace>::value && detail::is_segments_v<Segments>)
void segmented_exclusive_scan(const std::string& label, const ExecSpace& space, const InView& in,
                              const Segments& segments, const OutView& out, const Init& init,
                              const scan_options& opt) {
  segmented_exclusive_scan(label, space, in, segments, out, init, detail::default_op<InView>{}, opt);
}

template <class ExecSpace, class InView, class Segments, class OutView, class Init,
          monoid Op = detail::default_op<InView>>
  requires(Kokkos::is_execution_space<ExecSpace>::value && detail::is_segments_v<Segments>)
void segmented_exclusive_scan(const ExecSpace& space, const InView& in, const Segments& segments,
                              const OutView& out, const Init& init, const Op& op = Op{},
                              const scan_options& opt = {}) {
  segmented_exclusive_scan(std::string("sweep::segmented_exclusive_scan"), space, in, segments, out, init, op,
                           opt);
}

template <class ExecSpace, class InView, class Segments, class OutView, class Init>
  requires(Kokkos::is_execution_space<ExecSpace>::value && detail::is_segments_v<Segments>)
void segmented_exclusive_scan(const ExecSpace& space, const InView& in, const Segments& segments,
                              const OutView& out, const Init& init, const scan_options& opt) {
  segmented_exclusive_scan(std::string("sweep::segmented_exclusive_scan"), space, in, segments, out, init,
                           detail::default_op<InView>{}, opt);
}

// ---------------------------------------------------------------- reduce

template <class ExecSpace, class InView, class Segments, class TotalView,
          monoid Op = detail::default_op<InView>>
  requires(Kokkos::is_execution_space<ExecSpace>::value && detail::is_segments_v<Segments>)
index_t segmented_reduce(const std::string& label, const ExecSpace& space, const InView& in,
                         const Segments& segments, const TotalView& totals, const Op& op = Op{}) {
  return detail::segmented_reduce(label, space, in, segments, totals, op);
}

template <class ExecSpace, class InView, class Segments, class TotalView,
          monoid Op = detail::default_op<InView>>
  requires(Kokkos::is_execution_space<ExecSpace>::value && detail::is_segments_v<Segments>)
index_t segmented_reduce(const ExecSpace& space, const InView& in, const Segments& segments,
                         const TotalView& totals, const Op& op = Op{}) {
  return detail::segmented_reduce(std::string("sweep::segmented_reduce"), space, in, segments, totals, op);
}

// ---------------------------------------------------------------- conversions

/// Number of segments (offsets: n_segments, empty ones included).
template <class ExecSpace, class Segments>
  requires(Kokkos::is_execution_space<ExecSpace>::value && detail::is_segments_v<Segments>)
index_t segment_count(const ExecSpace& space, const Segments& segments) {
  const char* where = "sweep::segment_count";
  detail::scoped_region region(where);
  const index_t n = detail::repr_length(space, segments, where);
  if constexpr (detail::is_offsets_v<Segments>) return static_cast<index_t>(segments.offsets.extent(0)) - 1;
  else {
    detail::head_scratch<ExecSpace> scratch;
    if (n == 0) return 0;
    return detail::count_heads(space, detail::make_heads(space, segments, n, where, scratch, where), n, where);
  }
}

/// flags(i) = 1 where a segment starts, else 0, for the n elements the
/// representation describes (offsets: empty segments leave no trace).
template <class ExecSpace, class Segments, class FlagView>
  requires(Kokkos::is_execution_space<ExecSpace>::value && detail::is_segments_v<Segments>)
void to_head_flags(const ExecSpace& space, const Segments& segments, const FlagView& flags) {
  const char* where = "sweep::to_head_flags";
  detail::scoped_region region(where);
  const index_t n = detail::conversion_length(space, segments, flags, where, "flags", false);
  detail::require(static_cast<index_t>(flags.extent(0)) >= n, where, "flags has ", flags.extent(0), " entries but ", n,
          " are needed");
  if (n == 0) return;
  detail::head_scratch<ExecSpace> scratch;
  const auto heads = detail::make_heads(space, segments, n, where, scratch, where);
  using F = typename FlagView::non_const_value_type;
  Kokkos::parallel_for(
      "sweep::to_head_flags", sweep::detail::range_policy<ExecSpace>(space, 0, n),
      KOKKOS_LAMBDA(const index_t i) { flags(i) = heads(i) ? F(1) : F(0); });
}

/// offsets(0..n_segments] of the segments; returns n_segments. Flags,
/// bits and keys: a compaction of the head positions (one scan).
template <class ExecSpace, class Segments, class OffsetView>
  requires(Kokkos::is_execution_space<ExecSpace>::value && detail::is_segments_v<Segments>)
index_t to_segment_offsets(const ExecSpace& space, const Segments& segments, const OffsetView& offsets) {
  const char* where = "sweep::to_segment_offsets";
  detail::scoped_region region(where);
  const index_t n = detail::conversion_length(space, segments, offsets, where, "offsets");
  using O = typename OffsetView::non_const_value_type;
  if constexpr (detail::is_offsets_v<Segments>) {
    const index_t m = static_cast<index_t>(segments.offsets.extent(0));
    detail::require(static_cast<index_t>(offsets.extent(0)) >= m, where, "offsets has ", offsets.extent(0),
            " entries but ", m, " are needed");
    const auto src = segments.offsets;
    Kokkos::parallel_for(
        where, sweep::detail::range_policy<ExecSpace>(space, 0, m), KOKKOS_LAMBDA(const index_t s) { offsets(s) = O(src(s)); });
    space.fence();
    return m - 1;
  } else {
    detail::head_scratch<ExecSpace> scratch;
    const auto heads = detail::make_heads(space, segments, n, where, scratch, where);
    const index_t nseg = n == 0 ? 0 : detail::count_heads(space, heads, n, where);
    detail::require(static_cast<index_t>(offsets.extent(0)) >= nseg + 1, where, "offsets has ", offsets.extent(0),
            " entries but ", nseg + 1, " are needed (", nseg, " segments + 1)");
    if (n > 0) detail::compact_positions(space, heads, n, offsets, where);
    Kokkos::deep_copy(space, Kokkos::subview(offsets, nseg), O(n));
    space.fence();
    return nseg;
  }
}

/// ids(i) = index of the segment holding element i (offsets: counting
/// empty segments).
template <class ExecSpace, class Segments, class IdView>
  requires(Kokkos::is_execution_space<ExecSpace>::value && detail::is_segments_v<Segments>)
void to_segment_ids(const ExecSpace& space, const Segments& segments, const IdView& ids) {
  const char* where = "sweep::to_segment_ids";
  detail::scoped_region region(where);
  const index_t n = detail::conversion_length(space, segments, ids, where, "ids");
  detail::require(static_cast<index_t>(ids.extent(0)) >= n, where, "ids has ", ids.extent(0), " entries but ", n,
          " are needed");
  if (n == 0) return;
  if constexpr (detail::is_offsets_v<Segments>) {
    detail::offsets_to_ids(space, segments.offsets, n, ids, where);
  } else {
    detail::head_scratch<ExecSpace> scratch;
    const auto heads = detail::make_heads(space, segments, n, where, scratch, where);
    detail::functor_io<detail::head_count<decltype(heads)>, detail::store_segment_id<IdView>, plus<index_t>> io{
        {heads}, {ids}, {}, n};
    detail::run_lifted(space, io, scan_algorithm::automatic, false, 0, where);
  }
}

}  // namespace sweep
