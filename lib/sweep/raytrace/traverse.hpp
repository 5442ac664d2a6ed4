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
// each continues the subtree alone.
//
// Results do not depend on the mode: every (ray, triangle) pair yields the
// same distance, and ties go to the lower primitive (geometry.hpp).
#pragma once

#include <sweep/raytrace/bvh.hpp>
#include <sweep/raytrace/geometry.hpp>

#include <Kokkos_Core.hpp>

#include <cstdint>
#include <string>
#include <type_traits>

namespace sweep::raytrace {

enum class trace_mode { single, packet, automatic };

inline const char* to_string(trace_mode m) {
  return m == trace_mode::single ? "single" : (m == trace_mode::packet ? "packet" : "auto");
}

struct trace_options {
  trace_mode mode = trace_mode::automatic;
  int packet_size = 64;        // 8, 16, 32 or 64 rays
  float compact_below = 0.5f;  // automatic: compact when active / lanes <= this
  int single_below = 2;        // automatic: trace singly at this many active rays or fewer
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
};

constexpr int stack_size = 192;

struct stack_entry {
  std::int32_t ref;    // 4-wide node, or first triangle of a leaf
  std::int32_t count;  // 0: node, > 0: leaf
  float t;             // entry distance
};

/// Tests a leaf's triangles; true when any hit is taken (any-hit stops).
template <bool Any, class Mem>
KOKKOS_INLINE_FUNCTION bool intersect_leaf(const bvh_view<Mem>& b, const ray_setup& r, std::int32_t first,
                                           std::int32_t count, hit& h) {
  for (std::int32_t k = first; k < first + count; ++k) {
    float u = 0, v = 0;
    const float t = intersect_triangle(r, b.tris(k), h.t, u, v);
    if (t == __builtin_huge_valf()) continue;
    const std::int32_t prim = b.ids(k);
    if (Any) {
      h = hit{t, u, v, prim};
      return true;
    }
    if (closer(t, prim, h.t, h.prim)) h = hit{t, u, v, prim};
  }
  return false;
}

/// Single ray, 4-wide BVH; h.t starts as the ray's tmax.
template <bool Any, class Mem>
KOKKOS_INLINE_FUNCTION void walk_wide(const bvh_view<Mem>& b, const ray_setup& r, hit& h) {
  stack_entry stack[stack_size];
  int top = 0;
  stack[top++] = stack_entry{0, 0, r.tmin};
  while (top > 0) {
    const stack_entry e = stack[--top];
    // Entry distances carry rounding: compare as box_entry does.
    if (e.t > h.t * exit_scale) continue;
    if (e.count > 0) {
      if (intersect_leaf<Any>(b, r, e.ref, e.count, h) && Any) return;
      continue;
    }
    const bvh4_node& nd = b.wide(e.ref);
    stack_entry hits[4];
    int nh = 0;
    for (int c = 0; c < 4; ++c) {
      if (nd.count[c] < 0) continue;
      const float t = box_entry(r, vec3f{nd.lo_x[c], nd.lo_y[c], nd.lo_z[c]}, vec3f{nd.hi_x[c], nd.hi_y[c], nd.hi_z[c]}, h.t);
      if (t == __builtin_huge_valf()) continue;
      // Insertion by distance, nearest last (popped first).
      int j = nh++;
      while (j > 0 && hits[j - 1].t < t) {
        hits[j] = hits[j - 1];
        --j;
      }
      hits[j] = stack_entry{nd.child[c], nd.count[c], t};
    }
    for (int j = 0; j < nh; ++j) stack[top++] = hits[j];
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
    const bvh_node& nd = b.nodes(stack[--top]);
    if (box_entry(r, nd.lo, nd.hi, h.t) == __builtin_huge_valf()) continue;
    if (nd.leaf()) {
      if (intersect_leaf<Any>(b, r, nd.first, nd.count(), h) && Any) return;
      continue;
    }
    const bool flip = (nd.axis() == 0 ? r.inv.x : (nd.axis() == 1 ? r.inv.y : r.inv.z)) < 0;
    stack[top++] = nd.first + (flip ? 0 : 1);  // far
    stack[top++] = nd.first + (flip ? 1 : 0);  // near
  }
}

KOKKOS_INLINE_FUNCTION int popcount64(std::uint64_t m) {
  int c = 0;
  while (m) m &= m - 1, ++c;
  return c;
}

KOKKOS_INLINE_FUNCTION int lowest_bit(std::uint64_t m) {
  int i = 0;
  while (!(m & 1u)) m >>= 1, ++i;
  return i;
}

/// A packet of up to L rays as structure of arrays.
template <int L>
struct packet {
  ray_setup r[L];
  hit h[L];
  int size = 0;
  // Shared origin: the whole packet's reciprocal-direction ranges.
  bool shared = false;
  vec3f org;
  float inv_lo[3], inv_hi[3];
  float tmin_all = 0, tmax_all = 0;

