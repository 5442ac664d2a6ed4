// Team-level scans with any monoid, for use inside a Kokkos::TeamPolicy
// kernel (Kokkos' own team scan is sum-only).
//
//   T sweep::team_inclusive_scan[<direction::backward>](team, data [, op [, net]]);
//   T sweep::team_exclusive_scan[<direction::backward>](team, data, init [, op [, net]]);
//   sweep::team_network<S> sweep::make_team_network<S>(team_size);
//
// `data` is a rank-1 View the whole team can read and write (team scratch or
// global memory); it is scanned in place by all threads of the team, which
// must all call. Returns the total (init (+) everything) to every thread.
// Each call takes sweep::team_scan_scratch_size<T>(team_size) bytes of the
// team's level-0 scratch: reserve that much per call with
// policy.set_scratch_size(0, Kokkos::PerTeam(...)). Work O(n + team_size).
// Backward scans (template argument sweep::direction::backward) run from
// the end: the inclusive one leaves data[i] = data[i] (+) ... (+) data[n-1],
// the exclusive one data[n-1] = init and data[i] = data[i+1] (+) ... (+)
// data[n-1] (+) init: init on the right, as in sweep::exclusive_scan with
// direction::backward.
// Without a network one thread scans the per-thread partials in order (one
// barrier; best for small teams). With a network (make_team_network: the
// automatic choice for a team size under the space's measured costs, a
// kind, or any forward prefix network such as synthesize_network()'s) the
// partials go through it, a step per barrier pair; backward scans run the
// same forward network over the reversed partials. Segmented team scans
// are team scans of sweep::flagged<T> values under sweep::head_flagged<Op>
// (scan_network_variants.hpp).
#pragma once

#include <sweep/detail/team_scan.hpp>
#include <sweep/monoid.hpp>
#include <sweep/team_network_choice.hpp>

#include <string>

namespace sweep {

/// Level-0 scratch bytes one team scan call needs.
template <class T>
constexpr std::size_t team_scan_scratch_size(int team_size) {
  return (detail::team_scan_scratch_elems<T>(team_size) + 1) * sizeof(T) + alignof(T) + 8;
}

/// A scan network uploaded for use inside kernels of ExecSpace: the team
/// scans below can run their per-thread partials through it (one wire per
/// thread; its width must equal the team size).
template <class ExecSpace>
using team_network = detail::network_view<typename ExecSpace::memory_space>;

template <class ExecSpace>
team_network<ExecSpace> make_team_network(network_kind kind, int team_size) {
  detail::require(team_size >= 1, "sweep::make_team_network", "team_size is ", team_size, "; it must be positive");
  return detail::upload_network<typename ExecSpace::memory_space>(make_scan_network(kind, team_size));
}

/// Uploads any forward prefix network (a generator's or one found by
/// synthesize_network()); its width must equal the team size of the
/// kernels that use it.
template <class ExecSpace>
team_network<ExecSpace> make_team_network(const scan_network& net) {
  std::string why;
  detail::require(net.direction == direction::forward, "sweep::make_team_network", "team networks run forward");
  detail::require(net.n >= 1, "sweep::make_team_network", "net has ", net.n, " wires; it needs at least 1");
  detail::require(verify_prefix(net, &why), "sweep::make_team_network", "net is not a prefix network: ", why);
  return detail::upload_network<typename ExecSpace::memory_space>(net);
}

/// The network choose_team_network() picks for `team_size` threads under
/// `costs`, uploaded for team scans of ExecSpace.
template <class ExecSpace>
team_network<ExecSpace> make_team_network(std::int32_t team_size, const network_costs& costs,
                                          const std::function<std::int64_t(std::int64_t)>& map = plain_index) {
  return make_team_network<ExecSpace>(choose_team_network(team_size, costs, map));
}

/// The automatic choice: the network choose_team_network() picks under
/// ExecSpace's measured costs (tuned_network_costs<ExecSpace>()), made and
/// uploaded once per team size and kept until Kokkos::finalize (the
/// returned View handles share that one copy, which Sweep's own scans use
/// too: read it, never write into it).
template <class ExecSpace>
team_network<ExecSpace> make_team_network(std::int32_t team_size) {
  detail::require(team_size >= 1, "sweep::make_team_network", "team_size is ", team_size, "; it must be positive");
  return detail::uploaded_team_network<ExecSpace>(team_size);
}

namespace detail {
template <bool Backward, class Team, class View, class Op, class Net = no_network, class T = typename Op::value_type>
KOKKOS_INLINE_FUNCTION T team_scan_view(const Team& team, const View& data, const T& init, bool exclusive,
                                        const Op& op, const Net& net = Net{}) {
  static_assert(is_rank1_view_v<View>, "sweep team scan: `data` must be a rank-1 Kokkos::View");
  using Scratch = Kokkos::View<T*, typename Team::scratch_memory_space, Kokkos::MemoryUnmanaged>;
  Scratch parts(team.team_scratch(0), team_scan_scratch_elems<T>(team.team_size()));
  const index_t n = static_cast<index_t>(data.extent(0));
  T total;
  if constexpr (Backward) {
    // A forward scan of the reversed sequence under the flipped operator.
    total = team_scan_range(
        team, n, flipped<Op>{op}, init, exclusive, [&](index_t i) { return T(data(n - 1 - i)); },
        [&](index_t i, const T& v) { data(n - 1 - i) = v; }, parts.data(), net);
  } else {
    total = team_scan_range(
        team, n, op, init, exclusive, [&](index_t i) { return T(data(i)); },
        [&](index_t i, const T& v) { data(i) = v; }, parts.data(), net);
  }
  team.team_barrier();
  return total;
}
}  // namespace detail

template <direction Dir = direction::forward, class Team, class View,
          monoid Op = plus<typename View::non_const_value_type>>
KOKKOS_INLINE_FUNCTION typename Op::value_type team_inclusive_scan(const Team& team, const View& data,
                                                                   const Op& op = Op{}) {
  return detail::team_scan_view<Dir == direction::backward>(team, data, Op::identity(), false, op);
}

template <direction Dir = direction::forward, class Team, class View,
          monoid Op = plus<typename View::non_const_value_type>>
KOKKOS_INLINE_FUNCTION typename Op::value_type team_exclusive_scan(const Team& team, const View& data,
                                                                   const typename Op::value_type& init,
                                                                   const Op& op = Op{}) {
  return detail::team_scan_view<Dir == direction::backward>(team, data, init, true, op);
}

/// As above, with the partials scanned by `net` (width = team size).
template <direction Dir = direction::forward, class Team, class View, monoid Op, class Mem>
KOKKOS_INLINE_FUNCTION typename Op::value_type team_inclusive_scan(const Team& team, const View& data, const Op& op,
                                                                   const detail::network_view<Mem>& net) {
  return detail::team_scan_view<Dir == direction::backward>(team, data, Op::identity(), false, op, net);
}

template <direction Dir = direction::forward, class Team, class View, monoid Op, class Mem>
KOKKOS_INLINE_FUNCTION typename Op::value_type team_exclusive_scan(const Team& team, const View& data,
                                                                   const typename Op::value_type& init, const Op& op,
                                                                   const detail::network_view<Mem>& net) {
  return detail::team_scan_view<Dir == direction::backward>(team, data, init, true, op, net);
}

}  // namespace sweep
