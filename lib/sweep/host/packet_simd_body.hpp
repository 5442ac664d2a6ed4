// The host SIMD ray packet, written once over a set of vector operations
// (host/packet_lanes.hpp) and included once per instruction-set level by
// host/packet_simd.hpp, which names the type (SWEEP_PACKET_NAME), its
// operations (SWEEP_PACKET_LANES) and its functions' target attribute
// (SWEEP_PACKET_FN): a function's target cannot depend on a template
// argument, so each level is a type of its own. No include guard, by design.
//
// The packet is stored as structure of arrays: origin, reciprocal
// direction, the watertight test's three shear rows, interval and closest
// hit per lane. A vector's lanes (16 with AVX-512, 8 with AVX2) go through
// each instruction:
// - load: the rays' fields gathered a vector at a time, then the
//   reciprocals and shear rows of ray_setup made for the whole packet;
// - box tests: the slab test of hits_box, a vector of rays per step;
// - leaves: each triangle is tested against a vector of rays at once (the
//   baseline tests one ray against four triangles).
// Every lane does the scalar code's operations in the scalar code's order
// (no contraction into fused multiply-adds), and a lane whose edge function
// is exactly zero is redone by the scalar test in double, so results equal
// single rays' bit for bit.

namespace sweep::raytrace::detail {

template <int L, class Backend>
struct SWEEP_PACKET_NAME {
  using X = SWEEP_PACKET_LANES;
  using f = typename X::f;
  using vi = typename X::i;
  using m = typename X::m;
  static constexpr int W = X::width;
  static constexpr unsigned all = (1u << W) - 1;  // a whole vector's lane bits
  static constexpr int lanes = L;
  static constexpr int padded = L < W ? W : L;  // whole vectors; lanes past L never hit
  template <int S>
  using resized = SWEEP_PACKET_NAME<S, Backend>;
  using backend = Backend;
  alignas(64) float ox[padded], oy[padded], oz[padded];
  alignas(64) float ix[padded], iy[padded], iz[padded];
  alignas(64) float shear[9][padded];  // rows sx, sy, sz of ray_setup, component by component
  alignas(64) float tmin[padded], tmax[padded], hu[padded], hv[padded];
  alignas(64) std::int32_t prim[padded];
  int size = 0;
  packet_bounds bounds;

  template <class Rays>
  SWEEP_PACKET_FN std::uint64_t load(const Rays& rays, index_t first, index_t n) {
    size = int(n - first < L ? n - first : L);
    alignas(64) float dx[padded], dy[padded], dz[padded];
    std::uint64_t mask = 0;
    static_assert(sizeof(ray) == 8 * sizeof(float), "a ray is origin, direction, tmin, tmax");
    const std::int64_t step = std::int64_t(rays.stride_0()) * 8;  // floats from one ray to the next
    if (size == L && L >= W && step * L < (std::int64_t(1) << 31)) {
      // A whole packet: a vector of lanes of each field per gather.
      const float* base = reinterpret_cast<const float*>(&rays(first));
      for (int g = 0; g < L; g += W) {
        const vi at = X::mulloi(X::addi(X::iota(), X::set1i(g)), X::set1i(int(step)));
        float* to[8] = {ox + g, oy + g, oz + g, dx + g, dy + g, dz + g, tmin + g, tmax + g};
        for (int k = 0; k < 8; ++k) X::store(to[k], X::gather(base, X::addi(at, X::set1i(k))));
        X::store(hu + g, X::zero()), X::store(hv + g, X::zero());
        X::storei(prim + g, X::set1i(-1));
        mask |= std::uint64_t(X::bits(X::le(X::load(tmin + g), X::load(tmax + g)))) << g;
      }
    } else {
      for (int i = 0; i < padded; ++i) {
        const bool on = i < size;
        const ray& q = rays(first + (on ? i : 0));
        ox[i] = q.org.x, oy[i] = q.org.y, oz[i] = q.org.z;
        dx[i] = q.dir.x, dy[i] = q.dir.y, dz[i] = q.dir.z;
        tmin[i] = on ? q.tmin : 1.0f;
        tmax[i] = on ? q.tmax : -1.0f;
        hu[i] = 0, hv[i] = 0, prim[i] = -1;
        if (on && q.tmin <= q.tmax) mask |= std::uint64_t(1) << i;
      }
    }
    for (int g = 0; g < padded; g += W) setup_lanes(g, dx + g, dy + g, dz + g);
    prepare();
    return mask;
  }

