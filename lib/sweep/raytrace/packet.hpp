// Ray packets: up to L rays walked together (raytrace/packet_walk.hpp).
// packet_bounds is the shared-origin interval test; packet<L, Backend> the
// portable packet, whose box and bound tests are the backend's (four lanes
// at a time with SSE on x86 hosts, scalar elsewhere). The AVX-512 and AVX2
// packets of host/packet_simd.hpp offer the same interface.
#pragma once

#include <sweep/raytrace/single_ray.hpp>

namespace sweep::raytrace::detail {

/// What the shared-origin interval test knows of a packet: the common
/// origin, the range of each reciprocal direction component, the packet's
/// interval.
struct packet_bounds {
  bool shared = false;
  vec3f org;
  float inv_lo[3], inv_hi[3];
  float tmin_all = 0, tmax_all = 0;

  /// Interval arithmetic over the packet: true when no ray can enter the box.
  KOKKOS_INLINE_FUNCTION bool misses(const vec3f& lo, const vec3f& hi) const {
    float enter = tmin_all, leave = tmax_all;
    for (int a = 0; a < 3; ++a) {
      const float l = lo[a] - org[a], u = hi[a] - org[a];
      const float near = inv_lo[a] > 0 ? l : u, far = inv_lo[a] > 0 ? u : l;
      const float e0 = near * inv_lo[a], e1 = near * inv_hi[a], x0 = far * inv_lo[a], x1 = far * inv_hi[a];
      const float e = e0 < e1 ? e0 : e1, x = x0 > x1 ? x0 : x1;
      enter = enter > e ? enter : e;
      leave = leave < x ? leave : x;
    }
    return enter > leave * exit_scale;
  }
};

/// A packet of up to L rays: each ray's setup and hit, and structure-of-
/// arrays copies of what the box test reads (origin, reciprocal direction,
/// interval), so the backend tests several lanes at once. What walk_packet asks of a
/// packet type: `lanes`, `resized<S>`, `bounds`, `hits_box`, `negative`,
/// `intersect_leaf`, `finish_alone`, `compact_from` and `restore_from`.
template <int L, class Backend>
struct packet {
  static constexpr int lanes = L;
  using backend = Backend;
  template <int S>
  using resized = packet<S, Backend>;
  ray src[L];
  ray_setup r[L];           // made on first use (many packets never reach a triangle)
  std::uint64_t ready = 0;  // lanes whose r is made
  hit h[L];
  alignas(16) float ox[L], oy[L], oz[L], ix[L], iy[L], iz[L], tmin[L], tmax[L];
  int size = 0;
  packet_bounds bounds;

  /// Rays [first, first + L) of `rays` (fewer at the end); returns the mask
  /// of the rays to trace (tmin <= tmax).
  template <class Rays>
  KOKKOS_INLINE_FUNCTION std::uint64_t load(const Rays& rays, index_t first, index_t n) {
    size = int(n - first < L ? n - first : L);
    std::uint64_t mask = 0;
    for (int i = 0; i < size; ++i) {
      const ray& q = rays(first + i);
      src[i] = q;
      h[i] = hit{q.tmax, 0, 0, -1};
      if (q.tmin <= q.tmax) mask |= std::uint64_t(1) << i;
    }
    prepare();
    return mask;
  }

  KOKKOS_INLINE_FUNCTION hit result(int i) const { return h[i]; }

  /// Fills the arrays from r and h and works out whether the interval test
  /// applies. Lanes past `size` never hit.
  KOKKOS_INLINE_FUNCTION void prepare() {
    packet_bounds& pb = bounds;
    pb.shared = size > 1;
    pb.tmin_all = __builtin_huge_valf(), pb.tmax_all = -__builtin_huge_valf();
    for (int a = 0; a < 3; ++a) pb.inv_lo[a] = __builtin_huge_valf(), pb.inv_hi[a] = -__builtin_huge_valf();
    for (int i = 0; i < L; ++i) {
      const bool on = i < size;
      const ray& q = src[on ? i : 0];
      ox[i] = q.org.x, oy[i] = q.org.y, oz[i] = q.org.z;
      // The reciprocals ray_setup makes.
      ix[i] = safe_reciprocal(q.dir.x), iy[i] = safe_reciprocal(q.dir.y), iz[i] = safe_reciprocal(q.dir.z);
      tmin[i] = on ? q.tmin : 1.0f;
      tmax[i] = on ? h[i].t : -1.0f;
      if (!on) continue;
      pb.shared = pb.shared && q.org.x == src[0].org.x && q.org.y == src[0].org.y && q.org.z == src[0].org.z;
      const float inv[3] = {ix[i], iy[i], iz[i]};
      for (int a = 0; a < 3; ++a) {
        pb.inv_lo[a] = pb.inv_lo[a] < inv[a] ? pb.inv_lo[a] : inv[a];
        pb.inv_hi[a] = pb.inv_hi[a] > inv[a] ? pb.inv_hi[a] : inv[a];
      }
      pb.tmin_all = pb.tmin_all < q.tmin ? pb.tmin_all : q.tmin;
      pb.tmax_all = pb.tmax_all > h[i].t ? pb.tmax_all : h[i].t;
    }
    for (int a = 0; a < 3; ++a) pb.shared = pb.shared && (pb.inv_lo[a] > 0 || pb.inv_hi[a] < 0);
    if (size > 0) pb.org = src[0].org;
  }

