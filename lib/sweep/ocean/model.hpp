// A wind-driven double-gyre ocean: the barotropic quasi-geostrophic
// vorticity equation on a beta plane in the unit square (non-dimensional),
//
//   dq/dt + J(psi, q + beta y) = curl(tau) - r zeta + A lap(zeta),
//   q = lap(psi) - F psi,   zeta = lap(psi) = q + F psi,
//
// wind stress tau_x = -tau0 cos(2 pi y) (two gyres), linear bottom friction
// r, lateral viscosity A, free-slip walls (psi = zeta = 0 on the ring) and
// F = 1 / Ld^2 (0: barotropic). J is Arakawa's 1966 Jacobian, which keeps
// the discrete domain sums psi J and q J at zero (psi = 0 on the walls), so
// the unforced, inviscid scheme conserves energy (and, without beta,
// enstrophy) up to the time error. Time stepping: leapfrog with a Robert-Asselin filter,
// dissipation lagged (evaluated at step n - 1), a forward-Euler first step.
// Each step inverts q for psi with `multigrid` (the Helmholtz problem
// -lap(psi) + F psi = -q), warm-started from the previous psi.
//
// Cost of a step: one fused tendency pass (reads psi, q, q_prev, psi_prev;
// writes q_next, the filtered q and the right-hand side) plus the solve.
#pragma once

#include <sweep/ocean/grid.hpp>
#include <sweep/ocean/multigrid.hpp>
#include <sweep/ocean/smoothers.hpp>

#include <Kokkos_Core.hpp>

#include <algorithm>
#include <cmath>
#include <numbers>
#include <utility>

namespace sweep::ocean {

struct model_parameters {
  index_t n = 258;                 // grid points per side, 2^k + 2
  double beta = 1.0;               // planetary vorticity gradient
  double wind = 1e-4;              // tau0
  double friction = 1e-2;          // r
  double viscosity = 8e-6;         // A
  double deformation = 0.0;        // F = 1 / Ld^2
  double dt = 0.0;                 // time step; 0 picks stable_dt()
  double robert = 0.01;            // Robert-Asselin filter coefficient
  grid_layout layout{};
  solve_options solver{1e-7, 50, residual_reference::rhs, 1e6};
};

/// Domain sums (h^2-weighted).
struct model_diagnostics {
  double energy = 0;       // -1/2 sum psi q = 1/2 sum |grad psi|^2 + F psi^2
  double enstrophy = 0;    // 1/2 sum q^2
  double circulation = 0;  // sum q
  double max_abs_psi = 0;
};

namespace detail {

/// Arakawa's energy- and enstrophy-conserving Jacobian J(a, b) at (i, j),
/// times 12 h^2 (the caller scales).
template <class View, class Indexer>
KOKKOS_FORCEINLINE_FUNCTION double arakawa12(const View& a, const View& b, const Indexer& idx, index_t i,
                                             index_t j, double by_i, double by_im, double by_ip) {
  // b carries + beta y: by_* is beta * y of rows i, i - 1, i + 1.
  auto B = [&](index_t ii, index_t jj, double add) { return b(idx(ii, jj)) + add; };
  const double a_e = a(idx(i, j + 1)), a_w = a(idx(i, j - 1)), a_n = a(idx(i + 1, j)), a_s = a(idx(i - 1, j));
  const double a_ne = a(idx(i + 1, j + 1)), a_nw = a(idx(i + 1, j - 1));
  const double a_se = a(idx(i - 1, j + 1)), a_sw = a(idx(i - 1, j - 1));
  const double b_e = B(i, j + 1, by_i), b_w = B(i, j - 1, by_i), b_n = B(i + 1, j, by_ip), b_s = B(i - 1, j, by_im);
  const double b_ne = B(i + 1, j + 1, by_ip), b_nw = B(i + 1, j - 1, by_ip);
  const double b_se = B(i - 1, j + 1, by_im), b_sw = B(i - 1, j - 1, by_im);
  const double jpp = (a_e - a_w) * (b_n - b_s) - (a_n - a_s) * (b_e - b_w);
  const double jpx = a_e * (b_ne - b_se) - a_w * (b_nw - b_sw) - a_n * (b_ne - b_nw) + a_s * (b_se - b_sw);
  const double jxp = b_n * (a_ne - a_nw) - b_s * (a_se - a_sw) - b_e * (a_ne - a_se) + b_w * (a_nw - a_sw);
  return jpp + jpx + jxp;
}

template <class ExecSpace, class Indexer>
struct jacobian_kernel {
  using view = Kokkos::View<double*, typename ExecSpace::memory_space>;
  view a, b, out;
  Indexer idx;
  double scale = 0;  // 1 / (12 h^2)
  index_t n = 0;
  KOKKOS_INLINE_FUNCTION void operator()(const index_t i, const index_t j) const {
    if (i == 0 || j == 0 || i == n - 1 || j == n - 1) {
      out(idx(i, j)) = 0.0;
      return;
    }
    out(idx(i, j)) = scale * arakawa12(a, b, idx, i, j, 0.0, 0.0, 0.0);
  }
};

/// One leapfrog step's tendency, fused with the filter and the next
/// right-hand side: q_next = base + factor * T, q_filt = q + robert
/// (q_next - 2 q + base), rhs = -q_next.
template <class ExecSpace, class Indexer>
struct tendency_kernel {
  using view = Kokkos::View<double*, typename ExecSpace::memory_space>;
  view psi, q, base, q_diss, psi_diss, q_next, q_filt, rhs;
  view curl;  // wind-stress curl per row
  Indexer idx;
  index_t n = 0;
  double h = 0, jac_scale = 0, inv_h2 = 0;
  double beta = 0, friction = 0, viscosity = 0, deformation = 0;
  double factor = 0, robert = 0;

