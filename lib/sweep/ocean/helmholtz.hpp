// The problem and options of the ocean's relaxation sweeps: the Helmholtz
// problem -lap(u) + lambda u = f on a square of side L (Dirichlet values in
// the boundary ring, h = L / (n - 1)), the measure a sweep returns, the
// red-black schedule, and the argument checks every sweep shares.
#pragma once

#include <sweep/ocean/grid.hpp>
#include <sweep/ocean/stencil.hpp>

#include <cmath>
#include <tuple>

namespace sweep::ocean {

/// -lap(u) + lambda u = f on [0, length]^2; lambda >= 0 (lambda = 0: Poisson).
struct helmholtz {
  double lambda = 0.0;
  double length = 1.0;
};

/// The convergence measure a sweep returns.
enum class norm { max, l2 };

/// Work assignment of a red-black sweep (see the header comment).
enum class schedule { fused, phased };

struct sweep_options {
  double omega = 1.0;           // SOR weight in (0, 2); 1 is Gauss-Seidel
  norm measure = norm::max;     // measure of the update the sweep returns
  schedule order = schedule::fused;
  index_t strip_rows = 0;       // fused: rows per strip (0: from the space's policy; a block-major
                                // grid's single sweep on the host rounds it to whole tile rows)
  index_t tile_rows = 0;        // phased / Jacobi: MDRange tile (0: policy)
  index_t tile_cols = 0;
};

namespace detail {

inline void check_problem(const helmholtz& p, const char* where) {
  sweep::detail::require(std::isfinite(p.lambda) && p.lambda >= 0, where, "lambda = ", p.lambda,
                         " must be finite and >= 0");
  sweep::detail::require(std::isfinite(p.length) && p.length > 0, where, "length = ", p.length,
                         " must be finite and > 0");
}

inline stencil_coeffs coefficients(const helmholtz& p, index_t n, double omega) {
  const double h = p.length / double(n - 1);
  stencil_coeffs c;
  c.h2 = h * h;
  c.inv_diag = 1.0 / (4.0 + p.lambda * c.h2);
  c.omega = omega;
  c.inv_h2 = 1.0 / c.h2;
  c.lambda = p.lambda;
  return c;
}

inline void check_sweep(const sweep_options& o, const char* where) {
  sweep::detail::require(std::isfinite(o.omega) && o.omega > 0 && o.omega < 2, where, "omega = ", o.omega,
                         " must lie in (0, 2)");
  sweep::detail::require(o.strip_rows >= 0 && o.tile_rows >= 0 && o.tile_cols >= 0, where,
                         "strip_rows/tile_rows/tile_cols must be >= 0 (0 picks the default)");
}

template <class ExecSpace, class... Grids>
void check_grids(const char* where, const Grids&... gs) {
  const auto& first = std::get<0>(std::tie(gs...));
  sweep::detail::require(first.n() > 0, where, "the grid is empty (default-constructed)");
  sweep::detail::require((first.compatible(gs) && ...), where,
                         "grids differ in size or layout (all must be ", first.n(), " x ", first.n(), ", ",
                         to_string(first.storage_layout().kind), ")");
}

}  // namespace detail

}  // namespace sweep::ocean
