// The ocean's sweep kernels as Kokkos functors: the fused red-black strips
// and their edge rows (each row relaxed by the backend's row walker,
// stencil_backend<ExecSpace>::rows), the phased red-black colour pass, the
// weighted-Jacobi and residual point kernels, and the interior sum of
// squares. Every kernel performs the point update of stencil.hpp in the
// same order, so all schedules and backends give the same grids bit for bit.
#pragma once

#include <sweep/ocean/grid.hpp>
#include <sweep/ocean/stencil.hpp>

#include <Kokkos_Core.hpp>

namespace sweep::ocean::detail {

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

/// Fused red-black, pass 1: one team per strip of rows [r0, r1): red row s
/// then black row s - 1 for the strip's inner rows.
template <class ExecSpace, class Indexer, class Measure, class Rows>
struct rb_fused_strips {
  using view = Kokkos::View<double*, typename ExecSpace::memory_space>;
  using member = typename Kokkos::TeamPolicy<ExecSpace>::member_type;
  view u, f;
  Indexer idx;
  stencil_coeffs c;
  index_t interior = 0, strip = 0;
  Rows rows;  // the backend's row walker (stencil_backend<ExecSpace>::rows)

  KOKKOS_INLINE_FUNCTION void operator()(const member& team, double& acc) const {
    const index_t r0 = 1 + index_t(team.league_rank()) * strip;
    const index_t r1 = r0 + strip < interior + 1 ? r0 + strip : interior + 1;
    double local = Measure::identity();
    for (index_t s = r0; s <= r1; ++s) {
      const bool black = s - 1 > r0 && s - 1 < r1 - 1;
      if (s < r1 && black) {  // both rows in one walk (the backend's relax_pair)
        rows.template relax_pair<Measure>(team, u, f, idx, s, 0, interior, c, local);
        team.team_barrier();
        continue;
      }
      if (s < r1) rows.template relax<Measure>(team, u, f, idx, s, 0, interior, c, local);
      team.team_barrier();
      if (black) {
        rows.template relax<Measure>(team, u, f, idx, s - 1, 1, interior, c, local);
        team.team_barrier();
      }
    }
    Kokkos::single(Kokkos::PerTeam(team), [&]() { Measure::join(acc, local); });
  }
};

/// The strips of the tile-by-tile fused sweep (rb_fused_tiles): they start
/// on multiples of `strip` (the first on row 1) and the last one runs to
/// the last interior row, so every strip boundary is a tile boundary.
KOKKOS_INLINE_FUNCTION index_t tile_strips(index_t interior, index_t strip) {
  return (interior + 1) / strip > 1 ? (interior + 1) / strip : 1;
}
KOKKOS_INLINE_FUNCTION void tile_strip(index_t k, index_t interior, index_t strip, index_t& r0, index_t& r1) {
  r0 = k == 0 ? 1 : k * strip;
  r1 = k + 1 == tile_strips(interior, strip) ? interior + 1 : (k + 1) * strip;
}

/// Fused red-black, pass 2: the black edge rows r0 and r1 - 1 of each strip
/// (strips of `strip` rows from row 1, or rb_fused_tiles' strips).
template <class ExecSpace, class Indexer, class Measure, class Rows>
struct rb_fused_edges {
  using view = Kokkos::View<double*, typename ExecSpace::memory_space>;
  using member = typename Kokkos::TeamPolicy<ExecSpace>::member_type;
  view u, f;
  Indexer idx;
  stencil_coeffs c;
  index_t interior = 0, strip = 0;
  Rows rows;  // the backend's row walker (stencil_backend<ExecSpace>::rows)
  bool tiles = false;  // the strips of rb_fused_tiles

