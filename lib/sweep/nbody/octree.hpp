// A Barnes-Hut octree built in parallel from Morton codes.
//
//   bounding_box(space, bodies)         three min/max reductions
//   octree::build(space, bodies, box)   63-bit Morton codes (21 bits per
//       axis) in the cube around the box, sweep::sort_permutation of the
//       codes, the bodies permuted into Morton order (all their arrays),
//       then the octree level by level: every node of the current level
//       with more than leaf_capacity bodies finds its non-empty octants by
//       binary search of its (sorted) codes, an exclusive scan of the
//       child counts places the next level, and the children are written.
//       No serial insertion; depth at most 21. Children of a node are
//       contiguous and in Morton order, so a depth-first walk visits bodies
//       in array order (the order cost zones cut).
//   octree::summarize(space, theta)   mass, centre of mass and traceless
//       quadrupole bottom up, one parallel pass per level, and each node's
//       opening radius:
//       a node of edge L is accepted as a point mass by a body at distance
//       D from its centre of mass when L / D < theta (and the body is
//       outside the cell: D > |com - centre| + sqrt(3) L / 2). theta = 0
//       opens every node: the force is then the direct sum.
//
// Leaves hold contiguous ranges [begin, end) of the tree's own copy of
// positions and masses (Morton order, taken at build), so the bodies may be
// reordered afterwards (by partition) without touching the tree. Cost: build O(N log N) work (the sort, 8 passes of 8 bits at
// most) plus O(N) per level; summarize O(nodes).
#pragma once

#include <sweep/nbody/bodies.hpp>
#include <sweep/scan.hpp>
#include <sweep/sort.hpp>

#include <Kokkos_Core.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

