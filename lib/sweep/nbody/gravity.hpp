// Softened gravity: the Barnes-Hut tree walk and the direct O(N^2) sum.
//
//   a_i   = G sum_j m_j (x_j - x_i) / (|x_j - x_i|^2 + eps^2)^(3/2)
//   phi_i = -G sum_j m_j / (|x_j - x_i|^2 + eps^2)^(1/2)        (j != i)
//
// The walk (one body at a time, an explicit stack) takes a node's monopole
// and quadrupole (or the monopole alone) when the node's opening test
// accepts it (see octree.hpp), sums a leaf's bodies directly, and opens
// everything else. Each body records its
// interaction count (node monopoles + body pairs) in `cost`: the profile
// cost zones and ORB balance on. Targets are processed partition by
// partition (a Kokkos team per partition), each partition's bodies a
// contiguous range of the body arrays (see partition.hpp).
#pragma once

#include <sweep/tuning.hpp>
#include <sweep/nbody/bodies.hpp>
#include <sweep/nbody/octree.hpp>

#include <Kokkos_Core.hpp>

#include <cmath>
#include <cstdint>
#include <type_traits>

namespace sweep::nbody {

struct gravity_parameters {
  double G = 1.0;
  double eps = 0.05;        // Plummer softening length
  bool quadrupole = true;   // accepted nodes add their quadrupole term (false: monopole only)
};

namespace detail {

inline void check_gravity(const gravity_parameters& g, const char* where) {
  sweep::detail::require(std::isfinite(g.G) && g.G > 0, where, "G = ", g.G, " must be finite and > 0");
  sweep::detail::require(std::isfinite(g.eps) && g.eps >= 0, where, "eps = ", g.eps, " must be finite and >= 0");
}

/// What one target accumulates.
struct accumulator {
  double ax = 0, ay = 0, az = 0, phi = 0;
  std::uint32_t count = 0;
  KOKKOS_FORCEINLINE_FUNCTION void add(double dx, double dy, double dz, double m, double eps2) {
    const double r2 = dx * dx + dy * dy + dz * dz + eps2;
    const double inv = 1.0 / sweep::detail::square_root(r2);
    const double mi = m * inv;
    const double mi3 = mi * inv * inv;
    ax += mi3 * dx, ay += mi3 * dy, az += mi3 * dz;
    phi -= mi;
    ++count;
  }
  /// A node's monopole plus quadrupole at separation d = com - target:
  /// phi = -(M / r + d.Q.d / (2 r^5)), a = -grad phi, r^2 = |d|^2 + eps^2.
  KOKKOS_FORCEINLINE_FUNCTION void add(double dx, double dy, double dz, double m, const quadrupole& q,
                                       double eps2) {
    const double r2 = dx * dx + dy * dy + dz * dz + eps2;
    const double inv = 1.0 / sweep::detail::square_root(r2), inv2 = inv * inv;
    const double qx = q.xx * dx + q.xy * dy + q.xz * dz;
    const double qy = q.xy * dx + q.yy * dy + q.yz * dz;
    const double qz = q.xz * dx + q.yz * dy + q.zz * dz;
    const double dqd = dx * qx + dy * qy + dz * qz;
    const double inv3 = inv * inv2, inv5 = inv3 * inv2, inv7 = inv5 * inv2;
    const double radial = m * inv3 + 2.5 * dqd * inv7;
    ax += radial * dx - qx * inv5, ay += radial * dy - qy * inv5, az += radial * dz - qz * inv5;
    phi -= m * inv + 0.5 * dqd * inv5;
    ++count;
  }
};

/// Deepest octree (21 levels) times 7 siblings left on the stack per level, plus one.
constexpr int walk_stack = 7 * (morton_bits + 1) + 2;

template <class Mem>
struct tree_walk {
  Kokkos::View<const tree_node*, Mem> nodes;
  Kokkos::View<const quadrupole*, Mem> quads;
  Kokkos::View<const point*, Mem> points;
  double eps2;
  bool use_quadrupole;

  /// The field at (px, py, pz) of the body at tree point `self` (skipped
  /// in its leaf).
  KOKKOS_INLINE_FUNCTION accumulator operator()(double px, double py, double pz, index_t self) const {
    accumulator acc;
    walk(acc, px, py, pz, self, 0);
    return acc;
  }

