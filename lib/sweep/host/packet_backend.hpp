// packet_backend for host spaces: the four-wide tests run in SSE lanes on
// x86-64 (the scalar test's arithmetic in the scalar order; lanes whose
// edge functions hit an exact zero, where the scalar triangle test switches
// to double, are redone by it), and packets run with sixteen AVX-512 lanes
// or eight AVX2 lanes (host/packet_simd.hpp) when the build and the CPU
// allow and the caller asks (trace_isa). Elsewhere the portable code runs.
#pragma once

#include <sweep/host/isa.hpp>
#include <sweep/host/packet_simd.hpp>
#include <sweep/host/single_simd.hpp>
#include <sweep/raytrace/packet_backend.hpp>

namespace sweep::raytrace::detail {

template <class ExecSpace>
struct packet_backend<ExecSpace, sweep::detail::host_kind> {
  using portable = packet_backend<ExecSpace, sweep::detail::portable_kind>;
  static constexpr int stack_size = tuning<ExecSpace>::raytrace::stack_size;
  static constexpr int wide_stack_size = tuning<ExecSpace>::raytrace::wide_stack_size;

  template <bool Any, class Mem>
  KOKKOS_INLINE_FUNCTION static bool intersect_blocks(const bvh_view<Mem>& b, const ray_setup& r, std::int32_t first,
                                                      std::int32_t count, hit& h) {
#if SWEEP_HOST_SSE
    for (std::int32_t k = first; k < first + (count + 3) / 4; ++k) {
      const triangle_block& blk = b.blocks(k);
      const __m128 ox = _mm_set1_ps(r.org.x), oy = _mm_set1_ps(r.org.y), oz = _mm_set1_ps(r.org.z);
      auto rel = [&](const float* x, const float* y, const float* z, __m128& px, __m128& py, __m128& pz) {
        const __m128 dx = _mm_sub_ps(_mm_loadu_ps(x), ox), dy = _mm_sub_ps(_mm_loadu_ps(y), oy),
                     dz = _mm_sub_ps(_mm_loadu_ps(z), oz);
        auto dotv = [&](const vec3f& row) {
          return _mm_add_ps(_mm_add_ps(_mm_mul_ps(_mm_set1_ps(row.x), dx), _mm_mul_ps(_mm_set1_ps(row.y), dy)),
                            _mm_mul_ps(_mm_set1_ps(row.z), dz));
        };
        px = dotv(r.sx), py = dotv(r.sy), pz = dotv(r.sz);
      };
      __m128 ax, ay, az, bx, by, bz, cx, cy, cz;
      rel(blk.ax, blk.ay, blk.az, ax, ay, az);
      rel(blk.bx, blk.by, blk.bz, bx, by, bz);
      rel(blk.cx, blk.cy, blk.cz, cx, cy, cz);
      const __m128 U = _mm_sub_ps(_mm_mul_ps(cx, by), _mm_mul_ps(cy, bx));
      const __m128 V = _mm_sub_ps(_mm_mul_ps(ax, cy), _mm_mul_ps(ay, cx));
      const __m128 W = _mm_sub_ps(_mm_mul_ps(bx, ay), _mm_mul_ps(by, ax));
      const __m128 zero = _mm_setzero_ps();
      const int exact = _mm_movemask_ps(_mm_or_ps(_mm_or_ps(_mm_cmpeq_ps(U, zero), _mm_cmpeq_ps(V, zero)), _mm_cmpeq_ps(W, zero)));
      const __m128 negative = _mm_or_ps(_mm_or_ps(_mm_cmplt_ps(U, zero), _mm_cmplt_ps(V, zero)), _mm_cmplt_ps(W, zero));
      const __m128 positive = _mm_or_ps(_mm_or_ps(_mm_cmpgt_ps(U, zero), _mm_cmpgt_ps(V, zero)), _mm_cmpgt_ps(W, zero));
      const __m128 det = _mm_add_ps(_mm_add_ps(U, V), W);
      const __m128 T = _mm_add_ps(_mm_add_ps(_mm_mul_ps(U, az), _mm_mul_ps(V, bz)), _mm_mul_ps(W, cz));
      const __m128 inv = _mm_div_ps(_mm_set1_ps(1.0f), det);
      const __m128 t = _mm_mul_ps(T, inv);
      const __m128 ok = _mm_andnot_ps(_mm_and_ps(negative, positive),
                                      _mm_and_ps(_mm_cmpneq_ps(det, zero),
                                                 _mm_and_ps(_mm_cmpge_ps(t, _mm_set1_ps(r.tmin)),
                                                            _mm_cmple_ps(t, _mm_set1_ps(h.t)))));
      int found = _mm_movemask_ps(ok) & ~exact;
      if (found | exact) {
        alignas(16) float tt[4], uu[4], vv[4];
        _mm_store_ps(tt, t);
        _mm_store_ps(uu, _mm_mul_ps(V, inv));
        _mm_store_ps(vv, _mm_mul_ps(W, inv));
        for (int lane = 0; lane < 4; ++lane) {
          float d = __builtin_huge_valf(), u = 0, v = 0;
          if (exact & (1 << lane)) d = intersect_triangle(r, block_triangle(blk, lane), h.t, u, v);
          else if (found & (1 << lane)) d = tt[lane], u = uu[lane], v = vv[lane];
          if (take<Any>(d, u, v, blk.prim[lane], h)) return true;
        }
      }
    }
    return false;
#else
    return portable::template intersect_blocks<Any>(b, r, first, count, h);
#endif
  }

