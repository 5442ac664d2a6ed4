// CUDA paths of the bitmask index.
//
// Tree descents (fixed_inclusive, fixed_exclusive, dynamic_exclusive):
// every search of a layer goes through warp_count_not_above. A ballot vote
// asks whether all the warp's active lanes search the same range (as they
// do at a tree's top, or for a batch of nearby queries); if so the warp
// cooperates: its 32 lanes load 32 entries (or 32 pivots of a longer
// range) with one coalesced access and each lane counts the entries not
// above its own query through 32 shuffles, narrowing its range 32-fold per
// step. When the ranges diverge the warp switches to a binary search per
// thread. Results are the scalar descents' exactly.
//
// rank_select pack/unpack stream the mask: a warp owns 1024 consecutive
// bits (32 words), takes the rank of its first bit once (O(1)), and for
// each word lane l handles bit l: its place is that rank plus the set bits
// below it in the word (__popc of the word under the lane mask), so
// elements are read and written coalesced, one pass over mask and data.
#pragma once

#include <sweep/cuda/launch.hpp>
#include <sweep/cuda/policy.hpp>
#include <sweep/detail/bitmask_rank_select.hpp>
#include <sweep/detail/bitmask_trees.hpp>

#include <Kokkos_Core.hpp>

#include <cstdint>
#include <string>

