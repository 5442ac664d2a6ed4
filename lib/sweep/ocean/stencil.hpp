// The 5-point stencil shared by the ocean kernels: coefficients of
// -lap(u) + lambda u = f, one Gauss-Seidel/SOR point update, one point's
// residual, and the two convergence measures a sweep can fold its changes
// into.
#pragma once

#include <sweep/core.hpp>

#include <Kokkos_Core.hpp>

#include <cmath>

namespace sweep::ocean::detail {

struct stencil_coeffs {
  double h2 = 0;        // h^2
  double inv_diag = 0;  // 1 / (4 + lambda h^2)
  double omega = 1;
  double inv_h2 = 0;
  double lambda = 0;
};

/// Updates u(i, j) in place and returns the change.
template <class View, class Indexer>
KOKKOS_FORCEINLINE_FUNCTION double relax_point(const View& u, const View& f, const Indexer& idx, index_t i,
                                               index_t j, const stencil_coeffs& c) {
  const index_t p = idx(i, j);
  const double old = u(p);
  const double gs =
      (u(idx(i - 1, j)) + u(idx(i + 1, j)) + u(idx(i, j - 1)) + u(idx(i, j + 1)) + c.h2 * f(p)) * c.inv_diag;
  const double next = c.omega == 1.0 ? gs : old + c.omega * (gs - old);  // GS: no rounding detour
  u(p) = next;
  return next - old;
}

/// Writes the residual f - (-lap(u) + lambda u) at (i, j) into r (at
/// r_idx(i, j); r may be laid out apart from u and f) and returns its
/// square: the one formula of every residual kernel (portable, host rows,
/// distributed), so their results agree bit for bit.
template <class View, class Indexer, class RIndexer>
KOKKOS_FORCEINLINE_FUNCTION double residual_point(const View& u, const View& f, const View& r, const Indexer& idx,
                                                  index_t i, index_t j, const stencil_coeffs& c,
                                                  const RIndexer& r_idx) {
  const index_t p = idx(i, j);
  const double au =
      (4.0 * u(p) - u(idx(i - 1, j)) - u(idx(i + 1, j)) - u(idx(i, j - 1)) - u(idx(i, j + 1))) * c.inv_h2 +
      c.lambda * u(p);
  const double v = f(p) - au;
  r(r_idx(i, j)) = v;
  return v * v;
}

template <class View, class Indexer>
KOKKOS_FORCEINLINE_FUNCTION double residual_point(const View& u, const View& f, const View& r, const Indexer& idx,
                                                  index_t i, index_t j, const stencil_coeffs& c) {
  return residual_point(u, f, r, idx, i, j, c, idx);
}

struct max_measure {
  using reducer = Kokkos::Max<double>;
  KOKKOS_FORCEINLINE_FUNCTION static void add(double& acc, double d) {
    const double a = d < 0 ? -d : d;
    acc = acc > a ? acc : a;
  }
  KOKKOS_FORCEINLINE_FUNCTION static void join(double& acc, double v) { acc = acc > v ? acc : v; }
  KOKKOS_FORCEINLINE_FUNCTION static double identity() { return 0.0; }
  static double finish(double v) { return v; }
};

struct l2_measure {
  using reducer = Kokkos::Sum<double>;
  KOKKOS_FORCEINLINE_FUNCTION static void add(double& acc, double d) { acc += d * d; }
  KOKKOS_FORCEINLINE_FUNCTION static void join(double& acc, double v) { acc += v; }
  KOKKOS_FORCEINLINE_FUNCTION static double identity() { return 0.0; }
  static double finish(double v) { return std::sqrt(v); }
};

}  // namespace sweep::ocean::detail