namespace sweep::nbody {

/// An axis-aligned box.
struct box {
  double lo[3] = {0, 0, 0};
  double hi[3] = {0, 0, 0};
  double extent(int axis) const { return hi[axis] - lo[axis]; }
};

/// A body as the tree keeps it: position and mass, in Morton order.
struct point {
  double x, y, z, m;
};

/// A node's traceless quadrupole moment about its centre of mass,
/// Q_ab = sum m (3 d_a d_b - |d|^2 delta_ab); loaded only when the node is
/// accepted.
struct quadrupole {
  double xx, xy, xz, yy, yz, zz;
};

/// One octree node; 64 bytes, the unit the force walk loads.
struct tree_node {
  double x, y, z, m;         // centre of mass and mass
  double rcrit2;             // accepted when the squared distance to (x, y, z) exceeds this
  double edge;               // cell edge L
  std::int32_t child;        // first child (children are contiguous); -1 for a leaf
  std::int32_t nchild;       // number of children (0 for a leaf)
  std::int32_t begin, end;   // points [begin, end) of the tree (Morton order)
};

namespace detail {

/// Squared distance from (x, y, z) to the nearest point of box b (0
/// inside): a node whose centre of mass is farther than its opening radius
/// from every point of b is accepted by every body in b.
KOKKOS_INLINE_FUNCTION double box_distance2(const box& b, double x, double y, double z) {
  const double p[3] = {x, y, z};
  double d2 = 0;
  for (int a = 0; a < 3; ++a) {
    const double d = p[a] < b.lo[a] ? b.lo[a] - p[a] : (p[a] > b.hi[a] ? p[a] - b.hi[a] : 0.0);
    d2 += d * d;
  }
  return d2;
}

constexpr int morton_bits = 21;  // per axis; 63-bit codes

KOKKOS_INLINE_FUNCTION std::uint64_t spread3(std::uint64_t v) {
  v &= 0x1fffffull;
  v = (v | v << 32) & 0x1f00000000ffffull;
  v = (v | v << 16) & 0x1f0000ff0000ffull;
  v = (v | v << 8) & 0x100f00f00f00f00full;
  v = (v | v << 4) & 0x10c30c30c30c30c3ull;
  v = (v | v << 2) & 0x1249249249249249ull;
  return v;
}

KOKKOS_INLINE_FUNCTION std::uint64_t compact3(std::uint64_t v) {
  v &= 0x1249249249249249ull;
  v = (v ^ (v >> 2)) & 0x10c30c30c30c30c3ull;
  v = (v ^ (v >> 4)) & 0x100f00f00f00f00full;
  v = (v ^ (v >> 8)) & 0x1f0000ff0000ffull;
  v = (v ^ (v >> 16)) & 0x1f00000000ffffull;
  v = (v ^ (v >> 32)) & 0x1fffffull;
  return v;
}

/// The cube the codes are taken in: the box's centre, edge = its largest
/// extent (a little more, so no coordinate maps past the last cell).
struct cube {
  double lo[3] = {0, 0, 0};
  double edge = 1;
};

inline cube enclosing_cube(const box& b) {
  double e = std::max({b.extent(0), b.extent(1), b.extent(2)});
  e = e > 0 ? e * (1 + 1e-9) : 1.0;
  cube c;
  for (int a = 0; a < 3; ++a) c.lo[a] = 0.5 * (b.lo[a] + b.hi[a]) - 0.5 * e;
  c.edge = e;
  return c;
}

template <class Mem>
struct morton_codes {
  Kokkos::View<const double*, Mem> x, y, z;
  Kokkos::View<std::uint64_t*, Mem> codes;
  cube c;
  KOKKOS_INLINE_FUNCTION std::uint64_t cell(double v, int axis) const {
    const double s = (v - c.lo[axis]) / c.edge * double(1 << morton_bits);
    const double top = double((1 << morton_bits) - 1);
    return static_cast<std::uint64_t>(s < 0 ? 0.0 : (s > top ? top : s));
  }
  KOKKOS_INLINE_FUNCTION void operator()(const index_t i) const {
    codes(i) = spread3(cell(x(i), 0)) << 2 | spread3(cell(y(i), 1)) << 1 | spread3(cell(z(i), 2));
  }
};

/// The tree's own copy of positions and masses, taken right after the
/// bodies were sorted (so point i is body i then).
template <class Mem>
struct take_points {
  body_arrays<Mem> b;
  Kokkos::View<point*, Mem> points;
  KOKKOS_INLINE_FUNCTION void operator()(const index_t i) const { points(i) = point{b.x(i), b.y(i), b.z(i), b.m(i)}; }
};

/// First index in [b, e) whose octant digit (bits [shift, shift + 3)) exceeds d.
template <class Codes>
KOKKOS_INLINE_FUNCTION index_t digit_end(const Codes& codes, index_t b, index_t e, int shift, unsigned d) {
  while (b < e) {
    const index_t mid = b + (e - b) / 2;
    if (((codes(mid) >> shift) & 7u) <= d) b = mid + 1;
    else e = mid;
  }
  return b;
}

template <class Mem>
struct count_children {
  Kokkos::View<const tree_node*, Mem> nodes;
  Kokkos::View<const std::uint64_t*, Mem> codes;
  Kokkos::View<std::int32_t*, Mem> counts;
  index_t lo;
  int level, leaf_capacity;
  KOKKOS_INLINE_FUNCTION void operator()(const index_t k) const {
    const tree_node& nd = nodes(lo + k);
    if (nd.end - nd.begin <= leaf_capacity || level >= morton_bits) {
      counts(k) = 0;
      return;
    }
    const int shift = 3 * (morton_bits - 1 - level);
    int c = 0;
    index_t b = nd.begin;
    for (unsigned d = 0; d < 8 && b < nd.end; ++d) {
      const index_t e = digit_end(codes, b, nd.end, shift, d);
      c += e > b;
      b = e;
    }
    counts(k) = c;
  }
};

template <class Mem>
struct write_children {
  Kokkos::View<tree_node*, Mem> nodes;
  Kokkos::View<const std::uint64_t*, Mem> codes;
  Kokkos::View<const std::int32_t*, Mem> counts, offsets;
  index_t lo, hi;
  int level;
  double child_edge;
  KOKKOS_INLINE_FUNCTION void operator()(const index_t k) const {
    tree_node& nd = nodes(lo + k);
    if (counts(k) == 0) {
      nd.child = -1;
      nd.nchild = 0;
      return;
    }
    const int shift = 3 * (morton_bits - 1 - level);
    const index_t first = hi + offsets(k);
    int c = 0;
    index_t b = nd.begin;
    for (unsigned d = 0; d < 8 && b < nd.end; ++d) {
      const index_t e = digit_end(codes, b, nd.end, shift, d);
      if (e > b) {
        tree_node& ch = nodes(first + c++);
        ch = tree_node{0, 0, 0, 0, 0, child_edge, -1, 0, std::int32_t(b), std::int32_t(e)};
      }
      b = e;
    }
    nd.child = std::int32_t(first);
    nd.nchild = c;
  }
};

template <class Mem>
struct summarize_level {
  Kokkos::View<tree_node*, Mem> nodes;
  Kokkos::View<quadrupole*, Mem> quads;
  Kokkos::View<const std::uint64_t*, Mem> codes;
  Kokkos::View<const point*, Mem> points;
  index_t lo;
  int level;
  cube c;
  double inv_theta;  // 0 when theta = 0 (open everything)
  KOKKOS_INLINE_FUNCTION void operator()(const index_t k) const {
    tree_node& nd = nodes(lo + k);
    double mass = 0, sx = 0, sy = 0, sz = 0;
    if (nd.child < 0) {
      for (index_t i = nd.begin; i < nd.end; ++i) {
        const point q = points(i);
        mass += q.m;
        sx += q.m * q.x, sy += q.m * q.y, sz += q.m * q.z;
      }
    } else {
      for (int j = 0; j < nd.nchild; ++j) {
        const tree_node& ch = nodes(nd.child + j);
        mass += ch.m;
        sx += ch.m * ch.x, sy += ch.m * ch.y, sz += ch.m * ch.z;
      }
    }
    // The cell's geometric centre, from the Morton prefix of its first body.
    const int drop = 3 * (morton_bits - level);
    const std::uint64_t prefix = drop >= 64 ? 0 : (codes(nd.begin) >> drop);
    const double cx = c.lo[0] + (double(compact3(prefix >> 2)) + 0.5) * nd.edge;
    const double cy = c.lo[1] + (double(compact3(prefix >> 1)) + 0.5) * nd.edge;
    const double cz = c.lo[2] + (double(compact3(prefix)) + 0.5) * nd.edge;
    if (mass > 0) {
      nd.x = sx / mass, nd.y = sy / mass, nd.z = sz / mass;
    } else {
      nd.x = cx, nd.y = cy, nd.z = cz;
    }
    nd.m = mass;
    // Quadrupole: the bodies' (leaf) or the children's moments shifted to
    // this centre of mass (parallel-axis theorem).
    quadrupole q{0, 0, 0, 0, 0, 0};
    auto add = [&](double m, double dx, double dy, double dz) {
      const double d2 = dx * dx + dy * dy + dz * dz;
      q.xx += m * (3 * dx * dx - d2), q.yy += m * (3 * dy * dy - d2), q.zz += m * (3 * dz * dz - d2);
      q.xy += m * 3 * dx * dy, q.xz += m * 3 * dx * dz, q.yz += m * 3 * dy * dz;
    };
    if (nd.child < 0) {
      for (index_t i = nd.begin; i < nd.end; ++i) {
        const point b = points(i);
        add(b.m, b.x - nd.x, b.y - nd.y, b.z - nd.z);
      }
    } else {
      for (int j = 0; j < nd.nchild; ++j) {
        const tree_node& ch = nodes(nd.child + j);
        const quadrupole& cq = quads(nd.child + j);
        add(ch.m, ch.x - nd.x, ch.y - nd.y, ch.z - nd.z);
        q.xx += cq.xx, q.xy += cq.xy, q.xz += cq.xz, q.yy += cq.yy, q.yz += cq.yz, q.zz += cq.zz;
      }
    }
    quads(lo + k) = q;
    if (inv_theta == 0) {
      nd.rcrit2 = __builtin_huge_val();
    } else {
      const double dx = nd.x - cx, dy = nd.y - cy, dz = nd.z - cz;
      const double inside = sweep::detail::square_root(dx * dx + dy * dy + dz * dz) + 0.8660254037844387 * nd.edge;
      const double r = nd.edge * inv_theta > inside ? nd.edge * inv_theta : inside;
      nd.rcrit2 = r * r;
    }
  }
};

}  // namespace detail

/// The bounding box of the bodies' positions.
template <class ExecSpace, class Mem>
box bounding_box(const ExecSpace& space, const body_arrays<Mem>& b) {
  sweep::detail::scoped_region region("sweep::nbody::bounding_box");
  box out;
  const typename body_arrays<Mem>::real_view axes[3] = {b.x, b.y, b.z};
  for (int a = 0; a < 3; ++a) {
    const auto v = axes[a];
    Kokkos::MinMaxScalar<double> mm;
    Kokkos::parallel_reduce(
        "sweep::nbody::bounding_box", sweep::detail::range_policy<ExecSpace>(space, 0, b.size()),
        KOKKOS_LAMBDA(const index_t i, Kokkos::MinMaxScalar<double>& acc) {
          if (v(i) < acc.min_val) acc.min_val = v(i);
          if (v(i) > acc.max_val) acc.max_val = v(i);
        },
        Kokkos::MinMax<double>(mm));
    out.lo[a] = mm.min_val;
    out.hi[a] = mm.max_val;
  }
  return out;
}

/// The octree over a body_arrays, rebuilt each step.
template <class ExecSpace>
class octree {
 public:
  using memory_space = typename ExecSpace::memory_space;
  using node_view = Kokkos::View<tree_node*, memory_space>;

