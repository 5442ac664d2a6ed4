// Softened gravity: the Barnes-Hut tree walk and the direct O(N^2) sum.
//
//   a_i   = G sum_j m_j (x_j - x_i) / (|x_j - x_i|^2 + eps^2)^(3/2)
//   phi_i = -G sum_j m_j / (|x_j - x_i|^2 + eps^2)^(1/2)        (j != i)
//
// The walk takes a node's monopole and quadrupole (or the monopole alone)
// when the opening test accepts it (see octree.hpp), sums a leaf's bodies
// directly, and opens everything else: body by body with an explicit stack
// (the portable path), or on host spaces group by group, a group's bodies
// sharing the nodes accepted for its whole bounding box and summing them in
// SIMD lanes (nbody/gravity_backend.hpp, host/gravity_backend.hpp). Each
// body records its interaction count (nodes + bodies) in `cost`: the
// profile cost zones and ORB balance on. Targets are processed partition by
// partition (a Kokkos team per partition), each partition's bodies a
// contiguous range of the body arrays (see partition.hpp).
#pragma once

#include <sweep/nbody/bodies.hpp>
#include <sweep/nbody/gravity_backend.hpp>
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
  const detail::tree_walk<Mem> local{tree.nodes(), tree.quadrupoles(), tree.points(), g.eps * g.eps, g.quadrupole};
  const detail::tree_walk<Mem> remote{others.nodes, others.quads, others.points, g.eps * g.eps, g.quadrupole};
  detail::gravity_backend<ExecSpace>::walk(space, local, remote, others.roots, b, g.G, offsets, slots);
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
