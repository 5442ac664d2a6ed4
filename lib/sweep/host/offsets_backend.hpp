// Segment offsets to head bits on host spaces: one thread walks several
// blocks of elements (tuning<>::segments::offset_walk_blocks) through a
// byte map. The portable walk ORs each offset's bit into the word it
// carries, a dependency from one offset to the next; here each offset
// stores one byte (0x80) at its element's place in a map of the block,
// stores that depend on nothing, and the block's words are read out of
// the map 32 bytes at a time (a byte-sign mask: AVX2 or SSE2), clearing
// it for the next block; a block with few offsets sets their bits
// directly instead. At the AVX-512 level, signed 4- and 8-byte
// offsets are marked eight at a time by one scatter, their rise checked
// by one compare. Words, checks and the returned value are the
// portable walk's (detail/segment_heads.hpp).
//
// The conversion stays a pass of its own. On the 2-vCPU Emerald Rapids VM
// (bench_segmented_scan offsets/8/int32 at 2^26, medians of 3, alternated
// with this pass's binary) three ways around it ran slower: each
// single-pass chunk converting its own offsets as its fold starts, after
// one checking read that finds every chunk's first offset (19.4-19.6 ms
// against 15.9-18.2; prefetching the chunk's input meanwhile included);
// the segmented vector scan taking head bits 64 at a time straight from
// the offsets (20.4-21.0 ms against 14.8-16.3: the checking read alone
// took 3.2-3.4 ms, and with constant head words the scan still took 17.3
// ms against 11.1 for bits); and at the AVX-512 level, words built in
// registers (a variable shift and an OR reduction per eight offsets)
// instead of the scatter into the byte map (the conversion alone on one
// thread: 6.8-7.5 ms against 5.2).
#pragma once

#include <sweep/detail/segment_heads.hpp>
#include <sweep/host/isa.hpp>
#include <sweep/tuning.hpp>

#include <Kokkos_Core.hpp>

#include <cstdint>
#include <type_traits>

