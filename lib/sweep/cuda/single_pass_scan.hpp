// Device-wide single-pass scan with decoupled look-back on CUDA, for any
// scan io of Sweep's (plain scans in either direction, and the lifted
// (head, value) operator of the segmented scans).
//
// Tiles of block_threads x items_per_thread values (scan_policy per value
// size) are handed out in order by an atomic ticket, so a tile's
// predecessors are always resident. A block loads its tile coalesced into
// shared memory, each thread folds its items, the block scans the thread
// totals (warp shuffles, then the warps' totals), and thread 0 runs the
// look-back of detail/look_back.hpp: it publishes
// the tile's aggregate (or its inclusive prefix, when the aggregate closes
// the prefix: a segment head), walks back over its predecessors' published
// values to the nearest inclusive prefix, and publishes its own. Every
// thread then scans its items from its prefix and the tile is stored
// coalesced. One read and one write per element: the traffic of a copy.
// 64-bit sizes throughout.
#pragma once

#include <sweep/cuda/launch.hpp>
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
  __shared__ shared_array<T, tile + tile / 32> items;
  __shared__ shared_array<T, Threads / 32> warps;
  __shared__ shared_array<T, 1> tile_prefix;
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

  if (threadIdx.x == 0) tile_prefix[0] = tiles.resolve(io, c, aggregate, init);
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

/// The scan of `io` on the space's stream; returns the total (init folded
/// in), as detail::scan_single_pass does.
template <class IO, class T = typename IO::value_type>
T single_pass_scan(const Kokkos::Cuda& space, const IO& io, const T& init, bool exclusive, const std::string& label) {
  using policy = scan_policy<sizeof(T)>;
  const index_t n = io.n;
  if (n == 0) return init;
  const index_t tiles = (n + policy::tile - 1) / policy::tile;
  const detail::look_back_storage<T, Kokkos::CudaSpace> storage(label, tiles);
  Kokkos::View<unsigned long long, Kokkos::CudaSpace> ticket(label + "::ticket");
  space.fence();  // the zeroed status words and ticket are in place
  Kokkos::Profiling::pushRegion(label + "::cuda_single_pass");
  single_pass_kernel<policy::block_threads, policy::items_per_thread>
      <<<static_cast<unsigned>(tiles), policy::block_threads, 0, space.cuda_stream()>>>(io, init, exclusive, storage.tiles(), ticket.data());
  Kokkos::Profiling::popRegion();
  check_launch(label + " (single-pass scan)");
  return storage.total();
}

}  // namespace sweep::cuda
