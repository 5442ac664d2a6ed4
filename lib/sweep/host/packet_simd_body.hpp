// Ray packets in AVX-512 lanes, for x86-64 hosts whose CPU has AVX-512F
// (chosen at run time; see trace_isa in raytrace/trace_options.hpp).
// Part of the host packet backend (host/packet_backend.hpp); walk_packet
// walks the binary BVH with it exactly as with the baseline packet.
//
// The packet is stored as structure of arrays: origin, reciprocal
// direction, the watertight test's three shear rows, interval and closest
// hit per lane. Sixteen lanes go through each instruction:
// - load: the rays' fields gathered sixteen lanes at a time, then the
//   reciprocals and shear rows of ray_setup made for the whole packet;
// - box tests: the slab test of hits_box, sixteen rays per step;
// - leaves: each triangle is tested against sixteen rays at once (the
//   baseline tests one ray against four triangles).
// Every lane does the scalar code's operations in the scalar code's order
// (no contraction into fused multiply-adds), and a lane whose edge function
// is exactly zero is redone by the scalar test in double, so results equal
// single rays' bit for bit.
#pragma once

#include <sweep/host/isa.hpp>
#include <sweep/raytrace/packet.hpp>

#if SWEEP_HOST_MULTI

#define SWEEP_HOST_AVX512_FN __attribute__((target("avx512f"), optimize("fp-contract=off")))

namespace sweep::raytrace::detail {

template <int L, class Backend>
struct avx512_packet {
  static constexpr int lanes = L;
  static constexpr int padded = L < 16 ? 16 : L;  // whole vectors; lanes past L never hit
  template <int S>
  using resized = avx512_packet<S, Backend>;
  using backend = Backend;
  alignas(64) float ox[padded], oy[padded], oz[padded];
  alignas(64) float ix[padded], iy[padded], iz[padded];
  alignas(64) float shear[9][padded];  // rows sx, sy, sz of ray_setup, component by component
  alignas(64) float tmin[padded], tmax[padded], hu[padded], hv[padded];
  alignas(64) std::int32_t prim[padded];
  int size = 0;
  packet_bounds bounds;

