// The look-back walk of detail/look_back.hpp run by a whole warp, as CUB's
// tile prefix callback does: lane k reads predecessor c-1-k, so one step
// covers 32 predecessors. The warp waits (with a bounded exponential
// backoff, so spinning tiles leave issue slots to the tiles they wait on)
// until no tile of the window is empty, finds the nearest inclusive prefix
// with a ballot, folds the window's values up to it in index order with a
// reversed shuffle reduction, and moves to the next 32 if there was none.
// Publishing is detail/look_back.hpp's, unchanged, so a tile walked by one
// thread and a tile walked by a warp interoperate.
// Included only when Kokkos has CUDA and the compiler is nvcc.
#pragma once

#include <sweep/cuda/launch.hpp>
#include <sweep/cuda/warp_scan.hpp>
#include <sweep/detail/look_back.hpp>


namespace sweep::cuda {

/// v from the lane `delta` above (a lane past 31 gets its own value back).
template <class T>
__device__ __forceinline__ T shuffle_down(const T& v, unsigned delta) {
  return shuffle_words(v, [delta](unsigned w) { return __shfl_down_sync(full_warp, w, delta); });
}

/// Lane 0's v in every lane.
template <class T>
__device__ __forceinline__ T broadcast_lane0(const T& v) {
  return shuffle_words(v, [](unsigned w) { return __shfl_sync(full_warp, w, 0); });
}

/// Lane 0 gets v[31] (+) v[30] (+) ... (+) v[0]: the higher lane is the
/// left operand, because lane k holds an earlier tile than lane k-1.
template <class T, class IO>
__device__ __forceinline__ T warp_fold_reversed(T v, const IO& io) {
  const unsigned lane = threadIdx.x & 31u;
#pragma unroll
  for (unsigned d = 1; d < 32; d <<= 1) {
    const T other = shuffle_down(v, d);
    if (lane + d < 32) v = io.combine(other, v);
  }
  return v;
}

/// Pause between polls of a window that still has running tiles.
__device__ __forceinline__ void look_back_backoff(unsigned& ns) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 700
  __nanosleep(ns);
#endif
  ns = ns < 512u ? 2u * ns : 1024u;
}

/// Called by all 32 lanes of the tile's first warp with the tile's
/// `aggregate` (the same value in every lane): returns, in every lane, the
/// fold of `init` and every element before tile `c`, and publishes the
/// tile's values as detail::look_back_tiles::resolve does.
template <class IO, class T>
__device__ T warp_look_back(const IO& io, const detail::look_back_tiles<T>& tiles, index_t c, const T& aggregate,
                            const T& init) {
  const int lane = int(threadIdx.x & 31u);
  if (c == 0) {
    if (lane == 0) tiles.publish_first(io, aggregate, init);
    return init;
  }
  bool closed = false;
  if (lane == 0) closed = tiles.template publish_aggregate<IO>(c, aggregate);
  closed = __shfl_sync(full_warp, int(closed), 0) != 0;

  T behind = IO::identity();
  index_t newest = c - 1;  // the window is tiles newest, newest-1, ..., newest-31
  unsigned ns = 32;
  while (true) {
    const index_t j = newest - lane;
    // Lanes before tile 0 stand for nothing; tile 0 always publishes an
    // inclusive prefix, so the walk stops at or above it.
    int f = j >= 0 ? tiles.status(j) : int(detail::chunk_inclusive);
    while (__any_sync(full_warp, f == detail::chunk_empty)) {
      look_back_backoff(ns);
      if (f == detail::chunk_empty) f = tiles.status(j);
    }
    __threadfence();
    const unsigned inclusive = __ballot_sync(full_warp, f == detail::chunk_inclusive);
    const int stop = inclusive ? __ffs(int(inclusive)) - 1 : 32;  // nearest inclusive lane
    const T v = lane < stop ? tiles.aggregate_of(j) : lane == stop ? tiles.inclusive_of(j) : IO::identity();
    const T window = warp_fold_reversed(v, io);
    behind = io.combine(broadcast_lane0(window), behind);  // lane 0's fold, in every lane
    if (stop < 32) break;
    newest -= 32;
  }
  if (lane == 0) tiles.publish_prefix(io, c, behind, aggregate, closed);
  return behind;
}

}  // namespace sweep::cuda
