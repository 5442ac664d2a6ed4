// Ocean: sweeps against a sequential reference (bit for bit on the host, so
// 1 and 2 threads give the same grids), layouts and schedules agreeing
// exactly, O(h^2) accuracy on a manufactured solution, multigrid's
// reduction per V-cycle, red-black and multigrid agreeing, and the model's
// conservation properties.
#include "ocean_reference.hpp"
#include "test_support.hpp"

#include <sweep/ocean.hpp>

#include <cmath>
#include <cstdio>
#include <numbers>

using namespace sweep_test;
namespace so = sweep::ocean;

namespace {

template <class Space>
constexpr bool host_space = Kokkos::SpaceAccessibility<Kokkos::HostSpace, typename Space::memory_space>::accessible;

/// Exact on the host; on a GPU the compiler may contract a * b + c into
/// FMAs, so device results match the reference to a few ulps only.
template <class Space>
void check_same(const field& got, const field& want, const char* what) {
  REQUIRE(got.size() == want.size());
  double worst = 0;
  std::size_t bad = 0;
  for (std::size_t k = 0; k < got.size(); ++k) {
    const double d = std::abs(got[k] - want[k]);
    if (d != 0) ++bad;
    worst = std::max(worst, d / std::max(1.0, std::abs(want[k])));
  }
  INFO(what << ": " << bad << " values differ, worst relative " << worst);
  if constexpr (host_space<Space>)
    CHECK(bad == 0);
  else
    CHECK(worst < 1e-13);
}

const so::grid_layout layouts[] = {{so::layout::row_major, 32},
                                   {so::layout::block_major, 2},
                                   {so::layout::block_major, 8},
                                   {so::layout::block_major, 32},
                                   {so::layout::block_major, 1024}};

}  // namespace

TEST_CASE_TEMPLATE("a new grid is zero everywhere, its padding included, in memory another grid used", Space,
                   SWEEP_TEST_SPACES) {
  // 1026^2 doubles (8.4 MB) span several 2 MiB pages, the size that asks
  // for huge pages. Each layout first fills and frees a grid of the same
  // size; once the allocator has raised its mmap threshold past that size
  // (glibc does after the first such block is freed), the next grid is
  // carved from that freed heap memory, so a grid that skipped its zero
  // fill would show the 7s.
  using memory = typename Space::memory_space;
  for (const auto& lay : {so::grid_layout{so::layout::row_major, 128}, so::grid_layout{so::layout::block_major, 128},
                          so::grid_layout{so::layout::block_major, 2}}) {
    {
      so::grid<memory> used("used", 1026, lay);
      Kokkos::deep_copy(used.data(), 7.0);
    }
    so::grid<memory> g("fresh", 1026, lay);
    const auto host = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), g.data());
    std::size_t nonzero = 0;
    for (std::size_t k = 0; k < host.extent(0); ++k) nonzero += host(k) != 0.0;
    INFO(so::to_string(lay.kind) << " tile " << lay.tile << ": " << host.extent(0) << " values");
    const std::int64_t t = lay.tile, tiles = (1026 + t - 1) / t;
    CHECK(host.extent(0) == std::size_t(lay.kind == so::layout::row_major ? 1026 * 1026 : tiles * tiles * t * t));
    CHECK(nonzero == 0);
  }
}

