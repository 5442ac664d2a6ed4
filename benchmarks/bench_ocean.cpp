// Ocean kernels at the SPLASH-2 grid sizes n = 258 .. 4098, rows
// `ocean/<kernel>/<layout>/<n>`:
//
//   rb_sweep          one red-black Gauss-Seidel sweep, fused schedule
//   rb_sweep_phased   the same sweep as two MDRange passes over 2D tiles
//   rb_sweeps_<k>     k red-black sweeps by red_black_sweeps (temporally
//                     blocked: one pass over the grid for up to
//                     tuning<>::ocean::blocked_sweeps of them), k = 2, 4, 8;
//                     `sweeps_per_copy` is k over the time in units of a
//                     copy of the grid's n^2 points run just after, the
//                     faster of the ordinary and the streaming copy (the
//                     target: more than 1, k sweeps in less than k
//                     copies' time)
//   jacobi            one weighted-Jacobi sweep into a second grid
//   residual          r = f - A u with its norm
//   v_cycle           one multigrid V-cycle (2 pre + 2 post sweeps)
//   solve             multigrid from u = 0 to a relative residual of 1e-7
//   copy/grid         a parallel copy of one grid (ordinary stores)
//   copy_streaming/grid  the same copy with non-temporal stores (x86
//                     hosts); the ceiling at a size is the faster. Both
//                     copy grid to grid (grids ask for huge pages)
//   kokkos_sparse_gs/crs  Kokkos Kernels' Gauss-Seidel (one forward sweep)
//                     on the 5-point Laplacian in CRS, the peer a Kokkos
//                     user would otherwise write
//
// Traffic models (bytes_per_second), per n^2 grid points: sweeps (rb_sweeps_<k>:
// k times), Jacobi,
// residual and the CRS sweep 24 B (read u and f, write u or out: the data a
// stencil sweep needs, so the CRS row's matrix traffic counts as overhead);
// copy 16 B; v_cycle 24 B x (pre + post + 2) x 4/3 (the fine-level passes,
// restriction and prolongation counted as one each, coarse levels a third
// more); solve reports time, `cycles` and `relative_residual` only.
#include "common/bench_support.hpp"

#include <sweep/ocean.hpp>

#if defined(SWEEP_BENCH_HAVE_KOKKOSKERNELS)
#include <KokkosKernels_Handle.hpp>
#include <KokkosSparse_CrsMatrix.hpp>
#include <KokkosSparse_gauss_seidel.hpp>
#endif

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

