// Ocean against independent oracles: Arakawa's Jacobian by its defining
// properties (antisymmetry, zero domain sum, the energy and enstrophy sums,
// all to a rounding bound) and against the analytic Jacobian of smooth
// fields with second-order convergence; friction and viscosity by the
// analytic decay of one Fourier mode; a wind-forced run against the
// analytic steady state of Stommel's problem.
#include "ocean_reference.hpp"
#include "test_support.hpp"

#include <sweep/ocean.hpp>

#include <cmath>
#include <limits>
#include <numbers>
#include <vector>

using namespace sweep_test;
namespace so = sweep::ocean;

namespace {

constexpr double pi = std::numbers::pi;
constexpr double eps = std::numeric_limits<double>::epsilon();

template <class Space>
field jacobian(const field& a, const field& b, std::int64_t n, double length = 1.0) {
  Space space;
  auto ga = make_grid<Space>(a, n), gb = make_grid<Space>(b, n);
  so::grid<typename Space::memory_space> out("test::jacobian", n);
  so::arakawa_jacobian(space, ga, gb, out, length);
  return to_field(out);
}

double max_abs(const field& f) {
  double m = 0;
  for (double x : f) m = std::max(m, std::abs(x));
  return m;
}

bool interior(std::int64_t n, std::size_t k) {
  const auto i = std::int64_t(k) / n, j = std::int64_t(k) % n;
  return i > 0 && j > 0 && i < n - 1 && j < n - 1;
}

}  // namespace

// Rounding bound used below: J at a point is (1 / 12 h^2) times 12 products
// of a value of one field and a difference of the other (or of two
// differences), each of magnitude at most 2 max|a| max|b|, summed. Each
// product carries at most 2 eps of relative error (difference, product),
// and the sum of 12 terms 11 eps more, so the computed J is within
// 14 eps * 24 max|a| max|b| / (12 h^2) = 28 eps max|a| max|b| / h^2 of the
// exact value of the formula. The bounds use 32 eps max|a| max|b| / h^2.
TEST_CASE_TEMPLATE("Arakawa's Jacobian: antisymmetric, zero domain sum, sum a J = sum b J = 0, to rounding", Space,
                   SWEEP_TEST_SPACES) {
  for (std::int64_t n : {6, 34, 130}) {
    for (double length : {1.0, 3.0}) {
      CAPTURE(n);
      CAPTURE(length);
      const double h = length / double(n - 1);
      const field a = random_field(n, 101 + n, true);  // a (psi) vanishes on the ring
      const field b = random_field(n, 102 + n, true);
      const field b_ring = random_field(n, 103 + n, false);  // b free on the ring
      // c vanishes within one point of the walls: every term a_p b_q of a
      // point on the ring then has a factor c_p = 0, so the flux form sums
      // to zero over the interior whatever the other field is.
      field c = random_field(n, 104 + n, true);
      for (std::int64_t i = 0; i < n; ++i)
        for (std::int64_t j = 0; j < n; ++j)
          if (i <= 1 || j <= 1 || i >= n - 2 || j >= n - 2) c[std::size_t(i * n + j)] = 0;
      const double point_bound = 32 * eps * max_abs(a) * std::max(max_abs(b), max_abs(b_ring)) / (h * h);
      const field jab = jacobian<Space>(a, b, n, length), jba = jacobian<Space>(b, a, n, length);
      const field jar = jacobian<Space>(a, b_ring, n, length);
      const field jcr = jacobian<Space>(c, b_ring, n, length), jrc = jacobian<Space>(b_ring, c, n, length);
      double anti = 0, scale = 0;
      long double sum_cr = 0, sum_rc = 0, sum_a = 0, sum_b = 0, sum_a_ar = 0;
      double abs_a = 0, abs_b = 0;
      for (std::size_t k = 0; k < jab.size(); ++k) {
        if (!interior(n, k)) {
          CHECK(jab[k] == 0);  // J is 0 on the ring
          continue;
        }
        anti = std::max(anti, std::abs(jab[k] + jba[k]));
        scale = std::max(scale, std::abs(jab[k]));
        sum_cr += jcr[k];
        sum_rc += jrc[k];
        sum_a += (long double)a[k] * jab[k];
        sum_b += (long double)b[k] * jab[k];
        sum_a_ar += (long double)a[k] * jar[k];
        abs_a += std::abs(a[k]);
        abs_b += std::abs(b[k]);
      }
      const double points = double((n - 2) * (n - 2));
      INFO("max |J(a,b) + J(b,a)| " << anti << ", max |J| " << scale << ", sums " << double(sum_cr) << " "
                                    << double(sum_rc) << " " << double(sum_a) << " " << double(sum_b) << " "
                                    << double(sum_a_ar) << ", point bound " << point_bound);
      // J is O(1 / h^2) for random fields: the bounds are far below it.
      REQUIRE(scale > 1e6 * point_bound);
      CHECK(anti <= 2 * point_bound);
      // Each sum: the exact sum is 0; the computed one is off by the
      // per-point errors times the weights (long-double accumulation adds
      // nothing at this scale).
      CHECK(std::abs(double(sum_cr)) <= points * point_bound);  // circulation: sum J(psi, q) = 0
      CHECK(std::abs(double(sum_rc)) <= points * point_bound);
      CHECK(std::abs(double(sum_a)) <= abs_a * point_bound);     // energy: psi J(psi, q)
      CHECK(std::abs(double(sum_b)) <= abs_b * point_bound);     // enstrophy: q J(psi, q)
      CHECK(std::abs(double(sum_a_ar)) <= abs_a * point_bound);  // energy with q free on the ring
    }
  }
}

