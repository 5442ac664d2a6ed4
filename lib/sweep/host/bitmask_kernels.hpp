// CPU kernels of the streaming pack and unpack (rank_select): one thread
// walks a range of 64-bit mask words, starting at the packed position the
// index gives for the range. All-zero words are skipped and all-one words
// are block copies, so sparse masks run at the speed of reading the mask
// and dense ones at copy speed. In between, 4- and 8-byte elements move a
// vector at a time on AVX2: a table indexed by a byte (or nibble) of the
// mask gives the lane permutation that left-packs the set lanes (pack), or
// spreads consecutive packed elements to the set lanes, blended with what
// the output holds (unpack), so the cost does not depend on where the bits
// are. With AVX-512 the same moves take no table: a masked load and
// vpcompress (pack), or vpexpand merged into the output (unpack; a masked
// store at the mask's last word), per 64 bytes;
// a range with 6-60% of its bits set moves every word that way, sparser
// ones queue their sparse words as above (with VBMI2, a word's positions
// are found by one byte compress), and denser ones take the AVX2 moves
// (faster there on a Xeon). Other types, and CPUs without AVX2, take the
// scalar bit loop.
#pragma once

#include <sweep/core.hpp>
#include <sweep/host/isa.hpp>

#include <array>
#include <cstring>
#include <type_traits>

namespace sweep::detail {

/// The caller's mask and arrays as raw host pointers for one range of words.
struct host_mask {
  const std::uint32_t* words;
  index_t n;  // bits

  index_t n32() const { return (n + 31) / 32; }
  /// 64-bit word j with bits past n cleared.
  std::uint64_t word(index_t j) const {
    if (64 * j + 64 <= n) {
      std::uint64_t w;
      std::memcpy(&w, words + 2 * j, sizeof w);
      return w;
    }
    std::uint64_t w = words[2 * j];
    if (2 * j + 1 < n32()) w |= std::uint64_t(words[2 * j + 1]) << 32;
    return w & ((std::uint64_t(1) << (n - 64 * j)) - 1);
  }
};

template <class T>
void scalar_pack_words(const host_mask& m, index_t w0, index_t w1, const T* in, T* out) {
  for (index_t j = w0; j < w1; ++j) {
    std::uint64_t w = m.word(j);
    const T* src = in + 64 * j;
    if (w == ~std::uint64_t(0)) {
      for (int b = 0; b < 64; ++b) out[b] = src[b];
      out += 64;
      continue;
    }
    for (; w != 0; w &= w - 1) *out++ = src[__builtin_ctzll(w)];
  }
}

template <class T>
void scalar_unpack_words(const host_mask& m, index_t w0, index_t w1, const T* in, T* out) {
  for (index_t j = w0; j < w1; ++j) {
    std::uint64_t w = m.word(j);
    T* dst = out + 64 * j;
    if (w == ~std::uint64_t(0)) {
      for (int b = 0; b < 64; ++b) dst[b] = in[b];
      in += 64;
      continue;
    }
    for (; w != 0; w &= w - 1) dst[__builtin_ctzll(w)] = *in++;
  }
}

#if SWEEP_HOST_MULTI
/// Permutation tables for `Lanes` lanes of a 32-byte vector, as 32-bit lane
/// indices (a 64-bit lane is two): pack[g] moves the set lanes of group g
/// to the front; expand[g] sends packed element t to the t-th set lane.
template <int Lanes>
struct lane_tables {
  static constexpr int groups = 1 << Lanes;
  static constexpr int per = 8 / Lanes;  // 32-bit lanes per element
  alignas(64) std::array<std::array<std::uint8_t, 8>, groups> pack{}, expand{};
  alignas(64) std::array<std::array<std::uint32_t, 8>, 1> bit{};
  lane_tables() {
    for (int g = 0; g < groups; ++g) {
      int t = 0;
      for (int lane = 0; lane < Lanes; ++lane) {
        for (int h = 0; h < per; ++h) expand[g][lane * per + h] = static_cast<std::uint8_t>(t * per + h);
        if ((g >> lane) & 1) {
          for (int h = 0; h < per; ++h) pack[g][t * per + h] = static_cast<std::uint8_t>(lane * per + h);
          ++t;
        }
      }
    }
    for (int l = 0; l < 8; ++l) bit[0][l] = 1u << (l / per);
  }
  static const lane_tables& get() {
    static const lane_tables tables;
    return tables;
  }
};

#pragma GCC push_options
#pragma GCC target("avx2,popcnt,bmi")
/// Words with at most this many set bits are moved through the queue.
inline constexpr int sparse_bits = 8;

/// Where sparse_queue's append sends each position's line: to L1
/// (prefetcht0, or prefetchw for the scatter), to L2 (prefetcht2, a read
/// prefetch for the scatter too: an unshared line arrives exclusive, and
/// the store needs no second request), or nowhere.
enum class queue_fetch { l1, l2, none };

/// Positions of set bits from sparse words, moved in one branch-free loop
/// (many independent loads in flight, where a loop per word would stall
/// on its mispredicted exit with the loads behind it). append prefetches
/// each position's line as it queues it (Fetch says where).
template <class T, bool Write, queue_fetch Fetch = queue_fetch::l1>
struct sparse_queue {
  static constexpr int capacity = 512;
  const T* target;  // the expanded array, prefetched
  index_t pos[capacity];
  int size = 0;

