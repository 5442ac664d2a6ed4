// Shared pieces of the MPI benchmarks (plain MPI programs: Google
// Benchmark's loop does not fit collectives): the slowest rank's time, a
// median of fenced repetitions, and main()'s set-up.
#pragma once

#include <Kokkos_Core.hpp>
#include <mpi.h>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <utility>
#include <vector>

namespace sweep_bench {

/// The largest of every rank's t.
inline double slowest(double t) {
  double m = 0;
  MPI_Allreduce(&t, &m, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  return m;
}

/// The median over 5 repetitions of the slowest rank's seconds for `f`
/// (started together after a barrier, `space` fenced after it); `setup`
/// runs untimed before each.
template <class ExecSpace, class Setup, class F>
double median_seconds(const ExecSpace& space, Setup&& setup, F&& f) {
  std::vector<double> t;
  for (int rep = 0; rep < 5; ++rep) {
    setup();
    space.fence();
    MPI_Barrier(MPI_COMM_WORLD);
    const double t0 = MPI_Wtime();
    f();
    space.fence();
    t.push_back(slowest(MPI_Wtime() - t0));
  }
  std::sort(t.begin(), t.end());
  return t[2];
}

template <class ExecSpace, class F>
double median_seconds(const ExecSpace& space, F&& f) {
  return median_seconds(space, [] {}, std::forward<F>(f));
}

/// MPI and Kokkos started, body(rank, size, numbers) run with the
/// command line's numeric arguments (or `defaults`), both finalized.
template <class Body>
int mpi_bench_main(int argc, char** argv, std::vector<std::int64_t> defaults, Body&& body) {
  MPI_Init(&argc, &argv);
  {
    Kokkos::ScopeGuard kokkos(argc, argv);
    int rank = 0, size = 1;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    std::vector<std::int64_t> numbers;
    for (int a = 1; a < argc; ++a)
      if (argv[a][0] != '-') numbers.push_back(std::atoll(argv[a]));
    body(rank, size, numbers.empty() ? defaults : numbers);
  }
  MPI_Finalize();
  return 0;
}

}  // namespace sweep_bench
