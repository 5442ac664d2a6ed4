// The ray tracer's dispatch point. packet_backend<ExecSpace> supplies the
// traversal's lane tests and runs packet batches; the primary template is
// the portable path (scalar loops; the portable packet type). It offers:
//   stack_size, wide_stack_size         packet / single-ray stack entries (tuning)
//   intersect_blocks<Any>(b, r, first, count, h)   a wide leaf's triangle
//                                       blocks against one ray
//   wide_entries(r, node, tmax, t)      one ray against a wide node's boxes
//   hits_box<L>(ox, ..., tmax, lo, hi, mask)  packet lanes against a box
//   largest<L>(v)                       the largest of L packet values
//   lanes_available(isa)                whether packets can run in isa's lanes here
//   run_single<Any>(...)                a batch of single rays
//   run_packets<L, Any, Reorder>(...)   a batch of L-ray packets
// lib/sweep/host/packet_backend.hpp specialises it for host spaces (SSE
// lanes, AVX2 single rays, AVX2 and AVX-512 packets). Every backend
// computes the same values.
#pragma once

#include <sweep/tuning.hpp>
#include <sweep/detail/space.hpp>
#include <sweep/raytrace/packet_walk.hpp>

#include <cstdint>
#include <string>

namespace sweep::raytrace::detail {

template <class ExecSpace, class Kind = sweep::detail::space_kind_t<ExecSpace>>
struct packet_backend {
  static constexpr int stack_size = tuning<ExecSpace>::raytrace::stack_size;
  static constexpr int wide_stack_size = tuning<ExecSpace>::raytrace::wide_stack_size;

  /// The triangle blocks of a wide leaf (count triangles from block
  /// `first`) against one ray; true when an any-hit query is done.
  template <bool Any, class Mem>
  KOKKOS_INLINE_FUNCTION static bool intersect_blocks(const bvh_view<Mem>& b, const ray_setup& r, std::int32_t first,
                                                      std::int32_t count, hit& h) {
    for (std::int32_t k = first; k < first + (count + 3) / 4; ++k) {
      const triangle_block& blk = b.blocks(k);
      for (int lane = 0; lane < 4; ++lane) {
        if (blk.prim[lane] < 0) continue;
        float u = 0, v = 0;
        const float d = intersect_triangle(r, block_triangle(blk, lane), h.t, u, v);
        if (take<Any>(d, u, v, blk.prim[lane], h)) return true;
      }
    }
    return false;
  }

  /// Entry distances of the ray into a wide node's boxes; returns the
  /// mask of boxes hit (bit c for slot c; empty slots never hit).
  template <int W>
  KOKKOS_INLINE_FUNCTION static int wide_entries(const ray_setup& r, const bvh_wide_node<W>& nd, float tmax, float t[W]) {
    int mask = 0;
    for (int c = 0; c < W; ++c) {
      t[c] = nd.count[c] < 0 ? __builtin_huge_valf()
                             : box_entry(r, vec3f{nd.lo_x[c], nd.lo_y[c], nd.lo_z[c]},
                                         vec3f{nd.hi_x[c], nd.hi_y[c], nd.hi_z[c]}, tmax);
      mask |= (t[c] != __builtin_huge_valf()) << c;
    }
    return mask;
  }

  /// Lanes of `mask` whose ray (origin o, reciprocal direction i, interval
  /// [tmin, tmax]) enters the box before its closest hit.
  template <int L>
  KOKKOS_INLINE_FUNCTION static std::uint64_t hits_box(const float* ox, const float* oy, const float* oz,
                                                       const float* ix, const float* iy, const float* iz,
                                                       const float* tmin, const float* tmax, const vec3f& lo,
                                                       const vec3f& hi, std::uint64_t mask) {
    std::uint64_t out = 0;
    for (std::uint64_t m = mask; m; m &= m - 1) {
      const int i = ctz64(m);
      ray_setup q;
      q.org = vec3f{ox[i], oy[i], oz[i]}, q.inv = vec3f{ix[i], iy[i], iz[i]}, q.tmin = tmin[i];
      if (box_entry(q, lo, hi, tmax[i]) != __builtin_huge_valf()) out |= std::uint64_t(1) << i;
    }
    return out & mask;
  }

  /// The largest of v[0..L).
  template <int L>
  KOKKOS_INLINE_FUNCTION static float largest(const float* v) {
    float top = -__builtin_huge_valf();
    for (int i = 0; i < L; ++i) top = top > v[i] ? top : v[i];
    return top;
  }

  /// Only the baseline lanes (and automatic, which resolves to them) here.
  static bool lanes_available(trace_isa isa) { return isa == trace_isa::baseline || isa == trace_isa::automatic; }

  /// Traces rays one per thread (walk_wide); `isa` is ignored, as below.
  template <bool Any, class Mem, class Rays, class Out>
  static void run_single(const std::string& label, const ExecSpace& space, index_t n, const bvh_view<Mem>& b,
                         const Rays& rays, const Out& out, trace_isa) {
    Kokkos::parallel_for(label + "::single",
                         sweep::detail::range_policy<ExecSpace, Kokkos::Schedule<Kokkos::Dynamic>>(space, 0, n).set_chunk_size(256),
                         single_kernel<Any, packet_backend, Mem, Rays, Out>{b, rays, out});
  }

  /// Traces `packets` packets of L consecutive rays (the lanes, `isa`, are
  /// ignored: no others here) and adds the walk's counters to s.
  template <int L, bool Any, bool Reorder, class Mem, class Rays, class Out, class Stats>
  static void run_packets(const std::string& label, const ExecSpace& space, index_t packets, const bvh_view<Mem>& b,
                          const Rays& rays, const Out& out, const trace_options& opt, index_t n, trace_isa,
                          const Stats& s) {
    sweep::detail::range_policy<ExecSpace, Kokkos::Schedule<Kokkos::Dynamic>> policy(space, 0, packets);
    policy.set_chunk_size(4);
    Kokkos::parallel_reduce(label + "::packets", policy,
                            packet_kernel<packet<L, packet_backend>, Any, Reorder, Mem, Rays, Out>{5, b, rays, out, opt, n},
                            s);
  }
};

}  // namespace sweep::raytrace::detail

#define SWEEP_DISPATCH_PACKET
#include <sweep/backend.hpp>
