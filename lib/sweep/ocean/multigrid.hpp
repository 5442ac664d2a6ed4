// Geometric multigrid for -lap(u) + lambda u = f (Dirichlet ring), as
// SPLASH-2 Ocean solves its elliptic equations: V-cycles of red-black
// Gauss-Seidel smoothing, residual, restriction, recursion down to a 2 x 2
// interior, prolongation, smoothing.
//
// Grids have 2^k interior points, so level l + 1 has half the interior of
// level l but its points are not a subset of the fine ones (spacing
// L / (2^(k-1) + 1) vs L / (2^k + 1)). Prolongation is therefore bilinear
// interpolation at the fine points' true positions, and restriction its
// adjoint scaled to preserve constants (full weighting when the grids nest).
// Each level is a rediscretisation of the same operator.
//
// Cost of one V-cycle: about (pre + post + 2) fine-grid passes times 4/3.
// `solve` stops when ||r||_2 <= tolerance * reference (the initial residual,
// or ||f||_2) and always returns: converged, not converged within
// max_cycles, or diverged (residual not finite or grown past
// divergence_factor * reference), with the residual reached.
#pragma once

#include <sweep/ocean/grid.hpp>
#include <sweep/ocean/smoothers.hpp>

#include <Kokkos_Core.hpp>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

namespace sweep::ocean {

struct multigrid_options {
  int pre_sweeps = 2;
  int post_sweeps = 2;
  int coarsest_sweeps = 32;   // red-black sweeps on the 2 x 2 interior
  grid_layout layout{};       // storage of every level
  schedule order = schedule::fused;
};

enum class residual_reference { initial, rhs };

struct solve_options {
  double tolerance = 1e-7;    // relative residual to reach
  int max_cycles = 50;
  residual_reference reference = residual_reference::initial;
  double divergence_factor = 1e6;
};

enum class solve_result { converged, not_converged, diverged };

inline const char* to_string(solve_result r) {
  return r == solve_result::converged ? "converged"
         : r == solve_result::not_converged ? "not converged"
                                             : "diverged";
}

struct solve_status {
  solve_result result = solve_result::not_converged;
  int cycles = 0;
  double reference = 0;           // the residual norm tolerances are relative to
  double residual = 0;            // ||f - A u||_2 at the end
  double relative_residual = 0;   // residual / reference (0 when both are 0)
  std::vector<double> history;    // relative residual after each cycle
  bool converged() const { return result == solve_result::converged; }
};

namespace detail {

/// Grid transfer between a fine level (mf interior points per side) and
/// the next coarser one (mc = mf / 2). Fine point i sits at s = i * ratio
/// in coarse index units, ratio = (mc + 1) / (mf + 1). Prolongation takes
/// base(i) = floor(s) and t(i) = s - base; restriction, its adjoint scaled
/// by ratio per dimension, gathers at most 4 fine points per dimension,
/// stored as 5 weights from first(I) (zero outside the footprint).
template <class MemorySpace>
struct transfer_tables {
  static constexpr int width = 5;
  Kokkos::View<index_t*, MemorySpace> first, base;
  Kokkos::View<double* [width], MemorySpace> weight;
  Kokkos::View<double*, MemorySpace> t;

  transfer_tables() = default;
  transfer_tables(index_t mf, index_t mc)
      : first("sweep::ocean::restrict_first", mc + 2), base("sweep::ocean::prolong_base", mf + 2),
        weight("sweep::ocean::restrict_weight", mc + 2), t("sweep::ocean::prolong_t", mf + 2) {
    const double ratio = double(mc + 1) / double(mf + 1);
    auto hf = Kokkos::create_mirror_view(first);
    auto hw = Kokkos::create_mirror_view(weight);
    auto hb = Kokkos::create_mirror_view(base);
    auto ht = Kokkos::create_mirror_view(t);
    for (index_t I = 0; I < mc + 2; ++I) {
      const index_t lo = std::clamp<index_t>(index_t(double(std::max<index_t>(I - 1, 0)) / ratio), 0, mf + 1 - (width - 1));
      hf(I) = lo;
      for (int a = 0; a < width; ++a) {
        const index_t i = lo + a;
        const double d = std::abs(double(i) * ratio - double(I));
        hw(I, a) = (i >= 1 && i <= mf && d < 1.0) ? ratio * (1.0 - d) : 0.0;
      }
    }
    for (index_t i = 0; i < mf + 2; ++i) {
      const double si = double(i) * ratio;
      hb(i) = index_t(si);
      ht(i) = si - double(hb(i));
    }
    Kokkos::deep_copy(first, hf);
    Kokkos::deep_copy(weight, hw);
    Kokkos::deep_copy(base, hb);
    Kokkos::deep_copy(t, ht);
  }
};

template <class ExecSpace, class Indexer>
struct restrict_kernel {
  using view = Kokkos::View<double*, typename ExecSpace::memory_space>;
  view fine, coarse;
  Indexer fidx, cidx;
  transfer_tables<typename ExecSpace::memory_space> tab;