  explicit sparse_queue(const T* expanded) : target(expanded) {}

  static void fetch(const T* p) {
    if constexpr (Fetch == queue_fetch::l1) __builtin_prefetch(p, Write ? 1 : 0, 3);
    if constexpr (Fetch == queue_fetch::l2) __builtin_prefetch(p, 0, 1);
  }
  void push(index_t p) {
    fetch(target + p);
    pos[size++] = p;
  }
  /// Appends the set bits of w (at most sparse_bits) at base + bit. When
  /// it prefetches, the first is stored unconditionally (counted only when
  /// w != 0) and the rest in a loop that rarely runs on sparse masks;
  /// otherwise the first three (an empty word's tzcnt is 64: stored, not
  /// counted), so the loop, and its mispredicted exit, only comes with four
  /// or more.
  void append(index_t base, std::uint64_t w) {
    if constexpr (Fetch != queue_fetch::none) {
      const index_t p = base + static_cast<index_t>(_tzcnt_u64(w));
      pos[size] = p;
      // An empty word fetches the array's first line (kept in cache)
      // instead of a line it does not need: a select, not a branch.
      fetch(target + (w != 0 ? p : 0));
      size += w != 0;
      for (w = _blsr_u64(w); w != 0; w = _blsr_u64(w)) push(base + static_cast<index_t>(_tzcnt_u64(w)));
    } else {
      const int count = static_cast<int>(_mm_popcnt_u64(w));
      for (int t = 0; t < 3; ++t, w = _blsr_u64(w)) pos[size + t] = base + static_cast<index_t>(_tzcnt_u64(w));
      for (int t = size + 3; w != 0; w = _blsr_u64(w)) pos[t++] = base + static_cast<index_t>(_tzcnt_u64(w));
      size += count;
    }
  }
  T* gather(const T* in, T* out) {
    for (int t = 0; t < size; ++t) out[t] = in[pos[t]];
    out += size;
    size = 0;
    return out;
  }
  const T* scatter(const T* in, T* out) {
    for (int t = 0; t < size; ++t) out[pos[t]] = in[t];
    in += size;
    size = 0;
    return in;
  }
};

#define SWEEP_BITMASK_WALK_LEVEL walk_avx2
#include <sweep/host/bitmask_walk_body.hpp>
#undef SWEEP_BITMASK_WALK_LEVEL
using walk_avx2::walk_words;

/// The AVX2 walk's queue by the range's density (set bits per thousand).
/// Below avx2_l2_fetch_permille it prefetches into L2, and unpack below
/// avx2_unfetched_permille does not prefetch at all. On an AVX2-only EPYC
/// (2 threads; benchmarks/results/cpu-2core-epyc-avx2/bitmask_avx2_queue_ab/,
/// bench_bitmask's rank_select at 2^26 int32, against the L1 queue before):
/// pack at 4% 10.0-10.4 against 13.6-14.5 ms, at 1% 5.4-5.5 against
/// 5.9; unpack at 4% 11.0-11.6 against 13.3-13.4, at 1% 4.9-5.5 against
/// 6.2-6.4. In a driver with the queues side by side, pack into L2 ran
/// ahead at 0.5% and 2% too (2.7-2.8 against 2.8-3.2 ms, 6.1-6.4 against
/// 8.4-11.1) and behind at 10% (11.1-11.9 against 10.5-11.2). In the runs
/// that set the thresholds, unpack at 1% took 4.8-5.0 ms without a
/// prefetch against 5.4-5.5 with the L2 read prefetch, and at 4% 14.4-14.5
/// without one against 12.0-13.2 with prefetchw.
inline constexpr int avx2_l2_fetch_permille = 60;
inline constexpr int avx2_unfetched_permille = 30;

/// Whether `ones` set bits in a range of `bits` are fewer than `permille`
/// per thousand.
inline bool sparser_than(index_t ones, index_t bits, int permille) { return 1000 * ones < permille * bits; }

template <class Queue, class T>
void avx2_pack_walk(const host_mask& m, index_t w0, index_t w1, const T* in, T* out, T* out_limit) {
  constexpr int lanes = 32 / sizeof(T);
  const auto& tab = lane_tables<lanes>::get();
  Queue queue(in);
  walk_words(
      m, w0, w1, queue, [&] { out = queue.gather(in, out); },
      [&](index_t j, std::uint64_t w) {
        const T* src = in + 64 * j;
        if (w == ~std::uint64_t(0)) {
          for (int b = 0; b < 64; b += lanes)
            _mm256_storeu_si256(reinterpret_cast<__m256i*>(out + b),
                                _mm256_loadu_si256(reinterpret_cast<const __m256i*>(src + b)));
          out += 64;
          return;
        }
        const bool tail = 64 * j + 64 > m.n;  // no vector reads past n
        for (int b = 0; b < 64; b += lanes) {
          const unsigned g = static_cast<unsigned>(w >> b) & ((1u << lanes) - 1);
          if (g == 0) continue;
          if (!tail && out + lanes <= out_limit) {
            const __m256i idx =
                _mm256_cvtepu8_epi32(_mm_loadl_epi64(reinterpret_cast<const __m128i*>(tab.pack[g].data())));
            const __m256i v = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(src + b));
            _mm256_storeu_si256(reinterpret_cast<__m256i*>(out), _mm256_permutevar8x32_epi32(v, idx));
            out += _mm_popcnt_u32(g);
          } else {
            for (unsigned h = g; h != 0; h &= h - 1) *out++ = src[b + __builtin_ctz(h)];
          }
        }
      });
}

