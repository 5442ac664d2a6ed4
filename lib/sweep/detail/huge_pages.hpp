// Transparent huge pages for large host arrays Sweep allocates itself
// (the ocean's grids). A walk that crosses many 4 KiB pages per step (a
// block-major row visits every tile of a row of tiles; a red-black sweep
// reads three rows and f) misses the TLB far more often on 4 KiB pages:
// on Linux, where transparent huge pages are "madvise" by default, the
// 2 MiB-aligned part of the array is marked for huge pages before it is
// first touched. Advice only: where the kernel or the memory space does
// not take it, nothing changes.
#pragma once

#include <Kokkos_Core.hpp>

#include <cstddef>
#include <cstdint>
#include <type_traits>

#if defined(__linux__)
#include <sys/mman.h>
#endif

namespace sweep::detail {

/// Asks for huge pages over the 2 MiB-aligned part of [p, p + bytes) if
/// MemorySpace is host memory; call it before the memory is first touched.
template <class MemorySpace>
void advise_huge_pages([[maybe_unused]] void* p, [[maybe_unused]] std::size_t bytes) {
#if defined(__linux__) && defined(MADV_HUGEPAGE)
  if constexpr (std::is_same_v<MemorySpace, Kokkos::HostSpace>) {
    constexpr std::uintptr_t huge = std::uintptr_t(2) << 20;
    const std::uintptr_t b = (reinterpret_cast<std::uintptr_t>(p) + huge - 1) & ~(huge - 1);
    const std::uintptr_t e = (reinterpret_cast<std::uintptr_t>(p) + bytes) & ~(huge - 1);
    if (e > b) (void)madvise(reinterpret_cast<void*>(b), e - b, MADV_HUGEPAGE);  // advice: a refusal changes nothing
  }
#endif
}

}  // namespace sweep::detail
