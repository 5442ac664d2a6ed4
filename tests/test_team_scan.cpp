// sweep::team_inclusive_scan / team_exclusive_scan inside a TeamPolicy, with
// sum and with the non-commutative matrix monoid, on team-sized and larger
// ranges.
#include "scan_reference.hpp"

#include <sweep/team_scan.hpp>

using namespace sweep_test;

template <class Space, class Op>
void check_team_scans(const Op& op, std::size_t per_team, int teams, std::uint64_t seed) {
  using T = typename Op::value_type;
  using Policy = Kokkos::TeamPolicy<Space>;
  const std::size_t n = per_team * teams;
  auto x = random_values<T>(n, seed);
  for (bool exclusive : {false, true}) {
    auto data = to_device<Space>(x);
    Kokkos::View<T*, typename Space::memory_space> totals("totals", teams);
    const T init = exclusive ? x.empty() ? Op::identity() : x[0] : Op::identity();
    Policy probe(Space(), teams, Kokkos::AUTO);
    const int team_size = probe.team_size_recommended(KOKKOS_LAMBDA(const typename Policy::member_type&) {},
                                                      Kokkos::ParallelForTag());
    Policy policy(Space(), teams, team_size);
    policy.set_scratch_size(0, Kokkos::PerTeam(sweep::team_scan_scratch_size<T>(team_size)));
    Kokkos::parallel_for(
        "team_scan", policy, KOKKOS_LAMBDA(const typename Policy::member_type& team) {
          auto mine = Kokkos::subview(
              data, Kokkos::make_pair(team.league_rank() * per_team, (team.league_rank() + 1) * per_team));
          const T total = exclusive ? sweep::team_exclusive_scan(team, mine, init, op)
                                    : sweep::team_inclusive_scan(team, mine, op);
          if (team.team_rank() == 0) totals(team.league_rank()) = total;
        });
    auto got = to_host(data);
    auto got_totals = to_host(totals);
    for (int t = 0; t < teams; ++t) {
      std::vector<T> piece(x.begin() + t * per_team, x.begin() + (t + 1) * per_team), want;
      const T want_total = reference_scan(piece, want, init, exclusive, false, op);
      CHECK(got_totals[t] == want_total);
      bool same = true;
      for (std::size_t i = 0; i < per_team; ++i) same = same && got[t * per_team + i] == want[i];
      CHECK_MESSAGE(same, "team ", t, " exclusive=", exclusive);
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
