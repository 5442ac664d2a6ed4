// The one classifier of execution spaces. Every backend decision in Sweep
// starts from space_kind_t<ExecSpace>:
//   host_kind      the space runs on the host CPU (OpenMP, Serial, Threads):
//                  the raw-pointer and SIMD paths of lib/sweep/host/ apply;
//   cuda_kind      Kokkos::Cuda: the kernels of lib/sweep/cuda/
//                  (cuda/space.hpp specialises space_kind for it);
//   portable_kind  any other device space: the portable Kokkos paths.
// "Runs on the host" is asked of the execution space (can it dereference
// HostSpace?), never of its default memory space: on a CUDA build whose
// default memory is UVM, the host can read Cuda's memory, yet Cuda is no
// host space.
#pragma once

#include <Kokkos_Core.hpp>

#include <type_traits>

namespace sweep::detail {

struct host_kind {};
struct cuda_kind {};
struct portable_kind {};

template <class ExecSpace>
struct space_kind {
  using type = std::conditional_t<Kokkos::SpaceAccessibility<ExecSpace, Kokkos::HostSpace>::accessible, host_kind,
                                  portable_kind>;
};

template <class ExecSpace>
using space_kind_t = typename space_kind<ExecSpace>::type;

/// True for execution spaces that run on the host.
template <class ExecSpace>
inline constexpr bool is_host_space_v = std::is_same_v<space_kind_t<ExecSpace>, host_kind>;

}  // namespace sweep::detail

#define SWEEP_DISPATCH_SPACE
#include <sweep/backend.hpp>
