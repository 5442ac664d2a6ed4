// sweep::team_inclusive_scan / team_exclusive_scan inside a TeamPolicy, with
// sum, with the non-commutative matrix monoid, and with floating-point sums,
// products and maxima (checked by scan_reference.hpp's rule), on team-sized
// and larger ranges.
#include "scan_reference.hpp"

#include <sweep/team_scan.hpp>

using namespace sweep_test;

template <class Space, class Op>
void check_team_scans(const Op& op, std::size_t per_team, int teams, std::uint64_t seed, int team_size = 0,
                      const sweep::network_kind* kind = nullptr) {
  using T = typename Op::value_type;
  using Policy = Kokkos::TeamPolicy<Space>;
  const std::size_t n = per_team * teams;
  auto x = random_values<T>(n, seed);
  for (bool exclusive : {false, true}) {
    auto data = to_device<Space>(x);
    Kokkos::View<T*, typename Space::memory_space> totals("totals", teams);
    const T init = exclusive ? x.empty() ? Op::identity() : x[0] : Op::identity();
    if (team_size == 0) {
      Policy probe(Space(), teams, Kokkos::AUTO);
      team_size = probe.team_size_recommended(KOKKOS_LAMBDA(const typename Policy::member_type&) {},
                                              Kokkos::ParallelForTag());
    }
    const bool use_net = kind != nullptr;
    auto net = sweep::make_team_network<Space>(use_net ? *kind : sweep::network_kind::kogge_stone, team_size);
    Policy policy(Space(), teams, team_size);
    policy.set_scratch_size(0, Kokkos::PerTeam(sweep::team_scan_scratch_size<T>(team_size)));
    Kokkos::parallel_for(
        "team_scan", policy, KOKKOS_LAMBDA(const typename Policy::member_type& team) {
          auto mine = Kokkos::subview(
              data, Kokkos::make_pair(team.league_rank() * per_team, (team.league_rank() + 1) * per_team));
          T total;
          if (use_net)
            total = exclusive ? sweep::team_exclusive_scan(team, mine, init, op, net)
                              : sweep::team_inclusive_scan(team, mine, op, net);
          else
            total = exclusive ? sweep::team_exclusive_scan(team, mine, init, op)
                              : sweep::team_inclusive_scan(team, mine, op);
          if (team.team_rank() == 0) totals(team.league_rank()) = total;
        });
    auto got = to_host(data);
    auto got_totals = to_host(totals);
    for (int t = 0; t < teams; ++t) {
      CAPTURE(t);
      CAPTURE(exclusive);
      const std::vector<T> piece(x.begin() + t * per_team, x.begin() + (t + 1) * per_team);
      const auto want = expect(piece, init, op, plain_reference(exclusive, false));  // total at per_team
      CHECK(want.ok(per_team, got_totals[t]));
      check_elements(std::vector<T>(got.begin() + t * per_team, got.begin() + (t + 1) * per_team), want, per_team);
    }
  }
}

TEST_CASE_TEMPLATE("team scans with any monoid", Space, SWEEP_TEST_SPACES) {
  for (std::size_t per_team : {1u, 7u, 32u, 100u, 1000u}) {
    CAPTURE(per_team);
    check_team_scans<Space>(sweep::plus<std::int64_t>{}, per_team, 13, per_team);
    check_team_scans<Space>(mat2_product{}, per_team, 9, per_team + 1);
  }
}

TEST_CASE_TEMPLATE("team scans of floating-point sums and products stay within the prefix-scaled bound", Space,
                   SWEEP_TEST_SPACES) {
  for (std::size_t per_team : {1u, 7u, 32u, 100u, 1000u, 5000u}) {
    CAPTURE(per_team);
    check_team_scans<Space>(sweep::plus<float>{}, per_team, 11, per_team + 2);
    check_team_scans<Space>(sweep::plus<double>{}, per_team, 7, per_team + 3);
    // Products of values in [-1, 1) leave double's range past ~700 factors.
    if (per_team <= 100) check_team_scans<Space>(sweep::multiplies<double>{}, per_team, 5, per_team + 4);
    check_team_scans<Space>(sweep::maximum<float>{}, per_team, 5, per_team + 5);
  }
}

TEST_CASE_TEMPLATE("team scans run their partials through any scan network", Space, SWEEP_TEST_SPACES) {
  using Policy = Kokkos::TeamPolicy<Space>;
  Policy probe(Space(), 1, 1);
  const int max_size = probe.team_size_max(KOKKOS_LAMBDA(const typename Policy::member_type&) {},
                                           Kokkos::ParallelForTag());
  for (auto kind : {sweep::network_kind::kogge_stone, sweep::network_kind::sklansky, sweep::network_kind::brent_kung,
                    sweep::network_kind::brent_kung_radix3, sweep::network_kind::ladner_fischer})
    for (int team_size : {1, 2, 3, 32, 96, 256}) {
      if (team_size > max_size) continue;
      CAPTURE(team_size);
      check_team_scans<Space>(mat2_product{}, 333, 5, 17, team_size, &kind);
      check_team_scans<Space>(sweep::plus<std::int64_t>{}, 1000, 3, 18, team_size, &kind);
    }
}
