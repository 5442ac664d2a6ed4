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
    const index_t s = i >> super_shift;
    const int basic = static_cast<int>((i >> 9) & 3);
    index_t r = before_basic_block(i);
    // Only the words before i: those lie wholly below n.
    const index_t last = i >> 6;
    for (index_t j = s * super_words + 8 * basic; j < last; ++j) r += popcount64(mask.raw_word(j));
    if ((i & 63) != 0) r += popcount64(mask.word(last) & ((std::uint64_t(1) << (i & 63)) - 1));
    return r;
  }

  /// Set bits before the 512-bit basic block holding bit i (dense layout,
  /// i in [0, n)): the l0 and superblock counts and the entry's counts of
  /// the superblock's basic blocks before it.
  KOKKOS_FORCEINLINE_FUNCTION index_t before_basic_block(index_t i) const {
    const std::uint64_t e = l12(i >> super_shift);
    const int basic = static_cast<int>((i >> 9) & 3);
    return index_t(l0(i >> l0_shift)) + index_t(e & 0xffffffffu) + index_t((e >> 32) & 0x3ff) * (basic > 0) +
           index_t((e >> 42) & 0x3ff) * (basic > 1) + index_t((e >> 52) & 0x3ff) * (basic > 2);
  }

  /// Where a select of the dense layout ends: the first of the eight
  /// 64-bit words (one 512-bit basic block) that hold set bit k, and k's
  /// rank among the set bits from there.
  struct select_start {
    index_t word = 0;
    index_t rem = 0;
  };

  KOKKOS_FORCEINLINE_FUNCTION index_t select(index_t k) const {
    if (k < 0 || k >= ones) return -1;
    if (sparse) return index_t(positions(k));
    return select_in_block(select_locate(k));
  }

  /// The first of the eight 64-bit words of the 512-bit basic block that
  /// holds bit i: rank's first word, s * super_words + 8 * basic (rank
  /// keeps that form: written through this, its loop ran 1.8x slower).
  KOKKOS_FORCEINLINE_FUNCTION static index_t basic_block_word(index_t i) { return (i >> 9) * 8; }

  /// The position of the set bit select_locate led to: the rem-th one
  /// from its word on.
  KOKKOS_FORCEINLINE_FUNCTION index_t select_in_block(const select_start& s) const {
    return mask.select_from(s.word, s.word + 8, s.rem);
  }

  /// The basic block of set bit k, k in [0, ones), dense layout: the
  /// sample, a binary search among the superblocks it leaves, the entry.
  KOKKOS_FORCEINLINE_FUNCTION select_start select_locate(index_t k) const {
    const index_t j = k >> sample_shift;
    index_t lo = samples(j);
    index_t hi = j + 1 < n_samples ? index_t(samples(j + 1)) + 1 : n_super;
    while (hi - lo > 1) {  // last superblock in [lo, hi) starting at or before k
      const index_t mid = lo + (hi - lo) / 2;
      if (super_before(mid) <= k) lo = mid;
      else hi = mid;
    }
    const std::uint64_t e = l12(lo);
    index_t rem = k - super_before(lo);
    int basic = 0;
    for (; basic < 3; ++basic) {
      const index_t c = index_t((e >> (32 + 10 * basic)) & 0x3ff);
      if (rem < c) break;
      rem -= c;
    }
    return {lo * super_words + 8 * basic, rem};
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
    auto scratch = block_counts_lease<Mem>(space, blocks);
    const auto before = scratch.template view<std::uint64_t>(static_cast<std::size_t>(blocks + 1));
    const index_t ones = block_prefix_counts(space, mask, words, before, label);
    if (4 * ones + 4 * (blocks + 1) >= dense_bytes(mask.n) || mask.n >= (index_t(1) << 32)) return false;
    Kokkos::View<std::uint32_t*, Mem> coarse(Kokkos::view_alloc(Kokkos::WithoutInitializing, label + "::coarse"),
                                             blocks + 1);
    Kokkos::parallel_for(
        label + "::coarse", sweep::detail::range_policy<ExecSpace>(space, 0, blocks + 1),
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
    auto scratch = block_counts_lease<Mem>(space, ns);
    const auto before = scratch.template view<std::uint64_t>(static_cast<std::size_t>(ns + 1));
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
