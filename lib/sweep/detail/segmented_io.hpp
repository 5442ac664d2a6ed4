// Operator lifting: a segmented scan is a plain scan of (head, value) pairs
// under  (fa, a) . (fb, b) = (fa | fb, fb ? b : a (+) b),  which is
// associative whenever (+) is (and never reorders operands), so every plain
// scan algorithm, the single-pass one included, scans segments unchanged
// and balanced by elements. With a count instead of a flag
// ((ca + cb, ...)), the scan also yields each element's segment ordinal,
// which segmented_reduce uses to place segment totals.
//
// The io types here follow scan_io's interface (n, op, load, store,
// combine, identity) so the algorithms in scan_*.hpp run on them.
#pragma once

#include <sweep/core.hpp>
#include <sweep/detail/host_simd_scan.hpp>
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

  // Host chunk kernels (one-thread chunks of the single-pass scan on a
  // CPU). A chunk with a head at j does not need its prefix for [j, end):
  // the fold scans that part (from nothing) and writes it, and its result
  // is already the chunk's inclusive value (mark set: it closes the prefix,
  // so successors stop looking back here). The scan then only does
  // [first, j), which holds no head: a plain scan from the prefix. A chunk
  // without heads is a plain fold, then a plain scan. Forward sums of
  // dense arithmetic data with dense heads run all of it on the vector path;
  // everything else runs scalar loops (one chain of op per element, no
  // (head, value) pairs through memory).
  static constexpr bool host_chunk_kernels = true;
  static constexpr bool vector_sums = !Backward && host_simd_scan_v<Op, typename InView::value_type>;
  std::size_t out_bytes() const { return static_cast<std::size_t>(n) * sizeof(base_value); }
  bool vector_usable() const {
    if constexpr (vector_sums)
      return dense(in) && dense(out) && heads.host_fast();
    else
      return false;
  }
  base_value value(index_t i) const { return static_cast<base_value>(in(at(i))); }
  index_t first_head(index_t b, index_t e) const {
    if constexpr (!Backward) {
      if (heads.host_fast()) return heads.first_head(b, e);
    }
    while (b < e && !head(b)) ++b;
    return b;
  }
  /// Scalar segmented scan of [b, e) (b is a head); returns the value since
  /// the last head.
  base_value scalar_scan_from(index_t b, index_t e, bool excl) const {
    base_value acc = Op::identity();
    for (index_t i = b; i < e; ++i) {
      const bool h = head(i);
      const base_value x = value(i);
      if (excl) out(at(i)) = h ? init : op.op(init, acc);
      acc = h ? x : op.op(acc, x);
      if (!excl) out(at(i)) = acc;
    }
    return acc;
  }
  value_type chunk_fold(index_t first, index_t count, bool excl, [[maybe_unused]] bool streaming,
                        [[maybe_unused]] index_t ahead) const {
    const index_t end = first + count;
    const index_t j = first_head(first, end);
#if SWEEP_HAVE_HOST_SIMD
    if constexpr (vector_sums) {
      if (vector_usable()) {
        if (j == end) return {host_simd_plus_fold(in.data() + first, count), false};
        // Start on a multiple of 8 elements (aligned for streaming stores
        // and packed head bits); what lands before j is rewritten by
        // chunk_scan.
        const index_t from = (j & ~index_t(7)) > first ? (j & ~index_t(7)) : first;
        // A first head far into the chunk suggests long segments.
        const bool sparse = j - first >= 64;
        return {vector_scan_from(from, end, excl, streaming, sparse, ahead), true};
      }
    }
#endif
    if (j == end) return {serial_fold(op.op, [&](index_t i) { return value(i); }, first, end), false};
    return {scalar_scan_from(j, end, excl), true};
  }
  void chunk_scan(index_t first, index_t count, const value_type& prefix, const value_type& own, bool excl,
                  [[maybe_unused]] bool streaming, [[maybe_unused]] index_t ahead) const {
    // The fold found no head (own.mark clear): the whole chunk is plain.
    const index_t j = own.mark ? first_head(first, first + count) : first + count;
    if (j == first) return;
#if SWEEP_HAVE_HOST_SIMD
    if constexpr (vector_sums) {
      if (vector_usable()) {
        host_simd_plus_scan(in.data() + first, out.data() + first, j - first,
                            excl ? static_cast<base_value>(init + prefix.v) : prefix.v, excl, streaming, ahead,
                            n - first);
        return;
      }
    }
#endif
    serial_scan(
        op.op, prefix.v, excl, [&](index_t i) { return value(i); },
        [&](index_t i, const base_value& v) { out(at(i)) = excl ? op.op(init, v) : v; }, first, j);
  }