  explicit octree(int leaf_capacity = 8) : m_leaf_capacity(leaf_capacity) {
    sweep::detail::require(leaf_capacity >= 1, "sweep::nbody::octree", "leaf_capacity = ", leaf_capacity,
                           " must be >= 1");
  }

  /// Sorts the bodies into Morton order (every array moves) and builds the
  /// nodes. `spare` is scratch of the same size (kept by the caller so a
  /// step allocates nothing).
  void build(const ExecSpace& space, body_arrays<memory_space>& bodies, body_arrays<memory_space>& spare,
             const box& bounds) {
    sweep::detail::scoped_region region("sweep::nbody::octree::build");
    const index_t n = bodies.size();
    sweep::detail::require(n > 0, "sweep::nbody::octree::build", "N = 0: there are no bodies");
    sweep::detail::require(n < (index_t(1) << 31), "sweep::nbody::octree::build", "N = ", n,
                           " exceeds the 2^31 - 1 bodies a tree indexes");
    sweep::detail::require(spare.size() == n, "sweep::nbody::octree::build", "spare has ", spare.size(),
                           " bodies, bodies has ", n);
    m_cube = detail::enclosing_cube(bounds);
    if (index_t(m_codes.extent(0)) != n) {
      m_codes = Kokkos::View<std::uint64_t*, memory_space>(
          Kokkos::view_alloc(Kokkos::WithoutInitializing, "sweep::nbody::codes"), n);
      m_perm = Kokkos::View<std::int32_t*, memory_space>(
          Kokkos::view_alloc(Kokkos::WithoutInitializing, "sweep::nbody::perm"), n);
      m_points = Kokkos::View<point*, memory_space>(
          Kokkos::view_alloc(Kokkos::WithoutInitializing, "sweep::nbody::points"), n);
    }
    using Range = sweep::detail::range_policy<ExecSpace>;
    Kokkos::parallel_for("sweep::nbody::morton", Range(space, 0, n),
                         detail::morton_codes<memory_space>{bodies.x, bodies.y, bodies.z, m_codes, m_cube});
    sort_permutation("sweep::nbody::sort", space, m_codes, m_perm);
    detail::permute(space, bodies, spare, m_perm);
    Kokkos::parallel_for("sweep::nbody::points", Range(space, 0, n),
                         detail::take_points<memory_space>{bodies, m_points});

    // Level by level from the root.
    if (m_nodes.extent(0) == 0)
      m_nodes = node_view(Kokkos::view_alloc(Kokkos::WithoutInitializing, "sweep::nbody::nodes"),
                          std::max<index_t>(64, 2 * n / m_leaf_capacity + 64));
    const tree_node root{0, 0, 0, 0, 0, m_cube.edge, -1, 0, 0, std::int32_t(n)};
    Kokkos::deep_copy(space, Kokkos::subview(m_nodes, 0), root);
    m_level_offsets.assign({0, 1});
    for (int level = 0;; ++level) {
      const index_t lo = m_level_offsets[level], hi = m_level_offsets[level + 1], width = hi - lo;
      if (index_t(m_counts.extent(0)) < width + 1) {
        m_counts = Kokkos::View<std::int32_t*, memory_space>("sweep::nbody::child_counts", 2 * width + 1);
        m_offsets = Kokkos::View<std::int32_t*, memory_space>("sweep::nbody::child_offsets", 2 * width + 1);
      }
      auto counts = Kokkos::subview(m_counts, Kokkos::make_pair(index_t(0), width));
      auto offsets = Kokkos::subview(m_offsets, Kokkos::make_pair(index_t(0), width));
      Kokkos::parallel_for("sweep::nbody::count_children", Range(space, 0, width),
                           detail::count_children<memory_space>{m_nodes, m_codes, counts, lo, level,
                                                                m_leaf_capacity});
      const index_t total =
          exclusive_scan("sweep::nbody::child_offsets", space, counts, offsets, std::int32_t(0));
      if (hi + total > index_t(m_nodes.extent(0))) {  // grow, keeping the nodes written so far (only those:
        // the rest of the old view was never written, and copying it would read uninitialised memory)
        node_view grown(Kokkos::view_alloc(Kokkos::WithoutInitializing, "sweep::nbody::nodes"), 2 * (hi + total));
        const auto written = Kokkos::make_pair(index_t(0), hi);
        Kokkos::deep_copy(space, Kokkos::subview(grown, written), Kokkos::subview(m_nodes, written));
        m_nodes = grown;
      }
      Kokkos::parallel_for("sweep::nbody::write_children", Range(space, 0, width),
                           detail::write_children<memory_space>{m_nodes, m_codes, counts, offsets, lo, hi, level,
                                                                m_cube.edge / double(index_t(2) << level)});
      if (total == 0) break;
      m_level_offsets.push_back(hi + total);
    }
    m_bodies = n;
  }

