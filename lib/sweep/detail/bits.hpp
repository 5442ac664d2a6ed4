// Bit counting on 64-bit words, on the host and in CUDA device code.
#pragma once

#include <Kokkos_Core.hpp>

#include <cstdint>

namespace sweep::detail {

KOKKOS_FORCEINLINE_FUNCTION int popcount64(std::uint64_t x) {
#if defined(__CUDA_ARCH__)
  return __popcll(x);
#else
  return __builtin_popcountll(x);
#endif
}

/// Index of the lowest set bit (x != 0).
KOKKOS_FORCEINLINE_FUNCTION int ctz64(std::uint64_t x) {
#if defined(__CUDA_ARCH__)
  return __ffsll(static_cast<long long>(x)) - 1;
#else
  return __builtin_ctzll(x);
#endif
}

}  // namespace sweep::detail
