// Operators for Sweep's scans and reductions. A monoid is a type with a
// `value_type`, a static `identity()` and a const `operator()(a, b)`, all
// callable on host and device. Only associativity is ever assumed: Sweep
// never reorders operands, so non-commutative monoids (matrix products,
// affine-map composition) give exact results.
//
// minimum and maximum are exact and the same on every algorithm and
// backend, NaN and signed zeros included:
//   - NaN propagates: a result that combines a NaN is NaN, and it is the
//     first NaN in sequence order (its payload kept); the identity is
//     +/-infinity, so NaN never turns into it. (A bare `b < a ? b : a`
//     is not associative with NaN: whether a NaN survived would depend on
//     the algorithm's tree.)
//   - Otherwise ties keep the earlier operand: min(-0.0, +0.0) is -0.0 and
//     min(+0.0, -0.0) is +0.0, so a scan returns the first of the equal
//     extreme values.
// Integers and user types need only operator< (and the NaN test, x != x,
// is made for floating-point types alone).
#pragma once

#include <Kokkos_Core.hpp>

#include <concepts>
#include <limits>
#include <type_traits>

namespace sweep {

/// The requirements on a user operator.
template <class Op>
concept monoid = requires(const Op& op, const typename Op::value_type& a) {
  typename Op::value_type;
  { Op::identity() } -> std::convertible_to<typename Op::value_type>;
  { op(a, a) } -> std::convertible_to<typename Op::value_type>;
};

template <class T>
struct plus {
  using value_type = T;
  KOKKOS_INLINE_FUNCTION static constexpr T identity() { return T(0); }
  KOKKOS_INLINE_FUNCTION constexpr T operator()(const T& a, const T& b) const { return static_cast<T>(a + b); }
};

template <class T>
struct multiplies {
  using value_type = T;
  KOKKOS_INLINE_FUNCTION static constexpr T identity() { return T(1); }
  KOKKOS_INLINE_FUNCTION constexpr T operator()(const T& a, const T& b) const { return static_cast<T>(a * b); }
};

namespace detail {

/// The largest value of T (infinity where T has one), as a constant
/// expression device compilers accept (std::numeric_limits' members are
/// host functions to nvcc).
template <class T>
KOKKOS_INLINE_FUNCTION constexpr T greatest() {
  if constexpr (std::is_floating_point_v<T>) {
    return static_cast<T>(__builtin_huge_val());
  } else if constexpr (std::is_integral_v<T> && std::is_signed_v<T>) {
    return static_cast<T>(static_cast<std::make_unsigned_t<T>>(~std::make_unsigned_t<T>(0)) >> 1);
  } else if constexpr (std::is_integral_v<T>) {
    return static_cast<T>(~T(0));
  } else {
    return std::numeric_limits<T>::max();
  }
}

/// The smallest value of T (minus infinity where T has one).
template <class T>
KOKKOS_INLINE_FUNCTION constexpr T least() {
  if constexpr (std::is_floating_point_v<T>) return -greatest<T>();
  else if constexpr (std::is_integral_v<T> && std::is_signed_v<T>) return static_cast<T>(-greatest<T>() - 1);
  else if constexpr (std::is_integral_v<T>) return T(0);
  else return std::numeric_limits<T>::lowest();
}

}  // namespace detail

namespace detail {

/// b replaces a in minimum/maximum when b is a NaN and a is not (NaN
/// propagates, the first one wins); never for types without NaN.
template <class T>
KOKKOS_INLINE_FUNCTION constexpr bool nan_takes_over(const T& a, const T& b) {
  if constexpr (std::is_floating_point_v<T>) return b != b && a == a;
  else return false;
}

}  // namespace detail

template <class T>
struct minimum {
  using value_type = T;
  KOKKOS_INLINE_FUNCTION static constexpr T identity() { return detail::greatest<T>(); }
  KOKKOS_INLINE_FUNCTION constexpr T operator()(const T& a, const T& b) const {
    return (b < a || detail::nan_takes_over(a, b)) ? b : a;
  }
};

template <class T>
struct maximum {
  using value_type = T;
  KOKKOS_INLINE_FUNCTION static constexpr T identity() { return detail::least<T>(); }
  KOKKOS_INLINE_FUNCTION constexpr T operator()(const T& a, const T& b) const {
    return (a < b || detail::nan_takes_over(a, b)) ? b : a;
  }
};

template <class T>
struct bit_and {
  static_assert(std::is_integral_v<T>, "sweep::bit_and needs an integral type");
  using value_type = T;
  KOKKOS_INLINE_FUNCTION static constexpr T identity() { return static_cast<T>(~T(0)); }
  KOKKOS_INLINE_FUNCTION constexpr T operator()(const T& a, const T& b) const { return static_cast<T>(a & b); }
};

template <class T>
struct bit_or {
  static_assert(std::is_integral_v<T>, "sweep::bit_or needs an integral type");
  using value_type = T;
  KOKKOS_INLINE_FUNCTION static constexpr T identity() { return T(0); }
  KOKKOS_INLINE_FUNCTION constexpr T operator()(const T& a, const T& b) const { return static_cast<T>(a | b); }
};

template <class T>
struct bit_xor {
  static_assert(std::is_integral_v<T>, "sweep::bit_xor needs an integral type");
  using value_type = T;
  KOKKOS_INLINE_FUNCTION static constexpr T identity() { return T(0); }
  KOKKOS_INLINE_FUNCTION constexpr T operator()(const T& a, const T& b) const { return static_cast<T>(a ^ b); }
};

namespace detail {

/// op with its operands swapped: a backward scan is a forward scan of the
/// reversed sequence under the flipped operator (still associative).
template <class Op>
struct flipped {
  using value_type = typename Op::value_type;
  Op op;
  KOKKOS_INLINE_FUNCTION static constexpr value_type identity() { return Op::identity(); }
  KOKKOS_INLINE_FUNCTION value_type operator()(const value_type& a, const value_type& b) const { return op(b, a); }
};

}  // namespace detail
}  // namespace sweep
