// The baseline and the three compressed index trees of the bitmask index.
// Each is a device-copyable struct of Views that answers select (packed ->
// expanded), rank (expanded -> packed) and test, with a static build().
//
//   full_permutation      positions of all set bits (32-bit): select is one
//                         load, rank a binary search; 32 bits per set bit.
//   fixed_tree<incl,S1,S2> layer 1: a count per S1 bits relative to its
//                         layer-2 block of S2 layer-1 blocks (16-bit when
//                         it fits); layer 2: a 64-bit count per S1*S2 bits.
//                         Inclusive (counts up to the block's end) or
//                         exclusive (counts before its start). select:
//                         binary search in layer 2, then in the S2 entries
//                         of the block, then a popcount walk over S1 bits.
//   dynamic_tree          16-bit counts per 1024 bits relative to their
//                         parent, then 64-bit layers with fan-out 32 until
//                         a layer has at most 32 entries; select descends
//                         the layers (a binary search over <= 32 children
//                         each), rank adds one entry per layer.
#pragma once

#include <sweep/detail/bitmask_words.hpp>

#include <type_traits>

namespace sweep::detail {

template <class V>
std::size_t view_bytes(const V& v) {
  return v.extent(0) * sizeof(typename V::value_type);
}

// ---------------------------------------------------------------- full permutation

/// The positions of all `ones` set bits (n <= 2^32), given the exclusive
/// counts `before` per block of `block` 64-bit words.
template <class ExecSpace, class Mem, class Counts>
Kokkos::View<const std::uint32_t*, Mem> fill_positions(const ExecSpace& space, const mask_ref<Mem>& mask,
                                                       const Counts& before, index_t block,
                                                       index_t ones, const std::string& label) {
  Kokkos::View<std::uint32_t*, Mem> pos(Kokkos::view_alloc(Kokkos::WithoutInitializing, label + "::positions"), ones);
  const index_t blocks = static_cast<index_t>(before.extent(0)) - 1;
  bitmask_for(
      space, label + "::positions", blocks, 0, KOKKOS_LAMBDA(const index_t b) {
        index_t o = static_cast<index_t>(before(b));
        const index_t end = b * block + block < mask.n64 ? b * block + block : mask.n64;
        for (index_t j = b * block; j < end; ++j) {
          for (std::uint64_t w = mask.word(j); w != 0; w &= w - 1)
            pos(o++) = static_cast<std::uint32_t>(64 * j + ctz64(w));
        }
      });
  return pos;
}

template <class Mem>
struct permutation_view {
  mask_ref<Mem> mask;
  index_t ones = 0;
  Kokkos::View<const std::uint32_t*, Mem> pos;

  KOKKOS_FORCEINLINE_FUNCTION index_t select(index_t k) const { return k >= 0 && k < ones ? index_t(pos(k)) : -1; }
  KOKKOS_FORCEINLINE_FUNCTION index_t rank(index_t i) const {
    if (i < 0 || i > mask.n) return -1;
    return first_above(pos, 0, ones, i - 1);
  }
  KOKKOS_FORCEINLINE_FUNCTION bool test(index_t i) const { return mask.test(i); }
  std::size_t bytes() const { return view_bytes(pos); }

  template <class ExecSpace>
  static permutation_view build(const ExecSpace& space, const mask_ref<Mem>& mask, const std::string& label) {
    require(mask.n <= (index_t(1) << 32), "sweep::bitmask_index<full_permutation>",
            "positions are stored in 32 bits, so n_bits must be at most 2^32, not ", mask.n);
    constexpr index_t block = 32;  // 64-bit words per block
    const index_t blocks = (mask.n64 + block - 1) / block;
    auto scratch = block_counts_lease<Mem>(space, blocks);
    const auto before = scratch.template view<std::uint64_t>(static_cast<std::size_t>(blocks + 1));
    permutation_view v;
    v.mask = mask;
    v.ones = block_prefix_counts(space, mask, block, before, label);
    v.pos = fill_positions(space, mask, before, block, v.ones, label);
    return v;
  }
};

// ---------------------------------------------------------------- fixed two-layer trees

template <bool Inclusive, unsigned S1, unsigned S2, class Mem>
struct fixed_tree_view {
  static_assert(S1 >= 64 && (S1 & (S1 - 1)) == 0, "sweep::bitmask fixed trees: S1 must be a power of two >= 64");
  static_assert(S2 >= 2 && (S2 & (S2 - 1)) == 0, "sweep::bitmask fixed trees: S2 must be a power of two >= 2");
  static constexpr index_t words1 = S1 / 64;  // 64-bit words per layer-1 block
  static constexpr std::uint64_t max1 = Inclusive ? std::uint64_t(S1) * S2 : std::uint64_t(S1) * (S2 - 1);
  using layer1_type = std::conditional_t<(max1 <= 0xffffu), std::uint16_t, std::uint32_t>;

