// Tuning constants of Sweep's CUDA kernels, one place per value size: the
// threads of a block and the items each thread owns in the single-pass
// scans (a tile is threads x items values, staged once through dynamic
// shared memory, so tile x sizeof(T) is kept at or below 32 KiB), and the
// layout of that staged tile. Plain C++ (no CUDA): the host tests check
// the layout against a model of the shared-memory banks.
#pragma once

#include <Kokkos_Macros.hpp>

#include <cstddef>
#include <type_traits>

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
  /// About 64-128 bytes per thread in flight, and an odd count or a power
  /// of two, so that the staged tile meets every bank once (tile_stage):
  /// 8-byte values take 13 (26 KiB tiles, eight 256-thread blocks per
  /// multiprocessor on sm_90) where 12 would conflict two ways.
  static constexpr int items_per_thread = Bytes <= 1   ? 16
                                          : Bytes <= 4 ? 16
                                          : Bytes <= 8 ? 13
                                          : Bytes <= 16 ? 8
                                          : Bytes <= 32 ? 4
                                                        : 2 - (Bytes > 64);
  static constexpr int tile = block_threads * items_per_thread;
  static_assert(!staged || std::size_t(tile) * Bytes <= 32768, "sweep::cuda::scan_policy: tile too large");
  static_assert(items_per_thread % 2 == 1 || (items_per_thread & (items_per_thread - 1)) == 0,
                "sweep::cuda::scan_policy: items per thread must be odd or a power of two (tile_stage)");
};

/// Where a tile of T lives in shared memory. The single-pass kernel moves
/// the tile striped between global and shared memory (lane t of warp w
/// touches element k x threads + 32 w + t: coalesced) and blocked between
/// shared memory and registers (element (32 w + t) x items + k: each
/// thread its own run). Values of 8 bytes or more whose size is a multiple
/// of 4 are staged as planes of 4-byte words (word m of element j in plane
/// m), so each shared-memory access of a warp is 32 lanes x 4 bytes
/// whatever the value's size and alignment; staged whole, 8-32 byte values
/// put the striped side's lanes 8-32 bytes apart (2- to 8-way bank
/// conflicts). In a plane, the blocked side's lanes are `Items` slots
/// apart: an odd stride meets each of the 32 banks once, a power of two
/// does with one pad slot per 32; other even strides conflict whatever the
/// padding (scan_policy keeps to the first two). Smaller and odd-sized
/// values are staged whole, one slot per value.
template <class T, int Threads, int Items>
struct tile_stage {
  static constexpr bool pow2_items = (Items & (Items - 1)) == 0;
  static constexpr bool by_words = sizeof(T) >= 8 && sizeof(T) % 4 == 0 && std::is_trivially_copyable_v<T>;
  /// Planes (4-byte words per value when staged by words, else 1).
  static constexpr int words = by_words ? int(sizeof(T) / 4) : 1;
  static constexpr int tile = Threads * Items;
  /// Slots per plane.
  static constexpr int plane = tile + (pow2_items ? tile / 32 : 0);
  static constexpr std::size_t bytes = by_words ? std::size_t(4) * words * plane : sizeof(T) * std::size_t(plane);
  /// Element j's slot in its plane.
  KOKKOS_INLINE_FUNCTION static constexpr int slot(int j) { return pow2_items ? j + (j >> 5) : j; }
  /// Word m of element j, in 4-byte words from the tile's start (by words);
  /// else element j, in values of T.
  KOKKOS_INLINE_FUNCTION static constexpr int word(int j, int m) { return m * plane + slot(j); }
};

/// Dynamic shared memory of a single-pass tile of T: the staged tile
/// (tile_stage), the warps' totals and the tile's prefix, each region
/// aligned for T.
template <class T, int Threads, int Items>
struct tile_storage {
  static constexpr std::size_t align(std::size_t b) { return (b + alignof(T) - 1) / alignof(T) * alignof(T); }
  static constexpr std::size_t items = 0;
  static constexpr std::size_t warps = align(items + tile_stage<T, Threads, Items>::bytes);
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