namespace {

using namespace sweep_bench;
namespace so = sweep::ocean;
using Grid = so::grid<Memory>;

/// The same non-trivial u and f in every layout (filled by grid point, not
/// by storage offset), so the rows of both layouts solve one problem.
struct problem_data {
  Grid u, f, out;
  problem_data(std::int64_t n, so::grid_layout lay) : u("u", n, lay), f("f", n, lay), out("out", n, lay) {
    Grid::host_view h("pattern", n, n);
    for (std::int64_t i = 0; i < n; ++i)
      for (std::int64_t j = 0; j < n; ++j)
        h(i, j) = double(int(((i * n + j) * 2654435761u) % 7u) - 3);
    u.assign(h);
    for (std::int64_t i = 0; i < n; ++i)
      for (std::int64_t j = 0; j < n; ++j) h(i, j) = std::sin(0.01 * double(i)) * std::cos(0.02 * double(j));
    f.assign(h);
    Kokkos::deep_copy(out.data(), u.data());
  }
};

so::grid_layout layout_named(const std::string& name) {
  return name == "row_major" ? so::grid_layout{so::layout::row_major}
                             : so::grid_layout{so::layout::block_major, 128};
}

double points(std::int64_t n) { return double(n) * double(n); }

void bench_sweep(benchmark::State& state, std::int64_t n, so::grid_layout lay, so::schedule order) {
  problem_data d(n, lay);
  Space space;
  so::sweep_options o;
  o.order = order;
  double change = 0;
  run_timed(state, space, 24.0 * points(n), [&] { change = so::red_black_sweep(space, d.u, d.f, {}, o); });
  state.counters["max_change"] = change;
}

/// The median seconds of 5 runs of f (fenced).
template <class F>
double median_seconds(const Space& space, F&& f) {
  std::vector<double> t;
  for (int r = 0; r < 5; ++r) {
    space.fence();
    const auto t0 = std::chrono::steady_clock::now();
    f();
    space.fence();
    t.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
  }
  std::sort(t.begin(), t.end());
  return t[2];
}

void bench_sweeps(benchmark::State& state, std::int64_t n, so::grid_layout lay, int k) {
  problem_data d(n, lay);
  Space space;
  double change = 0;
  const auto sweeps = [&] { change = so::red_black_sweeps(space, d.u, d.f, {}, {}, k); };
  run_timed(state, space, 24.0 * k * points(n), sweeps);
  state.counters["max_change"] = change;
  // k sweeps against k copies of the grid's n^2 points, timed side by side:
  // the faster of the ordinary copy and the streaming one (the ceiling).
  const auto in = d.f.data();
  const auto out = d.out.data();
  const std::int64_t count = n * n;
  double copy = median_seconds(space, [&] {
    Kokkos::parallel_for(
        "sweep::bench::copy", Kokkos::RangePolicy<Space>(space, 0, count),
        KOKKOS_LAMBDA(const std::int64_t i) { out(i) = in(i); });
  });
  if constexpr (has_streaming_copy) {
    if (reinterpret_cast<std::uintptr_t>(out.data()) % 64 == 0) {
      const char* from = reinterpret_cast<const char*>(in.data());
      char* to = reinterpret_cast<char*>(out.data());
      copy = std::min(copy, median_seconds(space, [&] { copy_streaming_parallel(from, to, 8 * count); }));
    }
  }
  state.counters["sweeps_per_copy"] = double(k) * copy / median_seconds(space, sweeps);
}

void bench_jacobi(benchmark::State& state, std::int64_t n, so::grid_layout lay) {
  problem_data d(n, lay);
  Space space;
  run_timed(state, space, 24.0 * points(n), [&] { so::jacobi_sweep(space, d.u, d.out, d.f); });
}

void bench_residual(benchmark::State& state, std::int64_t n, so::grid_layout lay) {
  problem_data d(n, lay);
  Space space;
  run_timed(state, space, 24.0 * points(n), [&] { so::residual(space, d.u, d.f, d.out); });
}

void bench_v_cycle(benchmark::State& state, std::int64_t n, so::grid_layout lay) {
  problem_data d(n, lay);
  Space space;
  so::multigrid_options mo;
  mo.layout = lay;
  so::multigrid<Space> mg(n, {}, mo);
  const double passes = double(mo.pre_sweeps + mo.post_sweeps + 2) * 4.0 / 3.0;
  double r = 0;
  run_timed(state, space, 24.0 * points(n) * passes, [&] { r = mg.v_cycle(space, d.u, d.f); });
  state.counters["residual"] = r;
}

void bench_solve(benchmark::State& state, std::int64_t n, so::grid_layout lay) {
  problem_data d(n, lay);
  Space space;
  so::multigrid_options mo;
  mo.layout = lay;
  so::multigrid<Space> mg(n, {}, mo);
  so::solve_status st;
  const auto setup = [&] { Kokkos::deep_copy(space, d.u.data(), 0.0); };
  run_timed_with_setup(state, space, 0.0, setup, [&] { st = mg.solve(space, d.u, d.f); });
  state.counters["cycles"] = st.cycles;
  state.counters["relative_residual"] = st.relative_residual;
  if (!st.converged()) state.SkipWithError("multigrid did not converge");
}

void bench_grid_copy(benchmark::State& state, std::int64_t n) {
  problem_data d(n, {});
  Space space;
  const auto in = d.u.data();
  const auto out = d.out.data();
  run_timed(state, space, 16.0 * points(n), [&] {
    Kokkos::parallel_for(
        "sweep::bench::copy", Kokkos::RangePolicy<Space>(space, 0, in.extent(0)),
        KOKKOS_LAMBDA(const std::int64_t i) { out(i) = in(i); });
  });
}

/// The same copy with streaming stores (copy_streaming_parallel), between
/// two grids: the same memory, huge pages included, as the kernels use.
void bench_grid_copy_streaming(benchmark::State& state, std::int64_t n) {
  problem_data d(n, {});
  time_copy_streaming(state, d.u.data().data(), d.out.data().data(), 8 * n * n);
}

#if defined(SWEEP_BENCH_HAVE_KOKKOSKERNELS)
/// Kokkos Kernels' point Gauss-Seidel on the 5-point Laplacian of the
/// interior (m^2 unknowns, the boundary folded into b); setup untimed.
void bench_kokkos_sparse_gs(benchmark::State& state, std::int64_t n) {
  using Ordinal = int;
  using Offset = int;
  using Matrix = KokkosSparse::CrsMatrix<double, Ordinal, Space, void, Offset>;
  using Handle = KokkosKernels::Experimental::KokkosKernelsHandle<Offset, Ordinal, double, Space, Memory, Memory>;
  const std::int64_t m = n - 2, rows = m * m;
  if (rows * 5 > std::int64_t(1) << 31) {
    state.SkipWithError("too many non-zeros for 32-bit offsets");
    return;
  }
  // Built on the host (setup is not timed): 4 on the diagonal, -1 for each
  // interior neighbour, columns ascending.
  Kokkos::View<Offset*, Memory> row_map("row_map", rows + 1);
  auto rm = Kokkos::create_mirror_view(row_map);
  const std::int64_t nnz = 5 * rows - 4 * m;
  Kokkos::View<Ordinal*, Memory> entries("entries", nnz);
  Kokkos::View<double*, Memory> values("values", nnz);
  auto en = Kokkos::create_mirror_view(entries);
  auto va = Kokkos::create_mirror_view(values);
  std::int64_t k = 0;
  for (std::int64_t r = 0; r < rows; ++r) {
    rm(r) = Offset(k);
    const std::int64_t i = r / m, j = r % m;
    const auto put = [&](std::int64_t c, double v) {
      en(k) = Ordinal(c);
      va(k) = v;
      ++k;
    };
    if (i > 0) put(r - m, -1.0);
    if (j > 0) put(r - 1, -1.0);
    put(r, 4.0);
    if (j + 1 < m) put(r + 1, -1.0);
    if (i + 1 < m) put(r + m, -1.0);
  }
  rm(rows) = Offset(k);
  Kokkos::deep_copy(row_map, rm);
  Kokkos::deep_copy(entries, en);
  Kokkos::deep_copy(values, va);
  Matrix a("laplacian", Ordinal(rows), Ordinal(rows), Offset(nnz), values, row_map, entries);
  Kokkos::View<double*, Memory> x("x", rows), b("b", rows);
  fill_pattern(x);
  fill_pattern(b);
  Handle handle;
  handle.create_gs_handle(KokkosSparse::GS_DEFAULT);
  KokkosSparse::Experimental::gauss_seidel_symbolic(&handle, Ordinal(rows), Ordinal(rows), a.graph.row_map,
                                                    a.graph.entries, true);
  KokkosSparse::Experimental::gauss_seidel_numeric(&handle, Ordinal(rows), Ordinal(rows), a.graph.row_map,
                                                   a.graph.entries, a.values, true);
  Space space;
  run_timed(state, space, 24.0 * points(n), [&] {
    KokkosSparse::Experimental::forward_sweep_gauss_seidel_apply(&handle, Ordinal(rows), Ordinal(rows),
                                                                 a.graph.row_map, a.graph.entries, a.values, x, b,
                                                                 false, true, 1.0, 1);
  });
  handle.destroy_gs_handle();
}
#endif

}  // namespace

