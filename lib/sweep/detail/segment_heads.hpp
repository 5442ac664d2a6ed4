// Device-callable "does element i start a segment?" for each segment
// representation, and the element-blocked walk over segment offsets that
// turns offsets into head bits or per-element segment ids without a
// per-segment loop (one huge segment among many tiny ones costs the same
// as any other split of n elements).
#pragma once

#include <sweep/core.hpp>
#include <sweep/detail/space.hpp>
#include <sweep/tuning.hpp>

#include <cstdint>
#include <cstring>
#include <string>
#include <type_traits>

namespace sweep::detail {

// Besides head(i), each has host-only helpers for the CPU vector path
// (contiguous Views): first_head(b, e, ahead), the first head in [b, e)
// or e, reading 8 to 32 heads at a time and prefetching the description
// `ahead` elements on (0: none), and (bits and keys, whose vector path
// may fall back to it) bits(i, n), the head bits of elements i..i+7
// (fewer at the end; bit k = element i+k). Byte flags go to the vector
// kernels directly.

/// Asks for the cache line at p in every cache level (first_head's
/// look-ahead: a head description read `ahead` elements on, the chunk the
/// calling thread is likely to take next, so its own fold does not wait on
/// memory for it).
inline void prefetch_line([[maybe_unused]] const void* p) {
#if defined(__GNUC__) || defined(__clang__)
  __builtin_prefetch(p, 0, 3);
#endif
}

template <class View>
bool dense(const View& v) {
  return v.span_is_contiguous() && (v.extent(0) < 2 || v.stride(0) == 1);
}

/// Byte (or any integral) flags: nonzero starts a segment; element 0
/// always starts one.
template <class View>
struct flag_heads {
  View flags;
  KOKKOS_INLINE_FUNCTION bool operator()(index_t i) const { return i == 0 || flags(i) != 0; }

  static constexpr bool bytes = sizeof(typename View::value_type) == 1;
  bool host_fast() const { return bytes && dense(flags); }
  /// Flags wider than a byte never take the vector path (host_fast), but
  /// the vector kernels' generic head source is compiled for them too.
  std::uint32_t bits(index_t i, index_t n) const {
    std::uint32_t b = i == 0 ? 1u : 0u;
    for (index_t j = 0; j < 8 && i + j < n; ++j) b |= std::uint32_t(flags(i + j) != 0) << j;
    return b;
  }
  index_t first_head(index_t b, index_t e, index_t ahead = 0) const {
    if (b == 0) return 0;
    index_t j = b;
    const index_t far = static_cast<index_t>(flags.extent(0)) - ahead;
    for (; j + 32 <= e; j += 32) {
      if (ahead > 0 && j < far) prefetch_line(flags.data() + j + ahead);
      std::uint64_t x[4];
      std::memcpy(x, flags.data() + j, 32);
      if ((x[0] | x[1]) | (x[2] | x[3])) break;
    }
    for (; j + 8 <= e; j += 8) {
      std::uint64_t x;
      std::memcpy(&x, flags.data() + j, 8);
      if (x) break;
    }
    for (; j < e; ++j)
      if (flags(j) != 0) return j;
    return e;
  }
};

/// Bit-packed flags: bit i%32 of word i/32.
template <class View>
struct bit_heads {
  View words;
  KOKKOS_INLINE_FUNCTION bool operator()(index_t i) const {
    return i == 0 || ((words(i >> 5) >> (i & 31)) & 1u) != 0;
  }

  bool host_fast() const { return dense(words); }
  std::uint32_t bits(index_t i, index_t n) const {
    const index_t w = i >> 5;
    std::uint64_t x = words(w);
    if ((i & 31) > 24 && (w + 1) * 32 < n) x |= static_cast<std::uint64_t>(words(w + 1)) << 32;
    std::uint32_t b = static_cast<std::uint32_t>(x >> (i & 31)) & 0xffu;
    if (i + 8 > n) b &= (1u << (n - i)) - 1u;
    return i == 0 ? (b | 1u) : b;
  }
  index_t first_head(index_t b, index_t e, index_t ahead = 0) const {
    if (b == 0) return 0;
    index_t j = b;
    const index_t far = static_cast<index_t>(words.extent(0)) * 32 - ahead;
    while (j < e) {
      const index_t w = j >> 5;
      // A cache line holds 16 words (512 elements): one prefetch per line.
      if (ahead > 0 && (w & 15) == 0 && j < far) prefetch_line(words.data() + ((j + ahead) >> 5));
      std::uint32_t x = words(w) >> (j & 31);
      const index_t span = 32 - (j & 31);
      if (x) {
        const index_t at = j + __builtin_ctz(x);
        return at < e ? at : e;
      }
      j += span;
    }
    return e;
  }
};

/// Keys: a segment starts wherever the key differs from its predecessor.
template <class View>
struct key_heads {
  using key_type = std::remove_cv_t<typename View::value_type>;
  View keys;
  KOKKOS_INLINE_FUNCTION bool operator()(index_t i) const { return i == 0 || !(keys(i) == keys(i - 1)); }