  KOKKOS_INLINE_FUNCTION double zeta(index_t i, index_t j) const {
    if (i == 0 || j == 0 || i == n - 1 || j == n - 1) return 0.0;
    const index_t p = idx(i, j);
    return q_diss(p) + deformation * psi_diss(p);
  }

  KOKKOS_INLINE_FUNCTION void operator()(const index_t i, const index_t j) const {
    const index_t p = idx(i, j);
    if (i == 0 || j == 0 || i == n - 1 || j == n - 1) {
      q_next(p) = 0.0;
      q_filt(p) = 0.0;
      rhs(p) = 0.0;
      return;
    }
    const double y = double(i) * h;
    const double adv = jac_scale * arakawa12(psi, q, idx, i, j, beta * y, beta * (y - h), beta * (y + h));
    const double z = zeta(i, j);
    const double lap_z = (zeta(i - 1, j) + zeta(i + 1, j) + zeta(i, j - 1) + zeta(i, j + 1) - 4.0 * z) * inv_h2;
    const double t = -adv + curl(i) - friction * z + viscosity * lap_z;
    const double next = base(p) + factor * t;
    q_next(p) = next;
    q_filt(p) = q(p) + robert * (next - 2.0 * q(p) + base(p));
    rhs(p) = -next;
  }
};

/// Per-row sums of the diagnostics over columns [col_begin, col_end) (row
/// order is fixed, so the totals do not depend on the number of threads);
/// row i goes to rows(i - row0).
template <class ExecSpace, class Indexer>
struct diagnostics_rows {
  using view = Kokkos::View<double*, typename ExecSpace::memory_space>;
  view psi, q;
  Kokkos::View<double* [4], typename ExecSpace::memory_space> rows;
  Indexer idx;
  index_t row0 = 0, col_begin = 0, col_end = 0;
  KOKKOS_INLINE_FUNCTION void operator()(const index_t i) const {
    double e = 0, z = 0, c = 0, m = 0;
    for (index_t j = col_begin; j < col_end; ++j) {
      const index_t p = idx(i, j);
      const double s = psi(p), v = q(p);
      e += -0.5 * s * v;
      z += 0.5 * v * v;
      c += v;
      const double a = s < 0 ? -s : s;
      m = m > a ? m : a;
    }
    rows(i - row0, 0) = e;
    rows(i - row0, 1) = z;
    rows(i - row0, 2) = c;
    rows(i - row0, 3) = m;
  }
};

/// Sums the rows [first, last) of diagnostics_rows' output in order and
/// scales the sums by h^2 = 1 / (n - 1)^2.
template <class Rows>
model_diagnostics fold_rows(const Rows& host, index_t first, index_t last) {
  model_diagnostics d;
  for (index_t i = first; i < last; ++i) {
    d.energy += host(i, 0);
    d.enstrophy += host(i, 1);
    d.circulation += host(i, 2);
    d.max_abs_psi = std::max(d.max_abs_psi, host(i, 3));
  }
  return d;
}

/// The checks of qg_model's parameters (std::invalid_argument naming the
/// bad one).
inline void check_model_parameters(const model_parameters& p, const char* where) {
  check_grid_size(p.n, where);
  for (auto [name, v] : {std::pair{"beta", p.beta}, std::pair{"wind", p.wind}, std::pair{"friction", p.friction},
                         std::pair{"viscosity", p.viscosity}, std::pair{"deformation", p.deformation},
                         std::pair{"dt", p.dt}})
    sweep::detail::require(std::isfinite(v) && v >= 0, where, name, " = ", v, " must be finite and >= 0");
  sweep::detail::require(std::isfinite(p.robert) && p.robert >= 0 && p.robert < 0.5, where, "robert = ", p.robert,
                         " must lie in [0, 0.5)");
  sweep::detail::require(std::isfinite(p.solver.tolerance) && p.solver.tolerance > 0 && p.solver.max_cycles >= 1,
                         where, "solver tolerance = ", p.solver.tolerance, " and max_cycles = ", p.solver.max_cycles,
                         " must be > 0");
}

/// The wind-stress curl per row: curl(tau) = -2 pi tau0 sin(2 pi y) for
/// tau_x = -tau0 cos(2 pi y).
template <class MemorySpace>
Kokkos::View<double*, MemorySpace> wind_curl(const model_parameters& p) {
  Kokkos::View<double*, MemorySpace> curl("sweep::ocean::wind_curl", p.n);
  auto host = Kokkos::create_mirror_view(curl);
  for (index_t i = 0; i < p.n; ++i)
    host(i) = -2.0 * std::numbers::pi * p.wind * std::sin(2.0 * std::numbers::pi * double(i) / double(p.n - 1));
  Kokkos::deep_copy(curl, host);
  return curl;
}

/// q = 0 on the ring (free slip), rhs = -q everywhere.
template <class ExecSpace, class Indexer>
struct ring_and_rhs {
  Kokkos::View<double*, typename ExecSpace::memory_space> q, rhs;
  Indexer idx;
  index_t n = 0;
  KOKKOS_INLINE_FUNCTION void operator()(const index_t i, const index_t j) const {
    const index_t p = idx(i, j);
    if (i == 0 || j == 0 || i == n - 1 || j == n - 1) q(p) = 0.0;
    rhs(p) = -q(p);
  }
};

}  // namespace detail

/// J(a, b) by Arakawa's scheme at interior points, 0 on the ring.
template <class ExecSpace, class MemorySpace>
void arakawa_jacobian(const ExecSpace& space, const grid<MemorySpace>& a, const grid<MemorySpace>& b,
                      const grid<MemorySpace>& out, double length = 1.0) {
  sweep::detail::scoped_region region("sweep::ocean::arakawa_jacobian");
  detail::check_grids<ExecSpace>("sweep::ocean::arakawa_jacobian", a, b, out);
  sweep::detail::require(out.data().data() != a.data().data() && out.data().data() != b.data().data(),
                         "sweep::ocean::arakawa_jacobian", "out must be a grid other than a and b");
  sweep::detail::require(std::isfinite(length) && length > 0, "sweep::ocean::arakawa_jacobian", "length = ",
                         length, " must be finite and > 0");
  const index_t n = a.n();
  const double h = length / double(n - 1);
  visit_indexer(a, [&](auto idx) {
    Kokkos::parallel_for("sweep::ocean::jacobian", detail::tiled(space, idx, 0, n, 0, n),
                         detail::jacobian_kernel<ExecSpace, decltype(idx)>{a.data(), b.data(), out.data(), idx,
                                                                           1.0 / (12.0 * h * h), n});
  });
}

/// The double-gyre model: state, stepping and diagnostics.
template <class ExecSpace = Kokkos::DefaultExecutionSpace>
class qg_model {
 public:
  using grid_type = grid<typename ExecSpace::memory_space>;
  using view_type = typename grid_type::view_type;