  /// Adds the field of the (sub)tree under node `root` at (px, py, pz);
  /// point `self` is skipped (-1: none).
  KOKKOS_INLINE_FUNCTION void walk(accumulator& acc, double px, double py, double pz, index_t self,
                                   std::int32_t root) const {
    std::int32_t stack[walk_stack];
    int top = 0;
    stack[top++] = root;
    while (top > 0) {
      const std::int32_t id = stack[--top];
      const tree_node& nd = nodes(id);
      const double dx = nd.x - px, dy = nd.y - py, dz = nd.z - pz;
      if (dx * dx + dy * dy + dz * dz > nd.rcrit2) {
        if (use_quadrupole) acc.add(dx, dy, dz, nd.m, quads(id), eps2);
        else acc.add(dx, dy, dz, nd.m, eps2);
      } else if (nd.child < 0) {
        for (index_t j = nd.begin; j < nd.end; ++j) {
          const point q = points(j);
          if (j != self) acc.add(q.x - px, q.y - py, q.z - pz, q.m, eps2);
        }
      } else {
        // Reverse order, so children are walked in Morton order.
        for (int c = nd.nchild - 1; c >= 0; --c) stack[top++] = nd.child + c;
      }
    }
  }
};

/// Body i's result, scaled by G, into the body arrays.
template <class Mem>
KOKKOS_INLINE_FUNCTION void store(const body_arrays<Mem>& b, index_t i, const accumulator& acc, double G) {
  b.ax(i) = G * acc.ax, b.ay(i) = G * acc.ay, b.az(i) = G * acc.az;
  b.phi(i) = G * acc.phi;
  b.cost(i) = acc.count;
}

}  // namespace detail

/// Trees walked for every body besides its own tree: the essential trees
/// other domains sent (sweep::mpi::nbody), in one node, quadrupole and
/// point array with each tree's root listed. Nodes are walked as the
/// octree's (a node whose rcrit2 is negative is accepted by every body).
template <class Mem>
struct forest {
  Kokkos::View<const tree_node*, Mem> nodes;
  Kokkos::View<const quadrupole*, Mem> quads;
  Kokkos::View<const point*, Mem> points;
  Kokkos::View<const std::int32_t*, Mem> roots;
  index_t trees() const { return index_t(roots.extent(0)); }
};

/// Tree forces for every body, partition by partition: team p walks the
/// tree (and the trees of `others`) for bodies [offsets[p], offsets[p +
/// 1]). Body i is the tree's point slots[i] (an empty `slots` View: the
/// bodies are still in the tree's Morton order, slot i). The tree must be
/// summarized.
template <class ExecSpace, class Mem>
void tree_accelerations(const ExecSpace& space, const octree<ExecSpace>& tree, const forest<Mem>& others,
                        const body_arrays<Mem>& b, const gravity_parameters& g,
                        std::type_identity_t<Kokkos::View<const index_t*, Mem>> offsets,
                        std::type_identity_t<Kokkos::View<const std::int32_t*, Mem>> slots = {}) {
  sweep::detail::scoped_region region("sweep::nbody::tree_accelerations");
  detail::check_gravity(g, "sweep::nbody::tree_accelerations");
  sweep::detail::require(offsets.extent(0) >= 2, "sweep::nbody::tree_accelerations",
                         "offsets needs partitions + 1 >= 2 entries, has ", offsets.extent(0));
  sweep::detail::require(tree.size() == b.size(), "sweep::nbody::tree_accelerations", "the tree holds ",
                         tree.size(), " bodies, the body arrays ", b.size());
  sweep::detail::require(slots.extent(0) == 0 || index_t(slots.extent(0)) == b.size(),
                         "sweep::nbody::tree_accelerations", "slots has ", slots.extent(0), " entries for ",
                         b.size(), " bodies");
  const detail::tree_walk<Mem> walk{tree.nodes(), tree.quadrupoles(), tree.points(), g.eps * g.eps, g.quadrupole};
  const detail::tree_walk<Mem> remote{others.nodes, others.quads, others.points, g.eps * g.eps, g.quadrupole};
  const auto roots = others.roots;
  const int trees = int(others.trees());
  const bool indirect = slots.extent(0) > 0;
  const double G = g.G;
  using Policy = Kokkos::TeamPolicy<ExecSpace>;
  const int parts = int(offsets.extent(0)) - 1;
  Kokkos::parallel_for(
      "sweep::nbody::tree_walk", Policy(space, parts, tuning<ExecSpace>::gravity::team_size),
      KOKKOS_LAMBDA(const typename Policy::member_type& team) {
        const index_t p = team.league_rank();
        Kokkos::parallel_for(Kokkos::TeamThreadRange(team, offsets(p), offsets(p + 1)), [&](const index_t i) {
          const double px = b.x(i), py = b.y(i), pz = b.z(i);
          detail::accumulator acc = walk(px, py, pz, indirect ? index_t(slots(i)) : i);
          for (int t = 0; t < trees; ++t) remote.walk(acc, px, py, pz, -1, roots(t));
          detail::store(b, i, acc, G);
        });
      });
}

/// The same without other trees.
template <class ExecSpace, class Mem>
void tree_accelerations(const ExecSpace& space, const octree<ExecSpace>& tree, const body_arrays<Mem>& b,
                        const gravity_parameters& g, std::type_identity_t<Kokkos::View<const index_t*, Mem>> offsets,
                        std::type_identity_t<Kokkos::View<const std::int32_t*, Mem>> slots = {}) {
  tree_accelerations(space, tree, forest<Mem>{}, b, g, offsets, slots);
}

/// Direct summation over all pairs (O(N^2)), the reference the tree is
/// checked against; `cost` becomes N - 1.
template <class ExecSpace, class Mem>
void direct_accelerations(const ExecSpace& space, const body_arrays<Mem>& b, const gravity_parameters& g) {
  sweep::detail::scoped_region region("sweep::nbody::direct_accelerations");
  detail::check_gravity(g, "sweep::nbody::direct_accelerations");
  const index_t n = b.size();
  const double eps2 = g.eps * g.eps, G = g.G;
  Kokkos::parallel_for(
      "sweep::nbody::direct", sweep::detail::range_policy<ExecSpace>(space, 0, n), KOKKOS_LAMBDA(const index_t i) {
        detail::accumulator acc;
        const double px = b.x(i), py = b.y(i), pz = b.z(i);
        for (index_t j = 0; j < n; ++j)
          if (j != i) acc.add(b.x(j) - px, b.y(j) - py, b.z(j) - pz, b.m(j), eps2);
        detail::store(b, i, acc, G);
      });
}

}  // namespace sweep::nbody
