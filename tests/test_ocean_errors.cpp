// Ocean: bad input raises std::invalid_argument naming what is wrong and
// leaves the caller's grids untouched; a solve that cannot converge returns
// a status with the residual it reached instead of hanging or throwing.
#include "ocean_reference.hpp"
#include "test_support.hpp"

#include <sweep/ocean.hpp>

#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>

using namespace sweep_test;
namespace so = sweep::ocean;

namespace {

constexpr double not_a_number = std::numeric_limits<double>::quiet_NaN();

}  // namespace

TEST_CASE_TEMPLATE("grid sizes must be 2^k + 2 and tiles powers of two", Space, SWEEP_TEST_SPACES) {
  using Grid = so::grid<typename Space::memory_space>;
  for (std::int64_t n : {-4, 0, 1, 2, 3, 5, 100, 257, 4097}) {
    CAPTURE(n);
    const auto msg = thrown([&] { Grid g("g", n); });
    CHECK(contains(msg, "n = " + std::to_string(n) + " is not 2^k + 2"));
  }
  for (std::int64_t n : {4, 6, 10, 258}) CHECK(thrown([&] { Grid g("g", n); }) == nothing_thrown);
  for (std::int64_t tile : {-8, 0, 1, 3, 12}) {
    CAPTURE(tile);
    CHECK(contains(thrown([&] { Grid g("g", 34, {so::layout::block_major, tile}); }),
                   "tile = " + std::to_string(tile) + " must be a power of two"));
  }
  CHECK(contains(thrown([&] { so::multigrid<Space> mg(100); }), "n = 100 is not 2^k + 2"));
  // assign checks its extents and writes nothing on failure.
  const field values = random_field(10, 1);
  auto g = make_grid<Space>(values, 10);
  Kokkos::View<double**, Kokkos::LayoutRight, Kokkos::HostSpace> wrong("wrong", 10, 9);
  CHECK(contains(thrown([&] { g.assign(wrong); }), "values are 10 x 9, the grid is 10 x 10"));
  CHECK(to_field(g) == values);
}

TEST_CASE_TEMPLATE("sweeps reject mismatched grids and bad coefficients without writing", Space, SWEEP_TEST_SPACES) {
  using Grid = so::grid<typename Space::memory_space>;
  Space space;
  const field u0 = random_field(34, 2), f0 = random_field(34, 3);
  auto u = make_grid<Space>(u0, 34);
  auto f = make_grid<Space>(f0, 34);
  auto small = make_grid<Space>(random_field(18, 4), 18);
  auto blocked = make_grid<Space>(f0, 34, {so::layout::block_major, 8});
  Grid out("out", 34), empty;

  CHECK(contains(thrown([&] { so::red_black_sweep(space, u, small); }), "grids differ in size or layout"));
  CHECK(contains(thrown([&] { so::red_black_sweep(space, u, blocked); }), "grids differ in size or layout"));
  CHECK(contains(thrown([&] { so::red_black_sweep(space, empty, f); }), "the grid is empty"));
  CHECK(contains(thrown([&] { so::red_black_sweep(space, u, u); }), "u and f must be different grids"));
  for (double omega : {0.0, -1.0, 2.0, 2.5, not_a_number}) {
    CAPTURE(omega);
    so::sweep_options o;
    o.omega = omega;
    CHECK(contains(thrown([&] { so::red_black_sweep(space, u, f, {}, o); }), "must lie in (0, 2)"));
    CHECK(contains(thrown([&] { so::jacobi_sweep(space, u, out, f, {}, o); }), "must lie in (0, 2)"));
  }
  so::sweep_options negative;
  negative.strip_rows = -1;
  CHECK(contains(thrown([&] { so::red_black_sweep(space, u, f, {}, negative); }), "must be >= 0"));
  CHECK(contains(thrown([&] { so::red_black_sweep(space, u, f, so::helmholtz{-1.0, 1.0}); }),
                 "lambda = -1 must be finite and >= 0"));
  CHECK(contains(thrown([&] { so::red_black_sweep(space, u, f, so::helmholtz{not_a_number, 1.0}); }), "lambda = nan"));
  CHECK(contains(thrown([&] { so::residual(space, u, f, out, so::helmholtz{0.0, 0.0}); }),
                 "length = 0 must be finite and > 0"));
  CHECK(contains(thrown([&] { so::jacobi_sweep(space, u, u, f); }), "out must be a grid other than u and f"));
  CHECK(contains(thrown([&] { so::residual(space, u, f, f); }), "r must be a grid other than u and f"));
  CHECK(contains(thrown([&] { so::residual(space, u, f, small); }), "grids differ"));
  CHECK(contains(thrown([&] { so::arakawa_jacobian(space, u, f, u); }), "out must be a grid other than a and b"));
  CHECK(to_field(u) == u0);
  CHECK(to_field(f) == f0);
}

