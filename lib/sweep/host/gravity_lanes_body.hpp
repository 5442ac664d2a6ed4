// The host force walk's lanes kernel, written once and included once per
// instruction-set level by host/gravity_lanes.hpp, which names the level's
// namespace (SWEEP_GRAVITY_LEVEL), its lane count (SWEEP_GRAVITY_WIDTH), its
// functions' attributes (SWEEP_GRAVITY_ATTR: target and fp-contract=off),
// its fused multiply-adds of three vectors of doubles and of floats
// (SWEEP_GRAVITY_FMADD, SWEEP_GRAVITY_FMADDF) and its broadcasts of a
// double and a float (SWEEP_GRAVITY_SET1, SWEEP_GRAVITY_SET1F). A function's target cannot
// depend on a template argument, so each level is code of its own; the
// helpers carry the level's target and stay always_inline, so they and the
// intrinsics inline at every optimisation level. No include guard, by design.

namespace sweep::nbody::detail::SWEEP_GRAVITY_LEVEL {

constexpr int W = SWEEP_GRAVITY_WIDTH;
using vd = lanes<W>::vd;
using vl = lanes<W>::vl;
using vf = lanes<W>::vf;
using vi = lanes<W>::vi;
using vh = lanes<W>::vh;

/// Nodes summed in float before their sums join the double ones.
constexpr index_t far_run = 64;

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

__attribute__((SWEEP_GRAVITY_ATTR, always_inline)) inline void fused(const vf& a, const vf& b, const vf& c, vf& out) {
  out = SWEEP_GRAVITY_FMADDF(a, b, c);
}
__attribute__((SWEEP_GRAVITY_ATTR, always_inline)) inline void fused(const float& a, const vf& b, const vf& c,
                                                                     vf& out) {
  const vf av = SWEEP_GRAVITY_SET1F(a);
  out = SWEEP_GRAVITY_FMADDF(av, b, c);
}

/// 1 / sqrt(x), x > 0 finite, in every lane: the classic integer estimate
/// (`magic` less half the bits of x: relative error below 3.5%), then
/// `steps` Newton steps y + y (1/2 - x y^2 / 2). I: the integer vector of
/// V's size.
template <class I, int steps, class V, class S>
__attribute__((SWEEP_GRAVITY_ATTR, always_inline)) inline void newton_inverse_sqrt(const V& x, V& y, S magic) {
  using E = std::remove_cvref_t<decltype(x[0])>;
  const I i = magic - ((I)x >> 1);
  y = (V)i;
  const V h = E(-0.5) * x, half = E(0.5) - V{};
  for (int s = 0; s < steps; ++s) {
    const V hy = h * y;
    V e;
    fused(hy, y, half, e);
    fused(y, e, y, y);
  }
}
/// Four steps in double, three in float (a few ulps each).
__attribute__((SWEEP_GRAVITY_ATTR, always_inline)) inline void inverse_sqrt(const vd& x, vd& y) {
  newton_inverse_sqrt<vl, 4>(x, y, std::int64_t(0x5fe6eb50c7b537a9));
}
__attribute__((SWEEP_GRAVITY_ATTR, always_inline)) inline void inverse_sqrt(const vf& x, vf& y) {
  newton_inverse_sqrt<vi, 3>(x, y, std::int32_t(0x5f375a86));
}

/// dx^2 + dy^2 + dz^2 + base, as three fused steps.
template <class V>
__attribute__((SWEEP_GRAVITY_ATTR, always_inline)) inline void distance2(const V& dx, const V& dy, const V& dz,
                                                                         const V& base, V& r2) {
  fused(dx, dx, base, r2);
  fused(dy, dy, r2, r2);
  fused(dz, dz, r2, r2);
}

/// sum += v * scale, v's 2W floats widened to two W-lane halves.
__attribute__((SWEEP_GRAVITY_ATTR, always_inline)) inline void add_widened(const vf& v, const vd& scale, vd (&sum)[2]) {
  vh half[2];
  std::memcpy(half, &v, sizeof half);
  for (int h = 0; h < 2; ++h) {
    const vd wide = __builtin_convertvector(half[h], vd);
    fused(wide, scale, sum[h], sum[h]);
  }
}

/// The far field of the 2W bodies from `k0` in float lanes: every node of
/// `L.singles`, in runs of far_run nodes whose float sums are added, in
/// the lists' units, to the double sums (acceleration, and the potential
/// with its sign). False if any of them is not finite.
__attribute__((SWEEP_GRAVITY_ATTR, always_inline)) inline bool far_single(const interaction_lists& L,
                                                                          const group_state& g, int k0, double eps2,
                                                                          bool quadrupole, vd (&ax)[2], vd (&ay)[2],
                                                                          vd (&az)[2], vd (&phi)[2]) {
  const index_t nn = index_t(L.singles.size());
  const listed_node_single* nodes = L.singles.data();
  const double il = L.il;
  vf x, y, z;
  for (int l = 0; l < 2 * W; ++l) {
    const std::size_t k = std::size_t(k0 + l);
    x[l] = float((g.px[k] - L.origin[0]) * il), y[l] = float((g.py[k] - L.origin[1]) * il);
    z[l] = float((g.pz[k] - L.origin[2]) * il);
  }
  const vf e2 = SWEEP_GRAVITY_SET1F(float(eps2 * il * il));
  const vd accel_unit = SWEEP_GRAVITY_SET1(L.units.mass * il * il), potential_unit = SWEEP_GRAVITY_SET1(-L.units.mass * il);
  for (index_t j0 = 0; j0 < nn; j0 += far_run) {
    const index_t j1 = std::min(nn, j0 + far_run);
    vf sx = x - x, sy = sx, sz = sx, psi = sx;  // psi: minus the potential
    if (quadrupole) {
      for (index_t j = j0; j < j1; ++j) {
        const listed_node_single& q = nodes[j];
        const vf dx = q.x - x, dy = q.y - y, dz = q.z - z;
        vf r2, inv, t, qx, qy, qz, dqd, radial;
        distance2(dx, dy, dz, e2, r2);
        inverse_sqrt(r2, inv);
        fused(q.xy, dy, q.xz * dz, t), fused(q.xx, dx, t, qx);
        fused(q.yy, dy, q.yz * dz, t), fused(q.xy, dx, t, qy);
        fused(q.yz, dy, q.zz * dz, t), fused(q.xz, dx, t, qz);
        fused(dy, qy, dz * qz, t), fused(dx, qx, t, dqd);
        // inv^5 before dqd: no power above the fifth is formed.
        const vf inv2 = inv * inv, inv3 = inv * inv2, inv5 = inv3 * inv2;
        const vf f = dqd * inv5;
        fused(q.m, inv3, (2.5f * f) * inv2, radial);
        // a += radial d - q inv5; psi += m inv + f / 2
        fused(-qx, inv5, sx, sx), fused(radial, dx, sx, sx);
        fused(-qy, inv5, sy, sy), fused(radial, dy, sy, sy);
        fused(-qz, inv5, sz, sz), fused(radial, dz, sz, sz);
        fused(0.5f, f, psi, psi), fused(q.m, inv, psi, psi);
      }
    } else {
      for (index_t j = j0; j < j1; ++j) {
        const listed_node_single& q = nodes[j];
        const vf dx = q.x - x, dy = q.y - y, dz = q.z - z;
        vf r2, inv;
        distance2(dx, dy, dz, e2, r2);
        inverse_sqrt(r2, inv);
        const vf mi = q.m * inv;
        const vf mi3 = mi * (inv * inv);
        fused(mi3, dx, sx, sx), fused(mi3, dy, sy, sy), fused(mi3, dz, sz, sz);
        psi += mi;
      }
    }
    add_widened(sx, accel_unit, ax), add_widened(sy, accel_unit, ay), add_widened(sz, accel_unit, az);
    add_widened(psi, potential_unit, phi);
  }
  bool finite = true;
  for (int h = 0; h < 2; ++h)
    for (int l = 0; l < W; ++l)
      finite = finite && std::isfinite(ax[h][l]) && std::isfinite(ay[h][l]) && std::isfinite(az[h][l]) &&
               std::isfinite(phi[h][l]);
  return finite;
}

/// Both lists summed for every body of `g`: the far field 2W bodies at a
/// time (in float, or in double from `L.nodes` when `L.precise`), the near
/// field W at a time. False when the single-precision far field of some
/// body was not finite (the caller sums the group again, `L.precise`).
__attribute__((SWEEP_GRAVITY_ATTR)) inline bool sum_lists(const interaction_lists& L, group_state& g, double eps2,
                                                          bool quadrupole) {
  const index_t nn = index_t(L.nodes.size()), nb = index_t(L.bodies.size());
  const listed_node* nodes = L.nodes.data();
  const listed_body* bodies = L.bodies.data();
  const vd e2 = SWEEP_GRAVITY_SET1(eps2);
  const vl one = (vl)(1.0 - vd{});  // the bits of 1.0 in every lane
  for (int k2 = 0; k2 < g.n; k2 += 2 * W) {
    vd ax[2], ay[2], az[2], phi[2];
    for (int h = 0; h < 2; ++h) ax[h] = vd{}, ay[h] = vd{}, az[h] = vd{}, phi[h] = vd{};
    if (!L.precise && !far_single(L, g, k2, eps2, quadrupole, ax, ay, az, phi)) return false;
    for (int h = 0; h < 2 && k2 + h * W < g.n; ++h) {
      const int k0 = k2 + h * W;
      vd x, y, z;
      vl me;
      std::memcpy(&x, g.px.data() + k0, sizeof x);
      std::memcpy(&y, g.py.data() + k0, sizeof y);
      std::memcpy(&z, g.pz.data() + k0, sizeof z);
      std::memcpy(&me, g.self.data() + k0, sizeof me);
      vd sx = ax[h], sy = ay[h], sz = az[h], sphi = phi[h];
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
          fused(-qx, inv5, sx, sx), fused(radial, dx, sx, sx);
          fused(-qy, inv5, sy, sy), fused(radial, dy, sy, sy);
          fused(-qz, inv5, sz, sz), fused(radial, dz, sz, sz);
          fused(-0.5 * dqd, inv5, sphi, sphi), fused(-q.m, inv, sphi, sphi);
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
          fused(mi3, dx, sx, sx), fused(mi3, dy, sy, sy), fused(mi3, dz, sz, sz);
          sphi -= mi;
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
        fused(mi3, dx, sx, sx), fused(mi3, dy, sy, sy), fused(mi3, dz, sz, sz);
        sphi -= mi;
        met += hit;
      }
      for (int l = 0; l < W && k0 + l < g.n; ++l) {
        g.ax[std::size_t(k0 + l)] = sx[l], g.ay[std::size_t(k0 + l)] = sy[l], g.az[std::size_t(k0 + l)] = sz[l];
        g.phi[std::size_t(k0 + l)] = sphi[l];
        g.count[std::size_t(k0 + l)] = std::uint32_t(nn + index_t(L.singles.size()) + nb + met[l]);
      }
    }
  }
  return true;
}

}  // namespace sweep::nbody::detail::SWEEP_GRAVITY_LEVEL
