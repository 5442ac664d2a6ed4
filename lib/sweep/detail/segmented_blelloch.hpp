// Blelloch's segmented scan (Blelloch 1990, "Prefix sums and their
// applications", 1.5): the work-efficient up-sweep / down-sweep of the
// plain scan, with head flags carried along. The up-sweep combines a node
// with its left sibling only when the node's subtree holds no head, and
// ORs the flags upward. The down-sweep hands the parent's prefix left, and
// to the right child either the identity (the right child's first element
// is a head: the copy of the original flags answers that), the left
// subtree's sum alone (the left subtree holds a head), or prefix (+) left
// sum. The tree is padded with heads to a power of two. Work O(n), depth
// 2 log2(n), three arrays of m = bit_ceil(n) entries.
#pragma once

#include <sweep/detail/scan_io.hpp>

#include <bit>
#include <cstdint>

namespace sweep::detail {

template <class ExecSpace, class IO>
void segmented_scan_blelloch(const ExecSpace& space, const IO& io, const std::string& label) {
  using Mem = typename ExecSpace::memory_space;
  using T = typename IO::base_value;
  using Flags = Kokkos::View<std::uint8_t*, Mem>;
  const index_t n = io.n;
  const index_t m = static_cast<index_t>(std::bit_ceil(static_cast<std::uint64_t>(n)));
  Kokkos::View<T*, Mem> a(Kokkos::view_alloc(Kokkos::WithoutInitializing, label + "::tree"), m);
  Flags f(Kokkos::view_alloc(Kokkos::WithoutInitializing, label + "::flags"), m);
  Flags original(Kokkos::view_alloc(Kokkos::WithoutInitializing, label + "::original_flags"), m);
  const auto op = io.op.op;
  Kokkos::parallel_for(
      label + "::load", sweep::detail::range_policy<ExecSpace>(space, 0, m), KOKKOS_LAMBDA(const index_t i) {
        if (i < n) {
          const auto p = io.load(i);
          a(i) = p.v;
          f(i) = original(i) = p.mark ? 1 : 0;
        } else {
          a(i) = IO::op_type::identity().v;
          f(i) = original(i) = 1;
        }
      });
  for (index_t d = 1; d < m; d *= 2) {
    Kokkos::parallel_for(
        label + "::up_sweep", sweep::detail::range_policy<ExecSpace>(space, 0, m / (2 * d)),
        KOKKOS_LAMBDA(const index_t k) {
          const index_t r = (k + 1) * 2 * d - 1;
          if (!f(r)) a(r) = op(a(r - d), a(r));
          f(r) = f(r) | f(r - d);
        });
  }
  Kokkos::parallel_for(
      label + "::clear_root", sweep::detail::range_policy<ExecSpace>(space, 0, 1),
      KOKKOS_LAMBDA(const int) { a(m - 1) = IO::op_type::identity().v; });
  for (index_t d = m / 2; d >= 1; d /= 2) {
    Kokkos::parallel_for(
        label + "::down_sweep", sweep::detail::range_policy<ExecSpace>(space, 0, m / (2 * d)),
        KOKKOS_LAMBDA(const index_t k) {
          const index_t r = (k + 1) * 2 * d - 1;
          const T left = a(r - d);
          a(r - d) = a(r);
          if (original(r - d + 1)) a(r) = IO::op_type::identity().v;
          else if (f(r - d)) a(r) = left;
          else a(r) = op(a(r), left);
          f(r - d) = 0;
        });
  }
  // a(i) is now the exclusive segmented prefix (the identity at heads).
  Kokkos::parallel_for(
      label + "::finish", sweep::detail::range_policy<ExecSpace>(space, 0, n), KOKKOS_LAMBDA(const index_t i) {
        auto p = io.load(i);
        p.v = io.exclusive ? a(i) : op(a(i), p.v);
        io.store(i, p);
      });
}

}  // namespace sweep::detail
