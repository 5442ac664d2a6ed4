// The vector operations of the host ray packets (host/packet_simd.hpp), one
// set per instruction-set level: avx512_lanes (sixteen floats, masks in
// mask registers) and avx2_lanes (eight floats, masks as all-ones lanes).
// Both offer the same names, so the packet is written once:
//   f, i, m                 float vector, int32 vector, lane mask
//   width                   lanes per vector
//   load/store, loadi/storei, set1, set1i, zero, zeroi, iota
//   add, sub, mul, div, min, max (vminps / vmaxps: the second operand when
//     either is NaN), abs, negate (flips the sign bit)
//   lt, le, eq, ge, gt (ordered), neq (unordered), lti (int32)
//   blend(k, a, b): b in the lanes of k, a elsewhere; blendi for int32
//   mand, mor, mandnot(a, b) = a and not b, mnot, any, bits, from_bits
//   gather(base, index): base[index] per lane (index in floats)
//   addi, mulloi (int32)
// Each function carries its level's target attribute (and no contraction
// into fused multiply-adds), so only packets of that level call it.
#pragma once

#include <sweep/host/isa.hpp>

#if SWEEP_HOST_MULTI

#include <cstdint>

#define SWEEP_HOST_AVX512_FN __attribute__((target("avx512f"), optimize("fp-contract=off")))
#define SWEEP_HOST_AVX2_FN __attribute__((target("avx2"), optimize("fp-contract=off")))

namespace sweep::raytrace::detail {

struct avx512_lanes {
  static constexpr int width = 16;
  using f = __m512;
  using i = __m512i;
  using m = __mmask16;

  static SWEEP_HOST_AVX512_FN f load(const float* p) { return _mm512_load_ps(p); }
  static SWEEP_HOST_AVX512_FN void store(float* p, f x) { _mm512_store_ps(p, x); }
  static SWEEP_HOST_AVX512_FN i loadi(const std::int32_t* p) { return _mm512_load_si512(p); }
  static SWEEP_HOST_AVX512_FN void storei(std::int32_t* p, i x) { _mm512_store_si512(p, x); }
  static SWEEP_HOST_AVX512_FN f set1(float x) { return _mm512_set1_ps(x); }
  static SWEEP_HOST_AVX512_FN i set1i(std::int32_t x) { return _mm512_set1_epi32(x); }
  static SWEEP_HOST_AVX512_FN f zero() { return _mm512_setzero_ps(); }
  static SWEEP_HOST_AVX512_FN i zeroi() { return _mm512_setzero_si512(); }
  static SWEEP_HOST_AVX512_FN i iota() { return _mm512_set_epi32(15, 14, 13, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0); }

  static SWEEP_HOST_AVX512_FN f add(f a, f b) { return _mm512_add_ps(a, b); }
  static SWEEP_HOST_AVX512_FN f sub(f a, f b) { return _mm512_sub_ps(a, b); }
  static SWEEP_HOST_AVX512_FN f mul(f a, f b) { return _mm512_mul_ps(a, b); }
  static SWEEP_HOST_AVX512_FN f div(f a, f b) { return _mm512_div_ps(a, b); }
  // _mm512_min_ps / _mm512_max_ps leave a pass-through operand undefined,
  // which GCC 12 reports as uninitialised: the masked forms with a full mask.
  static SWEEP_HOST_AVX512_FN f min(f a, f b) { return _mm512_mask_min_ps(a, 0xFFFF, a, b); }
  static SWEEP_HOST_AVX512_FN f max(f a, f b) { return _mm512_mask_max_ps(a, 0xFFFF, a, b); }
  static SWEEP_HOST_AVX512_FN f abs(f x) { return _mm512_abs_ps(x); }
  static SWEEP_HOST_AVX512_FN f negate(f x) {
    return _mm512_castsi512_ps(_mm512_xor_si512(_mm512_castps_si512(x), _mm512_set1_epi32(std::int32_t(0x80000000u))));
  }