template <class T>
void avx2_pack_words(const host_mask& m, index_t w0, index_t w1, const T* in, T* out, T* out_limit) {
  if (sparser_than(out_limit - out, 64 * (w1 - w0), avx2_l2_fetch_permille))
    return avx2_pack_walk<sparse_queue<T, false, queue_fetch::l2>>(m, w0, w1, in, out, out_limit);
  avx2_pack_walk<sparse_queue<T, false>>(m, w0, w1, in, out, out_limit);
}

template <class Queue, class T>
void avx2_unpack_walk(const host_mask& m, index_t w0, index_t w1, const T* in, const T* in_end, T* out) {
  constexpr int lanes = 32 / sizeof(T);
  const auto& tab = lane_tables<lanes>::get();
  const __m256i bits = _mm256_load_si256(reinterpret_cast<const __m256i*>(tab.bit[0].data()));
  Queue queue(out);
  walk_words(
      m, w0, w1, queue, [&] { in = queue.scatter(in, out); },
      [&](index_t j, std::uint64_t w) {
        T* dst = out + 64 * j;
        if (w == ~std::uint64_t(0)) {
          for (int b = 0; b < 64; b += lanes)
            _mm256_storeu_si256(reinterpret_cast<__m256i*>(dst + b),
                                _mm256_loadu_si256(reinterpret_cast<const __m256i*>(in + b)));
          in += 64;
          return;
        }
        const bool tail = 64 * j + 64 > m.n;  // no vector writes past n
        for (int b = 0; b < 64; b += lanes) {
          const unsigned g = static_cast<unsigned>(w >> b) & ((1u << lanes) - 1);
          if (g == 0) continue;
          if (!tail && in + lanes <= in_end) {
            const __m256i idx =
                _mm256_cvtepu8_epi32(_mm_loadl_epi64(reinterpret_cast<const __m128i*>(tab.expand[g].data())));
            const __m256i v =
                _mm256_permutevar8x32_epi32(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(in)), idx);
            const __m256i sel =
                _mm256_cmpeq_epi32(_mm256_and_si256(_mm256_set1_epi32(static_cast<int>(g)), bits), bits);
            const __m256i cur = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(dst + b));
            _mm256_storeu_si256(reinterpret_cast<__m256i*>(dst + b), _mm256_blendv_epi8(cur, v, sel));
            in += _mm_popcnt_u32(g);
          } else {
            for (unsigned h = g; h != 0; h &= h - 1) dst[b + __builtin_ctz(h)] = *in++;
          }
        }
      });
}

