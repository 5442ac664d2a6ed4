// Choosing the scan network a team runs over its partials, by a cost model.
//
//   double sweep::network_cost(net, costs [, index_map]);
//   sweep::scan_network sweep::choose_team_network(team_size, costs [, index_map]);
//   sweep::scan_network sweep::choose_team_network(candidates, costs [, index_map]);
//   sweep::network_costs sweep::tuned_network_costs<S>();
//   sweep::team_network<S> sweep::make_team_network<S>(team_size);   (team_scan.hpp)
//   sweep::team_network<S> sweep::make_team_network<S>(team_size, costs [, index_map]);
//
// The model: cost = depth x costs.step + size x costs.op + bank_conflicts x
// costs.conflict, where `step` is the time of one step of a team scan (two
// team barriers and the operation's latency: every thread does at most one
// operation per step), `op` the time one more operation adds (issue slots
// shared by the team's threads) and `conflict` the time of one extra
// shared-memory transaction (bank_conflicts() under index_map; 0 on hosts).
// The constants belong to a machine: benchmarks/bench_team_network.cpp
// measures them (its team_network/constants rows time a team barrier and
// one operation; its fit rows time team scans through every candidate and
// fit step and op by least squares), and tuning<S>::team_network holds the
// figures for each kind of space (tuned_network_costs<S>()). The automatic
// choice, make_team_network<S>(team_size), and the team kernels inside
// Sweep's own scans use those figures; the choice per (team size, costs)
// is made once per process and kept.
//
// Candidates: the five generators and, for team sizes up to 64, the
// networks synthesize_network() finds at every depth from ceil(log2 n) to
// 2 ceil(log2 n) (node budget 100000 each, so a candidate may be the best
// found rather than the optimum). The cheapest wins; ties go to fewer
// steps, then to the earlier candidate. Every candidate passes
// verify_prefix(), so with an exact operator every choice gives the same
// results.
//
// Errors: std::invalid_argument for team_size < 1, a negative cost or an
// empty candidate list.
// Cost: up to 2 log2 n synthesis searches (milliseconds to about a second).
#pragma once

#include <sweep/scan_network.hpp>
#include <sweep/scan_network_synthesis.hpp>
#include <sweep/tuning.hpp>

#include <functional>
#include <map>
#include <mutex>
#include <tuple>
#include <vector>

namespace sweep {

struct network_costs {
  double step = 1.0;      ///< time per step (barriers and one operation's latency)
  double op = 0.0;        ///< time per operation
  double conflict = 0.0;  ///< time per extra shared-memory transaction
};

inline double network_cost(const scan_network& net, const network_costs& costs,
                           const std::function<std::int64_t(std::int64_t)>& map = plain_index) {
  const double conflicts = costs.conflict == 0.0 ? 0.0 : static_cast<double>(bank_conflicts(net, map));
  return static_cast<double>(net.depth()) * costs.step + static_cast<double>(net.size()) * costs.op +
         conflicts * costs.conflict;
}

/// The networks choose_team_network() compares for `team_size` wires.
inline std::vector<scan_network> team_network_candidates(std::int32_t team_size) {
  detail::require(team_size >= 1, "sweep::team_network_candidates", "team_size is ", team_size,
                  "; it must be positive");
  std::vector<scan_network> out;
  for (auto kind : {network_kind::kogge_stone, network_kind::sklansky, network_kind::brent_kung,
                    network_kind::brent_kung_radix3, network_kind::ladner_fischer})
    out.push_back(make_scan_network(kind, team_size));
  if (team_size <= 64) {
    std::int32_t low = 0;
    while ((std::int64_t(1) << low) < team_size) ++low;
    for (std::int32_t depth = low; depth <= 2 * low; ++depth) {
      synthesis_constraints c;
      c.max_depth = depth;
      c.node_budget = 100'000;
      auto r = synthesize_network(team_size, c);
      if (r.network) out.push_back(std::move(*r.network));
    }
  }
  return out;
}

namespace detail {
inline void require_network_costs(const network_costs& costs) {
  require(costs.step >= 0 && costs.op >= 0 && costs.conflict >= 0, "sweep::choose_team_network", "costs are step ",
          costs.step, ", op ", costs.op, ", conflict ", costs.conflict, "; none may be negative");
}
}  // namespace detail

/// The one of `candidates` with the smallest network_cost() (ties: fewer
/// steps, then the earlier one): one set of candidates compared under
/// several costs without synthesising them again.
inline scan_network choose_team_network(const std::vector<scan_network>& candidates, const network_costs& costs,
                                        const std::function<std::int64_t(std::int64_t)>& map = plain_index) {
  detail::require_network_costs(costs);
  detail::require(!candidates.empty(), "sweep::choose_team_network", "no candidates to choose from");
  std::size_t best = 0;
  double best_cost = network_cost(candidates[0], costs, map);
  for (std::size_t k = 1; k < candidates.size(); ++k) {
    const double cost = network_cost(candidates[k], costs, map);
    if (cost < best_cost || (cost == best_cost && candidates[k].depth() < candidates[best].depth())) {
      best = k;
      best_cost = cost;
    }
  }
  return candidates[best];
}

/// The candidate for `team_size` wires (team_network_candidates) with the
/// smallest network_cost() (ties: fewer steps, then the earlier one).
inline scan_network choose_team_network(std::int32_t team_size, const network_costs& costs,
                                        const std::function<std::int64_t(std::int64_t)>& map = plain_index) {
  detail::require_network_costs(costs);
  return choose_team_network(team_network_candidates(team_size), costs, map);
}

/// The measured costs of ExecSpace's kind of space (tuning<S>::team_network).
template <class ExecSpace>
network_costs tuned_network_costs() {
  using t = typename tuning<ExecSpace>::team_network;
  return network_costs{t::step_ns, t::op_ns, t::conflict_ns};
}

namespace detail {
/// choose_team_network(team_size, costs) under the plain index mapping,
/// made once per (team_size, costs) in the process and kept.
inline const scan_network& chosen_team_network(std::int32_t team_size, const network_costs& costs) {
  static std::mutex lock;
  static std::map<std::tuple<std::int32_t, double, double, double>, scan_network> chosen;
  const auto key = std::make_tuple(team_size, costs.step, costs.op, costs.conflict);
  const std::lock_guard<std::mutex> guard(lock);
  auto at = chosen.find(key);
  if (at == chosen.end()) at = chosen.emplace(key, choose_team_network(team_size, costs)).first;
  return at->second;
}
}  // namespace detail

}  // namespace sweep