  /// Throws std::invalid_argument for a bad grid size, a non-finite or
  /// negative coefficient, dt < 0 or a Robert coefficient outside [0, 0.5).
  explicit qg_model(const ExecSpace& space, const model_parameters& p = {})
      : m_space(space), m_p(checked(p)),
        m_mg(p.n, helmholtz{p.deformation, 1.0}, multigrid_options{2, 2, 32, p.layout, schedule::fused}) {
    if (m_p.dt == 0) m_p.dt = stable_dt(m_p);
    for (auto* g : {&m_psi, &m_psi_prev, &m_q, &m_q_prev, &m_q_next, &m_q_filt, &m_rhs})
      *g = grid_type("sweep::ocean::model", m_p.n, m_p.layout);
    m_curl = detail::wind_curl<typename ExecSpace::memory_space>(m_p);
  }

  /// A time step below the advective (for a boundary current of speed
  /// ~ 300 tau0 / beta), viscous and frictional limits of leapfrog.
  static double stable_dt(const model_parameters& p) {
    const double h = 1.0 / double(p.n - 1);
    const double u = std::max(300.0 * p.wind / std::max(p.beta, 1e-12), 1e-12);
    double dt = 0.5 * h / u;
    if (p.viscosity > 0) dt = std::min(dt, 0.5 * h * h / (16.0 * p.viscosity));
    if (p.friction > 0) dt = std::min(dt, 0.25 / p.friction);
    return std::min(dt, 1.0);
  }

