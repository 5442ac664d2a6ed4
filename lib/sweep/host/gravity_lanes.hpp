// The lanes of the host force walk (host/gravity_backend.hpp): a group's
// interaction lists (nodes with their quadrupoles, bodies with their tree
// points) and the sum of both lists for every body of the group, one body
// per lane, in GCC vector extensions compiled for AVX-512F (8 lanes), AVX2
// (4) or SSE2 (2). The formulas are sweep::nbody's accumulator's; 1 / sqrt
// is Newton's iteration from an integer estimate (four steps: a few ulps),
// no fused multiply-adds, so every lane width gives the same bits. A body
// meets itself in the body list (its leaf is always opened): that lane
// adds nothing there and does not count it.
#pragma once

#include <sweep/host/isa.hpp>
#include <sweep/nbody/bodies.hpp>
#include <sweep/nbody/octree.hpp>

#if SWEEP_HOST_SIMD

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <vector>

#define SWEEP_GRAVITY_LANES_FN __attribute__((always_inline, optimize("fp-contract=off"))) inline

namespace sweep::nbody::detail {

/// An accepted node as the lanes read it: centre of mass, mass, quadrupole.
struct listed_node {
  double x, y, z, m, xx, xy, xz, yy, yz, zz;
};

/// A body of an opened leaf: position, mass, tree point (-1: another tree's).
struct listed_body {
  double x, y, z, m;
  std::int64_t id;
};

/// What a group sees: the nodes accepted for it and the bodies of the
/// leaves opened for it. The vectors keep their storage between groups.
struct interaction_lists {
  std::vector<listed_node> nodes;
  std::vector<listed_body> bodies;

  void clear() { nodes.clear(), bodies.clear(); }
  void add_node(const tree_node& nd, const quadrupole& q) {
    nodes.push_back({nd.x, nd.y, nd.z, nd.m, q.xx, q.xy, q.xz, q.yy, q.yz, q.zz});
  }
  void add_body(const point& p, std::int64_t id) { bodies.push_back({p.x, p.y, p.z, p.m, id}); }
};

/// A run of bodies of one group: positions and tree points (padded to
/// whole vectors: padding lanes repeat the first body, its point
/// included, so they never meet a body at distance 0 unmasked), and each
/// body's sums.
struct group_state {
  static constexpr int widest = 8;
  int n = 0;
  std::vector<double> px, py, pz, ax, ay, az, phi;
  std::vector<std::int64_t> self;
  std::vector<std::uint32_t> count;

