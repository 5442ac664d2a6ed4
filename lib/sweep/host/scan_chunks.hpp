// The host chunk kernels of the single-pass scan (detail/scan_single_pass.hpp):
// on a CPU a chunk is one thread's, and instead of the portable team loops
// it can fold and scan its elements with raw pointers and vector
// registers. host_chunks<IO> holds them per scan problem:
//   plain scans   forward sums of dense arithmetic data: the vector kernels
//                 of host/simd_scan.hpp, streaming stores for outputs
//                 beyond tuning<S>::scan::streaming_bytes;
//   segmented     a chunk with a head at j does not need its prefix for
//                 [j, end): the fold scans that part (from nothing) and
//                 writes it, and its result is already the chunk's
//                 inclusive value (its mark is set: it closes the prefix,
//                 so successors stop looking back there). The scan then
//                 only does [first, j), a plain scan from the prefix.
//                 Forward sums of dense arithmetic data with dense heads
//                 run all of it on the vector path; everything else runs
//                 scalar loops (one chain of op per element, no (head,
//                 value) pairs through memory);
//   segmented_reduce  the fold counts heads and folds what follows the last
//                 one; the scan walks the chunk from its prefix and writes
//                 a segment's total when the next head closes it.
// fold and scan return false where they do not apply (the portable team
// loops run then). Results equal the portable path's bit for bit except
// for reassociated floating-point sums.
#pragma once

#include <sweep/host/simd_scan.hpp>
#include <sweep/detail/scan_io.hpp>
#include <sweep/detail/segmented_io.hpp>
#include <sweep/detail/team_scan.hpp>

#include <cstddef>
#include <cstdint>

namespace sweep::detail {

/// Where a scan problem has no host kernels: the portable loops run.
template <class IO>
struct host_chunks {
  host_chunks(const IO&, std::size_t, index_t) {}
  template <class T>
  bool fold(index_t, index_t, bool, T&) const {
    return false;
  }
  template <class T>
  bool scan(index_t, index_t, const T&, const T&, bool) const {
    return false;
  }
};

template <class InView, class OutView, class Op, bool Backward>
struct host_chunks<scan_io<InView, OutView, Op, Backward>> {
  using IO = scan_io<InView, OutView, Op, Backward>;
  using T = typename IO::value_type;
  static constexpr bool vector_sums = !Backward && host_simd_scan_v<Op, typename IO::in_value>;
  IO io;
  bool on;
  bool streaming;
  index_t ahead;

  host_chunks(const IO& io_, std::size_t streaming_bytes, index_t ahead_)
      : io(io_),
        on(vector_sums && io_.unit_stride()),
        streaming(on && static_cast<std::size_t>(io_.n) * sizeof(T) >= streaming_bytes),
        ahead(ahead_) {}

  bool fold([[maybe_unused]] index_t first, [[maybe_unused]] index_t count, bool, [[maybe_unused]] T& aggregate) const {
#if SWEEP_HOST_SIMD
    if constexpr (vector_sums) {
      if (on) {
        aggregate = host_simd_plus_fold(io.in.data() + first, count);
        return true;
      }
    }
#endif
    return false;
  }
  bool scan([[maybe_unused]] index_t first, [[maybe_unused]] index_t count, [[maybe_unused]] const T& prefix,
            const T&, [[maybe_unused]] bool exclusive) const {
#if SWEEP_HOST_SIMD
    if constexpr (vector_sums) {
      if (on) {
        host_simd_plus_scan(io.in.data() + first, io.out.data() + first, count, prefix, exclusive, streaming, ahead,
                            io.n - first);
        return true;
      }
    }
#endif
    return false;
  }
};

template <class Heads, class InView, class OutView, class Op, bool Backward>
struct host_chunks<segmented_scan_io<Heads, InView, OutView, Op, Backward>> {
  using IO = segmented_scan_io<Heads, InView, OutView, Op, Backward>;
  using base_value = typename IO::base_value;
  using value_type = typename IO::value_type;
  static constexpr bool vector_sums = !Backward && host_simd_scan_v<Op, typename InView::value_type>;
  IO io;
  bool streaming;
  index_t ahead;

  host_chunks(const IO& io_, std::size_t streaming_bytes, index_t ahead_)
      : io(io_), streaming(static_cast<std::size_t>(io_.n) * sizeof(base_value) >= streaming_bytes), ahead(ahead_) {}

