// Bounding-volume hierarchies over a triangle mesh, built in parallel on
// Kokkos: a binary BVH by binned SAH, refit, and a wide BVH collapsed from
// it (tuning<ExecSpace>::raytrace::wide_width children per node: 8 on a
// CPU, 4 on a GPU).
//
// Build, top down, one level of the tree at a time (no recursion):
//   1. every node of the level with more than `max_leaf` triangles bins its
//      triangles' centroids into `bins` bins per axis (counts and boxes)
//      and picks the split of least surface-area cost; a node whose
//      centroids coincide, or one deeper than `median_depth`, splits its
//      range in half instead;
//   2. on a level of few (large) nodes every triangle flags its side;
//      sweep::exclusive_scan of the flags gives each its place, and one
//      scatter partitions all nodes at once; on a wider level
//      (tuning<>::raytrace::build_nodes_per_thread nodes per thread) each
//      node partitions its own range in step 1. Both are stable within
//      each side and give the same tree;
//   3. an exclusive scan of the child counts numbers the next level, whose
//      boxes come from the bins.
// Nodes are stored level by level, siblings adjacent; triangles are copied
// into leaf order. `refit` recomputes the boxes bottom up after the
// vertices move (same topology). Every box is padded by just over one ulp
// (`padded`, geometry.hpp) so that axis-parallel rays on a face keep it.
// The wide BVH collects under each of
// its nodes the W largest-area descendants (greedy:
// open the largest inner child until there are W), top down one level
// at a time with a scan placing the next level.
//
// Layouts: binary nodes are 32 bytes (box, first child or triangle, count
// and split axis); wide nodes 32 W bytes (the W boxes as structure of
// arrays, children, counts). Binary leaves reference ranges of the
// leaf-order triangles, wide leaves runs of triangle blocks (four
// triangles as structure of arrays, tested together).
#pragma once

#include <sweep/raytrace/bvh_build.hpp>
#include <sweep/raytrace/bvh_collapse.hpp>
#include <sweep/raytrace/bvh_nodes.hpp>
#include <sweep/raytrace/bvh_refit.hpp>
#include <sweep/raytrace/geometry.hpp>
#include <sweep/raytrace/mesh.hpp>
#include <sweep/scan.hpp>
#include <sweep/tuning.hpp>

#include <Kokkos_Core.hpp>

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

namespace sweep::raytrace {

/// A mesh uploaded to ExecSpace's memory with its binary and wide BVHs.
template <class ExecSpace = Kokkos::DefaultExecutionSpace>
class bvh {
 public:
  using memory_space = typename ExecSpace::memory_space;
  static constexpr int wide_width = tuning<ExecSpace>::raytrace::wide_width;
  using wide_node = bvh_wide_node<wide_width>;

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
    Kokkos::parallel_for("sweep::raytrace::leaf_triangles", sweep::detail::range_policy<ExecSpace>(space, 0, n),
                         detail::leaf_triangles<memory_space>{m_vertices, m_indices, m_ids, m_tris});
    for (int l = depth() - 1; l >= 0; --l)
      Kokkos::parallel_for("sweep::raytrace::refit", sweep::detail::range_policy<ExecSpace>(space, 0, m_levels[l + 1] - m_levels[l]),
                           detail::refit_level<memory_space>{m_nodes, m_tris, m_levels[l]});
    collapse(space);
  }

