// The memory-bandwidth ceiling on its own: a parallel copy of N elements
// with ordinary stores (`copy`) and, on x86 hosts, with non-temporal stores
// (`copy_streaming`); traffic 2N*sizeof(T) for both. The ceiling at a size
// is the faster row. The scan suites register the same rows.
#include "common/bench_support.hpp"

#include <cstdint>

void sweep_bench::register_suite() {
  const int lo = log2n_min(20), hi = log2n_max(26);
  register_copy<std::int32_t>("copy", lo, hi);
  register_copy<double>("copy", lo, hi);
}