TEST_CASE_TEMPLATE("multigrid checks its options and reports non-convergence and divergence", Space,
                   SWEEP_TEST_SPACES) {
  Space space;
  const std::int64_t n = 66;
  const field u0 = random_field(n, 5), f0 = random_field(n, 6);
  auto u = make_grid<Space>(u0, n);
  auto f = make_grid<Space>(f0, n);
  so::multigrid<Space> mg(n);
  for (double tol : {0.0, -1e-7, not_a_number}) {
    CAPTURE(tol);
    so::solve_options o;
    o.tolerance = tol;
    CHECK(contains(thrown([&] { mg.solve(space, u, f, o); }), "tolerance = "));
  }
  so::solve_options zero_cycles;
  zero_cycles.max_cycles = 0;
  CHECK(contains(thrown([&] { mg.solve(space, u, f, zero_cycles); }), "max_cycles = 0 must be >= 1"));
  auto other = make_grid<Space>(random_field(34, 7), 34);
  CHECK(contains(thrown([&] { mg.solve(space, other, other); }), "grids differ"));
  auto blocked = make_grid<Space>(u0, n, {so::layout::block_major, 16});
  CHECK(contains(thrown([&] { mg.v_cycle(space, blocked, f); }), "grids differ"));
  so::multigrid_options bad;
  bad.pre_sweeps = -1;
  CHECK(contains(thrown([&] { so::multigrid<Space> m(n, {}, bad); }), "pre_sweeps = -1"));
  bad = {};
  bad.pre_sweeps = bad.post_sweeps = 0;
  CHECK(contains(thrown([&] { so::multigrid<Space> m(n, {}, bad); }), "pre + post >= 1"));
  CHECK(to_field(u) == u0);

  // Cannot reach 1e-15 in one cycle: not converged, with what it reached.
  so::solve_options one;
  one.tolerance = 1e-15;
  one.max_cycles = 1;
  const auto st = mg.solve(space, u, f, one);
  CHECK(st.result == so::solve_result::not_converged);
  CHECK(st.cycles == 1);
  CHECK(st.history.size() == 1);
  CHECK(st.relative_residual > 1e-15);
  CHECK(st.relative_residual < 0.2);
  CHECK(st.residual == doctest::Approx(st.relative_residual * st.reference));

  // NaN in the right-hand side: diverged at once, no hang, no throw.
  field poisoned = f0;
  poisoned[std::size_t(n * 10 + 10)] = not_a_number;
  auto fp = make_grid<Space>(poisoned, n);
  const auto bad_st = mg.solve(space, u, fp);
  CHECK(bad_st.result == so::solve_result::diverged);
  CHECK(!bad_st.converged());
  CHECK(std::string(so::to_string(bad_st.result)) == "diverged");
}

TEST_CASE_TEMPLATE("the model rejects bad parameters", Space, SWEEP_TEST_SPACES) {
  Space space;
  using P = so::model_parameters;
  auto error_with = [&](auto edit) {
    P p;
    p.n = 34;
    edit(p);
    return thrown([&] { so::qg_model<Space> m(space, p); });
  };
  CHECK(contains(error_with([](P& p) { p.n = 100; }), "n = 100 is not 2^k + 2"));
  CHECK(contains(error_with([](P& p) { p.dt = -0.1; }), "dt = -0.1 must be finite and >= 0"));
  CHECK(contains(error_with([](P& p) { p.viscosity = not_a_number; }), "viscosity = nan"));
  CHECK(contains(error_with([](P& p) { p.robert = 0.5; }), "robert = 0.5 must lie in [0, 0.5)"));
  CHECK(contains(error_with([](P& p) { p.solver.tolerance = 0; }), "solver tolerance = 0"));
  CHECK(contains(error_with([](P& p) { p.solver.max_cycles = 0; }), "max_cycles = 0"));
  CHECK(error_with([](P&) {}) == nothing_thrown);
  P p;
  p.n = 34;
  so::qg_model<Space> m(space, p);
  CHECK(m.parameters().dt > 0);
  CHECK(m.parameters().dt == so::qg_model<Space>::stable_dt(p));
  auto wrong = make_grid<Space>(random_field(18, 9), 18);
  CHECK(contains(thrown([&] { m.set_vorticity(wrong); }), "the grid must be 34 x 34"));
}
