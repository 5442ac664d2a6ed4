// Segment layouts, the four representations built from one layout, and
// sequential reference segmented scans/reductions written out per
// direction and kind, shared by the segmented-scan tests.
#pragma once

#include "scan_reference.hpp"

#include <sweep/scan_algorithms.hpp>
#include <sweep/segmented_scan.hpp>

#include <cstdint>
#include <random>
#include <string>
#include <type_traits>
#include <vector>

namespace sweep_test {

/// A segmentation of n elements as offsets (possibly with empty segments).
struct layout {
  std::string name;
  std::vector<std::int64_t> offsets;  // n_segments + 1 entries, first 0, last n
  std::size_t n() const { return static_cast<std::size_t>(offsets.back()); }
  /// heads[i]: element i starts a (non-empty) segment.
  std::vector<bool> heads() const {
    std::vector<bool> h(n(), false);
    for (std::size_t s = 0; s + 1 < offsets.size(); ++s)
      if (offsets[s] < offsets[s + 1]) h[static_cast<std::size_t>(offsets[s])] = true;
    return h;
  }
  bool has_empty() const {
    for (std::size_t s = 0; s + 1 < offsets.size(); ++s)
      if (offsets[s] == offsets[s + 1]) return true;
    return false;
  }
};

/// Geometric segment lengths with the given mean (>= 1); `empty_every` > 0
/// inserts an empty segment after every that many segments.
inline layout random_layout(std::size_t n, double mean, std::uint64_t seed, int empty_every = 0) {
  std::mt19937_64 gen(seed);
  std::geometric_distribution<std::int64_t> len(1.0 / mean);
  layout l{"mean " + std::to_string(mean) + (empty_every ? " with empty segments" : ""), {0}};
  std::int64_t at = 0;
  int count = 0;
  if (empty_every) l.offsets.push_back(0);  // an empty first segment
  while (at < static_cast<std::int64_t>(n)) {
    at += 1 + len(gen);
    if (at > static_cast<std::int64_t>(n)) at = static_cast<std::int64_t>(n);
    l.offsets.push_back(at);
    if (empty_every && ++count % empty_every == 0) l.offsets.push_back(at);
  }
  if (l.offsets.size() == 1) l.offsets.push_back(0);  // n = 0: one empty segment
  return l;
}

inline layout single_segment(std::size_t n) {
  return {"single segment", {0, static_cast<std::int64_t>(n)}};
}

inline layout unit_segments(std::size_t n) {
  layout l{"all length 1", {}};
  for (std::size_t i = 0; i <= n; ++i) l.offsets.push_back(static_cast<std::int64_t>(i));
  if (n == 0) l.offsets.push_back(0);
  return l;
}

/// The layouts every test walks: mean lengths 1, 8, 1000, one segment,
/// all length 1.
inline std::vector<layout> standard_layouts(std::size_t n, std::uint64_t seed) {
  return {random_layout(n, 1.0, seed), random_layout(n, 8.0, seed + 1), random_layout(n, 1000.0, seed + 2),
          single_segment(n), unit_segments(n)};
}

/// Reference segmented scan (heads of the layout), by definition.
template <class T, class Op>
void reference_segmented_scan(const std::vector<T>& x, const std::vector<bool>& heads, std::vector<T>& out,
                              const T& init, bool exclusive, bool backward, const Op& op) {
  const std::size_t n = x.size();
  out.assign(n, T{});
  if (!backward) {
    T acc{};
    for (std::size_t i = 0; i < n; ++i) {
      if (i == 0 || heads[i]) acc = exclusive ? init : Op::identity();
      const T next = op(acc, x[i]);
      out[i] = exclusive ? acc : next;
      acc = next;
    }
  } else {
    T acc{};
    for (std::size_t k = n; k-- > 0;) {
      if (k == n - 1 || heads[k + 1]) acc = exclusive ? init : Op::identity();
      const T next = op(x[k], acc);
      out[k] = exclusive ? acc : next;
      acc = next;
    }
  }
}

template <class T, class Op>
std::vector<T> reference_segmented_reduce(const std::vector<T>& x, const layout& l, const Op& op) {
  std::vector<T> totals;
  for (std::size_t s = 0; s + 1 < l.offsets.size(); ++s) {
    T acc = Op::identity();
    for (auto i = l.offsets[s]; i < l.offsets[s + 1]; ++i) acc = op(acc, x[static_cast<std::size_t>(i)]);
    totals.push_back(acc);
  }
  return totals;
}

/// The four representations of a layout in Space's memory.
template <class Space>
struct representations {
  using Mem = typename Space::memory_space;
  Kokkos::View<std::uint8_t*, Mem> flags;
  Kokkos::View<std::uint32_t*, Mem> words;
  Kokkos::View<std::int64_t*, Mem> offsets;
  Kokkos::View<std::int32_t*, Mem> keys;
  std::size_t n;

