// The ocean's dispatch point: how a backend relaxes one colour of a grid row
// inside a strip team, and how it computes the residual. The primary
// template is the portable path (a team's threads share a row; the residual
// is a tiled MDRange kernel); lib/sweep/host/stencil_backend.hpp walks rows
// with plain pointers and AVX2 on host spaces. Both give the same values bit
// for bit (the point update of stencil.hpp, in the same order).
#pragma once

#include <sweep/detail/space.hpp>
#include <sweep/ocean/grid.hpp>
#include <sweep/ocean/stencil.hpp>
#include <sweep/ocean/sweep_kernels.hpp>
#include <sweep/ocean/tiles.hpp>
#include <sweep/tuning.hpp>

#include <Kokkos_Core.hpp>

namespace sweep::ocean::detail {

/// The residual at each point of a 2-D range (r at r_idx); folds r^2.
template <class View, class Indexer, class RIndexer>
struct residual_points {
  View u, f, r;
  Indexer idx;
  stencil_coeffs c;
  RIndexer r_idx;
  KOKKOS_INLINE_FUNCTION void operator()(const index_t i, const index_t j, double& acc) const {
    acc += residual_point(u, f, r, idx, i, j, c, r_idx);
  }
};

template <class ExecSpace, class Kind = sweep::detail::space_kind_t<ExecSpace>>
struct stencil_backend {
  /// The row walker the fused red-black kernels capture.
  struct rows {
    template <class Measure, class Member, class View, class Indexer>
    KOKKOS_INLINE_FUNCTION void relax(const Member& team, const View& u, const View& f, const Indexer& idx,
                                      index_t i, int color, index_t interior, const stencil_coeffs& c,
                                      double& acc) const {
      relax_row<Measure>(team, u, f, idx, i, color, interior, c, acc);
    }
    /// Colour `color` of row i, then the other colour of row i - 1 (each
    /// reads the other's new values: a barrier between them).
    template <class Measure, class Member, class View, class Indexer>
    KOKKOS_INLINE_FUNCTION void relax_pair(const Member& team, const View& u, const View& f, const Indexer& idx,
                                           index_t i, int color, index_t interior, const stencil_coeffs& c,
                                           double& acc) const {
      relax<Measure>(team, u, f, idx, i, color, interior, c, acc);
      team.team_barrier();
      relax<Measure>(team, u, f, idx, i - 1, 1 - color, interior, c, acc);
    }
    /// Colour `color` (0: i + j even) of row i, columns [j_begin, j_end)
    /// only: a rank's block of a distributed grid.
    template <class Measure, class Member, class View, class Indexer>
    KOKKOS_INLINE_FUNCTION void relax_cols(const Member& team, const View& u, const View& f, const Indexer& idx,
                                           index_t i, int color, index_t j_begin, index_t j_end,
                                           const stencil_coeffs& c, double& acc) const {
      const index_t j0 = j_begin + ((i + j_begin + color) & 1);
      const index_t count = j0 < j_end ? (j_end - j0 + 1) / 2 : 0;
      double row = Measure::identity();
      Kokkos::parallel_reduce(
          Kokkos::TeamThreadRange(team, count),
          [&](const index_t t, double& a) { Measure::add(a, relax_point(u, f, idx, i, j0 + 2 * t, c)); },
          typename Measure::reducer(row));
      Measure::join(acc, row);
    }
    /// The walker for rows a kernel has already brought into cache (the
    /// later half-steps of a temporally blocked pass): the same here.
    KOKKOS_INLINE_FUNCTION rows cached() const { return *this; }
    /// The walker for rows in cache that also fetches rows the pass reads
    /// next (row u_row of u, f_row of f): the same here.
    KOKKOS_INLINE_FUNCTION rows fetching(index_t, index_t) const { return *this; }
  };
  static rows make_rows() { return {}; }

  /// r = f - A u over the grid (0 on the ring); returns the sum of r^2.
  template <class MemorySpace, class Indexer>
  static double residual(const ExecSpace& space, const grid<MemorySpace>& u, const grid<MemorySpace>& f,
                         const grid<MemorySpace>& r, const Indexer& idx, const stencil_coeffs& c) {
    const index_t n = u.n();
    double sum = 0;
    Kokkos::parallel_reduce("sweep::ocean::residual", tiled(space, idx, 0, n, 0, n),
                            residual_kernel<ExecSpace, Indexer>{u.data(), f.data(), r.data(), idx, c, n},
                            Kokkos::Sum<double>(sum));
    return sum;
  }

  /// r = f - A u on rows [i0, i1) and columns [j0, j1) of row-major arrays
  /// (every point's four neighbours exist in them: a rank's block with its
  /// ghosts), u and f at idx, r at r_idx; returns the sum of r^2.
  template <class View, class Indexer, class RIndexer>
  static double residual_block(const ExecSpace& space, const View& u, const View& f, const View& r,
                               const Indexer& idx, index_t i0, index_t i1, index_t j0, index_t j1,
                               const stencil_coeffs& c, const RIndexer& r_idx) {
    double sum = 0;
    Kokkos::parallel_reduce("sweep::ocean::residual", tiled(space, idx, i0, i1, j0, j1),
                            residual_points<View, Indexer, RIndexer>{u, f, r, idx, c, r_idx},
                            Kokkos::Sum<double>(sum));
    return sum;
  }
};

}  // namespace sweep::ocean::detail

#define SWEEP_DISPATCH_STENCIL
#include <sweep/backend.hpp>