  /// Entry distances of the ray into a wide node's boxes, four SSE lanes
  /// at a time (wide_planes: the slab test's values, six min/max fewer;
  /// an empty slot's planes give near +inf and far -inf, so it never hits).
  template <int W>
  KOKKOS_INLINE_FUNCTION static int wide_entries(const ray_setup& r, const bvh_wide_node<W>& nd, float tmax, float t[W]) {
#if SWEEP_HOST_SSE
    const wide_planes<W> pl(r);
    const __m128 ox = _mm_set1_ps(r.org.x), oy = _mm_set1_ps(r.org.y), oz = _mm_set1_ps(r.org.z);
    const __m128 ix = _mm_set1_ps(r.inv.x), iy = _mm_set1_ps(r.inv.y), iz = _mm_set1_ps(r.inv.z);
    int mask = 0;
    for (int g = 0; g < W; g += 4) {
      const __m128 nx = _mm_mul_ps(_mm_sub_ps(_mm_loadu_ps((nd.*pl.near_x) + g), ox), ix);
      const __m128 fx = _mm_mul_ps(_mm_sub_ps(_mm_loadu_ps((nd.*pl.far_x) + g), ox), ix);
      const __m128 ny = _mm_mul_ps(_mm_sub_ps(_mm_loadu_ps((nd.*pl.near_y) + g), oy), iy);
      const __m128 fy = _mm_mul_ps(_mm_sub_ps(_mm_loadu_ps((nd.*pl.far_y) + g), oy), iy);
      const __m128 nz = _mm_mul_ps(_mm_sub_ps(_mm_loadu_ps((nd.*pl.near_z) + g), oz), iz);
      const __m128 fz = _mm_mul_ps(_mm_sub_ps(_mm_loadu_ps((nd.*pl.far_z) + g), oz), iz);
      const __m128 near = _mm_max_ps(_mm_max_ps(nx, ny), _mm_max_ps(nz, _mm_set1_ps(r.tmin)));
      const __m128 far =
          _mm_mul_ps(_mm_min_ps(_mm_min_ps(fx, fy), _mm_min_ps(fz, _mm_set1_ps(tmax))), _mm_set1_ps(exit_scale));
      _mm_storeu_ps(t + g, near);
      mask |= _mm_movemask_ps(_mm_cmple_ps(near, far)) << g;
    }
    return mask;
#else
    return portable::wide_entries(r, nd, tmax, t);
#endif
  }

  template <int L>
  KOKKOS_INLINE_FUNCTION static std::uint64_t hits_box(const float* ox, const float* oy, const float* oz,
                                                       const float* ix, const float* iy, const float* iz,
                                                       const float* tmin, const float* tmax, const vec3f& lo,
                                                       const vec3f& hi, std::uint64_t mask) {
#if SWEEP_HOST_SSE
    std::uint64_t out = 0;
    const __m128 lx = _mm_set1_ps(lo.x), ly = _mm_set1_ps(lo.y), lz = _mm_set1_ps(lo.z);
    const __m128 hx = _mm_set1_ps(hi.x), hy = _mm_set1_ps(hi.y), hz = _mm_set1_ps(hi.z);
    const __m128 scale = _mm_set1_ps(exit_scale);
    for (int g = 0; g < L; g += 4) {
      if (!((mask >> g) & 0xFu)) continue;
      const __m128 qx = _mm_load_ps(ox + g), qy = _mm_load_ps(oy + g), qz = _mm_load_ps(oz + g);
      const __m128 vx = _mm_load_ps(ix + g), vy = _mm_load_ps(iy + g), vz = _mm_load_ps(iz + g);
      const __m128 x0 = _mm_mul_ps(_mm_sub_ps(lx, qx), vx), x1 = _mm_mul_ps(_mm_sub_ps(hx, qx), vx);
      const __m128 y0 = _mm_mul_ps(_mm_sub_ps(ly, qy), vy), y1 = _mm_mul_ps(_mm_sub_ps(hy, qy), vy);
      const __m128 z0 = _mm_mul_ps(_mm_sub_ps(lz, qz), vz), z1 = _mm_mul_ps(_mm_sub_ps(hz, qz), vz);
      const __m128 near = _mm_max_ps(_mm_max_ps(_mm_min_ps(x0, x1), _mm_min_ps(y0, y1)),
                                     _mm_max_ps(_mm_min_ps(z0, z1), _mm_load_ps(tmin + g)));
      const __m128 far = _mm_mul_ps(_mm_min_ps(_mm_min_ps(_mm_max_ps(x0, x1), _mm_max_ps(y0, y1)),
                                               _mm_min_ps(_mm_max_ps(z0, z1), _mm_load_ps(tmax + g))),
                                    scale);
      out |= std::uint64_t(_mm_movemask_ps(_mm_cmple_ps(near, far))) << g;
    }
    return out & mask;
#else
    return portable::template hits_box<L>(ox, oy, oz, ix, iy, iz, tmin, tmax, lo, hi, mask);
#endif
  }