  template <class Mem>
  void load(const body_arrays<Mem>& b, const Kokkos::View<const std::int32_t*, Mem>& slots, bool indirect,
            index_t first, index_t last) {
    n = int(last - first);
    const std::size_t padded = std::size_t((n + widest - 1) / widest * widest);
    for (auto* v : {&px, &py, &pz, &ax, &ay, &az, &phi}) v->resize(padded);
    self.resize(padded);
    count.resize(padded);
    for (std::size_t k = 0; k < padded; ++k) {
      const index_t i = first + index_t(k < std::size_t(n) ? k : 0);
      px[k] = b.x(i), py[k] = b.y(i), pz[k] = b.z(i);
      self[k] = indirect ? std::int64_t(slots(i)) : std::int64_t(i);
    }
  }
};

/// W doubles and W 64-bit integers as GCC vectors.
template <int W>
struct lanes;
template <>
struct lanes<8> {
  typedef double vd __attribute__((vector_size(64)));
  typedef std::int64_t vl __attribute__((vector_size(64)));
};
template <>
struct lanes<4> {
  typedef double vd __attribute__((vector_size(32)));
  typedef std::int64_t vl __attribute__((vector_size(32)));
};
template <>
struct lanes<2> {
  typedef double vd __attribute__((vector_size(16)));
  typedef std::int64_t vl __attribute__((vector_size(16)));
};

/// 1 / sqrt(x), x > 0 finite, in every lane: the classic integer estimate
/// (relative error below 3.5%), then four Newton steps y (3/2 - x y^2 / 2).
/// (Through references: vector arguments and results would change the ABI
/// of a function compiled without the wider instruction set.)
template <class VD, class VL>
SWEEP_GRAVITY_LANES_FN void inverse_sqrt(const VD& x, VD& y) {
  const VL i = std::int64_t(0x5fe6eb50c7b537a9) - ((VL)x >> 1);
  y = (VD)i;
  const VD h = 0.5 * x;
  for (int s = 0; s < 4; ++s) y = y * (1.5 - h * y * y);
}

/// Both lists summed for every body of `g`, W at a time.
template <int W>
SWEEP_GRAVITY_LANES_FN void sum_lists(const interaction_lists& L, group_state& g, double eps2, bool quadrupole) {
  using vd = typename lanes<W>::vd;
  using vl = typename lanes<W>::vl;
  const index_t nn = index_t(L.nodes.size()), nb = index_t(L.bodies.size());
  const listed_node* nodes = L.nodes.data();
  const listed_body* bodies = L.bodies.data();
  for (int k0 = 0; k0 < g.n; k0 += W) {
    vd x, y, z;
    vl me;
    std::memcpy(&x, g.px.data() + k0, sizeof x);
    std::memcpy(&y, g.py.data() + k0, sizeof y);
    std::memcpy(&z, g.pz.data() + k0, sizeof z);
    std::memcpy(&me, g.self.data() + k0, sizeof me);
    vd ax = x - x, ay = ax, az = ax, phi = ax;
    vl met = me - me;  // lanes that met themselves: -1 each time
    if (quadrupole) {
      for (index_t j = 0; j < nn; ++j) {
        const listed_node& q = nodes[j];
        const vd dx = q.x - x, dy = q.y - y, dz = q.z - z;
        const vd r2 = dx * dx + dy * dy + dz * dz + eps2;
        vd inv;
        inverse_sqrt<vd, vl>(r2, inv);
        const vd inv2 = inv * inv;
        const vd qx = q.xx * dx + q.xy * dy + q.xz * dz;
        const vd qy = q.xy * dx + q.yy * dy + q.yz * dz;
        const vd qz = q.xz * dx + q.yz * dy + q.zz * dz;
        const vd dqd = dx * qx + dy * qy + dz * qz;
        const vd inv3 = inv * inv2, inv5 = inv3 * inv2, inv7 = inv5 * inv2;
        const vd radial = q.m * inv3 + 2.5 * dqd * inv7;
        ax += radial * dx - qx * inv5, ay += radial * dy - qy * inv5, az += radial * dz - qz * inv5;
        phi -= q.m * inv + 0.5 * dqd * inv5;
      }
    } else {
      for (index_t j = 0; j < nn; ++j) {
        const listed_node& q = nodes[j];
        const vd dx = q.x - x, dy = q.y - y, dz = q.z - z;
        const vd r2 = dx * dx + dy * dy + dz * dz + eps2;
        vd inv;
        inverse_sqrt<vd, vl>(r2, inv);
        const vd mi = q.m * inv;
        const vd mi3 = mi * inv * inv;
        ax += mi3 * dx, ay += mi3 * dy, az += mi3 * dz;
        phi -= mi;
      }
    }
    for (index_t j = 0; j < nb; ++j) {
      const listed_body& q = bodies[j];
      const vd dx = q.x - x, dy = q.y - y, dz = q.z - z;
      const vl hit = me == q.id;                           // -1 where the body is the lane's own
      const vd keep = 1.0 + __builtin_convertvector(hit, vd);  // 0 there, 1 elsewhere
      const vd r2 = dx * dx + dy * dy + dz * dz + eps2 + (1.0 - keep);
      vd inv;
      inverse_sqrt<vd, vl>(r2, inv);
      const vd mi = q.m * inv * keep;
      const vd mi3 = mi * inv * inv;
      ax += mi3 * dx, ay += mi3 * dy, az += mi3 * dz;
      phi -= mi;
      met += hit;
    }
    for (int l = 0; l < W && k0 + l < g.n; ++l) {
      g.ax[std::size_t(k0 + l)] = ax[l], g.ay[std::size_t(k0 + l)] = ay[l], g.az[std::size_t(k0 + l)] = az[l];
      g.phi[std::size_t(k0 + l)] = phi[l];
      g.count[std::size_t(k0 + l)] = std::uint32_t(nn + nb + met[l]);
    }
  }
}

using lanes_kernel = void (*)(const interaction_lists&, group_state&, double, bool);

#if SWEEP_HOST_MULTI
__attribute__((target("avx512f"), optimize("fp-contract=off"))) inline void sum_lists_avx512(
    const interaction_lists& L, group_state& g, double eps2, bool quadrupole) {
  sum_lists<8>(L, g, eps2, quadrupole);
}
__attribute__((target("avx2"), optimize("fp-contract=off"))) inline void sum_lists_avx2(
    const interaction_lists& L, group_state& g, double eps2, bool quadrupole) {
  sum_lists<4>(L, g, eps2, quadrupole);
}
#endif
__attribute__((optimize("fp-contract=off"))) inline void sum_lists_baseline(const interaction_lists& L,
                                                                            group_state& g, double eps2,
                                                                            bool quadrupole) {
  sum_lists<2>(L, g, eps2, quadrupole);
}

/// The widest kernel `level` allows.
inline lanes_kernel lanes_for(sweep::host::isa level) {
#if SWEEP_HOST_MULTI
  if (level == sweep::host::isa::avx512) return &sum_lists_avx512;
  if (level == sweep::host::isa::avx2) return &sum_lists_avx2;
#else
  (void)level;
#endif
  return &sum_lists_baseline;
}

}  // namespace sweep::nbody::detail

#endif