  mask_ref<Mem> mask;
  index_t ones = 0;
  index_t n1 = 0, n2 = 0;
  Kokkos::View<const layer1_type*, Mem> l1;
  Kokkos::View<const std::uint64_t*, Mem> l2;

  KOKKOS_FORCEINLINE_FUNCTION bool test(index_t i) const { return mask.test(i); }
  std::size_t bytes() const { return view_bytes(l1) + view_bytes(l2); }

  KOKKOS_FORCEINLINE_FUNCTION index_t rank(index_t i) const {
    if (i < 0 || i > mask.n) return -1;
    if (i == mask.n) return ones;
    const index_t j = i / S1, m = j / S2;
    const index_t inside = mask.count_from(j * words1, i);
    if constexpr (Inclusive) {
      return (m > 0 ? index_t(l2(m - 1)) : 0) + (j % S2 != 0 ? index_t(l1(j - 1)) : 0) + inside;
    } else {
      return index_t(l2(m)) + index_t(l1(j)) + inside;
    }
  }

  KOKKOS_FORCEINLINE_FUNCTION index_t select(index_t k) const {
    if (k < 0 || k >= ones) return -1;
    index_t j;
    index_t rem;
    if constexpr (Inclusive) {
      const index_t m = first_above(l2, 0, n2, k);
      rem = k - (m > 0 ? index_t(l2(m - 1)) : 0);
      const index_t lo = m * S2, hi = lo + S2 < n1 ? lo + S2 : n1;
      j = first_above(l1, lo, hi, rem);
      if (j > lo) rem -= index_t(l1(j - 1));
    } else {
      const index_t m = last_not_above(l2, 0, 0, n2, k);
      rem = k - index_t(l2(m));
      const index_t lo = m * S2, hi = lo + S2 < n1 ? lo + S2 : n1;
      j = last_not_above(l1, 0, lo, hi, rem);
      rem -= index_t(l1(j));
    }
    return mask.select_from(j * words1, (j + 1) * words1, rem);
  }

  template <class ExecSpace>
  static fixed_tree_view build(const ExecSpace& space, const mask_ref<Mem>& mask, const std::string& label) {
    fixed_tree_view v;
    v.mask = mask;
    v.n1 = (mask.n + S1 - 1) / S1;
    v.n2 = (v.n1 + S2 - 1) / S2;
    const index_t n1 = v.n1, n2 = v.n2;
    auto scratch = block_counts_lease<Mem>(space, n1);
    const auto before = scratch.template view<std::uint64_t>(static_cast<std::size_t>(n1 + 1));
    v.ones = block_prefix_counts(space, mask, words1, before, label);
    Kokkos::View<layer1_type*, Mem> l1(Kokkos::view_alloc(Kokkos::WithoutInitializing, label + "::layer1"), n1);
    Kokkos::View<std::uint64_t*, Mem> l2(Kokkos::view_alloc(Kokkos::WithoutInitializing, label + "::layer2"), n2);
    bitmask_for(
        space, label + "::layers", n1, 0, KOKKOS_LAMBDA(const index_t j) {
          const index_t m = j / S2;
          const std::uint64_t block_start = before(m * S2);
          if (Inclusive) {  // (not `if constexpr`: nvcc's lambdas cannot capture there)
            l1(j) = static_cast<layer1_type>(before(j + 1) - block_start);
            if (j % S2 == S2 - 1 || j == n1 - 1) l2(m) = before(j + 1);
          } else {
            l1(j) = static_cast<layer1_type>(before(j) - block_start);
            if (j % S2 == 0) l2(m) = block_start;
          }
        });
    (void)n2;
    v.l1 = l1;
    v.l2 = l2;
    return v;
  }
};

// ---------------------------------------------------------------- dynamic tree

template <class Mem>
struct dynamic_tree_view {
  static constexpr int bits1 = 10;       // log2 bits per layer-1 entry
  static constexpr int fan_bits = 5;     // log2 fan-out between layers
  static constexpr index_t fan = index_t(1) << fan_bits;
  static constexpr int max_layers = 12;  // 2^(10 + 5 * 11) > 2^63

