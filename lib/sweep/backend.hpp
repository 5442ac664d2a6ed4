// The one place that knows which backends this translation unit compiles.
//
// Every dispatch point of Sweep is a class template whose primary template
// is the portable Kokkos path (under detail/ or next to its capability) and
// which lib/sweep/host/ and lib/sweep/cuda/ specialise. The header holding
// a primary template defines SWEEP_DISPATCH_<NAME> and includes this file
// after the primary template; the section below for <NAME> then includes
// the enabled specialisations, once per translation unit. Nothing else in
// Sweep reads KOKKOS_ENABLE_* or __CUDACC__ to choose a backend.
//
// Adding a backend (HIP, SYCL, ...): a folder lib/sweep/<backend>/ with its
// specialisations, a kind in detail/space.hpp, and one include line per
// section here.
//
// Deliberately without #pragma once: each section guards itself.

#if defined(KOKKOS_ENABLE_CUDA) && defined(__CUDACC__)
#define SWEEP_BACKEND_CUDA 1
#else
#define SWEEP_BACKEND_CUDA 0
#endif

// space_kind: which kind a space is (detail/space.hpp).
#if defined(SWEEP_DISPATCH_SPACE) && !defined(SWEEP_SECTION_SPACE)
#define SWEEP_SECTION_SPACE
#if SWEEP_BACKEND_CUDA
#include <sweep/cuda/space.hpp>
#endif
#endif

// tuning<ExecSpace>: every tuning constant (tuning.hpp).
#if defined(SWEEP_DISPATCH_TUNING) && !defined(SWEEP_SECTION_TUNING)
#define SWEEP_SECTION_TUNING
#include <sweep/host/tuning.hpp>
#if SWEEP_BACKEND_CUDA
#include <sweep/cuda/tuning.hpp>
#endif
#endif

// scan_backend<ExecSpace>: plain and lifted scans (detail/scan_backend.hpp).
#if defined(SWEEP_DISPATCH_SCAN) && !defined(SWEEP_SECTION_SCAN)
#define SWEEP_SECTION_SCAN
#include <sweep/host/scan_backend.hpp>
#if SWEEP_BACKEND_CUDA
#include <sweep/cuda/scan_backend.hpp>
#endif
#endif

// bitmask_backend<ExecSpace>: pack, unpack, select (detail/bitmask_backend.hpp).
#if defined(SWEEP_DISPATCH_BITMASK) && !defined(SWEEP_SECTION_BITMASK)
#define SWEEP_SECTION_BITMASK
#include <sweep/host/bitmask_backend.hpp>
#if SWEEP_BACKEND_CUDA
#include <sweep/cuda/bitmask_backend.hpp>
#endif
#endif

// stencil_backend<ExecSpace>: the ocean's red-black rows (ocean/stencil_backend.hpp).
#if defined(SWEEP_DISPATCH_STENCIL) && !defined(SWEEP_SECTION_STENCIL)
#define SWEEP_SECTION_STENCIL
#include <sweep/host/stencil_backend.hpp>
#endif

// offsets_backend<ExecSpace>: segment offsets to head bits (detail/segment_heads.hpp).
#if defined(SWEEP_DISPATCH_OFFSETS) && !defined(SWEEP_SECTION_OFFSETS)
#define SWEEP_SECTION_OFFSETS
#include <sweep/host/offsets_backend.hpp>
#endif

// sort_backend<ExecSpace>: the radix sort's scatter (detail/radix_sort.hpp).
#if defined(SWEEP_DISPATCH_SORT) && !defined(SWEEP_SECTION_SORT)
#define SWEEP_SECTION_SORT
#include <sweep/host/sort_backend.hpp>
#endif

// gravity_backend<ExecSpace>: the Barnes-Hut force walk (nbody/gravity_backend.hpp).
#if defined(SWEEP_DISPATCH_GRAVITY) && !defined(SWEEP_SECTION_GRAVITY)
#define SWEEP_SECTION_GRAVITY
#include <sweep/host/gravity_backend.hpp>
#endif

// packet_backend<ExecSpace>: ray-packet lanes (raytrace/packet_backend.hpp).
#if defined(SWEEP_DISPATCH_PACKET) && !defined(SWEEP_SECTION_PACKET)
#define SWEEP_SECTION_PACKET
#include <sweep/host/packet_backend.hpp>
#endif

// What print_configuration reports of this translation unit's backends
// (configuration.hpp).
#if defined(SWEEP_DISPATCH_CONFIGURATION) && !defined(SWEEP_SECTION_CONFIGURATION)
#define SWEEP_SECTION_CONFIGURATION
namespace sweep::detail {
/// The Kokkos backends enabled, each after a space.
inline constexpr const char kokkos_backends[] = ""
#if defined(KOKKOS_ENABLE_SERIAL)
                                                " Serial"
#endif
#if defined(KOKKOS_ENABLE_OPENMP)
                                                " OpenMP"
#endif
#if defined(KOKKOS_ENABLE_THREADS)
                                                " Threads"
#endif
#if defined(KOKKOS_ENABLE_CUDA)
                                                " Cuda"
#endif
#if defined(KOKKOS_ENABLE_HIP)
                                                " HIP"
#endif
#if defined(KOKKOS_ENABLE_SYCL)
                                                " SYCL"
#endif
    ;
/// True when Sweep's hand-written CUDA kernels are compiled in (lib/sweep/cuda/).
inline constexpr bool cuda_kernels = SWEEP_BACKEND_CUDA;
}  // namespace sweep::detail
#endif
