// Stable radix sort of unsigned integer keys carrying values, built on
// Sweep's exclusive scan (the classic scan + scatter formulation).
//
//   sweep::sort_by_key([label,] space, keys, values [, sort_options]);
//   sweep::sort_permutation([label,] space, keys, perm);
//
// `keys` (uint32 or uint64) are sorted ascending in place and `values` (any
// trivially copyable type, same length) follow them; equal keys keep their
// order. `sort_permutation` fills `perm` (an integer View) with the original
// position of each sorted key, for gathering other arrays.
//
// LSD radix sort, 8 bits per pass. A reduction first finds the bits in
// which the keys differ; only the 8-bit digits holding such bits are sorted
// (Morton codes of clustered points, or small keys in 64-bit words, take
// fewer passes). Per pass: per-block digit counts, one exclusive scan of
// the digit-major count table, a stable scatter. Traffic per pass: read
// keys + values twice, write them once, plus the count table. The count
// table and (on host spaces) the scatter's staging buffers come from the
// space's workspace; the second key and value buffers are allocated per
// call.
//
// Errors: values shorter or longer than keys, overlapping keys and values ->
// std::invalid_argument naming both extents, nothing written. Key types
// other than unsigned integers, or Views the space cannot access ->
// compile-time error.
#pragma once

#include <sweep/core.hpp>
#include <sweep/detail/radix_sort.hpp>

#include <string>
#include <type_traits>

namespace sweep {

/// Run-time knobs of a radix sort.
struct sort_options {
  int end_bit = 0;  ///< sort by bits [0, end_bit) only (0: all bits of the key type)
};

namespace detail {

template <class ExecSpace, class KeyView, class ValueView>
constexpr void static_check_sort() {
  static_assert(Kokkos::is_execution_space<ExecSpace>::value,
                "sweep sort: the first argument must be a Kokkos execution space instance");
  static_assert(is_rank1_view_v<KeyView> && is_rank1_view_v<ValueView>, "sweep sort: keys and values must be rank-1 Views");
  static_assert(accessible_from_v<ExecSpace, KeyView> && accessible_from_v<ExecSpace, ValueView>,
                "sweep sort: keys and values must be accessible from the execution space");
  using K = typename KeyView::value_type;
  static_assert(std::is_integral_v<K> && std::is_unsigned_v<K> && (sizeof(K) == 4 || sizeof(K) == 8) &&
                    !std::is_const_v<K>,
                "sweep sort: keys must be a non-const View of uint32 or uint64");
  static_assert(!std::is_const_v<typename ValueView::value_type>, "sweep sort: values must be non-const");
  static_assert(std::is_trivially_copyable_v<typename ValueView::value_type>,
                "sweep sort: values must be trivially copyable");
}

}  // namespace detail

template <class ExecSpace, class KeyView, class ValueView>
  requires Kokkos::is_execution_space<ExecSpace>::value
void sort_by_key(const std::string& label, const ExecSpace& space, const KeyView& keys, const ValueView& values,
                 const sort_options& opt = {}) {
  detail::static_check_sort<ExecSpace, KeyView, ValueView>();
  detail::scoped_region region(label);
  const char* where = "sweep::sort_by_key";
  using K = typename KeyView::value_type;
  detail::require(values.extent(0) == keys.extent(0), where, "values has ", values.extent(0),
                  " elements but keys has ", keys.extent(0), "; they must be equally long");
  detail::require(!detail::overlap(keys, values), where, "keys and values overlap");
  detail::require(opt.end_bit >= 0 && opt.end_bit <= int(8 * sizeof(K)), where, "end_bit = ", opt.end_bit,
                  " must be in [0, ", 8 * sizeof(K), "]");
  detail::radix_sort(label, space, keys, values, opt.end_bit == 0 ? int(8 * sizeof(K)) : opt.end_bit);
}

template <class ExecSpace, class KeyView, class ValueView>
  requires Kokkos::is_execution_space<ExecSpace>::value
void sort_by_key(const ExecSpace& space, const KeyView& keys, const ValueView& values, const sort_options& opt = {}) {
  sort_by_key(std::string("sweep::sort_by_key"), space, keys, values, opt);
}

template <class ExecSpace, class KeyView, class PermView>
  requires Kokkos::is_execution_space<ExecSpace>::value
void sort_permutation(const std::string& label, const ExecSpace& space, const KeyView& keys, const PermView& perm,
                      const sort_options& opt = {}) {
  static_assert(std::is_integral_v<typename PermView::value_type>, "sweep::sort_permutation: perm must hold integers");
  detail::static_check_sort<ExecSpace, KeyView, PermView>();
  detail::require(perm.extent(0) == keys.extent(0), "sweep::sort_permutation", "perm has ", perm.extent(0),
                  " elements but keys has ", keys.extent(0), "; they must be equally long");
  using P = typename PermView::value_type;
  Kokkos::parallel_for(
      label + "::iota", sweep::detail::range_policy<ExecSpace>(space, 0, perm.extent(0)),
      KOKKOS_LAMBDA(const index_t i) { perm(i) = static_cast<P>(i); });
  sort_by_key(label, space, keys, perm, opt);
}

template <class ExecSpace, class KeyView, class PermView>
  requires Kokkos::is_execution_space<ExecSpace>::value
void sort_permutation(const ExecSpace& space, const KeyView& keys, const PermView& perm, const sort_options& opt = {}) {
  sort_permutation(std::string("sweep::sort_permutation"), space, keys, perm, opt);
}

}  // namespace sweep