namespace sweep::detail {

#if SWEEP_HOST_COMPILER
/// Head words 0..count of a block from its byte map (0x80 where an element
/// starts a segment, else 0), leaving those map bytes zero.
inline void map_to_words_scalar(std::uint8_t* map, std::uint32_t* words, index_t count) {
  for (index_t w = 0; w < count; ++w) {
    std::uint32_t x = 0;
    for (int j = 0; j < 32; ++j) x |= std::uint32_t(map[32 * w + j] >> 7) << j;
    for (int j = 0; j < 32; ++j) map[32 * w + j] = 0;
    words[w] = x;
  }
}

#if SWEEP_HOST_SSE
inline void map_to_words_sse2(std::uint8_t* map, std::uint32_t* words, index_t count) {
  const __m128i zero = _mm_setzero_si128();
  for (index_t w = 0; w < count; ++w) {
    auto* p = reinterpret_cast<__m128i*>(map + 32 * w);
    const auto lo = static_cast<std::uint32_t>(_mm_movemask_epi8(_mm_load_si128(p)));
    const auto hi = static_cast<std::uint32_t>(_mm_movemask_epi8(_mm_load_si128(p + 1)));
    _mm_store_si128(p, zero);
    _mm_store_si128(p + 1, zero);
    words[w] = lo | (hi << 16);
  }
}
#endif

#if SWEEP_HOST_MULTI
#pragma GCC push_options
#pragma GCC target("avx2")
inline void map_to_words_avx2(std::uint8_t* map, std::uint32_t* words, index_t count) {
  const __m256i zero = _mm256_setzero_si256();
  for (index_t w = 0; w < count; ++w) {
    auto* p = reinterpret_cast<__m256i*>(map + 32 * w);
    words[w] = static_cast<std::uint32_t>(_mm256_movemask_epi8(_mm256_load_si256(p)));
    _mm256_store_si256(p, zero);
  }
}
#pragma GCC pop_options
#endif

inline void map_to_words(std::uint8_t* map, std::uint32_t* words, index_t count) {
#if SWEEP_HOST_MULTI
  if (host::uses(host::isa::avx2)) return map_to_words_avx2(map, words, count);
#endif
#if SWEEP_HOST_SSE
  map_to_words_sse2(map, words, count);
#else
  map_to_words_scalar(map, words, count);
#endif
}

#if SWEEP_HOST_MULTI
#pragma GCC push_options
#pragma GCC target("avx512f,avx2")
/// Eight offsets at a time while all eight lie below the block's end e1:
/// one compare checks that they rise (each against its predecessor, the
/// first against `prev`), one scatter marks them. The scatter stores four
/// bytes (0x80 and three zeros) at each offset's place, lane after lane in
/// the order of the offsets, so a mark is overwritten only by a lower
/// offset's zeros, which only a decrease (refused anyway) puts after it;
/// the map holds three spare bytes past the block for the last element's
/// zeros. Leaves `s` at the first group that reaches e1 (the scalar loop
/// goes on from there) and `prev` at the last offset taken.
template <class O>
inline bool mark_offsets_avx512(const O* offsets, index_t nseg, index_t e0, index_t e1, std::uint8_t* map,
                                index_t& s, index_t& prev) {
  constexpr index_t block = offset_walk_block;
  const __m512i end = _mm512_set1_epi64(e1), first = _mm512_set1_epi64(e0);
  const __m512i wrap = _mm512_set1_epi64(block - 1);
  const __m256i mark = _mm256_set1_epi32(0x80);
  __m512i last = _mm512_set1_epi64(prev);
  __mmask8 rise = 0xff;
  for (; s + 8 <= nseg; s += 8) {
    __m512i v;
    if constexpr (sizeof(O) == 8)
      v = _mm512_loadu_si512(offsets + s);
    else
      v = _mm512_maskz_cvtepi32_epi64(0xff, _mm256_loadu_si256(reinterpret_cast<const __m256i*>(offsets + s)));
    if (_mm512_cmplt_epi64_mask(v, end) != 0xff) break;
    rise &= _mm512_cmpge_epi64_mask(v, _mm512_maskz_alignr_epi64(0xff, v, last, 7));
    last = v;
    _mm512_i64scatter_epi32(map, _mm512_and_si512(_mm512_sub_epi64(v, first), wrap), mark, 1);
  }
  alignas(64) std::int64_t lanes[8];  // `last` starts as `prev` in every lane
  _mm512_store_si512(lanes, last);
  prev = lanes[7];
  return rise == 0xff;
}
#pragma GCC pop_options
#endif

/// Offsets the AVX-512 marking takes: signed integers of 4 or 8 bytes.
template <class O>
inline constexpr bool vector_offsets =
    std::is_integral_v<O> && std::is_signed_v<O> && (sizeof(O) == 4 || sizeof(O) == 8);

/// Blocks with at most this many offsets skip reading their words out of
/// the map: setting that many bits one by one costs less than the map's
/// 8192 bytes.
inline constexpr index_t sparse_block_offsets = 32;

/// One thread's walk over blocks [b0, b1): the head words of each block,
/// offsets from `s` on (left at the first offset at or past the walk's
/// end). Returns false when an offset lies below the one before it (or
/// the first below the walk's first element). A stray offset of a
/// decreasing sequence lands somewhere in the map (its place is taken
/// modulo the block), never outside it.
template <class O>
bool walk_offset_blocks(const O* offsets, index_t nseg, index_t n, index_t b0, index_t b1, std::uint32_t* words,
                        index_t& s) {
  constexpr index_t block = offset_walk_block;
  alignas(64) std::uint8_t map[block + 64] = {};
  index_t prev = b0 * block;
  bool rise = true;
#if SWEEP_HOST_MULTI
  const bool wide = vector_offsets<O> && host::uses(host::isa::avx512);
#endif
  for (index_t b = b0; b < b1; ++b) {
    const index_t e0 = b * block;
    const index_t e1 = e0 + block < n ? e0 + block : n;
    const index_t s0 = s;
#if SWEEP_HOST_MULTI
    if constexpr (vector_offsets<O>)
      if (wide) rise &= mark_offsets_avx512(offsets, nseg, e0, e1, map, s, prev);
#endif
    for (; s < nseg; ++s) {
      const auto o = static_cast<index_t>(offsets[s]);
      if (o >= e1) break;
      rise &= o >= prev;
      prev = o;
      map[(o - e0) & (block - 1)] = 0x80;
    }
    const index_t count = (e1 - e0 + 31) / 32;
    if (s - s0 > sparse_block_offsets) {
      map_to_words(map, words + e0 / 32, count);
      continue;
    }
    // Few offsets: zero the block's words and set their bits, clearing
    // only their map bytes (every mark came from one of them). A place past
    // the last block's end is a decrease's (refused), and writes nothing.
    std::uint32_t* const w = words + e0 / 32;
    for (index_t k = 0; k < count; ++k) w[k] = 0;
    for (index_t k = s0; k < s; ++k) {
      const index_t i = (static_cast<index_t>(offsets[k]) - e0) & (block - 1);
      map[i] = 0;
      if (i < e1 - e0) w[i / 32] |= std::uint32_t(1) << (i % 32);
    }
  }
  return rise;
}
#endif

template <class ExecSpace>
struct offsets_backend<ExecSpace, host_kind> : offsets_backend<ExecSpace, portable_kind> {
#if SWEEP_HOST_COMPILER
  template <class OffsetView, class WordView>
  static index_t to_bits_checked(const ExecSpace& space, const OffsetView& offsets, index_t n, const WordView& words,
                                 const std::string& label) {
    using base = offsets_backend<ExecSpace, portable_kind>;
    static_assert(std::is_same_v<typename WordView::non_const_value_type, std::uint32_t>);
    if (!dense(offsets) || !dense(words)) return base::to_bits_checked(space, offsets, n, words, label);
    const index_t nseg = static_cast<index_t>(offsets.extent(0)) - 1;
    const index_t nblocks = (n + offset_walk_block - 1) / offset_walk_block;
    if (nblocks == 0) return 0;
    const index_t per = tuning<ExecSpace>::segments::offset_walk_blocks(space, nblocks);
    const index_t nwalks = (nblocks + per - 1) / per;
    const auto* off = offsets.data();
    std::uint32_t* const out = words.data();
    index_t result = 0;
    Kokkos::parallel_reduce(
        label + "::offsets_to_bits", range_policy<ExecSpace>(space, 0, nwalks),
        [=](const index_t walk, index_t& worst) {
          const index_t mine =
              offset_walk(offsets, nseg, n, nblocks, per, walk, nwalks, [&](index_t b0, index_t b1, index_t& s) {
                return walk_offset_blocks(off, nseg, n, b0, b1, out, s);
              });
          if (mine > worst) worst = mine;
        },
        Kokkos::Max<index_t>(result));
    return result;
  }
#endif
};

}  // namespace sweep::detail
