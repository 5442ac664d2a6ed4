// Ray traversal of the BVHs: closest hits (intersect) and any hits
// (occluded) of a batch of rays, as single rays (raytrace/single_ray.hpp)
// or packets (raytrace/packet_walk.hpp), on any space through its packet
// backend (raytrace/packet_backend.hpp; SSE and AVX-512 lanes on x86 hosts).
// The options are raytrace/trace_options.hpp's.
//
// Results do not depend on the mode, the packet size or the lanes: every
// (ray, triangle) pair yields the same distance, and ties go to the lower
// primitive (geometry.hpp).
//
// Errors (std::invalid_argument, nothing written): a result View shorter
// than the rays; packet_size not 0, 8, 16, 32 or 64; compact_below outside
// [0, 1]; single_below outside [0, packet size]; isa = avx512 where this
// build or CPU (or SWEEP_HOST_ISA) does not allow it.
#pragma once

#include <sweep/core.hpp>
#include <sweep/tuning.hpp>
#include <sweep/raytrace/bvh.hpp>
#include <sweep/raytrace/packet_backend.hpp>
#include <sweep/raytrace/trace_options.hpp>

#include <Kokkos_Core.hpp>

#include <cstdint>
#include <string>
#include <type_traits>

namespace sweep::raytrace {

/// True when packets can run with `isa` here (baseline and automatic always can).
inline bool isa_available(trace_isa isa) {
  return detail::packet_backend<Kokkos::DefaultHostExecutionSpace>::lanes_available(isa);
}

/// The lanes packets run with when `isa` is asked for: `isa` itself, or for
/// `automatic` the widest this build and CPU have (avx512, avx2, baseline).
inline trace_isa packet_isa(trace_isa isa) {
  if (isa != trace_isa::automatic) return isa;
  for (trace_isa wide : {trace_isa::avx512, trace_isa::avx2})
    if (isa_available(wide)) return wide;
  return trace_isa::baseline;
}

/// The packet size trace() uses on ExecSpace for `opt` (packet_size, or
/// the space's tuning when it is 0): what a caller ordering rays into
/// packets (render.hpp's pixel tiles) needs.
template <class ExecSpace>
int resolved_packet_size(const trace_options& opt) {
  return opt.packet_size > 0 ? opt.packet_size : tuning<ExecSpace>::raytrace::packet_size;
}

namespace detail {

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
  using backend = packet_backend<ExecSpace>;
  const int L = resolved_packet_size<ExecSpace>(opt);
  sweep::detail::require(L == 8 || L == 16 || L == 32 || L == 64, where, "packet_size = ", opt.packet_size,
                         " must be 0 (the space's default), 8, 16, 32 or 64");
  sweep::detail::require(opt.compact_below >= 0 && opt.compact_below <= 1, where, "compact_below = ",
                         opt.compact_below, " must be in [0, 1]");
  sweep::detail::require(opt.single_below >= 0 && opt.single_below <= L, where, "single_below = ",
                         opt.single_below, " must be in [0, packet_size]");
  sweep::detail::require(isa_available(opt.isa), where, "isa = ", to_string(opt.isa),
                         " is not available: this build or this CPU lacks ",
                         opt.isa == trace_isa::avx2 ? "AVX2" : "AVX-512F");
  trace_stats st;
  st.rays = std::uint64_t(n);
  if (n == 0) return st;
  static_assert(bvh_view<Mem>::wide_width == bvh<ExecSpace>::wide_width,
                "sweep::raytrace: the wide BVH's width is the same for the space and its memory");
  const bvh_view<Mem> b{tree.nodes(), tree.wide_nodes(), tree.triangles(), tree.primitive_ids(), tree.triangle_blocks(),
                        tree.leaf_blocks()};
  const trace_isa isa = sweep::detail::is_host_space_v<ExecSpace> ? packet_isa(opt.isa) : trace_isa::baseline;
  const bool single =
      opt.mode == trace_mode::single || (opt.mode == trace_mode::automatic && !tuning<ExecSpace>::raytrace::automatic_packets);
  if (single) {
    backend::template run_single<Any>(std::string(where), space, n, b, rays, out, isa);
    return st;
  }
  Kokkos::View<std::uint64_t*, Kokkos::HostSpace> s("sweep::raytrace::stats", 5);
  const index_t packets = (n + L - 1) / L;
  auto run = [&](auto lanes, auto reorder) {
    backend::template run_packets<decltype(lanes)::value, Any, decltype(reorder)::value>(
        std::string(where), space, packets, b, rays, out, opt, n, isa, s);
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
