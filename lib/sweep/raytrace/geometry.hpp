// Ray-tracing geometry shared by the BVH, the traversals and the renderer:
// single-precision vectors and boxes, rays and hits, the robust slab test
// and the watertight ray-triangle test.
//
// Slab test: reciprocal directions with zero components replaced by a tiny
// signed value (no 0 * inf NaNs), exit distances scaled by 1 + 2 gamma(3)
// (Ize 2013) so no box that a ray touches is culled by rounding.
// Triangle test: Woop, Benthin and Wald's watertight algorithm (2013):
// shear into ray space, the three edge functions in float, recomputed in
// double when one is exactly 0, so a ray through a shared edge or vertex
// hits exactly one side. The hit distance is T / det, compared with the
// ray's interval after the division, so a (ray, triangle) pair gives the
// same t whatever the traversal and whatever it found before: closest hits
// are order independent (ties go to the lower primitive id). Products are
// rounded on their own on every backend (detail::mul and friends: nvcc
// would otherwise fuse a * b + c into one FMA), so the edge functions keep
// the antisymmetry the watertight test needs and a GPU finds the host's
// hits bit for bit.
#pragma once

#include <sweep/core.hpp>

#include <Kokkos_Core.hpp>

#include <cstdint>

namespace sweep::raytrace {

namespace detail {
/// a * b, a + b, a - b, each rounded once and never contracted with a
/// neighbouring operation into a fused multiply-add.
KOKKOS_FORCEINLINE_FUNCTION float mul(float a, float b) {
#if defined(__CUDA_ARCH__)
  return __fmul_rn(a, b);
#else
  return a * b;
#endif
}
KOKKOS_FORCEINLINE_FUNCTION float add(float a, float b) {
#if defined(__CUDA_ARCH__)
  return __fadd_rn(a, b);
#else
  return a + b;
#endif
}
KOKKOS_FORCEINLINE_FUNCTION float sub(float a, float b) {
#if defined(__CUDA_ARCH__)
  return __fsub_rn(a, b);
#else
  return a - b;
#endif
}
/// a * b - c * d in double, products rounded on their own.
KOKKOS_FORCEINLINE_FUNCTION double difference_of_products(double a, double b, double c, double d) {
#if defined(__CUDA_ARCH__)
  return __dsub_rn(__dmul_rn(a, b), __dmul_rn(c, d));
#else
  return a * b - c * d;
#endif
}
}  // namespace detail

struct vec3f {
  float x = 0, y = 0, z = 0;
  KOKKOS_INLINE_FUNCTION float operator[](int k) const { return k == 0 ? x : (k == 1 ? y : z); }
};

KOKKOS_INLINE_FUNCTION vec3f operator+(vec3f a, vec3f b) { return {a.x + b.x, a.y + b.y, a.z + b.z}; }
KOKKOS_INLINE_FUNCTION vec3f operator-(vec3f a, vec3f b) { return {a.x - b.x, a.y - b.y, a.z - b.z}; }
KOKKOS_INLINE_FUNCTION vec3f operator*(float s, vec3f a) { return {s * a.x, s * a.y, s * a.z}; }
KOKKOS_INLINE_FUNCTION float dot(vec3f a, vec3f b) {
  using detail::add, detail::mul;
  return add(add(mul(a.x, b.x), mul(a.y, b.y)), mul(a.z, b.z));
}
KOKKOS_INLINE_FUNCTION vec3f cross(vec3f a, vec3f b) {
  using detail::mul, detail::sub;
  return {sub(mul(a.y, b.z), mul(a.z, b.y)), sub(mul(a.z, b.x), mul(a.x, b.z)), sub(mul(a.x, b.y), mul(a.y, b.x))};
}
KOKKOS_INLINE_FUNCTION vec3f normalize(vec3f a) {
  const float l = static_cast<float>(sweep::detail::square_root(double(dot(a, a))));
  return l > 0 ? (1.0f / l) * a : a;
}
KOKKOS_INLINE_FUNCTION vec3f min3(vec3f a, vec3f b) {
  return {a.x < b.x ? a.x : b.x, a.y < b.y ? a.y : b.y, a.z < b.z ? a.z : b.z};
}
KOKKOS_INLINE_FUNCTION vec3f max3(vec3f a, vec3f b) {
  return {a.x > b.x ? a.x : b.x, a.y > b.y ? a.y : b.y, a.z > b.z ? a.z : b.z};
}

/// An axis-aligned box; empty when lo > hi.
struct aabb {
  vec3f lo{__builtin_huge_valf(), __builtin_huge_valf(), __builtin_huge_valf()};
  vec3f hi{-__builtin_huge_valf(), -__builtin_huge_valf(), -__builtin_huge_valf()};
  KOKKOS_INLINE_FUNCTION void grow(vec3f p) { lo = min3(lo, p), hi = max3(hi, p); }
  KOKKOS_INLINE_FUNCTION void grow(const aabb& b) { lo = min3(lo, b.lo), hi = max3(hi, b.hi); }
  KOKKOS_INLINE_FUNCTION bool empty() const { return lo.x > hi.x || lo.y > hi.y || lo.z > hi.z; }
  KOKKOS_INLINE_FUNCTION float area() const {
    if (empty()) return 0;
    const vec3f e = hi - lo;
    return 2 * (e.x * e.y + e.y * e.z + e.z * e.x);
  }
  KOKKOS_INLINE_FUNCTION bool contains(const aabb& b) const {
    return b.empty() || (lo.x <= b.lo.x && lo.y <= b.lo.y && lo.z <= b.lo.z && hi.x >= b.hi.x && hi.y >= b.hi.y &&
                         hi.z >= b.hi.z);
  }
};

/// The box grown outward by a little over one ulp on every side. BVH
/// boxes are stored this way: a ray with a zero direction component
/// (reciprocal +-1e30) whose origin lies on a face would otherwise get the
/// slab interval [.., 0] and lose the triangles on that face; with the
/// margin, lo - org < 0 < hi - org for every origin on the box.
KOKKOS_INLINE_FUNCTION aabb padded(const aabb& b) {
  auto margin = [](float x) { return (x < 0 ? -x : x) * 1.2e-7f + 1e-37f; };  // > ulp(x)
  aabb out;
  out.lo = vec3f{b.lo.x - margin(b.lo.x), b.lo.y - margin(b.lo.y), b.lo.z - margin(b.lo.z)};
  out.hi = vec3f{b.hi.x + margin(b.hi.x), b.hi.y + margin(b.hi.y), b.hi.z + margin(b.hi.z)};
  return out;
}

/// A ray: origin, direction (any length), the interval [tmin, tmax].
struct ray {
  vec3f org, dir;
  float tmin = 0, tmax = __builtin_huge_valf();
};

/// A closest hit: distance, barycentrics of vertices 1 and 2, the primitive
/// (its index in the input mesh; -1 for a miss).
struct hit {
  float t = __builtin_huge_valf();
  float u = 0, v = 0;
  std::int32_t prim = -1;
};

/// A triangle's vertices.
struct triangle {
  vec3f a, b, c;
};

namespace detail {

/// 1 + 2 gamma(3) for float: exit distances grow by this so rounding never
/// culls a box the ray touches.
constexpr float exit_scale = 1.0f + 2.0f * (3.0f * 5.9604645e-8f) / (1.0f - 3.0f * 5.9604645e-8f);

KOKKOS_INLINE_FUNCTION float safe_reciprocal(float d) {
  const float tiny = 1e-30f;
  return 1.0f / (d >= 0 ? (d < tiny ? tiny : d) : (d > -tiny ? -tiny : d));
}

}  // namespace detail

/// What a ray keeps for box and triangle tests. The watertight test's
/// shear and axis permutation are kept as three rows: for a vertex offset
/// A from the origin, (dot(sx, A), dot(sy, A), dot(sz, A)) equals Woop et
/// al.'s (A[kx] - Sx A[kz], A[ky] - Sy A[kz], Sz A[kz]) exactly (the other
/// terms are exact zeros), without per-ray branches in the triangle loop.
struct ray_setup {
  vec3f org, inv;  // origin and safe reciprocal direction
  float tmin, tmax;
  vec3f sx, sy, sz;
  ray_setup() = default;  // uninitialised: packets hold many and fill them on use
  KOKKOS_INLINE_FUNCTION explicit ray_setup(const ray& r)
      : org(r.org),
        inv{detail::safe_reciprocal(r.dir.x), detail::safe_reciprocal(r.dir.y), detail::safe_reciprocal(r.dir.z)},
        tmin(r.tmin), tmax(r.tmax) {
    const float ax = r.dir.x < 0 ? -r.dir.x : r.dir.x, ay = r.dir.y < 0 ? -r.dir.y : r.dir.y,
                az = r.dir.z < 0 ? -r.dir.z : r.dir.z;
    const int kz = (ax >= ay && ax >= az) ? 0 : (ay >= az ? 1 : 2);
    int kx = kz == 2 ? 0 : kz + 1;
    int ky = kx == 2 ? 0 : kx + 1;
    if (r.dir[kz] < 0) {
      const int t = kx;
      kx = ky, ky = t;
    }
    const float scale_z = 1.0f / r.dir[kz];
    const float shear_x = r.dir[kx] * scale_z, shear_y = r.dir[ky] * scale_z;
    float rx[3] = {0, 0, 0}, ry[3] = {0, 0, 0}, rz[3] = {0, 0, 0};
    rx[kx] = 1, rx[kz] = -shear_x;
    ry[ky] = 1, ry[kz] = -shear_y;
    rz[kz] = scale_z;
    sx = {rx[0], rx[1], rx[2]}, sy = {ry[0], ry[1], ry[2]}, sz = {rz[0], rz[1], rz[2]};
  }
};

/// Entry distance of the ray into the box, or +inf when it misses within
/// [tmin, tmax].
KOKKOS_INLINE_FUNCTION float box_entry(const ray_setup& r, const vec3f& lo, const vec3f& hi, float tmax) {
  float t0 = (lo.x - r.org.x) * r.inv.x, t1 = (hi.x - r.org.x) * r.inv.x;
  float near = t0 < t1 ? t0 : t1, far = t0 < t1 ? t1 : t0;
  t0 = (lo.y - r.org.y) * r.inv.y, t1 = (hi.y - r.org.y) * r.inv.y;
  near = near > (t0 < t1 ? t0 : t1) ? near : (t0 < t1 ? t0 : t1);
  far = far < (t0 < t1 ? t1 : t0) ? far : (t0 < t1 ? t1 : t0);
  t0 = (lo.z - r.org.z) * r.inv.z, t1 = (hi.z - r.org.z) * r.inv.z;
  near = near > (t0 < t1 ? t0 : t1) ? near : (t0 < t1 ? t0 : t1);
  far = far < (t0 < t1 ? t1 : t0) ? far : (t0 < t1 ? t1 : t0);
  near = near > r.tmin ? near : r.tmin;
  far = (far < tmax ? far : tmax) * detail::exit_scale;
  return near <= far ? near : __builtin_huge_valf();
}

/// Watertight ray-triangle test: the distance (or +inf) and barycentrics.
KOKKOS_INLINE_FUNCTION float intersect_triangle(const ray_setup& r, const triangle& tri, float tmax, float& u,
                                                float& v) {
  const vec3f A = tri.a - r.org, B = tri.b - r.org, C = tri.c - r.org;
  const float ax = dot(r.sx, A), ay = dot(r.sy, A);
  const float bx = dot(r.sx, B), by = dot(r.sy, B);
  const float cx = dot(r.sx, C), cy = dot(r.sy, C);
  using detail::add, detail::mul, detail::sub;
  float U = sub(mul(cx, by), mul(cy, bx)), V = sub(mul(ax, cy), mul(ay, cx)), W = sub(mul(bx, ay), mul(by, ax));
  if (U == 0.0f || V == 0.0f || W == 0.0f) {
    U = float(detail::difference_of_products(cx, by, cy, bx));
    V = float(detail::difference_of_products(ax, cy, ay, cx));
    W = float(detail::difference_of_products(bx, ay, by, ax));
  }
  if ((U < 0 || V < 0 || W < 0) && (U > 0 || V > 0 || W > 0)) return __builtin_huge_valf();
  const float det = U + V + W;
  if (det == 0.0f) return __builtin_huge_valf();
  const float T = add(add(mul(U, dot(r.sz, A)), mul(V, dot(r.sz, B))), mul(W, dot(r.sz, C)));
  const float inv = 1.0f / det;
  const float t = T * inv;
  if (!(t >= r.tmin && t <= tmax)) return __builtin_huge_valf();
  u = V * inv;
  v = W * inv;
  return t;
}

/// The closest-hit order: nearer first, the lower primitive on a tie.
KOKKOS_INLINE_FUNCTION bool closer(float t, std::int32_t prim, float best_t, std::int32_t best_prim) {
  return t < best_t || (t == best_t && t < __builtin_huge_valf() && (best_prim < 0 || prim < best_prim));
}

}  // namespace sweep::raytrace
