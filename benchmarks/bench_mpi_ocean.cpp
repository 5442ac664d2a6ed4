// The ocean's red-black sweep across ranks: time per distributed sweep
// with each exchange_schedule (blocking; overlapped: each colour's inner
// points relaxed while its exchange is in flight; fused: both colours in
// one pass over strips, the default) and the time of its two ghost exchanges
// alone, for each process grid the rank count allows (row strips P x 1,
// column strips 1 x P, MPI_Dims_create's blocks); a 1-rank run adds
// sweep::ocean::red_black_sweep as the baseline. Each row also times one
// multigrid V-cycle (sweep::mpi::ocean::multigrid, default options: the
// levels whose blocks keep 4096 points per rank spread, the rest on rank
// 0; the 1-rank baseline row: sweep::ocean::multigrid).
// Bytes are what the busiest rank sends per sweep (two one-colour exchanges).
//
//   OMP_NUM_THREADS=2 mpiexec -n 1 bench_mpi_ocean [n ...]   (baseline)
//   OMP_NUM_THREADS=1 mpiexec -n 2 bench_mpi_ocean [n ...]   (default n = 1026 2050)
//
// One line of JSON per row on rank 0's stdout. Times are the slowest
// rank's, the median of 5 repetitions of `sweeps` sweeps each.
#include "common/mpi_bench.hpp"

#include <sweep/mpi/multigrid.hpp>
#include <sweep/mpi/ocean.hpp>
#include <sweep/ocean.hpp>

#include <Kokkos_Core.hpp>
#include <mpi.h>

#include <algorithm>
#include <array>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <vector>

namespace so = sweep::ocean;
namespace smo = sweep::mpi::ocean;

namespace {

so::grid<> random_grid(std::int64_t n, std::uint64_t seed) {
  std::mt19937_64 gen(seed);
  std::uniform_real_distribution<double> dist(-1.0, 1.0);
  Kokkos::View<double**, Kokkos::LayoutRight, Kokkos::HostSpace> h("sweep::bench::values", n, n);
  for (std::int64_t i = 0; i < n; ++i)
    for (std::int64_t j = 0; j < n; ++j) h(i, j) = dist(gen);
  so::grid<> g("sweep::bench::grid", n);
  g.assign(h);
  return g;
}

}  // namespace

int main(int argc, char** argv) {
  return sweep_bench::mpi_bench_main(argc, argv, {1026, 2050}, [](int rank, int size,
                                                                   const std::vector<std::int64_t>& sizes) {
    Kokkos::DefaultExecutionSpace space;
    for (const std::int64_t n : sizes) {
      const int sweeps = n <= 1026 ? 40 : 10;
      const double points = double(n - 2) * double(n - 2);
      auto u0 = random_grid(n, 1), f0 = random_grid(n, 2);
      if (size == 1) {
        // The single-process sweep (only in a 1-rank run: a waiting rank
        // would spin in MPI and take a core from it).
        so::grid<> u("sweep::bench::u", n);
        so::copy(space, u, u0);
        double t = 0;
        std::vector<double> ts;
        for (int rep = 0; rep < 5; ++rep) {
          const double t0 = MPI_Wtime();
          for (int k = 0; k < sweeps; ++k) so::red_black_sweep(space, u, f0);
          space.fence();
          ts.push_back(MPI_Wtime() - t0);
        }
        std::sort(ts.begin(), ts.end());
        t = ts[2] / sweeps;
        so::multigrid<> mg(n);
        so::copy(space, u, u0);
        mg.v_cycle(space, u, f0);  // warm-up
        const double t_cycle = sweep_bench::median_seconds(space, [&] { mg.v_cycle(space, u, f0); });
        std::printf(
            "{\"n\": %lld, \"ranks\": %d, \"grid\": \"single-process\", \"threads\": %d, \"sweep_ms\": %.4f, "
            "\"vcycle_ms\": %.4f, \"gpoints_per_s\": %.4f}\n",
            static_cast<long long>(n), size, Kokkos::DefaultExecutionSpace().concurrency(), t * 1e3, t_cycle * 1e3,
            points / t * 1e-9);
        std::fflush(stdout);
      }
      MPI_Barrier(MPI_COMM_WORLD);
      std::vector<std::array<int, 2>> grids = {{size, 1}, {1, size}};
      std::array<int, 2> auto_dims{0, 0};
      MPI_Dims_create(size, 2, auto_dims.data());
      if (auto_dims != grids[0] && auto_dims != grids[1]) grids.push_back(auto_dims);
      if (size == 1) grids.resize(1);
      for (const auto& dims : grids) {
        smo::decomposition d(MPI_COMM_WORLD, n, dims);
        smo::distributed_grid<> u("sweep::bench::u", d), f("sweep::bench::f", d);
        smo::scatter(space, u0, u);
        smo::scatter(space, f0, f);
        smo::red_black_sweep(space, u, f);  // warm-up
        auto time_sweeps = [&](smo::exchange_schedule schedule) {
          return sweep_bench::median_seconds(space, [&] {
                   for (int k = 0; k < sweeps; ++k) smo::red_black_sweep(space, u, f, {}, {}, schedule);
                   space.fence();
                 }) /
                 sweeps;
        };
        const double t_sweep = time_sweeps(smo::exchange_schedule::blocking);
        const double t_overlapped = time_sweeps(smo::exchange_schedule::overlapped);
        const double t_fused = time_sweeps(smo::exchange_schedule::fused);
        long long bytes = 0;
        // The sweep's two exchanges: black ghosts, then red ones.
        auto exchanges = [&] {
          bytes = 0;
          for (int k = 0; k < sweeps; ++k)
            for (int c = 0; c < 2; ++c) bytes += smo::exchange_ghosts(space, u, 1 - c);
        };
        const double t_exchange = sweep_bench::median_seconds(space, exchanges) / sweeps;
        smo::multigrid<> mg(d);
        smo::scatter(space, u0, u);
        mg.v_cycle(space, u, f);  // warm-up
        const double t_cycle = sweep_bench::median_seconds(space, [&] { mg.v_cycle(space, u, f); });
        long long most = 0, mine = bytes / sweeps;
        MPI_Allreduce(&mine, &most, 1, MPI_LONG_LONG, MPI_MAX, MPI_COMM_WORLD);
        if (rank == 0) {
          std::printf(
              "{\"n\": %lld, \"ranks\": %d, \"grid\": \"%dx%d\", \"threads\": %d, \"sweep_ms\": %.4f, "
              "\"overlapped_sweep_ms\": %.4f, \"fused_sweep_ms\": %.4f, \"exchange_ms\": %.4f, \"exchange_share\": %.3f, "
              "\"bytes_per_sweep_max_rank\": %lld, \"vcycle_ms\": %.4f, \"distributed_levels\": %d, "
              "\"levels\": %d, \"gpoints_per_s\": %.4f}\n",
              static_cast<long long>(n), size, d.dims()[0], d.dims()[1],
              Kokkos::DefaultExecutionSpace().concurrency(), t_sweep * 1e3, t_overlapped * 1e3, t_fused * 1e3, t_exchange * 1e3,
              t_exchange / t_sweep, most, t_cycle * 1e3, mg.distributed_levels(), mg.levels(), points / t_sweep * 1e-9);
          std::fflush(stdout);
        }
      }
    }
  });
}