  static SWEEP_HOST_AVX512_FN m lt(f a, f b) { return _mm512_cmp_ps_mask(a, b, _CMP_LT_OQ); }
  static SWEEP_HOST_AVX512_FN m le(f a, f b) { return _mm512_cmp_ps_mask(a, b, _CMP_LE_OQ); }
  static SWEEP_HOST_AVX512_FN m eq(f a, f b) { return _mm512_cmp_ps_mask(a, b, _CMP_EQ_OQ); }
  static SWEEP_HOST_AVX512_FN m ge(f a, f b) { return _mm512_cmp_ps_mask(a, b, _CMP_GE_OQ); }
  static SWEEP_HOST_AVX512_FN m gt(f a, f b) { return _mm512_cmp_ps_mask(a, b, _CMP_GT_OQ); }
  static SWEEP_HOST_AVX512_FN m neq(f a, f b) { return _mm512_cmp_ps_mask(a, b, _CMP_NEQ_UQ); }
  static SWEEP_HOST_AVX512_FN m lti(i a, i b) { return _mm512_cmplt_epi32_mask(a, b); }

  static SWEEP_HOST_AVX512_FN f blend(m k, f a, f b) { return _mm512_mask_blend_ps(k, a, b); }
  static SWEEP_HOST_AVX512_FN i blendi(m k, i a, i b) { return _mm512_mask_blend_epi32(k, a, b); }
  static SWEEP_HOST_AVX512_FN m mand(m a, m b) { return m(a & b); }
  static SWEEP_HOST_AVX512_FN m mor(m a, m b) { return m(a | b); }
  static SWEEP_HOST_AVX512_FN m mandnot(m a, m b) { return m(a & ~b); }
  static SWEEP_HOST_AVX512_FN m mnot(m a) { return m(~a); }
  static SWEEP_HOST_AVX512_FN bool any(m a) { return a != 0; }
  static SWEEP_HOST_AVX512_FN unsigned bits(m a) { return a; }
  static SWEEP_HOST_AVX512_FN m from_bits(unsigned b) { return m(b); }

  // The masked gather: the unmasked one leaves its pass-through undefined.
  static SWEEP_HOST_AVX512_FN f gather(const float* base, i index) {
    return _mm512_mask_i32gather_ps(_mm512_setzero_ps(), 0xFFFF, index, base, 4);
  }
  static SWEEP_HOST_AVX512_FN i addi(i a, i b) { return _mm512_add_epi32(a, b); }
  static SWEEP_HOST_AVX512_FN i mulloi(i a, i b) { return _mm512_mullo_epi32(a, b); }
};

struct avx2_lanes {
  static constexpr int width = 8;
  using f = __m256;
  using i = __m256i;
  using m = __m256;  // all ones in the lanes of the mask, zeros elsewhere

  static SWEEP_HOST_AVX2_FN f load(const float* p) { return _mm256_load_ps(p); }
  static SWEEP_HOST_AVX2_FN void store(float* p, f x) { _mm256_store_ps(p, x); }
  static SWEEP_HOST_AVX2_FN i loadi(const std::int32_t* p) { return _mm256_load_si256(reinterpret_cast<const __m256i*>(p)); }
  static SWEEP_HOST_AVX2_FN void storei(std::int32_t* p, i x) { _mm256_store_si256(reinterpret_cast<__m256i*>(p), x); }
  static SWEEP_HOST_AVX2_FN f set1(float x) { return _mm256_set1_ps(x); }
  static SWEEP_HOST_AVX2_FN i set1i(std::int32_t x) { return _mm256_set1_epi32(x); }
  static SWEEP_HOST_AVX2_FN f zero() { return _mm256_setzero_ps(); }
  static SWEEP_HOST_AVX2_FN i zeroi() { return _mm256_setzero_si256(); }
  static SWEEP_HOST_AVX2_FN i iota() { return _mm256_set_epi32(7, 6, 5, 4, 3, 2, 1, 0); }

