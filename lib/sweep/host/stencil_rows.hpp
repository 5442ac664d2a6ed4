// Host fast path of a red-black row: one colour of row i, walked as
// contiguous runs (the whole row in row-major storage, one tile row in
// block-major), with plain pointers instead of the indexer. With AVX-512F
// (checked at run time) a run is one kernel, eight points per step from
// sixteen values split and merged by two-source permutes, the last step
// masked to the run and the neighbours across the run's ends (another
// tile) passed in. With AVX2 only, four points per step (unpack/permute
// and blend), the run's first and last points through the indexer. Every
// lane performs the scalar operations in the scalar order (no FMA
// contraction: the regions are built with fp-contract off), so the grids
// are bit-identical to the portable kernel. Block-major row walks
// prefetch the tile rows they read next (row_prefetch); the fused sweep's
// walks (row pairs of row-major grids, the tile walk of block-major ones)
// prefetch sweep_fetch_ahead bytes ahead.
#pragma once

#include <sweep/host/isa.hpp>
#include <sweep/ocean/grid.hpp>
#include <sweep/ocean/stencil.hpp>

#include <algorithm>

#include <type_traits>

namespace sweep::ocean::detail {

/// The widest row span the host may take: 2 with AVX-512F, 1 with AVX2, 0
/// without (this CPU and SWEEP_HOST_ISA allow it, and the host compiler
/// builds the target regions).
inline int host_row_simd() {
#if SWEEP_HOST_MULTI
  return sweep::host::uses(sweep::host::isa::avx512) ? 2 : (sweep::host::uses(sweep::host::isa::avx2) ? 1 : 0);
#else
  return 0;
#endif
}

/// True when the host paths may use AVX2 (this CPU has it and the host
/// compiler builds the AVX2 regions).
inline bool host_avx2() {
#if SWEEP_HOST_MULTI
  return sweep::host::uses(sweep::host::isa::avx2);
#else
  return false;
#endif
}

/// Folds n lane values of a row walk's measure into acc, lane 0 first: a
/// sum (L2) or a max.
template <bool L2>
inline void fold_lanes(const double* lanes, int n, double& acc) {
  for (int l = 0; l < n; ++l) {
    if constexpr (L2)
      acc += lanes[l];
    else
      acc = acc > lanes[l] ? acc : lanes[l];
  }
}

#if SWEEP_HOST_MULTI
#pragma GCC push_options
#pragma GCC target("avx2")
/// Updates row[k] for k = k0, k0 + 2, ... while k + 7 < len (four points per
/// step); returns the first k not done. acc: running max (or sum of squares).
/// Lanes hold the points k, k + 4, k + 2, k + 6 (the order unpacklo/hi give
/// without crossing 128-bit halves); only the left neighbours need a
/// cross-lane permute of the right ones, the first carried from the
/// previous step (reloading it would read across the last store and stall
/// store forwarding).
template <bool L2, bool SOR>
__attribute__((optimize("fp-contract=off"))) inline index_t relax_span_avx2(double* row, const double* up, const double* dn, const double* f, index_t k0,
                               index_t len, double h2, double inv_diag, double omega, double& acc) {
  const __m256d vh2 = _mm256_set1_pd(h2), vinv = _mm256_set1_pd(inv_diag), vom = _mm256_set1_pd(omega);
  const __m256d sign = _mm256_set1_pd(-0.0);
  __m256d vacc = _mm256_setzero_pd();
  index_t k = k0;
  __m256d carry = _mm256_set1_pd(row[k - 1]);
  for (; k + 7 < len; k += 8) {
    const __m256d x = _mm256_loadu_pd(row + k), y = _mm256_loadu_pd(row + k + 4);
    const __m256d old = _mm256_unpacklo_pd(x, y);    // k, k+4, k+2, k+6
    const __m256d right = _mm256_unpackhi_pd(x, y);  // k+1, k+5, k+3, k+7
    const __m256d left = _mm256_blend_pd(_mm256_permute4x64_pd(right, 0x48), carry, 0x1);  // k-1, k+3, k+1, k+5
    carry = _mm256_permute4x64_pd(right, 0xFF);
    const __m256d u_up = _mm256_unpacklo_pd(_mm256_loadu_pd(up + k), _mm256_loadu_pd(up + k + 4));
    const __m256d u_dn = _mm256_unpacklo_pd(_mm256_loadu_pd(dn + k), _mm256_loadu_pd(dn + k + 4));
    const __m256d ff = _mm256_unpacklo_pd(_mm256_loadu_pd(f + k), _mm256_loadu_pd(f + k + 4));
    const __m256d sum = _mm256_add_pd(_mm256_add_pd(_mm256_add_pd(_mm256_add_pd(u_up, u_dn), left), right),
                                      _mm256_mul_pd(vh2, ff));
    const __m256d gs = _mm256_mul_pd(sum, vinv);
    __m256d next = gs;
    if constexpr (SOR) next = _mm256_add_pd(old, _mm256_mul_pd(vom, _mm256_sub_pd(gs, old)));
    const __m256d d = _mm256_sub_pd(next, old);
    if constexpr (L2)
      vacc = _mm256_add_pd(vacc, _mm256_mul_pd(d, d));
    else
      vacc = _mm256_max_pd(vacc, _mm256_andnot_pd(sign, d));
    _mm256_storeu_pd(row + k, _mm256_unpacklo_pd(next, right));
    _mm256_storeu_pd(row + k + 4, _mm256_unpackhi_pd(next, right));
  }
  alignas(32) double lanes[4];
  _mm256_store_pd(lanes, vacc);
  fold_lanes<L2>(lanes, 4, acc);
  return k;
}
/// r[k] = f[k] - ((4 c - up - dn - left - right) / h^2 + lambda c) for k in
/// [1, len - 1) (neighbours inside the run); returns the sum of r^2 and
/// sets *done to the first k not done.
inline double residual_span_avx2(const double* row, const double* up, const double* dn, const double* f,
                                 double* r, index_t len, double inv_h2, double lambda, index_t* done) {
  const __m256d four = _mm256_set1_pd(4.0), vih = _mm256_set1_pd(inv_h2), vl = _mm256_set1_pd(lambda);
  __m256d acc = _mm256_setzero_pd();
  index_t k = 1;
  for (; k + 4 < len; k += 4) {
    const __m256d cc = _mm256_loadu_pd(row + k);
    __m256d t = _mm256_mul_pd(four, cc);
    t = _mm256_sub_pd(t, _mm256_loadu_pd(up + k));
    t = _mm256_sub_pd(t, _mm256_loadu_pd(dn + k));
    t = _mm256_sub_pd(t, _mm256_loadu_pd(row + k - 1));
    t = _mm256_sub_pd(t, _mm256_loadu_pd(row + k + 1));
    t = _mm256_add_pd(_mm256_mul_pd(t, vih), _mm256_mul_pd(vl, cc));
    const __m256d v = _mm256_sub_pd(_mm256_loadu_pd(f + k), t);
    _mm256_storeu_pd(r + k, v);
    acc = _mm256_add_pd(acc, _mm256_mul_pd(v, v));
  }
  alignas(32) double lanes[4];
  _mm256_store_pd(lanes, acc);
  *done = k;
  return (lanes[0] + lanes[1]) + (lanes[2] + lanes[3]);
}
#pragma GCC pop_options
#endif

#if SWEEP_HOST_MULTI
#pragma GCC push_options
#pragma GCC target("avx512f")
/// One step of relax_run_avx512 over row[0, 16) (at `row`), from the
/// values of the colour (`old`: positions 0, 2, ..., 14) and of the other
/// colour (`rgt`: 1, 3, ..., 15) of the sixteen; u_up, u_dn and ff the
/// neighbours and f at the even positions; `points` are the lanes that are
/// points of the run, mx / my the positions stored; carry (lane 7: the left
/// neighbour of the first point) and vacc (the measure) go on to the next
/// step. Returns the new values of the points.
template <bool L2, bool SOR>
__attribute__((optimize("fp-contract=off"))) inline __m512d relax_step_split_avx512(
    double* row, __m512d old, __m512d rgt, __m512d u_up, __m512d u_dn, __m512d ff, __mmask8 points, __mmask8 mx,
    __mmask8 my, __m512d vh2, __m512d vinv, __m512d vom, __m512d& carry, __m512d& vacc) {
  const __m512i shift = _mm512_set_epi64(14, 13, 12, 11, 10, 9, 8, 7);  // lane 7 of the previous, then 0..6
  const __m512i lo = _mm512_set_epi64(11, 3, 10, 2, 9, 1, 8, 0), hi = _mm512_set_epi64(15, 7, 14, 6, 13, 5, 12, 4);
  const __m512d lft = _mm512_permutex2var_pd(carry, shift, rgt);  // -1, 1, ..., 13
  carry = rgt;
  (void)vom;
  const __m512d sum =
      _mm512_add_pd(_mm512_add_pd(_mm512_add_pd(_mm512_add_pd(u_up, u_dn), lft), rgt), _mm512_mul_pd(vh2, ff));
  const __m512d gs = _mm512_mul_pd(sum, vinv);
  __m512d next = gs;
  if constexpr (SOR) next = _mm512_add_pd(old, _mm512_mul_pd(vom, _mm512_sub_pd(gs, old)));
  const __m512d d = _mm512_sub_pd(next, old);
  if constexpr (L2)
    vacc = _mm512_mask_add_pd(vacc, points, vacc, _mm512_mul_pd(d, d));
  else
    vacc = _mm512_mask_max_pd(vacc, points, vacc, _mm512_abs_pd(d));
  _mm512_mask_storeu_pd(row, mx, _mm512_permutex2var_pd(next, lo, rgt));
  _mm512_mask_storeu_pd(row + 8, my, _mm512_permutex2var_pd(next, hi, rgt));
  return next;
}

/// relax_step_split_avx512 from the sixteen values' two halves x and y.
template <bool L2, bool SOR>
__attribute__((optimize("fp-contract=off"))) inline void relax_step_avx512(
    double* row, __m512d x, __m512d y, __m512d u_up, __m512d u_dn, __m512d ff, __mmask8 points, __mmask8 mx,
    __mmask8 my, __m512d vh2, __m512d vinv, __m512d vom, __m512d& carry, __m512d& vacc) {
  const __m512i even = _mm512_set_epi64(14, 12, 10, 8, 6, 4, 2, 0), odd = _mm512_set_epi64(15, 13, 11, 9, 7, 5, 3, 1);
  relax_step_split_avx512<L2, SOR>(row, _mm512_permutex2var_pd(x, even, y), _mm512_permutex2var_pd(x, odd, y), u_up,
                                   u_dn, ff, points, mx, my, vh2, vinv, vom, carry, vacc);
}

/// The masks of the last step of a run, rem (1 .. 15) values left: mx and
/// my the positions of the two halves that hold values.
inline void tail_masks_avx512(int rem, __mmask8& mx, __mmask8& my) {
  const unsigned valid = (1u << rem) - 1u;
  mx = __mmask8(valid & 0xFFu), my = __mmask8(valid >> 8);
}

/// The last step's sixteen values at p (rem of them; zero past them) with
/// `right`, the value after the run, at position rem.
inline void tail_halves_avx512(const double* p, int rem, double right, __m512d& x, __m512d& y) {
  __mmask8 mx, my;
  tail_masks_avx512(rem, mx, my);
  x = _mm512_maskz_loadu_pd(mx, p), y = _mm512_maskz_loadu_pd(my, p + 8);
  if (rem < 8)
    x = _mm512_mask_mov_pd(x, __mmask8(1u << rem), _mm512_set1_pd(right));
  else
    y = _mm512_mask_mov_pd(y, __mmask8(1u << (rem - 8)), _mm512_set1_pd(right));
}

/// The even positions of the last step's values at p (rem of them).
inline __m512d tail_even_avx512(const double* p, int rem) {
  const __m512i even = _mm512_set_epi64(14, 12, 10, 8, 6, 4, 2, 0);
  __mmask8 mx, my;
  tail_masks_avx512(rem, mx, my);
  return _mm512_permutex2var_pd(_mm512_maskz_loadu_pd(mx, p), even, _mm512_maskz_loadu_pd(my, p + 8));
}

/// Folds the lanes of a step's measure into acc.
template <bool L2>
__attribute__((optimize("fp-contract=off"))) inline void fold_lanes_avx512(__m512d vacc, double& acc) {
  alignas(64) double lanes[8];
  _mm512_store_pd(lanes, vacc);
  fold_lanes<L2>(lanes, 8, acc);
}

/// The AVX-512 form of relax_span_avx2, over a whole run: sixteen points
/// per step, the eight of the colour in the lanes (split and merged with
/// two-source permutes), the same operations in the same order per point
/// (AVX-512F brings fused multiply-adds: contraction is off here). `left`
/// is the value left of row[k0] and `right` the value right of row[len -
/// 1] (either may sit in another tile); the last step is masked to the
/// run, so every point k0, k0 + 2, ... < len is relaxed.
template <bool L2, bool SOR>
__attribute__((optimize("fp-contract=off"))) inline void relax_run_avx512(
    double* row, const double* up, const double* dn, const double* f, index_t k0, index_t len, double left,
    double right, double h2, double inv_diag, double omega, double& acc) {
  const __m512d vh2 = _mm512_set1_pd(h2), vinv = _mm512_set1_pd(inv_diag), vom = _mm512_set1_pd(omega);
  const __m512i even = _mm512_set_epi64(14, 12, 10, 8, 6, 4, 2, 0);
  __m512d vacc = _mm512_setzero_pd();
  __m512d carry = _mm512_set1_pd(left);  // lane 7: the left neighbour of the first point
  index_t k = k0;
  for (; k + 15 < len; k += 16) {
    const __m512d u_up = _mm512_permutex2var_pd(_mm512_loadu_pd(up + k), even, _mm512_loadu_pd(up + k + 8));
    const __m512d u_dn = _mm512_permutex2var_pd(_mm512_loadu_pd(dn + k), even, _mm512_loadu_pd(dn + k + 8));
    const __m512d ff = _mm512_permutex2var_pd(_mm512_loadu_pd(f + k), even, _mm512_loadu_pd(f + k + 8));
    relax_step_avx512<L2, SOR>(row + k, _mm512_loadu_pd(row + k), _mm512_loadu_pd(row + k + 8), u_up, u_dn, ff, 0xFF,
                               0xFF, 0xFF, vh2, vinv, vom, carry, vacc);
  }
  if (k < len) {  // 1 .. 15 values left: the last step, masked
    const int rem = int(len - k);
    __mmask8 mx, my;
    tail_masks_avx512(rem, mx, my);
    __m512d x, y;
    tail_halves_avx512(row + k, rem, right, x, y);
    relax_step_avx512<L2, SOR>(row + k, x, y, tail_even_avx512(up + k, rem), tail_even_avx512(dn + k, rem),
                               tail_even_avx512(f + k, rem), __mmask8((1u << ((rem + 1) / 2)) - 1u), mx, my, vh2,
                               vinv, vom, carry, vacc);
  }
  fold_lanes_avx512<L2>(vacc, acc);
}

/// One colour of a row and the other colour of the row above it, in one
/// walk over a run (the same columns of both rows): at each step the
/// points of `row` (row i), then those of `above` (row i - 1), which read
/// the values just computed in row i (in registers) and the row i - 1
/// values the first half loaded. Both rows' points sit at the same
/// positions (k0 and every second one after). Every point takes the same
/// operations in the same order as in two relax_run_avx512 calls, row i
/// first; fewer loads and permutes (the row i - 1 values serve both rows).
/// `below` is row i + 1, `above_up` row i - 2, `f_row` and `f_above` f in
/// rows i and i - 1; the left / right values are the neighbours across
/// the run's ends in each row. With `drop_above_last`, a point of row i - 1
/// at len - 1 is left as it is (its right neighbour is not relaxed yet: the
/// tile walk takes it with the next tile). The lanes of the measure go to
/// acc_row and acc_above. The walk prefetches into L2, in step with its
/// columns, the lines of fetch_below and of fetch_f that are not null.
template <bool L2, bool SOR>
__attribute__((optimize("fp-contract=off"))) inline void relax_pair_run_avx512(
    double* row, double* above, const double* below, const double* above_up, const double* f_row,
    const double* f_above, index_t k0, index_t len, double row_left, double row_right, double above_left,
    double above_right, double h2, double inv_diag, double omega, bool drop_above_last, __m512d& acc_row,
    __m512d& acc_above, const double* fetch_below = nullptr, const double* fetch_f = nullptr) {
  const __m512d vh2 = _mm512_set1_pd(h2), vinv = _mm512_set1_pd(inv_diag), vom = _mm512_set1_pd(omega);
  const __m512i even = _mm512_set_epi64(14, 12, 10, 8, 6, 4, 2, 0), odd = _mm512_set_epi64(15, 13, 11, 9, 7, 5, 3, 1);
  __m512d carry_row = _mm512_set1_pd(row_left), carry_above = _mm512_set1_pd(above_left);
  // The lanes stay in registers through the walk (through the references,
  // each step would store and reload them: a chain through memory).
  __m512d lanes_row = acc_row, lanes_above = acc_above;
  auto pair = [&](index_t k, __m512d x, __m512d y, __m512d ax, __m512d ay, __m512d u_dn, __m512d a_up, __m512d ff,
                  __m512d fa, __mmask8 points, __mmask8 mx, __mmask8 my, __mmask8 a_points, __mmask8 a_mx,
                  __mmask8 a_my) {
    const __m512d a_old = _mm512_permutex2var_pd(ax, even, ay);  // row i - 1 at the points: row i's up
    const __m512d next = relax_step_split_avx512<L2, SOR>(row + k, _mm512_permutex2var_pd(x, even, y),
                                                          _mm512_permutex2var_pd(x, odd, y), a_old, u_dn, ff,
                                                          points, mx, my, vh2, vinv, vom, carry_row, lanes_row);
    relax_step_split_avx512<L2, SOR>(above + k, a_old, _mm512_permutex2var_pd(ax, odd, ay), a_up, next, fa,
                                     a_points, a_mx, a_my, vh2, vinv, vom, carry_above, lanes_above);
  };
  auto split = [&](const double* p, index_t k) {
    return _mm512_permutex2var_pd(_mm512_loadu_pd(p + k), even, _mm512_loadu_pd(p + k + 8));
  };
  // The lines of the fetch streams at offsets a and b (into L2).
  auto fetch = [&](index_t a, index_t b) {
    if (fetch_below) {
      __builtin_prefetch(fetch_below + a, 0, 2);
      __builtin_prefetch(fetch_below + b, 0, 2);
    }
    if (fetch_f) {
      __builtin_prefetch(fetch_f + a, 0, 2);
      __builtin_prefetch(fetch_f + b, 0, 2);
    }
  };
  index_t k = k0;
  for (; k + 15 < len; k += 16) {
    fetch(k, k + 8);
    pair(k, _mm512_loadu_pd(row + k), _mm512_loadu_pd(row + k + 8), _mm512_loadu_pd(above + k),
         _mm512_loadu_pd(above + k + 8), split(below, k), split(above_up, k), split(f_row, k), split(f_above, k),
         0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF);
  }
  if (k < len) {  // 1 .. 15 values left: the last step, masked
    const int rem = int(len - k);
    __mmask8 mx, my;
    tail_masks_avx512(rem, mx, my);
    __m512d x, y, ax, ay;
    tail_halves_avx512(row + k, rem, row_right, x, y);
    tail_halves_avx512(above + k, rem, above_right, ax, ay);
    const __mmask8 points = __mmask8((1u << ((rem + 1) / 2)) - 1u);
    __mmask8 a_points = points, a_mx = mx, a_my = my;
    if (drop_above_last && rem % 2 == 1) {  // the last value (rem - 1) is a point: row i - 1 leaves it
      a_points = __mmask8((1u << ((rem - 1) / 2)) - 1u);
      tail_masks_avx512(rem - 1, a_mx, a_my);
    }
    fetch(k, len - 1);
    pair(k, x, y, ax, ay, tail_even_avx512(below + k, rem), tail_even_avx512(above_up + k, rem),
         tail_even_avx512(f_row + k, rem), tail_even_avx512(f_above + k, rem), points, mx, my, a_points, a_mx, a_my);
  }
  acc_row = lanes_row;
  acc_above = lanes_above;
}

/// relax_pair_run_avx512 over a whole run, its measure folded into acc
/// (row i's lanes, then row i - 1's).
template <bool L2, bool SOR>
__attribute__((optimize("fp-contract=off"))) inline void relax_pair_avx512(
    double* row, double* above, const double* below, const double* above_up, const double* f_row,
    const double* f_above, index_t k0, index_t len, double row_left, double row_right, double above_left,
    double above_right, double h2, double inv_diag, double omega, double& acc, const double* fetch_below = nullptr,
    const double* fetch_f = nullptr) {
  __m512d acc_row = _mm512_setzero_pd(), acc_above = _mm512_setzero_pd();
  relax_pair_run_avx512<L2, SOR>(row, above, below, above_up, f_row, f_above, k0, len, row_left, row_right,
                                 above_left, above_right, h2, inv_diag, omega, false, acc_row, acc_above, fetch_below,
                                 fetch_f);
  fold_lanes_avx512<L2>(acc_row, acc);
  fold_lanes_avx512<L2>(acc_above, acc);
}
#pragma GCC pop_options
#endif

/// Calls run(ja, jb) for the contiguous runs [ja, jb) that cover the
/// columns [j_begin, j_end) of a row (block-major: one run per tile row;
/// other indexers store a row contiguously).
template <class Indexer, class Run>
inline void for_each_run(const Indexer& idx, index_t j_begin, index_t j_end, Run&& run) {
  index_t seg = j_end + 1;
  if constexpr (std::is_same_v<Indexer, block_major_index>) seg = index_t(1) << idx.shift;
  (void)idx;
  for (index_t ja = j_begin; ja < j_end;) {
    const index_t jb = std::min<index_t>((ja / seg + 1) * seg, j_end);
    run(ja, jb);
    ja = jb;
  }
}

/// The runs that cover the interior columns 1..m of a row.
template <class Indexer, class Run>
inline void for_each_run(const Indexer& idx, index_t m, Run&& run) {
  for_each_run(idx, 1, m + 1, static_cast<Run&&>(run));
}

/// The residual of points k in [1, len - 1) of a row run (row, up, dn: u
/// in this row and the rows below and above; k - 1 and k + 1 must exist);
/// returns their sum of squares. Same arithmetic per point as
/// residual_point.
inline double host_residual_span(const double* row, const double* up, const double* dn, const double* fr, double* rr,
                                 index_t len, const stencil_coeffs& c, bool avx2) {
  double sum = 0;
  index_t k = 1;
  (void)avx2;
#if SWEEP_HOST_MULTI
  if (avx2) sum += residual_span_avx2(row, up, dn, fr, rr, len, c.inv_h2, c.lambda, &k);
#endif
  for (; k + 1 < len; ++k) {
    const double au = (4.0 * row[k] - up[k] - dn[k] - row[k - 1] - row[k + 1]) * c.inv_h2 + c.lambda * row[k];
    const double v = fr[k] - au;
    rr[k] = v;
    sum += v * v;
  }
  return sum;
}

/// Residual of row i on the host (0 on the ring); returns the row's sum of
/// squares. Same arithmetic per point as the portable kernel.
template <class View, class Indexer>
inline double host_residual_row(const View& u, const View& f, const View& r, const Indexer& idx, index_t i,
                                index_t n, const stencil_coeffs& c, bool avx2) {
  const index_t m = n - 2;
  auto point = [&](index_t j) { return residual_point(u, f, r, idx, i, j, c); };
  if (i == 0 || i == n - 1) {
    for (index_t j = 0; j < n; ++j) r(idx(i, j)) = 0.0;
    return 0.0;
  }
  r(idx(i, 0)) = 0.0;
  r(idx(i, n - 1)) = 0.0;
  double sum = 0;
  for_each_run(idx, m, [&](index_t ja, index_t jb) {
    const index_t len = jb - ja;
    sum += point(ja);  // the run's first and last points may look into another tile
    if (len > 1) sum += point(jb - 1);
    sum += host_residual_span(&u(idx(i, ja)), &u(idx(i - 1, ja)), &u(idx(i + 1, ja)), &f(idx(i, ja)),
                              &r(idx(i, ja)), len, c, avx2);
  });
  return sum;
}

/// The residual of row i, columns [j_begin, j_end), u and f at idx, r at
/// r_idx, for indexers whose rows are contiguous (row-major ones); returns
/// the sum of squares.
template <class View, class Indexer, class RIndexer>
inline double host_residual_cols(const View& u, const View& f, const View& r, const Indexer& idx, index_t i,
                                 index_t j_begin, index_t j_end, const stencil_coeffs& c, const RIndexer& r_idx,
                                 bool avx2) {
  static_assert(!std::is_same_v<Indexer, block_major_index> && !std::is_same_v<RIndexer, block_major_index>,
                "block-major rows are not contiguous");
  if (j_end <= j_begin) return 0.0;
  // The first point alone, the span the rest (it computes its points
  // 1 .. len - 2, reading one more column on each side).
  const double first = residual_point(u, f, r, idx, i, j_begin, c, r_idx);
  return first + host_residual_span(&u(idx(i, j_begin)), &u(idx(i - 1, j_begin)), &u(idx(i + 1, j_begin)),
                                    &f(idx(i, j_begin)), &r(r_idx(i, j_begin)), j_end - j_begin + 1, c, avx2);
}

/// How far ahead (bytes) the fused sweeps' walks prefetch the rows they
/// stream from memory, u and f, into L2: bench_ocean rb_sweep at n = 4098
/// on a 2-vCPU Emerald Rapids VM, 2 threads, alternating runs: row-major
/// 18.3-19.2 ms without, 14.5-15.0 at 2 KiB ahead, 14.3-15.5 at 4 KiB,
/// 14.1-14.5 at 8 KiB, 14.8-15.2 at 16 KiB; the block-major tile walk
/// 17.7-23.1 ms without, 13.0-15.0 at 4 KiB, 13.5-14.1 at 8 KiB,
/// 14.0-15.8 at 16 KiB (copying the grid: 6-9 ms meanwhile). The
/// hardware prefetchers alone leave the walk's arithmetic and its memory
/// traffic one after the other.
inline constexpr index_t sweep_fetch_ahead = 8192;

/// Where a block-major row walk fetches ahead: u `rows` rows below the
/// row being relaxed and f one row less (what the walk reads next), if
/// that row is at most `last_row`; rows = 0 fetches nothing.
struct row_prefetch {
  index_t rows = 0;
  index_t last_row = -1;
};

/// The rows of u and of f that a walk over rows already in cache fetches
/// into L2 as it goes, in step with its columns (the later half-steps of a
/// temporally blocked pass fetch what its first half-step reads at the
/// next position); -1: none.
struct next_rows {
  index_t u = -1;
  index_t f = -1;
};

/// Prefetches into L2 the lines of `count` values from pu and from pf.
inline void prefetch_lines(const double* pu, const double* pf, index_t count) {
  const char* a = reinterpret_cast<const char*>(pu);
  const char* b = reinterpret_cast<const char*>(pf);
  for (index_t k = 0; k < count * index_t(sizeof(double)); k += 64) {
    __builtin_prefetch(a + k, 0, 2);
    __builtin_prefetch(b + k, 0, 2);
  }
}

/// Block-major walks: fetches the run [ja, jb) of the rows the walk of row
/// i reads `ahead.rows` rows on (into L2). Each tile row is a run of its
/// own, so one row visits every tile of a row of tiles: more streams than
/// the hardware prefetchers follow. Other layouts fetch nothing.
template <class View, class Indexer>
inline void prefetch_run(const View& u, const View& f, const Indexer& idx, index_t i, index_t ja, index_t jb,
                         row_prefetch ahead) {
  if constexpr (std::is_same_v<Indexer, block_major_index>) {
    const index_t ahead_row = i + ahead.rows;
    if (ahead.rows > 0 && ahead_row <= ahead.last_row) {
      prefetch_lines(u.data() + idx(ahead_row, ja), f.data() + idx(ahead_row - 1, ja), jb - ja);
    }
  } else {
    (void)u, (void)f, (void)idx, (void)i, (void)ja, (void)jb, (void)ahead;
  }
}

/// Relaxes colour `color` of row i, columns [j_begin, j_end), on the host
/// (colour 0: i + j even); folds the changes into acc with Measure.
template <class Measure, class View, class Indexer>
inline void host_relax_cols(const View& u, const View& f, const Indexer& idx, index_t i, int color,
                            index_t j_begin, index_t j_end, const stencil_coeffs& c, double& acc, int simd,
                            row_prefetch ahead = {}) {
  constexpr bool l2 = std::is_same_v<Measure, l2_measure>;
  (void)simd;
  (void)ahead;
  for_each_run(idx, j_begin, j_end, [&](index_t ja, index_t jb) {
    prefetch_run(u, f, idx, i, ja, jb, ahead);
    index_t j = ja + (((i + ja) ^ color) & 1);
    double* row = &u(idx(i, ja));
    const double* up = &u(idx(i - 1, ja));
    const double* dn = &u(idx(i + 1, ja));
    const double* fr = &f(idx(i, ja));
    const index_t len = jb - ja;  // offsets k = j - ja in [0, len)
#if SWEEP_HOST_MULTI
    if (simd >= 2) {  // the whole run, its edge points included
      if (j < jb) {
        const double left = u(idx(i, j - 1)), right = u(idx(i, jb));
        if (c.omega == 1.0)
          relax_run_avx512<l2, false>(row, up, dn, fr, j - ja, len, left, right, c.h2, c.inv_diag, c.omega, acc);
        else
          relax_run_avx512<l2, true>(row, up, dn, fr, j - ja, len, left, right, c.h2, c.inv_diag, c.omega, acc);
      }
      return;
    }
#endif
    if (j < jb && j == ja) {  // left neighbour may sit in another tile
      Measure::add(acc, relax_point(u, f, idx, i, j, c));
      j += 2;
    }
    index_t k = j - ja;
#if SWEEP_HOST_MULTI
    if (simd >= 1)
      k = c.omega == 1.0 ? relax_span_avx2<l2, false>(row, up, dn, fr, k, len, c.h2, c.inv_diag, c.omega, acc)
                         : relax_span_avx2<l2, true>(row, up, dn, fr, k, len, c.h2, c.inv_diag, c.omega, acc);
#endif
    for (; k + 1 < len; k += 2) {  // right neighbour inside the run
      const double old = row[k];
      const double gs = (up[k] + dn[k] + row[k - 1] + row[k + 1] + c.h2 * fr[k]) * c.inv_diag;
      const double next = c.omega == 1.0 ? gs : old + c.omega * (gs - old);
      row[k] = next;
      Measure::add(acc, next - old);
    }
    if (k < len) Measure::add(acc, relax_point(u, f, idx, i, ja + k, c));
  });
}

/// Relaxes colour `color` of row i (interior columns 1..m) on the host.
/// Block-major rows fetch `prefetch_rows` rows ahead (row_prefetch).
template <class Measure, class View, class Indexer>
inline void host_relax_row(const View& u, const View& f, const Indexer& idx, index_t i, int color, index_t m,
                           const stencil_coeffs& c, double& acc, int simd, index_t prefetch_rows = 0) {
  host_relax_cols<Measure>(u, f, idx, i, color, 1, m + 1, c, acc, simd, row_prefetch{prefetch_rows, m + 1});
}

/// Colour `color` of row i, then the other colour of row i - 1 (interior
/// columns 1..m; i >= 2), on the host: the values of host_relax_row on row
/// i and then on row i - 1, bit for bit (an L2 measure folds run by run,
/// row i's lanes then row i - 1's, so it may differ in rounding). With
/// AVX-512 each run of the two rows is one relax_pair_avx512 walk, which
/// also fetches the `next` rows' run into L2.
template <class Measure, class View, class Indexer>
inline void host_relax_pair(const View& u, const View& f, const Indexer& idx, index_t i, int color, index_t m,
                            const stencil_coeffs& c, double& acc, int simd, index_t prefetch_rows = 0,
                            next_rows next = {}) {
#if SWEEP_HOST_MULTI
  if (simd >= 2) {
    constexpr bool l2 = std::is_same_v<Measure, l2_measure>;
    for_each_run(idx, 1, m + 1, [&](index_t ja, index_t jb) {
      prefetch_run(u, f, idx, i, ja, jb, row_prefetch{prefetch_rows, m + 1});
      // Row i's colour and row i - 1's other colour sit in the same columns.
      const index_t j = ja + (((i + ja) ^ color) & 1);
      if (j >= jb) return;
      double* row = &u(idx(i, ja));
      double* above = &u(idx(i - 1, ja));
      const double* below = &u(idx(i + 1, ja));
      const double* above_up = &u(idx(i - 2, ja));
      const double* f_row = &f(idx(i, ja));
      const double* f_above = &f(idx(i - 1, ja));
      const double rl = u(idx(i, j - 1)), rr = u(idx(i, jb)), al = u(idx(i - 1, j - 1)), ar = u(idx(i - 1, jb));
      // Rows stored whole: the walk fetches sweep_fetch_ahead bytes ahead
      // in the rows it reads first (block-major: prefetch_run's rows).
      const double* fb = nullptr;
      const double* ff = nullptr;
      if (!std::is_same_v<Indexer, block_major_index> && prefetch_rows > 0) {
        constexpr index_t ahead = sweep_fetch_ahead / index_t(sizeof(double));
        fb = below + ahead, ff = f_row + ahead;
      }
      if (next.u >= 0) fb = &u(idx(next.u, ja));
      if (next.f >= 0) ff = &f(idx(next.f, ja));
      if (c.omega == 1.0)
        relax_pair_avx512<l2, false>(row, above, below, above_up, f_row, f_above, j - ja, jb - ja, rl, rr, al, ar,
                                     c.h2, c.inv_diag, c.omega, acc, fb, ff);
      else
        relax_pair_avx512<l2, true>(row, above, below, above_up, f_row, f_above, j - ja, jb - ja, rl, rr, al, ar,
                                    c.h2, c.inv_diag, c.omega, acc, fb, ff);
    });
    return;
  }
#endif
  host_relax_row<Measure>(u, f, idx, i, color, m, c, acc, simd, prefetch_rows);
  host_relax_row<Measure>(u, f, idx, i - 1, 1 - color, m, c, acc, simd, prefetch_rows);
}

#if SWEEP_HOST_MULTI
#pragma GCC push_options
#pragma GCC target("avx512f")
/// host_relax_tile with AVX-512: `black(s)` says whether row s - 1's black
/// points are taken with row s; `drop` leaves black column jb - 1. The
/// point relaxed alone is built here too, with AVX-512's fused
/// multiply-adds at hand: contraction off, as in the kernels.
template <class Measure, bool SOR, class View, class Black>
__attribute__((optimize("fp-contract=off"))) inline void relax_tile_avx512(
    const View& u, const View& f, const block_major_index& idx, index_t b0, index_t b1, index_t ja, index_t jb,
    bool drop, const Black& black, const stencil_coeffs& c, double& acc) {
  constexpr bool l2 = std::is_same_v<Measure, l2_measure>;
  __m512d acc_row = _mm512_setzero_pd(), acc_above = _mm512_setzero_pd();
  const index_t len = jb - ja;
  for (index_t s = b0; s < b1; ++s) {
    const index_t k0 = (s + ja) & 1;  // red: s + j even
    double* row = &u(idx(s, ja));
    const double* below = &u(idx(s + 1, ja));
    const double* f_row = &f(idx(s, ja));
    // The tiles are stored in the order walked: fetch what lies
    // sweep_fetch_ahead bytes past this row's run, in u and f.
    constexpr index_t ahead = sweep_fetch_ahead / index_t(sizeof(double));
    prefetch_lines(row + ahead, f_row + ahead, len);
    const double row_left = u(idx(s, ja + k0 - 1)), row_right = u(idx(s, jb));
    if (!black(s)) {
      if (k0 < len)
        relax_run_avx512<l2, SOR>(row, &u(idx(s - 1, ja)), below, f_row, k0, len, row_left, row_right, c.h2,
                                  c.inv_diag, c.omega, acc);
      continue;
    }
    if (ja > 1 && ((s + ja) & 1) == 1) Measure::add(acc, relax_point(u, f, idx, s - 1, ja - 1, c));
    if (k0 < len)
      relax_pair_run_avx512<l2, SOR>(row, &u(idx(s - 1, ja)), below, &u(idx(s - 2, ja)), f_row, &f(idx(s - 1, ja)),
                                     k0, len, row_left, row_right, u(idx(s - 1, ja + k0 - 1)), u(idx(s - 1, jb)),
                                     c.h2, c.inv_diag, c.omega, drop, acc_row, acc_above);
  }
  fold_lanes_avx512<l2>(acc_row, acc);
  fold_lanes_avx512<l2>(acc_above, acc);
}
#pragma GCC pop_options
#endif
/// One tile of the tile-by-tile fused sweep (rb_fused_tiles), block-major
/// u and f: for each row s in [b0, b1), red row s on the tile's columns
/// [ja, jb), then, if r0 < s - 1 < r1 - 1, black row s - 1 one column to
/// the left, on [ja - 1, jb - 1) (to jb when jb - 1 is the last interior
/// column m). With AVX-512 both rows are one relax_pair_run_avx512 walk
/// over [ja, jb) that leaves black column jb - 1 to the next tile, and the
/// black point in column ja - 1 (the previous tile's last column) is
/// relaxed alone first; the measure's lanes are folded once per tile (an
/// L2 measure may differ from a row-by-row fold in rounding).
template <class Measure, class View>
inline void host_relax_tile(const View& u, const View& f, const block_major_index& idx, index_t b0, index_t b1,
                            index_t ja, index_t jb, index_t r0, index_t r1, index_t m, const stencil_coeffs& c,
                            double& acc, int simd) {
  const index_t ka = ja > 1 ? ja - 1 : 1, kb = jb == m + 1 ? jb : jb - 1;
  const auto black = [&](index_t s) { return s - 1 > r0 && s - 1 < r1 - 1; };
#if SWEEP_HOST_MULTI
  if (simd >= 2) {
    if (c.omega == 1.0)
      relax_tile_avx512<Measure, false>(u, f, idx, b0, b1, ja, jb, kb < jb, black, c, acc);
    else
      relax_tile_avx512<Measure, true>(u, f, idx, b0, b1, ja, jb, kb < jb, black, c, acc);
    return;
  }
#endif
  for (index_t s = b0; s < b1; ++s) {
    host_relax_cols<Measure>(u, f, idx, s, 0, ja, jb, c, acc, simd);
    if (black(s)) host_relax_cols<Measure>(u, f, idx, s - 1, 1, ka, kb, c, acc, simd);
  }
}

}  // namespace sweep::ocean::detail
