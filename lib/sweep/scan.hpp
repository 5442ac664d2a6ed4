// Parallel prefix scans with any associative operator.
//
//   T sweep::inclusive_scan([label,] space, in, out [, op] [, scan_options]);
//   T sweep::exclusive_scan([label,] space, in, out, init [, op] [, scan_options]);
//
// `in` and `out` are rank-1 Views (contiguous or strided) accessible from
// `space`; `out` may be the same View as `in` (in place). The result is the
// total: the fold of all inputs, with `init` for exclusive scans, on the host.
// Forward: out[i] = init (+) in[0] (+) ... (+) in[i] (inclusive without
// init; exclusive stops at in[i-1]). Backward (suffix scan), the mirror:
// out[i] = in[i] (+) ... (+) in[n-1] (inclusive), and
// out[i] = in[i+1] (+) ... (+) in[n-1] (+) init (exclusive). Operands are
// never reordered, so non-commutative monoids are exact.
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
#pragma once

#include <sweep/core.hpp>
#include <sweep/monoid.hpp>
#include <sweep/detail/scan_blelloch.hpp>
#include <sweep/detail/scan_brent_kung.hpp>
#include <sweep/detail/scan_chunked.hpp>
#include <sweep/detail/scan_hillis_steele.hpp>
#include <sweep/detail/scan_io.hpp>
#include <sweep/detail/scan_sequential.hpp>
#include <sweep/detail/scan_single_pass.hpp>
#include <sweep/detail/scan_tiled.hpp>
#if defined(KOKKOS_ENABLE_CUDA) && defined(__CUDACC__)
#include <sweep/cuda/single_pass_scan.hpp>
#endif

#include <string>
#include <type_traits>

namespace sweep {

enum class scan_algorithm { automatic, sequential, hillis_steele, blelloch, brent_kung, tiled, chunked, single_pass };

/// Run-time knobs of a scan; an aggregate with defaults.
struct scan_options {
  sweep::direction direction = sweep::direction::forward;
  scan_algorithm algorithm = scan_algorithm::automatic;
  index_t tile_size = 0;   ///< tiled: elements per tile, >= 2 (0: the space's default)
  index_t chunk_size = 0;  ///< single_pass: elements per chunk (0: the space's default)
};

/// Name of an algorithm, as used in labels and benchmark rows.
inline const char* to_string(scan_algorithm a) {
  switch (a) {
    case scan_algorithm::automatic: return "automatic";
    case scan_algorithm::sequential: return "sequential";
    case scan_algorithm::hillis_steele: return "hillis_steele";
    case scan_algorithm::blelloch: return "blelloch";
    case scan_algorithm::brent_kung: return "brent_kung";
    case scan_algorithm::tiled: return "tiled";
    case scan_algorithm::chunked: return "chunked";
    case scan_algorithm::single_pass: return "single_pass";
  }
  return "?";
}

/// What `automatic` runs for n elements on ExecSpace.
template <class ExecSpace>
scan_algorithm resolve_scan_algorithm(scan_algorithm requested, index_t n) {
  if (requested != scan_algorithm::automatic) return requested;
  if (n < detail::scan_tuning<ExecSpace>::sequential_below) return scan_algorithm::sequential;
  return scan_algorithm::single_pass;
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

template <bool Backward, class ExecSpace, class InView, class OutView, class Op, class T = typename Op::value_type>
T run_scan(const std::string& label, const ExecSpace& space, const InView& in, const OutView& out, const T& init,
           bool exclusive, const Op& op, const scan_options& opt) {
  const index_t n = static_cast<index_t>(in.extent(0));
  auto out_n = Kokkos::subview(out, Kokkos::pair<index_t, index_t>(0, n));
  scan_io<InView, decltype(out_n), Op, Backward> io{in, out_n, op, n};
  using tuning = scan_tuning<ExecSpace>;
#if defined(KOKKOS_ENABLE_CUDA) && defined(__CUDACC__)
  // On a GPU `automatic` is the hand-written single-pass kernel (cuda/);
  // `single_pass` keeps the portable one, so both stay testable there.
  if constexpr (std::is_same_v<ExecSpace, Kokkos::Cuda>)
    if (opt.algorithm == scan_algorithm::automatic) return cuda::single_pass_scan(space, io, init, exclusive, label);
#endif
  switch (resolve_scan_algorithm<ExecSpace>(opt.algorithm, n)) {
    case scan_algorithm::sequential: return scan_sequential(space, io, init, exclusive, label);
    case scan_algorithm::hillis_steele: return scan_hillis_steele(space, io, init, exclusive, label);
    case scan_algorithm::blelloch: return scan_blelloch(space, io, init, exclusive, label);
    case scan_algorithm::brent_kung: return scan_brent_kung(space, io, init, exclusive, label);
    case scan_algorithm::tiled:
      return scan_tiled(space, io, init, exclusive, opt.tile_size > 0 ? opt.tile_size : tuning::tile_size, label);
    case scan_algorithm::chunked: return scan_chunked(space, io, init, exclusive, label);
    case scan_algorithm::single_pass:
    case scan_algorithm::automatic:
      break;
  }
  return scan_single_pass(space, io, init, exclusive,
                          opt.chunk_size > 0 ? opt.chunk_size : tuning::template chunk_elements<T>(), label);
}

template <class ExecSpace, class InView, class OutView, class Op, class T = typename Op::value_type>
T scan(const std::string& label, const ExecSpace& space, const InView& in, const OutView& out, const T& init,
       bool exclusive, const Op& op, const scan_options& opt) {
  static_check_scan<ExecSpace, InView, OutView, Op>();
  scoped_region region(label);
  const char* where = exclusive ? "sweep::exclusive_scan" : "sweep::inclusive_scan";
  check_scan_views(where, in, out);
  require(opt.tile_size == 0 || opt.tile_size >= 2, where, "tile_size is ", opt.tile_size,
          "; it must be 0 (the space's default) or at least 2");
  require(opt.chunk_size >= 0, where, "chunk_size is ", opt.chunk_size, "; it must not be negative");
  if (in.extent(0) == 0) return init;
  if (opt.direction == direction::backward)
    return run_scan<true>(label, space, in, out, init, exclusive, flipped<Op>{op}, opt);
  return run_scan<false>(label, space, in, out, init, exclusive, op, opt);
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

}  // namespace sweep