  mask_ref<Mem> mask;
  index_t ones = 0;
  int layers = 0;
  index_t count[max_layers + 1] = {};  // entries per layer (1-based)
  index_t offset[max_layers + 1] = {};  // start of layer l >= 2 in `upper`
  Kokkos::View<const std::uint16_t*, Mem> l1;
  Kokkos::View<const std::uint64_t*, Mem> upper;

  KOKKOS_FORCEINLINE_FUNCTION static int shift(int layer) { return bits1 + fan_bits * (layer - 1); }
  KOKKOS_FORCEINLINE_FUNCTION index_t value(int layer, index_t e) const {
    return layer == 1 ? index_t(l1(e)) : index_t(upper(offset[layer] + e));
  }
  KOKKOS_FORCEINLINE_FUNCTION bool test(index_t i) const { return mask.test(i); }
  std::size_t bytes() const { return view_bytes(l1) + view_bytes(upper); }

  KOKKOS_FORCEINLINE_FUNCTION index_t rank(index_t i) const {
    if (i < 0 || i > mask.n) return -1;
    if (i == mask.n) return ones;
    index_t r = 0;
    for (int l = 1; l <= layers; ++l) r += value(l, i >> shift(l));
    return r + mask.count_from((i >> bits1) * (index_t(1) << (bits1 - 6)), i);
  }

  KOKKOS_FORCEINLINE_FUNCTION index_t select(index_t k) const {
    if (k < 0 || k >= ones) return -1;
    index_t rem = k, p = 0;
    for (int l = layers; l >= 2; --l) {
      const index_t lo = p * fan, hi = lo + fan < count[l] ? lo + fan : count[l];
      p = last_not_above(upper, offset[l], lo, hi, rem);
      rem -= index_t(upper(offset[l] + p));
    }
    const index_t lo = p * fan, hi = lo + fan < count[1] ? lo + fan : count[1];
    p = last_not_above(l1, 0, lo, hi, rem);
    rem -= index_t(l1(p));
    constexpr index_t words = index_t(1) << (bits1 - 6);
    return mask.select_from(p * words, (p + 1) * words, rem);
  }

  template <class ExecSpace>
  static dynamic_tree_view build(const ExecSpace& space, const mask_ref<Mem>& mask, const std::string& label) {
    dynamic_tree_view v;
    v.mask = mask;
    index_t upper_size = 0;
    if (mask.n > 0) {
      v.layers = 1;
      v.count[1] = (mask.n + (index_t(1) << bits1) - 1) >> bits1;
      while (v.count[v.layers] > fan) {
        ++v.layers;
        v.count[v.layers] = (v.count[v.layers - 1] + fan - 1) / fan;
        v.offset[v.layers] = upper_size;
        upper_size += v.count[v.layers];
      }
    }
    const index_t n1 = v.count[1];
    auto scratch = block_counts_lease<Mem>(space, n1);
    const auto before = scratch.template view<std::uint64_t>(static_cast<std::size_t>(n1 + 1));
    v.ones = block_prefix_counts(space, mask, index_t(1) << (bits1 - 6), before, label);
    Kokkos::View<std::uint16_t*, Mem> l1(Kokkos::view_alloc(Kokkos::WithoutInitializing, label + "::layer1"), n1);
    Kokkos::View<std::uint64_t*, Mem> upper(Kokkos::view_alloc(Kokkos::WithoutInitializing, label + "::upper"),
                                            upper_size);
    // Entry e of layer l covers layer-1 blocks [e * 32^(l-1), ...); its value is
    // the count from its parent's first block to its own first block.
    const dynamic_tree_view shape = v;
    bitmask_for(
        space, label + "::layers", n1, 0, KOKKOS_LAMBDA(const index_t j) {
          index_t span = 1;  // layer-1 blocks per entry of layer l
          for (int l = 1; l <= shape.layers; ++l, span *= fan) {
            if (j % span != 0) break;
            const index_t e = j / span;
            const index_t parent_first = (e / fan) * fan * span;
            const std::uint64_t value = before(j) - before(parent_first);
            if (l == 1) l1(e) = static_cast<std::uint16_t>(value);
            else upper(shape.offset[l] + e) = value;
          }
        });
    v.l1 = l1;
    v.upper = upper;
    return v;
  }
};

}  // namespace sweep::detail
