// Device-wide single-pass scan with decoupled look-back on CUDA, for any
// scan io of Sweep's (plain scans in either direction, and the lifted
// (head, value) operator of the segmented scans).
//
// Tiles of block_threads x items_per_thread values (scan_policy per value
// size) are handed out in order by an atomic ticket, so a tile's
// predecessors are always resident. A block loads its tile coalesced into
// shared memory, each thread folds its items, the block scans the thread
// totals (warp shuffles, then the warps' totals), and thread 0 publishes
// the tile's aggregate (or its inclusive prefix, when the aggregate closes
// the prefix: a segment head), walks back over its predecessors' published
// values to the nearest inclusive prefix, and publishes its own. Every
// thread then scans its items from its prefix and the tile is stored
// coalesced. One read and one write per element: the traffic of a copy.
// 64-bit sizes throughout.
#pragma once

#if defined(KOKKOS_ENABLE_CUDA) && defined(__CUDACC__)

#include <sweep/cuda/launch.hpp>
#include <sweep/cuda/policy.hpp>
#include <sweep/cuda/warp_scan.hpp>
#include <sweep/detail/scan_single_pass.hpp>

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

template <class T>
struct look_back_state {
  int* flags;  // detail::chunk_empty / chunk_aggregate / chunk_inclusive
  T* aggregates;
  T* inclusives;
  unsigned long long* ticket;
};

/// Shared-memory slot of tile element j: one pad slot per 32 elements, so
/// the blocked reads (thread t reads t * Items + k) do not pile onto a few
/// banks when Items is a multiple of two.
__device__ __forceinline__ int padded(int j) { return j + (j >> 5); }

template <int Threads, int Items, class IO, class T = typename IO::value_type>
__global__ void __launch_bounds__(Threads) single_pass_kernel(IO io, T init, bool exclusive, look_back_state<T> st) {
  constexpr int tile = Threads * Items;
  __shared__ shared_array<T, tile + tile / 32> items;
  __shared__ shared_array<T, Threads / 32> warps;
  __shared__ shared_array<T, 1> tile_prefix;
  __shared__ long long tile_id;
  if (threadIdx.x == 0) tile_id = static_cast<long long>(atomicAdd(st.ticket, 1ull));
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

  if (threadIdx.x == 0) {
    T prefix = init;
    if (c == 0) {
      st.inclusives[0] = io.combine(init, aggregate);
      __threadfence();
      atomicExch(&st.flags[0], int(detail::chunk_inclusive));
    } else {
      const bool closed = detail::closes_prefix<IO>(aggregate);
      if (closed) {
        st.inclusives[c] = aggregate;
        __threadfence();
        atomicExch(&st.flags[c], int(detail::chunk_inclusive));
      } else {
        st.aggregates[c] = aggregate;
        __threadfence();
        atomicExch(&st.flags[c], int(detail::chunk_aggregate));
      }
      T behind = IO::identity();
      index_t j = c - 1;
      while (true) {
        const int f = detail::volatile_load(&st.flags[j]);
        if (f == detail::chunk_empty) continue;  // the predecessor is still folding
        __threadfence();
        if (f == detail::chunk_inclusive) {
          behind = io.combine(detail::volatile_load(&st.inclusives[j]), behind);
          break;
        }
        behind = io.combine(detail::volatile_load(&st.aggregates[j]), behind);
        --j;
      }
      prefix = behind;
      if (!closed) {
        st.inclusives[c] = io.combine(prefix, aggregate);
        __threadfence();
        atomicExch(&st.flags[c], int(detail::chunk_inclusive));
      }
    }
    tile_prefix[0] = prefix;
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

/// The scan of `io` on the space's stream; returns the total (init folded
/// in), as detail::scan_single_pass does.
template <class IO, class T = typename IO::value_type>
T single_pass_scan(const Kokkos::Cuda& space, const IO& io, const T& init, bool exclusive, const std::string& label) {
  using policy = scan_policy<sizeof(T)>;
  const index_t n = io.n;
  if (n == 0) return init;
  const index_t tiles = (n + policy::tile - 1) / policy::tile;
  Kokkos::View<int*, Kokkos::CudaSpace> flags(label + "::flags", tiles);
  Kokkos::View<T*, Kokkos::CudaSpace> aggregates(Kokkos::view_alloc(Kokkos::WithoutInitializing, label + "::aggregates"), tiles);
  Kokkos::View<T*, Kokkos::CudaSpace> inclusives(Kokkos::view_alloc(Kokkos::WithoutInitializing, label + "::inclusives"), tiles);
  Kokkos::View<unsigned long long, Kokkos::CudaSpace> ticket(label + "::ticket");
  space.fence();  // the zeroed flags and ticket are in place
  const look_back_state<T> st{flags.data(), aggregates.data(), inclusives.data(), ticket.data()};
  Kokkos::Profiling::pushRegion(label + "::cuda_single_pass");
  single_pass_kernel<policy::block_threads, policy::items_per_thread>
      <<<static_cast<unsigned>(tiles), policy::block_threads, 0, space.cuda_stream()>>>(io, init, exclusive, st);
  Kokkos::Profiling::popRegion();
  check_launch(label + " (single-pass scan)");
  return detail::read_element(inclusives, tiles - 1);
}

}  // namespace sweep::cuda

#endif