void sweep_bench::register_suite() {
  // SWEEP_BENCH_LOG2N_MIN/MAX pick the grids by their interior 2^k.
  const int lo = log2n_min(8), hi = log2n_max(12);
  for (int k = lo; k <= hi; ++k) {
    const std::int64_t n = (std::int64_t(1) << k) + 2;
    const std::string ns = std::to_string(n);
    register_row("ocean/copy/grid/" + ns, [n](benchmark::State& s) { bench_grid_copy(s, n); });
    if constexpr (has_streaming_copy)
      register_row("ocean/copy_streaming/grid/" + ns, [n](benchmark::State& s) { bench_grid_copy_streaming(s, n); });
    for (const std::string layout : {"row_major", "block_major"}) {
      const auto lay = layout_named(layout);
      const std::string tail = "/" + layout + "/" + ns;
      register_row("ocean/rb_sweep" + tail,
                   [n, lay](benchmark::State& s) { bench_sweep(s, n, lay, so::schedule::fused); });
      register_row("ocean/rb_sweep_phased" + tail,
                   [n, lay](benchmark::State& s) { bench_sweep(s, n, lay, so::schedule::phased); });
      for (int k : {2, 4, 8})
        register_row("ocean/rb_sweeps_" + std::to_string(k) + tail,
                     [n, lay, k](benchmark::State& s) { bench_sweeps(s, n, lay, k); });
      register_row("ocean/jacobi" + tail, [n, lay](benchmark::State& s) { bench_jacobi(s, n, lay); });
      register_row("ocean/residual" + tail, [n, lay](benchmark::State& s) { bench_residual(s, n, lay); });
      register_row("ocean/v_cycle" + tail, [n, lay](benchmark::State& s) { bench_v_cycle(s, n, lay); });
      register_row("ocean/solve" + tail, [n, lay](benchmark::State& s) { bench_solve(s, n, lay); });
    }
#if defined(SWEEP_BENCH_HAVE_KOKKOSKERNELS)
    register_row("ocean/kokkos_sparse_gs/crs/" + ns, [n](benchmark::State& s) { bench_kokkos_sparse_gs(s, n); });
#endif
  }
}