template <class T>
void avx2_unpack_words(const host_mask& m, index_t w0, index_t w1, const T* in, const T* in_end, T* out) {
  if (sparser_than(in_end - in, 64 * (w1 - w0), avx2_unfetched_permille))
    return avx2_unpack_walk<sparse_queue<T, true, queue_fetch::none>>(m, w0, w1, in, in_end, out);
  if (sparser_than(in_end - in, 64 * (w1 - w0), avx2_l2_fetch_permille))
    return avx2_unpack_walk<sparse_queue<T, true, queue_fetch::l2>>(m, w0, w1, in, in_end, out);
  avx2_unpack_walk<sparse_queue<T, true>>(m, w0, w1, in, in_end, out);
}
#pragma GCC pop_options

#pragma GCC push_options
#pragma GCC target("avx512f,avx2,popcnt,bmi")
/// One 64-byte vector of 4- or 8-byte elements under a lane mask.
template <class T>
struct avx512_moves {
  static constexpr int lanes = 64 / static_cast<int>(sizeof(T));
  static constexpr unsigned all = (1u << lanes) - 1;
  static __m512i load(unsigned k, const T* p) {
    if constexpr (sizeof(T) == 4) return _mm512_maskz_loadu_epi32(static_cast<__mmask16>(k), p);
    else return _mm512_maskz_loadu_epi64(static_cast<__mmask8>(k), p);
  }
  static void store(T* p, unsigned k, __m512i v) {
    if constexpr (sizeof(T) == 4) _mm512_mask_storeu_epi32(p, static_cast<__mmask16>(k), v);
    else _mm512_mask_storeu_epi64(p, static_cast<__mmask8>(k), v);
  }
  /// The lanes set in k, moved to the front.
  static __m512i compress(unsigned k, __m512i v) {
    if constexpr (sizeof(T) == 4) return _mm512_maskz_compress_epi32(static_cast<__mmask16>(k), v);
    else return _mm512_maskz_compress_epi64(static_cast<__mmask8>(k), v);
  }
  /// The front lanes of v, sent to the lanes set in k.
  static __m512i expand(unsigned k, __m512i v) {
    if constexpr (sizeof(T) == 4) return _mm512_maskz_expand_epi32(static_cast<__mmask16>(k), v);
    else return _mm512_maskz_expand_epi64(static_cast<__mmask8>(k), v);
  }
  /// The front lanes of v, sent to the lanes set in k; the others from old.
  static __m512i expand_into(__m512i old, unsigned k, __m512i v) {
    if constexpr (sizeof(T) == 4) return _mm512_mask_expand_epi32(old, static_cast<__mmask16>(k), v);
    else return _mm512_mask_expand_epi64(old, static_cast<__mmask8>(k), v);
  }
};

/// Packs the set positions of w from src (64 elements) to out, one vector
/// of lanes at a time: a masked load (no read of a lane past n), compress,
/// and a full store unless it would pass out_limit.
template <class T>
inline void avx512_pack_word(std::uint64_t w, const T* src, T*& out, T* out_limit) {
  using mv = avx512_moves<T>;
  for (int b = 0; b < 64; b += mv::lanes) {
    const unsigned k = static_cast<unsigned>(w >> b) & mv::all;
    const __m512i v = mv::compress(k, mv::load(k, src + b));
    const int c = _mm_popcnt_u32(k);
    if (out + mv::lanes <= out_limit) {
      _mm512_storeu_si512(out, v);
    } else {
      mv::store(out, (1u << c) - 1, v);
    }
    out += c;
  }
}

/// Sends the next packed elements from in to the set positions of w in dst
/// (64 elements). When the word lies wholly below n (`whole`), each vector
/// of dst is loaded, merged and stored whole: the load fetches the line
/// early, where a masked store's read for ownership waits for the store to
/// leave the store buffer (bench_bitmask's unpack at 10%, 2^26 int32: 30-32
/// ms with masked stores). Otherwise the other positions are not written
/// (masked stores).
template <class T>
inline void avx512_unpack_word(std::uint64_t w, const T*& in, const T* in_end, T* dst, bool whole) {
  using mv = avx512_moves<T>;
  const T* p = in;
  for (int b = 0; b < 64; b += mv::lanes) {
    const unsigned k = static_cast<unsigned>(w >> b) & mv::all;
    const int c = _mm_popcnt_u32(k);
    const __m512i v = p + mv::lanes <= in_end ? _mm512_loadu_si512(p) : mv::load((1u << c) - 1, p);
    if (whole) {
      _mm512_storeu_si512(dst + b, mv::expand_into(_mm512_loadu_si512(dst + b), k, v));
    } else {
      mv::store(dst + b, k, mv::expand(k, v));
    }
    p += c;
  }
  in = p;
}

#pragma GCC pop_options

