// The view of a scan problem every scan algorithm works on: element i of a
// forward scan, with direction folded into the index map and the operator
// (flipped for backward scans by the caller), plus the per-space tuning
// constants.
#pragma once

#include <sweep/core.hpp>
#include <sweep/tuning.hpp>
#include <sweep/detail/space.hpp>

#include <cstdint>
#include <cstring>
#include <type_traits>

namespace sweep::detail {

template <class InView, class OutView, class Op, bool Backward>
struct scan_io {
  using value_type = typename Op::value_type;
  using op_type = Op;
  using in_value = typename InView::value_type;
  static constexpr bool backward = Backward;
  InView in;
  OutView out;
  Op op;
  index_t n;

  KOKKOS_INLINE_FUNCTION index_t at(index_t i) const {
    if constexpr (Backward) return n - 1 - i;
    else return i;
  }
  KOKKOS_INLINE_FUNCTION value_type load(index_t i) const { return static_cast<value_type>(in(at(i))); }
  /// Reads back what an earlier pass stored (multi-pass algorithms).
  KOKKOS_INLINE_FUNCTION value_type reload(index_t i) const { return out(at(i)); }
  KOKKOS_INLINE_FUNCTION void store(index_t i, const value_type& v) const { out(at(i)) = v; }
  KOKKOS_INLINE_FUNCTION value_type combine(const value_type& a, const value_type& b) const { return op(a, b); }
  KOKKOS_INLINE_FUNCTION static value_type identity() { return Op::identity(); }
  /// Both Views are dense with unit stride (raw pointers may be used).
  bool unit_stride() const {
    return in.span_is_contiguous() && out.span_is_contiguous() && in.stride(0) == 1 && out.stride(0) == 1;
  }
};

/// A forward in-place scan over a plain buffer (tile sums, chunk totals).
template <class View, class Op>
using buffer_io = scan_io<View, View, Op, false>;

template <class View, class Op>
buffer_io<View, Op> make_buffer_io(const View& v, const Op& op) {
  return {v, v, op, static_cast<index_t>(v.extent(0))};
}

/// A load that always goes to memory (no register or L1 reuse), for values
/// another thread or block publishes while this one waits.
template <class T>
KOKKOS_INLINE_FUNCTION T volatile_load(const T* p) {
  static_assert(std::is_trivially_copyable_v<T>, "single-pass scans need trivially copyable values");
  // Volatile word (or byte) reads, then a memcpy into the value: no type
  // punning through pointers, which the optimiser may assume never aliases.
  T out{};
  if constexpr (alignof(T) >= 4 && sizeof(T) % 4 == 0) {
    std::uint32_t words[sizeof(T) / 4];
    auto src = reinterpret_cast<const volatile std::uint32_t*>(p);
    for (std::size_t k = 0; k < sizeof(T) / 4; ++k) words[k] = src[k];
    std::memcpy(&out, words, sizeof(T));
  } else {
    unsigned char bytes[sizeof(T)];
    auto src = reinterpret_cast<const volatile unsigned char*>(p);
    for (std::size_t k = 0; k < sizeof(T); ++k) bytes[k] = src[k];
    std::memcpy(&out, bytes, sizeof(T));
  }
  return out;
}

/// Copies one element of a device View to the host.
template <class View>
typename View::non_const_value_type read_element(const View& v, index_t i) {
  typename View::non_const_value_type h;
  Kokkos::deep_copy(h, Kokkos::subview(v, i));
  return h;
}

}  // namespace sweep::detail