TEST_CASE_TEMPLATE("Arakawa's Jacobian converges to the analytic Jacobian at second order", Space,
                   SWEEP_TEST_SPACES) {
  // Smooth fields, non-zero on the ring, on [0, L]^2 with L = 1.5;
  // J(a, b) = a_x b_y - a_y b_x.
  const double length = 1.5;
  auto a = [](double x, double y) { return std::sin(2 * x + 0.3) * std::cos(3 * y - 0.2); };
  auto b = [](double x, double y) { return std::cos(x - 1.1 * y) + 0.5 * y * y + 0.2 * x; };
  auto exact = [](double x, double y) {
    const double ax = 2 * std::cos(2 * x + 0.3) * std::cos(3 * y - 0.2);
    const double ay = -3 * std::sin(2 * x + 0.3) * std::sin(3 * y - 0.2);
    const double bx = -std::sin(x - 1.1 * y) + 0.2;
    const double by = 1.1 * std::sin(x - 1.1 * y) + y;
    return ax * by - ay * bx;
  };
  std::vector<double> errors, steps;
  for (std::int64_t n : {34, 66, 130, 258}) {
    const field j = jacobian<Space>(sample(n, length, a), sample(n, length, b), n, length);
    const field want = sample(n, length, exact);
    double err = 0;
    for (std::size_t k = 0; k < j.size(); ++k)
      if (interior(n, k)) err = std::max(err, std::abs(j[k] - want[k]));
    errors.push_back(err);
    steps.push_back(length / double(n - 1));
  }
  for (std::size_t k = 1; k < errors.size(); ++k) {
    const double expected = (steps[k - 1] / steps[k]) * (steps[k - 1] / steps[k]);  // ~3.9
    INFO("max error " << errors[k - 1] << " -> " << errors[k] << ", h^2 ratio " << expected);
    CHECK(errors[k - 1] / errors[k] == doctest::Approx(expected).epsilon(0.1));
  }
  // |J| is O(10) here: 258 points per side give about 4 digits.
  CHECK(errors.back() < 2e-3);
}

