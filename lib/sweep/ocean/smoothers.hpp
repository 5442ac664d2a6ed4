// Relaxation sweeps for the Helmholtz problem -lap(u) + lambda u = f on a
// square of side L with Dirichlet values in the boundary ring, 5-point
// stencil, h = L / (n - 1):
//
//   red_black_sweep  Gauss-Seidel / SOR over the red points (i + j even),
//                    then the black ones. `schedule::fused` does both colours
//                    in one pass over row strips (black row r - 1 right after
//                    red row r, each strip's two edge rows of black after a
//                    barrier), so u and f stream through memory once per
//                    sweep; `schedule::phased` runs two passes over static 2D
//                    tiles (MDRange), as the lecture's Ocean does. Both give
//                    the same values bit for bit, as do both layouts.
//   jacobi_sweep     weighted Jacobi into a second grid.
//   residual         r = f - A u, returns ||r||_2 over the interior.
//
// Each sweep returns the convergence measure of its update (max |du| or
// ||du||_2, a Kokkos reduction; max is exact, the L2 sum is order dependent
// at rounding level). Traffic model of one sweep: read u and f, write u
// (24 bytes per point); Jacobi writes a second grid (also 24 + ring).
#pragma once

#include <sweep/ocean/grid.hpp>
#include <sweep/ocean/host_rows.hpp>
#include <sweep/ocean/stencil.hpp>

#include <Kokkos_Core.hpp>

#include <cmath>
#include <tuple>
#include <type_traits>

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
  index_t strip_rows = 0;       // fused: rows per strip (0: from the space's policy)
  index_t tile_rows = 0;        // phased / Jacobi: MDRange tile (0: policy)
  index_t tile_cols = 0;
};

/// Tuning constants per execution space: strips per thread on a CPU, team
/// size and strip height on a GPU, MDRange tiles.
template <class ExecSpace>
struct stencil_policy {
  static constexpr bool host = Kokkos::SpaceAccessibility<Kokkos::HostSpace, typename ExecSpace::memory_space>::accessible;
  static constexpr int team_size = host ? 1 : 128;
  static constexpr index_t strips_per_thread = 4;  // host: load balance vs. edge-row passes
  static constexpr index_t device_strip_rows = 16;
  static constexpr index_t tile_rows = host ? 64 : 4;
  static constexpr index_t tile_cols = host ? 512 : 64;

  static index_t strip_rows(const ExecSpace& space, index_t interior) {
    if constexpr (host) {
      const index_t strips = std::max<index_t>(1, index_t(space.concurrency()) * strips_per_thread);
      return std::max<index_t>(2, (interior + strips - 1) / strips);
    } else {
      (void)space;
      return std::min<index_t>(interior, device_strip_rows);
    }
  }
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

template <class Indexer, class MemorySpace>
Indexer indexer_of(const grid<MemorySpace>& g) {
  if constexpr (std::is_same_v<Indexer, row_major_index>)
    return g.row_major();
  else
    return g.block_major();
}

/// Relaxes every point of `color` in row i with the team's threads and
/// folds the changes into acc (the same value on every thread).
template <class Measure, class Member, class View, class Indexer>
KOKKOS_INLINE_FUNCTION void relax_row(const Member& team, const View& u, const View& f, const Indexer& idx,
                                      index_t i, int color, index_t interior, const stencil_coeffs& c,
                                      double& acc) {
  const index_t j0 = 1 + (((i + 1) ^ color) & 1);
  double row = Measure::identity();
  Kokkos::parallel_reduce(
      Kokkos::TeamThreadRange(team, interior / 2),
      [&](const index_t t, double& a) { Measure::add(a, relax_point(u, f, idx, i, j0 + 2 * t, c)); },
      typename Measure::reducer(row));
  Measure::join(acc, row);
}

/// relax_row, or on a host space the pointer/AVX2 walk of host_rows.hpp.
template <class Measure, class ExecSpace, class Member, class View, class Indexer>
KOKKOS_INLINE_FUNCTION void relax_row_on(const Member& team, const View& u, const View& f, const Indexer& idx,
                                         index_t i, int color, index_t interior, const stencil_coeffs& c,
                                         double& acc, bool avx2) {
  if constexpr (stencil_policy<ExecSpace>::host && stencil_policy<ExecSpace>::team_size == 1) {
#if !defined(__CUDA_ARCH__)
    (void)team;
    host_relax_row<Measure>(u, f, idx, i, color, interior, c, acc, avx2);
    return;
#endif
  }
  (void)avx2;
  relax_row<Measure>(team, u, f, idx, i, color, interior, c, acc);
}

/// Fused red-black, pass 1: one team per strip of rows [r0, r1): red row s
/// then black row s - 1 for the strip's inner rows.
template <class ExecSpace, class Indexer, class Measure>
struct rb_fused_strips {
  using view = Kokkos::View<double*, typename ExecSpace::memory_space>;
  using member = typename Kokkos::TeamPolicy<ExecSpace>::member_type;
  view u, f;
  Indexer idx;
  stencil_coeffs c;
  index_t interior = 0, strip = 0;
  bool avx2 = false;