  /// Works out whether the interval test applies.
  KOKKOS_INLINE_FUNCTION void prepare() {
    shared = size > 1;
    tmin_all = __builtin_huge_valf(), tmax_all = -__builtin_huge_valf();
    for (int a = 0; a < 3; ++a) inv_lo[a] = __builtin_huge_valf(), inv_hi[a] = -__builtin_huge_valf();
    for (int i = 0; i < size; ++i) {
      const ray_setup& q = r[i];
      shared = shared && q.org.x == r[0].org.x && q.org.y == r[0].org.y && q.org.z == r[0].org.z;
      const float inv[3] = {q.inv.x, q.inv.y, q.inv.z};
      for (int a = 0; a < 3; ++a) {
        inv_lo[a] = inv_lo[a] < inv[a] ? inv_lo[a] : inv[a];
        inv_hi[a] = inv_hi[a] > inv[a] ? inv_hi[a] : inv[a];
      }
      tmin_all = tmin_all < q.tmin ? tmin_all : q.tmin;
      tmax_all = tmax_all > h[i].t ? tmax_all : h[i].t;
    }
    for (int a = 0; a < 3; ++a) shared = shared && (inv_lo[a] > 0 || inv_hi[a] < 0);
    if (size > 0) org = r[0].org;
  }

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

  /// Lanes of `mask` whose ray enters the box before its closest hit.
  KOKKOS_INLINE_FUNCTION std::uint64_t hits_box(const vec3f& lo, const vec3f& hi, std::uint64_t mask) const {
    std::uint64_t out = 0;
    while (mask) {
      const int i = lowest_bit(mask);
      mask &= mask - 1;
      if (box_entry(r[i], lo, hi, h[i].t) != __builtin_huge_valf()) out |= std::uint64_t(1) << i;
    }
    return out;
  }
};

struct counters {
  std::uint64_t tests = 0, lanes = 0, active = 0, compactions = 0, singles = 0;
};

template <int L, bool Any, bool Reorder, class Mem>
KOKKOS_INLINE_FUNCTION void walk_packet(const bvh_view<Mem>& b, packet<L>& p, std::int32_t start, std::uint64_t mask,
                                        const trace_options& opt, counters& c);

/// Moves the active lanes into a packet of S lanes, walks the subtree with
/// it, and writes the results back.
template <int S, int L, bool Any, bool Reorder, class Mem>
KOKKOS_INLINE_FUNCTION void walk_compacted(const bvh_view<Mem>& b, packet<L>& p, std::int32_t node,
                                           std::uint64_t mask, const trace_options& opt, counters& c) {
  packet<S> q;
  int lane[S];
  q.size = 0;
  for (std::uint64_t m = mask; m; m &= m - 1) {
    const int i = lowest_bit(m);
    lane[q.size] = i;
    q.r[q.size] = p.r[i];
    q.h[q.size] = p.h[i];
    ++q.size;
  }
  q.prepare();
  ++c.compactions;
  const std::uint64_t all = q.size == 64 ? ~std::uint64_t(0) : ((std::uint64_t(1) << q.size) - 1);
  walk_packet<S, Any, Reorder>(b, q, node, all, opt, c);
  for (int k = 0; k < q.size; ++k) p.h[lane[k]] = q.h[k];
}

template <int L, bool Any, bool Reorder, class Mem>
KOKKOS_INLINE_FUNCTION void walk_packet(const bvh_view<Mem>& b, packet<L>& p, std::int32_t start, std::uint64_t mask,
                                        const trace_options& opt, counters& c) {
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
    if (Any)
      for (std::uint64_t t = m; t; t &= t - 1)
        if (p.h[lowest_bit(t)].prim >= 0) m &= ~(std::uint64_t(1) << lowest_bit(t));
    if (!m) continue;
    const bvh_node& nd = b.nodes(e.node);
    if (p.shared && p.misses(nd.lo, nd.hi)) continue;
    m = p.hits_box(nd.lo, nd.hi, m);
    ++c.tests;
    c.lanes += std::uint64_t(L);
    const int active = popcount64(m);
    c.active += std::uint64_t(active);
    if (!m) continue;
    if (Reorder && !nd.leaf()) {
      if (active <= opt.single_below) {
        for (std::uint64_t t = m; t; t &= t - 1) {
          const int i = lowest_bit(t);
          walk_binary<Any>(b, p.r[i], e.node, p.h[i]);
          ++c.singles;
        }
        continue;
      }
      if constexpr (L > 8) {
        if (float(active) <= opt.compact_below * float(L) && active <= L / 2) {
          // The smallest packet that holds the active rays.
          if (active <= 8) {
            walk_compacted<8, L, Any, Reorder>(b, p, e.node, m, opt, c);
          } else if constexpr (L >= 32) {
            if (active <= 16) walk_compacted<16, L, Any, Reorder>(b, p, e.node, m, opt, c);
            else if constexpr (L == 64) walk_compacted<32, L, Any, Reorder>(b, p, e.node, m, opt, c);
          }
          continue;
        }
      }
    }
    if (nd.leaf()) {
      for (std::uint64_t t = m; t; t &= t - 1) {
        const int i = lowest_bit(t);
        intersect_leaf<Any>(b, p.r[i], nd.first, nd.count(), p.h[i]);
      }
      continue;
    }
    const ray_setup& lead = p.r[lowest_bit(m)];
    const bool flip = (nd.axis() == 0 ? lead.inv.x : (nd.axis() == 1 ? lead.inv.y : lead.inv.z)) < 0;
    stack[top++] = entry{nd.first + (flip ? 0 : 1), m};
    stack[top++] = entry{nd.first + (flip ? 1 : 0), m};
  }
}