namespace {

/// The decay of q = sin(k pi x) sin(l pi y) in the unforced model without
/// beta. The sampled mode is an exact eigenvector of the 5-point Laplacian
/// with psi = 0 on the ring (eigenvalue -mu_h, mu_h = (4 / h^2)
/// (sin^2(k pi h / 2) + sin^2(l pi h / 2)) -> mu = pi^2 (k^2 + l^2)), so
/// psi = -q / (mu_h + F), zeta = mu_h q / (mu_h + F), J(psi, q) = 0, and
///   dq/dt = -(r + A mu_h) mu_h / (mu_h + F) q = -sigma_h q.
/// Leapfrog with the dissipation lagged to step n - 1 and no filter gives
/// q_{n+1} = (1 - 2 dt sigma_h) q_{n-1}, q_1 = (1 - dt sigma_h) q_0, so
/// after an even number N of steps q_N = (1 - 2 dt sigma_h)^(N / 2) q_0.
struct decay_case {
  double friction, viscosity, deformation, dt;
  int steps;
};

template <class Space>
void check_decay(const decay_case& c) {
  Space space;
  const std::int64_t n = 34;
  const int k = 1, l = 2;
  const double h = 1.0 / double(n - 1);
  const auto mode = [&](double x, double y) { return std::sin(k * pi * x) * std::sin(l * pi * y); };
  const field phi = sample(n, 1.0, mode);
  so::model_parameters p;
  p.n = n;
  p.beta = 0;
  p.wind = 0;
  p.friction = c.friction;
  p.viscosity = c.viscosity;
  p.deformation = c.deformation;
  p.dt = c.dt;
  p.robert = 0;
  p.solver.tolerance = 1e-13;
  so::qg_model<Space> model(space, p);
  REQUIRE(model.set_vorticity(make_grid<Space>(phi, n)).converged());
  for (int s = 0; s < c.steps; ++s) REQUIRE(model.step().converged());
  const field q = to_field(model.q());
  // Amplitude of the mode and what is left of q besides it.
  double qp = 0, pp = 0;
  for (std::size_t i = 0; i < q.size(); ++i) qp += q[i] * phi[i], pp += phi[i] * phi[i];
  const double amp = qp / pp;
  double off_mode = 0;
  for (std::size_t i = 0; i < q.size(); ++i) off_mode = std::max(off_mode, std::abs(q[i] - amp * phi[i]));

  const double mu_h = 4 / (h * h) * (std::pow(std::sin(k * pi * h / 2), 2) + std::pow(std::sin(l * pi * h / 2), 2));
  const double mu = pi * pi * (k * k + l * l);
  const double sigma_h = (c.friction + c.viscosity * mu_h) * mu_h / (mu_h + c.deformation);
  const double sigma = (c.friction + c.viscosity * mu) * mu / (mu + c.deformation);
  const double discrete = std::pow(1 - 2 * c.dt * sigma_h, c.steps / 2);
  const double t = c.dt * c.steps;
  const double rate = -std::log(amp) / t;
  INFO("friction " << c.friction << ", viscosity " << c.viscosity << ", F " << c.deformation << ": amplitude " << amp
                   << " (scheme " << discrete << ", exp(-sigma t) " << std::exp(-sigma * t) << "), rate " << rate
                   << " vs sigma " << sigma << ", left off the mode " << off_mode);
  REQUIRE(c.steps % 2 == 0);
  CHECK(sigma * t > 0.3);  // a decay that is measured, not noise
  // The scheme's own amplitude, to the solver's tolerance.
  CHECK(amp == doctest::Approx(discrete).epsilon(1e-9));
  CHECK(off_mode <= 1e-9);
  // The continuous rate: the scheme's rate -ln(1 - 2 dt sigma_h) / (2 dt)
  // is sigma_h (1 + dt sigma_h + O(dt^2 sigma^2)), and sigma_h is sigma
  // to O(h^2); the allowance is both corrections, 1.5x.
  const double allowance = 1.5 * (c.dt * sigma_h * sigma_h + std::abs(sigma_h - sigma));
  CHECK(std::abs(rate - sigma) <= allowance);
  CHECK(allowance < 0.05 * sigma);
}

}  // namespace