  bool vector_usable() const {
    if constexpr (vector_sums)
      return dense(io.in) && dense(io.out) && io.heads.host_fast();
    else
      return false;
  }
  base_value value(index_t i) const { return static_cast<base_value>(io.in(io.at(i))); }
  index_t first_head(index_t b, index_t e) const {
    if constexpr (!Backward) {
      if (io.heads.host_fast()) return io.heads.first_head(b, e, ahead);
    }
    while (b < e && !io.head(b)) ++b;
    return b;
  }
  /// Scalar segmented scan of [b, e) (b is a head); returns the value since
  /// the last head.
  base_value scalar_scan_from(index_t b, index_t e, bool excl) const {
    base_value acc = Op::identity();
    for (index_t i = b; i < e; ++i) {
      const bool h = io.head(i);
      const base_value x = value(i);
      if (excl) io.out(io.at(i)) = h ? io.init : io.op.op(io.init, acc);
      acc = h ? x : io.op.op(acc, x);
      if (!excl) io.out(io.at(i)) = acc;
    }
    return acc;
  }
  bool fold(index_t first, index_t count, bool excl, value_type& aggregate) const {
    const index_t end = first + count;
    const index_t j = first_head(first, end);
#if SWEEP_HOST_SIMD
    if constexpr (vector_sums) {
      if (vector_usable()) {
        if (j == end) {
          aggregate = {host_simd_plus_fold(io.in.data() + first, count), false};
          return true;
        }
        // Start on a multiple of 8 elements (aligned for streaming stores
        // and packed head bits); what lands before j is rewritten by scan.
        const index_t from = (j & ~index_t(7)) > first ? (j & ~index_t(7)) : first;
        // A first head far into the chunk suggests long segments.
        const bool sparse = j - first >= 64;
        aggregate = {vector_scan_from(from, end, excl, sparse), true};
        return true;
      }
    }
#endif
    if (j == end) aggregate = {serial_fold(io.op.op, [&](index_t i) { return value(i); }, first, end), false};
    else aggregate = {scalar_scan_from(j, end, excl), true};
    return true;
  }
  bool scan(index_t first, index_t count, const value_type& prefix, const value_type& own, bool excl) const {
    // The fold found no head (own.mark clear): the whole chunk is plain.
    const index_t j = own.mark ? first_head(first, first + count) : first + count;
    if (j == first) return true;
#if SWEEP_HOST_SIMD
    if constexpr (vector_sums) {
      if (vector_usable()) {
        host_simd_plus_scan(io.in.data() + first, io.out.data() + first, j - first,
                            excl ? static_cast<base_value>(io.init + prefix.v) : prefix.v, excl, streaming, ahead,
                            io.n - first);
        return true;
      }
    }
#endif
    serial_scan(
        io.op.op, prefix.v, excl, [&](index_t i) { return value(i); },
        [&](index_t i, const base_value& v) { io.out(io.at(i)) = excl ? io.op.op(io.init, v) : v; }, first, j);
    return true;
  }
#if SWEEP_HOST_SIMD
  /// Segmented vector scan of [b, e) (b at or before the chunk's first
  /// head, so it starts from nothing) through the fastest head source the
  /// representation allows; returns the sum since the last head.
  base_value vector_scan_from(index_t b, index_t e, bool excl, bool sparse) const {
    auto scan_with = [&](const auto& source) {
      return host_simd_seg_plus_scan(io.in.data() + b, io.out.data() + b, e - b, base_value(0), io.init, excl,
                                     streaming, source, sparse, ahead, io.n - b);
    };
    if constexpr (is_byte_flags<Heads>::value) {
      return scan_with(byte_heads{reinterpret_cast<const std::uint8_t*>(io.heads.flags.data()) + b});
    } else {
      if constexpr (is_bit_flags<Heads>::value)
        if (b % 8 == 0)
          return scan_with(packed_heads{reinterpret_cast<const std::uint8_t*>(io.heads.words.data()), b});
      if constexpr (is_arithmetic_keys<Heads>::value)
        return scan_with(key_source<typename Heads::key_type>{io.heads.keys.data() + b, b == 0});
      const auto h = io.heads;
      const index_t total = io.n;
      return scan_with([h, b, total](index_t i) { return h.bits(b + i, total); });
    }
  }
#endif
};

template <class Heads, class InView, class TotalView, class OrdinalView, class Op>
struct host_chunks<segmented_reduce_io<Heads, InView, TotalView, OrdinalView, Op>> {
  using IO = segmented_reduce_io<Heads, InView, TotalView, OrdinalView, Op>;
  using base_value = typename IO::base_value;
  using value_type = typename IO::value_type;
  IO io;

  host_chunks(const IO& io_, std::size_t, index_t) : io(io_) {}

  bool fold(index_t first, index_t count, bool, value_type& aggregate) const {
    index_t c = 0, last = first;
    for (index_t i = first; i < first + count; ++i) {
      const index_t h = io.heads(i) ? 1 : 0;
      c += h;
      last += (i - last) & -h;  // branch-free: heads are unpredictable
    }
    aggregate = {
        serial_fold(io.op.op, [&](index_t i) { return static_cast<base_value>(io.in(i)); }, last, first + count), c};
    return true;
  }
  bool scan(index_t first, index_t count, const value_type& prefix, const value_type&, bool) const {
    if (io.ordinal.extent(0)) walk<true>(first, count, prefix);
    else walk<false>(first, count, prefix);
    return true;
  }
  /// Branch-free: every element stores, into a dummy unless it closes a
  /// segment.
  template <bool Mapped>
  void walk(index_t first, index_t count, const value_type& prefix) const {
    index_t k = prefix.mark - 1;  // ordinal of the open segment
    base_value acc = prefix.v, dummy{};
    index_t i = first;
    const index_t end = first + count;
    if (k < 0) {  // the chunk holding element 0, which opens segment 0
      k = 0;
      acc = static_cast<base_value>(io.in(i++));
    }
    for (; i < end; ++i) {
      const bool h = io.heads(i);
      base_value* open = &io.totals(Mapped ? static_cast<index_t>(io.ordinal(k)) : k);
      *(h ? open : &dummy) = acc;
      k += h;
      const base_value x = static_cast<base_value>(io.in(i));
      acc = h ? x : io.op.op(acc, x);
    }
    if (end == io.n) io.totals(Mapped ? static_cast<index_t>(io.ordinal(k)) : k) = acc;
  }
};

}  // namespace sweep::detail
