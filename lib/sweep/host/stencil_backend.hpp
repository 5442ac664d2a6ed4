// The ocean's stencil backend on host spaces: one thread per strip walks
// each row with plain pointers (and AVX2 where the CPU has it and
// SWEEP_HOST_ISA allows it), host/stencil_rows.hpp; the residual (of the
// grid or of a rank's block) runs a row per iteration the same way. Bit-identical to the portable path.
#pragma once

#include <sweep/host/stencil_rows.hpp>
#include <sweep/ocean/stencil_backend.hpp>

namespace sweep::ocean::detail {

/// The residual, one row per iteration through host_residual_row.
template <class ExecSpace, class Indexer>
struct host_residual_rows {
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

/// The residual of a block, one row per iteration through host_residual_cols.
template <class View, class Indexer, class RIndexer>
struct host_residual_block_rows {
  View u, f, r;
  Indexer idx;
  stencil_coeffs c;
  RIndexer r_idx;
  index_t j0 = 0, j1 = 0;
  bool avx2 = false;
  KOKKOS_INLINE_FUNCTION void operator()(const index_t i, double& acc) const {
#if !defined(__CUDA_ARCH__)
    acc += host_residual_cols(u, f, r, idx, i, j0, j1, c, r_idx, avx2);
#else
    (void)i;
    (void)acc;
#endif
  }
};

template <class ExecSpace>
struct stencil_backend<ExecSpace, sweep::detail::host_kind> {
  static_assert(tuning<ExecSpace>::ocean::team_size == 1, "the host row walker relaxes a row with one thread");

  struct rows {
    int simd = 0;  // host_row_simd()
    // Block-major row walks fetch this many rows ahead; 0 (cached()) also
    // turns off the row-major pairs' sweep_fetch_ahead.
    index_t prefetch_rows = tuning<ExecSpace>::ocean::block_prefetch_rows;
    // Rows a pair walk fetches into L2 as it goes (fetching()).
    next_rows next = {};
    template <class Measure, class Member, class View, class Indexer>
    KOKKOS_INLINE_FUNCTION void relax(const Member& team, const View& u, const View& f, const Indexer& idx,
                                      index_t i, int color, index_t interior, const stencil_coeffs& c,
                                      double& acc) const {
      (void)team;
#if !defined(__CUDA_ARCH__)
      host_relax_row<Measure>(u, f, idx, i, color, interior, c, acc, simd, prefetch_rows);
#else
      (void)u, (void)f, (void)idx, (void)i, (void)color, (void)interior, (void)c, (void)acc;
#endif
    }
    /// Colour `color` of row i, then the other colour of row i - 1, as two
    /// relax calls (host_relax_pair: one walk over both rows with AVX-512).
    template <class Measure, class Member, class View, class Indexer>
    KOKKOS_INLINE_FUNCTION void relax_pair(const Member& team, const View& u, const View& f, const Indexer& idx,
                                           index_t i, int color, index_t interior, const stencil_coeffs& c,
                                           double& acc) const {
      (void)team;
#if !defined(__CUDA_ARCH__)
      host_relax_pair<Measure>(u, f, idx, i, color, interior, c, acc, simd, prefetch_rows, next);
#else
      (void)u, (void)f, (void)idx, (void)i, (void)color, (void)interior, (void)c, (void)acc;
#endif
    }
    template <class Measure, class Member, class View, class Indexer>
    KOKKOS_INLINE_FUNCTION void relax_cols(const Member& team, const View& u, const View& f, const Indexer& idx,
                                           index_t i, int color, index_t j_begin, index_t j_end,
                                           const stencil_coeffs& c, double& acc) const {
      (void)team;
#if !defined(__CUDA_ARCH__)
      host_relax_cols<Measure>(u, f, idx, i, color, j_begin, j_end, c, acc, simd);
#else
      (void)u, (void)f, (void)idx, (void)i, (void)color, (void)j_begin, (void)j_end, (void)c, (void)acc;
#endif
    }
    /// One tile of the tile-by-tile fused sweep (host_relax_tile).
    template <class Measure, class Member, class View>
    KOKKOS_INLINE_FUNCTION void relax_tile(const Member& team, const View& u, const View& f,
                                           const block_major_index& idx, index_t b0, index_t b1, index_t ja,
                                           index_t jb, index_t r0, index_t r1, index_t interior,
                                           const stencil_coeffs& c, double& acc) const {
      (void)team;
#if !defined(__CUDA_ARCH__)
      host_relax_tile<Measure>(u, f, idx, b0, b1, ja, jb, r0, r1, interior, c, acc, simd);
#else
      (void)u, (void)f, (void)idx, (void)b0, (void)b1, (void)ja, (void)jb, (void)r0, (void)r1, (void)interior,
          (void)c, (void)acc;
#endif
    }
    /// The walker for rows already in cache: it fetches nothing ahead.
    KOKKOS_INLINE_FUNCTION rows cached() const { return {simd, 0, {}}; }
    /// A walker for rows in cache whose pair walks fetch row u_row of u and
    /// row f_row of f into L2 (-1: neither) while they relax their rows.
    KOKKOS_INLINE_FUNCTION rows fetching(index_t u_row, index_t f_row) const { return {simd, 0, {u_row, f_row}}; }
  };
  static rows make_rows() { return {host_row_simd()}; }  // prefetch_rows: its default

  template <class MemorySpace, class Indexer>
  static double residual(const ExecSpace& space, const grid<MemorySpace>& u, const grid<MemorySpace>& f,
                         const grid<MemorySpace>& r, const Indexer& idx, const stencil_coeffs& c) {
    const index_t n = u.n();
    double sum = 0;
    Kokkos::parallel_reduce("sweep::ocean::residual", sweep::detail::range_policy<ExecSpace>(space, 0, n),
                            host_residual_rows<ExecSpace, Indexer>{u.data(), f.data(), r.data(), idx, c, n, host_avx2()},
                            Kokkos::Sum<double>(sum));
    return sum;
  }

  template <class View, class Indexer, class RIndexer>
  static double residual_block(const ExecSpace& space, const View& u, const View& f, const View& r,
                               const Indexer& idx, index_t i0, index_t i1, index_t j0, index_t j1,
                               const stencil_coeffs& c, const RIndexer& r_idx) {
    double sum = 0;
    Kokkos::parallel_reduce("sweep::ocean::residual", sweep::detail::range_policy<ExecSpace>(space, i0, i1),
                            host_residual_block_rows<View, Indexer, RIndexer>{u, f, r, idx, c, r_idx, j0, j1,
                                                                              host_avx2()},
                            Kokkos::Sum<double>(sum));
    return sum;
  }
};

}  // namespace sweep::ocean::detail