  explicit representations(const layout& l) : n(l.n()) {
    const auto h = l.heads();
    std::vector<std::uint8_t> f(n);
    std::vector<std::uint32_t> w((n + 31) / 32, 0u);
    std::vector<std::int32_t> k(n);
    std::int32_t seg = -1;
    for (std::size_t i = 0; i < n; ++i) {
      // Element 0's flag and bit stay clear (element 0 always starts a
      // segment), other heads use several nonzero byte values, and the
      // words' bits past n are set (never read).
      f[i] = (h[i] && i != 0) ? std::uint8_t(1 + i % 3) : std::uint8_t(0);
      if (h[i] && i != 0) w[i / 32] |= 1u << (i % 32);
      if (h[i] || i == 0) ++seg;
      k[i] = seg % 3;  // keys repeat, but never in adjacent segments
    }
    if (n % 32) w.back() |= ~((1u << (n % 32)) - 1u);
    flags = to_device<Space>(f, "flags");
    words = to_device<Space>(w, "words");
    offsets = to_device<Space>(l.offsets, "offsets");
    keys = to_device<Space>(k, "keys");
  }
};

/// The algorithms of sweep::scan_algorithms that run segmented scans.
inline const std::vector<sweep::scan_algorithm>& segmented_algorithms() {
  static const std::vector<sweep::scan_algorithm> algos = [] {
    std::vector<sweep::scan_algorithm> v;
    for (const auto& entry : sweep::scan_algorithms)
      if (sweep::runs_segmented(entry.id)) v.push_back(entry.id);
    return v;
  }();
  return algos;
}

/// The algorithms that segmented scans refuse.
inline const std::vector<sweep::scan_algorithm>& unsegmented_algorithms() {
  static const std::vector<sweep::scan_algorithm> algos = [] {
    std::vector<sweep::scan_algorithm> v;
    for (const auto& entry : sweep::scan_algorithms)
      if (!sweep::runs_segmented(entry.id)) v.push_back(entry.id);
    return v;
  }();
  return algos;
}

/// The layout with its empty segments dropped (what flags, bits and keys
/// can express).
inline layout without_empty(const layout& l) {
  layout out{l.name, {0}};
  for (std::size_t s = 1; s < l.offsets.size(); ++s)
    if (l.offsets[s] > out.offsets.back()) out.offsets.push_back(l.offsets[s]);
  return out;
}

/// Runs f(representation name, segments) for each of the four.
template <class Space, class F>
void for_each_representation(const representations<Space>& r, const F& f) {
  f("head_flags", sweep::head_flags(r.flags));
  f("head_bits", sweep::head_bits(r.words, static_cast<sweep::index_t>(r.n)));
  f("segment_offsets", sweep::segment_offsets(r.offsets));
  f("segment_keys", sweep::segment_keys(r.keys));
}

/// One representation `segments` of layout l: every algorithm x direction x
/// kind, and the reduction, against the reference (on x converted to the
/// operator's type when In differs); elements past the result are never
/// written. Offsets keep their empty segments in the reduction; flags,
/// bits and keys cannot express them.
template <class Space, class In, class Op, class Segments>
void check_segmented_with(const std::vector<In>& x, const layout& l, const Segments& segments, const Op& op,
                          const typename Op::value_type& init,
                          const std::vector<sweep::scan_algorithm>& algos = segmented_algorithms(),
                          sweep::index_t chunk = 0) {
  using T = typename Op::value_type;
  const std::size_t n = x.size();
  const std::vector<T> wide(x.begin(), x.end());
  const auto heads = l.heads();
  auto in = to_device<Space>(x, "in");
  const result_check<T> check(wide, init);
  Space space;
  for_each_variant(algos, 0, chunk, [&](const sweep::scan_options& opt, bool backward, bool exclusive) {
    auto out = check.template poisoned_output<Space>();
    if (exclusive) sweep::segmented_exclusive_scan(space, in, segments, out, init, op, opt);
    else sweep::segmented_inclusive_scan(space, in, segments, out, op, opt);
    const auto want = expect(wide, init, op, [&](const auto& v, const auto& v_init, const auto& v_op) {
      std::decay_t<decltype(v)> r;
      reference_segmented_scan(v, heads, r, v_init, exclusive, backward, v_op);
      return r;
    });
    check.elements(to_host(out), want, n);
  });
  const layout& reduced = sweep::detail::is_offsets_v<Segments> ? l : without_empty(l);
  const auto want_totals = expect(wide, init, op, [&](const auto& v, const auto&, const auto& v_op) {
    return reference_segmented_reduce(v, reduced, v_op);
  });
  auto totals = check.template poisoned_output<Space>(want_totals.size());
  CHECK(sweep::segmented_reduce(space, in, segments, totals, op) == static_cast<sweep::index_t>(want_totals.size()));
  check.elements(to_host(totals), want_totals, want_totals.size());
}

/// Every representation x algorithm x direction x kind, and the reduction,
/// against the reference; elements past the result are never written.
template <class Space, class Op>
void check_segmented(const std::vector<typename Op::value_type>& x, const layout& l, const Op& op,
                     const typename Op::value_type& init,
                     const std::vector<sweep::scan_algorithm>& algos = segmented_algorithms(),
                     sweep::index_t chunk = 0) {
  REQUIRE(l.n() == x.size());
  CAPTURE(x.size());
  const std::string layout_name = l.name;
  CAPTURE(layout_name);
  representations<Space> reps(l);
  for_each_representation(reps, [&](const char* repr, const auto& segments) {
    CAPTURE(repr);
    check_segmented_with<Space>(x, l, segments, op, init, algos, chunk);
  });
}

}  // namespace sweep_test
