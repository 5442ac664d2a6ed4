// Body of the host vector scan kernels, included twice by host_simd_scan.hpp
// inside a namespace, with SWEEP_SIMD_BYTES set to 16 (SSE2) or 32 (AVX2,
// inside a `#pragma GCC target("avx2")` region). Not a public header and
// deliberately without an include guard.

template <class T>
struct vector_types;
#define SWEEP_SIMD_TYPES(T, M)                                          \
  template <>                                                           \
  struct vector_types<T> {                                              \
    typedef T type __attribute__((vector_size(SWEEP_SIMD_BYTES)));      \
    typedef M mask_type __attribute__((vector_size(SWEEP_SIMD_BYTES))); \
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
inline constexpr int lanes = SWEEP_SIMD_BYTES / sizeof(T);

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
/// A store that bypasses the caches; `p` must be SWEEP_SIMD_BYTES-aligned.
template <class T>
inline void stream(T* p, const vec<T>& v) {
#if SWEEP_SIMD_BYTES == 32
  __m256i bits;
  std::memcpy(&bits, &v, sizeof bits);
  _mm256_stream_si256(reinterpret_cast<__m256i*>(p), bits);
#elif defined(__SSE2__)
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
/// Inclusive scan of the lanes of v (shift-and-add, log2(lanes) steps).
template <class T>
inline vec<T> scan_lanes(vec<T> v) {
  const vec<T> z{};
  if constexpr (lanes<T> == 8) {
    v += __builtin_shuffle(z, v, mask<T>{0, 8, 9, 10, 11, 12, 13, 14});
    v += __builtin_shuffle(z, v, mask<T>{0, 1, 8, 9, 10, 11, 12, 13});
    v += __builtin_shuffle(z, v, mask<T>{0, 1, 2, 3, 8, 9, 10, 11});
  } else if constexpr (lanes<T> == 4) {
    v += __builtin_shuffle(z, v, mask<T>{0, 4, 5, 6});
    v += __builtin_shuffle(z, v, mask<T>{0, 1, 4, 5});
  } else {
    v += __builtin_shuffle(z, v, mask<T>{0, 2});
  }
  return v;
}
template <class T>
inline vec<T> last_lane(const vec<T>& v) {
  if constexpr (lanes<T> == 8) return __builtin_shuffle(v, mask<T>{7, 7, 7, 7, 7, 7, 7, 7});
  else if constexpr (lanes<T> == 4) return __builtin_shuffle(v, mask<T>{3, 3, 3, 3});
  else return __builtin_shuffle(v, mask<T>{1, 1});
}
/// [last lane of prev, v0, v1, ...]: the exclusive values of a scanned vector.
template <class T>
inline vec<T> shift_in(const vec<T>& prev, const vec<T>& v) {
  if constexpr (lanes<T> == 8) return __builtin_shuffle(prev, v, mask<T>{7, 8, 9, 10, 11, 12, 13, 14});
  else if constexpr (lanes<T> == 4) return __builtin_shuffle(prev, v, mask<T>{3, 4, 5, 6});
  else return __builtin_shuffle(prev, v, mask<T>{1, 2});
}

template <class T>
inline T plus_fold(const T* p, index_t n) {
  constexpr int L = lanes<T>;
  vec<T> a{}, b{}, c{}, d{};
  index_t i = 0;
  for (; i + 4 * L <= n; i += 4 * L) {
    a += load<T>(p + i);
    b += load<T>(p + i + L);
    c += load<T>(p + i + 2 * L);
    d += load<T>(p + i + 3 * L);
  }
  a = (a + b) + (c + d);
  T total = T(0);
  for (int k = 0; k < L; ++k) total += a[k];
  for (; i < n; ++i) total += p[i];
  return total;
}

template <class T, bool Streaming>
inline T plus_scan_impl(const T* in, T* out, index_t n, T prefix, bool exclusive, index_t ahead, index_t ahead_n) {
  constexpr int L = lanes<T>;
  // U vectors per block: 8 elements (16-byte vectors) or 16 (32-byte).
  constexpr int U = (SWEEP_SIMD_BYTES == 16 ? 8 : 16) / L;
  vec<T> carry = broadcast<T>(prefix);
  index_t i = 0;
  auto put = [&](T* p, const vec<T>& v) {
    if constexpr (Streaming) stream<T>(p, v);
    else store<T>(p, v);
  };
  for (; i + U * L <= n; i += U * L) {
    // Warm the caches for the chunk this thread will likely fold next.
    if (i + ahead < ahead_n)
      for (int line = 0; line < U * L * static_cast<int>(sizeof(T)); line += 64)
        __builtin_prefetch(reinterpret_cast<const char*>(in + i + ahead) + line, 0, 1);
    vec<T> v[U];
    for (int u = 0; u < U; ++u) v[u] = scan_lanes<T>(load<T>(in + i + u * L));
    // Scan the block on its own, then add the carry once: the chain from
    // one block to the next is a single add.
    for (int u = 1; u < U; ++u) v[u] += last_lane<T>(v[u - 1]);
    for (int u = 0; u < U; ++u) v[u] += carry;
    if (exclusive) {
      put(out + i, shift_in<T>(carry, v[0]));
      for (int u = 1; u < U; ++u) put(out + i + u * L, shift_in<T>(v[u - 1], v[u]));
    } else {
      for (int u = 0; u < U; ++u) put(out + i + u * L, v[u]);
    }
    carry = last_lane<T>(v[U - 1]);
  }
  if constexpr (Streaming) stream_fence();
  T run = carry[0];
  for (; i < n; ++i) {
    const T next = run + in[i];
    out[i] = exclusive ? run : next;
    run = next;
  }
  return run;
}

template <class T>
inline T plus_scan(const T* in, T* out, index_t n, T prefix, bool exclusive, bool streaming, index_t ahead,
                   index_t ahead_n) {
  if (streaming && reinterpret_cast<std::uintptr_t>(out) % SWEEP_SIMD_BYTES == 0)
    return plus_scan_impl<T, true>(in, out, n, prefix, exclusive, ahead, ahead_n);
  return plus_scan_impl<T, false>(in, out, n, prefix, exclusive, ahead, ahead_n);
}