  KOKKOS_INLINE_FUNCTION void operator()(const member& team, double& acc) const {
    const index_t s = team.league_rank() / 2;
    index_t r0 = 1 + s * strip, r1 = 0;
    if (tiles) tile_strip(s, interior, strip, r0, r1);
    else r1 = r0 + strip < interior + 1 ? r0 + strip : interior + 1;
    const index_t row = team.league_rank() % 2 == 0 ? r0 : r1 - 1;
    if (team.league_rank() % 2 == 1 && row == r0) return;  // one-row strip
    double local = Measure::identity();
    rows.template relax<Measure>(team, u, f, idx, row, 1, interior, c, local);
    Kokkos::single(Kokkos::PerTeam(team), [&]() { Measure::join(acc, local); });
  }
};

/// Fused red-black, pass 1, tile by tile (block-major grids on host spaces,
/// whose row walker has relax_tile: host/stencil_backend.hpp): one team per
/// strip of rows [r0, r1) (tile_strip: strips start on tile rows), walking
/// each band of tile rows one tile after the other, so u and f stream
/// through memory in storage order. In the tile of columns [ja, jb) it
/// takes, for each row s of the band, red row s on [ja, jb) and then black
/// row s - 1 one column to the left, on [ja - 1, jb - 1) (the rows' relax_tile):
/// black (i, j) is taken with the tile of column j + 1, after every red
/// neighbour and before none that reads it (red (i, j + 1) comes with the
/// same tile, earlier in it). The strip's black edge rows r0 and r1 - 1 are
/// left to pass 2 (rb_fused_edges with the same strips). Every point gets
/// the update of stencil.hpp from the values the row-by-row fused sweep
/// gives it: the same grid bit for bit.
template <class ExecSpace, class Measure, class Rows>
struct rb_fused_tiles {
  using view = Kokkos::View<double*, typename ExecSpace::memory_space>;
  using member = typename Kokkos::TeamPolicy<ExecSpace>::member_type;
  view u, f;
  block_major_index idx;
  stencil_coeffs c;
  index_t interior = 0, strip = 0;  // strip: a multiple of the tile edge
  Rows rows;

  KOKKOS_INLINE_FUNCTION void operator()(const member& team, double& acc) const {
    index_t r0 = 0, r1 = 0;
    tile_strip(team.league_rank(), interior, strip, r0, r1);
    const index_t edge = index_t(1) << idx.shift;
    double local = Measure::identity();
    for (index_t b0 = r0; b0 < r1;) {
      const index_t b1 = (b0 | (edge - 1)) + 1 < r1 ? (b0 | (edge - 1)) + 1 : r1;  // the band's rows
      for (index_t t0 = 0; t0 <= interior; t0 += edge) {
        const index_t ja = t0 > 1 ? t0 : 1, jb = t0 + edge < interior + 1 ? t0 + edge : interior + 1;
        rows.template relax_tile<Measure>(team, u, f, idx, b0, b1, ja, jb, r0, r1, interior, c, local);
      }
      b0 = b1;
    }
    Kokkos::single(Kokkos::PerTeam(team), [&]() { Measure::join(acc, local); });
  }
};

/// Several red-black sweeps in one pass (temporal blocking). A sweep is
/// two half-steps, red then black; half-step h of row i reads only the
/// other colour of rows i - 1, i, i + 1 at half-step h - 1, so row i can
/// take half-step h as soon as row i + 1 has taken h - 1. A strip of rows
/// [r0, r1) walks a wavefront: at position t it takes row t - (h - 1) to
/// half-step h for h = 1 .. steps, so about steps + 2 rows are live (in
/// cache) and u and f stream through memory once for all the steps. Pass 1
/// (one team per strip) takes each half-step h over the strip's rows less
/// h - 1 at each side that borders another strip (the trapezoid: what it
/// reads was written by the strip itself, at the right half-step); pass 2
/// (one team per seam between strips) takes the rest, the rows [s - h + 1,
/// s + h - 1) around seam s, in the same order. Every point is updated once
/// per half-step from the values a sweep-by-sweep run reads: the result is
/// bit for bit that of `steps / 2` sweeps. The later pair walks at position
/// t fetch the rows the first reads at t + 1 (the backend's fetching(); a
/// no-op where it has none). Strips need at least 2 steps -
/// 2 rows, so the seams' regions do not meet (red_black_sweeps makes them
/// at least 2 steps). `acc` folds the changes of the last sweep (the last
/// two steps).
template <class ExecSpace, class Indexer, class Measure, class Rows>
struct rb_blocked {
  using view = Kokkos::View<double*, typename ExecSpace::memory_space>;
  using member = typename Kokkos::TeamPolicy<ExecSpace>::member_type;
  view u, f;
  Indexer idx;
  stencil_coeffs c;
  index_t interior = 0, strip = 0;
  int steps = 2;  // half-steps: twice the sweeps
  bool seams = false;  // false: pass 1 (one team per strip); true: pass 2 (one team per seam)
  Rows rows;

