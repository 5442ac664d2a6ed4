// Bounding-volume hierarchies over a triangle mesh, built in parallel on
// Kokkos: a binary BVH by binned SAH, refit, and a 4-wide BVH collapsed
// from it.
//
// Build, top down, one level of the tree at a time (no recursion):
//   1. every node of the level with more than `max_leaf` triangles bins its
//      triangles' centroids into `bins` bins per axis (counts and boxes)
//      and picks the split of least surface-area cost; a node whose
//      centroids coincide, or one deeper than `median_depth`, splits its
//      range in half instead;
//   2. every triangle flags its side; sweep::exclusive_scan of the flags
//      gives each its place, and one scatter partitions all nodes at once
//      (stable within each side);
//   3. an exclusive scan of the child counts numbers the next level, whose
//      boxes come from the bins.
// Nodes are stored level by level, siblings adjacent; triangles are copied
// into leaf order. `refit` recomputes the boxes bottom up after the
// vertices move (same topology). Every box is padded by just over one ulp
// (`padded`, geometry.hpp) so that axis-parallel rays on a face keep it.
// The 4-wide BVH collects under each of
// its nodes the four largest-area descendants (greedy:
// open the largest inner child until there are four), top down one level
// at a time with a scan placing the next level.
//
// Layouts: binary nodes are 32 bytes (box, first child or triangle, count
// and split axis); 4-wide nodes 128 bytes (the four boxes as structure of
// arrays, children, counts). Binary leaves reference ranges of the
// leaf-order triangles, 4-wide leaves runs of triangle blocks (four
// triangles as structure of arrays, tested together).
#pragma once

#include <sweep/raytrace/geometry.hpp>
#include <sweep/raytrace/mesh.hpp>
#include <sweep/scan.hpp>

#include <Kokkos_Core.hpp>

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

