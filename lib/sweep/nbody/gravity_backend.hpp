// The force walk's dispatch point: gravity_backend<ExecSpace>::walk sums,
// for every body of the body arrays, the field of its own tree and of the
// other trees of a forest. The primary template is the portable path: one
// body at a time per team lane, each walking the tree with an explicit
// stack and the per-body opening test (node accepted when the body's
// squared distance to its centre of mass exceeds rcrit2); a node's
// monopole and quadrupole (or the monopole alone), a leaf's bodies
// directly. host/gravity_backend.hpp specialises it for host spaces.
#pragma once

#include <sweep/detail/space.hpp>
#include <sweep/nbody/bodies.hpp>
#include <sweep/nbody/octree.hpp>
#include <sweep/tuning.hpp>

#include <Kokkos_Core.hpp>

#include <cstdint>

namespace sweep::nbody::detail {

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


/// The portable walk: team p of a TeamPolicy handles bodies [offsets(p),
/// offsets(p + 1)), one body per lane; body i is tree point slots(i) (an
/// empty `slots`: point i). `remote` walks the forest's trees from
/// `roots`, skipping no point.
template <class ExecSpace, class Kind = sweep::detail::space_kind_t<ExecSpace>>
struct gravity_backend {
  /// Whether bodies share a group's walk (false: each body walks alone).
  static constexpr bool grouped = false;

  template <class Mem>
  static void walk(const ExecSpace& space, const tree_walk<Mem>& local, const tree_walk<Mem>& remote,
                   const Kokkos::View<const std::int32_t*, Mem>& roots, const body_arrays<Mem>& b, double G,
                   const Kokkos::View<const index_t*, Mem>& offsets,
                   const Kokkos::View<const std::int32_t*, Mem>& slots) {
    const bool indirect = slots.extent(0) > 0;
    const int trees = int(roots.extent(0));
    using Policy = Kokkos::TeamPolicy<ExecSpace>;
    const int parts = int(offsets.extent(0)) - 1;
    Kokkos::parallel_for(
        "sweep::nbody::tree_walk", Policy(space, parts, tuning<ExecSpace>::gravity::team_size),
        KOKKOS_LAMBDA(const typename Policy::member_type& team) {
          const index_t p = team.league_rank();
          Kokkos::parallel_for(Kokkos::TeamThreadRange(team, offsets(p), offsets(p + 1)), [&](const index_t i) {
            const double px = b.x(i), py = b.y(i), pz = b.z(i);
            accumulator acc = local(px, py, pz, indirect ? index_t(slots(i)) : i);
            for (int t = 0; t < trees; ++t) remote.walk(acc, px, py, pz, -1, roots(t));
            store(b, i, acc, G);
          });
        });
  }
};

}  // namespace sweep::nbody::detail

#define SWEEP_DISPATCH_GRAVITY
#include <sweep/backend.hpp>
