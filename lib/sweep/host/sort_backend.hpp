// The radix sort's scatter on host spaces: software write-combining. A
// pass sends each key to one of 256 places that move through the output
// independently, so a plain scatter touches a different cache line (and
// often page) for almost every key and stalls on read-for-ownership and
// TLB misses. Here each block's thread collects every bucket's next keys
// and values in a buffer and writes a bucket's buffer out when it is full,
// so the output is written in runs, one bucket at a time. Output and
// stability are those of the portable scatter (each bucket's keys keep
// their input order). Buffer size: tuning<>::sort::scatter_buffer_bytes.
// The buffers come from the space's workspace, one pair per unique token of
// the space (the threads that can run a block at once), so a sort
// allocates nothing per block or pass once the workspace has grown.
#pragma once

#include <sweep/detail/radix_sort.hpp>
#include <sweep/detail/workspace.hpp>
#include <sweep/tuning.hpp>

#include <Kokkos_Core.hpp>

#include <algorithm>
#include <bit>

namespace sweep::detail {

/// radix_scatter's pass with each bucket's next `entries` keys and values
/// staged in the buffers of the block's thread (slot `token.acquire()` of
/// `stage_keys` / `stage_vals`, buckets x entries each).
template <class ExecSpace, class KeysIn, class ValsIn, class KeysOut, class ValsOut, class Counts>
struct host_radix_scatter : radix_scatter<KeysIn, ValsIn, KeysOut, ValsOut, Counts> {
  using base = radix_scatter<KeysIn, ValsIn, KeysOut, ValsOut, Counts>;
  using K = typename base::K;
  using V = typename ValsIn::non_const_value_type;
  using base::blocks, base::block, base::counts, base::keys_in, base::keys_out, base::mask, base::n, base::shift,
      base::vals_in, base::vals_out;
  static constexpr int buckets = base::buckets;
  index_t entries;  // per bucket buffer
  Kokkos::Experimental::UniqueToken<ExecSpace> token;
  K* stage_keys;
  V* stage_vals;

  KOKKOS_INLINE_FUNCTION void operator()(const index_t b) const {
#if !defined(__CUDA_ARCH__)
    const index_t e = entries;
    const int id = token.acquire();
    K* const bk = stage_keys + std::size_t(id) * std::size_t(buckets * e);
    V* const bv = stage_vals + std::size_t(id) * std::size_t(buckets * e);
    index_t slot[buckets];
    index_t fill[buckets];
    for (int d = 0; d < buckets; ++d) {
      slot[d] = counts(d * blocks + b);
      fill[d] = 0;
    }
    auto flush = [&](int d, index_t count) {
      const index_t p = slot[d];
      const K* kb = bk + d * e;
      const V* vb = bv + d * e;
      for (index_t j = 0; j < count; ++j) keys_out(p + j) = kb[j];
      for (index_t j = 0; j < count; ++j) vals_out(p + j) = vb[j];
      slot[d] = p + count;
    };
    const index_t end = (b + 1) * block < n ? (b + 1) * block : n;
    for (index_t i = b * block; i < end; ++i) {
      const K k = keys_in(i);
      const int d = static_cast<int>((k >> shift) & mask);
      const index_t f = fill[d];
      bk[d * e + f] = k;
      bv[d * e + f] = vals_in(i);
      if (f + 1 == e) {
        flush(d, e);
        fill[d] = 0;
      } else {
        fill[d] = f + 1;
      }
    }
    for (int d = 0; d < buckets; ++d)
      if (fill[d] > 0) flush(d, fill[d]);
    token.release(id);
#else
    (void)b;
#endif
  }
};

template <class ExecSpace>
struct sort_backend<ExecSpace, host_kind> {
  template <class KeysIn, class ValsIn, class KeysOut, class ValsOut, class Counts,
            class K = typename KeysIn::non_const_value_type>
  static void scatter(const std::string& label, const ExecSpace& space, const KeysIn& kin, const ValsIn& vin,
                      const KeysOut& kout, const ValsOut& vout, const Counts& counts, index_t n, index_t block,
                      index_t blocks, int shift, K mask) {
    using V = typename ValsIn::non_const_value_type;
    constexpr std::size_t record = sizeof(K) + sizeof(V);
    const std::size_t budget = tuning<ExecSpace>::sort::scatter_buffer_bytes / (radix_digits::buckets * record);
    // A power of two entries per bucket, at least 4, no more than a block
    // spreads over the buckets on average.
    const auto fit = std::max<std::size_t>(4, std::min<std::size_t>(budget, std::size_t(block) / radix_digits::buckets));
    const auto entries = static_cast<index_t>(std::bit_floor(fit));
    const Kokkos::Experimental::UniqueToken<ExecSpace> token(space);
    const std::size_t per_slot = radix_digits::buckets * static_cast<std::size_t>(entries);
    const std::size_t slots = static_cast<std::size_t>(token.size());
    using lease_t = workspace_lease<typename ExecSpace::memory_space>;
    lease_t lease(lease_t::piece(slots * per_slot * sizeof(K)) + lease_t::piece(slots * per_slot * sizeof(V)));
    K* const stage_keys = lease.template take<K>(slots * per_slot);
    V* const stage_vals = lease.template take<V>(slots * per_slot);
    lease.release_after(space);  // an exception leaves the buffer pending on space
    Kokkos::parallel_for(label + "::scatter", range_policy<ExecSpace>(space, 0, blocks),
                         host_radix_scatter<ExecSpace, KeysIn, ValsIn, KeysOut, ValsOut, Counts>{
                             {kin, vin, kout, vout, counts, n, block, blocks, shift, mask},
                             entries,
                             token,
                             stage_keys,
                             stage_vals});
    // Host kernels have finished (or finish at this fence, which costs
    // nothing on a synchronous host backend): nothing is left pending.
    space.fence();
    lease.settled();
  }
};

}  // namespace sweep::detail
