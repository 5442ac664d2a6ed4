// Single rays. walk_wide walks the wide BVH: the W child boxes of a node
// are tested, the nearest hit child is walked next and the others are
// pushed far to near, leaves are intersected as they are reached (closest
// hit: entries beyond the closest hit so far are skipped; any hit: the walk
// stops at the first). walk_binary walks a subtree of the binary BVH (the
// packets' fall-back). The wide tests and the stack depths are the packet
// backend's (raytrace/packet_backend.hpp).
#pragma once

#include <sweep/raytrace/bvh_view.hpp>

namespace sweep::raytrace::detail {

/// Single ray, wide BVH; h.t starts as the ray's tmax. The walk goes on
/// with the nearest child hit (closest hit) or any child hit (any hit)
/// without a stack round trip and pushes the others, farthest first.
template <bool Any, class Backend, class Mem>
KOKKOS_INLINE_FUNCTION void walk_wide(const bvh_view<Mem>& b, const ray_setup& r, hit& h) {
  constexpr int W = bvh_view<Mem>::wide_width;
  stack_entry stack[Backend::wide_stack_size];
  int top = 0;
  stack_entry cur{0, 0, r.tmin};
  while (true) {
    if (cur.count > 0) {
      if (Backend::template intersect_blocks<Any>(b, r, cur.ref, cur.count, h)) return;
    } else {
      const bvh_wide_node<W>& nd = b.wide(cur.ref);
      float t[W];
      int mask = Backend::wide_entries(r, nd, h.t, t);
      if (mask) {
        // The nearest hit child becomes current (any hit: the first).
        int pick = lowest_bit32(mask);
        if (!Any)
          for (int m = mask & (mask - 1); m; m &= m - 1) {
            const int c = lowest_bit32(m);
            if (t[c] < t[pick]) pick = c;
          }
        // The others go on the stack, farthest first (popped nearest first).
        int rest = mask & ~(1 << pick);
        while (rest) {
          int far = lowest_bit32(rest);
          if (!Any)
            for (int m = rest & (rest - 1); m; m &= m - 1) {
              const int c = lowest_bit32(m);
              if (t[c] > t[far]) far = c;
            }
          stack[top++] = stack_entry{nd.child[far], nd.count[far], t[far]};
          rest &= ~(1 << far);
        }
        cur = stack_entry{nd.child[pick], nd.count[pick], t[pick]};
        continue;
      }
    }
    // Next: the nearest pending entry that is not beyond the closest hit
    // (entry distances carry rounding: compared as box_entry does).
    do {
      if (top == 0) return;
      cur = stack[--top];
    } while (cur.t > h.t * exit_scale);
  }
}

/// Single ray, binary BVH, the subtree under `start`; h.t starts as the
/// ray's current tmax.
template <bool Any, class Backend, class Mem>
KOKKOS_INLINE_FUNCTION void walk_binary(const bvh_view<Mem>& b, const ray_setup& r, std::int32_t start, hit& h) {
  std::int32_t stack[Backend::stack_size];
  int top = 0;
  stack[top++] = start;
  while (top > 0) {
    const std::int32_t id = stack[--top];
    const bvh_node& nd = b.nodes(id);
    if (box_entry(r, nd.lo, nd.hi, h.t) == __builtin_huge_valf()) continue;
    if (nd.leaf()) {
      if (Backend::template intersect_blocks<Any>(b, r, b.leaf_blocks(id), nd.count(), h)) return;
      continue;
    }
    const bool flip = (nd.axis() == 0 ? r.inv.x : (nd.axis() == 1 ? r.inv.y : r.inv.z)) < 0;
    stack[top++] = nd.first + (flip ? 0 : 1);  // far
    stack[top++] = nd.first + (flip ? 1 : 0);  // near
  }
}

}  // namespace sweep::raytrace::detail
