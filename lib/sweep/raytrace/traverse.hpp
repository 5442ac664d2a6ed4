// Ray traversal of the BVHs: single rays and ray packets.
//
// Single rays walk the 4-wide BVH: the four child boxes of a node are
// tested, hits are pushed far to near, leaves are intersected as they are
// popped (closest hit: nodes beyond the closest hit so far are skipped;
// any hit: the walk stops at the first). A subtree walk of the binary BVH
// serves the packets' fall-back.
//
// Packets (8, 16, 32 or 64 rays) walk the binary BVH together. A stack
// entry carries the node and the mask of rays that reached it; at a node
// every ray of the mask is tested (the rays that hit form the active mask,
// whose share of the lanes is the packet's utilisation), and leaves are
// intersected for the active rays only, each keeping its closest hit so
// far. When all rays share their origin and the signs of their directions
// (primary rays, shadow rays traced from the light), an interval test of
// the whole packet against the box first rejects nodes that no ray can hit.
// In `automatic` mode a packet whose utilisation falls to `compact_below`
// compacts its active rays into the smallest packet that holds them and
// continues the subtree with it, and at `single_below` active rays or fewer
// each continues the subtree alone. The walk is written once for two packet
// types: `packet` (SSE on x86 hosts, scalar elsewhere) and, on CPUs with
// AVX-512F, `avx512_packet` (packet_avx512.hpp; `trace_options::isa`).
//
// Results do not depend on the mode: every (ray, triangle) pair yields the
// same distance, and ties go to the lower primitive (geometry.hpp).
#pragma once

#include <sweep/detail/bits.hpp>
#include <sweep/raytrace/bvh.hpp>
#include <sweep/raytrace/geometry.hpp>

#include <Kokkos_Core.hpp>

#include <cstdint>
#include <string>
#include <type_traits>

// Host code tests four boxes at once with SSE (x86-64's baseline); device
// code and other hosts run the scalar loop. Both compute the same values.
#if defined(__SSE2__) && !defined(__CUDA_ARCH__) && !defined(__HIP_DEVICE_COMPILE__)
#include <immintrin.h>
#define SWEEP_RAYTRACE_SSE 1
#else
#define SWEEP_RAYTRACE_SSE 0
#endif

// The AVX-512 packets (packet_avx512.hpp): GCC on x86-64 hosts, outside
// device compilers; used at run time when the CPU has AVX-512F.
#if SWEEP_RAYTRACE_SSE && defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__) && \
    !defined(__CUDACC__) && !defined(__HIPCC__) && !defined(__NVCOMPILER) && !defined(__INTEL_COMPILER)
#define SWEEP_RAYTRACE_AVX512 1
#else
#define SWEEP_RAYTRACE_AVX512 0
#endif