TEST_CASE_TEMPLATE("friction and viscosity damp a Fourier mode at the analytic rate", Space, SWEEP_TEST_SPACES) {
  // sigma: 0.66 (friction, F = 25), 0.197 (viscosity), 0.46 (both, F = 25);
  // dt well inside the lagged viscosity's limit 1 / (A mu_max), mu_max = 8 / h^2.
  check_decay<Space>({1.0, 0.0, 25.0, 0.006, 126});
  check_decay<Space>({0.0, 4e-3, 0.0, 0.02, 126});
  check_decay<Space>({0.5, 4e-3, 25.0, 0.008, 136});
}

TEST_CASE_TEMPLATE("a wind-driven run reaches Stommel's analytic steady state with O(h^2) error", Space,
                   SWEEP_TEST_SPACES) {
  // With friction r, no viscosity and a wind so weak that J(psi, q) is
  // 1e-7 of the other terms, the steady state solves Stommel's problem
  //   r lap(psi) + beta psi_x = curl(tau) = -2 pi tau0 sin(2 pi y),
  // psi = 0 on the walls, whatever F is (F only shapes the transient):
  //   psi = X(x) sin(2 pi y), X = X_p (1 + A e^(m1 x) + B e^(m2 x)),
  //   X_p = tau0 / (2 pi r), r m^2 + beta m - 4 pi^2 r = 0, X(0) = X(1) = 0.
  // Transients decay at least as fast as r mu / (mu + F) >= 0.9 r
  // (mu >= 5 pi^2 for the forced modes): t = 10 leaves e^-18. The steady
  // state of the scheme does not depend on dt.
  const double r = 2.0, beta = 2.0, tau0 = 1e-8, F = 5.0;
  const double disc = std::sqrt(beta * beta + 16 * pi * pi * r * r);
  const double m1 = (-beta + disc) / (2 * r), m2 = (-beta - disc) / (2 * r);
  const double A = (std::exp(m2) - 1) / (std::exp(m1) - std::exp(m2)), B = -1 - A;
  const double xp = tau0 / (2 * pi * r);
  auto exact = [&](double x, double y) {
    return xp * (1 + A * std::exp(m1 * x) + B * std::exp(m2 * x)) * std::sin(2 * pi * y);
  };
  Space space;
  std::vector<double> errors;
  for (std::int64_t n : {34, 66, 130}) {
    CAPTURE(n);
    so::model_parameters p;
    p.n = n;
    p.beta = beta;
    p.wind = tau0;
    p.friction = r;
    p.viscosity = 0;
    p.deformation = F;
    p.dt = 0.1;
    p.solver.tolerance = 1e-12;
    so::qg_model<Space> model(space, p);
    REQUIRE(model.set_vorticity(so::grid<typename Space::memory_space>("zero", n)).converged());
    for (int s = 0; s < 100; ++s) REQUIRE(model.step().converged());
    const field psi = to_field(model.psi());
    const field want = sample(n, 1.0, exact);
    double err = 0;
    for (std::size_t k = 0; k < psi.size(); ++k) err = std::max(err, std::abs(psi[k] - want[k]));
    errors.push_back(err / max_abs(want));
    // Steady: one more step changes psi by far less than the error.
    REQUIRE(model.step().converged());
    const field next = to_field(model.psi());
    double change = 0;
    for (std::size_t k = 0; k < psi.size(); ++k) change = std::max(change, std::abs(next[k] - psi[k]));
    CHECK(change <= 1e-3 * err);
  }
  for (std::size_t k = 1; k < errors.size(); ++k) {
    INFO("relative error " << errors[k - 1] << " -> " << errors[k]);
    CHECK(errors[k - 1] / errors[k] > 3.5);
    CHECK(errors[k - 1] / errors[k] < 4.5);
  }
  CHECK(errors.back() < 1e-3);
}