  hit result(int i) const { return hit{tmax[i], hu[i], hv[i], prim[i]}; }

  /// ray_setup's reciprocals and shear rows for the vector of lanes at g.
  SWEEP_PACKET_FN void setup_lanes(int g, const float* px, const float* py, const float* pz) {
    const f d[3] = {X::load(px), X::load(py), X::load(pz)};
    X::store(ix + g, safe_rcp(d[0]));
    X::store(iy + g, safe_rcp(d[1]));
    X::store(iz + g, safe_rcp(d[2]));
    const f ax = X::abs(d[0]), ay = X::abs(d[1]), az = X::abs(d[2]);
    // kz: the dominant axis; kx, ky follow it cyclically, swapped when
    // the direction along kz is negative.
    const m z0 = X::mand(X::ge(ax, ay), X::ge(ax, az));
    const m z1 = X::mandnot(X::ge(ay, az), z0);
    const m z2 = X::mandnot(X::mnot(z0), z1);
    const m kz[3] = {z0, z1, z2};
    const f dkz = X::blend(z0, X::blend(z1, d[2], d[1]), d[0]);
    const m flip = X::lt(dkz, X::zero());
    const m cx[3] = {z2, z0, z1}, cy[3] = {z1, z2, z0};  // kx, ky before the swap
    m kx[3], ky[3];
    for (int a = 0; a < 3; ++a) {
      kx[a] = X::mor(X::mandnot(cx[a], flip), X::mand(cy[a], flip));
      ky[a] = X::mor(X::mandnot(cy[a], flip), X::mand(cx[a], flip));
    }
    const f scale_z = X::div(X::set1(1.0f), dkz);
    const f shear_x = X::mul(pick(kx, d), scale_z), shear_y = X::mul(pick(ky, d), scale_z);
    const f one = X::set1(1.0f), zero = X::zero();
    const f neg_x = X::negate(shear_x), neg_y = X::negate(shear_y);
    for (int a = 0; a < 3; ++a) {
      X::store(shear[a] + g, X::blend(kx[a], X::blend(kz[a], zero, neg_x), one));
      X::store(shear[3 + a] + g, X::blend(ky[a], X::blend(kz[a], zero, neg_y), one));
      X::store(shear[6 + a] + g, X::blend(kz[a], zero, scale_z));
    }
  }

  /// safe_reciprocal, a vector of lanes.
  static SWEEP_PACKET_FN f safe_rcp(f x) {
    const f tiny = X::set1(1e-30f), minus_tiny = X::set1(-1e-30f);
    const m nonneg = X::ge(x, X::zero());
    const f pos = X::blend(X::lt(x, tiny), x, tiny);
    const f neg = X::blend(X::gt(x, minus_tiny), x, minus_tiny);
    return X::div(X::set1(1.0f), X::blend(nonneg, neg, pos));
  }

  /// d[a] in the lanes of k[a].
  static SWEEP_PACKET_FN f pick(const m* k, const f* d) { return X::blend(k[0], X::blend(k[1], d[2], d[1]), d[0]); }

  /// A vertex's offsets from the origins, sheared: dot(row, offset) for
  /// the rows sx, sy, sz.
  static SWEEP_PACKET_FN void shear_vertex(float x, float y, float z, const f* q, const f* s, f* p) {
    const f dx = X::sub(X::set1(x), q[0]), dy = X::sub(X::set1(y), q[1]), dz = X::sub(X::set1(z), q[2]);
    for (int r = 0; r < 3; ++r)
      p[r] = X::add(X::add(X::mul(s[3 * r], dx), X::mul(s[3 * r + 1], dy)), X::mul(s[3 * r + 2], dz));
  }