  const model_parameters& parameters() const { return m_p; }
  double time() const { return m_time; }
  index_t steps() const { return m_steps; }
  const grid_type& psi() const { return m_psi; }
  const grid_type& q() const { return m_q; }
  const solve_status& last_solve() const { return m_status; }

  /// Starts from q (psi follows by a solve); the ring of q is ignored.
  solve_status set_vorticity(const grid_type& q0) {
    sweep::detail::require(q0.compatible(m_q), "sweep::ocean::qg_model::set_vorticity",
                           "the grid must be ", m_p.n, " x ", m_p.n, " in the model's layout");
    const index_t n = m_p.n;
    copy(m_space, m_q, q0);
    visit_indexer(m_q, [&](auto idx) {
      Kokkos::parallel_for("sweep::ocean::model_ring", detail::tiled(m_space, idx, 0, n, 0, n),
                           detail::ring_and_rhs<ExecSpace, decltype(idx)>{m_q.data(), m_rhs.data(), idx, n});
    });
    Kokkos::deep_copy(m_space, m_psi.data(), 0.0);
    m_status = m_mg.solve(m_space, m_psi, m_rhs, m_p.solver);
    m_steps = 0;
    m_time = 0;
    return m_status;
  }

  /// Advances one step; returns the status of its elliptic solve (the
  /// model keeps going only while it converges: check it).
  const solve_status& step() {
    sweep::detail::scoped_region region("sweep::ocean::qg_model::step");
    const bool first = m_steps == 0;
    const index_t n = m_p.n;
    const double h = 1.0 / double(n - 1);
    visit_indexer(m_q, [&](auto idx) {
      using I = decltype(idx);
      detail::tendency_kernel<ExecSpace, I> k{m_psi.data(), m_q.data(), first ? m_q.data() : m_q_prev.data(),
                                              first ? m_q.data() : m_q_prev.data(),
                                              first ? m_psi.data() : m_psi_prev.data(), m_q_next.data(),
                                              m_q_filt.data(), m_rhs.data(), m_curl, idx, n, h,
                                              1.0 / (12.0 * h * h), 1.0 / (h * h), m_p.beta, m_p.friction, m_p.viscosity, m_p.deformation,
                                              first ? m_p.dt : 2.0 * m_p.dt, first ? 0.0 : m_p.robert};
      Kokkos::parallel_for("sweep::ocean::tendency", detail::tiled(m_space, idx, 0, n, 0, n), k);
    });
    // q_prev <- filtered q, q <- q_next; psi_prev <- psi, then solve for psi.
    std::swap(m_q_prev, m_q_filt);
    std::swap(m_q, m_q_next);
    copy(m_space, m_psi_prev, m_psi);
    m_status = m_mg.solve(m_space, m_psi, m_rhs, m_p.solver);
    ++m_steps;
    m_time += m_p.dt;
    return m_status;
  }

  /// Energy, enstrophy, circulation and max |psi| of the current state.
  model_diagnostics diagnostics() const {
    const index_t n = m_p.n;
    const double h2 = 1.0 / double((n - 1) * (n - 1));
    Kokkos::View<double* [4], typename ExecSpace::memory_space> rows("sweep::ocean::diagnostics", n);
    visit_indexer(m_q, [&](auto idx) {
      Kokkos::parallel_for("sweep::ocean::diagnostics", sweep::detail::range_policy<ExecSpace>(m_space, 1, n - 1),
                           detail::diagnostics_rows<ExecSpace, decltype(idx)>{m_psi.data(), m_q.data(), rows, idx,
                                                                              0, 1, n - 1});
    });
    auto host = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), rows);
    model_diagnostics d = detail::fold_rows(host, 1, n - 1);
    d.energy *= h2;
    d.enstrophy *= h2;
    d.circulation *= h2;
    return d;
  }

 private:
  static model_parameters checked(const model_parameters& p) {
    detail::check_model_parameters(p, "sweep::ocean::qg_model");
    return p;
  }

  ExecSpace m_space;
  model_parameters m_p;
  multigrid<ExecSpace> m_mg;
  grid_type m_psi, m_psi_prev, m_q, m_q_prev, m_q_next, m_q_filt, m_rhs;
  view_type m_curl;
  solve_status m_status;
  index_t m_steps = 0;
  double m_time = 0;
};

}  // namespace sweep::ocean