namespace sweep::raytrace {

enum class trace_mode { single, packet, automatic };

inline const char* to_string(trace_mode m) {
  return m == trace_mode::single ? "single" : (m == trace_mode::packet ? "packet" : "auto");
}

/// The instruction set of the packet walk on x86-64 hosts: `automatic`
/// takes AVX-512 when the build and the CPU have it, else the baseline
/// (SSE, or scalar code elsewhere). Results are the same with every one.
enum class trace_isa { automatic, baseline, avx512 };

inline const char* to_string(trace_isa i) {
  return i == trace_isa::automatic ? "auto" : (i == trace_isa::baseline ? "baseline" : "avx512");
}

struct trace_options {
  trace_mode mode = trace_mode::automatic;
  int packet_size = 64;        // 8, 16, 32 or 64 rays
  float compact_below = 0.5f;  // automatic: compact when active / lanes <= this
  int single_below = 2;        // automatic: trace singly at this many active rays or fewer
  trace_isa isa = trace_isa::automatic;
};

/// What a batch of rays cost.
struct trace_stats {
  std::uint64_t rays = 0;
  std::uint64_t packet_node_tests = 0;  // packet visits of a node (box tests of a whole packet)
  std::uint64_t packet_lanes = 0;       // lanes those tests covered
  std::uint64_t active_lanes = 0;       // lanes whose ray hit the box
  std::uint64_t compactions = 0;        // packets compacted into smaller ones
  std::uint64_t single_fallbacks = 0;   // rays that left their packet to finish alone
  /// Active lanes / lanes over all packet node tests (1 for single rays).
  double utilisation() const { return packet_lanes ? double(active_lanes) / double(packet_lanes) : 1.0; }
};

namespace detail {

/// The device-side handle of a bvh.
template <class Mem>
struct bvh_view {
  Kokkos::View<const bvh_node*, Mem> nodes;
  Kokkos::View<const bvh4_node*, Mem> wide;
  Kokkos::View<const triangle*, Mem> tris;
  Kokkos::View<const std::int32_t*, Mem> ids;
  Kokkos::View<const triangle_block*, Mem> blocks;
  Kokkos::View<const std::int32_t*, Mem> leaf_blocks;  // first block of each binary leaf
};

constexpr int stack_size = 192;

using sweep::detail::ctz64;
using sweep::detail::popcount64;

struct stack_entry {
  std::int32_t ref;    // 4-wide node, or first triangle of a leaf
  std::int32_t count;  // 0: node, > 0: leaf
  float t;             // entry distance
};

/// Takes lane `lane`'s candidate distance t (or +inf) of a block; true when
/// an any-hit query is done.
template <bool Any>
KOKKOS_INLINE_FUNCTION bool take(float t, float u, float v, std::int32_t prim, hit& h) {
  if (t == __builtin_huge_valf() || prim < 0) return false;
  if (Any) {
    h = hit{t, u, v, prim};
    return true;
  }
  if (closer(t, prim, h.t, h.prim)) h = hit{t, u, v, prim};
  return false;
}

KOKKOS_INLINE_FUNCTION triangle block_triangle(const triangle_block& k, int lane) {
  return triangle{vec3f{k.ax[lane], k.ay[lane], k.az[lane]}, vec3f{k.bx[lane], k.by[lane], k.bz[lane]},
                  vec3f{k.cx[lane], k.cy[lane], k.cz[lane]}};
}

/// Tests the triangle blocks of a 4-wide leaf (count triangles from block
/// `first`), four at a time. The SSE lanes do the scalar test's arithmetic
/// in the scalar test's order; lanes whose edge functions hit an exact
/// zero, where the scalar test switches to double, are redone by it.
template <bool Any, class Mem>
KOKKOS_INLINE_FUNCTION bool intersect_blocks(const bvh_view<Mem>& b, const ray_setup& r, std::int32_t first,
                                             std::int32_t count, hit& h) {
  for (std::int32_t k = first; k < first + (count + 3) / 4; ++k) {
    const triangle_block& blk = b.blocks(k);
#if SWEEP_RAYTRACE_SSE
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
#else
    for (int lane = 0; lane < 4; ++lane) {
      if (blk.prim[lane] < 0) continue;
      float u = 0, v = 0;
      const float d = intersect_triangle(r, block_triangle(blk, lane), h.t, u, v);
      if (take<Any>(d, u, v, blk.prim[lane], h)) return true;
    }
#endif
  }
  return false;
}

/// Entry distances of the ray into a 4-wide node's boxes; returns the
/// mask of boxes hit (bit c for slot c; empty slots never hit).
KOKKOS_INLINE_FUNCTION int wide_entries(const ray_setup& r, const bvh4_node& nd, float tmax, float t[4]) {
#if SWEEP_RAYTRACE_SSE
  const __m128 ox = _mm_set1_ps(r.org.x), oy = _mm_set1_ps(r.org.y), oz = _mm_set1_ps(r.org.z);
  const __m128 ix = _mm_set1_ps(r.inv.x), iy = _mm_set1_ps(r.inv.y), iz = _mm_set1_ps(r.inv.z);
  const __m128 x0 = _mm_mul_ps(_mm_sub_ps(_mm_loadu_ps(nd.lo_x), ox), ix);
  const __m128 x1 = _mm_mul_ps(_mm_sub_ps(_mm_loadu_ps(nd.hi_x), ox), ix);
  const __m128 y0 = _mm_mul_ps(_mm_sub_ps(_mm_loadu_ps(nd.lo_y), oy), iy);
  const __m128 y1 = _mm_mul_ps(_mm_sub_ps(_mm_loadu_ps(nd.hi_y), oy), iy);
  const __m128 z0 = _mm_mul_ps(_mm_sub_ps(_mm_loadu_ps(nd.lo_z), oz), iz);
  const __m128 z1 = _mm_mul_ps(_mm_sub_ps(_mm_loadu_ps(nd.hi_z), oz), iz);
  const __m128 near = _mm_max_ps(_mm_max_ps(_mm_min_ps(x0, x1), _mm_min_ps(y0, y1)),
                                 _mm_max_ps(_mm_min_ps(z0, z1), _mm_set1_ps(r.tmin)));
  __m128 far = _mm_min_ps(_mm_min_ps(_mm_max_ps(x0, x1), _mm_max_ps(y0, y1)),
                          _mm_min_ps(_mm_max_ps(z0, z1), _mm_set1_ps(tmax)));
  far = _mm_mul_ps(far, _mm_set1_ps(exit_scale));
  const __m128i valid = _mm_cmpgt_epi32(_mm_loadu_si128(reinterpret_cast<const __m128i*>(nd.count)), _mm_set1_epi32(-1));
  const __m128 ok = _mm_and_ps(_mm_cmple_ps(near, far), _mm_castsi128_ps(valid));
  _mm_storeu_ps(t, near);
  return _mm_movemask_ps(ok);
#else
  int mask = 0;
  for (int c = 0; c < 4; ++c) {
    t[c] = nd.count[c] < 0 ? __builtin_huge_valf()
                           : box_entry(r, vec3f{nd.lo_x[c], nd.lo_y[c], nd.lo_z[c]},
                                       vec3f{nd.hi_x[c], nd.hi_y[c], nd.hi_z[c]}, tmax);
    mask |= (t[c] != __builtin_huge_valf()) << c;
  }
  return mask;
#endif
}

KOKKOS_INLINE_FUNCTION int lowest_bit32(int m) { return ctz64(std::uint64_t(unsigned(m))); }

/// Single ray, 4-wide BVH; h.t starts as the ray's tmax. The walk goes on
/// with the nearest child hit (closest hit) or any child hit (any hit)
/// without a stack round trip and pushes the others, farthest first.
template <bool Any, class Mem>
KOKKOS_INLINE_FUNCTION void walk_wide(const bvh_view<Mem>& b, const ray_setup& r, hit& h) {
  stack_entry stack[stack_size];
  int top = 0;
  stack_entry cur{0, 0, r.tmin};
  while (true) {
    if (cur.count > 0) {
      if (intersect_blocks<Any>(b, r, cur.ref, cur.count, h)) return;
    } else {
      const bvh4_node& nd = b.wide(cur.ref);
      float t[4];
      int mask = wide_entries(r, nd, h.t, t);
      if (mask) {
        // The nearest hit child becomes current (any hit: the first).
        int pick = lowest_bit32(mask);
        if (!Any)
          for (int m = mask & (mask - 1); m; m &= m - 1) {
            const int c = lowest_bit32(m);
            if (t[c] < t[pick]) pick = c;
          }
        // The others go on the stack, farthest first (popped nearest first).
        int rest = mask & ~(1 << pick);
        while (rest) {
          int far = lowest_bit32(rest);
          if (!Any)
            for (int m = rest & (rest - 1); m; m &= m - 1) {
              const int c = lowest_bit32(m);
              if (t[c] > t[far]) far = c;
            }
          stack[top++] = stack_entry{nd.child[far], nd.count[far], t[far]};
          rest &= ~(1 << far);
        }
        cur = stack_entry{nd.child[pick], nd.count[pick], t[pick]};
        continue;
      }
    }
    // Next: the nearest pending entry that is not beyond the closest hit
    // (entry distances carry rounding: compared as box_entry does).
    do {
      if (top == 0) return;
      cur = stack[--top];
    } while (cur.t > h.t * exit_scale);
  }
}

/// Single ray, binary BVH, the subtree under `start`; h.t starts as the
/// ray's current tmax.
template <bool Any, class Mem>
KOKKOS_INLINE_FUNCTION void walk_binary(const bvh_view<Mem>& b, const ray_setup& r, std::int32_t start, hit& h) {
  std::int32_t stack[stack_size];
  int top = 0;
  stack[top++] = start;
  while (top > 0) {
    const std::int32_t id = stack[--top];
    const bvh_node& nd = b.nodes(id);
    if (box_entry(r, nd.lo, nd.hi, h.t) == __builtin_huge_valf()) continue;
    if (nd.leaf()) {
      if (intersect_blocks<Any>(b, r, b.leaf_blocks(id), nd.count(), h)) return;
      continue;
    }
    const bool flip = (nd.axis() == 0 ? r.inv.x : (nd.axis() == 1 ? r.inv.y : r.inv.z)) < 0;
    stack[top++] = nd.first + (flip ? 0 : 1);  // far
    stack[top++] = nd.first + (flip ? 1 : 0);  // near
  }
}

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
/// interval), so four lanes are tested at once. What walk_packet asks of a
/// packet type: `lanes`, `resized<S>`, `bounds`, `hits_box`, `negative`,
/// `intersect_leaf`, `finish_alone`, `compact_from` and `restore_from`.
template <int L>
struct packet {
  static constexpr int lanes = L;
  template <int S>
  using resized = packet<S>;
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
  KOKKOS_INLINE_FUNCTION void refresh_bound() {
#if SWEEP_RAYTRACE_SSE
    __m128 top = _mm_load_ps(tmax);
    for (int i = 4; i < L; i += 4) top = _mm_max_ps(top, _mm_load_ps(tmax + i));
    top = _mm_max_ps(top, _mm_shuffle_ps(top, top, _MM_SHUFFLE(1, 0, 3, 2)));
    top = _mm_max_ps(top, _mm_shuffle_ps(top, top, _MM_SHUFFLE(2, 3, 0, 1)));
    bounds.tmax_all = _mm_cvtss_f32(top);
#else
    float top = -__builtin_huge_valf();
    for (int i = 0; i < L; ++i) top = top > tmax[i] ? top : tmax[i];
    bounds.tmax_all = top;
#endif
  }