#pragma GCC push_options
#pragma GCC target("avx512f,avx512bw,avx512vbmi2,avx2,popcnt,bmi")
/// The sparse queue where the CPU has AVX-512 VBMI2: the positions of a
/// word's set bits are one byte compress of 0..63 under the word, widened
/// to 64 bits by a byte expand and stored eight at a time, so a word takes
/// neither a loop nor a branch. Each step of the walk (a word or a group)
/// then fetches the lines of the next fetch_per_step queued positions into
/// L1 (for writing when Write), so the lines arrive while the walk goes on
/// and the moves at flush find them cached. On the 2-vCPU Emerald Rapids VM,
/// bench_bitmask's rank_select at 2^26 int32 took these times in two
/// alternated runs (benchmarks/results/cpu-2core-xeon-emr/
/// bitmask_walk_fetch_ab/):
/// at 1%, 1.36-1.37 ms to pack and 1.45-1.47 ms to unpack, and at 4%,
/// 3.61-3.62 and 3.79-4.12 ms. When no line was fetched until flush (and
/// the moves then prefetched into L2, 48 positions ahead) the same rows
/// took 1.76-1.84 and 1.89-1.93 ms at 1%, and 4.01-4.05 and 4.32-4.36 ms at
/// 4%. Two and four fetches per step ran as fast or slower, six slower,
/// and fetches into L2 slower. This form is not measured on the 2-core
/// EPYC (Zen 5), where fetching at flush into L2 had run faster than into
/// L1. (The loop of the AVX2 queue mispredicts its exit on words of two or
/// more bits; on the 2-core EPYC, a prefetch per position inside that loop
/// doubled the time of pack at 1%.)
template <class T, bool Write>
struct compress_queue : sparse_queue<T, Write, queue_fetch::none> {
  using base = sparse_queue<T, Write, queue_fetch::none>;
  using base::base;
  static constexpr int fetch_per_step = 3;
  /// Queued positions whose lines have been fetched.
  int fetched = 0;
  alignas(64) static constexpr std::array<std::uint8_t, 64> iota = [] {
    std::array<std::uint8_t, 64> a{};
    for (int b = 0; b < 64; ++b) a[b] = static_cast<std::uint8_t>(b);
    return a;
  }();
  void append(index_t base, std::uint64_t w) {
    const __m512i bits = _mm512_maskz_compress_epi8(w, _mm512_load_si512(iota.data()));
    // Byte t to byte 8t, zeros between: the first eight, widened to 64 bits.
    const __m512i wide = _mm512_maskz_expand_epi8(0x0101010101010101ull, bits);
    const __m512i p = _mm512_add_epi64(wide, _mm512_set1_epi64(base));
    _mm512_storeu_si512(this->pos + this->size, p);  // sparse_bits <= 8 positions
    this->size += static_cast<int>(_mm_popcnt_u64(w));
    fetch_queued();
  }
  /// Fetches the lines of the next fetch_per_step queued positions, each
  /// index clamped to the last queued position (fetched again rather than
  /// branched around). pos[size - 1] and pos[0] are always written: an
  /// empty word's store fills its eight slots with its base.
  void fetch_queued() {
    const int last = this->size > 0 ? this->size - 1 : 0;
    for (int k = 0; k < fetch_per_step; ++k) {
      const int u = fetched + k < last ? fetched + k : last;
      __builtin_prefetch(this->target + this->pos[u], Write ? 1 : 0, 3);
    }
    fetched = fetched + fetch_per_step < this->size ? fetched + fetch_per_step : this->size;
  }
  T* gather(const T* in, T* out) {
    fetched = 0;
    return base::gather(in, out);
  }
  const T* scatter(const T* in, T* out) {
    fetched = 0;
    return base::scatter(in, out);
  }
};

