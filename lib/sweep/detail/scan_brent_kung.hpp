// Brent-Kung: the same reduce tree as Blelloch's up-sweep, then an inclusive
// fan-out that adds each completed prefix into the middle of the next block
// at half the stride; in place, any n (no padding). Work < 2n, depth
// 2 log2(n).
#pragma once

#include <sweep/detail/scan_sequential.hpp>

#include <bit>

namespace sweep::detail {

template <class ExecSpace, class IO, class T = typename IO::value_type>
T scan_brent_kung(const ExecSpace& space, const IO& io, const T& init, bool exclusive, const std::string& label) {
  using Mem = typename ExecSpace::memory_space;
  const index_t n = io.n;
  Kokkos::View<T*, Mem> a(Kokkos::view_alloc(Kokkos::WithoutInitializing, label + "::tree"), n);
  Kokkos::parallel_for(
      label + "::load", sweep::detail::range_policy<ExecSpace>(space, 0, n),
      KOKKOS_LAMBDA(const index_t i) { a(i) = io.load(i); });
  reduce_tree(space, io, a, n, label);
  const index_t top = static_cast<index_t>(std::bit_floor(static_cast<std::uint64_t>(n)));
  for (index_t d = top / 2; d >= 1; d /= 2) {
    Kokkos::parallel_for(
        label + "::fan_out", sweep::detail::range_policy<ExecSpace>(space, 0, (n - d) / (2 * d)),
        KOKKOS_LAMBDA(const index_t k) {
          const index_t r = (k + 1) * 2 * d + d - 1;
          a(r) = io.combine(a(r - d), a(r));
        });
  }
  return finish_from_inclusive(space, io, a, init, exclusive, label);
}

}  // namespace sweep::detail