TEST_CASE_TEMPLATE("red-black and Jacobi sweeps and the residual equal the sequential reference", Space,
                   SWEEP_TEST_SPACES) {
  Space space;
  for (std::int64_t n : {4, 6, 10, 34, 130, 258}) {
    for (double lambda : {0.0, 3.5}) {
      const field f0 = random_field(n, 11 + n);
      const field u0 = random_field(n, 17 + n);
      const double length = 2.0;
      for (const auto& lay : layouts) {
        for (auto order : {so::schedule::fused, so::schedule::phased}) {
          for (std::int64_t strip : {0, 1, 2, 3, 7}) {
            if (order == so::schedule::phased && strip > 1) continue;
            CAPTURE(n);
            CAPTURE(lambda);
            CAPTURE(so::to_string(lay.kind));
            CAPTURE(lay.tile);
            CAPTURE(strip);
            CAPTURE(order == so::schedule::fused);
            auto u = make_grid<Space>(u0, n, lay);
            auto f = make_grid<Space>(f0, n, lay);
            field ref = u0;
            so::sweep_options o;
            o.omega = (strip + int(order == so::schedule::phased)) % 2 == 0 ? 1.0 : 1.3;  // GS and SOR
            o.order = order;
            o.strip_rows = strip;
            o.measure = so::norm::max;
            for (int s = 0; s < 3; ++s) {
              const auto want = red_black_reference(ref, f0, n, lambda, length, o.omega);
              const double got = so::red_black_sweep(space, u, f, so::helmholtz{lambda, length}, o);
              if constexpr (host_space<Space>) CHECK(got == want.max);
              else CHECK(got == doctest::Approx(want.max).epsilon(1e-12));
            }
            check_same<Space>(to_field(u), ref, "red-black");
            o.measure = so::norm::l2;
            const auto want = red_black_reference(ref, f0, n, lambda, length, o.omega);
            const double got = so::red_black_sweep(space, u, f, so::helmholtz{lambda, length}, o);
            CHECK(got == doctest::Approx(want.l2).epsilon(tolerance<double>(std::size_t(n * n))));
            check_same<Space>(to_field(u), ref, "red-black (l2)");
          }
        }
        // Jacobi: out = u + omega (gs - u) from the old values everywhere.
        auto u = make_grid<Space>(u0, n, lay);
        auto f = make_grid<Space>(f0, n, lay);
        so::grid<typename Space::memory_space> out("out", n, lay);
        so::sweep_options o;
        o.omega = 0.8;
        const double got = so::jacobi_sweep(space, u, out, f, so::helmholtz{lambda, length}, o);
        const double h = length / double(n - 1), h2 = h * h, inv_diag = 1.0 / (4.0 + lambda * h2);
        field want = u0;
        double worst = 0;
        for (std::int64_t i = 1; i < n - 1; ++i)
          for (std::int64_t j = 1; j < n - 1; ++j) {
            const std::int64_t p = i * n + j;
            const double gs = (u0[p - n] + u0[p + n] + u0[p - 1] + u0[p + 1] + h2 * f0[p]) * inv_diag;
            want[p] = u0[p] + o.omega * (gs - u0[p]);
            worst = std::max(worst, std::abs(want[p] - u0[p]));
          }
        check_same<Space>(to_field(out), want, "jacobi");
        CHECK(got == doctest::Approx(worst).epsilon(1e-12));
        // Residual.
        so::grid<typename Space::memory_space> r("r", n, lay);
        field r_ref;
        const double norm_ref = residual_reference(u0, f0, r_ref, n, lambda, length);
        const double norm = so::residual(space, u, f, r, so::helmholtz{lambda, length});
        check_same<Space>(to_field(r), r_ref, "residual");
        CHECK(norm == doctest::Approx(norm_ref).epsilon(tolerance<double>(std::size_t(n * n))));
      }
    }
  }
}

TEST_CASE_TEMPLATE("temporally blocked sweeps equal the sweeps one by one, bit for bit", Space, SWEEP_TEST_SPACES) {
  // red_black_sweeps takes rows through several half-steps in one
  // wavefront per strip and finishes the strips' seams afterwards: every
  // grid point must still get each sweep's update from the same values.
  Space space;
  for (std::int64_t n : {4, 6, 10, 34, 66, 130, 258}) {
    const field f0 = random_field(n, 31 + n);
    const field u0 = random_field(n, 37 + n);
    for (const auto& lay : {layouts[0], layouts[1], layouts[2], layouts[3]})
      for (std::int64_t strip : {0, 1, 5, 16, 40})
        for (int sweeps : {1, 2, 3, 4, 5, 9}) {
          if (n > 66 && strip > 0 && strip < 16) continue;  // the small strips on small grids suffice
          CAPTURE(n);
          CAPTURE(so::to_string(lay.kind));
          CAPTURE(strip);
          CAPTURE(sweeps);
          const so::helmholtz problem{sweeps % 2 == 0 ? 0.0 : 2.5, 1.5};
          so::sweep_options o;
          o.omega = sweeps % 3 == 0 ? 1.0 : 1.37;
          o.strip_rows = strip;
          auto u = make_grid<Space>(u0, n, lay), f = make_grid<Space>(f0, n, lay);
          auto v = make_grid<Space>(u0, n, lay);
          double want = 0;
          for (int s = 0; s < sweeps; ++s) want = so::red_black_sweep(space, v, f, problem, o);
          const double got = so::red_black_sweeps(space, u, f, problem, o, sweeps);
          check_same<Space>(to_field(u), to_field(v), "blocked sweeps");
          if constexpr (host_space<Space>) CHECK(got == want);  // the last sweep's max |du|
          else CHECK(got == doctest::Approx(want).epsilon(1e-12));
          // The L2 measure of the last of `sweeps` more (a sum: equal to rounding).
          o.measure = so::norm::l2;
          double want2 = 0;
          for (int s = 0; s < sweeps; ++s) want2 = so::red_black_sweep(space, v, f, problem, o);
          const double got2 = so::red_black_sweeps(space, u, f, problem, o, sweeps);
          CHECK(got2 == doctest::Approx(want2).epsilon(1e-12));
          check_same<Space>(to_field(u), to_field(v), "blocked sweeps (l2)");
        }
  }
  auto u = make_grid<Space>(random_field(10, 1), 10), f = make_grid<Space>(random_field(10, 2), 10);
  CHECK_THROWS_WITH_AS(so::red_black_sweeps(space, u, f, {}, {}, 0), doctest::Contains("sweeps = 0 must be >= 1"),
                       std::invalid_argument);
}

