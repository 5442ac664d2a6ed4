// doctest main for Sweep's tests: Kokkos is initialised once around the
// whole run (thread counts come from the environment, e.g. OMP_NUM_THREADS).
#define DOCTEST_CONFIG_IMPLEMENT
#include <doctest/doctest.h>

#include <Kokkos_Core.hpp>

int main(int argc, char** argv) {
  Kokkos::ScopeGuard kokkos(argc, argv);
  doctest::Context context;
  context.applyCommandLine(argc, argv);
  return context.run();
}