/// The queue for ranges below group_permille: the walk offers it groups of
/// Words words (4 or 8; a type of its own, so that denser ranges run the
/// walk compiled without the offer).
template <class T, bool Write, int Words>
struct group_queue : compress_queue<T, Write> {
  static_assert(Words == 4 || Words == 8);
  using compress_queue<T, Write>::compress_queue;
  static constexpr int group_words = Words;
  /// Appends the set bits of Words words (the 64 x Words mask bits at
  /// `words`, positions from base) when no byte of them has two set bits,
  /// and returns false, appending nothing, otherwise. Each set bit is then
  /// the only one of its byte, at 8 x the byte's index + the bit's place in
  /// the byte: one compress of the nonzero bytes and one of their indices,
  /// the place by two nibble lookups, widened eight positions to a store.
  /// (Up to 8 x Words positions: the walk empties the queue above
  /// capacity - 64.)
  bool append_group(index_t base, const std::uint32_t* words) {
    // Masked forms throughout: GCC 12 warns of the unmasked ones' undefined
    // pass-through operand.
    const __m512i g = _mm512_maskz_loadu_epi64(static_cast<__mmask8>((1u << Words) - 1), words);
    const __m512i one_bit_off = _mm512_and_si512(g, _mm512_sub_epi8(g, _mm512_set1_epi8(1)));
    if (_mm512_test_epi8_mask(one_bit_off, one_bit_off) != 0) return false;
    // The place of a nibble's one bit (0 for none), per 128-bit lane.
    alignas(64) static constexpr std::array<std::uint8_t, 64> low_place = [] {
      std::array<std::uint8_t, 64> a{};
      for (int l = 0; l < 64; l += 16) a[l + 2] = 1, a[l + 4] = 2, a[l + 8] = 3;
      return a;
    }();
    alignas(64) static constexpr std::array<std::uint8_t, 64> high_place = [] {
      std::array<std::uint8_t, 64> a{};
      for (int l = 0; l < 64; l += 16) a[l + 1] = 4, a[l + 2] = 5, a[l + 4] = 6, a[l + 8] = 7;
      return a;
    }();
    const __mmask64 nonzero = _mm512_test_epi8_mask(g, g);
    const __m512i bytes = _mm512_maskz_compress_epi8(nonzero, g);
    const __m512i index = _mm512_maskz_compress_epi8(nonzero, _mm512_load_si512(this->iota.data()));
    const __m512i nibble = _mm512_set1_epi8(15);
    const __m512i place =
        _mm512_add_epi8(_mm512_shuffle_epi8(_mm512_load_si512(low_place.data()), _mm512_and_si512(bytes, nibble)),
                        _mm512_shuffle_epi8(_mm512_load_si512(high_place.data()),
                                            _mm512_and_si512(_mm512_srli_epi16(bytes, 4), nibble)));
    const int count = static_cast<int>(_mm_popcnt_u64(nonzero));
    const __m512i b = _mm512_set1_epi64(base);
    if constexpr (Words == 4) {
      // index < 32, so 8 x index + place fits a byte.
      const __m512i within =
          _mm512_add_epi8(_mm512_and_si512(_mm512_slli_epi16(index, 3), _mm512_set1_epi8(-8)), place);
      alignas(64) std::uint8_t at[64];
      _mm512_store_si512(at, within);
      for (int t = 0; t < count; t += 8) {  // count >= 1: the walk skips clear groups
        const __m128i eight = _mm_loadl_epi64(reinterpret_cast<const __m128i*>(at + t));
        _mm512_storeu_si512(this->pos + this->size + t, _mm512_add_epi64(_mm512_maskz_cvtepu8_epi64(0xff, eight), b));
      }
    } else {
      // index < 64: index and place are widened apart, eight at a time.
      alignas(64) std::uint8_t at_index[64];
      alignas(64) std::uint8_t at_place[64];
      _mm512_store_si512(at_index, index);
      _mm512_store_si512(at_place, place);
      for (int t = 0; t < count; t += 8) {
        const __m512i i8 =
            _mm512_maskz_cvtepu8_epi64(0xff, _mm_loadl_epi64(reinterpret_cast<const __m128i*>(at_index + t)));
        const __m512i p8 =
            _mm512_maskz_cvtepu8_epi64(0xff, _mm_loadl_epi64(reinterpret_cast<const __m128i*>(at_place + t)));
        const __m512i at = _mm512_add_epi64(_mm512_maskz_slli_epi64(0xff, i8, 3), p8);
        _mm512_storeu_si512(this->pos + this->size + t, _mm512_add_epi64(at, b));
      }
    }
    this->size += count;
    this->fetch_queued();
    return true;
  }
};
static_assert(sparse_bits <= 8);

