// Warp- and block-level scans for any monoid on CUDA (the register
// versions of the lecture's scan_warp and scan_block): five __shfl_up_sync
// steps per warp, then the warps' totals scanned by the first warp through
// shared memory. Values of any trivially copyable type travel through the
// shuffles as 32-bit words. Operands keep their order (the lower lane's
// value is the left operand), so non-commutative monoids are exact.
// Included only when Kokkos has CUDA and the compiler is nvcc.
#pragma once

#include <sweep/cuda/launch.hpp>

#include <cstring>
#include <type_traits>

namespace sweep::cuda {

/// v moved through a warp shuffle word by word (32 bits at a time):
/// `move(word)` is one __shfl_*_sync. Any trivially copyable value travels.
template <class T, class Move>
__device__ __forceinline__ T shuffle_words(const T& v, const Move& move) {
  static_assert(std::is_trivially_copyable_v<T>, "sweep::cuda: scanned values must be trivially copyable");
  constexpr int words = int((sizeof(T) + 3) / 4);
  unsigned w[words];
  std::memcpy(w, &v, sizeof(T));
#pragma unroll
  for (int k = 0; k < words; ++k) w[k] = move(w[k]);
  T out;
  std::memcpy(&out, w, sizeof(T));
  return out;
}

/// v from the lane `delta` below (a lane below 0 gets its own value back).
template <class T>
__device__ __forceinline__ T shuffle_up(const T& v, unsigned delta) {
  return shuffle_words(v, [delta](unsigned w) { return __shfl_up_sync(full_warp, w, delta); });
}

/// Inclusive scan across the 32 lanes of a full warp.
template <class T, class Op>
__device__ __forceinline__ T warp_inclusive_scan(T v, const Op& op) {
  const unsigned lane = threadIdx.x & 31u;
#pragma unroll
  for (unsigned d = 1; d < 32; d <<= 1) {
    const T up = shuffle_up(v, d);
    if (lane >= d) v = op(up, v);
  }
  return v;
}

/// Exclusive scan of one value per thread across the block (blockDim.x ==
/// Threads, a multiple of 32); returns the thread's exclusive prefix and
/// sets `total` to the block's fold. `warps` is shared storage for
/// Threads / 32 values. Ends with the block synchronised.
template <int Threads, class T, class Op>
__device__ __forceinline__ T block_exclusive_scan(const T& v, const Op& op, T& total, T* warps) {
  constexpr int nwarps = Threads / 32;
  const int lane = int(threadIdx.x & 31u), warp = int(threadIdx.x >> 5);
  const T inclusive = warp_inclusive_scan(v, op);
  const T before = shuffle_up(inclusive, 1);
  if (lane == 31) warps[warp] = inclusive;
  __syncthreads();
  if (warp == 0) {
    T w = lane < nwarps ? warps[lane] : Op::identity();
    w = warp_inclusive_scan(w, op);
    if (lane < nwarps) warps[lane] = w;
  }
  __syncthreads();
  total = warps[nwarps - 1];
  const T warp_prefix = warp == 0 ? Op::identity() : warps[warp - 1];
  const T result = lane == 0 ? warp_prefix : op(warp_prefix, before);
  __syncthreads();
  return result;
}

}  // namespace sweep::cuda