  template <class Rays>
  SWEEP_HOST_AVX512_FN std::uint64_t load(const Rays& rays, index_t first, index_t n) {
    size = int(n - first < L ? n - first : L);
    alignas(64) float dx[padded], dy[padded], dz[padded];
    std::uint64_t mask = 0;
    static_assert(sizeof(ray) == 8 * sizeof(float), "a ray is origin, direction, tmin, tmax");
    const std::int64_t step = std::int64_t(rays.stride_0()) * 8;  // floats from one ray to the next
    if (size == L && L >= 16 && step * L < (std::int64_t(1) << 31)) {
      // A whole packet: sixteen lanes of each field per gather.
      const float* base = reinterpret_cast<const float*>(&rays(first));
      const __m512i lane = _mm512_set_epi32(15, 14, 13, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0);
      const __m512 zero = _mm512_setzero_ps();
      for (int g = 0; g < L; g += 16) {
        const __m512i at = _mm512_mullo_epi32(_mm512_add_epi32(lane, _mm512_set1_epi32(g)), _mm512_set1_epi32(int(step)));
        float* to[8] = {ox + g, oy + g, oz + g, dx + g, dy + g, dz + g, tmin + g, tmax + g};
        for (int f = 0; f < 8; ++f)
          _mm512_store_ps(to[f], _mm512_mask_i32gather_ps(zero, 0xFFFF, _mm512_add_epi32(at, _mm512_set1_epi32(f)), base, 4));
        _mm512_store_ps(hu + g, zero), _mm512_store_ps(hv + g, zero);
        _mm512_store_si512(prim + g, _mm512_set1_epi32(-1));
        mask |= std::uint64_t(_mm512_cmp_ps_mask(_mm512_load_ps(tmin + g), _mm512_load_ps(tmax + g), _CMP_LE_OQ)) << g;
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
    for (int g = 0; g < padded; g += 16) setup_lanes(g, dx + g, dy + g, dz + g);
    prepare();
    return mask;
  }

  hit result(int i) const { return hit{tmax[i], hu[i], hv[i], prim[i]}; }

  /// ray_setup's reciprocals and shear rows for lanes g .. g + 15.
  SWEEP_HOST_AVX512_FN void setup_lanes(int g, const float* px, const float* py, const float* pz) {
    const __m512 d[3] = {_mm512_load_ps(px), _mm512_load_ps(py), _mm512_load_ps(pz)};
    _mm512_store_ps(ix + g, safe_rcp(d[0]));
    _mm512_store_ps(iy + g, safe_rcp(d[1]));
    _mm512_store_ps(iz + g, safe_rcp(d[2]));
    const __m512 ax = _mm512_abs_ps(d[0]), ay = _mm512_abs_ps(d[1]), az = _mm512_abs_ps(d[2]);
    // kz: the dominant axis; kx, ky follow it cyclically, swapped when
    // the direction along kz is negative.
    const __mmask16 z0 = _mm512_cmp_ps_mask(ax, ay, _CMP_GE_OQ) & _mm512_cmp_ps_mask(ax, az, _CMP_GE_OQ);
    const __mmask16 z1 = __mmask16(~z0 & _mm512_cmp_ps_mask(ay, az, _CMP_GE_OQ));
    const __mmask16 z2 = __mmask16(~z0 & ~z1);
    const __mmask16 kz[3] = {z0, z1, z2};
    const __m512 dkz = _mm512_mask_blend_ps(z0, _mm512_mask_blend_ps(z1, d[2], d[1]), d[0]);
    const __mmask16 flip = _mm512_cmp_ps_mask(dkz, _mm512_setzero_ps(), _CMP_LT_OQ);
    const __mmask16 cx[3] = {z2, z0, z1}, cy[3] = {z1, z2, z0};  // kx, ky before the swap
    __mmask16 kx[3], ky[3];
    for (int a = 0; a < 3; ++a) {
      kx[a] = __mmask16((cx[a] & ~flip) | (cy[a] & flip));
      ky[a] = __mmask16((cy[a] & ~flip) | (cx[a] & flip));
    }
    const __m512 scale_z = _mm512_div_ps(_mm512_set1_ps(1.0f), dkz);
    const __m512 shear_x = _mm512_mul_ps(pick(kx, d), scale_z), shear_y = _mm512_mul_ps(pick(ky, d), scale_z);
    const __m512 one = _mm512_set1_ps(1.0f), zero = _mm512_setzero_ps();
    const __m512 neg_x = negate(shear_x), neg_y = negate(shear_y);
    for (int a = 0; a < 3; ++a) {
      _mm512_store_ps(shear[a] + g, _mm512_mask_blend_ps(kx[a], _mm512_mask_blend_ps(kz[a], zero, neg_x), one));
      _mm512_store_ps(shear[3 + a] + g, _mm512_mask_blend_ps(ky[a], _mm512_mask_blend_ps(kz[a], zero, neg_y), one));
      _mm512_store_ps(shear[6 + a] + g, _mm512_mask_blend_ps(kz[a], zero, scale_z));
    }
  }

  /// vminps / vmaxps (as _mm512_min_ps / _mm512_max_ps, whose undefined
  /// pass-through operand GCC 12 reports as uninitialised; the gathers in
  /// load are masked for the same reason).
  static SWEEP_HOST_AVX512_FN __m512 vmin(__m512 a, __m512 b) { return _mm512_mask_min_ps(a, 0xFFFF, a, b); }
  static SWEEP_HOST_AVX512_FN __m512 vmax(__m512 a, __m512 b) { return _mm512_mask_max_ps(a, 0xFFFF, a, b); }

  /// safe_reciprocal, sixteen lanes.
  static SWEEP_HOST_AVX512_FN __m512 safe_rcp(__m512 x) {
    const __m512 tiny = _mm512_set1_ps(1e-30f), minus_tiny = _mm512_set1_ps(-1e-30f);
    const __mmask16 nonneg = _mm512_cmp_ps_mask(x, _mm512_setzero_ps(), _CMP_GE_OQ);
    const __m512 pos = _mm512_mask_blend_ps(_mm512_cmp_ps_mask(x, tiny, _CMP_LT_OQ), x, tiny);
    const __m512 neg = _mm512_mask_blend_ps(_mm512_cmp_ps_mask(x, minus_tiny, _CMP_GT_OQ), x, minus_tiny);
    return _mm512_div_ps(_mm512_set1_ps(1.0f), _mm512_mask_blend_ps(nonneg, neg, pos));
  }

  /// Flips the sign bit, as unary minus does.
  static SWEEP_HOST_AVX512_FN __m512 negate(__m512 x) {
    return _mm512_castsi512_ps(_mm512_xor_si512(_mm512_castps_si512(x), _mm512_set1_epi32(std::int32_t(0x80000000u))));
  }

  /// d[a] in the lanes of k[a].
  static SWEEP_HOST_AVX512_FN __m512 pick(const __mmask16* k, const __m512* d) {
    return _mm512_mask_blend_ps(k[0], _mm512_mask_blend_ps(k[1], d[2], d[1]), d[0]);
  }

  /// A vertex's offsets from the origins, sheared: dot(row, offset) for
  /// the rows sx, sy, sz.
  static SWEEP_HOST_AVX512_FN void shear_vertex(float x, float y, float z, const __m512* q, const __m512* s,
                                                    __m512* p) {
    const __m512 dx = _mm512_sub_ps(_mm512_set1_ps(x), q[0]), dy = _mm512_sub_ps(_mm512_set1_ps(y), q[1]),
                 dz = _mm512_sub_ps(_mm512_set1_ps(z), q[2]);
    for (int r = 0; r < 3; ++r)
      p[r] = _mm512_add_ps(_mm512_add_ps(_mm512_mul_ps(s[3 * r], dx), _mm512_mul_ps(s[3 * r + 1], dy)),
                           _mm512_mul_ps(s[3 * r + 2], dz));
  }

  /// The interval test's bounds over lanes [0, size), as packet::prepare.
  SWEEP_HOST_AVX512_FN void prepare() {
    packet_bounds& pb = bounds;
    pb.shared = size > 1;
    pb.org = vec3f{ox[0], oy[0], oz[0]};
    __m512 lo[3], hi[3];
    __m512 tlo = _mm512_set1_ps(__builtin_huge_valf()), thi = _mm512_set1_ps(-__builtin_huge_valf());
    for (int a = 0; a < 3; ++a) lo[a] = tlo, hi[a] = thi;
    const __m512 o[3] = {_mm512_set1_ps(ox[0]), _mm512_set1_ps(oy[0]), _mm512_set1_ps(oz[0])};
    for (int g = 0; g < padded && g < size; g += 16) {
      const __mmask16 on = size - g >= 16 ? __mmask16(0xFFFF) : __mmask16((1u << (size - g)) - 1);
      const __m512 q[3] = {_mm512_load_ps(ox + g), _mm512_load_ps(oy + g), _mm512_load_ps(oz + g)};
      const __m512 v[3] = {_mm512_load_ps(ix + g), _mm512_load_ps(iy + g), _mm512_load_ps(iz + g)};
      for (int a = 0; a < 3; ++a) {
        pb.shared = pb.shared && _mm512_mask_cmp_ps_mask(on, q[a], o[a], _CMP_EQ_OQ) == on;
        lo[a] = _mm512_mask_min_ps(lo[a], on, lo[a], v[a]);
        hi[a] = _mm512_mask_max_ps(hi[a], on, hi[a], v[a]);
      }
      tlo = _mm512_mask_min_ps(tlo, on, tlo, _mm512_load_ps(tmin + g));
      thi = _mm512_mask_max_ps(thi, on, thi, _mm512_load_ps(tmax + g));
    }
    for (int a = 0; a < 3; ++a) {
      pb.inv_lo[a] = reduce(lo[a], false);
      pb.inv_hi[a] = reduce(hi[a], true);
      pb.shared = pb.shared && (pb.inv_lo[a] > 0 || pb.inv_hi[a] < 0);
    }
    pb.tmin_all = reduce(tlo, false);
    pb.tmax_all = reduce(thi, true);
  }

  /// The smallest (or largest) of sixteen lanes.
  static SWEEP_HOST_AVX512_FN float reduce(__m512 v, bool largest) {
    alignas(64) float x[16];
    _mm512_store_ps(x, v);
    float r = x[0];
    for (int i = 1; i < 16; ++i) r = largest ? (r > x[i] ? r : x[i]) : (r < x[i] ? r : x[i]);
    return r;
  }

  SWEEP_HOST_AVX512_FN void refresh_bound() {
    __m512 top = _mm512_load_ps(tmax);
    for (int g = 16; g < padded; g += 16) top = vmax(top, _mm512_load_ps(tmax + g));
    bounds.tmax_all = reduce(top, true);
  }

  bool negative(int axis, int i) const { return (axis == 0 ? ix[i] : (axis == 1 ? iy[i] : iz[i])) < 0; }

  SWEEP_HOST_AVX512_FN std::uint64_t hits_box(const vec3f& lo, const vec3f& hi, std::uint64_t mask) const {
    std::uint64_t out = 0;
    const __m512 lx = _mm512_set1_ps(lo.x), ly = _mm512_set1_ps(lo.y), lz = _mm512_set1_ps(lo.z);
    const __m512 hx = _mm512_set1_ps(hi.x), hy = _mm512_set1_ps(hi.y), hz = _mm512_set1_ps(hi.z);
    const __m512 scale = _mm512_set1_ps(exit_scale);
    for (int g = 0; g < padded; g += 16) {
      const __mmask16 want = __mmask16(mask >> g);
      if (!want) continue;
      const __m512 qx = _mm512_load_ps(ox + g), qy = _mm512_load_ps(oy + g), qz = _mm512_load_ps(oz + g);
      const __m512 vx = _mm512_load_ps(ix + g), vy = _mm512_load_ps(iy + g), vz = _mm512_load_ps(iz + g);
      const __m512 x0 = _mm512_mul_ps(_mm512_sub_ps(lx, qx), vx), x1 = _mm512_mul_ps(_mm512_sub_ps(hx, qx), vx);
      const __m512 y0 = _mm512_mul_ps(_mm512_sub_ps(ly, qy), vy), y1 = _mm512_mul_ps(_mm512_sub_ps(hy, qy), vy);
      const __m512 z0 = _mm512_mul_ps(_mm512_sub_ps(lz, qz), vz), z1 = _mm512_mul_ps(_mm512_sub_ps(hz, qz), vz);
      const __m512 near = vmax(vmax(vmin(x0, x1), vmin(y0, y1)),
                                        vmax(vmin(z0, z1), _mm512_load_ps(tmin + g)));
      const __m512 far = _mm512_mul_ps(vmin(vmin(vmax(x0, x1), vmax(y0, y1)),
                                                     vmin(vmax(z0, z1), _mm512_load_ps(tmax + g))),
                                       scale);
      out |= std::uint64_t(_mm512_mask_cmp_ps_mask(want, near, far, _CMP_LE_OQ)) << g;
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

  /// The triangles of a leaf against the rays of `mask`, sixteen rays per
  /// triangle test; a finished any-hit ray leaves the packet.
  template <bool Any, class Mem>
  SWEEP_HOST_AVX512_FN void intersect_leaf(const bvh_view<Mem>& b, std::int32_t first, std::int32_t count,
                                               std::uint64_t mask) {
    const triangle_block* blocks = b.blocks.data() + first;
    const int nblocks = (count + 3) / 4;
    const __m512 zero = _mm512_setzero_ps(), inf = _mm512_set1_ps(__builtin_huge_valf());
    for (int g = 0; g < padded; g += 16) {
      __mmask16 act = __mmask16(mask >> g);
      if (!act) continue;
      const __m512 q[3] = {_mm512_load_ps(ox + g), _mm512_load_ps(oy + g), _mm512_load_ps(oz + g)};
      __m512 s[9];
      for (int k = 0; k < 9; ++k) s[k] = _mm512_load_ps(shear[k] + g);
      const __m512 tn = _mm512_load_ps(tmin + g);
      __m512 bt = _mm512_load_ps(tmax + g), bu = _mm512_load_ps(hu + g), bv = _mm512_load_ps(hv + g);
      __m512i bp = _mm512_load_si512(prim + g);
      for (int k = 0; k < nblocks && act; ++k) {
        const triangle_block& blk = blocks[k];
        for (int j = 0; j < 4 && act; ++j) {
          const std::int32_t id = blk.prim[j];
          if (id < 0) continue;
          __m512 pa[3], pb[3], pc[3];
          shear_vertex(blk.ax[j], blk.ay[j], blk.az[j], q, s, pa);
          shear_vertex(blk.bx[j], blk.by[j], blk.bz[j], q, s, pb);
          shear_vertex(blk.cx[j], blk.cy[j], blk.cz[j], q, s, pc);
          const __m512 ax = pa[0], ay = pa[1], az = pa[2], bx = pb[0], by = pb[1], bz = pb[2], cx = pc[0],
                       cy = pc[1], cz = pc[2];
          const __m512 U = _mm512_sub_ps(_mm512_mul_ps(cx, by), _mm512_mul_ps(cy, bx));
          const __m512 V = _mm512_sub_ps(_mm512_mul_ps(ax, cy), _mm512_mul_ps(ay, cx));
          const __m512 W = _mm512_sub_ps(_mm512_mul_ps(bx, ay), _mm512_mul_ps(by, ax));
          const __mmask16 exact = act & (_mm512_cmp_ps_mask(U, zero, _CMP_EQ_OQ) | _mm512_cmp_ps_mask(V, zero, _CMP_EQ_OQ) |
                                         _mm512_cmp_ps_mask(W, zero, _CMP_EQ_OQ));
          const __mmask16 negative = _mm512_cmp_ps_mask(U, zero, _CMP_LT_OQ) | _mm512_cmp_ps_mask(V, zero, _CMP_LT_OQ) |
                                     _mm512_cmp_ps_mask(W, zero, _CMP_LT_OQ);
          const __mmask16 positive = _mm512_cmp_ps_mask(U, zero, _CMP_GT_OQ) | _mm512_cmp_ps_mask(V, zero, _CMP_GT_OQ) |
                                     _mm512_cmp_ps_mask(W, zero, _CMP_GT_OQ);
          const __m512 det = _mm512_add_ps(_mm512_add_ps(U, V), W);
          const __m512 T =
              _mm512_add_ps(_mm512_add_ps(_mm512_mul_ps(U, az), _mm512_mul_ps(V, bz)), _mm512_mul_ps(W, cz));
          const __m512 inv = _mm512_div_ps(_mm512_set1_ps(1.0f), det);
          const __m512 t = _mm512_mul_ps(T, inv);
          __mmask16 ok = __mmask16(act & ~exact & ~(negative & positive));
          ok = _mm512_mask_cmp_ps_mask(ok, det, zero, _CMP_NEQ_UQ);
          ok = _mm512_mask_cmp_ps_mask(ok, t, tn, _CMP_GE_OQ);
          ok = _mm512_mask_cmp_ps_mask(ok, t, bt, _CMP_LE_OQ);
          const __m512i pid = _mm512_set1_epi32(id);
          __mmask16 upd = ok;
          if (!Any) {
            // closer(): nearer, or as near with a lower primitive.
            const __mmask16 tie = _mm512_mask_cmp_ps_mask(_mm512_mask_cmp_ps_mask(ok, t, bt, _CMP_EQ_OQ), t, inf, _CMP_LT_OQ) &
                                  (_mm512_cmplt_epi32_mask(bp, _mm512_setzero_si512()) | _mm512_cmplt_epi32_mask(pid, bp));
            upd = __mmask16(_mm512_mask_cmp_ps_mask(ok, t, bt, _CMP_LT_OQ) | tie);
          }
          bt = _mm512_mask_mov_ps(bt, upd, Any ? _mm512_set1_ps(-1.0f) : t);
          bu = _mm512_mask_mov_ps(bu, upd, _mm512_mul_ps(V, inv));
          bv = _mm512_mask_mov_ps(bv, upd, _mm512_mul_ps(W, inv));
          bp = _mm512_mask_mov_epi32(bp, upd, pid);
          if (Any) act = __mmask16(act & ~upd);
          if (exact) {
            // Edge functions at exactly zero: the scalar test, in double.
            _mm512_store_ps(tmax + g, bt), _mm512_store_ps(hu + g, bu), _mm512_store_ps(hv + g, bv);
            _mm512_store_si512(prim + g, bp);
            for (unsigned e = exact; e; e &= e - 1) {
              const int i = g + int(ctz64(e));
              hit h = result(i);
              float u = 0, v = 0;
              const float d = intersect_triangle(setup(i), block_triangle(blk, j), h.t, u, v);
              const bool done = detail::take<Any>(d, u, v, id, h);
              tmax[i] = done ? -1.0f : h.t, hu[i] = h.u, hv[i] = h.v, prim[i] = h.prim;
              if (done) act = __mmask16(act & ~(1u << (i - g)));
            }
            bt = _mm512_load_ps(tmax + g), bu = _mm512_load_ps(hu + g), bv = _mm512_load_ps(hv + g);
            bp = _mm512_load_si512(prim + g);
          }
        }
      }
      _mm512_store_ps(tmax + g, bt), _mm512_store_ps(hu + g, bu), _mm512_store_ps(hv + g, bv);
      _mm512_store_si512(prim + g, bp);
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
  SWEEP_HOST_AVX512_FN void compact_from(const avx512_packet<M, Backend>& p, std::uint64_t mask, int* lane) {
    size = 0;
    for (std::uint64_t m = mask; m; m &= m - 1) lane[size++] = int(ctz64(m));
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
  void restore_from(const avx512_packet<S, Backend>& q, const int* lane, bool) {
    for (int k = 0; k < q.size; ++k)
      tmax[lane[k]] = q.tmax[k], hu[lane[k]] = q.hu[k], hv[lane[k]] = q.hv[k], prim[lane[k]] = q.prim[k];
  }
};

}  // namespace sweep::raytrace::detail

#endif