  /// The interval test's bounds over lanes [0, size), as packet::prepare.
  SWEEP_PACKET_FN void prepare() {
    packet_bounds& pb = bounds;
    pb.shared = size > 1;
    pb.org = vec3f{ox[0], oy[0], oz[0]};
    f lo[3], hi[3];
    f tlo = X::set1(__builtin_huge_valf()), thi = X::set1(-__builtin_huge_valf());
    for (int a = 0; a < 3; ++a) lo[a] = tlo, hi[a] = thi;
    const f o[3] = {X::set1(ox[0]), X::set1(oy[0]), X::set1(oz[0])};
    for (int g = 0; g < padded && g < size; g += W) {
      const unsigned on_bits = size - g >= W ? all : (1u << (size - g)) - 1;
      const m on = X::from_bits(on_bits);
      const f q[3] = {X::load(ox + g), X::load(oy + g), X::load(oz + g)};
      const f v[3] = {X::load(ix + g), X::load(iy + g), X::load(iz + g)};
      for (int a = 0; a < 3; ++a) {
        pb.shared = pb.shared && (X::bits(X::eq(q[a], o[a])) & on_bits) == on_bits;
        lo[a] = X::blend(on, lo[a], X::min(lo[a], v[a]));
        hi[a] = X::blend(on, hi[a], X::max(hi[a], v[a]));
      }
      tlo = X::blend(on, tlo, X::min(tlo, X::load(tmin + g)));
      thi = X::blend(on, thi, X::max(thi, X::load(tmax + g)));
    }
    for (int a = 0; a < 3; ++a) {
      pb.inv_lo[a] = reduce(lo[a], false);
      pb.inv_hi[a] = reduce(hi[a], true);
      pb.shared = pb.shared && (pb.inv_lo[a] > 0 || pb.inv_hi[a] < 0);
    }
    pb.tmin_all = reduce(tlo, false);
    pb.tmax_all = reduce(thi, true);
  }

  /// The smallest (or largest) of a vector's lanes.
  static SWEEP_PACKET_FN float reduce(f v, bool largest) {
    alignas(64) float x[W];
    X::store(x, v);
    float r = x[0];
    for (int i = 1; i < W; ++i) r = largest ? (r > x[i] ? r : x[i]) : (r < x[i] ? r : x[i]);
    return r;
  }

  SWEEP_PACKET_FN void refresh_bound() {
    f top = X::load(tmax);
    for (int g = W; g < padded; g += W) top = X::max(top, X::load(tmax + g));
    bounds.tmax_all = reduce(top, true);
  }

  bool negative(int axis, int i) const { return (axis == 0 ? ix[i] : (axis == 1 ? iy[i] : iz[i])) < 0; }

  SWEEP_PACKET_FN std::uint64_t hits_box(const vec3f& lo, const vec3f& hi, std::uint64_t mask) const {
    std::uint64_t out = 0;
    const f lx = X::set1(lo.x), ly = X::set1(lo.y), lz = X::set1(lo.z);
    const f hx = X::set1(hi.x), hy = X::set1(hi.y), hz = X::set1(hi.z);
    const f scale = X::set1(exit_scale);
    for (int g = 0; g < padded; g += W) {
      const unsigned want = unsigned(mask >> g) & all;
      if (!want) continue;
      const f qx = X::load(ox + g), qy = X::load(oy + g), qz = X::load(oz + g);
      const f vx = X::load(ix + g), vy = X::load(iy + g), vz = X::load(iz + g);
      const f x0 = X::mul(X::sub(lx, qx), vx), x1 = X::mul(X::sub(hx, qx), vx);
      const f y0 = X::mul(X::sub(ly, qy), vy), y1 = X::mul(X::sub(hy, qy), vy);
      const f z0 = X::mul(X::sub(lz, qz), vz), z1 = X::mul(X::sub(hz, qz), vz);
      const f near = X::max(X::max(X::min(x0, x1), X::min(y0, y1)), X::max(X::min(z0, z1), X::load(tmin + g)));
      const f far =
          X::mul(X::min(X::min(X::max(x0, x1), X::max(y0, y1)), X::min(X::max(z0, z1), X::load(tmax + g))), scale);
      out |= std::uint64_t(X::bits(X::le(near, far)) & want) << g;
    }
    return out;
  }

