// Relaxation sweeps (the public entry points) for the Helmholtz problem -lap(u) + lambda u = f on a
// square of side L with Dirichlet values in the boundary ring, 5-point
// stencil, h = L / (n - 1):
//
//   red_black_sweep  Gauss-Seidel / SOR over the red points (i + j even),
//                    then the black ones. `schedule::fused` does both colours
//                    in one pass over row strips (black row r - 1 right after
//                    red row r, each strip's two edge rows of black after a
//                    barrier), so u and f stream through memory once per
//                    sweep (block-major grids on the host: strips of tile
//                    rows walked tile by tile in storage order, black one
//                    column behind red); `schedule::phased` runs two passes over static 2D
//                    tiles (MDRange), as the lecture's Ocean does. Both give
//                    the same values bit for bit, as do both layouts.
//   red_black_sweeps several red-black sweeps, bit for bit as many
//                    red_black_sweep calls, temporally blocked: each row
//                    strip walks a wavefront that takes row r to the
//                    first half-step, row r - 1 to the second, and so on,
//                    so u and f stream through memory once for up to
//                    tuning<>::ocean::blocked_sweeps sweeps (the strips'
//                    seams are finished in a second, small pass).
//   jacobi_sweep     weighted Jacobi into a second grid.
//   residual         r = f - A u, returns ||r||_2 over the interior.
//
// Each sweep returns the convergence measure of its update (max |du| or
// ||du||_2, a Kokkos reduction; max is exact, the L2 sum is order dependent
// at rounding level). Traffic model of one sweep: read u and f, write u
// (24 bytes per point); Jacobi writes a second grid (also 24 + ring).
//
// The problem and options: helmholtz.hpp; the kernels: sweep_kernels.hpp;
// the backend's row walker and residual: stencil_backend.hpp.
#pragma once

#include <sweep/ocean/grid.hpp>
#include <sweep/ocean/helmholtz.hpp>
#include <sweep/ocean/stencil.hpp>
#include <sweep/ocean/stencil_backend.hpp>
#include <sweep/ocean/sweep_kernels.hpp>
#include <sweep/ocean/tiles.hpp>
#include <sweep/tuning.hpp>

#include <Kokkos_Core.hpp>

#include <algorithm>
#include <cmath>
#include <type_traits>

