// MPI for the apps built with Sweep::mpi: started on first use unless the
// program already did (a run without mpiexec is one rank, MPI's
// singleton), finalized at exit, after Kokkos (which the apps finalize
// when main returns).
#pragma once

#include <mpi.h>

#include <array>
#include <cstdlib>

namespace sweep_apps {

inline void ensure_mpi() {
  int started = 0;
  MPI_Initialized(&started);
  if (started) return;
  MPI_Init(nullptr, nullptr);
  std::atexit([] {
    int done = 0;
    MPI_Finalized(&done);
    if (!done) MPI_Finalize();
  });
}

/// This process's rank and the rank count ({0, 1} before MPI starts).
inline std::array<int, 2> rank_and_ranks() {
  std::array<int, 2> r{0, 1};
  int started = 0;
  MPI_Initialized(&started);
  if (started) {
    MPI_Comm_rank(MPI_COMM_WORLD, &r[0]);
    MPI_Comm_size(MPI_COMM_WORLD, &r[1]);
  }
  return r;
}

}  // namespace sweep_apps
