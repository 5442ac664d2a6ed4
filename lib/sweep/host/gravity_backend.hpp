// The Barnes-Hut force walk on host spaces: groups of bodies share one
// walk and one interaction list, evaluated with a body per SIMD lane.
//
// The groups are the tree's: the largest subtrees of at most
// tuning<>::gravity::group_size bodies (or leaves), so a group is a compact
// piece of space and does not depend on the partition (a body's field is
// the same whatever thread computes it). A thread walks its partition's
// bodies in runs that fall in one group (cost zones and static keep the
// tree's order, ORB lists each partition in it); a run's walk tests nodes
// against its group's bounding box: a node whose centre of mass is farther than its opening
// radius from every point of the box is accepted for the whole group (its
// monopole and quadrupole join the node list), a leaf that is not goes to
// the body list with all its bodies, anything else is opened. Every body of
// the group then sums both lists (host/gravity_lanes.hpp): AVX-512 lanes
// (16 bodies for the nodes, in single precision relative to the group's
// centre; 8 for the bodies, in double), AVX2 (8 and 4) or SSE2 (4 and 2),
// as host::active_isa() allows; each lane does the same operations in the
// same order, so every level gives the same bits.
//
// A node accepted for the box is accepted by each body in it, so a body
// sees the nodes its own walk would accept or their descendants: the
// truncation bound of its field is no larger than the one-body walk's
// (and the measured errors smaller; theta = 0 opens everything: the direct
// sum). `cost` counts a body's list entries (itself
// excluded). Other compilers than GCC (clang, nvcc's host pass) take the
// portable walk.
#pragma once

#include <sweep/host/gravity_lanes.hpp>
#include <sweep/host/isa.hpp>
#include <sweep/nbody/gravity_backend.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <vector>

namespace sweep::nbody::detail {

#if SWEEP_HOST_SIMD

/// Appends to `lists` what the tree under `root` shows the bodies in
/// `group`: nodes accepted for the whole box, the bodies of the leaves that
/// are not (`self_points`: their tree points, else -1).
template <class Mem>
void gather_lists(const tree_walk<Mem>& t, std::int32_t root, const box& group, bool self_points,
                  interaction_lists& lists, std::vector<std::int32_t>& stack) {
  stack.clear();
  stack.push_back(root);
  while (!stack.empty()) {
    const std::int32_t id = stack.back();
    stack.pop_back();
    const tree_node& nd = t.nodes(id);
    if (box_distance2(group, nd.x, nd.y, nd.z) > nd.rcrit2) {
      lists.add_node(nd, t.quads(id));
    } else if (nd.child < 0) {
      for (std::int32_t j = nd.begin; j < nd.end; ++j) lists.add_body(t.points(j), self_points ? j : -1);
    } else {
      // Reverse order, so children are listed in Morton order.
      for (int c = nd.nchild - 1; c >= 0; --c) stack.push_back(nd.child + c);
    }
  }
}

/// The groups of a tree: the largest subtrees of at most `size` points (or
/// leaves), as point ranges in Morton order, each with the bounding box of
/// its points, and every point's group.
template <class Mem>
struct tree_groups {
  std::vector<index_t> begin, end;
  std::vector<box> bounds;
  std::vector<std::int32_t> of_point;

  template <class ExecSpace>
  void build(const ExecSpace& space, const tree_walk<Mem>& t, index_t size) {
    begin.clear(), end.clear();
    const index_t n = index_t(t.points.extent(0));
    of_point.resize(std::size_t(n));
    if (n == 0 || t.nodes.extent(0) == 0) return;
    std::vector<std::int32_t> stack{0};
    while (!stack.empty()) {
      const tree_node& nd = t.nodes(stack.back());
      stack.pop_back();
      if (nd.child < 0 || index_t(nd.end - nd.begin) <= size) {
        begin.push_back(nd.begin), end.push_back(nd.end);
      } else {
        for (int c = nd.nchild - 1; c >= 0; --c) stack.push_back(nd.child + c);
      }
    }
    bounds.resize(begin.size());
    box* out = bounds.data();
    std::int32_t* of = of_point.data();
    const index_t* gb = begin.data();
    const index_t* ge = end.data();
    const auto points = t.points;
    Kokkos::parallel_for(
        "sweep::nbody::walk_groups", Kokkos::RangePolicy<ExecSpace>(space, 0, index_t(begin.size())),
        [=](const index_t g) {
          box bx;
          for (int a = 0; a < 3; ++a) bx.lo[a] = __builtin_huge_val(), bx.hi[a] = -__builtin_huge_val();
          for (index_t j = gb[g]; j < ge[g]; ++j) {
            const point q = points(j);
            const double c[3] = {q.x, q.y, q.z};
            for (int a = 0; a < 3; ++a) bx.lo[a] = std::min(bx.lo[a], c[a]), bx.hi[a] = std::max(bx.hi[a], c[a]);
            of[j] = std::int32_t(g);
          }
          out[g] = bx;
        });
    space.fence();
  }
};

#endif

/// The host walk: grouped where the compiler builds the lanes (GCC), else
/// the portable one (one definition either way; `grouped` says which).
template <class ExecSpace>
struct gravity_backend<ExecSpace, sweep::detail::host_kind> {
  static constexpr bool grouped = SWEEP_HOST_SIMD != 0;