TEST_CASE_TEMPLATE("multigrid solves a manufactured problem with O(h^2) error", Space, SWEEP_TEST_SPACES) {
  Space space;
  const double pi = std::numbers::pi;
  for (double lambda : {0.0, 10.0}) {
    // u = sin(pi x) sin(pi y) + x^2 y: non-zero Dirichlet values on the ring.
    auto exact = [pi](double x, double y) { return std::sin(pi * x) * std::sin(pi * y) + x * x * y; };
    auto rhs = [&](double x, double y) {
      return 2 * pi * pi * std::sin(pi * x) * std::sin(pi * y) - 2 * y + lambda * exact(x, y);
    };
    std::vector<double> errors;
    for (std::int64_t n : {34, 66, 130, 258}) {
      CAPTURE(n);
      CAPTURE(lambda);
      const field want = sample(n, 1.0, exact);
      field u0(want.size(), 0.0);
      for (std::int64_t i = 0; i < n; ++i)
        for (std::int64_t j = 0; j < n; ++j)
          if (i == 0 || j == 0 || i == n - 1 || j == n - 1) u0[i * n + j] = want[i * n + j];
      auto u = make_grid<Space>(u0, n);
      auto f = make_grid<Space>(sample(n, 1.0, rhs), n);
      so::multigrid<Space> mg(n, so::helmholtz{lambda, 1.0});
      so::solve_options opt;
      opt.tolerance = 1e-10;
      const auto st = mg.solve(space, u, f, opt);
      REQUIRE(st.converged());
      CHECK(st.relative_residual <= 1e-10);
      CHECK(st.cycles <= 14);
      const field got = to_field(u);
      double err = 0;
      for (std::size_t k = 0; k < got.size(); ++k) err = std::max(err, std::abs(got[k] - want[k]));
      errors.push_back(err);
    }
    for (std::size_t k = 1; k < errors.size(); ++k) {
      // h shrinks by (2n - 3) / (n - 1) ~ 2: the error by ~4.
      INFO("errors " << errors[k - 1] << " -> " << errors[k]);
      CHECK(errors[k - 1] / errors[k] > 3.5);
      CHECK(errors[k - 1] / errors[k] < 4.5);
    }
    CHECK(errors.back() < 2e-5);
  }
}