  KOKKOS_INLINE_FUNCTION void operator()(const index_t I, const index_t J) const {
    const index_t i0 = tab.first(I), j0 = tab.first(J);
    double sum = 0;
    for (int a = 0; a < tab.width; ++a) {
      const double wi = tab.weight(I, a);
      if (wi == 0.0) continue;
      double row = 0;
      for (int b = 0; b < tab.width; ++b) row += tab.weight(J, b) * fine(fidx(i0 + a, j0 + b));
      sum += wi * row;
    }
    coarse(cidx(I, J)) = sum;
  }
};

template <class ExecSpace, class Indexer>
struct prolong_add_kernel {
  using view = Kokkos::View<double*, typename ExecSpace::memory_space>;
  view fine, coarse;
  Indexer fidx, cidx;
  transfer_tables<typename ExecSpace::memory_space> tab;

  KOKKOS_INLINE_FUNCTION void operator()(const index_t i, const index_t j) const {
    const index_t I = tab.base(i), J = tab.base(j);
    const double ti = tab.t(i), tj = tab.t(j);
    const double e = (1.0 - ti) * ((1.0 - tj) * coarse(cidx(I, J)) + tj * coarse(cidx(I, J + 1))) +
                     ti * ((1.0 - tj) * coarse(cidx(I + 1, J)) + tj * coarse(cidx(I + 1, J + 1)));
    fine(fidx(i, j)) += e;
  }
};

}  // namespace detail

namespace detail {

/// The V-cycle's sweep counts (both multigrids' options hold them).
inline void check_sweep_counts(int pre, int post, int coarsest, const char* where) {
  sweep::detail::require(pre >= 0 && post >= 0 && coarsest >= 1 && pre + post >= 1, where, "pre_sweeps = ", pre,
                         ", post_sweeps = ", post, ", coarsest_sweeps = ", coarsest,
                         ": counts must be >= 0, pre + post >= 1 and coarsest >= 1");
}

inline void check_solve_options(const solve_options& options, const char* where) {
  sweep::detail::require(std::isfinite(options.tolerance) && options.tolerance > 0, where,
                         "tolerance = ", options.tolerance, " must be finite and > 0");
  sweep::detail::require(options.max_cycles >= 1, where, "max_cycles = ", options.max_cycles, " must be >= 1");
  sweep::detail::require(options.divergence_factor > 1, where, "divergence_factor = ", options.divergence_factor,
                         " must be > 1");
}

/// solve's iteration, shared by the single-process and distributed
/// multigrids: residual() returns ||f - A u||_2, cycle() runs one V-cycle,
/// rhs_norm() returns ||f||_2.
template <class Residual, class Cycle, class RhsNorm>
solve_status iterate(const solve_options& options, Residual&& residual, Cycle&& cycle, RhsNorm&& rhs_norm) {
  solve_status st;
  const double r0 = residual();
  st.reference = options.reference == residual_reference::initial ? r0 : rhs_norm();
  st.residual = r0;
  auto finish = [&](solve_result res) {
    st.result = res;
    st.relative_residual = st.reference > 0 ? st.residual / st.reference : (st.residual > 0 ? INFINITY : 0.0);
    return st;
  };
  if (!std::isfinite(r0) || !std::isfinite(st.reference)) return finish(solve_result::diverged);
  if (r0 <= options.tolerance * st.reference || r0 == 0) return finish(solve_result::converged);
  for (int k = 0; k < options.max_cycles; ++k) {
    cycle();
    st.residual = residual();
    st.cycles = k + 1;
    st.history.push_back(st.reference > 0 ? st.residual / st.reference : INFINITY);
    if (!std::isfinite(st.residual) || st.residual > options.divergence_factor * std::max(st.reference, r0))
      return finish(solve_result::diverged);
    if (st.residual <= options.tolerance * st.reference) return finish(solve_result::converged);
  }
  return finish(solve_result::not_converged);
}

}  // namespace detail

/// Multigrid hierarchy for n x n grids; holds the coarse levels' storage.
template <class ExecSpace = Kokkos::DefaultExecutionSpace>
class multigrid {
 public:
  using memory_space = typename ExecSpace::memory_space;
  using grid_type = grid<memory_space>;

  /// Throws std::invalid_argument for n not 2^k + 2, a bad problem or
  /// negative sweep counts.
  multigrid(index_t n, const helmholtz& problem = {}, const multigrid_options& options = {})
      : m_problem(problem), m_options(options) {
    detail::check_grid_size(n, "sweep::ocean::multigrid");
    detail::check_layout(options.layout, "sweep::ocean::multigrid");
    detail::check_problem(problem, "sweep::ocean::multigrid");
    detail::check_sweep_counts(options.pre_sweeps, options.post_sweeps, options.coarsest_sweeps,
                               "sweep::ocean::multigrid");
    // Level 0 works on the caller's u and f; it only needs a residual.
    for (index_t m = n - 2; m >= 2; m /= 2) {
      const index_t nl = m + 2;
      const std::string l = std::to_string(m_levels.size());
      const bool finest = m_levels.empty();
      m_levels.push_back(level{finest ? grid_type() : grid_type("sweep::ocean::mg_u" + l, nl, options.layout),
                               finest ? grid_type() : grid_type("sweep::ocean::mg_f" + l, nl, options.layout),
                               grid_type("sweep::ocean::mg_r" + l, nl, options.layout),
                               m >= 4 ? detail::transfer_tables<memory_space>(m, m / 2)
                                      : detail::transfer_tables<memory_space>()});
    }
  }