  /// True when lane i's direction is negative along `axis`.
  KOKKOS_INLINE_FUNCTION bool negative(int axis, int i) const {
    return (axis == 0 ? ix[i] : (axis == 1 ? iy[i] : iz[i])) < 0;
  }

  /// Lanes of `mask` whose ray enters the box before its closest hit (the
  /// same test as box_entry, four lanes at a time on x86 hosts).
  KOKKOS_INLINE_FUNCTION std::uint64_t hits_box(const vec3f& lo, const vec3f& hi, std::uint64_t mask) const {
    std::uint64_t out = 0;
#if SWEEP_RAYTRACE_SSE
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
#else
    for (std::uint64_t m = mask; m; m &= m - 1) {
      const int i = ctz64(m);
      ray_setup q;
      q.org = vec3f{ox[i], oy[i], oz[i]}, q.inv = vec3f{ix[i], iy[i], iz[i]}, q.tmin = tmin[i];
      if (box_entry(q, lo, hi, tmax[i]) != __builtin_huge_valf()) out |= std::uint64_t(1) << i;
    }
#endif
    return out & mask;
  }

  /// The triangles of a leaf (`count` from block `first`) for the rays of
  /// `mask`, one ray at a time; a finished any-hit ray leaves the packet.
  template <bool Any, class Mem>
  KOKKOS_INLINE_FUNCTION void intersect_leaf(const bvh_view<Mem>& b, std::int32_t first, std::int32_t count,
                                             std::uint64_t mask) {
    for (std::uint64_t t = mask; t; t &= t - 1) {
      const int i = ctz64(t);
      const bool done = intersect_blocks<Any>(b, setup(i), first, count, h[i]);
      tmax[i] = done ? -1.0f : h[i].t;
    }
    if (bounds.shared) refresh_bound();
  }