template <int L, bool Any, bool Reorder, class Mem, class Rays, class Out>
struct packet_kernel {
  using value_type = std::uint64_t[];
  unsigned value_count = 5;
  bvh_view<Mem> b;
  Rays rays;
  Out out;
  trace_options opt;
  index_t n;
  KOKKOS_INLINE_FUNCTION void operator()(const index_t k, value_type s) const {
    packet<L> p;
    const index_t first = k * L;
    p.size = int(n - first < L ? n - first : L);
    std::uint64_t mask = 0;
    for (int i = 0; i < p.size; ++i) {
      const ray& q = rays(first + i);
      p.r[i] = ray_setup(q);
      p.h[i] = hit{q.tmax, 0, 0, -1};
      if (q.tmin <= q.tmax) mask |= std::uint64_t(1) << i;
    }
    p.prepare();
    counters c;
    if (mask) walk_packet<L, Any, Reorder>(b, p, 0, mask, opt, c);
    for (int i = 0; i < p.size; ++i) store(first + i, p.h[i]);
    s[0] += c.tests, s[1] += c.lanes, s[2] += c.active, s[3] += c.compactions, s[4] += c.singles;
  }
  KOKKOS_INLINE_FUNCTION void store(index_t i, const hit& h) const {
    if constexpr (Any) out(i) = h.prim >= 0 ? 1 : 0;
    else out(i) = h.prim >= 0 ? h : hit{};
  }
};

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
  trace_stats st;
  st.rays = std::uint64_t(n);
  if (n == 0) return st;
  const bvh_view<Mem> b{tree.nodes(), tree.wide_nodes(), tree.triangles(), tree.primitive_ids()};
  if (opt.mode == trace_mode::single) {
    Kokkos::parallel_for(std::string(where) + "::single",
                         Kokkos::RangePolicy<ExecSpace, Kokkos::Schedule<Kokkos::Dynamic>>(space, 0, n),
                         single_kernel<Any, Mem, Rays, Out>{b, rays, out});
    return st;
  }
  Kokkos::View<std::uint64_t*, Kokkos::HostSpace> s("sweep::raytrace::stats", 5);
  const index_t packets = (n + L - 1) / L;
  auto run = [&](auto lanes, auto reorder) {
    constexpr int W = decltype(lanes)::value;
    constexpr bool R = decltype(reorder)::value;
    Kokkos::parallel_reduce(std::string(where) + "::packets",
                            Kokkos::RangePolicy<ExecSpace, Kokkos::Schedule<Kokkos::Dynamic>>(space, 0, packets),
                            packet_kernel<W, Any, R, Mem, Rays, Out>{5, b, rays, out, opt, n}, s);
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