  static SWEEP_HOST_AVX2_FN f add(f a, f b) { return _mm256_add_ps(a, b); }
  static SWEEP_HOST_AVX2_FN f sub(f a, f b) { return _mm256_sub_ps(a, b); }
  static SWEEP_HOST_AVX2_FN f mul(f a, f b) { return _mm256_mul_ps(a, b); }
  static SWEEP_HOST_AVX2_FN f div(f a, f b) { return _mm256_div_ps(a, b); }
  static SWEEP_HOST_AVX2_FN f min(f a, f b) { return _mm256_min_ps(a, b); }
  static SWEEP_HOST_AVX2_FN f max(f a, f b) { return _mm256_max_ps(a, b); }
  static SWEEP_HOST_AVX2_FN f abs(f x) { return _mm256_andnot_ps(_mm256_set1_ps(-0.0f), x); }
  static SWEEP_HOST_AVX2_FN f negate(f x) { return _mm256_xor_ps(x, _mm256_set1_ps(-0.0f)); }

  static SWEEP_HOST_AVX2_FN m lt(f a, f b) { return _mm256_cmp_ps(a, b, _CMP_LT_OQ); }
  static SWEEP_HOST_AVX2_FN m le(f a, f b) { return _mm256_cmp_ps(a, b, _CMP_LE_OQ); }
  static SWEEP_HOST_AVX2_FN m eq(f a, f b) { return _mm256_cmp_ps(a, b, _CMP_EQ_OQ); }
  static SWEEP_HOST_AVX2_FN m ge(f a, f b) { return _mm256_cmp_ps(a, b, _CMP_GE_OQ); }
  static SWEEP_HOST_AVX2_FN m gt(f a, f b) { return _mm256_cmp_ps(a, b, _CMP_GT_OQ); }
  static SWEEP_HOST_AVX2_FN m neq(f a, f b) { return _mm256_cmp_ps(a, b, _CMP_NEQ_UQ); }
  static SWEEP_HOST_AVX2_FN m lti(i a, i b) { return _mm256_castsi256_ps(_mm256_cmpgt_epi32(b, a)); }

  static SWEEP_HOST_AVX2_FN f blend(m k, f a, f b) { return _mm256_blendv_ps(a, b, k); }
  static SWEEP_HOST_AVX2_FN i blendi(m k, i a, i b) {
    return _mm256_castps_si256(_mm256_blendv_ps(_mm256_castsi256_ps(a), _mm256_castsi256_ps(b), k));
  }
  static SWEEP_HOST_AVX2_FN m mand(m a, m b) { return _mm256_and_ps(a, b); }
  static SWEEP_HOST_AVX2_FN m mor(m a, m b) { return _mm256_or_ps(a, b); }
  static SWEEP_HOST_AVX2_FN m mandnot(m a, m b) { return _mm256_andnot_ps(b, a); }
  static SWEEP_HOST_AVX2_FN m mnot(m a) { return _mm256_xor_ps(a, _mm256_castsi256_ps(_mm256_set1_epi32(-1))); }
  static SWEEP_HOST_AVX2_FN bool any(m a) { return _mm256_movemask_ps(a) != 0; }
  static SWEEP_HOST_AVX2_FN unsigned bits(m a) { return unsigned(_mm256_movemask_ps(a)); }
  static SWEEP_HOST_AVX2_FN m from_bits(unsigned b) {
    const __m256i lane_bit = _mm256_set_epi32(128, 64, 32, 16, 8, 4, 2, 1);
    return _mm256_castsi256_ps(
        _mm256_cmpeq_epi32(_mm256_and_si256(_mm256_set1_epi32(std::int32_t(b)), lane_bit), lane_bit));
  }

  // The masked gather with a zero pass-through (see avx512_lanes::gather).
  static SWEEP_HOST_AVX2_FN f gather(const float* base, i index) {
    return _mm256_mask_i32gather_ps(_mm256_setzero_ps(), base, index, _mm256_castsi256_ps(_mm256_set1_epi32(-1)), 4);
  }
  static SWEEP_HOST_AVX2_FN i addi(i a, i b) { return _mm256_add_epi32(a, b); }
  static SWEEP_HOST_AVX2_FN i mulloi(i a, i b) { return _mm256_mullo_epi32(a, b); }
};

}  // namespace sweep::raytrace::detail

#endif