  /// The largest of v[0..L) (v 16-byte aligned).
  template <int L>
  KOKKOS_INLINE_FUNCTION static float largest(const float* v) {
#if SWEEP_HOST_SSE
    __m128 top = _mm_load_ps(v);
    for (int i = 4; i < L; i += 4) top = _mm_max_ps(top, _mm_load_ps(v + i));
    top = _mm_max_ps(top, _mm_shuffle_ps(top, top, _MM_SHUFFLE(1, 0, 3, 2)));
    top = _mm_max_ps(top, _mm_shuffle_ps(top, top, _MM_SHUFFLE(2, 3, 0, 1)));
    return _mm_cvtss_f32(top);
#else
    return portable::template largest<L>(v);
#endif
  }

  /// True when packets can run in `isa`'s lanes (for AVX2 and AVX-512:
  /// this build compiled them and the active instruction set level allows
  /// them).
  static bool lanes_available(trace_isa isa) {
    if (isa == trace_isa::baseline || isa == trace_isa::automatic) return true;
#if SWEEP_HOST_MULTI
    return host::uses(isa == trace_isa::avx2 ? host::isa::avx2 : host::isa::avx512);
#else
    return false;
#endif
  }

  /// Single rays: with AVX2 (or AVX-512) lanes allowed, the 8-wide walk
  /// compiled for AVX2 (avx2_single); otherwise SSE node tests.
  template <bool Any, class Mem, class Rays, class Out>
  static void run_single(const std::string& label, const ExecSpace& space, index_t n, const bvh_view<Mem>& b,
                         const Rays& rays, const Out& out, trace_isa isa) {
    auto policy = sweep::detail::range_policy<ExecSpace, Kokkos::Schedule<Kokkos::Dynamic>>(space, 0, n);
    policy.set_chunk_size(256);
#if SWEEP_HOST_MULTI
    if constexpr (bvh_view<Mem>::wide_width == 8) {
      if (isa == trace_isa::avx2 || isa == trace_isa::avx512) {
        using kernel = avx2_single_kernel<Any, avx2_single<packet_backend>, Mem, Rays, Out>;
        sweep::detail::range_policy<ExecSpace, Kokkos::Schedule<Kokkos::Dynamic>> items(
            space, 0, (n + kernel::rays_per_item - 1) / kernel::rays_per_item);
        items.set_chunk_size(4);  // 256 rays at a time, as below
        Kokkos::parallel_for(label + "::single_avx2", items, kernel{b, rays, out, n});
        return;
      }
    }
#else
    (void)isa;
#endif
    Kokkos::parallel_for(label + "::single", policy, single_kernel<Any, packet_backend, Mem, Rays, Out>{b, rays, out});
  }

  template <int L, bool Any, bool Reorder, class Mem, class Rays, class Out, class Stats>
  static void run_packets(const std::string& label, const ExecSpace& space, index_t packets, const bvh_view<Mem>& b,
                          const Rays& rays, const Out& out, const trace_options& opt, index_t n, trace_isa isa,
                          const Stats& s) {
    sweep::detail::range_policy<ExecSpace, Kokkos::Schedule<Kokkos::Dynamic>> policy(space, 0, packets);
    policy.set_chunk_size(4);
#if SWEEP_HOST_MULTI
    if (isa == trace_isa::avx512) {
      Kokkos::parallel_reduce(
          label + "::packets_avx512", policy,
          packet_kernel<avx512_packet<L, packet_backend>, Any, Reorder, Mem, Rays, Out>{5, b, rays, out, opt, n}, s);
      return;
    }
    if (isa == trace_isa::avx2) {
      Kokkos::parallel_reduce(
          label + "::packets_avx2", policy,
          packet_kernel<avx2_packet<L, packet_backend>, Any, Reorder, Mem, Rays, Out>{5, b, rays, out, opt, n}, s);
      return;
    }
#else
    (void)isa;
#endif
    Kokkos::parallel_reduce(label + "::packets", policy,
                            packet_kernel<packet<L, packet_backend>, Any, Reorder, Mem, Rays, Out>{5, b, rays, out, opt, n},
                            s);
  }
};

}  // namespace sweep::raytrace::detail
