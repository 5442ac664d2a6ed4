// Blelloch: work-efficient up-sweep (reduce tree) and down-sweep (clear the
// root, then at each level pass the prefix left and prefix (+) left-sum
// right) over a buffer padded with the identity to a power of two; the
// down-sweep yields the exclusive scan. Work O(n), depth 2 log2(n).
#pragma once

#include <sweep/detail/scan_sequential.hpp>

#include <bit>

namespace sweep::detail {

template <class ExecSpace, class IO, class T = typename IO::value_type>
T scan_blelloch(const ExecSpace& space, const IO& io, const T& init, bool exclusive, const std::string& label) {
  using Mem = typename ExecSpace::memory_space;
  const index_t n = io.n;
  const index_t m = static_cast<index_t>(std::bit_ceil(static_cast<std::uint64_t>(n)));
  Kokkos::View<T*, Mem> a(Kokkos::view_alloc(Kokkos::WithoutInitializing, label + "::tree"), m);
  Kokkos::parallel_for(
      label + "::load", sweep::detail::range_policy<ExecSpace>(space, 0, m),
      KOKKOS_LAMBDA(const index_t i) { a(i) = i < n ? io.load(i) : IO::identity(); });
  reduce_tree(space, io, a, m, label);
  const T all = read_element(space, a, m - 1);
  Kokkos::parallel_for(
      label + "::clear_root", sweep::detail::range_policy<ExecSpace>(space, 0, 1),
      KOKKOS_LAMBDA(const int) { a(m - 1) = IO::identity(); });
  for (index_t d = m / 2; d >= 1; d /= 2) {
    Kokkos::parallel_for(
        label + "::down_sweep", sweep::detail::range_policy<ExecSpace>(space, 0, m / (2 * d)),
        KOKKOS_LAMBDA(const index_t k) {
          const index_t r = (k + 1) * 2 * d - 1;
          const T left = a(r - d);
          a(r - d) = a(r);
          a(r) = io.combine(a(r), left);
        });
  }
  Kokkos::parallel_for(
      label + "::finish", sweep::detail::range_policy<ExecSpace>(space, 0, n), KOKKOS_LAMBDA(const index_t i) {
        const T before = a(i);
        io.store(i, io.combine(init, exclusive ? before : io.combine(before, io.load(i))));
      });
  return io.combine(init, all);
}

}  // namespace sweep::detail