  /// Masses, centres of mass and opening radii for `theta` (>= 0).
  void summarize(const ExecSpace& space, double theta) {
    sweep::detail::scoped_region region("sweep::nbody::octree::summarize");
    sweep::detail::require(std::isfinite(theta) && theta >= 0, "sweep::nbody::octree::summarize", "theta = ", theta,
                           " must be finite and >= 0");
    sweep::detail::require(m_bodies > 0, "sweep::nbody::octree::summarize", "the tree has not been built");
    if (m_quads.extent(0) < m_nodes.extent(0))
      m_quads = Kokkos::View<quadrupole*, memory_space>(
          Kokkos::view_alloc(Kokkos::WithoutInitializing, "sweep::nbody::quadrupoles"), m_nodes.extent(0));
    for (int level = levels() - 1; level >= 0; --level) {
      const index_t lo = m_level_offsets[level], hi = m_level_offsets[level + 1];
      Kokkos::parallel_for("sweep::nbody::summarize", sweep::detail::range_policy<ExecSpace>(space, 0, hi - lo),
                           detail::summarize_level<memory_space>{m_nodes, m_quads, m_codes, m_points, lo, level, m_cube,
                                                                 theta > 0 ? 1.0 / theta : 0.0});
    }
    m_theta = theta;
  }

