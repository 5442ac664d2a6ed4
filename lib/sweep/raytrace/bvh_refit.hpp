// Refit: the boxes of one level recomputed from its leaves' triangles or
// its children's boxes, bottom up after the vertices move (same topology).
// Every box is padded by just over one ulp (`padded`, geometry.hpp).
#pragma once

#include <sweep/raytrace/bvh_nodes.hpp>

#include <Kokkos_Core.hpp>

namespace sweep::raytrace::detail {

/// Boxes of one level from its leaves' triangles or its children.
template <class Mem>
struct refit_level {
  Kokkos::View<bvh_node*, Mem> nodes;
  Kokkos::View<const triangle*, Mem> tris;
  index_t lo;
  KOKKOS_INLINE_FUNCTION void operator()(const index_t k) const {
    bvh_node& nd = nodes(lo + k);
    aabb b;
    if (nd.leaf()) {
      for (std::int32_t i = nd.first; i < nd.first + nd.count(); ++i) {
        b.grow(tris(i).a), b.grow(tris(i).b), b.grow(tris(i).c);
      }
      b = padded(b);
    } else {
      b.grow(aabb{nodes(nd.first).lo, nodes(nd.first).hi});
      b.grow(aabb{nodes(nd.first + 1).lo, nodes(nd.first + 1).hi});
    }
    nd.lo = b.lo, nd.hi = b.hi;
  }
};

}  // namespace sweep::raytrace::detail
