// Single rays on the host: the near and far planes a ray tests in a wide
// node (wide_planes, used by every host node test) and AVX2 node tests,
// for x86-64 hosts whose CPU has AVX2
// (chosen at run time, trace_isa avx2 or avx512; part of the host packet
// backend, host/packet_backend.hpp). walk_wide (raytrace/single_ray.hpp)
// runs unchanged over avx2_single: one 8-wide node's boxes in one vector,
// the host backend's triangle tests for the leaves. avx2_single_kernel
// compiles a ray's whole walk for AVX2 (flatten: every call inlined, so
// the node tests need no call), and every lane computes the SSE test's
// values in its order (no contraction), so hits are the same bit for bit.
#pragma once

#include <sweep/host/isa.hpp>
#include <sweep/host/packet_lanes.hpp>
#include <sweep/raytrace/packet_walk.hpp>

namespace sweep::raytrace::detail {

/// A ray's near and far plane of each axis among a wide node's box arrays:
/// lo where its reciprocal direction is positive (never zero: ray_setup's
/// safe reciprocal), hi where negative. For a box (lo <= hi), the distances
/// to them are the slab test's min and max of the two (rounding is
/// monotonic), so the test computes the same values with six min/max fewer.
template <int W>
struct wide_planes {
  using array = float (bvh_wide_node<W>::*)[W];
  array near_x, near_y, near_z, far_x, far_y, far_z;
  KOKKOS_INLINE_FUNCTION explicit wide_planes(const ray_setup& r)
      : near_x(r.inv.x >= 0 ? &bvh_wide_node<W>::lo_x : &bvh_wide_node<W>::hi_x),
        near_y(r.inv.y >= 0 ? &bvh_wide_node<W>::lo_y : &bvh_wide_node<W>::hi_y),
        near_z(r.inv.z >= 0 ? &bvh_wide_node<W>::lo_z : &bvh_wide_node<W>::hi_z),
        far_x(r.inv.x >= 0 ? &bvh_wide_node<W>::hi_x : &bvh_wide_node<W>::lo_x),
        far_y(r.inv.y >= 0 ? &bvh_wide_node<W>::hi_y : &bvh_wide_node<W>::lo_y),
        far_z(r.inv.z >= 0 ? &bvh_wide_node<W>::hi_z : &bvh_wide_node<W>::lo_z) {}
};

#if SWEEP_HOST_MULTI

/// walk_wide's backend for 8-wide nodes in AVX2 lanes; `Host` (the host
/// packet backend) supplies the triangle tests and the stack depth.
/// Empty slots need no mask: their box (lo +inf, hi -inf) puts every near
/// plane at +inf and every far plane at -inf, whatever the ray.
template <class Host>
struct avx2_single {
  static constexpr int wide_stack_size = Host::wide_stack_size;

  template <bool Any, class Mem>
  KOKKOS_INLINE_FUNCTION static bool intersect_blocks(const bvh_view<Mem>& b, const ray_setup& r, std::int32_t first,
                                                      std::int32_t count, hit& h) {
    return Host::template intersect_blocks<Any>(b, r, first, count, h);
  }

  /// The host backend's wide_entries, eight boxes per vector.
  static SWEEP_HOST_AVX2_FN int wide_entries(const ray_setup& r, const bvh8_node& nd, float tmax, float t[8]) {
    using X = avx2_lanes;
    const wide_planes<8> pl(r);
    const X::f ox = X::set1(r.org.x), oy = X::set1(r.org.y), oz = X::set1(r.org.z);
    const X::f ix = X::set1(r.inv.x), iy = X::set1(r.inv.y), iz = X::set1(r.inv.z);
    const X::f nx = X::mul(X::sub(_mm256_loadu_ps(nd.*pl.near_x), ox), ix);
    const X::f fx = X::mul(X::sub(_mm256_loadu_ps(nd.*pl.far_x), ox), ix);
    const X::f ny = X::mul(X::sub(_mm256_loadu_ps(nd.*pl.near_y), oy), iy);
    const X::f fy = X::mul(X::sub(_mm256_loadu_ps(nd.*pl.far_y), oy), iy);
    const X::f nz = X::mul(X::sub(_mm256_loadu_ps(nd.*pl.near_z), oz), iz);
    const X::f fz = X::mul(X::sub(_mm256_loadu_ps(nd.*pl.far_z), oz), iz);
    const X::f near = X::max(X::max(nx, ny), X::max(nz, X::set1(r.tmin)));
    const X::f far = X::mul(X::min(X::min(fx, fy), X::min(fz, X::set1(tmax))), X::set1(exit_scale));
    _mm256_storeu_ps(t, near);
    return int(X::bits(X::le(near, far)));
  }
};

/// Rays [k R, k R + R) per work item k (R = rays_per_item), their walks
/// compiled for AVX2: one call and one stack frame for R rays, so a
/// disabled ray costs a compare and a store.
template <bool Any, class Backend, class Mem, class Rays, class Out>
struct avx2_single_kernel {
  static constexpr index_t rays_per_item = 64;
  bvh_view<Mem> b;
  Rays rays;
  Out out;
  index_t n;
  SWEEP_HOST_AVX2_FN __attribute__((flatten)) void operator()(const index_t k) const {
    const index_t end = (k + 1) * rays_per_item < n ? (k + 1) * rays_per_item : n;
    for (index_t i = k * rays_per_item; i < end; ++i) trace_single<Any, Backend>(b, rays, out, i);
  }
};

#endif

}  // namespace sweep::raytrace::detail