  node_view nodes() const { return Kokkos::subview(m_nodes, Kokkos::make_pair(index_t(0), node_count())); }
  /// Quadrupole moments, by node (valid after summarize).
  Kokkos::View<const quadrupole*, memory_space> quadrupoles() const {
    return Kokkos::subview(m_quads, Kokkos::make_pair(index_t(0), node_count()));
  }
  index_t node_count() const { return m_level_offsets.empty() ? 0 : m_level_offsets.back(); }
  int levels() const { return m_level_offsets.empty() ? 0 : int(m_level_offsets.size()) - 1; }
  /// Nodes of level l are [level_offsets()[l], level_offsets()[l + 1]).
  const std::vector<index_t>& level_offsets() const { return m_level_offsets; }
  int leaf_capacity() const { return m_leaf_capacity; }
  double theta() const { return m_theta; }
  /// Morton codes of the bodies, in body (sorted) order.
  Kokkos::View<const std::uint64_t*, memory_space> codes() const { return m_codes; }
  /// Positions and masses in Morton order (leaves index these).
  Kokkos::View<const point*, memory_space> points() const { return m_points; }
  index_t size() const { return m_bodies; }
  /// The cube the codes were taken in.
  const detail::cube& cell() const { return m_cube; }

 private:
  int m_leaf_capacity;
  index_t m_bodies = 0;
  double m_theta = 0;
  detail::cube m_cube{};
  node_view m_nodes;
  Kokkos::View<quadrupole*, memory_space> m_quads;
  Kokkos::View<std::uint64_t*, memory_space> m_codes;
  Kokkos::View<std::int32_t*, memory_space> m_perm;
  Kokkos::View<point*, memory_space> m_points;
  Kokkos::View<std::int32_t*, memory_space> m_counts, m_offsets;
  std::vector<index_t> m_level_offsets;
};

}  // namespace sweep::nbody