  KOKKOS_INLINE_FUNCTION void operator()(const member& team, double& acc) const {
    const index_t r0 = 1 + index_t(team.league_rank()) * strip;
    const index_t r1 = r0 + strip < interior + 1 ? r0 + strip : interior + 1;
    double local = Measure::identity();
    for (index_t s = r0; s <= r1; ++s) {
      if (s < r1) relax_row_on<Measure, ExecSpace>(team, u, f, idx, s, 0, interior, c, local, avx2);
      team.team_barrier();
      if (s - 1 > r0 && s - 1 < r1 - 1) {
        relax_row_on<Measure, ExecSpace>(team, u, f, idx, s - 1, 1, interior, c, local, avx2);
        team.team_barrier();
      }
    }
    Kokkos::single(Kokkos::PerTeam(team), [&]() { Measure::join(acc, local); });
  }
};

/// Fused red-black, pass 2: the black edge rows r0 and r1 - 1 of each strip.
template <class ExecSpace, class Indexer, class Measure>
struct rb_fused_edges {
  using view = Kokkos::View<double*, typename ExecSpace::memory_space>;
  using member = typename Kokkos::TeamPolicy<ExecSpace>::member_type;
  view u, f;
  Indexer idx;
  stencil_coeffs c;
  index_t interior = 0, strip = 0;
  bool avx2 = false;

  KOKKOS_INLINE_FUNCTION void operator()(const member& team, double& acc) const {
    const index_t s = team.league_rank() / 2;
    const index_t r0 = 1 + s * strip;
    const index_t r1 = r0 + strip < interior + 1 ? r0 + strip : interior + 1;
    const index_t row = team.league_rank() % 2 == 0 ? r0 : r1 - 1;
    if (team.league_rank() % 2 == 1 && row == r0) return;  // one-row strip
    double local = Measure::identity();
    relax_row_on<Measure, ExecSpace>(team, u, f, idx, row, 1, interior, c, local, avx2);
    Kokkos::single(Kokkos::PerTeam(team), [&]() { Measure::join(acc, local); });
  }
};

/// Phased red-black: one colour over 2D tiles of (row, half-column).
template <class ExecSpace, class Indexer, class Measure>
struct rb_phase {
  using view = Kokkos::View<double*, typename ExecSpace::memory_space>;
  view u, f;
  Indexer idx;
  stencil_coeffs c;
  int color = 0;

  KOKKOS_INLINE_FUNCTION void operator()(const index_t i, const index_t t, double& acc) const {
    const index_t j = 1 + (((i + 1) ^ color) & 1) + 2 * t;
    Measure::add(acc, relax_point(u, f, idx, i, j, c));
  }
};

template <class ExecSpace, class Indexer, class Measure>
struct jacobi_kernel {
  using view = Kokkos::View<double*, typename ExecSpace::memory_space>;
  view in, out, f;
  Indexer idx;
  stencil_coeffs c;
  index_t n = 0;

