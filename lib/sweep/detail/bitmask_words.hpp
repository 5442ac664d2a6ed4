// The bitmask as every bitmask encoding reads it: 32-bit words viewed as
// 64-bit words (bit i of the mask is bit i%32 of word i/32, so 64-bit word
// j is words 2j and 2j+1), bits at and past n_bits read as zero whatever
// the caller's last word holds. Plus the bit tricks the encodings share:
// popcount, count-trailing-zeros and select-in-word, in host and device
// code alike.
#pragma once

#include <sweep/core.hpp>
#include <sweep/detail/bits.hpp>
#include <sweep/scan.hpp>
#include <sweep/detail/bitmask_backend.hpp>
#include <sweep/detail/scan_io.hpp>
#include <sweep/detail/workspace.hpp>

#include <cstdint>

namespace sweep::detail {

/// Last index c in [lo, hi) with v(offset + c) <= value, given v(offset + lo)
/// <= value and v non-decreasing: binary search.
template <class View>
KOKKOS_FORCEINLINE_FUNCTION index_t last_not_above(const View& v, index_t offset, index_t lo, index_t hi, index_t value) {
  while (hi - lo > 1) {
    const index_t mid = lo + (hi - lo) / 2;
    if (static_cast<index_t>(v(offset + mid)) <= value) lo = mid;
    else hi = mid;
  }
  return lo;
}

/// First index c in [lo, hi) with v(c) > value (hi when none).
template <class View>
KOKKOS_FORCEINLINE_FUNCTION index_t first_above(const View& v, index_t lo, index_t hi, index_t value) {
  while (lo < hi) {
    const index_t mid = lo + (hi - lo) / 2;
    if (static_cast<index_t>(v(mid)) <= value) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/// first_above for short ranges held in cache: halves the range a fixed
/// number of times with a select instead of a branch (nothing to
/// mispredict), then one last comparison.
template <class View>
KOKKOS_FORCEINLINE_FUNCTION index_t first_above_short(const View& v, index_t lo, index_t hi, index_t value) {
  index_t n = hi - lo;
  if (n <= 0) return lo;
  while (n > 1) {  // the answer lies in [lo, lo + n]
    const index_t half = n / 2;
    lo += static_cast<index_t>(v(lo + half - 1)) <= value ? half : 0;
    n -= half;
  }
  return lo + (static_cast<index_t>(v(lo)) <= value ? 1 : 0);
}

/// Position of the r-th set bit of w (r < popcount(w)): six halving steps.
KOKKOS_FORCEINLINE_FUNCTION int select64(std::uint64_t w, int r) {
  int pos = 0;
  for (int width = 32; width >= 1; width /= 2) {
    const int c = popcount64(w & ((std::uint64_t(1) << width) - 1));
    if (r >= c) {
      r -= c;
      w >>= width;
      pos += width;
    }
  }
  return pos;
}

/// The mask: n bits in ceil(n/32) 32-bit words.
template <class Mem>
struct mask_ref {
  Kokkos::View<const std::uint32_t*, Mem> words;
  index_t n = 0;    // bits
  index_t n32 = 0;  // 32-bit words holding them
  index_t n64 = 0;  // 64-bit words holding them

  mask_ref() = default;
  mask_ref(const Kokkos::View<const std::uint32_t*, Mem>& w, index_t bits)
      : words(w), n(bits), n32((bits + 31) / 32), n64((bits + 63) / 64) {}

  /// Bits [64j, 64j + 64), those at or past n cleared; j < n64.
  KOKKOS_FORCEINLINE_FUNCTION std::uint64_t word(index_t j) const {
    const index_t lo = 2 * j;
    std::uint64_t w = words(lo);
    if (lo + 1 < n32) w |= std::uint64_t(words(lo + 1)) << 32;
    const index_t rest = n - 64 * j;
    if (rest < 64) w &= (std::uint64_t(1) << rest) - 1;
    return w;
  }

  /// Bits [64j, 64j + 64) as stored; only for 64j + 64 <= n.
  KOKKOS_FORCEINLINE_FUNCTION std::uint64_t raw_word(index_t j) const {
    return std::uint64_t(words(2 * j)) | (std::uint64_t(words(2 * j + 1)) << 32);
  }

  KOKKOS_FORCEINLINE_FUNCTION bool test(index_t i) const {
    return i >= 0 && i < n && ((words(i >> 5) >> (i & 31)) & 1u) != 0;
  }

  /// Set bits in [64 * first_word, i), i <= n.
  KOKKOS_FORCEINLINE_FUNCTION index_t count_from(index_t first_word, index_t i) const {
    index_t c = 0;
    const index_t last = i >> 6;
    for (index_t j = first_word; j < last; ++j) c += popcount64(word(j));
    if ((i & 63) != 0) c += popcount64(word(last) & ((std::uint64_t(1) << (i & 63)) - 1));
    return c;
  }

  /// Position of the r-th set bit at or after 64 * first_word, searching
  /// words [first_word, end_word); -1 when they hold r or fewer.
  KOKKOS_FORCEINLINE_FUNCTION index_t select_from(index_t first_word, index_t end_word, index_t r) const {
    if (end_word > n64) end_word = n64;
    for (index_t j = first_word; j < end_word; ++j) {
      const std::uint64_t w = word(j);
      const int c = popcount64(w);
      if (r < c) return 64 * j + select64(w, static_cast<int>(r));
      r -= c;
    }
    return -1;
  }

  /// Set bits in 64-bit words [first_word, end_word).
  KOKKOS_FORCEINLINE_FUNCTION index_t count_words(index_t first_word, index_t end_word) const {
    if (end_word > n64) end_word = n64;
    index_t c = 0;
    for (index_t j = first_word; j < end_word; ++j) c += popcount64(word(j));
    return c;
  }
};

/// Exclusive counts of set bits per block of `words_per_block` 64-bit
/// words: counts(b) = set bits before block b, with counts(n_blocks) = all
/// of them, which is returned. `counts` has n_blocks + 1 elements. Sweep's
/// own scan joins the per-block counts.
template <class ExecSpace, class Mem, class Counts>
index_t block_prefix_counts(const ExecSpace& space, const mask_ref<Mem>& mask, index_t words_per_block,
                            const Counts& counts, const std::string& label) {
  const index_t blocks = static_cast<index_t>(counts.extent(0)) - 1;
  bitmask_for(
      space, label + "::count", blocks + 1, 0, KOKKOS_LAMBDA(const index_t b) {
        counts(b) = b < blocks ? mask.count_words(b * words_per_block, (b + 1) * words_per_block) : 0;
      });
  return static_cast<index_t>(exclusive_scan(label + "::scan", space, counts, counts, std::uint64_t(0)));
}

/// Room for the `blocks + 1` block counts an index build scans and reads
/// (they scale with n / block, so they come from the space's workspace and
/// a repeated build allocates nothing for them). The lease goes back with
/// `space` pending: the build's kernels may still read the counts.
template <class Mem, class ExecSpace>
workspace_lease<Mem> block_counts_lease(const ExecSpace& space, index_t blocks) {
  workspace_lease<Mem> lease(workspace_lease<Mem>::piece(sizeof(std::uint64_t) * static_cast<std::size_t>(blocks + 1)));
  lease.release_after(space);
  return lease;
}

}  // namespace sweep::detail
