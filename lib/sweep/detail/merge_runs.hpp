// A stable merge of sorted runs by key, the distributed sort's last step
// (what arrives from each rank is sorted; the runs lie one after another,
// in the order equal keys must keep).
//
// Rounds of pairwise merges, run 2p with run 2p + 1, until one run is
// left, ping-ponging between the caller's Views and one scratch pair: about
// log2(runs) passes over the data where a radix sort makes one per key
// byte. A round is one parallel loop over output chunks
// (tuning<>::sort::merge_chunk): a chunk finds where it starts in its two
// runs by a binary search along the merge path, then merges sequentially.
// Ties take the earlier run's key first, so the merge is stable. Keys are
// compared under `mask` (sort_options::end_bit).
#pragma once

#include <sweep/core.hpp>
#include <sweep/tuning.hpp>
#include <sweep/detail/space.hpp>

#include <Kokkos_Core.hpp>

#include <algorithm>
#include <string>
#include <utility>
#include <vector>

namespace sweep::detail {

template <class Keys, class Vals, class Index>
struct merge_round {
  using K = typename Keys::non_const_value_type;
  Keys kin, kout;
  Vals vin, vout;
  Index edges;        // runs + 1 run boundaries
  Index first_chunk;  // pairs + 1: pair p's chunks are [first_chunk(p), first_chunk(p + 1))
  index_t runs, pairs, chunk;
  K mask;

  KOKKOS_INLINE_FUNCTION void operator()(const index_t c) const {
    // The pair this chunk belongs to: the last p with first_chunk(p) <= c.
    index_t lo = 0, hi = pairs;
    while (hi - lo > 1) {
      const index_t mid = lo + (hi - lo) / 2;
      if (first_chunk(mid) <= c) lo = mid;
      else hi = mid;
    }
    const index_t p = lo;
    const index_t a0 = edges(2 * p), a1 = edges(2 * p + 1 < runs ? 2 * p + 1 : runs),
                  b1 = edges(2 * p + 2 < runs ? 2 * p + 2 : runs);
    const index_t na = a1 - a0, nb = b1 - a1;
    const index_t k0 = (c - first_chunk(p)) * chunk;
    const index_t k1 = k0 + chunk < na + nb ? k0 + chunk : na + nb;
    // i: how many of the first k0 outputs come from run A. A[m] is among
    // them when fewer than k0 - m keys of B are smaller than it.
    index_t ilo = k0 > nb ? k0 - nb : 0, ihi = k0 < na ? k0 : na;
    while (ilo < ihi) {
      const index_t m = ilo + (ihi - ilo) / 2;
      if ((kin(a0 + m) & mask) <= (kin(a1 + k0 - m - 1) & mask)) ilo = m + 1;
      else ihi = m;
    }
    index_t i = ilo, j = k0 - ilo;
    for (index_t k = k0; k < k1; ++k) {
      const bool from_a = i < na && (j >= nb || (kin(a0 + i) & mask) <= (kin(a1 + j) & mask));
      const index_t src = from_a ? a0 + i++ : a1 + j++;
      kout(a0 + k) = kin(src);
      vout(a0 + k) = vin(src);
    }
  }
};

/// Merges the sorted runs [edges[r], edges[r + 1]) of keys and values into
/// one run, stably. The result may end up in newly allocated Views: keys
/// and values are replaced by the Views that hold it. Asynchronous on
/// `space` (the boundaries are copied from host Views kept until a fence
/// here at the end).
template <class ExecSpace, class K, class V, class Mem>
void merge_runs(const std::string& label, const ExecSpace& space, Kokkos::View<K*, Mem>& keys,
                Kokkos::View<V*, Mem>& values, std::vector<index_t> edges, K mask) {
  edges.erase(std::unique(edges.begin(), edges.end()), edges.end());  // empty runs
  if (edges.size() <= 2) return;
  const index_t n = edges.back() - edges.front();
  require(edges.front() == 0 && n == index_t(keys.extent(0)) && values.extent(0) == keys.extent(0),
          "sweep::detail::merge_runs", "the runs must cover the keys and values");
  using Index = Kokkos::View<index_t*, Mem>;
  Kokkos::View<K*, Mem> k2(Kokkos::view_alloc(Kokkos::WithoutInitializing, label + "::keys"), n);
  Kokkos::View<V*, Mem> v2(Kokkos::view_alloc(Kokkos::WithoutInitializing, label + "::values"), n);
  const index_t chunk = std::max<index_t>(1, tuning<ExecSpace>::sort::merge_chunk(space, n));
  std::vector<typename Index::HostMirror> kept;
  while (edges.size() > 2) {
    const index_t runs = index_t(edges.size()) - 1, pairs = (runs + 1) / 2;
    Index e(Kokkos::view_alloc(Kokkos::WithoutInitializing, label + "::edges"), runs + 1);
    Index fc(Kokkos::view_alloc(Kokkos::WithoutInitializing, label + "::first_chunk"), pairs + 1);
    auto he = Kokkos::create_mirror_view(e);
    auto hf = Kokkos::create_mirror_view(fc);
    std::vector<index_t> next;
    hf(0) = 0;
    for (index_t p = 0; p < pairs; ++p) {
      const index_t len = edges[std::size_t(std::min(2 * p + 2, runs))] - edges[std::size_t(2 * p)];
      hf(p + 1) = hf(p) + (len + chunk - 1) / chunk;
      next.push_back(edges[std::size_t(2 * p)]);
    }
    next.push_back(edges.back());
    for (index_t r = 0; r <= runs; ++r) he(r) = edges[std::size_t(r)];
    Kokkos::deep_copy(space, e, he);
    Kokkos::deep_copy(space, fc, hf);
    Kokkos::parallel_for(label + "::round", range_policy<ExecSpace>(space, 0, hf(pairs)),
                         merge_round<Kokkos::View<K*, Mem>, Kokkos::View<V*, Mem>, Index>{
                             keys, k2, values, v2, e, fc, runs, pairs, chunk, mask});
    kept.push_back(he);
    kept.push_back(hf);
    std::swap(keys, k2);
    std::swap(values, v2);
    edges = std::move(next);
  }
  space.fence();
}

}  // namespace sweep::detail
