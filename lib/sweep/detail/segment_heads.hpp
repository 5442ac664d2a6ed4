// Device-callable "does element i start a segment?" for each segment
// representation, and the element-blocked walk over segment offsets that
// turns offsets into head bits or per-element segment ids without a
// per-segment loop (one huge segment among many tiny ones costs the same
// as any other split of n elements).
#pragma once

#include <sweep/core.hpp>

#include <cstdint>

namespace sweep::detail {

/// Byte (or any integral) flags: nonzero starts a segment; element 0
/// always starts one.
template <class View>
struct flag_heads {
  View flags;
  KOKKOS_INLINE_FUNCTION bool operator()(index_t i) const { return i == 0 || flags(i) != 0; }
};

/// Bit-packed flags: bit i%32 of word i/32.
template <class View>
struct bit_heads {
  View words;
  KOKKOS_INLINE_FUNCTION bool operator()(index_t i) const {
    return i == 0 || ((words(i >> 5) >> (i & 31)) & 1u) != 0;
  }
};

/// Keys: a segment starts wherever the key differs from its predecessor.
template <class View>
struct key_heads {
  View keys;
  KOKKOS_INLINE_FUNCTION bool operator()(index_t i) const { return i == 0 || !(keys(i) == keys(i - 1)); }
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

/// Head bits of n elements from nseg+1 valid offsets: each block of 32*256
/// elements finds its first offset by binary search and walks on.
template <class ExecSpace, class OffsetView>
Kokkos::View<std::uint32_t*, typename ExecSpace::memory_space> offsets_to_bits(const ExecSpace& space,
                                                                               const OffsetView& offsets,
                                                                               index_t n, const std::string& label) {
  const index_t nwords = (n + 31) / 32;
  const index_t nseg = static_cast<index_t>(offsets.extent(0)) - 1;
  Kokkos::View<std::uint32_t*, typename ExecSpace::memory_space> words(
      Kokkos::view_alloc(Kokkos::WithoutInitializing, label + "::head_bits"), nwords);
  constexpr index_t block_words = offset_walk_block / 32;
  const index_t nblocks = (nwords + block_words - 1) / block_words;
  Kokkos::parallel_for(
      label + "::offsets_to_bits", Kokkos::RangePolicy<ExecSpace>(space, 0, nblocks),
      KOKKOS_LAMBDA(const index_t blk) {
        const index_t w0 = blk * block_words;
        const index_t w1 = (w0 + block_words) < nwords ? (w0 + block_words) : nwords;
        const index_t e1 = (w1 * 32) < n ? (w1 * 32) : n;
        // First offset >= 32*w0 (offsets equal to n mark no element).
        index_t s = upper_bound(offsets, nseg, w0 * 32 - 1);
        for (index_t w = w0; w < w1; ++w) {
          std::uint32_t bits = 0;
          const index_t end = (w + 1) * 32 < e1 ? (w + 1) * 32 : e1;
          while (s < nseg && static_cast<index_t>(offsets(s)) < end) {
            bits |= std::uint32_t(1) << (static_cast<index_t>(offsets(s)) & 31);
            ++s;
          }
          words(w) = bits;
        }
      });
  return words;
}

/// ids(i) = the segment (index into offsets) that holds element i.
template <class ExecSpace, class OffsetView, class IdView>
void offsets_to_ids(const ExecSpace& space, const OffsetView& offsets, index_t n, const IdView& ids,
                    const std::string& label) {
  const index_t nseg = static_cast<index_t>(offsets.extent(0)) - 1;
  const index_t nblocks = (n + offset_walk_block - 1) / offset_walk_block;
  using Id = typename IdView::non_const_value_type;
  Kokkos::parallel_for(
      label + "::offsets_to_ids", Kokkos::RangePolicy<ExecSpace>(space, 0, nblocks),
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