  Kokkos::View<const bvh_node*, memory_space> nodes() const { return m_nodes; }
  Kokkos::View<const wide_node*, memory_space> wide_nodes() const { return m_wide; }
  /// The first triangle block of each binary leaf (indexed by node).
  Kokkos::View<const std::int32_t*, memory_space> leaf_blocks() const { return m_leaf_blocks; }
  /// The wide leaves' triangles, four to a block.
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
    using Range = sweep::detail::range_policy<ExecSpace>;
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
    const index_t concurrency = index_t(space.concurrency());
    for (int level = 0;; ++level) {
      const index_t lo = m_levels[level], hi = m_levels[level + 1], width = hi - lo;
      detail::build_views<memory_space> v{boxes, m_ids, nodes, begin, end};
      // Many nodes: each partitions its own range; few (large) ones: every
      // triangle flags its side and one scan places them all.
      const bool in_node = width >= index_t(tuning<ExecSpace>::raytrace::build_nodes_per_thread) * concurrency;
      Kokkos::parallel_for(
          "sweep::raytrace::plan_splits",
          sweep::detail::range_policy<ExecSpace, Kokkos::Schedule<Kokkos::Dynamic>>(space, 0, width),
          detail::plan_splits<memory_space>{v, plans, tmp, lo, level, max_leaf, bins, m_options.median_depth, in_node});
      if (!in_node) {
        Kokkos::parallel_for("sweep::raytrace::flag_left", Range(space, 0, n + 1),
                             detail::flag_left<memory_space>{v, plans, flags, lo, hi, n, bins});
        exclusive_scan("sweep::raytrace::partition_scan", space, flags, flags, std::int32_t(0));
        Kokkos::parallel_for("sweep::raytrace::partition", Range(space, 0, n),
                             detail::partition_ids<memory_space>{v, plans, flags, tmp, lo, hi});
        std::swap(m_ids, tmp);
      }
      const auto pl = plans;
      const auto cc = Kokkos::subview(child_counts, Kokkos::make_pair(index_t(0), width));
      const auto co = Kokkos::subview(child_offsets, Kokkos::make_pair(index_t(0), width));
      Kokkos::parallel_for("sweep::raytrace::child_counts", Range(space, 0, width),
                           KOKKOS_LAMBDA(const index_t k) { cc(k) = pl(k).axis >= 0 ? 2 : 0; });
      const index_t children = exclusive_scan("sweep::raytrace::child_scan", space, cc, co, std::int32_t(0));
      v.ids = m_ids;
      Kokkos::parallel_for("sweep::raytrace::write_children", Range(space, 0, width),
                           detail::write_children<memory_space>{v, plans, co, lo, hi});
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
          "sweep::raytrace::root_box", sweep::detail::range_policy<ExecSpace>(space, 0, n),
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
        "sweep::raytrace::root", sweep::detail::range_policy<ExecSpace>(space, 0, 1), KOKKOS_LAMBDA(const index_t) {
          nodes(0).lo = root.lo, nodes(0).hi = root.hi;
          begin(0) = 0, end(0) = std::int32_t(n);
        });
  }

  void collapse(const ExecSpace& space) {
    using Range = sweep::detail::range_policy<ExecSpace>;
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
    Kokkos::View<wide_node*, memory_space> wide("sweep::raytrace::wide_nodes", capacity);
    Kokkos::View<std::int32_t*, memory_space> source("sweep::raytrace::wide_source", capacity);
    Kokkos::View<std::int32_t* [wide_width], memory_space> picks("sweep::raytrace::wide_picks", capacity);
    Kokkos::View<std::int32_t*, memory_space> inner("sweep::raytrace::wide_inner", capacity),
        offsets("sweep::raytrace::wide_offsets", capacity);
    bvh_node root;
    Kokkos::deep_copy(root, Kokkos::subview(m_nodes, 0));
    if (root.leaf()) {
      // A tree that is one leaf gets one wide node holding it.
      Kokkos::parallel_for(
          "sweep::raytrace::wide_leaf", Range(space, 0, 1), KOKKOS_LAMBDA(const index_t) {
            wide_node out;
            for (int s = 0; s < wide_width; ++s) detail::clear_slot(out, s);
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
                           detail::pick_children<memory_space, wide_width>{m_nodes, source, picks, in, lo});
      const index_t made = exclusive_scan("sweep::raytrace::wide_scan", space, in, off, std::int32_t(0));
      Kokkos::parallel_for("sweep::raytrace::write_wide", Range(space, 0, width),
                           detail::write_wide<memory_space, wide_width>{m_nodes, first_block, source, picks, off, wide, lo, hi});
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
  Kokkos::View<wide_node*, memory_space> m_wide;
  Kokkos::View<triangle*, memory_space> m_tris;
  Kokkos::View<triangle_block*, memory_space> m_blocks;
  Kokkos::View<std::int32_t*, memory_space> m_leaf_blocks;
  std::vector<index_t> m_levels;
};

}  // namespace sweep::raytrace
