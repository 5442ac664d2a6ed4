// Host fast path for the commonest scan: sweep::plus over contiguous
// arithmetic data. A scalar scan is a dependency chain of one add per
// element; here each 16-byte vector is scanned in registers (log2(lanes)
// shift-and-add steps) and carried into the next, and folds keep several
// vector accumulators, so a CPU core scans faster than memory streams.
// Floating-point sums are reassociated (still within the n-scaled error
// of any parallel scan). Built with GCC/Clang vector extensions only when
// the host compiler sees the code directly (not under nvcc's front end).
#pragma once

#include <sweep/core.hpp>
#include <sweep/monoid.hpp>

#include <cstdint>
#include <cstring>
#include <type_traits>

#if defined(__SSE2__) && !defined(__CUDACC__)
#include <emmintrin.h>
#endif

#if defined(__GNUC__) && !defined(__CUDACC__) && !defined(__NVCOMPILER)
#define SWEEP_HAVE_HOST_SIMD 1
#else
#define SWEEP_HAVE_HOST_SIMD 0
#endif

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
    SWEEP_HAVE_HOST_SIMD && is_simd_plus<Op>::value &&
    std::is_same_v<std::remove_cv_t<InValue>, typename Op::value_type>;

#if SWEEP_HAVE_HOST_SIMD
namespace simd {

// Vector types need a declaration per element type.
template <class T>
struct vector_types;
#define SWEEP_SIMD_TYPES(T, M)                               \
  template <>                                                \
  struct vector_types<T> {                                   \
    typedef T type __attribute__((vector_size(16)));         \
    typedef M mask_type __attribute__((vector_size(16)));    \
  };
SWEEP_SIMD_TYPES(std::int32_t, std::int32_t)
SWEEP_SIMD_TYPES(std::uint32_t, std::int32_t)
SWEEP_SIMD_TYPES(float, std::int32_t)
SWEEP_SIMD_TYPES(std::int64_t, std::int64_t)
SWEEP_SIMD_TYPES(std::uint64_t, std::int64_t)
SWEEP_SIMD_TYPES(double, std::int64_t)
#undef SWEEP_SIMD_TYPES

template <class T>
using vec = typename vector_types<T>::type;
template <class T>
using mask = typename vector_types<T>::mask_type;
template <class T>
inline constexpr int lanes = 16 / sizeof(T);

template <class T>
inline vec<T> load(const T* p) {
  vec<T> v;
  std::memcpy(&v, p, sizeof v);
  return v;
}
template <class T>
inline void store(T* p, const vec<T>& v) {
  std::memcpy(p, &v, sizeof v);
}
/// A store that bypasses the caches (no read-for-ownership of the output
/// line); `p` must be 16-byte aligned.
template <class T>
inline void stream(T* p, const vec<T>& v) {
#if defined(__SSE2__)
  __m128i bits;
  std::memcpy(&bits, &v, sizeof bits);
  _mm_stream_si128(reinterpret_cast<__m128i*>(p), bits);
#else
  store(p, v);
#endif
}
inline void stream_fence() {
#if defined(__SSE2__)
  _mm_sfence();
#endif
}
template <class T>
inline vec<T> broadcast(T x) {
  vec<T> v;
  for (int k = 0; k < lanes<T>; ++k) v[k] = x;
  return v;
}
/// Inclusive scan of the lanes of v.
template <class T>
inline vec<T> scan_lanes(vec<T> v) {
  const vec<T> z{};
  if constexpr (lanes<T> == 4) {
    v += __builtin_shuffle(z, v, mask<T>{0, 4, 5, 6});
    v += __builtin_shuffle(z, v, mask<T>{0, 1, 4, 5});
  } else {
    v += __builtin_shuffle(z, v, mask<T>{0, 2});
  }
  return v;
}
template <class T>
inline vec<T> last_lane(const vec<T>& v) {
  if constexpr (lanes<T> == 4) return __builtin_shuffle(v, mask<T>{3, 3, 3, 3});
  else return __builtin_shuffle(v, mask<T>{1, 1});
}
/// [last lane of prev, v0, v1, ...]: the exclusive values of a scanned vector.
template <class T>
inline vec<T> shift_in(const vec<T>& prev, const vec<T>& v) {
  if constexpr (lanes<T> == 4) return __builtin_shuffle(prev, v, mask<T>{3, 4, 5, 6});
  else return __builtin_shuffle(prev, v, mask<T>{1, 2});
}

}  // namespace simd

/// Sum of p[0..n).
template <class T>
inline T host_simd_plus_fold(const T* p, index_t n) {
  constexpr int L = simd::lanes<T>;
  simd::vec<T> a{}, b{}, c{}, d{};
  index_t i = 0;
  for (; i + 4 * L <= n; i += 4 * L) {
    a += simd::load<T>(p + i);
    b += simd::load<T>(p + i + L);
    c += simd::load<T>(p + i + 2 * L);
    d += simd::load<T>(p + i + 3 * L);
  }
  a = (a + b) + (c + d);
  T total = T(0);
  for (int k = 0; k < L; ++k) total += a[k];
  for (; i < n; ++i) total += p[i];
  return total;
}

/// out[i] = prefix + in[0] + ... + in[i] (or up to in[i-1] when exclusive);
/// returns prefix + everything. `in` may equal `out`. With `streaming`, the
/// output bypasses the caches (for outputs far larger than the caches,
/// which nobody reads soon): a copy-like 2n of memory traffic instead of 3n.
template <class T, bool Streaming>
inline T host_simd_plus_scan_impl(const T* in, T* out, index_t n, T prefix, bool exclusive) {
  constexpr int L = simd::lanes<T>;
  simd::vec<T> carry = simd::broadcast<T>(prefix);
  index_t i = 0;
  auto put = [&](T* p, const simd::vec<T>& v) {
    if constexpr (Streaming) simd::stream<T>(p, v);
    else simd::store<T>(p, v);
  };
  // U vectors per iteration: 8 elements, whatever the element size.
  constexpr int U = 8 / L;
  for (; i + U * L <= n; i += U * L) {
    simd::vec<T> v[U];
    for (int u = 0; u < U; ++u) v[u] = simd::scan_lanes<T>(simd::load<T>(in + i + u * L));
    // Scan the block on its own, then add the carry once: the chain from
    // one block to the next is a single add.
    for (int u = 1; u < U; ++u) v[u] += simd::last_lane<T>(v[u - 1]);
    for (int u = 0; u < U; ++u) v[u] += carry;
    if (exclusive) {
      put(out + i, simd::shift_in<T>(carry, v[0]));
      for (int u = 1; u < U; ++u) put(out + i + u * L, simd::shift_in<T>(v[u - 1], v[u]));
    } else {
      for (int u = 0; u < U; ++u) put(out + i + u * L, v[u]);
    }
    carry = simd::last_lane<T>(v[U - 1]);
  }
  if constexpr (Streaming) simd::stream_fence();
  T run = carry[0];
  for (; i < n; ++i) {
    const T next = run + in[i];
    out[i] = exclusive ? run : next;
    run = next;
  }
  return run;
}

template <class T>
inline T host_simd_plus_scan(const T* in, T* out, index_t n, T prefix, bool exclusive, bool streaming = false) {
  if (streaming && reinterpret_cast<std::uintptr_t>(out) % 16 == 0)
    return host_simd_plus_scan_impl<T, true>(in, out, n, prefix, exclusive);
  return host_simd_plus_scan_impl<T, false>(in, out, n, prefix, exclusive);
}
#endif

}  // namespace sweep::detail
