// Host fast path for the commonest scan: sweep::plus over contiguous
// arithmetic data. A scalar scan is a dependency chain of one add per
// element; here each 16- or 32-byte vector is scanned in registers
// (log2(lanes) shift-and-add steps), blocks of vectors are scanned on their
// own and joined by one carry add, and folds keep several vector
// accumulators, so a CPU core scans faster than memory streams.
// Floating-point sums are reassociated (still within the n-scaled error
// of any parallel scan). Built with GCC vector extensions where
// host/isa.hpp allows (SWEEP_HOST_SIMD); the 32-byte kernels run when the
// active level is avx2, and the plain fold and scan take 64-byte vectors at
// avx512: a scan step shifts lanes in one instruction instead of two, so a
// core scans L2-resident data 1.25x (double) to 1.4x (float) faster than at
// avx2 (bench_scan's 2^15 single_pass rows at one thread with
// SWEEP_HOST_ISA=avx2 and avx512; figures in
// benchmarks/results/cpu-2core-epyc/README.md). Segmented scans stay at 32
// bytes (their per-vector lane tables grow with 2^lanes).
#pragma once

#include <sweep/core.hpp>
#include <sweep/monoid.hpp>

#include <cstdint>
#include <cstring>
#include <type_traits>

#include <sweep/host/isa.hpp>

namespace sweep::detail {

template <class T>
inline constexpr bool simd_arithmetic_v =
    std::is_same_v<T, std::int32_t> || std::is_same_v<T, std::uint32_t> || std::is_same_v<T, std::int64_t> ||
    std::is_same_v<T, std::uint64_t> || std::is_same_v<T, float> || std::is_same_v<T, double>;

template <class Op>
struct is_simd_plus : std::false_type {};
template <class T>
struct is_simd_plus<plus<T>> : std::bool_constant<simd_arithmetic_v<T>> {};

/// True when scans with Op over T elements may take the vector path.
template <class Op, class InValue>
inline constexpr bool host_simd_scan_v =
    SWEEP_HOST_SIMD && is_simd_plus<Op>::value &&
    std::is_same_v<std::remove_cv_t<InValue>, typename Op::value_type>;

/// Head source for the segmented vector kernels: byte flags, nonzero
/// starts a segment. (A head at element 0 needs no flag: pass run = 0.)
struct byte_heads {
  const std::uint8_t* flags;
};

/// Head source: bits packed little-endian into bytes (bit b of the sequence
/// is bit b%8 of bytes[b/8]), starting at bit bit0, a multiple of 8.
struct packed_heads {
  const std::uint8_t* bytes;
  index_t bit0;
};

/// Head source: arithmetic keys, a head wherever keys[i] != keys[i-1];
/// keys[-1] is read unless `no_previous` (then element 0 is a head).
template <class K>
struct key_source {
  const K* keys;
  bool no_previous;
};
template <class H>
struct is_key_source : std::false_type {};
template <class K>
struct is_key_source<key_source<K>> : std::true_type {};

#if SWEEP_HOST_SIMD
namespace simd16 {
#define SWEEP_SIMD_BYTES 16
#include <sweep/host/simd_kernels.hpp>
#undef SWEEP_SIMD_BYTES
}  // namespace simd16

#if SWEEP_HOST_MULTI
#pragma GCC push_options
#pragma GCC target("avx2")
namespace simd32 {
#define SWEEP_SIMD_BYTES 32
#include <sweep/host/simd_kernels.hpp>
#undef SWEEP_SIMD_BYTES
}  // namespace simd32
#pragma GCC pop_options
#pragma GCC push_options
#pragma GCC target("avx2,avx512f")
namespace simd64 {
#define SWEEP_SIMD_BYTES 64
#include <sweep/host/simd_kernels.hpp>
#undef SWEEP_SIMD_BYTES
}  // namespace simd64
#pragma GCC pop_options
#endif

/// Sum of p[0..n).
template <class T>
inline T host_simd_plus_fold(const T* p, index_t n) {
#if SWEEP_HOST_MULTI
  if (host::uses(host::isa::avx512)) return simd64::plus_fold(p, n);
  if (host::uses(host::isa::avx2)) return simd32::plus_fold(p, n);
#endif
  return simd16::plus_fold(p, n);
}

/// out[i] = prefix + in[0] + ... + in[i] (or up to in[i-1] when exclusive);
/// returns prefix + everything. `in` may equal `out`. With `streaming`, the
/// output bypasses the caches (for outputs far larger than the caches,
/// which nobody reads soon): a copy-like 2n of memory traffic instead of 3n.
/// While scanning, in[ahead .. ahead_n) is prefetched `ahead` elements
/// ahead of the scan (the chunk the calling thread is likely to fold next).
template <class T>
inline T host_simd_plus_scan(const T* in, T* out, index_t n, T prefix, bool exclusive, bool streaming = false,
                             index_t ahead = 0, index_t ahead_n = 0) {
#if SWEEP_HOST_MULTI
  if (host::uses(host::isa::avx512))
    return simd64::plus_scan(in, out, n, prefix, exclusive, streaming, ahead, ahead_n);
  if (host::uses(host::isa::avx2)) return simd32::plus_scan(in, out, n, prefix, exclusive, streaming, ahead, ahead_n);
#endif
  return simd16::plus_scan(in, out, n, prefix, exclusive, streaming, ahead, ahead_n);
}

/// Segmented sum of in[0..n) into out (see seg_plus_scan_impl); `heads` is
/// a byte_heads, packed_heads, key_source or a functor giving the head bits
/// of elements i.. (bit k: element i+k). `sparse`: most vectors hold no
/// head (a branch skips the segment work for them). Prefetches as
/// host_simd_plus_scan does.
template <class T, class Heads>
inline T host_simd_seg_plus_scan(const T* in, T* out, index_t n, T run, T init, bool exclusive, bool streaming,
                                 const Heads& heads, bool sparse, index_t ahead = 0, index_t ahead_n = 0) {
#if SWEEP_HOST_MULTI
  if (host::uses(host::isa::avx2))
    return simd32::seg_plus_scan(in, out, n, run, init, exclusive, streaming, heads, sparse, ahead, ahead_n);
#endif
  return simd16::seg_plus_scan(in, out, n, run, init, exclusive, streaming, heads, sparse, ahead, ahead_n);
}
#endif

}  // namespace sweep::detail
