// Variants of a prefix network (scan_network_variants.hpp): every variant
// (forward/backward x inclusive/exclusive x plain/segmented) of every
// generator's and of synthesized networks proven by symbolic execution for
// every head pattern; the proof rejecting broken networks; the host
// executor against the sequential references on random inputs for exact
// monoids including the 2x2 matrix one; and team scans through synthesized
// networks and without one (forward and backward, inclusive and exclusive
// with init, totals, segmented by the lifted operator) at every team size
// the space allows, for every monoid kind.
#include "scan_reference.hpp"
#include "segmented_reference.hpp"

#include <sweep/scan_network_synthesis.hpp>
#include <sweep/scan_network_variants.hpp>
#include <sweep/team_scan.hpp>

#include <cstdlib>

using namespace sweep_test;

namespace {

std::vector<sweep::network_variant> all_variants() {
  std::vector<sweep::network_variant> out;
  for (auto dir : {sweep::direction::forward, sweep::direction::backward})
    for (bool exclusive : {false, true})
      for (bool segmented : {false, true}) out.push_back({dir, exclusive, segmented});
  return out;
}

/// A synthesized network on n wires: one step above the minimum depth, the
/// search's best within a small budget.
sweep::scan_network synthesized(std::int32_t n) {
  std::int32_t depth = 0;
  while ((std::int64_t(1) << depth) < n) ++depth;
  sweep::synthesis_constraints c;
  c.max_depth = depth + 1;
  c.node_budget = 100'000;
  auto r = sweep::synthesize_network(n, c);
  REQUIRE(r.network);
  return *r.network;
}

/// The classic networks on n wires and a synthesized one.
std::vector<sweep::scan_network> networks(std::int32_t n) {
  std::vector<sweep::scan_network> out;
  for (auto kind : {sweep::network_kind::kogge_stone, sweep::network_kind::sklansky, sweep::network_kind::brent_kung,
                    sweep::network_kind::brent_kung_radix3, sweep::network_kind::ladner_fischer})
    out.push_back(sweep::make_scan_network(kind, n));
  out.push_back(synthesized(n));
  return out;
}

std::vector<char> random_heads(std::size_t n, std::uint64_t seed) {
  std::mt19937_64 gen(seed);
  std::vector<char> h(n);
  for (auto& b : h) b = gen() % 4 == 0;
  return h;
}

template <class Op>
void check_host_variants(const Op& op, std::uint64_t seed) {
  using T = typename Op::value_type;
  for (std::int32_t n : {1, 2, 5, 16, 33, 64}) {
    const auto x = random_values<T>(static_cast<std::size_t>(n), seed + n);
    const auto heads = random_heads(static_cast<std::size_t>(n), seed + n);
    const std::vector<bool> hb(heads.begin(), heads.end());
    const T init = random_values<T>(1, seed + 1000 + n)[0];
    for (const auto& net : networks(n))
      for (const auto& v : all_variants()) {
        const std::string kind = sweep::to_string(net.kind), variant = sweep::to_string(v);
        CAPTURE(n);
        CAPTURE(kind);
        CAPTURE(variant);
        const bool backward = v.direction == sweep::direction::backward;
        std::vector<T> want;
        if (v.segmented) reference_segmented_scan(x, hb, want, init, v.exclusive, backward, op);
        else reference_scan(x, want, init, v.exclusive, backward, op);
        CHECK(sweep::run_network_variant(net, v, x, op, init, heads) == want);
      }
  }
}

}  // namespace

TEST_CASE("every variant of every network is proven for every head pattern, n = 1..12") {
  for (std::int32_t n = 1; n <= 12; ++n)
    for (const auto& net : networks(n))
      for (const auto& v : all_variants()) {
        std::string why;
        CHECK_MESSAGE(sweep::verify_variant(net, v, &why), sweep::to_string(net.kind), " n=", n, ": ", why);
      }
}

