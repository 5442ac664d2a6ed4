// The steps of the binned-SAH build (bvh.hpp runs them one level of the
// tree at a time):
//   1. plan_splits: every node of the level with more than `max_leaf`
//      triangles bins its triangles' centroids into `bins` bins per axis
//      (counts and boxes, all three axes in one pass) and picks the split
//      of least surface-area cost, whose children's boxes and sizes come
//      from the bins; a node whose centroids coincide, or one deeper than
//      `median_depth`, splits its range in half instead. On a level with
//      many nodes it also partitions its range in place (partition_in_node);
//   2. otherwise (few, large nodes) flag_left + partition_ids: every
//      triangle flags its side; an exclusive scan of the flags gives each
//      its place, and one scatter partitions all nodes at once. Both
//      partitions are stable within each side, so both give the same order;
//   3. write_children: leaves are finished, splitting nodes get their two
//      children.
// triangle_boxes and leaf_triangles prepare the input and copy triangles
// into leaf order.
#pragma once

#include <sweep/raytrace/bvh_nodes.hpp>
#include <sweep/raytrace/mesh.hpp>

#include <Kokkos_Core.hpp>

#include <cstdint>

namespace sweep::raytrace::detail {

KOKKOS_INLINE_FUNCTION vec3f centroid(const aabb& b) { return 0.5f * (b.lo + b.hi); }

/// How a node splits: its side of each triangle and its children's boxes.
struct split_plan {
  int axis = -1;          // -1: a leaf
  int split_bin = 0;      // bins [0, split_bin) go left; -1: median split by position
  float lo = 0, scale = 0;
  std::int32_t nleft = 0;  // triangles that go left
  aabb left, right;
};

template <class Mem>
struct build_views {
  Kokkos::View<const aabb*, Mem> boxes;  // per triangle
  Kokkos::View<std::int32_t*, Mem> ids;  // triangle order
  Kokkos::View<bvh_node*, Mem> nodes;
  Kokkos::View<std::int32_t*, Mem> begin, end;  // node ranges of ids
};

KOKKOS_INLINE_FUNCTION int bin_of(float c, float lo, float scale, int bins) {
  const int b = int((c - lo) * scale);
  return b < 0 ? 0 : (b >= bins ? bins - 1 : b);
}

template <class Mem>
KOKKOS_INLINE_FUNCTION int bin_of(const split_plan& p, const aabb& box, int bins) {
  return bin_of(centroid(box)[p.axis], p.lo, p.scale, bins);
}

/// Step 1 for frontier node lo + k. With partition_in_node (the nodes of a
/// level own disjoint ranges of ids) the node also partitions its range:
/// lefts in order, rights in order after them, through `tmp`.
template <class Mem>
struct plan_splits {
  build_views<Mem> v;
  Kokkos::View<split_plan*, Mem> plans;
  Kokkos::View<std::int32_t*, Mem> tmp;
  index_t lo;
  int level, max_leaf, bins, median_depth;
  bool partition_in_node;
  KOKKOS_INLINE_FUNCTION void operator()(const index_t k) const {
    const index_t node = lo + k;
    const std::int32_t b = v.begin(node), e = v.end(node);
    split_plan p;
    if (e - b <= max_leaf) {
      plans(k) = p;
      return;
    }
    aabb cb;
    for (std::int32_t i = b; i < e; ++i) cb.grow(centroid(v.boxes(v.ids(i))));
    const vec3f extent = cb.hi - cb.lo;
    if (level < median_depth) {
      // Counts and boxes per bin of every axis with an extent, in one pass.
      float axis_lo[3], axis_scale[3];
      aabb box[3][max_bins];
      std::int32_t count[3][max_bins];
      for (int axis = 0; axis < 3; ++axis) {
        axis_lo[axis] = cb.lo[axis];
        axis_scale[axis] = extent[axis] > 0 ? float(bins) / extent[axis] * (1.0f - 1e-6f) : 0.0f;
        for (int j = 0; j < bins; ++j) count[axis][j] = 0, box[axis][j] = aabb{};
      }
      for (std::int32_t i = b; i < e; ++i) {
        const aabb& t = v.boxes(v.ids(i));
        const vec3f c = centroid(t);
        for (int axis = 0; axis < 3; ++axis) {
          if (!(extent[axis] > 0)) continue;
          const int j = bin_of(c[axis], axis_lo[axis], axis_scale[axis], bins);
          ++count[axis][j];
          box[axis][j].grow(t);
        }
      }
      float best = __builtin_huge_valf();
      for (int axis = 0; axis < 3; ++axis) {
        if (!(extent[axis] > 0)) continue;
        // Sweep: right areas from the top, then left to right.
        float right_area[max_bins];
        aabb acc;
        for (int j = bins - 1; j > 0; --j) acc.grow(box[axis][j]), right_area[j] = acc.area();
        aabb left;
        std::int32_t nl = 0;
        for (int j = 1; j < bins; ++j) {
          left.grow(box[axis][j - 1]);
          nl += count[axis][j - 1];
          const std::int32_t nr = (e - b) - nl;
          if (nl == 0 || nr == 0) continue;
          const float cost = left.area() * float(nl) + right_area[j] * float(nr);
          if (cost < best) {
            best = cost;
            p.axis = axis;
            p.lo = axis_lo[axis];
            p.scale = axis_scale[axis];
            p.split_bin = j;
          }
        }
      }
      if (p.axis >= 0) {
        // The children's boxes are unions of the bins' (min and max: exact).
        for (int j = 0; j < bins; ++j) {
          (j < p.split_bin ? p.left : p.right).grow(box[p.axis][j]);
          if (j < p.split_bin) p.nleft += count[p.axis][j];
        }
      }
    }
    if (p.axis < 0) {
      // Coincident centroids or past the depth limit: halves by position.
      p.axis = 0;
      p.split_bin = -1;
      p.nleft = (e - b) / 2;
      const std::int32_t mid = b + p.nleft;
      for (std::int32_t i = b; i < e; ++i) (i < mid ? p.left : p.right).grow(v.boxes(v.ids(i)));
    }
    if (partition_in_node) {
      // Lefts forward from b, rights backward from e - 1, then back in order.
      std::int32_t l = b, r = e;
      for (std::int32_t i = b; i < e; ++i) {
        const std::int32_t id = v.ids(i);
        const bool left = p.split_bin < 0 ? i < b + p.nleft : bin_of<Mem>(p, v.boxes(id), bins) < p.split_bin;
        if (left) tmp(l++) = id;
        else tmp(--r) = id;
      }
      for (std::int32_t i = b; i < l; ++i) v.ids(i) = tmp(i);
      for (std::int32_t i = l; i < e; ++i) v.ids(i) = tmp(e - 1 - (i - l));
    }
    plans(k) = p;
  }
};

/// The frontier node holding id position i (frontier begins are sorted),
/// or -1 when i is in a finished leaf.
template <class Mem>
KOKKOS_INLINE_FUNCTION index_t frontier_node(const build_views<Mem>& v, index_t lo, index_t hi, index_t i) {
  index_t a = lo, z = hi;  // last node with begin <= i
  while (z - a > 1) {
    const index_t mid = a + (z - a) / 2;
    if (v.begin(mid) <= i) a = mid;
    else z = mid;
  }
  return (v.begin(a) <= i && i < v.end(a)) ? a : -1;
}

/// Step 2a: 1 for a triangle that goes left (in a splitting node).
template <class Mem>
struct flag_left {
  build_views<Mem> v;
  Kokkos::View<const split_plan*, Mem> plans;
  Kokkos::View<std::int32_t*, Mem> flags;
  index_t lo, hi, n;
  int bins;
  KOKKOS_INLINE_FUNCTION void operator()(const index_t i) const {
    if (i == n) {
      flags(i) = 0;
      return;
    }
    const index_t node = frontier_node(v, lo, hi, i);
    int left = 0;
    if (node >= 0) {
      const split_plan& p = plans(node - lo);
      if (p.axis >= 0)
        left = p.split_bin < 0 ? (i < v.begin(node) + (v.end(node) - v.begin(node)) / 2)
                               : (bin_of<Mem>(p, v.boxes(v.ids(i)), bins) < p.split_bin);
    }
    flags(i) = left;
  }
};

/// Step 2b: each triangle to its place (flags now hold the exclusive scan).
template <class Mem>
struct partition_ids {
  build_views<Mem> v;
  Kokkos::View<const split_plan*, Mem> plans;
  Kokkos::View<const std::int32_t*, Mem> scanned;
  Kokkos::View<std::int32_t*, Mem> out;
  index_t lo, hi;
  KOKKOS_INLINE_FUNCTION void operator()(const index_t i) const {
    const index_t node = frontier_node(v, lo, hi, i);
    if (node < 0 || plans(node - lo).axis < 0) {
      out(i) = v.ids(i);
      return;
    }
    const std::int32_t b = v.begin(node), e = v.end(node);
    const std::int32_t before = scanned(i) - scanned(b);  // lefts in [b, i)
    const std::int32_t nleft = scanned(e) - scanned(b);
    const bool left = scanned(i + 1) != scanned(i);
    out(left ? b + before : b + nleft + (std::int32_t(i) - b - before)) = v.ids(i);
  }
};

/// Step 3: leaves are finished, splitting nodes get their two children.
template <class Mem>
struct write_children {
  build_views<Mem> v;
  Kokkos::View<const split_plan*, Mem> plans;
  Kokkos::View<const std::int32_t*, Mem> child_offsets;
  index_t lo, hi;
  KOKKOS_INLINE_FUNCTION void operator()(const index_t k) const {
    const index_t node = lo + k;
    const split_plan& p = plans(k);
    bvh_node& nd = v.nodes(node);
    const std::int32_t b = v.begin(node), e = v.end(node);
    if (p.axis < 0) {
      nd.first = b;
      nd.meta = std::uint32_t(e - b) << 2;
      return;
    }
    const std::int32_t nleft = p.nleft;
    const index_t c = hi + child_offsets(k);
    nd.first = std::int32_t(c);
    nd.meta = std::uint32_t(p.axis);
    v.nodes(c).lo = p.left.lo, v.nodes(c).hi = p.left.hi;
    v.nodes(c + 1).lo = p.right.lo, v.nodes(c + 1).hi = p.right.hi;
    v.begin(c) = b, v.end(c) = b + nleft;
    v.begin(c + 1) = b + nleft, v.end(c + 1) = e;
  }
};

template <class Mem>
struct triangle_boxes {
  Kokkos::View<const vec3f*, Mem> vertices;
  Kokkos::View<const std::int32_t* [3], Kokkos::LayoutRight, Mem> indices;
  Kokkos::View<aabb*, Mem> boxes;
  KOKKOS_INLINE_FUNCTION void operator()(const index_t t) const {
    aabb b;
    for (int c = 0; c < 3; ++c) b.grow(vertices(indices(t, c)));
    boxes(t) = padded(b);  // node boxes are unions of these
  }
};

template <class Mem>
struct leaf_triangles {
  Kokkos::View<const vec3f*, Mem> vertices;
  Kokkos::View<const std::int32_t* [3], Kokkos::LayoutRight, Mem> indices;
  Kokkos::View<const std::int32_t*, Mem> ids;
  Kokkos::View<triangle*, Mem> tris;
  KOKKOS_INLINE_FUNCTION void operator()(const index_t i) const {
    const std::int32_t t = ids(i);
    tris(i) = triangle{vertices(indices(t, 0)), vertices(indices(t, 1)), vertices(indices(t, 2))};
  }
};

}  // namespace sweep::raytrace::detail
