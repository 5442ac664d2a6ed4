// The walks of a batch of rays. A packet walks the binary BVH: a stack
// entry carries the node and the mask of rays that reached it; at a node
// every ray of the mask is tested (the rays that hit form the active mask,
// whose share of the lanes is the packet's utilisation), and leaves are
// intersected for the active rays only, each keeping its closest hit so
// far. When all rays share their origin and the signs of their directions
// (primary rays, shadow rays traced from the light), an interval test of
// the whole packet against the box first rejects nodes that no ray can hit.
// With reordering (trace_mode::automatic) a packet whose utilisation falls
// to `compact_below` compacts its active rays into the smallest packet that
// holds them and continues the subtree with it, and at `single_below`
// active rays or fewer each continues the subtree alone. The walk is
// written once for every packet type. packet_kernel and single_kernel are
// the Kokkos functors of a batch.
#pragma once

#include <sweep/raytrace/packet.hpp>
#include <sweep/raytrace/trace_options.hpp>

namespace sweep::raytrace::detail {

/// Asks for the cache line at p ahead of use (siblings share one: two
/// 32-byte nodes); nothing on devices.
KOKKOS_INLINE_FUNCTION void prefetch([[maybe_unused]] const void* p) {
#if !defined(__CUDA_ARCH__) && !defined(__HIP_DEVICE_COMPILE__)
  __builtin_prefetch(p);
#endif
}

struct counters {
  std::uint64_t tests = 0, lanes = 0, active = 0, compactions = 0, singles = 0;
};

template <class P, bool Any, bool Reorder, class Mem>
KOKKOS_INLINE_FUNCTION void walk_packet(const bvh_view<Mem>& b, P& p, std::int32_t start, std::uint64_t mask,
                                        const trace_options& opt, counters& c);

/// Moves the active lanes into a packet of S lanes, walks the subtree with
/// it, and writes the results back.
template <int S, class P, bool Any, bool Reorder, class Mem>
KOKKOS_INLINE_FUNCTION void walk_compacted(const bvh_view<Mem>& b, P& p, std::int32_t node, std::uint64_t mask,
                                           const trace_options& opt, counters& c) {
  using Q = typename P::template resized<S>;
  Q q;
  int lane[S];
  q.compact_from(p, mask, lane);
  ++c.compactions;
  const std::uint64_t all = q.size == 64 ? ~std::uint64_t(0) : ((std::uint64_t(1) << q.size) - 1);
  walk_packet<Q, Any, Reorder>(b, q, node, all, opt, c);
  p.restore_from(q, lane, Any);
}

template <class P, bool Any, bool Reorder, class Mem>
KOKKOS_INLINE_FUNCTION void walk_packet(const bvh_view<Mem>& b, P& p, std::int32_t start, std::uint64_t mask,
                                        const trace_options& opt, counters& c) {
  constexpr int L = P::lanes;
  struct entry {
    std::int32_t node;
    std::uint64_t mask;
  };
  entry stack[P::backend::stack_size];
  int top = 0;
  stack[top++] = entry{start, mask};
  while (top > 0) {
    const entry e = stack[--top];
    std::uint64_t m = e.mask;
    const bvh_node& nd = b.nodes(e.node);
    if (p.bounds.shared && p.bounds.misses(nd.lo, nd.hi)) continue;
    // Early accept: when the first ray of the mask enters an inner node,
    // descend with the mask as it is (a superset of the rays that enter;
    // children's boxes lie inside, so it is re-tested where it matters).
    // Otherwise, and at every leaf, the mask is recomputed exactly.
    const int lead = ctz64(m);
    if (!nd.leaf() && p.hits_box(nd.lo, nd.hi, std::uint64_t(1) << lead)) {
      const bool flip = p.negative(nd.axis(), lead);
      prefetch(&b.nodes(nd.first));
      stack[top++] = entry{nd.first + (flip ? 0 : 1), m};
      stack[top++] = entry{nd.first + (flip ? 1 : 0), m};
      continue;
    }
    m = p.hits_box(nd.lo, nd.hi, m);
    ++c.tests;
    c.lanes += std::uint64_t(L);
    const int active = popcount64(m);
    c.active += std::uint64_t(active);
    if (!m) continue;
    if (Reorder && !nd.leaf()) {
      if (active <= opt.single_below) {
        for (std::uint64_t t = m; t; t &= t - 1) {
          p.template finish_alone<Any>(b, e.node, ctz64(t));
          ++c.singles;
        }
        continue;
      }
      if constexpr (L > 8) {
        if (float(active) <= opt.compact_below * float(L) && active <= L / 2) {
          // The smallest packet that holds the active rays.
          if (active <= 8) {
            walk_compacted<8, P, Any, Reorder>(b, p, e.node, m, opt, c);
          } else if constexpr (L >= 32) {
            if (active <= 16) walk_compacted<16, P, Any, Reorder>(b, p, e.node, m, opt, c);
            else if constexpr (L == 64) walk_compacted<32, P, Any, Reorder>(b, p, e.node, m, opt, c);
          }
          continue;
        }
      }
    }
    if (nd.leaf()) {
      p.template intersect_leaf<Any>(b, b.leaf_blocks(e.node), nd.count(), m);
      continue;
    }
    const bool flip = p.negative(nd.axis(), ctz64(m));
    prefetch(&b.nodes(nd.first));
    stack[top++] = entry{nd.first + (flip ? 0 : 1), m};
    stack[top++] = entry{nd.first + (flip ? 1 : 0), m};
  }
}

template <class P, bool Any, bool Reorder, class Mem, class Rays, class Out>
struct packet_kernel {
  using value_type = std::uint64_t[];
  unsigned value_count = 5;
  bvh_view<Mem> b;
  Rays rays;
  Out out;
  trace_options opt;
  index_t n;
  KOKKOS_INLINE_FUNCTION void operator()(const index_t k, value_type s) const {
    P p;
    const index_t first = k * P::lanes;
    const std::uint64_t mask = p.load(rays, first, n);
    counters c;
    if (mask) walk_packet<P, Any, Reorder>(b, p, 0, mask, opt, c);
    for (int i = 0; i < p.size; ++i) store(first + i, p.result(i));
    s[0] += c.tests, s[1] += c.lanes, s[2] += c.active, s[3] += c.compactions, s[4] += c.singles;
  }
  KOKKOS_INLINE_FUNCTION void store(index_t i, const hit& h) const {
    if constexpr (Any) out(i) = h.prim >= 0 ? 1 : 0;
    else out(i) = h.prim >= 0 ? h : hit{};
  }
};

/// Ray i walked alone through the wide BVH, its answer written to out(i).
template <bool Any, class Backend, class Mem, class Rays, class Out>
KOKKOS_INLINE_FUNCTION void trace_single(const bvh_view<Mem>& b, const Rays& rays, const Out& out, const index_t i) {
  const ray& q = rays(i);
  hit h{q.tmax, 0, 0, -1};
  if (q.tmin <= q.tmax) walk_wide<Any, Backend>(b, ray_setup(q), h);
  if constexpr (Any) out(i) = h.prim >= 0 ? 1 : 0;
  else out(i) = h.prim >= 0 ? h : hit{};
}

template <bool Any, class Backend, class Mem, class Rays, class Out>
struct single_kernel {
  bvh_view<Mem> b;
  Rays rays;
  Out out;
  KOKKOS_INLINE_FUNCTION void operator()(const index_t i) const { trace_single<Any, Backend>(b, rays, out, i); }
};

}  // namespace sweep::raytrace::detail