  /// Lane i's full setup (the triangle test's shear), made once.
  KOKKOS_INLINE_FUNCTION const ray_setup& setup(int i) {
    if (!((ready >> i) & 1u)) {
      r[i] = ray_setup(src[i]);
      ready |= std::uint64_t(1) << i;
    }
    return r[i];
  }

  /// The interval test's far bound: the largest closest-hit distance left.
  KOKKOS_INLINE_FUNCTION void refresh_bound() { bounds.tmax_all = Backend::template largest<L>(tmax); }

  /// True when lane i's direction is negative along `axis`.
  KOKKOS_INLINE_FUNCTION bool negative(int axis, int i) const {
    return (axis == 0 ? ix[i] : (axis == 1 ? iy[i] : iz[i])) < 0;
  }

  /// Lanes of `mask` whose ray enters the box before its closest hit (the
  /// same test as box_entry, four lanes at a time on x86 hosts).
  KOKKOS_INLINE_FUNCTION std::uint64_t hits_box(const vec3f& lo, const vec3f& hi, std::uint64_t mask) const {
    return Backend::template hits_box<L>(ox, oy, oz, ix, iy, iz, tmin, tmax, lo, hi, mask);
  }

  /// The triangles of a leaf (`count` from block `first`) for the rays of
  /// `mask`, one ray at a time; a finished any-hit ray leaves the packet.
  template <bool Any, class Mem>
  KOKKOS_INLINE_FUNCTION void intersect_leaf(const bvh_view<Mem>& b, std::int32_t first, std::int32_t count,
                                             std::uint64_t mask) {
    for (std::uint64_t t = mask; t; t &= t - 1) {
      const int i = ctz64(t);
      const bool done = Backend::template intersect_blocks<Any>(b, setup(i), first, count, h[i]);
      tmax[i] = done ? -1.0f : h[i].t;
    }
    if (bounds.shared) refresh_bound();
  }

  /// Lane i walks the binary subtree under `node` alone.
  template <bool Any, class Mem>
  KOKKOS_INLINE_FUNCTION void finish_alone(const bvh_view<Mem>& b, std::int32_t node, int i) {
    walk_binary<Any, Backend>(b, setup(i), node, h[i]);
    tmax[i] = Any && h[i].prim >= 0 ? -1.0f : h[i].t;
  }

  /// Takes the lanes of `mask` of p (lane[k]: where lane k came from).
  template <int M>
  KOKKOS_INLINE_FUNCTION void compact_from(const packet<M, Backend>& p, std::uint64_t mask, int* lane) {
    size = 0;
    for (std::uint64_t m = mask; m; m &= m - 1) {
      const int i = ctz64(m);
      lane[size] = i;
      src[size] = p.src[i];
      if ((p.ready >> i) & 1u) r[size] = p.r[i], ready |= std::uint64_t(1) << size;
      h[size] = p.h[i];
      ++size;
    }
    prepare();
  }

  /// Gives the results of a compacted packet back to their lanes.
  template <int S>
  KOKKOS_INLINE_FUNCTION void restore_from(const packet<S, Backend>& q, const int* lane, bool any) {
    for (int k = 0; k < q.size; ++k) {
      h[lane[k]] = q.h[k];
      tmax[lane[k]] = any && q.h[k].prim >= 0 ? -1.0f : q.h[k].t;
    }
  }
};

}  // namespace sweep::raytrace::detail
