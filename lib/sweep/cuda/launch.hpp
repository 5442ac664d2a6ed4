// What Sweep's CUDA kernels share: the full-warp lane mask and the check
// after a kernel launch. Included only when Kokkos has CUDA and the
// compiler is nvcc.
#pragma once

#include <stdexcept>
#include <string>

namespace sweep::cuda {

constexpr unsigned full_warp = 0xffffffffu;

/// Throws std::runtime_error naming `where` if the last launch failed.
inline void check_launch(const std::string& where) {
  const cudaError_t err = cudaGetLastError();
  if (err != cudaSuccess) throw std::runtime_error(where + ": CUDA launch failed: " + cudaGetErrorString(err));
}

}  // namespace sweep::cuda