namespace sweep::ocean {

namespace detail {

template <class Measure, class ExecSpace, class MemorySpace, class Indexer>
double red_black(const ExecSpace& space, const grid<MemorySpace>& u, const grid<MemorySpace>& f,
                 const Indexer& idx, const stencil_coeffs& c, const sweep_options& o) {
  const index_t m = u.interior();
  double total = Measure::identity();
  if (o.order == schedule::fused) {
    using T = typename tuning<ExecSpace>::ocean;
    using Rows = typename stencil_backend<ExecSpace>::rows;
    // Block-major grids on host spaces go tile by tile (rb_fused_tiles):
    // strips of whole tile rows, walked in storage order.
    constexpr bool by_tiles =
        std::is_same_v<Indexer, block_major_index> && sweep::detail::is_host_space_v<ExecSpace>;
    index_t strip = o.strip_rows > 0 ? std::min(o.strip_rows, m) : T::strip_rows(space, m);
    if constexpr (by_tiles) {
      const index_t edge = index_t(1) << idx.shift;
      strip = std::max(edge, (strip + edge / 2) / edge * edge);
    }
    const index_t strips = by_tiles ? tile_strips(m, strip) : (m + strip - 1) / strip;
    const Rows rows = stencil_backend<ExecSpace>::make_rows();
    const rb_fused_edges<ExecSpace, Indexer, Measure, Rows> pass2{u.data(), f.data(), idx, c, m, strip, rows, by_tiles};
    double a = Measure::identity(), b = Measure::identity();
    if constexpr (by_tiles) {
      Kokkos::parallel_reduce("sweep::ocean::red_black_fused_tiles",
                              Kokkos::TeamPolicy<ExecSpace>(space, strips, T::team_size),
                              rb_fused_tiles<ExecSpace, Measure, Rows>{u.data(), f.data(), idx, c, m, strip, rows},
                              typename Measure::reducer(a));
    } else {
      Kokkos::parallel_reduce("sweep::ocean::red_black_fused",
                              Kokkos::TeamPolicy<ExecSpace>(space, strips, T::team_size),
                              rb_fused_strips<ExecSpace, Indexer, Measure, Rows>{u.data(), f.data(), idx, c, m,
                                                                                 strip, rows},
                              typename Measure::reducer(a));
    }
    Kokkos::parallel_reduce("sweep::ocean::red_black_edges",
                            Kokkos::TeamPolicy<ExecSpace>(space, 2 * strips, T::team_size), pass2,
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

/// `sweeps` red-black sweeps (fused schedule), temporally blocked: up to
/// tuning<>::ocean::blocked_sweeps sweeps per pass of rb_blocked. Returns
/// the measure of the last sweep.
template <class Measure, class ExecSpace, class MemorySpace, class Indexer>
double red_black_blocked(const ExecSpace& space, const grid<MemorySpace>& u, const grid<MemorySpace>& f,
                         const Indexer& idx, const stencil_coeffs& c, const sweep_options& o, int sweeps) {
  using T = typename tuning<ExecSpace>::ocean;
  using Rows = typename stencil_backend<ExecSpace>::rows;
  const index_t m = u.interior();
  double last = Measure::identity();
  for (int done = 0; done < sweeps;) {
    const int k = std::min(sweeps - done, T::blocked_sweeps);
    const int steps = 2 * k;
    const index_t want = o.strip_rows > 0 ? o.strip_rows : T::strip_rows(space, m);
    const index_t strip = std::min(m, std::max<index_t>(want, 2 * steps));
    const index_t strips = (m + strip - 1) / strip;
    rb_blocked<ExecSpace, Indexer, Measure, Rows> pass{u.data(), f.data(), idx, c, m, strip, steps, false,
                                                       stencil_backend<ExecSpace>::make_rows()};
    double a = Measure::identity(), b = Measure::identity();
    Kokkos::parallel_reduce("sweep::ocean::red_black_blocked", Kokkos::TeamPolicy<ExecSpace>(space, strips, T::team_size),
                            pass, typename Measure::reducer(a));
    if (strips > 1) {
      pass.seams = true;
      Kokkos::parallel_reduce("sweep::ocean::red_black_seams",
                              Kokkos::TeamPolicy<ExecSpace>(space, strips - 1, T::team_size), pass,
                              typename Measure::reducer(b));
    }
    last = Measure::identity();
    Measure::join(last, a);
    Measure::join(last, b);
    done += k;
  }
  return Measure::finish(last);
}

template <class ExecSpace, class MemorySpace>
double red_black_sweeps_unchecked(const ExecSpace& space, const grid<MemorySpace>& u, const grid<MemorySpace>& f,
                                  const helmholtz& p, const sweep_options& o, int sweeps) {
  if (o.order == schedule::phased || sweeps == 1) {
    double measure = 0;
    for (int s = 0; s < sweeps; ++s) measure = red_black_unchecked(space, u, f, p, o);
    return measure;
  }
  const auto c = coefficients(p, u.n(), o.omega);
  return visit_indexer(u, [&](auto idx) {
    return o.measure == norm::max ? red_black_blocked<max_measure>(space, u, f, idx, c, o, sweeps)
                                  : red_black_blocked<l2_measure>(space, u, f, idx, c, o, sweeps);
  });
}

template <class ExecSpace, class MemorySpace>
double residual_unchecked(const ExecSpace& space, const grid<MemorySpace>& u, const grid<MemorySpace>& f,
                          const grid<MemorySpace>& r, const helmholtz& p) {
  const auto c = coefficients(p, u.n(), 1.0);
  const double sum =
      visit_indexer(u, [&](auto idx) { return stencil_backend<ExecSpace>::residual(space, u, f, r, idx, c); });
  return std::sqrt(sum);
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

/// `sweeps` red-black sweeps, equal bit for bit to as many red_black_sweep
/// calls, with u and f streamed through memory once per
/// tuning<>::ocean::blocked_sweeps sweeps (the fused schedule; the phased
/// one sweeps one by one). Returns the measure of the last sweep's change;
/// sweeps must be >= 1.
template <class ExecSpace, class MemorySpace>
double red_black_sweeps(const ExecSpace& space, const grid<MemorySpace>& u, const grid<MemorySpace>& f,
                        const helmholtz& problem = {}, const sweep_options& options = {}, int sweeps = 1) {
  static_assert(Kokkos::SpaceAccessibility<ExecSpace, MemorySpace>::accessible,
                "sweep::ocean::red_black_sweeps: the grids must be accessible from the execution space");
  static constexpr const char* where = "sweep::ocean::red_black_sweeps";
  sweep::detail::scoped_region region(where);
  detail::check_grids<ExecSpace>(where, u, f);
  detail::check_problem(problem, where);
  detail::check_sweep(options, where);
  sweep::detail::require(u.data().data() != f.data().data(), where, "u and f must be different grids");
  sweep::detail::require(sweeps >= 1, where, "sweeps = ", sweeps, " must be >= 1");
  return detail::red_black_sweeps_unchecked(space, u, f, problem, options, sweeps);
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
