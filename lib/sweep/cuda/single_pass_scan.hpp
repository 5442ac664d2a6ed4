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
// 64-bit sizes throughout.
#pragma once

#include <sweep/cuda/launch.hpp>
#include <sweep/cuda/look_back_warp.hpp>
#include <sweep/cuda/policy.hpp>
#include <sweep/cuda/warp_scan.hpp>
#include <sweep/detail/look_back.hpp>

#include <Kokkos_Core.hpp>

#include <string>

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

/// Shared-memory slot of tile element j: one pad slot per 32 elements, so
/// the blocked reads (thread t reads t * Items + k) do not pile onto a few
/// banks when Items is a multiple of two.
__device__ __forceinline__ int padded(int j) { return j + (j >> 5); }

template <int Threads, int Items, class IO, class T = typename IO::value_type>
__global__ void __launch_bounds__(Threads) single_pass_kernel(IO io, T init, bool exclusive, detail::look_back_tiles<T> tiles,
                                                              unsigned long long* ticket) {
  constexpr int tile = Threads * Items;
  using storage = tile_storage<T, Threads, Items>;
  extern __shared__ __align__(16) unsigned char shared_bytes[];
  T* items = reinterpret_cast<T*>(shared_bytes + storage::items);
  T* warps = reinterpret_cast<T*>(shared_bytes + storage::warps);
  T* tile_prefix = reinterpret_cast<T*>(shared_bytes + storage::prefix);
  __shared__ long long tile_id;
  if (threadIdx.x == 0) tile_id = static_cast<long long>(atomicAdd(ticket, 1ull));
  __syncthreads();
  const index_t c = tile_id;
  const index_t first = c * tile;
  const int count = io.n - first < tile ? int(io.n - first) : tile;
  const io_monoid<IO> op{io};

  // Coalesced load into shared memory, then each thread its run of Items.
#pragma unroll
  for (int k = 0; k < Items; ++k) {
    const int j = k * Threads + int(threadIdx.x);
    if (j < count) items[padded(j)] = io.load(first + j);
  }
  __syncthreads();
  T vals[Items];
  T local = IO::identity();
#pragma unroll
  for (int k = 0; k < Items; ++k) {
    const int j = int(threadIdx.x) * Items + k;
    vals[k] = j < count ? items[padded(j)] : IO::identity();
    local = io.combine(local, vals[k]);
  }
  T aggregate;
  const T before = block_exclusive_scan<Threads>(local, op, aggregate, warps);

  if (threadIdx.x < 32) {
    const T prefix = warp_look_back(io, tiles, c, aggregate, init);
    if (threadIdx.x == 0) tile_prefix[0] = prefix;
  }
  __syncthreads();

  // Each thread scans its items from its prefix, back into shared memory.
  T run = io.combine(tile_prefix[0], before);
#pragma unroll
  for (int k = 0; k < Items; ++k) {
    const int j = int(threadIdx.x) * Items + k;
    const T next = io.combine(run, vals[k]);
    if (j < count) items[padded(j)] = exclusive ? run : next;
    run = next;
  }
  __syncthreads();
#pragma unroll
  for (int k = 0; k < Items; ++k) {
    const int j = k * Threads + int(threadIdx.x);
    if (j < count) io.store(first + j, items[padded(j)]);
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
  kernel<<<static_cast<unsigned>(tiles), policy::block_threads, storage::bytes, space.cuda_stream()>>>(
      io, init, exclusive, state.tiles(), state.template ticket<unsigned long long>());
  Kokkos::Profiling::popRegion();
  check_launch(label + " (single-pass scan)");
  return sink.finish(space, state);
}

}  // namespace sweep::cuda