/// Ranges with fewer set bits per thousand than this offer the VBMI2 queue
/// groups of four words: at 1% density 92% of groups have no byte with two
/// set bits, at 4% only 8%, and a group it declines costs a test. On the
/// 2-core EPYC (Zen 5), bench_bitmask's rank_select at 2^26 int32, four
/// alternated runs each (benchmarks/results/cpu-2core-epyc/
/// bitmask_vbmi2_group_ab/): with groups below this density, at 1% pack
/// took 3.4-3.9 ms against 3.8-5.1 word by word and unpack 3.2-3.8 against
/// 4.1-4.9, faster in every pair; offered at every density below 6%, the
/// 4% rows ran slower in three of four pairs. On a 2-vCPU Xeon (AVX-512
/// VBMI2) pack at 4% ran 11-15% slower when the offer was a flag tested in
/// the one walk, so denser ranges walk with compress_queue, whose walk has
/// no offer (-1% to +8% then; benchmarks/results/cpu-2core-xeon-m167/
/// bitmask_vbmi2_group_ab/).
inline constexpr int group_permille = 25;
/// Ranges with fewer set bits per thousand than this take groups of eight
/// words: at 0.5% a quarter of the groups of four are clear, a branch the
/// walk mispredicts, against 8% of the groups of eight, while from 2% up
/// the groups of eight are declined too often (a byte with two set bits in
/// 48% of them at 2%). On the 2-vCPU Emerald Rapids VM, rank_select at 2^26
/// int32, two alternated runs against groups of four at every density
/// below group_permille (benchmarks/results/cpu-2core-xeon-emr/
/// bitmask_group8_ab/): at 0.5% pack took 0.75-0.77 ms against 1.09-1.13
/// and unpack 0.77 against 1.13-1.17; at 1% 1.22-1.29 against 1.32-1.38 and
/// 1.31-1.38 against 1.42-1.45. In the trials before, groups of eight tied
/// at 1.5% and ran 2-4% slower at 2%.
inline constexpr int wide_group_permille = 15;

#define SWEEP_BITMASK_WALK_LEVEL walk_vbmi2
#include <sweep/host/bitmask_walk_body.hpp>
#undef SWEEP_BITMASK_WALK_LEVEL

template <class T, class Queue>
void vbmi2_pack_walk(const host_mask& m, index_t w0, index_t w1, const T* in, T* out, T* out_limit) {
  Queue queue(in);
  walk_vbmi2::walk_words(
      m, w0, w1, queue, [&] { out = queue.gather(in, out); },
      [&](index_t j, std::uint64_t w) { avx512_pack_word(w, in + 64 * j, out, out_limit); });
}

template <class T>
void vbmi2_pack_sparse(const host_mask& m, index_t w0, index_t w1, const T* in, T* out, T* out_limit) {
  if (1000 * (out_limit - out) < wide_group_permille * 64 * (w1 - w0))
    vbmi2_pack_walk<T, group_queue<T, false, 8>>(m, w0, w1, in, out, out_limit);
  else if (1000 * (out_limit - out) < group_permille * 64 * (w1 - w0))
    vbmi2_pack_walk<T, group_queue<T, false, 4>>(m, w0, w1, in, out, out_limit);
  else
    vbmi2_pack_walk<T, compress_queue<T, false>>(m, w0, w1, in, out, out_limit);
}

template <class T, class Queue>
void vbmi2_unpack_walk(const host_mask& m, index_t w0, index_t w1, const T* in, const T* in_end, T* out) {
  Queue queue(out);
  walk_vbmi2::walk_words(
      m, w0, w1, queue, [&] { in = queue.scatter(in, out); },
      [&](index_t j, std::uint64_t w) { avx512_unpack_word(w, in, in_end, out + 64 * j, 64 * j + 64 <= m.n); });
}

template <class T>
void vbmi2_unpack_sparse(const host_mask& m, index_t w0, index_t w1, const T* in, const T* in_end, T* out) {
  if (1000 * (in_end - in) < wide_group_permille * 64 * (w1 - w0))
    vbmi2_unpack_walk<T, group_queue<T, true, 8>>(m, w0, w1, in, in_end, out);
  else if (1000 * (in_end - in) < group_permille * 64 * (w1 - w0))
    vbmi2_unpack_walk<T, group_queue<T, true, 4>>(m, w0, w1, in, in_end, out);
  else
    vbmi2_unpack_walk<T, compress_queue<T, true>>(m, w0, w1, in, in_end, out);
}
#pragma GCC pop_options

#pragma GCC push_options
#pragma GCC target("avx512f,avx2,popcnt,bmi")
/// Ranges with at least this many set bits per thousand (and fewer than
/// avx512_dense_permille) move every word through the vector moves;
/// sparser ones walk the words, queue those with at most sparse_bits set
/// and move the others a vector at a time (at 4% the queue reads only the
/// lines that hold a set bit: bench_bitmask's pack and unpack at 2^26 took
/// 10-11 ms through it, 13-22 ms moving every word; at 10% the vector
/// moves are the faster).
inline constexpr int avx512_stream_permille = 60;
/// Ranges with at least this many set bits per thousand take the AVX2
/// moves (block copies of full words, lane permutations of the others):
/// from 75% density up they ran faster than vpcompress and vpexpand
/// (bench_bitmask at 2^26 int32 on a Xeon: pack and unpack 18-24 against
/// 23-31 ms); at 50% pack took 16-17 ms with vpcompress, 18 without.
inline constexpr int avx512_dense_permille = 600;