  /// Lane i as a ray_setup (for the scalar test and the single-ray walk).
  ray_setup setup(int i) const {
    ray_setup r;
    r.org = vec3f{ox[i], oy[i], oz[i]}, r.inv = vec3f{ix[i], iy[i], iz[i]};
    r.tmin = tmin[i], r.tmax = tmax[i];
    r.sx = vec3f{shear[0][i], shear[1][i], shear[2][i]};
    r.sy = vec3f{shear[3][i], shear[4][i], shear[5][i]};
    r.sz = vec3f{shear[6][i], shear[7][i], shear[8][i]};
    return r;
  }

  /// The triangles of a leaf against the rays of `mask`, a vector of rays
  /// per triangle test; a finished any-hit ray leaves the packet.
  template <bool Any, class Mem>
  SWEEP_PACKET_FN void intersect_leaf(const bvh_view<Mem>& b, std::int32_t first, std::int32_t count,
                                      std::uint64_t mask) {
    const triangle_block* blocks = b.blocks.data() + first;
    const int nblocks = (count + 3) / 4;
    const f zero = X::zero(), inf = X::set1(__builtin_huge_valf());
    for (int g = 0; g < padded; g += W) {
      m act = X::from_bits(unsigned(mask >> g) & all);
      if (!X::any(act)) continue;
      const f q[3] = {X::load(ox + g), X::load(oy + g), X::load(oz + g)};
      f s[9];
      for (int k = 0; k < 9; ++k) s[k] = X::load(shear[k] + g);
      const f tn = X::load(tmin + g);
      f bt = X::load(tmax + g), bu = X::load(hu + g), bv = X::load(hv + g);
      vi bp = X::loadi(prim + g);
      for (int k = 0; k < nblocks && X::any(act); ++k) {
        const triangle_block& blk = blocks[k];
        for (int j = 0; j < 4 && X::any(act); ++j) {
          const std::int32_t id = blk.prim[j];
          if (id < 0) continue;
          f pa[3], pb[3], pc[3];
          shear_vertex(blk.ax[j], blk.ay[j], blk.az[j], q, s, pa);
          shear_vertex(blk.bx[j], blk.by[j], blk.bz[j], q, s, pb);
          shear_vertex(blk.cx[j], blk.cy[j], blk.cz[j], q, s, pc);
          const f ax = pa[0], ay = pa[1], az = pa[2], bx = pb[0], by = pb[1], bz = pb[2], cx = pc[0], cy = pc[1],
                  cz = pc[2];
          const f U = X::sub(X::mul(cx, by), X::mul(cy, bx));
          const f V = X::sub(X::mul(ax, cy), X::mul(ay, cx));
          const f Wt = X::sub(X::mul(bx, ay), X::mul(by, ax));
          const m exact = X::mand(act, X::mor(X::mor(X::eq(U, zero), X::eq(V, zero)), X::eq(Wt, zero)));
          const m negative = X::mor(X::mor(X::lt(U, zero), X::lt(V, zero)), X::lt(Wt, zero));
          const m positive = X::mor(X::mor(X::gt(U, zero), X::gt(V, zero)), X::gt(Wt, zero));
          const f det = X::add(X::add(U, V), Wt);
          const f T = X::add(X::add(X::mul(U, az), X::mul(V, bz)), X::mul(Wt, cz));
          const f inv = X::div(X::set1(1.0f), det);
          const f t = X::mul(T, inv);
          m ok = X::mandnot(X::mandnot(act, exact), X::mand(negative, positive));
          ok = X::mand(ok, X::neq(det, zero));
          ok = X::mand(ok, X::ge(t, tn));
          ok = X::mand(ok, X::le(t, bt));
          const vi pid = X::set1i(id);
          m upd = ok;
          if (!Any) {
            // closer(): nearer, or as near with a lower primitive.
            const m tie = X::mand(X::mand(X::mand(ok, X::eq(t, bt)), X::lt(t, inf)),
                                  X::mor(X::lti(bp, X::zeroi()), X::lti(pid, bp)));
            upd = X::mor(X::mand(ok, X::lt(t, bt)), tie);
          }
          bt = X::blend(upd, bt, Any ? X::set1(-1.0f) : t);
          bu = X::blend(upd, bu, X::mul(V, inv));
          bv = X::blend(upd, bv, X::mul(Wt, inv));
          bp = X::blendi(upd, bp, pid);
          if (Any) act = X::mandnot(act, upd);
          if (const unsigned e_bits = X::bits(exact)) {
            // Edge functions at exactly zero: the scalar test, in double.
            X::store(tmax + g, bt), X::store(hu + g, bu), X::store(hv + g, bv);
            X::storei(prim + g, bp);
            unsigned act_bits = X::bits(act);
            for (unsigned e = e_bits; e; e &= e - 1) {
              const int i = g + int(ctz64(e));
              hit h = result(i);
              float u = 0, v = 0;
              const float d = intersect_triangle(setup(i), block_triangle(blk, j), h.t, u, v);
              const bool done = detail::take<Any>(d, u, v, id, h);
              tmax[i] = done ? -1.0f : h.t, hu[i] = h.u, hv[i] = h.v, prim[i] = h.prim;
              if (done) act_bits &= ~(1u << (i - g));
            }
            act = X::from_bits(act_bits);
            bt = X::load(tmax + g), bu = X::load(hu + g), bv = X::load(hv + g);
            bp = X::loadi(prim + g);
          }
        }
      }
      X::store(tmax + g, bt), X::store(hu + g, bu), X::store(hv + g, bv);
      X::storei(prim + g, bp);
    }
    if (bounds.shared) refresh_bound();
  }