  template <class Mem>
  static void walk(const ExecSpace& space, const tree_walk<Mem>& local, const tree_walk<Mem>& remote,
                   const Kokkos::View<const std::int32_t*, Mem>& roots, const body_arrays<Mem>& b, double G,
                   const Kokkos::View<const index_t*, Mem>& offsets,
                   const Kokkos::View<const std::int32_t*, Mem>& slots) {
#if !SWEEP_HOST_SIMD
    gravity_backend<ExecSpace, void>::walk(space, local, remote, roots, b, G, offsets, slots);
#else
    const bool indirect = slots.extent(0) > 0;
    const int parts = int(offsets.extent(0)) - 1;
    static thread_local tree_groups<Mem> groups;  // kept, so a step allocates nothing
    groups.build(space, local, tuning<ExecSpace>::gravity::group_size);
    const box* gbox = groups.bounds.data();
    const std::int32_t* group_of = groups.of_point.data();
    const lanes_kernel kernel = lanes_for(sweep::host::active_isa());
    const double eps2 = local.eps2;
    // The far field's units (host/gravity_lanes.hpp): lengths per group,
    // from its extent, but at least 2^-20 of the largest root's edge; masses
    // from the largest root's mass.
    double edge = 0, mass = 0;
    if (local.nodes.extent(0) > 0) edge = local.nodes(0).edge, mass = local.nodes(0).m;
    for (index_t t = 0; t < index_t(roots.extent(0)); ++t)
      edge = std::max(edge, remote.nodes(roots(t)).edge), mass = std::max(mass, remote.nodes(roots(t)).m);
    const double shortest = std::ldexp(edge, -20), mass_unit = far_units::power_of_two_above(mass);
    const bool quadrupole = local.use_quadrupole;
    Kokkos::parallel_for(
        "sweep::nbody::tree_walk", Kokkos::TeamPolicy<ExecSpace>(space, parts, 1),
        [=](const typename Kokkos::TeamPolicy<ExecSpace>::member_type& team) {
          thread_local interaction_lists lists;
          thread_local std::vector<std::int32_t> stack;
          thread_local group_state g;
          const flush_subnormals flushed;  // restored when the partition is done
          const index_t p = team.league_rank(), stop = offsets(p + 1);
          const auto point_of = [&](index_t i) { return indirect ? index_t(slots(i)) : i; };
          // Runs of consecutive bodies of one tree group share its lists.
          for (index_t first = offsets(p); first < stop;) {
            const std::int32_t group = group_of[point_of(first)];
            index_t last = first + 1;
            while (last < stop && group_of[point_of(last)] == group) ++last;
            g.load(b, slots, indirect, first, last);
            const box& bx = gbox[group];
            const double centre[3] = {0.5 * (bx.lo[0] + bx.hi[0]), 0.5 * (bx.lo[1] + bx.hi[1]),
                                      0.5 * (bx.lo[2] + bx.hi[2])};
            const double extent = std::max({bx.hi[0] - bx.lo[0], bx.hi[1] - bx.lo[1], bx.hi[2] - bx.lo[2]});
            const far_units units{far_units::power_of_two_above(std::max(extent, shortest)), mass_unit};
            // Single-precision nodes first; double ones where those sums were not finite.
            for (bool precise : {false, true}) {
              lists.start(centre, units, precise);
              gather_lists(local, 0, bx, true, lists, stack);
              for (index_t t = 0; t < index_t(roots.extent(0)); ++t)
                gather_lists(remote, roots(t), bx, false, lists, stack);
              if (kernel(lists, g, eps2, quadrupole)) break;
            }
            for (index_t k = 0; k < last - first; ++k) {
              const index_t i = first + k;
              b.ax(i) = G * g.ax[std::size_t(k)], b.ay(i) = G * g.ay[std::size_t(k)], b.az(i) = G * g.az[std::size_t(k)];
              b.phi(i) = G * g.phi[std::size_t(k)];
              b.cost(i) = g.count[std::size_t(k)];
            }
            first = last;
          }
        });
    space.fence();  // the groups are reused by the next call
#endif
  }
};

}  // namespace sweep::nbody::detail