namespace sweep::cuda {

/// Entries of the nondecreasing v(offset + [lo, hi)) that are <= value, for
/// every lane of the warp (all 32 lanes call it; inactive lanes pass any
/// range and get 0).
template <class View>
__device__ index_t warp_count_not_above(const View& v, index_t offset, index_t lo, index_t hi, index_t value,
                                        bool active) {
  const int lane = int(threadIdx.x & 31u);
  index_t counted = 0;
  bool open = active && hi > lo;
  while (__any_sync(full_warp, open)) {
    // The vote: do all open lanes search the same range?
    const unsigned voters = __ballot_sync(full_warp, open);
    const int leader = __ffs(int(voters)) - 1;
    const long long l0 = __shfl_sync(full_warp, static_cast<long long>(lo), leader);
    const long long h0 = __shfl_sync(full_warp, static_cast<long long>(hi), leader);
    if (!__all_sync(full_warp, !open || (lo == l0 && hi == h0))) break;
    // Cooperative step over the shared range: 32 entries, or 32 pivots.
    const index_t span = index_t(h0 - l0);
    const index_t at = l0 + (span <= 32 ? index_t(lane) : span * lane / 32);
    const bool real = span <= 32 ? lane < span : true;
    const unsigned long long mine =
        real ? static_cast<unsigned long long>(v(offset + at)) : ~0ull;  // beyond the range: never <= value
    int not_above = 0;
#pragma unroll
    for (int j = 0; j < 32; ++j) {
      const unsigned long long e = __shfl_sync(full_warp, mine, j);
      not_above += open && e <= static_cast<unsigned long long>(value);
    }
    if (open) {
      if (span <= 32) {
        counted += not_above;  // the whole range is counted
        open = false;
      } else if (not_above == 0) {
        open = false;  // even the first entry is above
      } else {
        // Entries before pivot j are all <= value (nondecreasing): continue
        // inside [pivot j, pivot j + 1) of the last pivot <= value.
        const int j = not_above - 1;
        const index_t p = l0 + span * j / 32, q = j == 31 ? index_t(h0) : l0 + span * (j + 1) / 32;
        counted += p - lo;
        lo = p, hi = q;
        // The pivot itself is <= value.
        counted += 1;
        lo += 1;
        open = hi > lo;
      }
    }
  }
  if (open) {
    // Diverged: a binary search per thread.
    index_t a = lo, b = hi;
    while (a < b) {
      const index_t mid = a + (b - a) / 2;
      if (static_cast<index_t>(v(offset + mid)) <= value) a = mid + 1;
      else b = mid;
    }
    counted += a - lo;
  }
  return counted;
}

/// select(k) of a dynamic tree, cooperatively (see the header comment).
template <class Mem>
__device__ index_t warp_select(const detail::dynamic_tree_view<Mem>& t, index_t k, bool active) {
  active = active && k >= 0 && k < t.ones;
  index_t rem = active ? k : 0, p = 0;
  for (int l = t.layers; l >= 2; --l) {
    constexpr index_t fan = detail::dynamic_tree_view<Mem>::fan;
    const index_t lo = p * fan, hi = lo + fan < t.count[l] ? lo + fan : t.count[l];
    p = lo + warp_count_not_above(t.upper, t.offset[l], lo, hi, rem, active) - 1;
    if (active) rem -= index_t(t.upper(t.offset[l] + p));
  }
  constexpr index_t fan = detail::dynamic_tree_view<Mem>::fan;
  const index_t lo = p * fan, hi = lo + fan < t.count[1] ? lo + fan : t.count[1];
  p = lo + warp_count_not_above(t.l1, 0, lo, hi, rem, active) - 1;
  if (!active) return -1;
  rem -= index_t(t.l1(p));
  constexpr index_t words = index_t(1) << (detail::dynamic_tree_view<Mem>::bits1 - 6);
  return t.mask.select_from(p * words, (p + 1) * words, rem);
}

/// select(k) of a fixed two-layer tree, cooperatively.
template <bool Inclusive, unsigned S1, unsigned S2, class Mem>
__device__ index_t warp_select(const detail::fixed_tree_view<Inclusive, S1, S2, Mem>& t, index_t k, bool active) {
  using tree = detail::fixed_tree_view<Inclusive, S1, S2, Mem>;
  active = active && k >= 0 && k < t.ones;
  const index_t key = active ? k : 0;
  index_t j, rem;
  if constexpr (Inclusive) {
    // first_above(l2, 0, n2, k) = entries <= k.
    const index_t m = warp_count_not_above(t.l2, 0, 0, t.n2, key, active);
    rem = key - (active && m > 0 ? index_t(t.l2(m - 1)) : 0);
    const index_t lo = m * S2, hi = lo + S2 < t.n1 ? lo + S2 : t.n1;
    j = lo + warp_count_not_above(t.l1, 0, lo, hi, rem, active);
    if (active && j > lo) rem -= index_t(t.l1(j - 1));
  } else {
    const index_t m = warp_count_not_above(t.l2, 0, 0, t.n2, key, active) - 1;
    rem = key - (active ? index_t(t.l2(m)) : 0);
    const index_t lo = m * S2, hi = lo + S2 < t.n1 ? lo + S2 : t.n1;
    j = lo + warp_count_not_above(t.l1, 0, lo, hi, rem, active) - 1;
    if (active) rem -= index_t(t.l1(j));
  }
  if (!active) return -1;
  return t.mask.select_from(j * tree::words1, (j + 1) * tree::words1, rem);
}

template <class TreeView, class Queries, class Out>
__global__ void select_kernel(TreeView t, Queries queries, Out out, index_t n) {
  const index_t i = index_t(blockIdx.x) * blockDim.x + threadIdx.x;
  const bool active = i < n;
  // The whole warp takes part in the descent, active or not.
  const index_t r = warp_select(t, active ? static_cast<index_t>(queries(i)) : 0, active);
  if (active) out(i) = static_cast<typename Out::value_type>(r);
}

template <bool Pack, class TreeView, class In, class Outv>
__global__ void tree_move_kernel(TreeView t, In in, Outv out, index_t ones) {
  const index_t k = index_t(blockIdx.x) * blockDim.x + threadIdx.x;
  const bool active = k < ones;
  const index_t pos = warp_select(t, active ? k : 0, active);
  if (!active) return;
  if (Pack) out(k) = in(pos);
  else out(pos) = in(k);
}

/// Pack (Pack = true: packed(k) = expanded(select(k))) or unpack by the
/// streaming warp loop of rank_select.
template <bool Pack, class Mem, class Expanded, class Packed>
__global__ void stream_kernel(detail::rank_select_view<Mem> v, Expanded expanded, Packed packed) {
  const index_t warp = (index_t(blockIdx.x) * blockDim.x + threadIdx.x) >> 5;
  const unsigned lane = threadIdx.x & 31u;
  const index_t word0 = warp * 32;  // 32-bit words
  if (word0 >= v.mask.n32) return;   // whole warps leave together
  index_t base = v.rank(word0 * 32);
  const unsigned below = (1u << lane) - 1u;
  const index_t end = word0 + 32 < v.mask.n32 ? word0 + 32 : v.mask.n32;
  for (index_t w = word0; w < end; ++w) {
    std::uint32_t bits = v.mask.words(w);
    const index_t first_bit = w * 32;
    if (first_bit + 32 > v.mask.n) bits &= (1u << (v.mask.n - first_bit)) - 1u;  // past n_bits
    const index_t i = first_bit + lane;
    if ((bits >> lane) & 1u) {
      const index_t k = base + __popc(bits & below);
      if (Pack) packed(k) = expanded(i);
      else expanded(i) = packed(k);
    }
    base += __popc(bits);
  }
}

inline unsigned blocks_for(index_t threads) {
  return static_cast<unsigned>((threads + bitmask_policy::block_threads - 1) / bitmask_policy::block_threads);
}

template <class TreeView, class Queries, class Out>
void select(const Kokkos::Cuda& space, const std::string& where, const TreeView& t, const Queries& q, const Out& out) {
  const index_t n = index_t(q.extent(0));
  if (n == 0) return;
  select_kernel<<<blocks_for(n), bitmask_policy::block_threads, 0, space.cuda_stream()>>>(t, q, out, n);
  check_launch(where);
}

template <bool Pack, class TreeView, class In, class Outv>
void move_by_select(const Kokkos::Cuda& space, const std::string& where, const TreeView& t, const In& in,
                    const Outv& out) {
  if (t.ones == 0) return;
  tree_move_kernel<Pack><<<blocks_for(t.ones), bitmask_policy::block_threads, 0, space.cuda_stream()>>>(t, in, out, t.ones);
  check_launch(where);
}

template <bool Pack, class Mem, class Expanded, class Packed>
void stream(const Kokkos::Cuda& space, const std::string& where, const detail::rank_select_view<Mem>& v,
            const Expanded& expanded, const Packed& packed) {
  const index_t warps = (v.mask.n32 + 31) / 32;
  if (warps == 0) return;
  stream_kernel<Pack><<<blocks_for(32 * warps), bitmask_policy::block_threads, 0, space.cuda_stream()>>>(v, expanded, packed);
  check_launch(where);
}

}  // namespace sweep::cuda
