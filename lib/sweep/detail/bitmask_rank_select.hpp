// Sweep's own bitmask index, `rank_select`: rank in O(1) and select by
// sampling, in about 3.5% of the mask, and the index that makes pack and
// unpack streaming passes (a chunk of the mask starts at rank(chunk) and
// walks its words; see host_bitmask_kernels.hpp).
//
// Layout (as in Zhou, Andersen and Kaminsky's "poppy"):
//   l0[b]   64-bit count of set bits before bit b * 2^32 (a handful).
//   l12[s]  per 2048-bit superblock, one 64-bit entry: the count before
//           the superblock relative to its l0 block (32 bits) and the counts
//           of its first three 512-bit basic blocks (10 bits each). A rank
//           reads one entry and at most eight 64-bit words: one cache line.
//   samples[j]  the superblock holding set bit j * 2^shift, with 2^shift
//           chosen so there is one sample per four superblocks at most
//           (0.4% of the mask): a select starts between two samples that
//           are a few superblocks apart on average and binary-searches
//           there, then picks the basic block and the word.
// Sparse masks: when the positions of the set bits (32 bits each) plus a
// 32-bit count per 2^14 bits take less room than the layout above
// (density below about 0.1%), those are stored instead: select is one
// load, rank a binary search among the few positions of one 2^14-bit
// block, and pack and unpack gather and scatter through the positions.
#pragma once

#include <sweep/detail/bitmask_trees.hpp>

namespace sweep::detail {

template <class Mem>
struct rank_select_view {
  static constexpr int super_shift = 11;  // 2048 bits per superblock
  static constexpr index_t super_words = 32;
  static constexpr int l0_shift = 32;

  mask_ref<Mem> mask;
  index_t ones = 0;
  index_t n_super = 0;
  index_t n_samples = 0;
  int sample_shift = 0;
  Kokkos::View<const std::uint64_t*, Mem> l0;
  Kokkos::View<const std::uint64_t*, Mem> l12;
  Kokkos::View<const std::uint32_t*, Mem> samples;
  // the sparse layout
  static constexpr int coarse_shift = 14;
  bool sparse = false;
  Kokkos::View<const std::uint32_t*, Mem> coarse;  // set bits before bit b * 2^14
  Kokkos::View<const std::uint32_t*, Mem> positions;

  KOKKOS_FORCEINLINE_FUNCTION bool test(index_t i) const { return mask.test(i); }
  std::size_t bytes() const {
    return view_bytes(l0) + view_bytes(l12) + view_bytes(samples) + view_bytes(coarse) + view_bytes(positions);
  }

  /// Set bits before superblock s.
  KOKKOS_FORCEINLINE_FUNCTION index_t super_before(index_t s) const {
    return index_t(l0(s >> (l0_shift - super_shift))) + index_t(l12(s) & 0xffffffffu);
  }

  KOKKOS_FORCEINLINE_FUNCTION index_t rank(index_t i) const {
    if (i < 0 || i > mask.n) return -1;
    if (i == mask.n) return ones;
    if (sparse) {
      const index_t b = i >> coarse_shift;
      return first_above(positions, index_t(coarse(b)), index_t(coarse(b + 1)), i - 1);
    }
    // Branch-free, so a batch keeps many queries' loads in flight.
    const index_t s = i >> super_shift;
    const std::uint64_t e = l12(s);
    const int basic = static_cast<int>((i >> 9) & 3);
    index_t r = index_t(l0(i >> l0_shift)) + index_t(e & 0xffffffffu);
    r += index_t((e >> 32) & 0x3ff) * (basic > 0) + index_t((e >> 42) & 0x3ff) * (basic > 1) +
         index_t((e >> 52) & 0x3ff) * (basic > 2);
    const index_t first = s * super_words + 8 * basic;
    if (64 * (first + 8) > mask.n) return r + mask.count_from(first, i);
    const int k = static_cast<int>((i >> 6) & 7);
    const std::uint64_t partial = (std::uint64_t(1) << (i & 63)) - 1;
    for (int t = 0; t < 8; ++t) {
      const std::uint64_t keep = (std::uint64_t(0) - std::uint64_t(t < k)) | ((std::uint64_t(0) - std::uint64_t(t == k)) & partial);
      r += popcount64(mask.raw_word(first + t) & keep);
    }
    return r;
  }

  KOKKOS_FORCEINLINE_FUNCTION index_t select(index_t k) const {
    if (k < 0 || k >= ones) return -1;
    if (sparse) return index_t(positions(k));
    const index_t j = k >> sample_shift;
    index_t lo = samples(j);
    index_t hi = j + 1 < n_samples ? index_t(samples(j + 1)) + 1 : n_super;
    while (hi - lo > 1) {  // last superblock in [lo, hi) starting at or before k
      const index_t mid = lo + (hi - lo) / 2;
      if (super_before(mid) <= k) lo = mid;
      else hi = mid;
    }
    // Basic block and word chosen by comparisons summed, not branches.
    const std::uint64_t e = l12(lo);
    index_t rem = k - super_before(lo);
    const index_t c1 = index_t((e >> 32) & 0x3ff), c2 = c1 + index_t((e >> 42) & 0x3ff),
                  c3 = c2 + index_t((e >> 52) & 0x3ff);
    const int basic = (rem >= c1) + (rem >= c2) + (rem >= c3);
    rem -= c1 * (basic == 1) + c2 * (basic == 2) + c3 * (basic == 3);
    const index_t first = lo * super_words + 8 * basic;
    if (64 * (first + 8) > mask.n) return mask.select_from(first, first + 8, rem);
    index_t before = 0, word = 0, word_before = 0;
    std::uint64_t w = 0;
    for (int t = 0; t < 8; ++t) {
      const std::uint64_t x = mask.raw_word(first + t);
      const bool here = before <= rem;  // the answer is in word t or later
      word = here ? t : word;
      word_before = here ? before : word_before;
      w = here ? x : w;
      before += popcount64(x);
    }
    return 64 * (first + word) + select64(w, static_cast<int>(rem - word_before));
  }

