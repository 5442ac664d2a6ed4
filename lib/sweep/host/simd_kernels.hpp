// Body of the host vector scan kernels, included by host/simd_scan.hpp
// inside a namespace, with SWEEP_SIMD_BYTES set to 16 (SSE2), 32 (AVX2,
// inside a `#pragma GCC target("avx2")` region) or 64 (AVX-512F, inside a
// `#pragma GCC target("avx512f")` region; the plain fold and scan only, not
// the segmented kernels, whose lane tables grow with 2^lanes). Not a public
// header and deliberately without an include guard.

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
#if SWEEP_SIMD_BYTES == 64
  __m512i bits;
  std::memcpy(&bits, &v, sizeof bits);
  _mm512_stream_si512(reinterpret_cast<__m512i*>(p), bits);
#elif SWEEP_SIMD_BYTES == 32
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
  if constexpr (lanes<T> == 16) {
    v += __builtin_shuffle(z, v, mask<T>{0, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30});
    v += __builtin_shuffle(z, v, mask<T>{0, 1, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29});
    v += __builtin_shuffle(z, v, mask<T>{0, 1, 2, 3, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27});
    v += __builtin_shuffle(z, v, mask<T>{0, 1, 2, 3, 4, 5, 6, 7, 16, 17, 18, 19, 20, 21, 22, 23});
  } else if constexpr (lanes<T> == 8) {
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
  if constexpr (lanes<T> == 16) return __builtin_shuffle(v, mask<T>{} + 15);
  else if constexpr (lanes<T> == 8) return __builtin_shuffle(v, mask<T>{7, 7, 7, 7, 7, 7, 7, 7});
  else if constexpr (lanes<T> == 4) return __builtin_shuffle(v, mask<T>{3, 3, 3, 3});
  else return __builtin_shuffle(v, mask<T>{1, 1});
}
/// [last lane of prev, v0, v1, ...]: the exclusive values of a scanned vector.
template <class T>
inline vec<T> shift_in(const vec<T>& prev, const vec<T>& v) {
  if constexpr (lanes<T> == 16)
    return __builtin_shuffle(prev, v, mask<T>{15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30});
  else if constexpr (lanes<T> == 8) return __builtin_shuffle(prev, v, mask<T>{7, 8, 9, 10, 11, 12, 13, 14});
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

template <class T, bool Streaming, bool Exclusive>
inline T plus_scan_impl(const T* in, T* out, index_t n, T prefix, index_t ahead, index_t ahead_n) {
  constexpr int L = lanes<T>;
  // U vectors per block: 8 elements (16-byte vectors), 16 (32-byte) or 32
  // (64-byte).
  constexpr int U = (SWEEP_SIMD_BYTES / 2) / L;
  vec<T> carry = broadcast<T>(prefix);
  index_t i = 0;
  for (; i + U * L <= n; i += U * L) {
    // Warm the caches for the chunk this thread will likely fold next, into
    // every level (prefetcht0): on the 2-vCPU EPYC VM, single_pass at 2^24
    // took 1.76 ms (int32) and 4.35 ms (int64) against 2.07 and 4.83 ms with
    // prefetcht2 (medians of 5, one session).
    if (i + ahead < ahead_n)
      for (int line = 0; line < U * L * static_cast<int>(sizeof(T)); line += 64)
        __builtin_prefetch(reinterpret_cast<const char*>(in + i + ahead) + line, 0, 3);
    vec<T> v[U];
    for (int u = 0; u < U; ++u) v[u] = scan_lanes<T>(load<T>(in + i + u * L));
    // Scan the block on its own, then add the carry once: the chain from
    // one block to the next is a single add (of the block's total, which
    // does not wait for the carry). Each vector is stored as soon as it
    // has its carry and the kind is a template argument: a store loop over
    // the finished block made GCC spill the block to the stack.
    for (int u = 1; u < U; ++u) v[u] += last_lane<T>(v[u - 1]);
    const vec<T> total = last_lane<T>(v[U - 1]);
    vec<T> before = carry;
    for (int u = 0; u < U; ++u) {
      const vec<T> w = v[u] + carry;
      const vec<T> o = Exclusive ? shift_in<T>(before, w) : w;
      if constexpr (Streaming) stream<T>(out + i + u * L, o);
      else store<T>(out + i + u * L, o);
      before = w;
    }
    carry += total;
  }
  if constexpr (Streaming) stream_fence();
  T run = carry[0];
  for (; i < n; ++i) {
    const T next = run + in[i];
    out[i] = Exclusive ? run : next;
    run = next;
  }
  return run;
}

template <class T>
inline T plus_scan(const T* in, T* out, index_t n, T prefix, bool exclusive, bool streaming, index_t ahead,
                   index_t ahead_n) {
  const bool aligned = reinterpret_cast<std::uintptr_t>(out) % SWEEP_SIMD_BYTES == 0;
  if (streaming && aligned)
    return exclusive ? plus_scan_impl<T, true, true>(in, out, n, prefix, ahead, ahead_n)
                     : plus_scan_impl<T, true, false>(in, out, n, prefix, ahead, ahead_n);
  return exclusive ? plus_scan_impl<T, false, true>(in, out, n, prefix, ahead, ahead_n)
                   : plus_scan_impl<T, false, false>(in, out, n, prefix, ahead, ahead_n);
}

#if SWEEP_SIMD_BYTES < 64
// ------------------------------------------------------------ segmented sums

/// v shifted up by D lanes, zeros in.
template <class V, int L, int D>
inline V shift_up(const V& v) {
  using I = decltype(v < v);
  I idx{};  // every lane set below (initialised: GCC -O1 cannot see it)
  for (int k = 0; k < L; ++k) idx[k] = k < D ? k : L + k - D;
  return __builtin_shuffle(V{}, v, idx);
}

/// clear_lane_masks<T>()[b]: -1 in the lanes whose bit is clear in b, 0 where it
/// is set (a table of 2^lanes vectors: a mask costs one load, no shuffles).
template <class T>
inline const mask<T>* clear_lane_masks() {
  constexpr int L = lanes<T>;
  struct table {
    mask<T> m[1 << L];
    table() {
      for (int b = 0; b < (1 << L); ++b)
        for (int k = 0; k < L; ++k) m[b][k] = ((b >> k) & 1) ? 0 : -1;
    }
  };
  static const table t;
  return t.m;
}

/// The lanes' worth of bytes at p, zero-extended into the lanes of M.
template <class M>
inline M widen_bytes(const std::uint8_t* p) {
  constexpr int lane = sizeof(M{}[0]), L = sizeof(M) / lane;
  M out;
#if SWEEP_SIMD_BYTES == 32
  __m128i raw;
  if constexpr (lane == 4) {
    std::int64_t b;
    std::memcpy(&b, p, 8);
    raw = _mm_cvtsi64_si128(b);
    const __m256i w = _mm256_cvtepu8_epi32(raw);
    std::memcpy(&out, &w, sizeof out);
  } else {
    std::int32_t b;
    std::memcpy(&b, p, 4);
    raw = _mm_cvtsi32_si128(b);
    const __m256i w = _mm256_cvtepu8_epi64(raw);
    std::memcpy(&out, &w, sizeof out);
  }
#elif defined(__SSE2__)
  const __m128i z = _mm_setzero_si128();
  __m128i w;
  if constexpr (lane == 4) {
    std::int32_t b;
    std::memcpy(&b, p, 4);
    w = _mm_unpacklo_epi16(_mm_unpacklo_epi8(_mm_cvtsi32_si128(b), z), z);
  } else {
    std::uint16_t b;
    std::memcpy(&b, p, 2);
    w = _mm_unpacklo_epi32(_mm_unpacklo_epi16(_mm_unpacklo_epi8(_mm_cvtsi32_si128(b), z), z), z);
  }
  std::memcpy(&out, &w, sizeof out);
#else
  for (int k = 0; k < L; ++k) out[k] = p[k];
#endif
  (void)L;
  return out;
}

/// Bit k set where lane k of m is negative (all ones).
template <class M>
inline unsigned lane_signs(const M& m) {
  [[maybe_unused]] constexpr int bytes = sizeof(M), lane = sizeof(m[0]);
#if defined(__SSE2__)
#if SWEEP_SIMD_BYTES == 32
  if constexpr (bytes == 32) {
    if constexpr (lane == 4) return static_cast<unsigned>(_mm256_movemask_ps((__m256)m));
    else if constexpr (lane == 8) return static_cast<unsigned>(_mm256_movemask_pd((__m256d)m));
  }
#endif
  if constexpr (bytes == 16) {
    if constexpr (lane == 4) return static_cast<unsigned>(_mm_movemask_ps((__m128)m));
    else if constexpr (lane == 8) return static_cast<unsigned>(_mm_movemask_pd((__m128d)m));
  }
#endif
  unsigned b = 0;
  for (int k = 0; k < bytes / lane; ++k) b |= unsigned(m[k] < 0) << k;
  return b;
}

/// last_head_lanes<T>()[b]: lane k holds the index of the last set bit of
/// b at or below k (0 when none), as bytes for a widening load.
template <class T>
inline const std::uint8_t* last_head_lanes() {
  constexpr int L = lanes<T>;
  struct table {
    std::uint8_t idx[1 << L][8];
    table() {
      for (int b = 0; b < (1 << L); ++b) {
        int last = 0;
        for (int k = 0; k < 8; ++k) {
          if (k < L && ((b >> k) & 1)) last = k;
          idx[b][k] = static_cast<std::uint8_t>(last);
        }
      }
    }
  };
  static const table t;
  return &t.idx[0][0];
}

/// The head bits (bit k: element i+k starts a segment) of the lanes at i,
/// and the mask that is -1 in the lanes that do not start one.
template <class T, class Heads>
inline unsigned lane_heads(const Heads& heads, index_t i, const mask<T>* clear_table, mask<T>& clear) {
  constexpr int L = lanes<T>;
  constexpr unsigned all = (1u << L) - 1u;
  unsigned h;
  if constexpr (std::is_same_v<Heads, byte_heads>) {
    // Byte flags straight into lanes: widen, compare with zero, and take
    // the sign bits for the scalar side.
    clear = widen_bytes<mask<T>>(heads.flags + i) == 0;
    return ~lane_signs(clear) & all;
  } else if constexpr (std::is_same_v<Heads, packed_heads>) {
    const index_t bit = heads.bit0 + i;  // bit0 % 8 == 0: the lanes' bits share one byte
    h = (static_cast<unsigned>(heads.bytes[bit >> 3]) >> (bit & 7)) & all;
  } else if constexpr (is_key_source<Heads>::value) {
    using K = std::remove_cv_t<std::remove_pointer_t<decltype(heads.keys)>>;
    const K* k = heads.keys + i;
    if constexpr ((sizeof(K) == 4 || sizeof(K) == 8) && L * sizeof(K) >= 16) {
      // Keys and their predecessors as vectors: one compare, sign bits.
      typedef K key_vec __attribute__((vector_size(L * sizeof(K))));
      key_vec cur, prev;
      std::memcpy(&cur, k, sizeof cur);
      if (i == 0 && heads.no_previous) {
        prev = cur;
        std::memcpy(reinterpret_cast<char*>(&prev) + sizeof(K), k, sizeof cur - sizeof(K));
        prev[0] = cur[0];
      } else {
        std::memcpy(&prev, k - 1, sizeof prev);
      }
      const auto same = cur == prev;
      if constexpr (sizeof(K) == sizeof(T)) {
        clear = (mask<T>)same;
        return ~lane_signs(same) & all;
      } else {
        h = ~lane_signs(same) & all;
      }
    } else {
      h = 0;
      for (int j = 1; j < L; ++j) h |= unsigned(k[j] != k[j - 1]) << j;
      h |= (i == 0 && heads.no_previous) ? 1u : unsigned(k[0] != k[-1]);
    }
  } else {
    h = heads(i) & all;
  }
  clear = clear_table[h];
  return h;
}

template <class Heads>
inline bool element_head(const Heads& heads, index_t i) {
  if constexpr (std::is_same_v<Heads, byte_heads>) return heads.flags[i] != 0;
  else if constexpr (std::is_same_v<Heads, packed_heads>)
    return ((heads.bytes[(heads.bit0 + i) >> 3] >> ((heads.bit0 + i) & 7)) & 1u) != 0;
  else if constexpr (is_key_source<Heads>::value)
    return (i == 0 && heads.no_previous) || heads.keys[i] != heads.keys[i - 1];
  else return (heads(i) & 1u) != 0;
}

/// Asks for the head description of element i (byte flags, packed bits,
/// keys) in every cache level, next to the values' prefetch (a functor
/// head source has none to ask for).
template <class Heads>
inline void prefetch_heads([[maybe_unused]] const Heads& heads, [[maybe_unused]] index_t i) {
  if constexpr (std::is_same_v<Heads, byte_heads>) __builtin_prefetch(heads.flags + i, 0, 3);
  else if constexpr (std::is_same_v<Heads, packed_heads>) __builtin_prefetch(heads.bytes + ((heads.bit0 + i) >> 3), 0, 3);
  else if constexpr (is_key_source<Heads>::value) __builtin_prefetch(heads.keys + i, 0, 3);
}

/// Segmented inclusive (or exclusive, with `init` at every head) sum of
/// in[0..n); `heads` is a byte_heads, packed_heads or a functor giving the
/// head bits at i. `run` is the sum since the last head before in[0];
/// returns the sum since the last head up to in[n-1]. Per vector:
///  - integers (exact in wrap-around arithmetic): the plain in-vector
///    prefix P, minus P's exclusive value at each lane's last head (one
///    permute through a table indexed by the head bits);
///  - floating point (no cancellation allowed): log2(lanes) shift-and-add
///    steps, each adding only into lanes with no head in the window it
///    reaches over (scalar ORs of shifted head bits, turned into lane masks
///    by table lookup).
/// The carry from the previous vector goes only to lanes before the
/// vector's first head.
template <class T, bool Streaming, bool Exclusive, class Heads>
inline T seg_plus_scan_impl(const T* in, T* out, index_t n, T run, T init, const Heads& heads_in, bool sparse,
                            index_t ahead, index_t ahead_n) {
  const Heads heads = heads_in;  // a local copy: stores to out cannot alias it
  constexpr int L = lanes<T>;
  constexpr unsigned all = (1u << L) - 1u;
  using V = vec<T>;
  using M = mask<T>;
  const M* table = clear_lane_masks<T>();
  [[maybe_unused]] const std::uint8_t* last_head = last_head_lanes<T>();
  V carry = broadcast<T>(run);
  const V initv = broadcast<T>(init);
  index_t i = 0;
  auto put = [&](T* p, const V& v) {
    if constexpr (Streaming) stream<T>(p, v);
    else store<T>(p, v);
  };
  // One 64-byte line of input per step (one prefetch decision per line).
  constexpr int per_line = 64 / SWEEP_SIMD_BYTES > 0 ? 64 / SWEEP_SIMD_BYTES : 1;
  auto step = [&](index_t i, auto sparse_tag) {
    M clear_h;
    const unsigned h = lane_heads<T>(heads, i, table, clear_h);
    if constexpr (decltype(sparse_tag)::value) {
      if (h == 0) {  // long segments: most vectors hold no head
        const V v = scan_lanes<T>(load<T>(in + i)) + carry;
        if constexpr (Exclusive) put(out + i, initv + shift_in<T>(carry, v));
        else put(out + i, v);
        carry = last_lane<T>(v);
        return;
      }
    }
    unsigned seen = h;  // seen: a head at or before each lane
    seen |= seen << 1;
    if constexpr (L > 2) seen |= seen << 2;
    if constexpr (L > 4) seen |= seen << 4;
    seen &= all;
    const V x = load<T>(in + i);
    V v;
    if constexpr (std::is_integral_v<T>) {
      const V p = scan_lanes<T>(x);
      const V pexcl = p - x;
      const M at_head = widen_bytes<M>(last_head + 8 * h);
      v = p - (V)((M)__builtin_shuffle(pexcl, at_head) & ~table[seen]);
    } else {
      unsigned f = h;  // f: a head within the lanes the next step reaches over
      v = x + (V)((M)shift_up<V, L, 1>(x) & table[f]);
      f = (f | (f << 1)) & all;
      if constexpr (L > 2) {
        v += (V)((M)shift_up<V, L, 2>(v) & table[f]);
        f = (f | (f << 2)) & all;
      }
      if constexpr (L > 4) v += (V)((M)shift_up<V, L, 4>(v) & table[f]);
    }
    v += (V)((M)carry & table[seen]);
    if constexpr (Exclusive) put(out + i, initv + (V)((M)shift_in<T>(carry, v) & clear_h));
    else put(out + i, v);
    carry = last_lane<T>(v);
  };
  // Two loops, so the no-head branch exists only where it predicts well.
  auto lines = [&](auto sparse_tag) {
    for (; i + per_line * L <= n; i += per_line * L) {
      if (i + ahead < ahead_n) {
        __builtin_prefetch(in + i + ahead, 0, 3);
        prefetch_heads(heads, i + ahead);
      }
      for (int u = 0; u < per_line; ++u) step(i + u * L, sparse_tag);
    }
  };
  if (sparse) lines(std::true_type{});
  else lines(std::false_type{});
  if constexpr (Streaming) stream_fence();
  run = carry[0];
  for (; i < n; ++i) {
    const bool head = element_head(heads, i);
    if constexpr (Exclusive) out[i] = head ? init : static_cast<T>(init + run);
    run = head ? in[i] : static_cast<T>(run + in[i]);
    if constexpr (!Exclusive) out[i] = run;
  }
  return run;
}

template <class T, class Heads>
inline T seg_plus_scan(const T* in, T* out, index_t n, T run, T init, bool exclusive, bool streaming,
                       const Heads& heads, bool sparse, index_t ahead, index_t ahead_n) {
  const bool stream_out = streaming && reinterpret_cast<std::uintptr_t>(out) % SWEEP_SIMD_BYTES == 0;
  if (stream_out && exclusive)
    return seg_plus_scan_impl<T, true, true>(in, out, n, run, init, heads, sparse, ahead, ahead_n);
  if (stream_out) return seg_plus_scan_impl<T, true, false>(in, out, n, run, init, heads, sparse, ahead, ahead_n);
  if (exclusive) return seg_plus_scan_impl<T, false, true>(in, out, n, run, init, heads, sparse, ahead, ahead_n);
  return seg_plus_scan_impl<T, false, false>(in, out, n, run, init, heads, sparse, ahead, ahead_n);
}
#endif  // SWEEP_SIMD_BYTES < 64
