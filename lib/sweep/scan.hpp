// Parallel prefix scans with any associative operator.
//
//   T sweep::inclusive_scan([label,] space, in, out [, op] [, scan_options]);
//   T sweep::exclusive_scan([label,] space, in, out, init [, op] [, scan_options]);
//   void sweep::inclusive_scan([label,] space, in, out, total [, op] [, scan_options]);
//   void sweep::exclusive_scan([label,] space, in, out, init, total [, op] [, scan_options]);
//
// `in` and `out` are rank-1 Views (contiguous or strided) accessible from
// `space`; `out` may be the same View as `in` (in place). The result is the
// total: the fold of all inputs, with `init` for exclusive scans, on the host.
// Forward: out[i] = init (+) in[0] (+) ... (+) in[i] (inclusive without
// init; exclusive stops at in[i-1]). Backward (suffix scan), the mirror:
// out[i] = in[i] (+) ... (+) in[n-1] (inclusive), and
// out[i] = in[i+1] (+) ... (+) in[n-1] (+) init (exclusive). Operands are
// never reordered, so non-commutative monoids are exact. minimum and
// maximum propagate NaN (the first one) and keep the first of equal values
// on every algorithm (sweep/monoid.hpp).
//
// Algorithms (scan_options::algorithm), all on every backend:
//   sequential      one thread; work n.
//   hillis_steele   log2 n double-buffered steps; work n log n.
//   blelloch        up-sweep / down-sweep on a power-of-two tree; work 2n.
//   brent_kung      reduce tree + inclusive fan-out, in place; work 2n.
//   tiled           tile scans, recursive scan of tile sums, propagation.
//   chunked         one chunk per thread: scan, scan totals, add bases.
//   single_pass     chunks in order with decoupled look-back: one read and
//                   one write per element (traffic 2n, as a copy).
//   automatic       host spaces: sequential below 4096 elements, else
//                   single_pass; CUDA: the hand-written single-pass kernel
//                   of cuda/single_pass_scan.hpp (warp shuffles, decoupled
//                   look-back); other spaces: single_pass. (Chosen from
//                   bench_scan: single_pass is the only one near copy speed.)
// Errors: out shorter than in, or in/out overlapping without being the same
// View -> std::invalid_argument naming both extents, nothing written; wrong
// rank or a memory space `space` cannot access -> compile-time error.
// n = 0 returns init (or the identity) and touches nothing.
//
// Device totals: with `total`, a rank-0 View of the operator's value_type
// that `space` can access, the total is written there on `space` instead
// of being returned. Where the single-pass look-back scan runs (single_pass
// on every backend; automatic on CUDA for values up to 128 bytes and on
// host spaces from 4096 elements) the call then enqueues its work and
// returns without waiting for it, as a Kokkos kernel launch does: fence
// `space` (or keep working on it) before reading `out` or `total`. The
// other algorithms, and automatic where it resolves to them, read their
// total on the host first and so wait. The look-back's tile states come
// from a per-space workspace kept across calls (detail/workspace.hpp).
#pragma once

#include <sweep/core.hpp>
#include <sweep/monoid.hpp>
#include <sweep/scan_algorithms.hpp>
#include <sweep/scan_options.hpp>
#include <sweep/detail/scan_backend.hpp>
#include <sweep/detail/scan_io.hpp>
#include <sweep/detail/scan_registry.hpp>

#include <string>
#include <type_traits>