TEST_CASE_TEMPLATE("each V-cycle reduces the residual at least 5x; red-black alone reaches the same solution", Space,
                   SWEEP_TEST_SPACES) {
  Space space;
  for (std::int64_t n : {6, 18, 66, 258, 514}) {
    for (double lambda : {0.0, 50.0}) {
      for (auto lay : {so::grid_layout{so::layout::row_major, 32}, so::grid_layout{so::layout::block_major, 16}}) {
        CAPTURE(n);
        CAPTURE(lambda);
        CAPTURE(so::to_string(lay.kind));
        auto u = make_grid<Space>(random_field(n, 5), n, lay);
        auto f = make_grid<Space>(random_field(n, 6), n, lay);
        so::multigrid_options mo;
        mo.layout = lay;
        so::multigrid<Space> mg(n, so::helmholtz{lambda, 1.0}, mo);
        so::solve_options opt;
        opt.tolerance = 1e-11;
        const auto st = mg.solve(space, u, f, opt);
        REQUIRE(st.converged());
        double prev = 1.0, worst = 0;
        for (double h : st.history) {
          worst = std::max(worst, h / prev);
          prev = h;
        }
        INFO("worst residual ratio per V-cycle " << worst << " over " << st.cycles << " cycles");
        CHECK(worst <= 0.2);
      }
    }
  }
  // Red-black SOR to convergence vs multigrid on the same problem.
  const std::int64_t n = 34;
  const field u0 = random_field(n, 7), f0 = random_field(n, 8);
  auto u_mg = make_grid<Space>(u0, n);
  auto u_gs = make_grid<Space>(u0, n);
  auto f = make_grid<Space>(f0, n);
  so::multigrid<Space> mg(n);
  so::solve_options opt;
  opt.tolerance = 1e-12;
  REQUIRE(mg.solve(space, u_mg, f, opt).converged());
  so::sweep_options o;
  o.omega = 2.0 / (1.0 + std::sin(std::numbers::pi / double(n - 1)));  // optimal SOR
  int sweeps = 0;
  while (so::red_black_sweep(space, u_gs, f, {}, o) > 1e-15 && sweeps < 20000) ++sweeps;
  CHECK(sweeps < 20000);
  const field a = to_field(u_mg), b = to_field(u_gs);
  double scale = 0, diff = 0;
  for (std::size_t k = 0; k < a.size(); ++k) {
    scale = std::max(scale, std::abs(a[k]));
    diff = std::max(diff, std::abs(a[k] - b[k]));
  }
  CHECK(diff <= 1e-10 * scale);
}

TEST_CASE_TEMPLATE("row-major and block-major layouts give identical V-cycles and model steps", Space,
                   SWEEP_TEST_SPACES) {
  Space space;
  const std::int64_t n = 130;
  const field u0 = random_field(n, 21), f0 = random_field(n, 22);
  std::vector<field> results, models;
  for (const auto& lay : layouts) {
    for (auto order : {so::schedule::fused, so::schedule::phased}) {
      auto u = make_grid<Space>(u0, n, lay);
      auto f = make_grid<Space>(f0, n, lay);
      so::multigrid_options mo;
      mo.layout = lay;
      mo.order = order;
      so::multigrid<Space> mg(n, so::helmholtz{2.0, 1.0}, mo);
      for (int c = 0; c < 2; ++c) mg.v_cycle(space, u, f);
      results.push_back(to_field(u));
    }
    so::model_parameters p;
    p.n = n;
    p.layout = lay;
    p.wind = 2e-3;
    p.deformation = 4.0;
    so::qg_model<Space> model(space, p);
    REQUIRE(model.set_vorticity(make_grid<Space>(random_field(n, 23, true), n, lay)).converged());
    for (int s = 0; s < 4; ++s) REQUIRE(model.step().converged());
    models.push_back(to_field(model.psi()));
  }
  for (std::size_t k = 1; k < results.size(); ++k) CHECK(results[k] == results[0]);
  for (std::size_t k = 1; k < models.size(); ++k) CHECK(models[k] == models[0]);
}

TEST_CASE_TEMPLATE("Arakawa's Jacobian keeps sum a J(a, b) and sum b J(a, b) at zero", Space, SWEEP_TEST_SPACES) {
  Space space;
  for (std::int64_t n : {6, 34, 130}) {
    for (bool b_ring : {false, true}) {
      CAPTURE(n);
      CAPTURE(b_ring);
      const field a0 = random_field(n, 31, true);  // a (psi) vanishes on the ring
      const field b0 = random_field(n, 32, !b_ring);
      auto a = make_grid<Space>(a0, n);
      auto b = make_grid<Space>(b0, n);
      so::grid<typename Space::memory_space> jac("jac", n);
      so::arakawa_jacobian(space, a, b, jac);
      const field j = to_field(jac);
      double sa = 0, sb = 0, scale = 0;
      for (std::size_t k = 0; k < j.size(); ++k) {
        sa += a0[k] * j[k];
        sb += b0[k] * j[k];
        scale += std::abs(j[k]);
      }
      REQUIRE(scale > 0);
      CHECK(std::abs(sa) <= 1e-13 * scale);  // energy
      if (!b_ring) CHECK(std::abs(sb) <= 1e-13 * scale);  // enstrophy
    }
  }
}