TEST_CASE("the variant proof rejects broken networks") {
  auto net = sweep::make_scan_network(sweep::network_kind::ladner_fischer, 8);
  auto missing = net;
  missing.steps.back().pop_back();
  std::string why;
  for (const auto& v : all_variants()) {
    CHECK_FALSE(sweep::verify_variant(missing, v, &why));
    CHECK(why.find("element") != std::string::npos);
  }
  // Non-adjacent operands: wire 3 combining wire 0's input directly.
  auto skip = net;
  skip.steps[0][1] = {3, 0};
  CHECK_FALSE(sweep::verify_variant(skip, {sweep::direction::forward, false, true}, &why));
  CHECK(why.find("not adjacent") != std::string::npos);
  CHECK_THROWS_AS(sweep::verify_variant(sweep::reversed(net), {}), std::invalid_argument);
  CHECK_THROWS_AS(sweep::verify_variant(sweep::make_scan_network(sweep::network_kind::sklansky, 21),
                                        {sweep::direction::forward, false, true}),
                  std::invalid_argument);
  CHECK_THROWS_AS(sweep::run_network_variant(net, {}, std::vector<int>(7, 1), sweep::plus<int>{}),
                  std::invalid_argument);
  CHECK_THROWS_AS(sweep::run_network_variant(net, {sweep::direction::forward, false, true}, std::vector<int>(8, 1),
                                             sweep::plus<int>{}, 0, std::vector<char>(7, 0)),
                  std::invalid_argument);
}

TEST_CASE("reversed() gives the backward network of any network") {
  for (std::int32_t n : {1, 7, 16, 40}) {
    const auto back = sweep::reversed(synthesized(n));
    CHECK(back.direction == sweep::direction::backward);
    CHECK(sweep::verify_prefix(back));
    CHECK(sweep::reversed(back).direction == sweep::direction::forward);
  }
}

TEST_CASE("host variants equal the sequential references for exact monoids") {
  check_host_variants(sweep::plus<std::int64_t>{}, 1);
  check_host_variants(mat2_product{}, 2);
  check_host_variants(sweep::minimum<std::int32_t>{}, 3);
  check_host_variants(sweep::maximum<std::int32_t>{}, 4);
  check_host_variants(sweep::bit_xor<std::uint32_t>{}, 5);
  check_host_variants(sweep::bit_or<std::uint32_t>{}, 6);
  check_host_variants(sweep::multiplies<std::uint32_t>{}, 7);
}

namespace {

/// Team scans of `teams` pieces of per_team elements through `net` (width
/// team_size; with use_net false, the network-free form): forward and
/// backward, inclusive and exclusive with init, elements and returned
/// totals; and segmented inclusive (flagged values, lifted operator) when
/// the operator is exact.
template <class Space, class Op>
void check_team_variants(const Op& op, const sweep::scan_network& net, std::size_t per_team, int teams,
                         std::uint64_t seed, bool use_net = true) {
  using T = typename Op::value_type;
  using Policy = Kokkos::TeamPolicy<Space>;
  using sweep::direction;
  const int team_size = net.n;
  const std::size_t n = per_team * teams;
  const auto x = random_values<T>(n, seed);
  const T init = random_values<T>(1, seed + 1)[0];
  const auto tnet = sweep::make_team_network<Space>(net);
  Kokkos::View<T*, typename Space::memory_space> totals("sweep::test::team_totals", teams);
  for (bool backward : {false, true})
    for (bool exclusive : {false, true}) {
      auto data = to_device<Space>(x);
      Policy policy(Space(), teams, team_size);
      policy.set_scratch_size(0, Kokkos::PerTeam(sweep::team_scan_scratch_size<T>(team_size)));
      Kokkos::parallel_for(
          "sweep::test::team_variants", policy, KOKKOS_LAMBDA(const typename Policy::member_type& team) {
            auto mine = Kokkos::subview(
                data, Kokkos::make_pair(team.league_rank() * per_team, (team.league_rank() + 1) * per_team));
            T total;
            if (backward && exclusive)
              total = use_net ? sweep::team_exclusive_scan<direction::backward>(team, mine, init, op, tnet)
                              : sweep::team_exclusive_scan<direction::backward>(team, mine, init, op);
            else if (backward)
              total = use_net ? sweep::team_inclusive_scan<direction::backward>(team, mine, op, tnet)
                              : sweep::team_inclusive_scan<direction::backward>(team, mine, op);
            else if (exclusive)
              total = use_net ? sweep::team_exclusive_scan(team, mine, init, op, tnet)
                              : sweep::team_exclusive_scan(team, mine, init, op);
            else
              total = use_net ? sweep::team_inclusive_scan(team, mine, op, tnet) : sweep::team_inclusive_scan(team, mine, op);
            if (team.team_rank() == 0) totals(team.league_rank()) = total;
          });
      const auto got = to_host(data);
      const auto got_totals = to_host(totals);
      for (int t = 0; t < teams; ++t) {
        CAPTURE(t);
        CAPTURE(backward);
        CAPTURE(exclusive);
        const std::vector<T> piece(x.begin() + t * per_team, x.begin() + (t + 1) * per_team);
        const auto want =
            expect(piece, exclusive ? init : Op::identity(), op, plain_reference(exclusive, backward));
        std::vector<T> mine(got.begin() + t * per_team, got.begin() + (t + 1) * per_team);
        mine.push_back(got_totals[t]);  // the total is the reference's element per_team
        check_elements(mine, want, per_team + 1);
      }
    }
  if constexpr (!std::is_floating_point_v<T>) {
    using F = sweep::flagged<T>;
    const auto heads = random_heads(n, seed + 2);
    std::vector<F> fx(n);
    for (std::size_t i = 0; i < n; ++i) fx[i] = {x[i], heads[i] != 0};
    auto data = to_device<Space>(fx);
    const sweep::head_flagged<Op> lifted{op};
    Policy policy(Space(), teams, team_size);
    policy.set_scratch_size(0, Kokkos::PerTeam(sweep::team_scan_scratch_size<F>(team_size)));
    Kokkos::parallel_for(
        "sweep::test::team_segmented", policy, KOKKOS_LAMBDA(const typename Policy::member_type& team) {
          auto mine = Kokkos::subview(
              data, Kokkos::make_pair(team.league_rank() * per_team, (team.league_rank() + 1) * per_team));
          sweep::team_inclusive_scan(team, mine, lifted, tnet);
        });
    const auto got = to_host(data);
    for (int t = 0; t < teams; ++t) {
      const std::vector<T> piece(x.begin() + t * per_team, x.begin() + (t + 1) * per_team);
      const std::vector<bool> hb(heads.begin() + t * per_team, heads.begin() + (t + 1) * per_team);
      std::vector<T> want;
      reference_segmented_scan(piece, hb, want, Op::identity(), false, false, op);
      std::size_t bad = 0;
      for (std::size_t i = 0; i < per_team; ++i) bad += !(got[t * per_team + i].v == want[i]);
      CHECK_MESSAGE(bad == 0, "team ", t, ": ", bad, " wrong segmented elements");
    }
  }
}

}  // namespace