namespace sweep {

/// What `automatic` runs for n elements on ExecSpace (on CUDA `automatic`
/// runs the hand-written kernel, which implements single_pass).
template <class ExecSpace>
scan_algorithm resolve_scan_algorithm(scan_algorithm requested, index_t n) {
  if (requested != scan_algorithm::automatic) return requested;
  return detail::scan_backend<ExecSpace>::resolve(n);
}

namespace detail {

template <class ExecSpace, class InView, class OutView, class Op>
constexpr void static_check_scan() {
  static_assert(Kokkos::is_execution_space<ExecSpace>::value, "sweep scan: the first argument must be a Kokkos execution space instance");
  static_assert(is_rank1_view_v<InView>, "sweep scan: `in` must be a rank-1 Kokkos::View");
  static_assert(is_rank1_view_v<OutView>, "sweep scan: `out` must be a rank-1 Kokkos::View");
  static_assert(accessible_from_v<ExecSpace, InView>, "sweep scan: `in` lives in a memory space the execution space cannot access");
  static_assert(accessible_from_v<ExecSpace, OutView>, "sweep scan: `out` lives in a memory space the execution space cannot access");
  static_assert(std::is_same_v<typename OutView::value_type, typename Op::value_type>,
                "sweep scan: `out` must be a non-const View of the operator's value_type");
  static_assert(std::is_convertible_v<typename InView::value_type, typename Op::value_type>,
                "sweep scan: `in`'s elements must convert to the operator's value_type");
}

/// Run-time argument checks shared by every scan entry point.
template <class InView, class OutView>
void check_scan_views(const char* where, const InView& in, const OutView& out) {
  require(out.extent(0) >= in.extent(0), where, "out has ", out.extent(0), " elements but in has ", in.extent(0),
          "; out must be at least as long as in");
  require(same_elements(in, out) || !overlap(in, out), where, "in (", in.extent(0), " elements) and out (",
          out.extent(0), " elements) overlap without being the same View; pass the same View to scan in place");
}

template <bool Backward, class ExecSpace, class InView, class OutView, class Op, class Sink,
          class T = typename Op::value_type>
T run_scan(const std::string& label, const ExecSpace& space, const InView& in, const OutView& out, const T& init,
           bool exclusive, const Op& op, const scan_options& opt, const Sink& sink) {
  const index_t n = static_cast<index_t>(in.extent(0));
  auto out_n = Kokkos::subview(out, Kokkos::pair<index_t, index_t>(0, n));
  scan_io<InView, decltype(out_n), Op, Backward> io{in, out_n, op, n};
  return run_scan_io(space, io, init, exclusive, opt, label, sink);
}

/// A `total` argument: a rank-0 View.
template <class V, class = void>
struct is_rank0_view : std::false_type {};
template <class V>
struct is_rank0_view<V, std::enable_if_t<Kokkos::is_view<V>::value>> : std::bool_constant<(V::rank == 0)> {};
template <class V>
inline constexpr bool is_rank0_view_v = is_rank0_view<V>::value;

template <class ExecSpace, class TotalView, class Op>
constexpr void static_check_total() {
  static_assert(accessible_from_v<ExecSpace, TotalView>,
                "sweep scan: `total` lives in a memory space the execution space cannot access");
  static_assert(std::is_same_v<typename TotalView::value_type, typename Op::value_type>,
                "sweep scan: `total` must be a non-const rank-0 View of the operator's value_type");
}

template <class ExecSpace, class InView, class OutView, class Op, class Sink = total_on_host,
          class T = typename Op::value_type>
T scan(const std::string& label, const ExecSpace& space, const InView& in, const OutView& out, const T& init,
       bool exclusive, const Op& op, const scan_options& opt, const Sink& sink = Sink{}) {
  static_check_scan<ExecSpace, InView, OutView, Op>();
  scoped_region region(label);
  const char* where = exclusive ? "sweep::exclusive_scan" : "sweep::inclusive_scan";
  check_scan_views(where, in, out);
  require(opt.tile_size == 0 || opt.tile_size >= 2, where, "tile_size is ", opt.tile_size,
          "; it must be 0 (the space's default) or at least 2");
  require(opt.chunk_size >= 0, where, "chunk_size is ", opt.chunk_size, "; it must not be negative");
  if (in.extent(0) == 0) return sink.put(space, init);
  if (opt.direction == direction::backward)
    return run_scan<true>(label, space, in, out, init, exclusive, flipped<Op>{op}, opt, sink);
  return run_scan<false>(label, space, in, out, init, exclusive, op, opt, sink);
}

/// The scans whose total goes to a device View.
template <class ExecSpace, class InView, class OutView, class TotalView, class Op, class T = typename Op::value_type>
void scan_to(const std::string& label, const ExecSpace& space, const InView& in, const OutView& out, const T& init,
             const TotalView& total, bool exclusive, const Op& op, const scan_options& opt) {
  static_check_total<ExecSpace, TotalView, Op>();
  scan(label, space, in, out, init, exclusive, op, opt, total_in_view<TotalView>{total});
}

template <class InView>
using default_op = plus<typename InView::non_const_value_type>;

}  // namespace detail

// ---------------------------------------------------------------- inclusive

template <class ExecSpace, class InView, class OutView, monoid Op = detail::default_op<InView>>
  requires Kokkos::is_execution_space<ExecSpace>::value
typename Op::value_type inclusive_scan(const std::string& label, const ExecSpace& space, const InView& in,
                                       const OutView& out, const Op& op = Op{}, const scan_options& opt = {}) {
  return detail::scan(label, space, in, out, Op::identity(), false, op, opt);
}

template <class ExecSpace, class InView, class OutView>
  requires Kokkos::is_execution_space<ExecSpace>::value
auto inclusive_scan(const std::string& label, const ExecSpace& space, const InView& in, const OutView& out,
                    const scan_options& opt) {
  return inclusive_scan(label, space, in, out, detail::default_op<InView>{}, opt);
}

template <class ExecSpace, class InView, class OutView, monoid Op = detail::default_op<InView>>
  requires Kokkos::is_execution_space<ExecSpace>::value
typename Op::value_type inclusive_scan(const ExecSpace& space, const InView& in, const OutView& out,
                                       const Op& op = Op{}, const scan_options& opt = {}) {
  return inclusive_scan(std::string("sweep::inclusive_scan"), space, in, out, op, opt);
}

template <class ExecSpace, class InView, class OutView>
  requires Kokkos::is_execution_space<ExecSpace>::value
auto inclusive_scan(const ExecSpace& space, const InView& in, const OutView& out, const scan_options& opt) {
  return inclusive_scan(std::string("sweep::inclusive_scan"), space, in, out, detail::default_op<InView>{}, opt);
}

// ---------------------------------------------------------------- exclusive

template <class ExecSpace, class InView, class OutView, class Init, monoid Op = detail::default_op<InView>>
  requires Kokkos::is_execution_space<ExecSpace>::value
typename Op::value_type exclusive_scan(const std::string& label, const ExecSpace& space, const InView& in,
                                       const OutView& out, const Init& init, const Op& op = Op{},
                                       const scan_options& opt = {}) {
  return detail::scan(label, space, in, out, static_cast<typename Op::value_type>(init), true, op, opt);
}

template <class ExecSpace, class InView, class OutView, class Init>
  requires Kokkos::is_execution_space<ExecSpace>::value
auto exclusive_scan(const std::string& label, const ExecSpace& space, const InView& in, const OutView& out,
                    const Init& init, const scan_options& opt) {
  return exclusive_scan(label, space, in, out, init, detail::default_op<InView>{}, opt);
}

template <class ExecSpace, class InView, class OutView, class Init, monoid Op = detail::default_op<InView>>
  requires Kokkos::is_execution_space<ExecSpace>::value
typename Op::value_type exclusive_scan(const ExecSpace& space, const InView& in, const OutView& out, const Init& init,
                                       const Op& op = Op{}, const scan_options& opt = {}) {
  return exclusive_scan(std::string("sweep::exclusive_scan"), space, in, out, init, op, opt);
}

template <class ExecSpace, class InView, class OutView, class Init>
  requires Kokkos::is_execution_space<ExecSpace>::value
auto exclusive_scan(const ExecSpace& space, const InView& in, const OutView& out, const Init& init,
                    const scan_options& opt) {
  return exclusive_scan(std::string("sweep::exclusive_scan"), space, in, out, init, detail::default_op<InView>{},
                        opt);
}

// ------------------------------------------------- totals into a device View

template <class ExecSpace, class InView, class OutView, class TotalView, monoid Op = detail::default_op<InView>>
  requires(Kokkos::is_execution_space<ExecSpace>::value && detail::is_rank0_view_v<TotalView>)
void inclusive_scan(const std::string& label, const ExecSpace& space, const InView& in, const OutView& out,
                    const TotalView& total, const Op& op = Op{}, const scan_options& opt = {}) {
  detail::scan_to(label, space, in, out, Op::identity(), total, false, op, opt);
}

template <class ExecSpace, class InView, class OutView, class TotalView>
  requires(Kokkos::is_execution_space<ExecSpace>::value && detail::is_rank0_view_v<TotalView>)
void inclusive_scan(const std::string& label, const ExecSpace& space, const InView& in, const OutView& out,
                    const TotalView& total, const scan_options& opt) {
  inclusive_scan(label, space, in, out, total, detail::default_op<InView>{}, opt);
}

template <class ExecSpace, class InView, class OutView, class TotalView, monoid Op = detail::default_op<InView>>
  requires(Kokkos::is_execution_space<ExecSpace>::value && detail::is_rank0_view_v<TotalView>)
void inclusive_scan(const ExecSpace& space, const InView& in, const OutView& out, const TotalView& total,
                    const Op& op = Op{}, const scan_options& opt = {}) {
  inclusive_scan(std::string("sweep::inclusive_scan"), space, in, out, total, op, opt);
}

template <class ExecSpace, class InView, class OutView, class TotalView>
  requires(Kokkos::is_execution_space<ExecSpace>::value && detail::is_rank0_view_v<TotalView>)
void inclusive_scan(const ExecSpace& space, const InView& in, const OutView& out, const TotalView& total,
                    const scan_options& opt) {
  inclusive_scan(std::string("sweep::inclusive_scan"), space, in, out, total, detail::default_op<InView>{}, opt);
}

template <class ExecSpace, class InView, class OutView, class Init, class TotalView,
          monoid Op = detail::default_op<InView>>
  requires(Kokkos::is_execution_space<ExecSpace>::value && detail::is_rank0_view_v<TotalView>)
void exclusive_scan(const std::string& label, const ExecSpace& space, const InView& in, const OutView& out,
                    const Init& init, const TotalView& total, const Op& op = Op{}, const scan_options& opt = {}) {
  detail::scan_to(label, space, in, out, static_cast<typename Op::value_type>(init), total, true, op, opt);
}

template <class ExecSpace, class InView, class OutView, class Init, class TotalView>
  requires(Kokkos::is_execution_space<ExecSpace>::value && detail::is_rank0_view_v<TotalView>)
void exclusive_scan(const std::string& label, const ExecSpace& space, const InView& in, const OutView& out,
                    const Init& init, const TotalView& total, const scan_options& opt) {
  exclusive_scan(label, space, in, out, init, total, detail::default_op<InView>{}, opt);
}

template <class ExecSpace, class InView, class OutView, class Init, class TotalView,
          monoid Op = detail::default_op<InView>>
  requires(Kokkos::is_execution_space<ExecSpace>::value && detail::is_rank0_view_v<TotalView>)
void exclusive_scan(const ExecSpace& space, const InView& in, const OutView& out, const Init& init,
                    const TotalView& total, const Op& op = Op{}, const scan_options& opt = {}) {
  exclusive_scan(std::string("sweep::exclusive_scan"), space, in, out, init, total, op, opt);
}

template <class ExecSpace, class InView, class OutView, class Init, class TotalView>
  requires(Kokkos::is_execution_space<ExecSpace>::value && detail::is_rank0_view_v<TotalView>)
void exclusive_scan(const ExecSpace& space, const InView& in, const OutView& out, const Init& init,
                    const TotalView& total, const scan_options& opt) {
  exclusive_scan(std::string("sweep::exclusive_scan"), space, in, out, init, total, detail::default_op<InView>{},
                 opt);
}

}  // namespace sweep