TEST_CASE_TEMPLATE("the unforced inviscid model conserves energy (and enstrophy without beta) to the time error",
                   Space, SWEEP_TEST_SPACES) {
  Space space;
  // A smooth vortex pair away from the walls.
  const std::int64_t n = 66;
  const field q0 = sample(n, 1.0, [](double x, double y) {
    auto bump = [](double x, double y, double cx, double cy) {
      return std::exp(-((x - cx) * (x - cx) + (y - cy) * (y - cy)) / 0.01);
    };
    return 50.0 * (bump(x, y, 0.4, 0.5) - 0.7 * bump(x, y, 0.6, 0.45));
  });
  for (double beta : {0.0, 1.0}) {
    // Drift over t in [0, 0.02] at dt and dt / 2: leapfrog's error is
    // O(dt^2), so a conserved quantity's drift must fall about 4x.
    double drift_e[2], drift_z[2];
    for (int k = 0; k < 2; ++k) {
      CAPTURE(beta);
      so::model_parameters p;
      p.n = n;
      p.beta = beta;
      p.wind = 0;
      p.friction = 0;
      p.viscosity = 0;
      p.robert = 0;  // the filter damps the computational mode, and with it energy
      p.dt = k == 0 ? 1e-3 : 5e-4;
      p.solver.tolerance = 1e-13;
      so::qg_model<Space> model(space, p);
      REQUIRE(model.set_vorticity(make_grid<Space>(q0, n)).converged());
      const auto d0 = model.diagnostics();
      const int steps = k == 0 ? 20 : 40;
      for (int s = 0; s < steps; ++s) REQUIRE(model.step().converged());
      const auto d1 = model.diagnostics();
      CHECK(model.time() == doctest::Approx(0.02));
      CHECK(d1.max_abs_psi > 0);
      drift_e[k] = std::abs(d1.energy - d0.energy) / d0.energy;
      drift_z[k] = std::abs(d1.enstrophy - d0.enstrophy) / d0.enstrophy;
    }
    INFO("beta " << beta << ": relative energy drift " << drift_e[0] << " -> " << drift_e[1] << ", enstrophy "
                 << drift_z[0] << " -> " << drift_z[1]);
    CHECK(drift_e[0] < 1e-5);
    CHECK(drift_e[0] / drift_e[1] > 3.0);
    if (beta == 0) {
      CHECK(drift_z[0] < 1e-4);
      CHECK(drift_z[0] / drift_z[1] > 3.0);
    }
  }
  // With wind the gyres spin up from rest.
  so::model_parameters w;
  w.n = 66;
  so::qg_model<Space> forced(space, w);
  REQUIRE(forced.set_vorticity(so::grid<typename Space::memory_space>("zero", w.n)).converged());
  CHECK(forced.diagnostics().max_abs_psi == 0);
  for (int s = 0; s < 10; ++s) REQUIRE(forced.step().converged());
  CHECK(forced.diagnostics().max_abs_psi > 0);
}

TEST_CASE_TEMPLATE("the README example runs as written", Space, SWEEP_TEST_SPACES) {
  Space space;
  const double pi = std::numbers::pi;
  const std::int64_t n = 258;
  typename so::grid<typename Space::memory_space>::host_view rhs_host("rhs", n, n);
  for (std::int64_t i = 0; i < n; ++i)
    for (std::int64_t j = 0; j < n; ++j)
      rhs_host(i, j) = 2 * pi * pi * std::sin(pi * double(j) / (n - 1)) * std::sin(pi * double(i) / (n - 1));
  {
    namespace so = sweep::ocean;
    // --- as in README.md
    so::grid<typename Space::memory_space> u("u", 258), f("f", 258);  // 2^k + 2 points per side
    f.assign(rhs_host);                    // any n x n row-major host array; u's ring holds the boundary values
    double change = so::red_black_sweep(space, u, f);       // one Gauss-Seidel sweep: max |du|
    so::multigrid<Space> mg(258, so::helmholtz{0.0, 1.0});  // -lap(u) + lambda u = f on [0, 1]^2
    so::solve_status st = mg.solve(space, u, f);            // V-cycles to ||r|| <= 1e-7 ||r0||
    if (!st.converged()) std::printf("%s: %g after %d cycles\n", so::to_string(st.result), st.relative_residual, st.cycles);
    // ---
    CHECK(change > 0);
    CHECK(st.converged());
    CHECK(st.relative_residual <= 1e-7);
    const auto got = u.to_host();
    CHECK(got(129, 129) == doctest::Approx(std::sin(pi * 129.0 / 257) * std::sin(pi * 129.0 / 257)).epsilon(1e-4));
  }
}