  /// Lane i walks the binary subtree under `node` alone.
  template <bool Any, class Mem>
  KOKKOS_INLINE_FUNCTION void finish_alone(const bvh_view<Mem>& b, std::int32_t node, int i) {
    walk_binary<Any>(b, setup(i), node, h[i]);
    tmax[i] = Any && h[i].prim >= 0 ? -1.0f : h[i].t;
  }

  /// Takes the lanes of `mask` of p (lane[k]: where lane k came from).
  template <int M>
  KOKKOS_INLINE_FUNCTION void compact_from(const packet<M>& p, std::uint64_t mask, int* lane) {
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
  KOKKOS_INLINE_FUNCTION void restore_from(const packet<S>& q, const int* lane, bool any) {
    for (int k = 0; k < q.size; ++k) {
      h[lane[k]] = q.h[k];
      tmax[lane[k]] = any && q.h[k].prim >= 0 ? -1.0f : q.h[k].t;
    }
  }
};

/// Asks for the cache line at p ahead of use (siblings share one: two
/// 32-byte nodes); nothing on devices.
KOKKOS_INLINE_FUNCTION void prefetch([[maybe_unused]] const void* p) {
#if !defined(__CUDA_ARCH__) && !defined(__HIP_DEVICE_COMPILE__)
  __builtin_prefetch(p);
#endif
}

struct counters {
  std::uint64_t tests = 0, lanes = 0, active = 0, compactions = 0, singles = 0;
};

template <class P, bool Any, bool Reorder, class Mem>
KOKKOS_INLINE_FUNCTION void walk_packet(const bvh_view<Mem>& b, P& p, std::int32_t start, std::uint64_t mask,
                                        const trace_options& opt, counters& c);

/// Moves the active lanes into a packet of S lanes, walks the subtree with
/// it, and writes the results back.
template <int S, class P, bool Any, bool Reorder, class Mem>
KOKKOS_INLINE_FUNCTION void walk_compacted(const bvh_view<Mem>& b, P& p, std::int32_t node, std::uint64_t mask,
                                           const trace_options& opt, counters& c) {
  using Q = typename P::template resized<S>;
  Q q;
  int lane[S];
  q.compact_from(p, mask, lane);
  ++c.compactions;
  const std::uint64_t all = q.size == 64 ? ~std::uint64_t(0) : ((std::uint64_t(1) << q.size) - 1);
  walk_packet<Q, Any, Reorder>(b, q, node, all, opt, c);
  p.restore_from(q, lane, Any);
}

template <class P, bool Any, bool Reorder, class Mem>
KOKKOS_INLINE_FUNCTION void walk_packet(const bvh_view<Mem>& b, P& p, std::int32_t start, std::uint64_t mask,
                                        const trace_options& opt, counters& c) {
  constexpr int L = P::lanes;
  struct entry {
    std::int32_t node;
    std::uint64_t mask;
  };
  entry stack[stack_size];
  int top = 0;
  stack[top++] = entry{start, mask};
  while (top > 0) {
    const entry e = stack[--top];
    std::uint64_t m = e.mask;
    const bvh_node& nd = b.nodes(e.node);
    if (p.bounds.shared && p.bounds.misses(nd.lo, nd.hi)) continue;
    // Early accept: when the first ray of the mask enters an inner node,
    // descend with the mask as it is (a superset of the rays that enter;
    // children's boxes lie inside, so it is re-tested where it matters).
    // Otherwise, and at every leaf, the mask is recomputed exactly.
    const int lead = ctz64(m);
    if (!nd.leaf() && p.hits_box(nd.lo, nd.hi, std::uint64_t(1) << lead)) {
      const bool flip = p.negative(nd.axis(), lead);
      prefetch(&b.nodes(nd.first));
      stack[top++] = entry{nd.first + (flip ? 0 : 1), m};
      stack[top++] = entry{nd.first + (flip ? 1 : 0), m};
      continue;
    }
    m = p.hits_box(nd.lo, nd.hi, m);
    ++c.tests;
    c.lanes += std::uint64_t(L);
    const int active = popcount64(m);
    c.active += std::uint64_t(active);
    if (!m) continue;
    if (Reorder && !nd.leaf()) {
      if (active <= opt.single_below) {
        for (std::uint64_t t = m; t; t &= t - 1) {
          p.template finish_alone<Any>(b, e.node, ctz64(t));
          ++c.singles;
        }
        continue;
      }
      if constexpr (L > 8) {
        if (float(active) <= opt.compact_below * float(L) && active <= L / 2) {
          // The smallest packet that holds the active rays.
          if (active <= 8) {
            walk_compacted<8, P, Any, Reorder>(b, p, e.node, m, opt, c);
          } else if constexpr (L >= 32) {
            if (active <= 16) walk_compacted<16, P, Any, Reorder>(b, p, e.node, m, opt, c);
            else if constexpr (L == 64) walk_compacted<32, P, Any, Reorder>(b, p, e.node, m, opt, c);
          }
          continue;
        }
      }
    }
    if (nd.leaf()) {
      p.template intersect_leaf<Any>(b, b.leaf_blocks(e.node), nd.count(), m);
      continue;
    }
    const bool flip = p.negative(nd.axis(), ctz64(m));
    prefetch(&b.nodes(nd.first));
    stack[top++] = entry{nd.first + (flip ? 0 : 1), m};
    stack[top++] = entry{nd.first + (flip ? 1 : 0), m};
  }
}

template <class P, bool Any, bool Reorder, class Mem, class Rays, class Out>
struct packet_kernel {
  using value_type = std::uint64_t[];
  unsigned value_count = 5;
  bvh_view<Mem> b;
  Rays rays;
  Out out;
  trace_options opt;
  index_t n;
  KOKKOS_INLINE_FUNCTION void operator()(const index_t k, value_type s) const {
    P p;
    const index_t first = k * P::lanes;
    const std::uint64_t mask = p.load(rays, first, n);
    counters c;
    if (mask) walk_packet<P, Any, Reorder>(b, p, 0, mask, opt, c);
    for (int i = 0; i < p.size; ++i) store(first + i, p.result(i));
    s[0] += c.tests, s[1] += c.lanes, s[2] += c.active, s[3] += c.compactions, s[4] += c.singles;
  }
  KOKKOS_INLINE_FUNCTION void store(index_t i, const hit& h) const {
    if constexpr (Any) out(i) = h.prim >= 0 ? 1 : 0;
    else out(i) = h.prim >= 0 ? h : hit{};
  }
};

}  // namespace detail
}  // namespace sweep::raytrace

#include <sweep/raytrace/packet_avx512.hpp>

namespace sweep::raytrace {

/// True when packets can run with `isa` here (baseline and automatic always can).
inline bool isa_available(trace_isa isa) {
#if SWEEP_RAYTRACE_AVX512
  if (isa == trace_isa::avx512) return detail::avx512_supported();
#endif
  return isa != trace_isa::avx512;
}

/// The lanes packets run with when `isa` is asked for: `avx512` or
/// `baseline` (automatic resolved for this build and CPU).
inline trace_isa packet_isa(trace_isa isa) {
  const bool wide = isa == trace_isa::avx512 || (isa == trace_isa::automatic && isa_available(trace_isa::avx512));
  return wide ? trace_isa::avx512 : trace_isa::baseline;
}

namespace detail {

template <bool Any, class Mem, class Rays, class Out>
struct single_kernel {
  bvh_view<Mem> b;
  Rays rays;
  Out out;
  KOKKOS_INLINE_FUNCTION void operator()(const index_t i) const {
    const ray& q = rays(i);
    hit h{q.tmax, 0, 0, -1};
    if (q.tmin <= q.tmax) walk_wide<Any>(b, ray_setup(q), h);
    if constexpr (Any) out(i) = h.prim >= 0 ? 1 : 0;
    else out(i) = h.prim >= 0 ? h : hit{};
  }
};

template <bool Any, class ExecSpace, class Rays, class Out>
trace_stats trace(const ExecSpace& space, const bvh<ExecSpace>& tree, const Rays& rays, const Out& out,
                  const trace_options& opt, const char* where) {
  using Mem = typename ExecSpace::memory_space;
  static_assert(Kokkos::SpaceAccessibility<ExecSpace, typename Rays::memory_space>::accessible &&
                    Kokkos::SpaceAccessibility<ExecSpace, typename Out::memory_space>::accessible,
                "sweep::raytrace: rays and results must be accessible from the execution space");
  sweep::detail::scoped_region region(where);
  const index_t n = index_t(rays.extent(0));
  sweep::detail::require(index_t(out.extent(0)) >= n, where, "the result View has ", out.extent(0),
                         " entries for ", n, " rays");
  const int L = opt.packet_size;
  sweep::detail::require(L == 8 || L == 16 || L == 32 || L == 64, where, "packet_size = ", L,
                         " must be 8, 16, 32 or 64");
  sweep::detail::require(opt.compact_below >= 0 && opt.compact_below <= 1, where, "compact_below = ",
                         opt.compact_below, " must be in [0, 1]");
  sweep::detail::require(opt.single_below >= 0 && opt.single_below <= L, where, "single_below = ",
                         opt.single_below, " must be in [0, packet_size]");
  sweep::detail::require(isa_available(opt.isa), where, "isa = ", to_string(opt.isa),
                         " is not available: this build or this CPU lacks AVX-512F");
  trace_stats st;
  st.rays = std::uint64_t(n);
  if (n == 0) return st;
  const bvh_view<Mem> b{tree.nodes(), tree.wide_nodes(), tree.triangles(), tree.primitive_ids(), tree.triangle_blocks(),
                        tree.leaf_blocks()};
  if (opt.mode == trace_mode::single) {
    Kokkos::parallel_for(std::string(where) + "::single",
                         Kokkos::RangePolicy<ExecSpace, Kokkos::Schedule<Kokkos::Dynamic>>(space, 0, n).set_chunk_size(256),
                         single_kernel<Any, Mem, Rays, Out>{b, rays, out});
    return st;
  }
  Kokkos::View<std::uint64_t*, Kokkos::HostSpace> s("sweep::raytrace::stats", 5);
  const index_t packets = (n + L - 1) / L;
  [[maybe_unused]] const bool wide = packet_isa(opt.isa) == trace_isa::avx512;
  auto run = [&](auto lanes, auto reorder) {
    constexpr int W = decltype(lanes)::value;
    constexpr bool R = decltype(reorder)::value;
    Kokkos::RangePolicy<ExecSpace, Kokkos::Schedule<Kokkos::Dynamic>> policy(space, 0, packets);
    policy.set_chunk_size(4);
#if SWEEP_RAYTRACE_AVX512
    if (wide) {
      Kokkos::parallel_reduce(std::string(where) + "::packets_avx512", policy,
                              packet_kernel<avx512_packet<W>, Any, R, Mem, Rays, Out>{5, b, rays, out, opt, n}, s);
      return;
    }
#endif
    Kokkos::parallel_reduce(std::string(where) + "::packets", policy,
                            packet_kernel<packet<W>, Any, R, Mem, Rays, Out>{5, b, rays, out, opt, n}, s);
  };
  const bool reorder = opt.mode == trace_mode::automatic;
  auto dispatch = [&](auto reorder_tag) {
    switch (L) {
      case 8: run(std::integral_constant<int, 8>{}, reorder_tag); break;
      case 16: run(std::integral_constant<int, 16>{}, reorder_tag); break;
      case 32: run(std::integral_constant<int, 32>{}, reorder_tag); break;
      default: run(std::integral_constant<int, 64>{}, reorder_tag); break;
    }
  };
  if (reorder) dispatch(std::true_type{});
  else dispatch(std::false_type{});
  space.fence();
  st.packet_node_tests = s(0), st.packet_lanes = s(1), st.active_lanes = s(2), st.compactions = s(3);
  st.single_fallbacks = s(4);
  return st;
}

}  // namespace detail

/// Closest hits of `rays` (a rank-1 View of sweep::raytrace::ray) into
/// `hits` (View of hit; prim -1 for a miss). Rays with tmin > tmax are
/// skipped (reported as misses). Packets are consecutive rays.
template <class ExecSpace, class Rays, class Hits>
trace_stats intersect(const ExecSpace& space, const bvh<ExecSpace>& tree, const Rays& rays, const Hits& hits,
                      const trace_options& opt = {}) {
  static_assert(std::is_same_v<typename Hits::value_type, hit>, "sweep::raytrace::intersect: hits must be a View of hit");
  return detail::trace<false>(space, tree, rays, hits, opt, "sweep::raytrace::intersect");
}

/// Any-hit queries: occluded(i) = 1 when something lies within [tmin, tmax]
/// of ray i, else 0.
template <class ExecSpace, class Rays, class Flags>
trace_stats occluded(const ExecSpace& space, const bvh<ExecSpace>& tree, const Rays& rays, const Flags& flags,
                     const trace_options& opt = {}) {
  static_assert(std::is_integral_v<typename Flags::value_type>, "sweep::raytrace::occluded: flags must hold integers");
  return detail::trace<true>(space, tree, rays, flags, opt, "sweep::raytrace::occluded");
}

}  // namespace sweep::raytrace
