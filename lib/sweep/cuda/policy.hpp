// Tuning constants of Sweep's CUDA kernels, one place per value size: the
// threads of a block and the items each thread owns in the single-pass
// scans (a tile is threads x items values, staged once through shared
// memory, so tile x sizeof(T) is kept at or below 32 KiB).
#pragma once

#include <cstddef>

namespace sweep::cuda {

template <std::size_t Bytes>
struct scan_policy {
  static constexpr int block_threads = 256;
  static constexpr int items_per_thread = Bytes <= 1   ? 16
                                          : Bytes <= 4 ? 16
                                          : Bytes <= 8 ? 12
                                          : Bytes <= 16 ? 8
                                          : Bytes <= 32 ? 4
                                          : Bytes <= 64 ? 2
                                                        : 1;
  static constexpr int tile = block_threads * items_per_thread;
  static_assert(Bytes > 128 || std::size_t(tile) * Bytes <= 32768, "sweep::cuda::scan_policy: tile too large");
};

/// Bitmask kernels: threads per block of the streaming pack/unpack and the
/// select/rank batches (one warp per 32 queries in the tree descents).
struct bitmask_policy {
  static constexpr int block_threads = 256;
  static constexpr int warps_per_block = block_threads / 32;
};

}  // namespace sweep::cuda
