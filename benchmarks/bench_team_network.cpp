// bench_team_network: one team scan of team_size partials (one int64 per
// thread, sum) through each scan network, rows
// team_network/<network>/<team_size>, network: none (one thread scans the
// partials), the five generators, and synth_d<depth> (synthesize_network()
// at each depth from ceil(log2 n) to 2 ceil(log2 n)). Each team runs
// `reps` scans back to back; as many teams run as the space holds at once,
// so the manual time / reps is one scan's latency (counter ns_per_scan).
// Counters depth, size and conflicts (bank_conflicts, plain index) let the
// cost model's constants be fitted: team_network/fit/<team_size> times the
// networks again and fits ns = c0 + depth x step + size x op by least
// squares (counters step_ns, op_ns; needs team sizes >= 8, where the
// networks differ). Team sizes: 2, 4, ..., 256 up to the space's
// team_size_max (a host space's thread count).
#include "common/bench_support.hpp"

#include <sweep/team_network_choice.hpp>
#include <sweep/team_scan.hpp>

#include <array>
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

namespace {
using namespace sweep_bench;
constexpr int reps = 32;

using Policy = Kokkos::TeamPolicy<Space>;

int max_team_size() {
  Policy probe(Space(), 1, 1);
  return probe.team_size_max(KOKKOS_LAMBDA(const Policy::member_type&) {}, Kokkos::ParallelForTag());
}

/// Runs `reps` team scans per team through `net` (nullptr: none); returns
/// the seconds of one launch.
double launch(const sweep::scan_network* net, int team_size) {
  const int league = std::max(1, static_cast<int>(Space().concurrency()) / team_size);
  Kokkos::View<std::int64_t*, Space::memory_space> out("sweep::bench::team_network::out", league);
  const bool use_net = net != nullptr;
  const auto tnet = sweep::make_team_network<Space>(
      use_net ? *net : sweep::make_scan_network(sweep::network_kind::kogge_stone, team_size));
  Policy policy(Space(), league, team_size);
  policy.set_scratch_size(
      0, Kokkos::PerTeam(sizeof(std::int64_t) * team_size + reps * sweep::team_scan_scratch_size<std::int64_t>(team_size)));
  Space().fence();
  const auto t0 = std::chrono::steady_clock::now();
  Kokkos::parallel_for(
      "sweep::bench::team_network", policy, KOKKOS_LAMBDA(const Policy::member_type& team) {
        Kokkos::View<std::int64_t*, Space::scratch_memory_space, Kokkos::MemoryUnmanaged> data(
            team.team_scratch(0), team.team_size());
        std::int64_t acc = 0;
        for (int r = 0; r < reps; ++r) {
          data(team.team_rank()) = team.team_rank() + r;
          team.team_barrier();
          acc += use_net ? sweep::team_inclusive_scan(team, data, sweep::plus<std::int64_t>{}, tnet)
                         : sweep::team_inclusive_scan(team, data, sweep::plus<std::int64_t>{});
        }
        if (team.team_rank() == 0) out(team.league_rank()) = acc;
      });
  Space().fence();
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

constexpr int chain = 4096;

/// One launch of `league` teams: each thread runs `barriers` team barriers,
/// then a dependent chain of `ops` sums whose loads index team scratch by
/// the running value; returns the launch's seconds.
double launch_parts(int team_size, int barriers, int ops) {
  const int league = std::max(1, static_cast<int>(Space().concurrency()) / team_size);
  Kokkos::View<std::int64_t*, Space::memory_space> out("sweep::bench::team_network::out", league * team_size);
  Policy policy(Space(), league, team_size);
  policy.set_scratch_size(0, Kokkos::PerTeam(sizeof(std::int64_t) * team_size));
  Space().fence();
  const auto t0 = std::chrono::steady_clock::now();
  Kokkos::parallel_for(
      "sweep::bench::team_network::constants", policy, KOKKOS_LAMBDA(const Policy::member_type& team) {
        Kokkos::View<std::int64_t*, Space::scratch_memory_space, Kokkos::MemoryUnmanaged> data(
            team.team_scratch(0), team.team_size());
        data(team.team_rank()) = team.team_rank();
        for (int r = 0; r < barriers; ++r) team.team_barrier();
        const sweep::plus<std::int64_t> op;
        std::int64_t acc = team.team_rank();
        const std::int64_t mask = team.team_size() - 1;
        for (int k = 0; k < ops; ++k) acc = op(acc, data(acc & mask));
        out(team.league_rank() * team.team_size() + team.team_rank()) = acc;
      });
  Space().fence();
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

/// Fastest of 9 launches.
template <class F>
double best_of(F&& f) {
  double best = 1e30;
  for (int k = 0; k < 9; ++k) best = std::min(best, f());
  return best;
}

std::vector<std::pair<std::string, sweep::scan_network>> networks(int team_size) {
  std::vector<std::pair<std::string, sweep::scan_network>> out;
  for (auto kind : {sweep::network_kind::kogge_stone, sweep::network_kind::sklansky, sweep::network_kind::brent_kung,
                    sweep::network_kind::brent_kung_radix3, sweep::network_kind::ladner_fischer})
    out.emplace_back(sweep::to_string(kind), sweep::make_scan_network(kind, team_size));
  if (team_size <= 64) {
    int low = 0;
    while ((1 << low) < team_size) ++low;
    for (int d = low; d <= 2 * low; ++d) {
      sweep::synthesis_constraints c;
      c.max_depth = d;
      c.node_budget = 100'000;
      auto r = sweep::synthesize_network(team_size, c);
      if (r.network) out.emplace_back("synth_d" + std::to_string(d), *r.network);
    }
  }
  return out;
}

void counters(benchmark::State& state, const sweep::scan_network* net) {
  state.counters["ns_per_scan"] = benchmark::Counter(0);
  if (!net) return;
  state.counters["depth"] = static_cast<double>(net->depth());
  state.counters["size"] = static_cast<double>(net->size());
  state.counters["conflicts"] = static_cast<double>(sweep::bank_conflicts(*net));
}

/// The benchmark loop of one row: launches through `net` (nullptr: none),
/// counters, and ns_per_scan.
void time_scans(benchmark::State& state, const sweep::scan_network* net, int team_size) {
  launch(net, team_size);
  double total = 0;
  for (auto _ : state) {
    const double s = launch(net, team_size);
    state.SetIterationTime(s);
    total += s;
  }
  counters(state, net);
  state.counters["ns_per_scan"] = total / static_cast<double>(state.iterations()) / reps * 1e9;
}

/// Least squares of ns = c0 + depth x step + size x op (normal equations).
std::array<double, 3> fit(const std::vector<std::array<double, 4>>& rows) {
  double a[3][4] = {};
  for (const auto& r : rows) {
    const double x[3] = {1.0, r[0], r[1]};
    for (int i = 0; i < 3; ++i) {
      for (int j = 0; j < 3; ++j) a[i][j] += x[i] * x[j];
      a[i][3] += x[i] * r[2];
    }
  }
  for (int c = 0; c < 3; ++c) {
    int p = c;
    for (int i = c + 1; i < 3; ++i)
      if (std::abs(a[i][c]) > std::abs(a[p][c])) p = i;
    std::swap(a[c], a[p]);
    if (std::abs(a[c][c]) < 1e-12) return {NAN, NAN, NAN};
    for (int i = 0; i < 3; ++i)
      if (i != c) {
        const double f = a[i][c] / a[c][c];
        for (int j = c; j < 4; ++j) a[i][j] -= f * a[c][j];
      }
  }
  return {a[0][3] / a[0][0], a[1][3] / a[1][1], a[2][3] / a[2][2]};
}

}  // namespace

void sweep_bench::register_suite() {
  const int most = std::min(256, max_team_size());
  for (int ts = 2; ts <= most; ts *= 2) {
    register_row("team_network/none/" + std::to_string(ts), [ts](benchmark::State& state) {
      time_scans(state, nullptr, ts);
    });
    for (auto& [name, net] : networks(ts))
      register_row("team_network/" + name + "/" + std::to_string(ts), [ts, net = net](benchmark::State& state) {
        time_scans(state, &net, ts);
      });
    register_row("team_network/automatic/" + std::to_string(ts), [ts](benchmark::State& state) {
      time_scans(state, &sweep::detail::chosen_team_network(ts, sweep::tuned_network_costs<Space>()), ts);
    });
    register_row("team_network/constants/" + std::to_string(ts), [ts](benchmark::State& state) {
      const int barriers = 64 * reps;
      double barrier_ns = 0, op_ns = 0;
      for (auto _ : state) {
        const double empty = best_of([&] { return launch_parts(ts, 0, 0); });
        const double with_barriers = best_of([&] { return launch_parts(ts, barriers, 0); });
        const double with_ops = best_of([&] { return launch_parts(ts, 0, chain); });
        state.SetIterationTime(empty + with_barriers + with_ops);
        barrier_ns = std::max(0.0, with_barriers - empty) / barriers * 1e9;
        op_ns = std::max(0.0, with_ops - empty) / chain * 1e9;
      }
      state.counters["barrier_ns"] = barrier_ns;
      state.counters["op_ns"] = op_ns;
      state.counters["step_ns"] = 2 * barrier_ns + op_ns;
    });
    if (ts >= 8)
      register_row("team_network/fit/" + std::to_string(ts), [ts](benchmark::State& state) {
        const auto nets = networks(ts);
        std::vector<std::array<double, 4>> rows;
        for (auto _ : state) {
          double spent = 0;
          rows.clear();
          for (const auto& [name, net] : nets) {
            double best = 1e30;
            for (int k = 0; k < 5; ++k) best = std::min(best, launch(&net, ts));
            spent += best;
            rows.push_back({static_cast<double>(net.depth()), static_cast<double>(net.size()), best / reps * 1e9, 0});
          }
          state.SetIterationTime(spent);
        }
        const auto c = fit(rows);
        state.counters["c0_ns"] = c[0];
        state.counters["step_ns"] = c[1];
        state.counters["op_ns"] = c[2];
      });
  }
}
