// The body of sweep::sort_by_key: LSD radix sort, 8 bits per pass, over the
// digits in which the keys differ. Keys are cut into blocks; a pass counts
// each block's digits into a digit-major table (digit d of block b at
// d * blocks + b), exclusive-scans the table with sweep::exclusive_scan
// (so each entry becomes the first output slot of that digit in that block)
// and scatters every block in order (stable). Passes ping-pong between the
// caller's Views and one scratch pair.
#pragma once

#include <sweep/core.hpp>
#include <sweep/scan.hpp>
#include <sweep/tuning.hpp>
#include <sweep/detail/space.hpp>
#include <sweep/detail/workspace.hpp>

#include <Kokkos_Core.hpp>

#include <algorithm>
#include <cstdint>
#include <string>

namespace sweep::detail {

/// The digits: 8 bits per pass, 256 buckets (the block histograms of
/// radix_count / radix_scatter).
struct radix_digits {
  static constexpr int radix_bits = 8;
  static constexpr int buckets = 1 << radix_bits;
};

template <class Keys, class Counts>
struct radix_count {
  using K = typename Keys::non_const_value_type;
  static constexpr int buckets = radix_digits::buckets;
  Keys keys;
  Counts counts;
  index_t n, block, blocks;
  int shift;
  K mask;
  KOKKOS_INLINE_FUNCTION void operator()(const index_t b) const {
    std::uint32_t c[buckets];
    for (int d = 0; d < buckets; ++d) c[d] = 0;
    const index_t end = (b + 1) * block < n ? (b + 1) * block : n;
    for (index_t i = b * block; i < end; ++i) ++c[(keys(i) >> shift) & mask];
    for (int d = 0; d < buckets; ++d) counts(d * blocks + b) = c[d];
  }
};

template <class KeysIn, class ValsIn, class KeysOut, class ValsOut, class Counts>
struct radix_scatter {
  using K = typename KeysIn::non_const_value_type;
  static constexpr int buckets = radix_digits::buckets;
  KeysIn keys_in;
  ValsIn vals_in;
  KeysOut keys_out;
  ValsOut vals_out;
  Counts counts;
  index_t n, block, blocks;
  int shift;
  K mask;
  KOKKOS_INLINE_FUNCTION void operator()(const index_t b) const {
    index_t slot[buckets];
    for (int d = 0; d < buckets; ++d) slot[d] = counts(d * blocks + b);
    const index_t end = (b + 1) * block < n ? (b + 1) * block : n;
    for (index_t i = b * block; i < end; ++i) {
      const K k = keys_in(i);
      const index_t p = slot[(k >> shift) & mask]++;
      keys_out(p) = k;
      vals_out(p) = vals_in(i);
    }
  }
};

/// The sort's dispatch point: how a backend scatters one pass (every block
/// in order, stable). The primary template is the portable path, one
/// radix_scatter iteration per block; lib/sweep/host/sort_backend.hpp
/// stages each bucket's keys and values in a small buffer and writes them
/// a cache line at a time on host spaces. Same output either way.
template <class ExecSpace, class Kind = space_kind_t<ExecSpace>>
struct sort_backend {
  template <class KeysIn, class ValsIn, class KeysOut, class ValsOut, class Counts,
            class K = typename KeysIn::non_const_value_type>
  static void scatter(const std::string& label, const ExecSpace& space, const KeysIn& kin, const ValsIn& vin,
                      const KeysOut& kout, const ValsOut& vout, const Counts& counts, index_t n, index_t block,
                      index_t blocks, int shift, K mask) {
    Kokkos::parallel_for(label + "::scatter", range_policy<ExecSpace>(space, 0, blocks),
                         radix_scatter<KeysIn, ValsIn, KeysOut, ValsOut, Counts>{kin, vin, kout, vout, counts, n,
                                                                                 block, blocks, shift, mask});
  }
};

template <class KeysIn, class ValsIn, class KeysOut, class ValsOut>
struct pair_copy {
  KeysIn keys_in;
  ValsIn vals_in;
  KeysOut keys_out;
  ValsOut vals_out;
  KOKKOS_INLINE_FUNCTION void operator()(const index_t i) const {
    keys_out(i) = keys_in(i);
    vals_out(i) = vals_in(i);
  }
};

template <class Keys>
struct key_difference {
  using K = typename Keys::non_const_value_type;
  Keys keys;
  KOKKOS_INLINE_FUNCTION void operator()(const index_t i, K& acc) const { acc |= keys(i) ^ keys(0); }
};

template <class ExecSpace, class KeyView, class ValueView>
void radix_sort(const std::string& label, const ExecSpace& space, const KeyView& keys, const ValueView& values,
                int end_bit) {
  using K = typename KeyView::non_const_value_type;
  using V = typename ValueView::non_const_value_type;
  using Mem = typename ExecSpace::memory_space;
  using Range = sweep::detail::range_policy<ExecSpace>;
  using digits = radix_digits;
  const index_t n = static_cast<index_t>(keys.extent(0));
  if (n <= 1) return;

  // The bits in which any key differs from the first.
  K diff = 0;
  Kokkos::parallel_reduce(label + "::difference", Range(space, 0, n), key_difference<KeyView>{keys},
                          Kokkos::BOr<K>(diff));
  if (end_bit < int(8 * sizeof(K))) diff &= static_cast<K>((K(1) << end_bit) - 1);
  int shifts[8 * sizeof(K) / digits::radix_bits];
  int passes = 0;
  for (int s = 0; s < end_bit; s += digits::radix_bits)
    if ((diff >> s) & K(digits::buckets - 1)) shifts[passes++] = s;
  if (passes == 0) return;

  const index_t block = tuning<ExecSpace>::sort::block_keys(space, n);
  const index_t blocks = (n + block - 1) / block;
  using lease_t = workspace_lease<Mem>;
  const auto ncounts = static_cast<std::size_t>(blocks * digits::buckets);
  lease_t lease(lease_t::piece(ncounts * sizeof(index_t)));
  lease.release_after(space);  // an exception leaves the buffer pending on space
  const auto counts = lease.template view<index_t>(ncounts);
  Kokkos::View<K*, Mem> tmp_keys(Kokkos::view_alloc(Kokkos::WithoutInitializing, label + "::keys"), n);
  Kokkos::View<V*, Mem> tmp_vals(Kokkos::view_alloc(Kokkos::WithoutInitializing, label + "::values"), n);

  auto pass = [&](const auto& kin, const auto& vin, const auto& kout, const auto& vout, int shift) {
    // The last digit may be cut short by end_bit.
    const int width = std::min(digits::radix_bits, end_bit - shift);
    const K mask = static_cast<K>((K(1) << width) - 1);
    Kokkos::parallel_for(label + "::count", Range(space, 0, blocks),
                         radix_count<std::decay_t<decltype(kin)>, decltype(counts)>{kin, counts, n, block, blocks,
                                                                                      shift, mask});
    exclusive_scan(label + "::offsets", space, counts, counts, index_t(0));
    sort_backend<ExecSpace>::scatter(label, space, kin, vin, kout, vout, counts, n, block, blocks, shift, mask);
  };
  for (int p = 0; p < passes; ++p) {
    if (p % 2 == 0) pass(keys, values, tmp_keys, tmp_vals, shifts[p]);
    else pass(tmp_keys, tmp_vals, keys, values, shifts[p]);
  }
  if (passes % 2 == 1)
    Kokkos::parallel_for(label + "::copy_back", Range(space, 0, n),
                         pair_copy<decltype(tmp_keys), decltype(tmp_vals), KeyView, ValueView>{tmp_keys, tmp_vals,
                                                                                              keys, values});
  // The passes use the lease: done before it is returned (as the per-call
  // temporaries' release waited for them).
  space.fence();
  lease.settled();
}

}  // namespace sweep::detail

#define SWEEP_DISPATCH_SORT
#include <sweep/backend.hpp>
