// Kokkos::Cuda is of cuda_kind: the dispatch points take the kernels of
// lib/sweep/cuda/ for it. Included through sweep/backend.hpp only when
// Kokkos has CUDA and the compiler is nvcc.
#pragma once

#include <sweep/detail/space.hpp>

namespace sweep::detail {

template <>
struct space_kind<Kokkos::Cuda> {
  using type = cuda_kind;
};

}  // namespace sweep::detail