  index_t n() const { return m_levels.front().r.n(); }
  int levels() const { return int(m_levels.size()); }
  const helmholtz& problem() const { return m_problem; }
  const multigrid_options& options() const { return m_options; }

  /// One V-cycle on u (in place); returns ||f - A u||_2 afterwards.
  double v_cycle(const ExecSpace& space, const grid_type& u, const grid_type& f) {
    sweep::detail::scoped_region region("sweep::ocean::multigrid::v_cycle");
    check(u, f, "sweep::ocean::multigrid::v_cycle");
    cycle(space, 0, u, f);
    return detail::residual_unchecked(space, u, f, m_levels[0].r, m_problem);
  }

  /// V-cycles until the relative residual reaches options.tolerance;
  /// never throws for non-convergence: the status says what happened.
  solve_status solve(const ExecSpace& space, const grid_type& u, const grid_type& f,
                     const solve_options& options = {}) {
    sweep::detail::scoped_region region("sweep::ocean::multigrid::solve");
    check(u, f, "sweep::ocean::multigrid::solve");
    detail::check_solve_options(options, "sweep::ocean::multigrid::solve");
    return detail::iterate(
        options, [&] { return detail::residual_unchecked(space, u, f, m_levels[0].r, m_problem); },
        [&] { cycle(space, 0, u, f); }, [&] { return rhs_norm(space, f); });
  }

 private:
  struct level {
    grid_type u, f, r;
    detail::transfer_tables<memory_space> to_coarser;  // empty on the coarsest level
  };

  void check(const grid_type& u, const grid_type& f, const char* where) const {
    detail::check_grids<ExecSpace>(where, u, f, m_levels[0].r);
    sweep::detail::require(u.data().data() != f.data().data(), where, "u and f must be different grids");
  }

  double rhs_norm(const ExecSpace& space, const grid_type& f) const {
    const auto d = f.data();
    const index_t n = f.n();
    double sum = 0;
    visit_indexer(f, [&](auto idx) {
      Kokkos::parallel_reduce(
          "sweep::ocean::rhs_norm", detail::tiled(space, idx, 1, n - 1, 1, n - 1),
          detail::interior_sum_squares<ExecSpace, decltype(idx)>{d, idx}, Kokkos::Sum<double>(sum));
    });
    return std::sqrt(sum);
  }

  void smooth(const ExecSpace& space, const grid_type& u, const grid_type& f, int sweeps) const {
    sweep_options o;
    o.order = m_options.order;
    if (sweeps > 0) detail::red_black_sweeps_unchecked(space, u, f, m_problem, o, sweeps);
  }

  void cycle(const ExecSpace& space, std::size_t l, const grid_type& u, const grid_type& f) {
    if (l + 1 == m_levels.size()) {
      smooth(space, u, f, m_options.coarsest_sweeps);
      return;
    }
    smooth(space, u, f, m_options.pre_sweeps);
    const grid_type& r = m_levels[l].r;
    detail::residual_unchecked(space, u, f, r, m_problem);
    const level& c = m_levels[l + 1];
    const index_t mf = u.interior(), mc = c.u.interior();
    const auto& tab = m_levels[l].to_coarser;
    visit_indexer(u, [&](auto fidx) {
      using I = decltype(fidx);
      const I cidx = detail::indexer_of<I>(c.u);
      Kokkos::parallel_for("sweep::ocean::restrict", detail::tiled(space, cidx, 1, mc + 1, 1, mc + 1),
                           detail::restrict_kernel<ExecSpace, I>{r.data(), c.f.data(), fidx, cidx, tab});
    });
    Kokkos::deep_copy(space, c.u.data(), 0.0);
    cycle(space, l + 1, c.u, c.f);
    visit_indexer(u, [&](auto fidx) {
      using I = decltype(fidx);
      const I cidx = detail::indexer_of<I>(c.u);
      Kokkos::parallel_for("sweep::ocean::prolong", detail::tiled(space, fidx, 1, mf + 1, 1, mf + 1),
                           detail::prolong_add_kernel<ExecSpace, I>{u.data(), c.u.data(), fidx, cidx, tab});
    });
    smooth(space, u, f, m_options.post_sweeps);
  }

  helmholtz m_problem;
  multigrid_options m_options;
  std::vector<level> m_levels;
};

}  // namespace sweep::ocean
