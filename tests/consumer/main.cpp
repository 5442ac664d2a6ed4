// Uses Sweep through its installed headers and CMake package.
#include <sweep/sweep.hpp>

#include <cstdio>
#include <cstring>

int main(int argc, char** argv) {
  Kokkos::ScopeGuard guard(argc, argv);
  if (std::strcmp(SWEEP_VERSION_STRING, "0.1.0") != 0) return 1;
  std::printf("consumer: Sweep %s on %s\n", SWEEP_VERSION_STRING,
              Kokkos::DefaultExecutionSpace::name());
  return 0;
}