namespace sweep::raytrace {

/// A binary node: internal when count() == 0 (children first, first + 1),
/// else a leaf of triangles [first, first + count()).
struct bvh_node {
  vec3f lo, hi;
  std::int32_t first;
  std::uint32_t meta;  // count << 2 | split axis
  KOKKOS_INLINE_FUNCTION std::int32_t count() const { return std::int32_t(meta >> 2); }
  KOKKOS_INLINE_FUNCTION int axis() const { return int(meta & 3u); }
  KOKKOS_INLINE_FUNCTION bool leaf() const { return count() > 0; }
};

/// A 4-wide node. Slot c: count[c] == 0 an inner node child[c], count[c] > 0
/// a leaf of count[c] triangles in the triangle blocks from child[c] on,
/// count[c] < 0 empty.
struct bvh4_node {
  float lo_x[4], lo_y[4], lo_z[4], hi_x[4], hi_y[4], hi_z[4];
  std::int32_t child[4];
  std::int32_t count[4];
};

/// Up to four triangles of a 4-wide leaf as structure of arrays (one
/// leaf's triangles fill consecutive blocks); prim -1 pads.
struct triangle_block {
  float ax[4], ay[4], az[4], bx[4], by[4], bz[4], cx[4], cy[4], cz[4];
  std::int32_t prim[4];
};

struct bvh_options {
  int max_leaf = 4;       // triangles per leaf (more only past median_depth's limit)
  int bins = 16;          // SAH bins per axis, 2..32
  int median_depth = 48;  // below this depth nodes split at the median (bounds the depth)
};

namespace detail {

constexpr int max_bins = 32;

inline void check_bvh_options(const bvh_options& o) {
  const char* where = "sweep::raytrace::bvh";
  sweep::detail::require(o.max_leaf >= 1 && o.max_leaf <= 64, where, "max_leaf = ", o.max_leaf, " must be in [1, 64]");
  sweep::detail::require(o.bins >= 2 && o.bins <= max_bins, where, "bins = ", o.bins, " must be in [2, ", max_bins, "]");
  sweep::detail::require(o.median_depth >= 1 && o.median_depth <= 64, where, "median_depth = ", o.median_depth,
                         " must be in [1, 64]");
}

KOKKOS_INLINE_FUNCTION vec3f centroid(const aabb& b) { return 0.5f * (b.lo + b.hi); }

/// How a node splits: its side of each triangle and its children's boxes.
struct split_plan {
  int axis = -1;          // -1: a leaf
  int split_bin = 0;      // bins [0, split_bin) go left; -1: median split by position
  float lo = 0, scale = 0;
  aabb left, right;
};

template <class Mem>
struct build_views {
  Kokkos::View<const aabb*, Mem> boxes;  // per triangle
  Kokkos::View<std::int32_t*, Mem> ids;  // triangle order
  Kokkos::View<bvh_node*, Mem> nodes;
  Kokkos::View<std::int32_t*, Mem> begin, end;  // node ranges of ids
};

template <class Mem>
KOKKOS_INLINE_FUNCTION int bin_of(const split_plan& p, const aabb& box, int bins) {
  const float c = centroid(box)[p.axis];
  const int b = int((c - p.lo) * p.scale);
  return b < 0 ? 0 : (b >= bins ? bins - 1 : b);
}

/// Step 1 for frontier node lo + k.
template <class Mem>
struct plan_splits {
  build_views<Mem> v;
  Kokkos::View<split_plan*, Mem> plans;
  index_t lo;
  int level, max_leaf, bins, median_depth;
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
    float best = __builtin_huge_valf();
    if (level < median_depth) {
      for (int axis = 0; axis < 3; ++axis) {
        if (!(extent[axis] > 0)) continue;
        split_plan trial;
        trial.axis = axis;
        trial.lo = cb.lo[axis];
        trial.scale = float(bins) / extent[axis] * (1.0f - 1e-6f);
        aabb box[max_bins];
        std::int32_t count[max_bins];
        for (int j = 0; j < bins; ++j) count[j] = 0, box[j] = aabb{};
        for (std::int32_t i = b; i < e; ++i) {
          const aabb& t = v.boxes(v.ids(i));
          const int j = bin_of<Mem>(trial, t, bins);
          ++count[j];
          box[j].grow(t);
        }
        // Sweep: right areas from the top, then left to right.
        float right_area[max_bins];
        aabb acc;
        for (int j = bins - 1; j > 0; --j) acc.grow(box[j]), right_area[j] = acc.area();
        aabb left;
        std::int32_t nl = 0;
        for (int j = 1; j < bins; ++j) {
          left.grow(box[j - 1]);
          nl += count[j - 1];
          const std::int32_t nr = (e - b) - nl;
          if (nl == 0 || nr == 0) continue;
          const float cost = left.area() * float(nl) + right_area[j] * float(nr);
          if (cost < best) {
            best = cost;
            p = trial;
            p.split_bin = j;
          }
        }
      }
    }
    if (p.axis >= 0) {
      for (int side = 0; side < 2; ++side) (side ? p.right : p.left) = aabb{};
      for (std::int32_t i = b; i < e; ++i) {
        const aabb& t = v.boxes(v.ids(i));
        (bin_of<Mem>(p, t, bins) < p.split_bin ? p.left : p.right).grow(t);
      }
    } else {
      // Coincident centroids or past the depth limit: halves by position.
      p.axis = 0;
      p.split_bin = -1;
      const std::int32_t mid = b + (e - b) / 2;
      for (std::int32_t i = b; i < e; ++i) (i < mid ? p.left : p.right).grow(v.boxes(v.ids(i)));
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
  Kokkos::View<const std::int32_t*, Mem> scanned, child_offsets;
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
    const std::int32_t nleft = scanned(e) - scanned(b);
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

/// Greedy collapse, step 1: the up-to-four binary nodes under wide node
/// lo + k: its binary node's children, then repeatedly the inner node of
/// largest surface area replaced by its two children.
template <class Mem>
struct pick_children {
  Kokkos::View<const bvh_node*, Mem> nodes;
  Kokkos::View<const std::int32_t*, Mem> source;   // binary node of each wide node
  Kokkos::View<std::int32_t* [4], Mem> picks;      // -1: empty slot
  Kokkos::View<std::int32_t*, Mem> inner;          // inner children per frontier node
  index_t lo;
  KOKKOS_INLINE_FUNCTION void operator()(const index_t k) const {
    const bvh_node& nd = nodes(source(lo + k));
    std::int32_t list[4] = {nd.first, nd.first + 1, -1, -1};
    int size = 2;
    while (size < 4) {
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
    for (int j = 0; j < 4; ++j) {
      picks(k, j) = list[j];
      n_inner += list[j] >= 0 && !nodes(list[j]).leaf();
    }
    inner(k) = n_inner;
  }
};

/// Step 2: wide node lo + k's slots; its inner children become the next
/// frontier's wide nodes.
template <class Mem>
struct write_wide {
  Kokkos::View<const bvh_node*, Mem> nodes;
  Kokkos::View<const std::int32_t*, Mem> first_block;  // per binary node (leaves)
  Kokkos::View<std::int32_t*, Mem> source;
  Kokkos::View<const std::int32_t* [4], Mem> picks;
  Kokkos::View<const std::int32_t*, Mem> offsets;
  Kokkos::View<bvh4_node*, Mem> wide;
  index_t lo, hi;
  KOKKOS_INLINE_FUNCTION void operator()(const index_t k) const {
    bvh4_node w;
    std::int32_t next = std::int32_t(hi + offsets(k));
    for (int slot = 0; slot < 4; ++slot) {
      const std::int32_t b = picks(k, slot);
      if (b < 0) {
        w.lo_x[slot] = w.lo_y[slot] = w.lo_z[slot] = __builtin_huge_valf();
        w.hi_x[slot] = w.hi_y[slot] = w.hi_z[slot] = -__builtin_huge_valf();
        w.child[slot] = 0;
        w.count[slot] = -1;
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

}  // namespace detail

/// A mesh uploaded to ExecSpace's memory with its binary and 4-wide BVHs.
template <class ExecSpace = Kokkos::DefaultExecutionSpace>
class bvh {
 public:
  using memory_space = typename ExecSpace::memory_space;

  bvh(const ExecSpace& space, const mesh& m, const bvh_options& options = {}) : m_options(options) {
    detail::check_bvh_options(options);
    sweep::detail::require(!m.triangles.empty(), "sweep::raytrace::bvh", "the mesh has no triangles");
    sweep::detail::require(m.triangles.size() < (std::size_t(1) << 29), "sweep::raytrace::bvh", "the mesh has ",
                           m.triangles.size(), " triangles; at most 2^29 are supported");
    const auto nv = m.vertices.size();
    for (const auto& t : m.triangles)
      for (auto i : t)
        sweep::detail::require(i >= 0 && std::size_t(i) < nv, "sweep::raytrace::bvh", "vertex index ", i,
                               " out of range [0, ", nv, ")");
    m_vertices = Kokkos::View<vec3f*, memory_space>("sweep::raytrace::vertices", nv);
    m_indices = Kokkos::View<std::int32_t* [3], Kokkos::LayoutRight, memory_space>("sweep::raytrace::indices", m.triangles.size());
    auto hv = Kokkos::create_mirror_view(m_vertices);
    auto hi = Kokkos::create_mirror_view(m_indices);
    for (std::size_t i = 0; i < nv; ++i) hv(i) = m.vertices[i];
    for (std::size_t t = 0; t < m.triangles.size(); ++t)
      for (int c = 0; c < 3; ++c) hi(t, c) = m.triangles[t][std::size_t(c)];
    Kokkos::deep_copy(m_vertices, hv);
    Kokkos::deep_copy(m_indices, hi);
    build(space);
  }

  /// Rebuilds nothing: moves the vertices (same count and triangles) and
  /// recomputes every box bottom up.
  void refit(const ExecSpace& space, const std::vector<vec3f>& vertices) {
    sweep::detail::scoped_region region("sweep::raytrace::bvh::refit");
    sweep::detail::require(vertices.size() == m_vertices.extent(0), "sweep::raytrace::bvh::refit", "got ",
                           vertices.size(), " vertices, the mesh has ", m_vertices.extent(0));
    auto hv = Kokkos::create_mirror_view(m_vertices);
    for (std::size_t i = 0; i < vertices.size(); ++i) hv(i) = vertices[i];
    Kokkos::deep_copy(m_vertices, hv);
    const index_t n = triangle_count();
    Kokkos::parallel_for("sweep::raytrace::leaf_triangles", Kokkos::RangePolicy<ExecSpace>(space, 0, n),
                         detail::leaf_triangles<memory_space>{m_vertices, m_indices, m_ids, m_tris});
    for (int l = depth() - 1; l >= 0; --l)
      Kokkos::parallel_for("sweep::raytrace::refit", Kokkos::RangePolicy<ExecSpace>(space, 0, m_levels[l + 1] - m_levels[l]),
                           detail::refit_level<memory_space>{m_nodes, m_tris, m_levels[l]});
    collapse(space);
  }

  Kokkos::View<const bvh_node*, memory_space> nodes() const { return m_nodes; }
  Kokkos::View<const bvh4_node*, memory_space> wide_nodes() const { return m_wide; }
  /// The first triangle block of each binary leaf (indexed by node).
  Kokkos::View<const std::int32_t*, memory_space> leaf_blocks() const { return m_leaf_blocks; }
  /// The 4-wide leaves' triangles, four to a block.
  Kokkos::View<const triangle_block*, memory_space> triangle_blocks() const { return m_blocks; }
  /// Triangles in leaf order, and the mesh index of each.
  Kokkos::View<const triangle*, memory_space> triangles() const { return m_tris; }
  Kokkos::View<const std::int32_t*, memory_space> primitive_ids() const { return m_ids; }
  /// The mesh as uploaded: vertices and the vertex indices of each triangle.
  Kokkos::View<const vec3f*, memory_space> vertices() const { return m_vertices; }
  Kokkos::View<const std::int32_t* [3], Kokkos::LayoutRight, memory_space> indices() const { return m_indices; }
  index_t triangle_count() const { return index_t(m_indices.extent(0)); }
  index_t node_count() const { return index_t(m_nodes.extent(0)); }
  index_t wide_node_count() const { return index_t(m_wide.extent(0)); }
  /// Levels of the binary tree (the root alone: 1).
  int depth() const { return int(m_levels.size()) - 1; }
  /// Binary nodes of level l are [level_offsets()[l], level_offsets()[l + 1]).
  const std::vector<index_t>& level_offsets() const { return m_levels; }
  const bvh_options& options() const { return m_options; }
  /// The root's box.
  aabb bounds() const {
    bvh_node root;
    Kokkos::deep_copy(root, Kokkos::subview(m_nodes, 0));
    return aabb{root.lo, root.hi};
  }

  // Build steps. Public only because CUDA's extended lambdas may not live in
  // private member functions; call the constructor or refit() instead.
  void build(const ExecSpace& space) {
    sweep::detail::scoped_region region("sweep::raytrace::bvh::build");
    using Range = Kokkos::RangePolicy<ExecSpace>;
    const index_t n = triangle_count();
    Kokkos::View<aabb*, memory_space> boxes(Kokkos::view_alloc(Kokkos::WithoutInitializing, "sweep::raytrace::boxes"), n);
    Kokkos::parallel_for("sweep::raytrace::triangle_boxes", Range(space, 0, n),
                         detail::triangle_boxes<memory_space>{m_vertices, m_indices, boxes});
    m_ids = Kokkos::View<std::int32_t*, memory_space>(Kokkos::view_alloc(Kokkos::WithoutInitializing, "sweep::raytrace::ids"), n);
    Kokkos::View<std::int32_t*, memory_space> tmp(Kokkos::view_alloc(Kokkos::WithoutInitializing, "sweep::raytrace::ids_tmp"), n);
    const auto ids = m_ids;
    Kokkos::parallel_for("sweep::raytrace::iota", Range(space, 0, n),
                         KOKKOS_LAMBDA(const index_t i) { ids(i) = std::int32_t(i); });
    // A binary tree with leaves of >= 1 triangle has at most 2n - 1 nodes.
    const index_t capacity = 2 * n;
    Kokkos::View<bvh_node*, memory_space> nodes("sweep::raytrace::nodes", capacity);
    Kokkos::View<std::int32_t*, memory_space> begin("sweep::raytrace::node_begin", capacity),
        end("sweep::raytrace::node_end", capacity);
    Kokkos::View<std::int32_t*, memory_space> flags("sweep::raytrace::flags", n + 1);
    Kokkos::View<detail::split_plan*, memory_space> plans("sweep::raytrace::plans", n);
    Kokkos::View<std::int32_t*, memory_space> child_counts("sweep::raytrace::child_counts", n),
        child_offsets("sweep::raytrace::child_offsets", n);
    m_levels.assign({0, 1});
    set_root(space, nodes, begin, end, boxes, n);
    const int bins = m_options.bins, max_leaf = m_options.max_leaf;
    for (int level = 0;; ++level) {
      const index_t lo = m_levels[level], hi = m_levels[level + 1], width = hi - lo;
      detail::build_views<memory_space> v{boxes, m_ids, nodes, begin, end};
      Kokkos::parallel_for("sweep::raytrace::plan_splits",
                           Kokkos::RangePolicy<ExecSpace, Kokkos::Schedule<Kokkos::Dynamic>>(space, 0, width),
                           detail::plan_splits<memory_space>{v, plans, lo, level, max_leaf, bins, m_options.median_depth});
      Kokkos::parallel_for("sweep::raytrace::flag_left", Range(space, 0, n + 1),
                           detail::flag_left<memory_space>{v, plans, flags, lo, hi, n, bins});
      exclusive_scan("sweep::raytrace::partition_scan", space, flags, flags, std::int32_t(0));
      Kokkos::parallel_for("sweep::raytrace::partition", Range(space, 0, n),
                           detail::partition_ids<memory_space>{v, plans, flags, tmp, lo, hi});
      std::swap(m_ids, tmp);
      const auto pl = plans;
      const auto cc = Kokkos::subview(child_counts, Kokkos::make_pair(index_t(0), width));
      const auto co = Kokkos::subview(child_offsets, Kokkos::make_pair(index_t(0), width));
      Kokkos::parallel_for("sweep::raytrace::child_counts", Range(space, 0, width),
                           KOKKOS_LAMBDA(const index_t k) { cc(k) = pl(k).axis >= 0 ? 2 : 0; });
      const index_t children = exclusive_scan("sweep::raytrace::child_scan", space, cc, co, std::int32_t(0));
      v.ids = m_ids;
      Kokkos::parallel_for("sweep::raytrace::write_children", Range(space, 0, width),
                           detail::write_children<memory_space>{v, plans, flags, co, lo, hi});
      if (children == 0) break;
      m_levels.push_back(hi + children);
    }
    m_nodes = Kokkos::subview(nodes, Kokkos::make_pair(index_t(0), m_levels.back()));
    m_tris = Kokkos::View<triangle*, memory_space>(Kokkos::view_alloc(Kokkos::WithoutInitializing, "sweep::raytrace::tris"), n);
    Kokkos::parallel_for("sweep::raytrace::leaf_triangles", Range(space, 0, n),
                         detail::leaf_triangles<memory_space>{m_vertices, m_indices, m_ids, m_tris});
    collapse(space);
  }

  static void set_root(const ExecSpace& space, Kokkos::View<bvh_node*, memory_space> nodes,
                       Kokkos::View<std::int32_t*, memory_space> begin, Kokkos::View<std::int32_t*, memory_space> end,
                       Kokkos::View<aabb*, memory_space> boxes, index_t n) {
    // The root's box: a min/max reduction per axis.
    float lo[3], hi[3];
    for (int axis = 0; axis < 3; ++axis) {
      Kokkos::MinMaxScalar<float> mm;
      Kokkos::parallel_reduce(
          "sweep::raytrace::root_box", Kokkos::RangePolicy<ExecSpace>(space, 0, n),
          KOKKOS_LAMBDA(const index_t t, Kokkos::MinMaxScalar<float>& acc) {
            const float a = boxes(t).lo[axis], b = boxes(t).hi[axis];
            if (a < acc.min_val) acc.min_val = a;
            if (b > acc.max_val) acc.max_val = b;
          },
          Kokkos::MinMax<float>(mm));
      lo[axis] = mm.min_val, hi[axis] = mm.max_val;
    }
    const aabb root{{lo[0], lo[1], lo[2]}, {hi[0], hi[1], hi[2]}};
    Kokkos::parallel_for(
        "sweep::raytrace::root", Kokkos::RangePolicy<ExecSpace>(space, 0, 1), KOKKOS_LAMBDA(const index_t) {
          nodes(0).lo = root.lo, nodes(0).hi = root.hi;
          begin(0) = 0, end(0) = std::int32_t(n);
        });
  }

  void collapse(const ExecSpace& space) {
    using Range = Kokkos::RangePolicy<ExecSpace>;
    const auto nodes = m_nodes;
    // Triangle blocks: ceil(count / 4) per leaf, numbered by a scan.
    Kokkos::View<std::int32_t*, memory_space> first_block("sweep::raytrace::first_block", node_count() + 1);
    m_leaf_blocks = first_block;
    Kokkos::parallel_for(
        "sweep::raytrace::block_counts", Range(space, 0, node_count() + 1), KOKKOS_LAMBDA(const index_t n) {
          first_block(n) = n < index_t(nodes.extent(0)) && nodes(n).leaf() ? (nodes(n).count() + 3) / 4 : 0;
        });
    const index_t blocks = exclusive_scan("sweep::raytrace::block_scan", space, first_block, first_block, std::int32_t(0));
    m_blocks = Kokkos::View<triangle_block*, memory_space>(
        Kokkos::view_alloc(Kokkos::WithoutInitializing, "sweep::raytrace::triangle_blocks"), blocks);
    Kokkos::parallel_for("sweep::raytrace::fill_blocks", Range(space, 0, node_count()),
                         detail::fill_blocks<memory_space>{m_nodes, first_block, m_tris, m_ids, m_blocks});
    // Every inner binary node becomes at most one wide node.
    const index_t capacity = node_count() / 2 + 1;
    Kokkos::View<bvh4_node*, memory_space> wide("sweep::raytrace::wide_nodes", capacity);
    Kokkos::View<std::int32_t*, memory_space> source("sweep::raytrace::wide_source", capacity);
    Kokkos::View<std::int32_t* [4], memory_space> picks("sweep::raytrace::wide_picks", capacity);
    Kokkos::View<std::int32_t*, memory_space> inner("sweep::raytrace::wide_inner", capacity),
        offsets("sweep::raytrace::wide_offsets", capacity);
    bvh_node root;
    Kokkos::deep_copy(root, Kokkos::subview(m_nodes, 0));
    if (root.leaf()) {
      // A tree that is one leaf gets one wide node holding it.
      Kokkos::parallel_for(
          "sweep::raytrace::wide_leaf", Range(space, 0, 1), KOKKOS_LAMBDA(const index_t) {
            bvh4_node out;
            for (int s = 0; s < 4; ++s) {
              out.lo_x[s] = out.lo_y[s] = out.lo_z[s] = __builtin_huge_valf();
              out.hi_x[s] = out.hi_y[s] = out.hi_z[s] = -__builtin_huge_valf();
              out.child[s] = 0;
              out.count[s] = -1;
            }
            out.lo_x[0] = nodes(0).lo.x, out.lo_y[0] = nodes(0).lo.y, out.lo_z[0] = nodes(0).lo.z;
            out.hi_x[0] = nodes(0).hi.x, out.hi_y[0] = nodes(0).hi.y, out.hi_z[0] = nodes(0).hi.z;
            out.child[0] = first_block(0);
            out.count[0] = nodes(0).count();
            wide(0) = out;
          });
      m_wide = Kokkos::subview(wide, Kokkos::make_pair(index_t(0), index_t(1)));
      return;
    }
    Kokkos::deep_copy(space, Kokkos::subview(source, 0), std::int32_t(0));
    index_t lo = 0, hi = 1;
    while (hi > lo) {
      const index_t width = hi - lo;
      const auto in = Kokkos::subview(inner, Kokkos::make_pair(index_t(0), width));
      const auto off = Kokkos::subview(offsets, Kokkos::make_pair(index_t(0), width));
      Kokkos::parallel_for("sweep::raytrace::pick_children", Range(space, 0, width),
                           detail::pick_children<memory_space>{m_nodes, source, picks, in, lo});
      const index_t made = exclusive_scan("sweep::raytrace::wide_scan", space, in, off, std::int32_t(0));
      Kokkos::parallel_for("sweep::raytrace::write_wide", Range(space, 0, width),
                           detail::write_wide<memory_space>{m_nodes, first_block, source, picks, off, wide, lo, hi});
      lo = hi;
      hi += made;
    }
    m_wide = Kokkos::subview(wide, Kokkos::make_pair(index_t(0), hi));
  }

 private:
  bvh_options m_options;
  Kokkos::View<vec3f*, memory_space> m_vertices;
  Kokkos::View<std::int32_t* [3], Kokkos::LayoutRight, memory_space> m_indices;
  Kokkos::View<std::int32_t*, memory_space> m_ids;
  Kokkos::View<bvh_node*, memory_space> m_nodes;
  Kokkos::View<bvh4_node*, memory_space> m_wide;
  Kokkos::View<triangle*, memory_space> m_tris;
  Kokkos::View<triangle_block*, memory_space> m_blocks;
  Kokkos::View<std::int32_t*, memory_space> m_leaf_blocks;
  std::vector<index_t> m_levels;
};

}  // namespace sweep::raytrace
