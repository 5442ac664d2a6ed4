// Shared main of Sweep's benchmark suites: Kokkos first, then Google
// Benchmark with the backend recorded in the JSON context.
#include "bench_support.hpp"

#include <cstdlib>
#include <string>

namespace sweep_bench {

static int env_int(const char* name, int fallback) {
  const char* v = std::getenv(name);
  return (v && *v) ? std::atoi(v) : fallback;
}
int log2n_min(int fallback) { return env_int("SWEEP_BENCH_LOG2N_MIN", fallback); }
int log2n_max(int fallback) { return env_int("SWEEP_BENCH_LOG2N_MAX", fallback); }

}  // namespace sweep_bench

int main(int argc, char** argv) {
  Kokkos::ScopeGuard kokkos(argc, argv);
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  sweep_bench::Space space;
  benchmark::AddCustomContext("kokkos_version", std::to_string(KOKKOS_VERSION));
  benchmark::AddCustomContext("kokkos_execution_space", sweep_bench::Space::name());
  benchmark::AddCustomContext("kokkos_concurrency", std::to_string(space.concurrency()));
  sweep_bench::register_suite();
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
