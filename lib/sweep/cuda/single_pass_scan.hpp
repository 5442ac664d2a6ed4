// Device-wide single-pass scan with decoupled look-back on CUDA, for any
// scan io of Sweep's (plain scans in either direction, and the lifted
// (head, value) operator of the segmented scans).
//
// Tiles of block_threads x items_per_thread values (scan_policy per value
// size) are handed out in order by an atomic ticket, so a tile's
// predecessors are always resident. A block loads its tile coalesced into
// shared memory, each thread folds its items, the block scans the thread
// totals (warp shuffles, then the warps' totals), and the first warp runs
// the look-back (cuda/look_back_warp.hpp over detail/look_back.hpp's
// protocol): it publishes the tile's aggregate (or its inclusive prefix,
// when the aggregate closes the prefix: a segment head), walks back over
// its predecessors' published values 32 at a time to the nearest inclusive
// prefix, and publishes its own. Every
// thread then scans its items from its prefix and the tile is stored
// coalesced. One read and one write per element: the traffic of a copy.
// 64-bit sizes throughout. Plain forward scans of 1- and 2-byte values
// between 16-byte aligned dense Views skip the staging on full tiles: each
// thread's run of 16 values is one or two 16-byte loads and stores
// (direct_tile), coalesced because the runs of a warp are adjacent.
#pragma once

#include <sweep/cuda/launch.hpp>
#include <sweep/cuda/look_back_warp.hpp>
#include <sweep/cuda/policy.hpp>
#include <sweep/cuda/warp_scan.hpp>
#include <sweep/detail/look_back.hpp>
#include <sweep/detail/scan_io.hpp>

#include <Kokkos_Core.hpp>

#include <cstdint>
#include <cstring>
#include <string>
#include <type_traits>

namespace sweep::cuda {

/// An io's operator as a monoid (what the block scan takes).
template <class IO>
struct io_monoid {
  using value_type = typename IO::value_type;
  IO io;
  __device__ __forceinline__ static value_type identity() { return IO::identity(); }
  __device__ __forceinline__ value_type operator()(const value_type& a, const value_type& b) const {
    return io.combine(a, b);
  }
};

/// Tile element j of the staged tile at `s` (cuda/policy.hpp's tile_stage
/// layout: values of 8 bytes or more a 4-byte word at a time).
template <class Stage, class T>
__device__ __forceinline__ void stage_put(unsigned char* s, int j, const T& v) {
  if constexpr (Stage::by_words) {
    unsigned w[Stage::words];
    memcpy(w, &v, sizeof(T));
#pragma unroll
    for (int m = 0; m < Stage::words; ++m) reinterpret_cast<unsigned*>(s)[Stage::word(j, m)] = w[m];
  } else {
    reinterpret_cast<T*>(s)[Stage::word(j, 0)] = v;
  }
}

template <class Stage, class T>
__device__ __forceinline__ T stage_get(const unsigned char* s, int j) {
  if constexpr (Stage::by_words) {
    unsigned w[Stage::words];
#pragma unroll
    for (int m = 0; m < Stage::words; ++m) w[m] = reinterpret_cast<const unsigned*>(s)[Stage::word(j, m)];
    T v;
    memcpy(&v, w, sizeof(T));
    return v;
  } else {
    return reinterpret_cast<const T*>(s)[Stage::word(j, 0)];
  }
}

/// Whether a tile of `IO` can move between global memory and registers
/// without staging: a forward plain scan whose input and output values are
/// of one size, 1 or 2 bytes, and whose run of Items values per thread is
/// whole 16-byte vectors. The launch adds the run-time conditions (both
/// Views dense and 16-byte aligned; tiles then start aligned) and the
/// kernel the last (a full tile).
template <class IO, int Items>
struct direct_tile {
  static constexpr bool eligible = false;
};

template <class In, class Out, class Op, int Items>
struct direct_tile<detail::scan_io<In, Out, Op, false>, Items> {
  using IO = detail::scan_io<In, Out, Op, false>;
  using T = typename Op::value_type;
  using I = std::remove_cv_t<typename In::value_type>;
  static constexpr bool eligible = sizeof(T) <= 2 && sizeof(I) == sizeof(T) && std::is_trivially_copyable_v<T> &&
                                   std::is_trivially_copyable_v<I> && Items * sizeof(T) % 16 == 0;
  static constexpr int vectors = int(Items * sizeof(T) / 16);
  static constexpr int per_vector = int(16 / sizeof(T));

