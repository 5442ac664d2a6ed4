// sweep::choose_team_network: the cost formula; barrier-bound costs pick a
// minimum-depth network, operation-bound costs the smallest candidate, a
// conflict penalty a conflict-free one; every choice verified; the chosen
// network uploaded for team scans; the automatic choice under the space's
// measured costs (tuning<S>::team_network), made and uploaded once and
// kept; errors.
#include "test_support.hpp"

#include <sweep/team_network_choice.hpp>
#include <sweep/team_scan.hpp>

namespace {
/// The same operations in the same steps.
bool same_network(const sweep::scan_network& a, const sweep::scan_network& b) {
  if (a.steps.size() != b.steps.size()) return false;
  for (std::size_t s = 0; s < a.steps.size(); ++s) {
    if (a.steps[s].size() != b.steps[s].size()) return false;
    for (std::size_t k = 0; k < a.steps[s].size(); ++k)
      if (a.steps[s][k].dst != b.steps[s][k].dst || a.steps[s][k].src != b.steps[s][k].src) return false;
  }
  return true;
}
}  // namespace

TEST_CASE("network_cost is depth x step + size x op + conflicts x conflict") {
  const auto bk = sweep::make_scan_network(sweep::network_kind::brent_kung, 1024);
  const double conflicts = static_cast<double>(sweep::bank_conflicts(bk));
  CHECK(conflicts > 0);
  CHECK(sweep::network_cost(bk, {2.0, 0.5, 3.0}) == 2.0 * 19 + 0.5 * bk.size() + 3.0 * conflicts);
  CHECK(sweep::network_cost(bk, {0, 0, 1}, sweep::padded_index) ==
        static_cast<double>(sweep::bank_conflicts(bk, sweep::padded_index)));
}

TEST_CASE("the choice follows the costs") {
  for (std::int32_t n : {1, 2, 3, 8, 16, 24, 32, 64, 100}) {
    CAPTURE(n);
    std::size_t low = 0;
    while ((std::int64_t(1) << low) < n) ++low;
    const auto candidates = sweep::team_network_candidates(n);
    std::size_t smallest = candidates[0].size();
    for (const auto& c : candidates) smallest = std::min(smallest, c.size());

    // The candidates are synthesised once and compared under three costs;
    // choosing by team size compares the same candidates.
    const auto steps = sweep::choose_team_network(candidates, {1.0, 0.0, 0.0});
    const auto by_size = sweep::choose_team_network(n, {1.0, 0.0, 0.0});
    CHECK(same_network(by_size, steps));
    CHECK(sweep::verify_prefix(steps));
    CHECK(steps.depth() == low);

    const auto ops = sweep::choose_team_network(candidates, {0.0, 1.0, 0.0});
    CHECK(sweep::verify_prefix(ops));
    CHECK(ops.size() == smallest);
    CHECK(ops.size() <= sweep::make_scan_network(sweep::network_kind::brent_kung, n).size());

    // Steps first, operations break ties: a minimum-depth network no larger
    // than any other minimum-depth candidate.
    const auto both = sweep::choose_team_network(candidates, {1000.0, 1.0, 0.0});
    CHECK(both.depth() == low);
    for (const auto& c : candidates)
      if (c.depth() == low) CHECK(both.size() <= c.size());
  }
  // A heavy conflict penalty at 64 wires without padding: Kogge-Stone is
  // conflict-free, so the choice must be too.
  const auto cf = sweep::choose_team_network(64, {1.0, 0.0, 1e6});
  CHECK(sweep::bank_conflicts(cf) == 0);
}

TEST_CASE("make_team_network(team_size, costs) uploads the chosen network") {
  const sweep::network_costs costs{1.0, 0.01, 0.0};
  const auto chosen = sweep::choose_team_network(16, costs);
  const auto net = sweep::make_team_network<Kokkos::DefaultHostExecutionSpace>(16, costs);
  CHECK(net.wires == 16);
  CHECK(net.steps == static_cast<std::int32_t>(chosen.depth()));
  CHECK(net.dst.extent(0) == chosen.size());
}

TEST_CASE("the automatic team network is the choice under the space's measured costs") {
  using Host = Kokkos::DefaultHostExecutionSpace;
  const auto costs = sweep::tuned_network_costs<Host>();
  CHECK(costs.step > 0);
  CHECK(costs.op >= 0);
  for (std::int32_t n : {1, 2, 7, 16, 32, 256}) {
    CAPTURE(n);
    const auto chosen = sweep::choose_team_network(n, costs);
    const auto net = sweep::make_team_network<Host>(n);
    REQUIRE(net.wires == n);
    REQUIRE(net.steps == static_cast<std::int32_t>(chosen.depth()));
    std::size_t k = 0;
    bool same = net.dst.extent(0) == chosen.size();
    for (std::size_t s = 0; same && s < chosen.steps.size(); ++s) {
      same = net.begin(s) == static_cast<std::int32_t>(k);
      for (const auto& op : chosen.steps[s]) {
        same = same && net.dst(k) == op.dst && net.src(k) == op.src;
        ++k;
      }
    }
    CHECK(same);
    // Made once and kept: a second request gives the same network, and the
    // upload is kept too (the same device arrays, not a fresh copy).
    CHECK(&sweep::detail::chosen_team_network(n, costs) == &sweep::detail::chosen_team_network(n, costs));
    CHECK(sweep::make_team_network<Host>(n).begin.data() == net.begin.data());
  }
  // The scans' partials network is that same kept upload.
  CHECK(sweep::detail::make_partials_network<Host, 8>().begin.data() ==
        sweep::make_team_network<Host>(8).begin.data());
  CHECK_THROWS_AS(sweep::make_team_network<Host>(0), std::invalid_argument);
}

TEST_CASE("choose_team_network rejects bad arguments") {
  CHECK_THROWS_AS(sweep::choose_team_network(0, {}), std::invalid_argument);
  CHECK_THROWS_AS(sweep::choose_team_network(8, {-1.0, 0.0, 0.0}), std::invalid_argument);
  CHECK_THROWS_AS(sweep::choose_team_network(std::vector<sweep::scan_network>{}, {}), std::invalid_argument);
  CHECK_THROWS_AS(sweep::choose_team_network(sweep::team_network_candidates(4), {1.0, -1.0, 0.0}), std::invalid_argument);
  CHECK_THROWS_AS(sweep::team_network_candidates(-3), std::invalid_argument);
}