  template <bool Any, class Mem>
  void finish_alone(const bvh_view<Mem>& b, std::int32_t node, int i) {
    hit h = result(i);
    walk_binary<Any, Backend>(b, setup(i), node, h);
    tmax[i] = Any && h.prim >= 0 ? -1.0f : h.t, hu[i] = h.u, hv[i] = h.v, prim[i] = h.prim;
  }

  template <int M>
  SWEEP_PACKET_FN void compact_from(const SWEEP_PACKET_NAME<M, Backend>& p, std::uint64_t mask, int* lane) {
    size = 0;
    for (std::uint64_t k = mask; k; k &= k - 1) lane[size++] = int(ctz64(k));
    for (int k = 0; k < padded; ++k) {
      const bool on = k < size;
      const int i = lane[on ? k : 0];
      ox[k] = p.ox[i], oy[k] = p.oy[i], oz[k] = p.oz[i], ix[k] = p.ix[i], iy[k] = p.iy[i], iz[k] = p.iz[i];
      for (int r = 0; r < 9; ++r) shear[r][k] = p.shear[r][i];
      tmin[k] = on ? p.tmin[i] : 1.0f;
      tmax[k] = on ? p.tmax[i] : -1.0f;
      hu[k] = p.hu[i], hv[k] = p.hv[i], prim[k] = on ? p.prim[i] : -1;
    }
    prepare();
  }

  template <int S>
  void restore_from(const SWEEP_PACKET_NAME<S, Backend>& q, const int* lane, bool) {
    for (int k = 0; k < q.size; ++k)
      tmax[lane[k]] = q.tmax[k], hu[lane[k]] = q.hu[k], hv[lane[k]] = q.hv[k], prim[lane[k]] = q.prim[k];
  }
};

}  // namespace sweep::raytrace::detail
