// scan_backend for host spaces: `automatic` is the portable choice (the
// host's tuning scans tiny inputs sequentially), and a single-pass chunk is
// one thread's, folded and scanned by the raw-pointer and vector kernels of
// host/scan_chunks.hpp where they apply.
#pragma once

#include <sweep/detail/scan_backend.hpp>
#include <sweep/host/isa.hpp>
#include <sweep/host/scan_chunks.hpp>

namespace sweep::detail {

template <class ExecSpace>
struct scan_backend<ExecSpace, host_kind> : scan_backend<ExecSpace, portable_kind> {
#if SWEEP_HOST_COMPILER
  /// Under a device compiler's front end the portable loops run instead
  /// (its kernels may not call host-only functions).
  template <class IO>
  static auto chunk_kernels(const ExecSpace& space, const IO& io, index_t chunk) {
    static_assert(tuning<ExecSpace>::scan::team_size == 1, "host chunk kernels are one thread's");
    // A thread's next chunk is about one round of threads ahead (chunks
    // are handed out in order): the kernels prefetch it.
    return host_chunks<IO>(io, tuning<ExecSpace>::scan::streaming_bytes, chunk * concurrency(space));
  }
#endif
};

}  // namespace sweep::detail
