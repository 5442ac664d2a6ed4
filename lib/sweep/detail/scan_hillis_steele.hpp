// Hillis-Steele: log2(n) data-parallel steps, step d combining each element
// with the one 2^d before it (double-buffered). Work O(n log n), depth
// O(log n): the lecture's first data-parallel scan, bandwidth-bound at
// 2 log2(n) passes over the data.
#pragma once

#include <sweep/detail/scan_sequential.hpp>

#include <utility>

namespace sweep::detail {

template <class ExecSpace, class IO, class T = typename IO::value_type>
T scan_hillis_steele(const ExecSpace& space, const IO& io, const T& init, bool exclusive,
                     const std::string& label) {
  using Mem = typename ExecSpace::memory_space;
  const index_t n = io.n;
  Kokkos::View<T*, Mem> a(Kokkos::view_alloc(Kokkos::WithoutInitializing, label + "::ping"), n);
  Kokkos::View<T*, Mem> b(Kokkos::view_alloc(Kokkos::WithoutInitializing, label + "::pong"), n);
  Kokkos::parallel_for(
      label + "::load", sweep::detail::range_policy<ExecSpace>(space, 0, n),
      KOKKOS_LAMBDA(const index_t i) { a(i) = io.load(i); });
  for (index_t d = 1; d < n; d *= 2) {
    Kokkos::parallel_for(
        label + "::step", sweep::detail::range_policy<ExecSpace>(space, 0, n), KOKKOS_LAMBDA(const index_t i) {
          b(i) = i >= d ? io.combine(a(i - d), a(i)) : a(i);
        });
    std::swap(a, b);
  }
  return finish_from_inclusive(space, io, a, init, exclusive, label);
}

}  // namespace sweep::detail