TEST_CASE_TEMPLATE("team scans through synthesized networks, every team size, every monoid kind", Space,
                   SWEEP_TEST_SPACES) {
  using Policy = Kokkos::TeamPolicy<Space>;
  Policy probe(Space(), 1, 1);
  const int max_size =
      probe.team_size_max(KOKKOS_LAMBDA(const typename Policy::member_type&) {}, Kokkos::ParallelForTag());
  if (const char* need = std::getenv("SWEEP_TEST_MIN_TEAM_SIZE")) CHECK(max_size >= std::atoi(need));
  for (int team_size = 1; team_size <= std::min(max_size, 64); ++team_size) {
    CAPTURE(team_size);
    const auto net = synthesized(team_size);
    check_team_variants<Space>(sweep::plus<std::int64_t>{}, net, 300, 3, 10 + team_size);
    check_team_variants<Space>(mat2_product{}, net, 200, 3, 20 + team_size);
    check_team_variants<Space>(sweep::minimum<std::int32_t>{}, net, 100, 2, 30 + team_size);
    check_team_variants<Space>(sweep::bit_xor<std::uint32_t>{}, net, 100, 2, 40 + team_size);
    check_team_variants<Space>(sweep::plus<double>{}, net, 300, 2, 50 + team_size);
    check_team_variants<Space>(sweep::maximum<float>{}, net, 100, 2, 60 + team_size);
    // The network-free forms (one thread scans the partials).
    check_team_variants<Space>(sweep::plus<std::int64_t>{}, net, 300, 3, 70 + team_size, false);
    check_team_variants<Space>(mat2_product{}, net, 200, 3, 80 + team_size, false);
  }
}

TEST_CASE("make_team_network rejects what is not a forward prefix network") {
  auto net = sweep::make_scan_network(sweep::network_kind::brent_kung, 8);
  CHECK_THROWS_AS(sweep::make_team_network<Kokkos::DefaultHostExecutionSpace>(sweep::reversed(net)),
                  std::invalid_argument);
  net.steps.pop_back();
  CHECK_THROWS_AS(sweep::make_team_network<Kokkos::DefaultHostExecutionSpace>(net), std::invalid_argument);
  CHECK_THROWS_AS(sweep::make_team_network<Kokkos::DefaultHostExecutionSpace>(sweep::scan_network{}),
                  std::invalid_argument);
}
