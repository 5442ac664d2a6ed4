// The host force walk's lanes kernel, written once and included once per
// instruction-set level by host/gravity_lanes.hpp, which names the level's
// namespace (SWEEP_GRAVITY_LEVEL), its lane count (SWEEP_GRAVITY_WIDTH), its
// functions' attributes (SWEEP_GRAVITY_ATTR: target and fp-contract=off),
// its fused multiply-add of three vectors (SWEEP_GRAVITY_FMADD) and its
// broadcast of a double (SWEEP_GRAVITY_SET1). A function's target cannot
// depend on a template argument, so each level is code of its own; the
// helpers carry the level's target and stay always_inline, so they and the
// intrinsics inline at every optimisation level. No include guard, by design.

namespace sweep::nbody::detail::SWEEP_GRAVITY_LEVEL {

constexpr int W = SWEEP_GRAVITY_WIDTH;
using vd = lanes<W>::vd;
using vl = lanes<W>::vl;

/// out = a * b + c rounded once in every lane (a a vector, or one double
/// for every lane). Through references: vector arguments and results would
/// change the ABI of a function compiled without the wider instruction set.
__attribute__((SWEEP_GRAVITY_ATTR, always_inline)) inline void fused(const vd& a, const vd& b, const vd& c, vd& out) {
  out = SWEEP_GRAVITY_FMADD(a, b, c);
}
__attribute__((SWEEP_GRAVITY_ATTR, always_inline)) inline void fused(const double& a, const vd& b, const vd& c,
                                                                     vd& out) {
  const vd av = SWEEP_GRAVITY_SET1(a);
  out = SWEEP_GRAVITY_FMADD(av, b, c);
}

/// 1 / sqrt(x), x > 0 finite, in every lane: the classic integer estimate
/// (relative error below 3.5%), then four Newton steps y + y (1/2 - x y^2 / 2).
__attribute__((SWEEP_GRAVITY_ATTR, always_inline)) inline void inverse_sqrt(const vd& x, vd& y) {
  const vl i = std::int64_t(0x5fe6eb50c7b537a9) - ((vl)x >> 1);
  y = (vd)i;
  const vd h = -0.5 * x, half = 0.5 - vd{};
  for (int s = 0; s < 4; ++s) {
    const vd hy = h * y;
    vd e;
    fused(hy, y, half, e);
    fused(y, e, y, y);
  }
}

/// dx^2 + dy^2 + dz^2 + base, as three fused steps.
__attribute__((SWEEP_GRAVITY_ATTR, always_inline)) inline void distance2(const vd& dx, const vd& dy, const vd& dz,
                                                                         const vd& base, vd& r2) {
  fused(dx, dx, base, r2);
  fused(dy, dy, r2, r2);
  fused(dz, dz, r2, r2);
}

/// Both lists summed for every body of `g`, W at a time.
__attribute__((SWEEP_GRAVITY_ATTR)) inline void sum_lists(const interaction_lists& L, group_state& g, double eps2,
                                                          bool quadrupole) {
  const index_t nn = index_t(L.nodes.size()), nb = index_t(L.bodies.size());
  const listed_node* nodes = L.nodes.data();
  const listed_body* bodies = L.bodies.data();
  const vd e2 = SWEEP_GRAVITY_SET1(eps2);
  const vl one = (vl)(1.0 - vd{});  // the bits of 1.0 in every lane
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
        vd r2, inv, t, qx, qy, qz, dqd, radial;
        distance2(dx, dy, dz, e2, r2);
        inverse_sqrt(r2, inv);
        const vd inv2 = inv * inv;
        fused(q.xy, dy, q.xz * dz, t), fused(q.xx, dx, t, qx);
        fused(q.yy, dy, q.yz * dz, t), fused(q.xy, dx, t, qy);
        fused(q.yz, dy, q.zz * dz, t), fused(q.xz, dx, t, qz);
        fused(dy, qy, dz * qz, t), fused(dx, qx, t, dqd);
        const vd inv3 = inv * inv2, inv5 = inv3 * inv2, inv7 = inv5 * inv2;
        fused(q.m, inv3, 2.5 * dqd * inv7, radial);
        // a += radial d - q inv5; phi -= m inv + dqd inv5 / 2
        fused(-qx, inv5, ax, ax), fused(radial, dx, ax, ax);
        fused(-qy, inv5, ay, ay), fused(radial, dy, ay, ay);
        fused(-qz, inv5, az, az), fused(radial, dz, az, az);
        fused(-0.5 * dqd, inv5, phi, phi), fused(-q.m, inv, phi, phi);
      }
    } else {
      for (index_t j = 0; j < nn; ++j) {
        const listed_node& q = nodes[j];
        const vd dx = q.x - x, dy = q.y - y, dz = q.z - z;
        vd r2, inv;
        distance2(dx, dy, dz, e2, r2);
        inverse_sqrt(r2, inv);
        const vd mi = q.m * inv;
        const vd mi3 = mi * (inv * inv);
        fused(mi3, dx, ax, ax), fused(mi3, dy, ay, ay), fused(mi3, dz, az, az);
        phi -= mi;
      }
    }
    for (index_t j = 0; j < nb; ++j) {
      const listed_body& q = bodies[j];
      const vd dx = q.x - x, dy = q.y - y, dz = q.z - z;
      const vl hit = me == q.id;  // -1 (all bits) where the body is the lane's own
      // 0 there and 1 elsewhere, and the reverse, as bit masks of 1.0 (AVX-512F
      // has no 64-bit integer to double conversion).
      const vd keep = (vd)(one & ~hit), self = (vd)(one & hit);
      const vd base = e2 + self;
      vd r2, inv;
      distance2(dx, dy, dz, base, r2);
      inverse_sqrt(r2, inv);
      const vd mi = q.m * inv * keep;
      const vd mi3 = mi * (inv * inv);
      fused(mi3, dx, ax, ax), fused(mi3, dy, ay, ay), fused(mi3, dz, az, az);
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

}  // namespace sweep::nbody::detail::SWEEP_GRAVITY_LEVEL
