// Tuning constants of Kokkos::Cuda: the portable (GPU-shaped) defaults of
// sweep/tuning.hpp for the portable kernels, plus the hand-written
// kernels' policies per value size (cuda/policy.hpp).
#pragma once

#include <sweep/cuda/policy.hpp>
#include <sweep/tuning.hpp>

namespace sweep {

template <>
struct tuning<Kokkos::Cuda, detail::cuda_kind> : tuning<Kokkos::Cuda, detail::portable_kind> {
  /// The single-pass scan kernel's block and tile per value size.
  template <std::size_t Bytes>
  using scan_policy = cuda::scan_policy<Bytes>;
  /// The bitmask kernels' blocks.
  using bitmask_policy = cuda::bitmask_policy;
};

}  // namespace sweep