  KOKKOS_INLINE_FUNCTION void operator()(const index_t i, const index_t j, double& acc) const {
    const index_t p = idx(i, j);
    const double old = in(p);
    if (i == 0 || j == 0 || i == n - 1 || j == n - 1) {
      out(p) = old;  // the boundary ring is carried over
      return;
    }
    const double g = (in(idx(i - 1, j)) + in(idx(i + 1, j)) + in(idx(i, j - 1)) + in(idx(i, j + 1)) +
                      c.h2 * f(p)) * c.inv_diag;
    const double next = old + c.omega * (g - old);
    out(p) = next;
    Measure::add(acc, next - old);
  }
};

template <class ExecSpace, class Indexer>
struct residual_kernel {
  using view = Kokkos::View<double*, typename ExecSpace::memory_space>;
  view u, f, r;
  Indexer idx;
  stencil_coeffs c;
  index_t n = 0;

  KOKKOS_INLINE_FUNCTION void operator()(const index_t i, const index_t j, double& acc) const {
    const index_t p = idx(i, j);
    if (i == 0 || j == 0 || i == n - 1 || j == n - 1) {
      r(p) = 0.0;
      return;
    }
    const double au = (4.0 * u(p) - u(idx(i - 1, j)) - u(idx(i + 1, j)) - u(idx(i, j - 1)) - u(idx(i, j + 1))) *
                           c.inv_h2 +
                       c.lambda * u(p);
    const double v = f(p) - au;
    r(p) = v;
    acc += v * v;
  }
};

template <class ExecSpace, class Indexer>
struct interior_sum_squares {
  Kokkos::View<double*, typename ExecSpace::memory_space> v;
  Indexer idx;
  KOKKOS_INLINE_FUNCTION void operator()(const index_t i, const index_t j, double& acc) const {
    const double x = v(idx(i, j));
    acc += x * x;
  }
};

/// Static 2D tiles over [i0, i1) x [j0, j1): the given tile, else one
/// storage tile (block-major, on the host), else the space's default.
/// `col_scale` divides the column tile (the red-black passes iterate over
/// half columns).
template <class ExecSpace, class Indexer>
Kokkos::MDRangePolicy<ExecSpace, Kokkos::Rank<2>> tiled(const ExecSpace& space, const Indexer& idx, index_t i0,
                                                        index_t i1, index_t j0, index_t j1, index_t tr = 0,
                                                        index_t tc = 0, index_t col_scale = 1) {
  using P = stencil_policy<ExecSpace>;
  index_t dr = P::tile_rows, dc = P::tile_cols;
  if constexpr (std::is_same_v<Indexer, block_major_index> && P::host) {
    dr = index_t(1) << idx.shift;
    dc = std::max<index_t>(1, dr / col_scale);
  } else {
    (void)idx;
    (void)col_scale;
  }
  return Kokkos::MDRangePolicy<ExecSpace, Kokkos::Rank<2>>(space, {i0, j0}, {i1, j1},
                                                           {tr > 0 ? tr : dr, tc > 0 ? tc : dc});
}

template <class Measure, class ExecSpace, class MemorySpace, class Indexer>
double red_black(const ExecSpace& space, const grid<MemorySpace>& u, const grid<MemorySpace>& f,
                 const Indexer& idx, const stencil_coeffs& c, const sweep_options& o) {
  const index_t m = u.interior();
  double total = Measure::identity();
  if (o.order == schedule::fused) {
    using P = stencil_policy<ExecSpace>;
    const index_t strip = o.strip_rows > 0 ? std::min(o.strip_rows, m) : P::strip_rows(space, m);
    const index_t strips = (m + strip - 1) / strip;
    const bool avx2 = host_avx2();
    rb_fused_strips<ExecSpace, Indexer, Measure> pass1{u.data(), f.data(), idx, c, m, strip, avx2};
    rb_fused_edges<ExecSpace, Indexer, Measure> pass2{u.data(), f.data(), idx, c, m, strip, avx2};
    double a = Measure::identity(), b = Measure::identity();
    Kokkos::parallel_reduce("sweep::ocean::red_black_fused",
                            Kokkos::TeamPolicy<ExecSpace>(space, strips, P::team_size), pass1,
                            typename Measure::reducer(a));
    Kokkos::parallel_reduce("sweep::ocean::red_black_edges",
                            Kokkos::TeamPolicy<ExecSpace>(space, 2 * strips, P::team_size), pass2,
                            typename Measure::reducer(b));
    Measure::join(total, a);
    Measure::join(total, b);
  } else {
    for (int color = 0; color < 2; ++color) {
      double a = Measure::identity();
      Kokkos::parallel_reduce(color == 0 ? "sweep::ocean::red_black_red" : "sweep::ocean::red_black_black",
                              tiled(space, idx, 1, m + 1, 0, m / 2, o.tile_rows, o.tile_cols, 2),
                              rb_phase<ExecSpace, Indexer, Measure>{u.data(), f.data(), idx, c, color},
                              typename Measure::reducer(a));
      Measure::join(total, a);
    }
  }
  return Measure::finish(total);
}

template <class ExecSpace, class MemorySpace>
double red_black_unchecked(const ExecSpace& space, const grid<MemorySpace>& u, const grid<MemorySpace>& f,
                           const helmholtz& p, const sweep_options& o) {
  const auto c = coefficients(p, u.n(), o.omega);
  return visit_indexer(u, [&](auto idx) {
    return o.measure == norm::max ? red_black<max_measure>(space, u, f, idx, c, o)
                                  : red_black<l2_measure>(space, u, f, idx, c, o);
  });
}

/// Host residual: one row per iteration through host_residual_row.
template <class ExecSpace, class Indexer>
struct residual_rows {
  using view = Kokkos::View<double*, typename ExecSpace::memory_space>;
  view u, f, r;
  Indexer idx;
  stencil_coeffs c;
  index_t n = 0;
  bool avx2 = false;
  KOKKOS_INLINE_FUNCTION void operator()(const index_t i, double& acc) const {
#if !defined(__CUDA_ARCH__)
    acc += host_residual_row(u, f, r, idx, i, n, c, avx2);
#else
    (void)i;
    (void)acc;
#endif
  }
};

template <class ExecSpace, class MemorySpace>
double residual_unchecked(const ExecSpace& space, const grid<MemorySpace>& u, const grid<MemorySpace>& f,
                          const grid<MemorySpace>& r, const helmholtz& p) {
  const auto c = coefficients(p, u.n(), 1.0);
  const index_t n = u.n();
  double sum = 0;
  visit_indexer(u, [&](auto idx) {
    using I = decltype(idx);
    if constexpr (stencil_policy<ExecSpace>::host) {
      const bool avx2 = host_avx2();
      Kokkos::parallel_reduce("sweep::ocean::residual", Kokkos::RangePolicy<ExecSpace>(space, 0, n),
                              residual_rows<ExecSpace, I>{u.data(), f.data(), r.data(), idx, c, n, avx2},
                              Kokkos::Sum<double>(sum));
    } else {
      Kokkos::parallel_reduce("sweep::ocean::residual", tiled(space, idx, 0, n, 0, n),
                              residual_kernel<ExecSpace, I>{u.data(), f.data(), r.data(), idx, c, n},
                              Kokkos::Sum<double>(sum));
    }
  });
  return std::sqrt(sum);
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

/// One red-black Gauss-Seidel (SOR) sweep of u for -lap(u) + lambda u = f.
/// Returns the measure of the change (options.measure).
template <class ExecSpace, class MemorySpace>
double red_black_sweep(const ExecSpace& space, const grid<MemorySpace>& u, const grid<MemorySpace>& f,
                       const helmholtz& problem = {}, const sweep_options& options = {}) {
  static_assert(Kokkos::SpaceAccessibility<ExecSpace, MemorySpace>::accessible,
                "sweep::ocean::red_black_sweep: the grids must be accessible from the execution space");
  sweep::detail::scoped_region region("sweep::ocean::red_black_sweep");
  detail::check_grids<ExecSpace>("sweep::ocean::red_black_sweep", u, f);
  detail::check_problem(problem, "sweep::ocean::red_black_sweep");
  detail::check_sweep(options, "sweep::ocean::red_black_sweep");
  sweep::detail::require(u.data().data() != f.data().data(), "sweep::ocean::red_black_sweep",
                         "u and f must be different grids");
  return detail::red_black_unchecked(space, u, f, problem, options);
}

/// One weighted-Jacobi sweep: out = u + omega (GS value - u) at interior
/// points, out's ring = u's ring. Returns the measure of out - u.
template <class ExecSpace, class MemorySpace>
double jacobi_sweep(const ExecSpace& space, const grid<MemorySpace>& u, const grid<MemorySpace>& out,
                    const grid<MemorySpace>& f, const helmholtz& problem = {}, const sweep_options& options = {}) {
  static_assert(Kokkos::SpaceAccessibility<ExecSpace, MemorySpace>::accessible,
                "sweep::ocean::jacobi_sweep: the grids must be accessible from the execution space");
  sweep::detail::scoped_region region("sweep::ocean::jacobi_sweep");
  detail::check_grids<ExecSpace>("sweep::ocean::jacobi_sweep", u, out, f);
  detail::check_problem(problem, "sweep::ocean::jacobi_sweep");
  detail::check_sweep(options, "sweep::ocean::jacobi_sweep");
  sweep::detail::require(u.data().data() != out.data().data() && out.data().data() != f.data().data(),
                         "sweep::ocean::jacobi_sweep", "out must be a grid other than u and f");
  const auto c = detail::coefficients(problem, u.n(), options.omega);
  const index_t n = u.n();
  double total = 0;
  visit_indexer(u, [&](auto idx) {
    using I = decltype(idx);
    auto policy = detail::tiled(space, idx, 0, n, 0, n, options.tile_rows, options.tile_cols);
    if (options.measure == norm::max) {
      Kokkos::parallel_reduce("sweep::ocean::jacobi", policy,
                              detail::jacobi_kernel<ExecSpace, I, detail::max_measure>{u.data(), out.data(),
                                                                                      f.data(), idx, c, n},
                              Kokkos::Max<double>(total));
    } else {
      Kokkos::parallel_reduce("sweep::ocean::jacobi", policy,
                              detail::jacobi_kernel<ExecSpace, I, detail::l2_measure>{u.data(), out.data(),
                                                                                     f.data(), idx, c, n},
                              Kokkos::Sum<double>(total));
      total = std::sqrt(total);
    }
  });
  return std::max(total, 0.0);
}

/// r = f - (-lap(u) + lambda u) at interior points, 0 on the ring; returns
/// ||r||_2 (sum over the interior, no h weighting).
template <class ExecSpace, class MemorySpace>
double residual(const ExecSpace& space, const grid<MemorySpace>& u, const grid<MemorySpace>& f,
                const grid<MemorySpace>& r, const helmholtz& problem = {}) {
  static_assert(Kokkos::SpaceAccessibility<ExecSpace, MemorySpace>::accessible,
                "sweep::ocean::residual: the grids must be accessible from the execution space");
  sweep::detail::scoped_region region("sweep::ocean::residual");
  detail::check_grids<ExecSpace>("sweep::ocean::residual", u, f, r);
  detail::check_problem(problem, "sweep::ocean::residual");
  sweep::detail::require(r.data().data() != u.data().data() && r.data().data() != f.data().data(),
                         "sweep::ocean::residual", "r must be a grid other than u and f");
  return detail::residual_unchecked(space, u, f, r, problem);
}

}  // namespace sweep::ocean
