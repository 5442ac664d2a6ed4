// doctest main for Sweep::mpi's tests: MPI around Kokkos around the run.
// Every rank runs every test (so the collectives match); the process exits
// non-zero when a check failed on any rank.
#define DOCTEST_CONFIG_IMPLEMENT
#include <doctest/doctest.h>

#include <Kokkos_Core.hpp>
#include <mpi.h>

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int failed = 0;
  {
    Kokkos::ScopeGuard kokkos(argc, argv);
    doctest::Context context;
    context.applyCommandLine(argc, argv);
    failed = context.run() != 0 ? 1 : 0;
  }
  int any = 0;
  MPI_Allreduce(&failed, &any, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  MPI_Finalize();
  return any;
}