/// How the AVX-512 kernels move a range of `bits` mask bits with `ones`
/// set: through the sparse queue, every word through the vector moves, or
/// through the AVX2 moves (the density bands above).
enum class avx512_band { queue, vector, avx2 };
inline avx512_band avx512_band_of(index_t ones, index_t bits) {
  if (1000 * ones >= avx512_dense_permille * bits) return avx512_band::avx2;
  if (1000 * ones >= avx512_stream_permille * bits) return avx512_band::vector;
  return avx512_band::queue;
}

template <class T>
void avx512_pack_words(const host_mask& m, index_t w0, index_t w1, const T* in, T* out, T* out_limit) {
  const avx512_band band = avx512_band_of(out_limit - out, 64 * (w1 - w0));
  if (band == avx512_band::avx2) return avx2_pack_words(m, w0, w1, in, out, out_limit);
  if (band == avx512_band::vector) {
    for (index_t j = w0; j < w1; ++j) avx512_pack_word(m.word(j), in + 64 * j, out, out_limit);
    return;
  }
  if (host::uses_avx512_vbmi2()) return vbmi2_pack_sparse(m, w0, w1, in, out, out_limit);
  sparse_queue<T, false> queue(in);
  const auto flush = [&] { out = queue.gather(in, out); };
  const auto dense = [&](index_t j, std::uint64_t w) { avx512_pack_word(w, in + 64 * j, out, out_limit); };
  walk_words(m, w0, w1, queue, flush, dense);
}

template <class T>
void avx512_unpack_words(const host_mask& m, index_t w0, index_t w1, const T* in, const T* in_end, T* out) {
  const avx512_band band = avx512_band_of(in_end - in, 64 * (w1 - w0));
  if (band == avx512_band::avx2) return avx2_unpack_words(m, w0, w1, in, in_end, out);
  if (band == avx512_band::vector) {
    for (index_t j = w0; j < w1; ++j) avx512_unpack_word(m.word(j), in, in_end, out + 64 * j, 64 * j + 64 <= m.n);
    return;
  }
  if (host::uses_avx512_vbmi2()) return vbmi2_unpack_sparse(m, w0, w1, in, in_end, out);
  sparse_queue<T, true> queue(out);
  const auto flush = [&] { in = queue.scatter(in, out); };
  const auto dense = [&](index_t j, std::uint64_t w) {
    avx512_unpack_word(w, in, in_end, out + 64 * j, 64 * j + 64 <= m.n);
  };
  walk_words(m, w0, w1, queue, flush, dense);
}
#pragma GCC pop_options
#endif

template <class T>
inline constexpr bool host_vector_movable_v =
    std::is_trivially_copyable_v<T> && (sizeof(T) == 4 || sizeof(T) == 8);

/// Packs the set positions of words [w0, w1) of `m` from `in` (the whole
/// expanded array) to `out` (the range's first packed slot); `out_limit`
/// ends the range's packed slots (vector stores never pass it).
template <class T>
void host_pack_words(const host_mask& m, index_t w0, index_t w1, const T* in, T* out, T* out_limit) {
#if SWEEP_HOST_MULTI
  if constexpr (host_vector_movable_v<T>) {
    if (host::uses(host::isa::avx512)) return avx512_pack_words(m, w0, w1, in, out, out_limit);
    if (host::uses(host::isa::avx2)) return avx2_pack_words(m, w0, w1, in, out, out_limit);
  }
#endif
  (void)out_limit;
  scalar_pack_words(m, w0, w1, in, out);
}

/// Scatters packed elements from `in` (the range's first) to the set
/// positions of words [w0, w1) of `out` (the whole expanded array);
/// `in_end` ends the range's packed elements (vector loads never pass it).
template <class T>
void host_unpack_words(const host_mask& m, index_t w0, index_t w1, const T* in, const T* in_end, T* out) {
#if SWEEP_HOST_MULTI
  if constexpr (host_vector_movable_v<T>) {
    if (host::uses(host::isa::avx512)) return avx512_unpack_words(m, w0, w1, in, in_end, out);
    if (host::uses(host::isa::avx2)) return avx2_unpack_words(m, w0, w1, in, in_end, out);
  }
#endif
  (void)in_end;
  scalar_unpack_words(m, w0, w1, in, out);
}

}  // namespace sweep::detail
