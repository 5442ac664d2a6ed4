// Operator lifting: a segmented scan is a plain scan of (head, value) pairs
// under  (fa, a) . (fb, b) = (fa | fb, fb ? b : a (+) b),  which is
// associative whenever (+) is (and never reorders operands), so every plain
// scan algorithm, the single-pass one included, scans segments unchanged
// and balanced by elements. With a count instead of a flag
// ((ca + cb, ...)), the scan also yields each element's segment ordinal,
// which segmented_reduce uses to place segment totals.
//
// The io types here follow scan_io's interface (n, op, load, store,
// combine, identity) so the algorithms in scan_*.hpp run on them; their
// host chunk kernels are in host/scan_chunks.hpp.
#pragma once

#include <sweep/core.hpp>
#include <sweep/detail/segment_heads.hpp>
#include <sweep/detail/team_scan.hpp>

#include <bit>
#include <cstdint>
#include <type_traits>

namespace sweep::detail {

template <class Heads>
struct is_byte_flags : std::false_type {};
template <class View>
struct is_byte_flags<flag_heads<View>> : std::bool_constant<flag_heads<View>::bytes> {};

template <class Heads>
struct is_bit_flags : std::false_type {};
template <class View>
struct is_bit_flags<bit_heads<View>> : std::bool_constant<std::endian::native == std::endian::little> {};

template <class Heads>
struct is_arithmetic_keys : std::false_type {};
template <class View>
struct is_arithmetic_keys<key_heads<View>> : std::is_arithmetic<typename View::value_type> {};

/// A value with its segment mark: a flag (bool) or a count of heads.
template <class T, class Mark>
struct seg_value {
  T v;
  Mark mark;
};

template <class Op, class Mark>
struct lifted {
  using base_value = typename Op::value_type;
  using value_type = seg_value<base_value, Mark>;
  Op op;
  KOKKOS_INLINE_FUNCTION static value_type identity() { return {Op::identity(), Mark(0)}; }
  KOKKOS_INLINE_FUNCTION value_type operator()(const value_type& a, const value_type& b) const {
    value_type r;
    if constexpr (std::is_same_v<Mark, bool>) r.mark = a.mark || b.mark;
    else r.mark = a.mark + b.mark;
    r.v = b.mark ? b.v : op(a.v, b.v);
    return r;
  }
};

/// Segmented scan of `in` into `out` in scan order (element i of a
/// backward scan is n-1-i; its segments start where the original ones end).
/// The algorithms run with the identity as their init and pass the
/// inclusive (or exclusive) pair; store applies the per-segment init.
template <class Heads, class InView, class OutView, class Op, bool Backward>
struct segmented_scan_io {
  using base_value = typename Op::value_type;
  using op_type = lifted<Op, bool>;
  using value_type = typename op_type::value_type;
  using in_value = value_type;  // never the host vector path
  static constexpr bool backward = Backward;
  Heads heads;
  InView in;
  OutView out;
  op_type op;
  index_t n;
  base_value init;
  bool exclusive;

  KOKKOS_INLINE_FUNCTION index_t at(index_t i) const {
    if constexpr (Backward) return n - 1 - i;
    else return i;
  }
  KOKKOS_INLINE_FUNCTION bool head(index_t i) const {
    if constexpr (Backward) return i == 0 || heads(n - i);
    else return heads(i);
  }
  KOKKOS_INLINE_FUNCTION value_type load(index_t i) const {
    return {static_cast<base_value>(in(at(i))), head(i)};
  }
  KOKKOS_INLINE_FUNCTION void store(index_t i, const value_type& p) const {
    if (!exclusive) out(at(i)) = p.v;
    else out(at(i)) = head(i) ? init : op.op(init, p.v);
  }
  KOKKOS_INLINE_FUNCTION value_type combine(const value_type& a, const value_type& b) const { return op(a, b); }
  KOKKOS_INLINE_FUNCTION static value_type identity() { return op_type::identity(); }
  bool unit_stride() const { return false; }
  /// A value holding a head is its own inclusive prefix: look-back stops.
  KOKKOS_INLINE_FUNCTION static bool closes_prefix(const value_type& v) { return v.mark; }

};

/// Segmented reduction as an inclusive scan that stores only at segment
/// ends: totals(ordinal(count - 1)) = value. `ordinal` maps the k-th
/// non-empty segment to its index (identity unless offsets hold empty
/// segments).
template <class Heads, class InView, class TotalView, class OrdinalView, class Op>
struct segmented_reduce_io {
  using base_value = typename Op::value_type;
  using op_type = lifted<Op, index_t>;
  using value_type = typename op_type::value_type;
  using in_value = value_type;
  static constexpr bool backward = false;
  Heads heads;
  InView in;
  TotalView totals;
  OrdinalView ordinal;  // empty View: identity map
  op_type op;
  index_t n;

  KOKKOS_INLINE_FUNCTION value_type load(index_t i) const {
    return {static_cast<base_value>(in(i)), heads(i) ? index_t(1) : index_t(0)};
  }
  KOKKOS_INLINE_FUNCTION index_t slot(index_t k) const {
    return ordinal.extent(0) ? static_cast<index_t>(ordinal(k)) : k;
  }
  KOKKOS_INLINE_FUNCTION void store(index_t i, const value_type& p) const {
    if (i + 1 < n && !heads(i + 1)) return;
    totals(slot(p.mark - 1)) = p.v;
  }
  KOKKOS_INLINE_FUNCTION value_type combine(const value_type& a, const value_type& b) const { return op(a, b); }
  KOKKOS_INLINE_FUNCTION static value_type identity() { return op_type::identity(); }
  bool unit_stride() const { return false; }

};

/// A scan whose inputs and outputs are functors: load(i) -> T and
/// store(i, v). Used by the conversions (head counts, compaction).
template <class Load, class Store, class Op>
struct functor_io {
  using value_type = typename Op::value_type;
  using op_type = Op;
  using in_value = void;  // never the host vector path
  static constexpr bool backward = false;
  Load loader;
  Store storer;
  Op op;
  index_t n;
  KOKKOS_INLINE_FUNCTION value_type load(index_t i) const { return loader(i); }
  KOKKOS_INLINE_FUNCTION void store(index_t i, const value_type& v) const { storer(i, v); }
  KOKKOS_INLINE_FUNCTION value_type combine(const value_type& a, const value_type& b) const { return op(a, b); }
  KOKKOS_INLINE_FUNCTION static value_type identity() { return Op::identity(); }
  bool unit_stride() const { return false; }
};

}  // namespace sweep::detail