  /// Bytes of the dense layout for n bits (at most).
  static index_t dense_bytes(index_t n) {
    const index_t supers = (n + 2047) / 2048;
    return 8 * supers + 4 * (supers / 4 + 1) + 8 * ((n >> l0_shift) + 1);
  }

  /// Builds the sparse layout when it is the smaller one; false otherwise.
  template <class ExecSpace>
  static bool build_sparse(const ExecSpace& space, rank_select_view& v, const std::string& label) {
    const auto& mask = v.mask;
    constexpr index_t words = index_t(1) << (coarse_shift - 6);
    const index_t blocks = (mask.n64 + words - 1) / words;
    Kokkos::View<std::uint64_t*, Mem> before(Kokkos::view_alloc(Kokkos::WithoutInitializing, label + "::before"),
                                             blocks + 1);
    const index_t ones = block_prefix_counts(space, mask, words, before, label);
    if (4 * ones + 4 * (blocks + 1) >= dense_bytes(mask.n) || mask.n >= (index_t(1) << 32)) return false;
    Kokkos::View<std::uint32_t*, Mem> coarse(Kokkos::view_alloc(Kokkos::WithoutInitializing, label + "::coarse"),
                                             blocks + 1);
    Kokkos::parallel_for(
        label + "::coarse", Kokkos::RangePolicy<ExecSpace, Kokkos::IndexType<index_t>>(space, 0, blocks + 1),
        KOKKOS_LAMBDA(const index_t b) { coarse(b) = static_cast<std::uint32_t>(before(b)); });
    v.ones = ones;
    v.sparse = true;
    v.coarse = coarse;
    v.positions = fill_positions(space, mask, before, words, ones, label);
    return true;
  }

  /// Samples kept at most one per four superblocks: the smallest power of
  /// two 2^shift with ceil(ones / 2^shift) <= max(1, n_super / 4).
  static int choose_sample_shift(index_t ones, index_t n_super) {
    const index_t budget = n_super / 4 > 1 ? n_super / 4 : 1;
    int shift = 0;
    while (((ones + (index_t(1) << shift) - 1) >> shift) > budget) ++shift;
    return shift;
  }

  template <class ExecSpace>
  static rank_select_view build(const ExecSpace& space, const mask_ref<Mem>& mask, const std::string& label) {
    require(mask.n < (index_t(1) << 43), "sweep::bitmask_index<rank_select>",
            "samples name superblocks in 32 bits, so n_bits must be below 2^43, not ", mask.n);
    rank_select_view v;
    v.mask = mask;
    if (build_sparse(space, v, label)) return v;
    v.n_super = (mask.n64 + super_words - 1) / super_words;
    const index_t ns = v.n_super;
    Kokkos::View<std::uint64_t*, Mem> before(Kokkos::view_alloc(Kokkos::WithoutInitializing, label + "::before"),
                                             ns + 1);
    v.ones = block_prefix_counts(space, mask, super_words, before, label);
    v.sample_shift = choose_sample_shift(v.ones, ns);
    v.n_samples = (v.ones + (index_t(1) << v.sample_shift) - 1) >> v.sample_shift;
    const index_t n_l0 = (mask.n >> l0_shift) + 1;
    Kokkos::View<std::uint64_t*, Mem> l0(label + "::l0", n_l0);
    Kokkos::View<std::uint64_t*, Mem> l12(Kokkos::view_alloc(Kokkos::WithoutInitializing, label + "::l12"), ns);
    Kokkos::View<std::uint32_t*, Mem> samples(Kokkos::view_alloc(Kokkos::WithoutInitializing, label + "::samples"),
                                              v.n_samples);
    const int sshift = v.sample_shift;
    constexpr index_t per_l0 = index_t(1) << (l0_shift - super_shift);
    bitmask_for(
        space, label + "::entries", ns, 0, KOKKOS_LAMBDA(const index_t s) {
          const std::uint64_t base = before((s / per_l0) * per_l0);
          if (s % per_l0 == 0) l0(s / per_l0) = base;
          std::uint64_t e = before(s) - base;
          for (int b = 0; b < 3; ++b)
            e |= std::uint64_t(mask.count_words(s * super_words + 8 * b, s * super_words + 8 * b + 8))
                 << (32 + 10 * b);
          l12(s) = e;
          // Samples whose set bit lies in this superblock.
          const index_t first = static_cast<index_t>(before(s)), last = static_cast<index_t>(before(s + 1));
          for (index_t j = (first + (index_t(1) << sshift) - 1) >> sshift; (j << sshift) < last; ++j)
            samples(j) = static_cast<std::uint32_t>(s);
        });
    v.l0 = l0;
    v.l12 = l12;
    v.samples = samples;
    return v;
  }
};

}  // namespace sweep::detail
