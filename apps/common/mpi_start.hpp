// MPI for the apps built with Sweep::mpi: started on first use unless the
// program already did (a run without mpiexec is one rank, MPI's
// singleton), finalized at exit, after Kokkos (which the apps finalize
// when main returns).
#pragma once

#include <mpi.h>

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

}  // namespace sweep_apps