  static bool usable(const IO& io) {
    const auto aligned = [](const void* p) { return reinterpret_cast<std::uintptr_t>(p) % 16 == 0; };
    return io.unit_stride() && aligned(io.in.data()) && aligned(io.out.data());
  }
  /// Values [at, at + Items) of the input, converted to T.
  __device__ __forceinline__ static void load(const IO& io, index_t at, T (&vals)[Items]) {
    const auto* src = reinterpret_cast<const uint4*>(io.in.data() + at);
#pragma unroll
    for (int v = 0; v < vectors; ++v) {
      const uint4 word = src[v];
      I part[per_vector];
      memcpy(part, &word, 16);
#pragma unroll
      for (int e = 0; e < per_vector; ++e) vals[v * per_vector + e] = static_cast<T>(part[e]);
    }
  }
  /// Stores vals into [at, at + Items) of the output.
  __device__ __forceinline__ static void store(const IO& io, index_t at, const T (&vals)[Items]) {
    auto* dst = reinterpret_cast<uint4*>(io.out.data() + at);
#pragma unroll
    for (int v = 0; v < vectors; ++v) {
      uint4 word;
      memcpy(&word, vals + v * per_vector, 16);
      dst[v] = word;
    }
  }
};

template <int Threads, int Items, class IO, class T = typename IO::value_type>
__global__ void __launch_bounds__(Threads) single_pass_kernel(IO io, T init, bool exclusive, detail::look_back_tiles<T> tiles,
                                                              unsigned long long* ticket, bool direct_ok) {
  constexpr int tile = Threads * Items;
  using storage = tile_storage<T, Threads, Items>;
  using stage = tile_stage<T, Threads, Items>;
  extern __shared__ __align__(16) unsigned char shared_bytes[];
  unsigned char* items = shared_bytes + storage::items;
  T* warps = reinterpret_cast<T*>(shared_bytes + storage::warps);
  T* tile_prefix = reinterpret_cast<T*>(shared_bytes + storage::prefix);
  __shared__ long long tile_id;
  if (threadIdx.x == 0) tile_id = static_cast<long long>(atomicAdd(ticket, 1ull));
  __syncthreads();
  const index_t c = tile_id;
  const index_t first = c * tile;
  const int count = io.n - first < tile ? int(io.n - first) : tile;
  const io_monoid<IO> op{io};
  using direct = direct_tile<IO, Items>;
  // The same for the whole block: full tiles of eligible scans.
  const bool unstaged = direct::eligible && direct_ok && count == tile;
  const index_t run_start = first + index_t(threadIdx.x) * Items;

  T vals[Items];
  if constexpr (direct::eligible) {
    if (unstaged) direct::load(io, run_start, vals);
  }
  if (!unstaged) {
    // Coalesced load into shared memory, then each thread its run of Items.
#pragma unroll
    for (int k = 0; k < Items; ++k) {
      const int j = k * Threads + int(threadIdx.x);
      if (j < count) stage_put<stage, T>(items, j, io.load(first + j));
    }
    __syncthreads();
#pragma unroll
    for (int k = 0; k < Items; ++k) {
      const int j = int(threadIdx.x) * Items + k;
      vals[k] = j < count ? stage_get<stage, T>(items, j) : IO::identity();
    }
  }
  T local = IO::identity();
#pragma unroll
  for (int k = 0; k < Items; ++k) local = io.combine(local, vals[k]);
  T aggregate;
  const T before = block_exclusive_scan<Threads>(local, op, aggregate, warps);

  if (threadIdx.x < 32) {
    const T prefix = warp_look_back(io, tiles, c, aggregate, init);
    if (threadIdx.x == 0) tile_prefix[0] = prefix;
  }
  __syncthreads();

  // Each thread scans its items from its prefix, back into shared memory
  // (or straight out, unstaged).
  T run = io.combine(tile_prefix[0], before);
#pragma unroll
  for (int k = 0; k < Items; ++k) {
    const T next = io.combine(run, vals[k]);
    vals[k] = exclusive ? run : next;
    run = next;
  }
  if constexpr (direct::eligible) {
    if (unstaged) {
      direct::store(io, run_start, vals);
      return;
    }
  }
#pragma unroll
  for (int k = 0; k < Items; ++k) {
    const int j = int(threadIdx.x) * Items + k;
    if (j < count) stage_put<stage, T>(items, j, vals[k]);
  }
  __syncthreads();
#pragma unroll
  for (int k = 0; k < Items; ++k) {
    const int j = k * Threads + int(threadIdx.x);
    if (j < count) io.store(first + j, stage_get<stage, T>(items, j));
  }
}

/// The scan of `io` on the space's stream; its total (init folded in) goes
/// to `sink`, as in detail::scan_single_pass (returned by default). The
/// tile states come from the workspace: no allocation once it has grown,
/// and no host sync when the sink is a device View.
template <class IO, class Sink = detail::total_on_host, class T = typename IO::value_type>
T single_pass_scan(const Kokkos::Cuda& space, const IO& io, const T& init, bool exclusive, const std::string& label,
                   const Sink& sink = Sink{}) {
  using policy = scan_policy<sizeof(T)>;
  static_assert(policy::staged && alignof(T) <= 16, "sweep::cuda::single_pass_scan: route this value type elsewhere");
  using storage = tile_storage<T, policy::block_threads, policy::items_per_thread>;
  const index_t n = io.n;
  if (n == 0) return sink.put(space, init);
  const index_t tiles = (n + policy::tile - 1) / policy::tile;
  detail::look_back_storage<T, Kokkos::CudaSpace> state(space, tiles);
  Kokkos::Profiling::pushRegion(label + "::cuda_single_pass");
  const auto kernel = single_pass_kernel<policy::block_threads, policy::items_per_thread, IO, T>;
  if constexpr (storage::bytes > 48 * 1024)  // beyond the default dynamic limit: opt in
    cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, int(storage::bytes));
  bool direct_ok = false;
  if constexpr (direct_tile<IO, policy::items_per_thread>::eligible)
    direct_ok = direct_tile<IO, policy::items_per_thread>::usable(io);
  kernel<<<static_cast<unsigned>(tiles), policy::block_threads, storage::bytes, space.cuda_stream()>>>(
      io, init, exclusive, state.tiles(), state.template ticket<unsigned long long>(), direct_ok);
  Kokkos::Profiling::popRegion();
  check_launch(label + " (single-pass scan)");
  return sink.finish(space, state);
}

}  // namespace sweep::cuda