  /// Whether half-step h of row `row` belongs to this pass's region of
  /// strip [r0, r1) (pass 1) or of the seam at s (pass 2).
  KOKKOS_INLINE_FUNCTION bool mine(index_t row, int h, index_t r0, index_t r1) const {
    if (!seams) {
      const index_t lo = r0 == 1 ? 1 : r0 + h - 1;
      const index_t hi = r1 == interior + 1 ? r1 : r1 - h + 1;
      return row >= lo && row < hi;
    }
    return row >= r0 - h + 1 && row < r0 + h - 1 && row >= 1 && row <= interior;
  }

  KOKKOS_INLINE_FUNCTION void operator()(const member& team, double& acc) const {
    index_t r0 = 0, r1 = 0, t0 = 0, t1 = 0;
    if (!seams) {
      r0 = 1 + index_t(team.league_rank()) * strip;
      r1 = r0 + strip < interior + 1 ? r0 + strip : interior + 1;
      t0 = r0, t1 = r1 + steps - 1;
    } else {
      r0 = 1 + (index_t(team.league_rank()) + 1) * strip;  // the seam: first row of the lower strip
      r1 = r0;
      t0 = r0, t1 = r0 + 2 * steps - 2;
    }
    double last = Measure::identity(), earlier = Measure::identity();
    const Rows later = rows.cached();  // half-steps past the first find their rows in cache
    for (index_t t = t0; t < t1; ++t)
      for (int h = 1; h <= steps; ++h) {
        const index_t row = t - (h - 1);
        if (!mine(row, h, r0, r1)) continue;
        const Rows& walker = h == 1 ? rows : later;
        double& acc_h = h > steps - 2 ? last : earlier;  // h odd: h + 1 folds into the same one
        if (h % 2 == 1 && h < steps && mine(row - 1, h + 1, r0, r1)) {
          // Half-steps h (red, row) and h + 1 (black, row - 1): one walk.
          // The later pairs fetch what the first one reads from memory at
          // t + 1 (u row t + 2, f row t + 1), the second pair the row of u
          // and the third that of f (with two pairs, the second both), so
          // memory streams while the core relaxes rows in cache.
          const int pair = (h - 1) / 2, pairs = steps / 2;
          const bool fetch = pair >= 1 && pair <= 2 && !seams && mine(t + 1, 1, r0, r1);
          const Rows fetcher = rows.fetching(fetch && pair == 1 ? t + 2 : -1,
                                             fetch && (pair == 2 || pairs == 2) ? t + 1 : -1);
          (fetch ? fetcher : walker).template relax_pair<Measure>(team, u, f, idx, row, 0, interior, c, acc_h);
          team.team_barrier();
          ++h;
          continue;
        }
        walker.template relax<Measure>(team, u, f, idx, row, (h - 1) & 1, interior, c, acc_h);
        team.team_barrier();
      }
    Kokkos::single(Kokkos::PerTeam(team), [&]() { Measure::join(acc, last); });
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
    acc += residual_point(u, f, r, idx, i, j, c);
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

}  // namespace sweep::ocean::detail
