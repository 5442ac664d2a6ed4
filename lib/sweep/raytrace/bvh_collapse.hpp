// The W-wide BVH collapsed from the binary one: under each wide node the
// W largest-area descendants (greedy: open the largest inner child until
// there are W), top down one level at a time with a scan placing the next
// level; binary leaves become runs of four-triangle blocks.
#pragma once

#include <sweep/raytrace/bvh_nodes.hpp>

#include <Kokkos_Core.hpp>

#include <cstdint>

namespace sweep::raytrace::detail {

/// Greedy collapse, step 1: the up-to-W binary nodes under wide node
/// lo + k: its binary node's children, then repeatedly the inner node of
/// largest surface area replaced by its two children.
template <class Mem, int W>
struct pick_children {
  Kokkos::View<const bvh_node*, Mem> nodes;
  Kokkos::View<const std::int32_t*, Mem> source;   // binary node of each wide node
  Kokkos::View<std::int32_t* [W], Mem> picks;      // -1: empty slot
  Kokkos::View<std::int32_t*, Mem> inner;          // inner children per frontier node
  index_t lo;
  KOKKOS_INLINE_FUNCTION void operator()(const index_t k) const {
    const bvh_node& nd = nodes(source(lo + k));
    std::int32_t list[W];
    list[0] = nd.first, list[1] = nd.first + 1;
    for (int j = 2; j < W; ++j) list[j] = -1;
    int size = 2;
    while (size < W) {
      int best = -1;
      float area = -1;
      for (int j = 0; j < size; ++j) {
        const bvh_node& c = nodes(list[j]);
        const float a = aabb{c.lo, c.hi}.area();
        if (!c.leaf() && a > area) best = j, area = a;
      }
      if (best < 0) break;
      const std::int32_t open = list[best];
      list[best] = nodes(open).first;
      list[size++] = nodes(open).first + 1;
    }
    int n_inner = 0;
    for (int j = 0; j < W; ++j) {
      picks(k, j) = list[j];
      n_inner += list[j] >= 0 && !nodes(list[j]).leaf();
    }
    inner(k) = n_inner;
  }
};

/// Step 2: wide node lo + k's slots; its inner children become the next
/// frontier's wide nodes.
/// An empty slot of a wide node.
template <int W>
KOKKOS_INLINE_FUNCTION void clear_slot(bvh_wide_node<W>& w, int slot) {
  w.lo_x[slot] = w.lo_y[slot] = w.lo_z[slot] = __builtin_huge_valf();
  w.hi_x[slot] = w.hi_y[slot] = w.hi_z[slot] = -__builtin_huge_valf();
  w.child[slot] = 0;
  w.count[slot] = -1;
}

template <class Mem, int W>
struct write_wide {
  Kokkos::View<const bvh_node*, Mem> nodes;
  Kokkos::View<const std::int32_t*, Mem> first_block;  // per binary node (leaves)
  Kokkos::View<std::int32_t*, Mem> source;
  Kokkos::View<const std::int32_t* [W], Mem> picks;
  Kokkos::View<const std::int32_t*, Mem> offsets;
  Kokkos::View<bvh_wide_node<W>*, Mem> wide;
  index_t lo, hi;
  KOKKOS_INLINE_FUNCTION void operator()(const index_t k) const {
    bvh_wide_node<W> w;
    std::int32_t next = std::int32_t(hi + offsets(k));
    for (int slot = 0; slot < W; ++slot) {
      const std::int32_t b = picks(k, slot);
      if (b < 0) {
        clear_slot(w, slot);
        continue;
      }
      const bvh_node& ch = nodes(b);
      w.lo_x[slot] = ch.lo.x, w.lo_y[slot] = ch.lo.y, w.lo_z[slot] = ch.lo.z;
      w.hi_x[slot] = ch.hi.x, w.hi_y[slot] = ch.hi.y, w.hi_z[slot] = ch.hi.z;
      if (ch.leaf()) {
        w.child[slot] = first_block(b);
        w.count[slot] = ch.count();
      } else {
        source(next) = b;
        w.child[slot] = next++;
        w.count[slot] = 0;
      }
    }
    wide(lo + k) = w;
  }
};

/// The triangle blocks of binary leaf n (blocks from first_block(n) on).
template <class Mem>
struct fill_blocks {
  Kokkos::View<const bvh_node*, Mem> nodes;
  Kokkos::View<const std::int32_t*, Mem> first_block;
  Kokkos::View<const triangle*, Mem> tris;
  Kokkos::View<const std::int32_t*, Mem> ids;
  Kokkos::View<triangle_block*, Mem> blocks;
  KOKKOS_INLINE_FUNCTION void operator()(const index_t n) const {
    const bvh_node& nd = nodes(n);
    if (!nd.leaf()) return;
    for (std::int32_t k = 0; k < (nd.count() + 3) / 4; ++k) {
      triangle_block blk;
      for (int lane = 0; lane < 4; ++lane) {
        const std::int32_t i = nd.first + 4 * k + lane;
        const bool on = i < nd.first + nd.count();
        const triangle t = on ? tris(i) : tris(nd.first);
        blk.ax[lane] = t.a.x, blk.ay[lane] = t.a.y, blk.az[lane] = t.a.z;
        blk.bx[lane] = t.b.x, blk.by[lane] = t.b.y, blk.bz[lane] = t.b.z;
        blk.cx[lane] = t.c.x, blk.cy[lane] = t.c.y, blk.cz[lane] = t.c.z;
        blk.prim[lane] = on ? ids(i) : -1;
      }
      blocks(first_block(n) + k) = blk;
    }
  }
};

}  // namespace sweep::raytrace::detail