  bool host_fast() const { return dense(keys); }
  std::uint32_t bits(index_t i, index_t n) const {
    std::uint32_t b = i == 0 ? 1u : 0u;
    const auto* k = keys.data();
    for (index_t j = i == 0 ? 1 : 0; j < 8 && i + j < n; ++j) b |= std::uint32_t(!(k[i + j] == k[i + j - 1])) << j;
    return b;
  }
  index_t first_head(index_t b, index_t e, index_t ahead = 0) const {
    if (b == 0) return 0;
    const auto* k = keys.data();
    index_t j = b;
    const index_t far = static_cast<index_t>(keys.extent(0)) - ahead;
    // 32 comparisons without an early exit vectorise (integers: XOR).
    for (; j + 32 <= e; j += 32) {
      if (ahead > 0 && j < far)
        for (std::size_t line = 0; line < 32 * sizeof(key_type); line += 64)
          prefetch_line(reinterpret_cast<const char*>(k + j + ahead) + line);
      if constexpr (std::is_integral_v<key_type>) {
        key_type any = 0;
        for (int t = 0; t < 32; ++t) any |= k[j + t] ^ k[j + t - 1];
        if (any) break;
      } else {
        unsigned any = 0;
        for (int t = 0; t < 32; ++t) any |= !(k[j + t] == k[j + t - 1]);
        if (any) break;
      }
    }
    for (; j < e; ++j)
      if (!(k[j] == k[j - 1])) return j;
    return e;
  }
};

/// Elements per block of the offset walks.
inline constexpr index_t offset_walk_block = 8192;

/// First s in [0, count) with offsets(s) > x, or count.
template <class View>
KOKKOS_INLINE_FUNCTION index_t upper_bound(const View& offsets, index_t count, index_t x) {
  index_t lo = 0, hi = count;
  while (lo < hi) {
    const index_t mid = lo + (hi - lo) / 2;
    if (static_cast<index_t>(offsets(mid)) <= x) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/// One walk of to_bits_checked (below) over blocks [b0, b1) of nblocks:
/// finds its first offset, runs `walk_blocks(b0, b1, s)` (writes the
/// blocks' words from offset s on, leaves s at the first offset at or past
/// the walk's end, returns false when the offsets fell), and checks where
/// it stopped. Returns the walk's part of the verdict: nseg + 1 when
/// anything failed, else for the last walk where it stopped, else 0.
template <class View, class WalkBlocks>
KOKKOS_INLINE_FUNCTION index_t offset_walk(const View& offsets, index_t nseg, index_t n, index_t nblocks, index_t per,
                                           index_t walk, index_t nwalks, const WalkBlocks& walk_blocks) {
  const index_t b0 = walk * per;
  const index_t b1 = b0 + per < nblocks ? b0 + per : nblocks;
  index_t s = upper_bound(offsets, nseg, b0 * offset_walk_block - 1);
  bool bad = walk == 0 && s != 0;
  if (!bad && !walk_blocks(b0, b1, s)) bad = true;
  const index_t end = b1 * offset_walk_block < n ? b1 * offset_walk_block : n;
  if (!bad && s != upper_bound(offsets, nseg, end - 1)) bad = true;
  return bad ? nseg + 1 : (walk == nwalks - 1 ? s : 0);
}

/// Head bits of n elements from nseg+1 offsets whose first entry is 0 and
/// last n, into `words` ((n + 31) / 32 of them), checking on the way that
/// the offsets never decrease (one read of the offsets serves both). The
/// elements go in blocks of offset_walk_block, a thread's walk covers
/// tuning<>::segments::offset_walk_blocks of them: it finds its first
/// offset by binary search and walks on to the first offset at or past
/// its end. The walks cover every offset below n exactly once, in order,
/// when each walk (a) sees its own offsets rise from its first element,
/// (b) stops where the next walk's search starts, and the first walk
/// starts at offset 0; the offsets past the last walk (trailing empty
/// segments) must all equal n. to_bits_checked returns nseg + 1 when (a)
/// or (b) fails anywhere, else where the trailing entries start (nseg when
/// there are none): the caller checks those and reports.
///
/// The dispatch point of the conversion: the primary template is the
/// portable walk; lib/sweep/host/offsets_backend.hpp marks the heads in a
/// byte map on host spaces. Same words and the same result either way.
template <class ExecSpace, class Kind = space_kind_t<ExecSpace>>
struct offsets_backend {
  template <class OffsetView, class WordView>
  static index_t to_bits_checked(const ExecSpace& space, const OffsetView& offsets, index_t n, const WordView& words,
                                 const std::string& label) {
    const index_t nwords = (n + 31) / 32;
    const index_t nseg = static_cast<index_t>(offsets.extent(0)) - 1;
    constexpr index_t block_words = offset_walk_block / 32;
    const index_t nblocks = (nwords + block_words - 1) / block_words;
    if (nblocks == 0) return 0;
    const index_t per = tuning<ExecSpace>::segments::offset_walk_blocks(space, nblocks);
    const index_t nwalks = (nblocks + per - 1) / per;
    index_t result = 0;
    Kokkos::parallel_reduce(
        label + "::offsets_to_bits", sweep::detail::range_policy<ExecSpace>(space, 0, nwalks),
        KOKKOS_LAMBDA(const index_t walk, index_t& worst) {
          const auto walk_blocks = [&](index_t b0, index_t b1, index_t& s) {
            for (index_t blk = b0; blk < b1; ++blk) {
              const index_t w0 = blk * block_words;
              const index_t w1 = (w0 + block_words) < nwords ? (w0 + block_words) : nwords;
              const index_t e0 = w0 * 32;
              const index_t e1 = (w1 * 32) < n ? (w1 * 32) : n;
              // The block's bits go to a local buffer. Offsets come in
              // order: the word being filled is carried in a register and
              // stored after every offset, so the last store to a word
              // holds all its bits and no OR waits on the store before it.
              // `prev` starts at the block's first element, so an offset
              // below it (a decrease, or a search misled by one) stops the
              // walk before it could index outside the buffer.
              std::uint32_t bits[block_words];
              for (index_t w = 0; w < w1 - w0; ++w) bits[w] = 0;
              index_t prev = e0, word = -1;
              std::uint32_t acc = 0;
              for (; s < nseg; ++s) {
                const index_t o = static_cast<index_t>(offsets(s));
                if (o < prev) return false;
                if (o >= e1) break;
                const index_t w = o >> 5;
                // acc kept (mask all ones) or dropped (zero) without a
                // branch: the word changes at random for short segments.
                acc = (acc & (std::uint32_t(0) - static_cast<std::uint32_t>(w == word))) |
                      (std::uint32_t(1) << (o & 31));
                bits[w - w0] = acc;
                word = w;
                prev = o;
              }
              for (index_t w = w0; w < w1; ++w) words(w) = bits[w - w0];
            }
            return true;
          };
          const index_t mine = offset_walk(offsets, nseg, n, nblocks, per, walk, nwalks, walk_blocks);
          if (mine > worst) worst = mine;
        },
        Kokkos::Max<index_t>(result));
    return result;
  }
};

/// ids(i) = the segment (index into offsets) that holds element i.
template <class ExecSpace, class OffsetView, class IdView>
void offsets_to_ids(const ExecSpace& space, const OffsetView& offsets, index_t n, const IdView& ids,
                    const std::string& label) {
  const index_t nseg = static_cast<index_t>(offsets.extent(0)) - 1;
  const index_t nblocks = (n + offset_walk_block - 1) / offset_walk_block;
  using Id = typename IdView::non_const_value_type;
  Kokkos::parallel_for(
      label + "::offsets_to_ids", sweep::detail::range_policy<ExecSpace>(space, 0, nblocks),
      KOKKOS_LAMBDA(const index_t blk) {
        const index_t b = blk * offset_walk_block;
        const index_t e = (b + offset_walk_block) < n ? (b + offset_walk_block) : n;
        index_t s = upper_bound(offsets, nseg, b) - 1;  // last segment starting at or before b
        for (index_t i = b; i < e; ++i) {
          while (static_cast<index_t>(offsets(s + 1)) <= i) ++s;
          ids(i) = static_cast<Id>(s);
        }
      });
}

}  // namespace sweep::detail

#define SWEEP_DISPATCH_OFFSETS
#include <sweep/backend.hpp>
