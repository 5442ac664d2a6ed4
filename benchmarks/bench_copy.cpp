// The memory-bandwidth ceiling on its own: a parallel copy of N elements
// (traffic 2N*sizeof(T)). Every other suite registers the same rows.
#include "common/bench_support.hpp"

#include <cstdint>

void sweep_bench::register_suite() {
  const int lo = log2n_min(20), hi = log2n_max(26);
  register_copy<std::int32_t>("copy", lo, hi);
  register_copy<double>("copy", lo, hi);
}
