// One thread walks the sequence in order: the reference every other
// algorithm is checked against, and the fastest choice for tiny n on a CPU.
// Work n, depth n.
#pragma once

#include <sweep/detail/scan_io.hpp>
#include <sweep/detail/workspace.hpp>

namespace sweep::detail {

template <class ExecSpace, class IO, class T = typename IO::value_type>
T scan_sequential(const ExecSpace& space, const IO& io, const T& init, bool exclusive, const std::string& label) {
  using lease_t = workspace_lease<typename ExecSpace::memory_space>;
  lease_t lease(lease_t::piece(sizeof(T)));
  lease.release_after(space);  // an exception leaves the buffer pending on space
  const auto total = lease.template scalar<T>();
  Kokkos::parallel_for(
      label + "::sequential", sweep::detail::range_policy<ExecSpace>(space, 0, 1), KOKKOS_LAMBDA(const int) {
        T acc = init;
        for (index_t i = 0; i < io.n; ++i) {
          T next = io.combine(acc, io.load(i));
          io.store(i, exclusive ? acc : next);
          acc = next;
        }
        total() = acc;
      });
  T h;
  Kokkos::deep_copy(space, h, total);
  space.fence();
  lease.settled();
  return h;
}

/// Writes the final result from an inclusive prefix `incl` of the inputs
/// (without init) and returns init (+) everything.
template <class ExecSpace, class IO, class View, class T = typename IO::value_type>
T finish_from_inclusive(const ExecSpace& space, const IO& io, const View& incl, const T& init, bool exclusive,
                        const std::string& label) {
  Kokkos::parallel_for(
      label + "::finish", sweep::detail::range_policy<ExecSpace>(space, 0, io.n), KOKKOS_LAMBDA(const index_t i) {
        if (exclusive) io.store(i, i == 0 ? init : io.combine(init, incl(i - 1)));
        else io.store(i, io.combine(init, incl(i)));
      });
  return io.combine(init, read_element(space, incl, io.n - 1));
}

/// The reduce tree shared by Blelloch's up-sweep and Brent-Kung's fan-in:
/// at stride d, a(r) = a(r - d) (+) a(r) for every r = (k+1)*2d - 1 < m.
template <class ExecSpace, class IO, class View>
void reduce_tree(const ExecSpace& space, const IO& io, const View& a, index_t m, const std::string& label) {
  for (index_t d = 1; d < m; d *= 2) {
    Kokkos::parallel_for(
        label + "::up_sweep", sweep::detail::range_policy<ExecSpace>(space, 0, m / (2 * d)),
        KOKKOS_LAMBDA(const index_t k) {
          const index_t r = (k + 1) * 2 * d - 1;
          a(r) = io.combine(a(r - d), a(r));
        });
  }
}

}  // namespace sweep::detail
