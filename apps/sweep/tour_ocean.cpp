// Ocean rows: one fused red-black Gauss-Seidel sweep on a (2^k + 2)^2 grid
// of about 2^log2n points (traffic 24 bytes per point: read u and f, write
// u), checked bit for bit against the phased schedule and the block-major
// layout; and a multigrid solve of a manufactured Poisson problem to a
// relative residual of 1e-7, checked against the exact solution (error
// within the O(h^2) discretisation bound). The figure is the solve's
// residual history.
#include "tour.hpp"

#include <sweep/ocean.hpp>

#include <cmath>
#include <numbers>
#include <sstream>

namespace tour {
namespace {

namespace so = sweep::ocean;
using Grid = so::grid<>;

/// g(x, y) sampled on an n x n grid of [0, 1]^2 in the given layout.
template <class G>
Grid sampled(std::int64_t n, so::grid_layout lay, G&& g) {
  Grid out("sweep::tour::ocean", n, lay);
  Grid::host_view h("sweep::tour::ocean_host", n, n);
  const double step = 1.0 / double(n - 1);
  for (std::int64_t i = 0; i < n; ++i)
    for (std::int64_t j = 0; j < n; ++j) h(i, j) = g(double(j) * step, double(i) * step);
  out.assign(h);
  return out;
}

bool same(const Grid& a, const Grid& b) {
  const auto x = a.to_host(), y = b.to_host();
  for (std::size_t k = 0; k < x.size(); ++k)
    if (x.data()[k] != y.data()[k]) return false;
  return true;
}

}  // namespace

std::vector<row> run_ocean(const options& opt) {
  Kokkos::DefaultExecutionSpace space;
  const std::int64_t n = (std::int64_t(1) << std::max(2, opt.log2n / 2)) + 2;
  const double pi = std::numbers::pi;
  auto rough = [](double x, double y) { return std::sin(40.0 * x * y) + 0.5 * std::cos(17.0 * x); };
  auto rhs = [pi](double x, double y) { return 2.0 * pi * pi * std::sin(pi * x) * std::sin(pi * y); };
  std::vector<row> rows;
  {
    const so::grid_layout blocked{so::layout::block_major, 128};
    Grid u = sampled(n, {}, rough), f = sampled(n, {}, rhs);
    row r;
    r.capability = "ocean red-black sweep (fused)";
    r.size = n * n;
    r.bytes = 24.0 * double(n) * double(n);
    r.seconds = best_seconds(opt.repeats, [&] { so::red_black_sweep(space, u, f); });
    // The check: three sweeps from the same start by the fused pass, the
    // two-phase tiled pass and in block-major storage agree bit for bit.
    Grid a = sampled(n, {}, rough), b = sampled(n, {}, rough), c = sampled(n, blocked, rough);
    Grid fc = sampled(n, blocked, rhs);
    so::sweep_options phased;
    phased.order = so::schedule::phased;
    for (int s = 0; s < 3; ++s) {
      so::red_black_sweep(space, a, f);
      so::red_black_sweep(space, b, f, {}, phased);
      so::red_black_sweep(space, c, fc);
    }
    r.passed = same(a, b) && same(a, c);
    r.note = r.passed ? "n = " + std::to_string(n) + ": fused = phased = block-major, bit for bit"
                      : "the schedules or layouts disagree";
    rows.push_back(r);
  }
  {
    Grid u("sweep::tour::ocean_u", n), f = sampled(n, {}, rhs);
    so::multigrid<> mg(n);
    so::solve_status st;
    row r;
    r.capability = "ocean multigrid solve (1e-7)";
    r.size = n * n;
    r.seconds = best_seconds(opt.repeats, [&] {
      Kokkos::deep_copy(u.data(), 0.0);
      st = mg.solve(space, u, f);
    });
    // Fine-level passes per V-cycle (2 + 2 sweeps, residual, transfers), as bench_ocean.
    r.bytes = 24.0 * double(n) * double(n) * 6.0 * 4.0 / 3.0 * st.cycles;
    const auto got = u.to_host();
    const double h = 1.0 / double(n - 1);
    double err = 0;
    for (std::int64_t i = 0; i < n; ++i)
      for (std::int64_t j = 0; j < n; ++j)
        err = std::max(err, std::abs(got(i, j) - std::sin(pi * j * h) * std::sin(pi * i * h)));
    const double bound = pi * pi / 12.0 * h * h * 2.0;  // truncation error of the 5-point stencil, with slack
    r.passed = st.converged() && err <= bound;
    std::ostringstream note;
    note << st.cycles << " V-cycles; max error vs sin(pi x) sin(pi y) " << err << " (bound " << bound << ")";
    r.note = note.str();
    std::ostringstream fig;
    fig << "ocean multigrid, n = " << n << ": relative residual after each V-cycle\n ";
    for (double v : st.history) fig << " " << v;
    fig << "\n  (the ocean app runs the double-gyre model on this solver and writes PNG frames)\n";
    r.figure = fig.str();
    rows.push_back(r);
  }
  return rows;
}

}  // namespace tour
