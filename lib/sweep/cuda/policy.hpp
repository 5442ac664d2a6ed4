// Tuning constants of Sweep's CUDA kernels, one place per value size: the
// threads of a block and the items each thread owns in the single-pass
// scans (a tile is threads x items values, staged once through dynamic
// shared memory, so tile x sizeof(T) is kept at or below 32 KiB).
#pragma once

#include <cstddef>

namespace sweep::cuda {

template <std::size_t Bytes>
struct scan_policy {
  /// Values of more than 128 bytes (or aligned beyond 16) are not staged
  /// through shared memory: `automatic` runs the portable Blelloch scan on
  /// them (global memory only), so any trivially copyable monoid works.
  static constexpr bool staged = Bytes <= 128;
  /// 256 threads up to 32-byte values; 128 above, so that a 128-byte tile
  /// (16 KiB) leaves room for several blocks per multiprocessor.
  static constexpr int block_threads = Bytes <= 32 ? 256 : 128;
  static constexpr int items_per_thread = Bytes <= 1   ? 16
                                          : Bytes <= 4 ? 16
                                          : Bytes <= 8 ? 12
                                          : Bytes <= 16 ? 8
                                          : Bytes <= 32 ? 4
                                                        : 2 - (Bytes > 64);
  static constexpr int tile = block_threads * items_per_thread;
  static_assert(!staged || std::size_t(tile) * Bytes <= 32768, "sweep::cuda::scan_policy: tile too large");
};

/// Dynamic shared memory of a single-pass tile of T: the staged tile (one
/// pad slot per 32 values), the warps' totals and the tile's prefix, each
/// region aligned for T.
template <class T, int Threads, int Items>
struct tile_storage {
  static constexpr std::size_t align(std::size_t b) { return (b + alignof(T) - 1) / alignof(T) * alignof(T); }
  static constexpr int tile = Threads * Items;
  static constexpr std::size_t items = 0;
  static constexpr std::size_t warps = align(items + sizeof(T) * std::size_t(tile + tile / 32));
  static constexpr std::size_t prefix = align(warps + sizeof(T) * std::size_t(Threads / 32));
  static constexpr std::size_t bytes = prefix + sizeof(T);
};

/// Bitmask kernels: threads per block of the streaming pack/unpack and the
/// select/rank batches (one warp per 32 queries in the tree descents).
struct bitmask_policy {
  static constexpr int block_threads = 256;
  static constexpr int warps_per_block = block_threads / 32;
};

}  // namespace sweep::cuda