#if SWEEP_HAVE_HOST_SIMD
  /// Segmented vector scan of [b, e) (b at or before the chunk's first
  /// head, so it starts from nothing) through the fastest head source the
  /// representation allows; returns the sum since the last head.
  base_value vector_scan_from(index_t b, index_t e, bool excl, bool streaming, bool sparse, index_t ahead) const {
    auto scan_with = [&](const auto& source) {
      return host_simd_seg_plus_scan(in.data() + b, out.data() + b, e - b, base_value(0), init, excl, streaming,
                                     source, sparse, ahead, n - b);
    };
    if constexpr (is_byte_flags<Heads>::value) {
      return scan_with(byte_heads{reinterpret_cast<const std::uint8_t*>(heads.flags.data()) + b});
    } else {
      if constexpr (is_bit_flags<Heads>::value)
        if (b % 8 == 0) return scan_with(packed_heads{reinterpret_cast<const std::uint8_t*>(heads.words.data()), b});
      if constexpr (is_arithmetic_keys<Heads>::value)
        return scan_with(key_source<typename Heads::key_type>{heads.keys.data() + b, b == 0});
      const auto h = heads;
      const index_t total = n;
      return scan_with([h, b, total](index_t i) { return h.bits(b + i, total); });
    }
  }
#endif
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

  // Host chunk kernels: the fold counts heads and folds what follows the
  // last one; the scan walks the chunk from its prefix and writes a
  // segment's total when the next head closes it (the last segment: at n).
  // Branch-free: every element stores, into a dummy unless it closes one.
  static constexpr bool host_chunk_kernels = true;
  std::size_t out_bytes() const { return 0; }
  value_type chunk_fold(index_t first, index_t count, bool, bool, index_t) const {
    index_t c = 0, last = first;
    for (index_t i = first; i < first + count; ++i) {
      const index_t h = heads(i) ? 1 : 0;
      c += h;
      last += (i - last) & -h;  // branch-free: heads are unpredictable
    }
    return {serial_fold(op.op, [&](index_t i) { return static_cast<base_value>(in(i)); }, last, first + count), c};
  }
  void chunk_scan(index_t first, index_t count, const value_type& prefix, const value_type&, bool, bool,
                  index_t) const {
    if (ordinal.extent(0)) walk<true>(first, count, prefix);
    else walk<false>(first, count, prefix);
  }
  template <bool Mapped>
  void walk(index_t first, index_t count, const value_type& prefix) const {
    index_t k = prefix.mark - 1;  // ordinal of the open segment
    base_value acc = prefix.v, dummy{};
    index_t i = first;
    const index_t end = first + count;
    if (k < 0) {  // the chunk holding element 0, which opens segment 0
      k = 0;
      acc = static_cast<base_value>(in(i++));
    }
    for (; i < end; ++i) {
      const bool h = heads(i);
      base_value* open = &totals(Mapped ? static_cast<index_t>(ordinal(k)) : k);
      *(h ? open : &dummy) = acc;
      k += h;
      const base_value x = static_cast<base_value>(in(i));
      acc = h ? x : op.op(acc, x);
    }
    if (end == n) totals(Mapped ? static_cast<index_t>(ordinal(k)) : k) = acc;
  }
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
