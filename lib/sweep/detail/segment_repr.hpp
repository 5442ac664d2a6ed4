// From a public segment representation to what the kernels use: checks at
// the door (before anything is written) and a device-callable head functor.
// Offsets become head bits (n/8 bytes, one element-blocked pass); flags,
// bits and keys are read where they lie.
#pragma once

#include <sweep/detail/segment_heads.hpp>
#include <sweep/detail/scan_io.hpp>

#include <cstdint>
#include <type_traits>

namespace sweep {

/// Head flags: flags(i) != 0 starts a segment at i; element 0 always starts one.
template <class View>
struct head_flags {
  View flags;
  explicit head_flags(const View& f) : flags(f) {}
};

/// Bit-packed head flags: bit i%32 of words(i/32), for n_bits elements.
template <class View>
struct head_bits {
  View words;
  index_t n_bits;
  head_bits(const View& w, index_t n) : words(w), n_bits(n) {}
};

/// Segment s is [offsets(s), offsets(s+1)); n_segments + 1 monotone
/// offsets, first 0, last n; empty segments allowed.
template <class View>
struct segment_offsets {
  View offsets;
  explicit segment_offsets(const View& o) : offsets(o) {}
};

/// A segment starts wherever keys(i) != keys(i-1) (as scan-by-key).
template <class View>
struct segment_keys {
  View keys;
  explicit segment_keys(const View& k) : keys(k) {}
};

namespace detail {

template <class S>
struct segments_kind : std::integral_constant<int, 0> {};
template <class V>
struct segments_kind<head_flags<V>> : std::integral_constant<int, 1> {};
template <class V>
struct segments_kind<head_bits<V>> : std::integral_constant<int, 2> {};
template <class V>
struct segments_kind<segment_offsets<V>> : std::integral_constant<int, 3> {};
template <class V>
struct segments_kind<segment_keys<V>> : std::integral_constant<int, 4> {};

template <class S>
inline constexpr bool is_segments_v = segments_kind<std::remove_cvref_t<S>>::value != 0;

template <class ExecSpace, class View>
constexpr void static_check_segments_view(const char*) {
  static_assert(is_rank1_view_v<View>, "sweep segments: the representation's View must be rank-1");
  static_assert(accessible_from_v<ExecSpace, View>,
                "sweep segments: the representation's View lives in a memory space the execution space cannot access");
}

template <class V>
const V& repr_view(const head_flags<V>& s) { return s.flags; }
template <class V>
const V& repr_view(const head_bits<V>& s) { return s.words; }
template <class V>
const V& repr_view(const segment_offsets<V>& s) { return s.offsets; }
template <class V>
const V& repr_view(const segment_keys<V>& s) { return s.keys; }

/// Checks offsets on their own: at least one entry, first 0, monotone.
/// Returns the last entry (the number of elements they describe).
template <class ExecSpace, class V>
index_t check_offsets(const ExecSpace& space, const V& off, const char* where) {
  static_assert(std::is_integral_v<typename V::value_type>, "sweep::segment_offsets needs integral offsets");
  require(off.extent(0) >= 1, where, "segment_offsets has no entries; it needs n_segments + 1 (at least 1: {0})");
  const index_t nseg = static_cast<index_t>(off.extent(0)) - 1;
  const index_t first = static_cast<index_t>(read_element(off, 0));
  require(first == 0, where, "segment_offsets starts at ", first, "; the first offset must be 0");
  // A branch-free count first (one streaming pass); the first offending
  // segment is searched for only when there is one.
  index_t decreasing = 0;
  Kokkos::parallel_reduce(
      "sweep::check_offsets", Kokkos::RangePolicy<ExecSpace>(space, 0, nseg),
      KOKKOS_LAMBDA(const index_t s, index_t& count) { count += off(s + 1) < off(s) ? 1 : 0; }, decreasing);
  index_t bad = nseg;
  if (decreasing > 0)
    Kokkos::parallel_reduce(
        "sweep::check_offsets::first", Kokkos::RangePolicy<ExecSpace>(space, 0, nseg),
        KOKKOS_LAMBDA(const index_t s, index_t& lo) {
          if (off(s + 1) < off(s) && s < lo) lo = s;
        },
        Kokkos::Min<index_t>(bad));
  require(bad >= nseg, where, "segment_offsets decrease at segment ", bad, " (offsets[", bad, "] = ",
          bad < nseg ? static_cast<index_t>(read_element(off, bad)) : 0, " > offsets[", bad + 1, "] = ",
          bad < nseg ? static_cast<index_t>(read_element(off, bad + 1)) : 0, "); offsets must not decrease");
  return static_cast<index_t>(read_element(off, nseg));
}

/// Number of elements a representation describes on its own (flags and
/// keys: their extent; bits: n_bits; offsets: the last offset).
template <class ExecSpace, class S>
index_t repr_length(const ExecSpace& space, const S& s, const char* where) {
  constexpr int kind = segments_kind<S>::value;
  if constexpr (kind == 1) return static_cast<index_t>(s.flags.extent(0));
  else if constexpr (kind == 2) {
    require(s.n_bits >= 0, where, "head_bits has n_bits = ", s.n_bits, "; it must not be negative");
    require(static_cast<index_t>(s.words.extent(0)) * 32 >= s.n_bits, where, "head_bits has ", s.words.extent(0),
            " words for ", s.n_bits, " bits; it needs ", (s.n_bits + 31) / 32);
    return s.n_bits;
  } else if constexpr (kind == 3) return check_offsets(space, s.offsets, where);
  else return static_cast<index_t>(s.keys.extent(0));
}

/// Checks that a representation covers the n elements of `in`.
template <class ExecSpace, class S>
void check_segments(const ExecSpace& space, const S& s, index_t n, const char* where) {
  constexpr int kind = segments_kind<S>::value;
  static_check_segments_view<ExecSpace, std::remove_cvref_t<decltype(repr_view(s))>>(where);
  using value = typename std::remove_cvref_t<decltype(repr_view(s))>::value_type;
  static_assert(kind != 1 || std::is_integral_v<value>, "sweep::head_flags needs integral (byte) flags");
  static_assert(kind != 2 || (std::is_integral_v<value> && std::is_unsigned_v<value> && sizeof(value) == 4),
                "sweep::head_bits needs 32-bit unsigned words");
  const index_t len = repr_length(space, s, where);
  if constexpr (kind == 1)
    require(len >= n, where, "head_flags has ", len, " entries but in has ", n, "; it must cover every element");
  else if constexpr (kind == 2)
    require(len >= n, where, "head_bits describes ", len, " elements but in has ", n,
            "; it must cover every element");
  else if constexpr (kind == 3)
    require(len == n, where, "segment_offsets ends at ", len, " but in has ", n, " elements; the last offset must be n");
  else
    require(len >= n, where, "segment_keys has ", len, " keys but in has ", n, "; it must cover every element");
}

/// The head functor of a checked representation (offsets: converted to bits).
template <class ExecSpace, class S>
auto make_heads(const ExecSpace& space, const S& s, index_t n, const std::string& label) {
  constexpr int kind = segments_kind<S>::value;
  if constexpr (kind == 1) return flag_heads<decltype(s.flags)>{s.flags};
  else if constexpr (kind == 2) return bit_heads<decltype(s.words)>{s.words};
  else if constexpr (kind == 3) {
    auto words = offsets_to_bits(space, s.offsets, n, label);
    return bit_heads<decltype(words)>{words};
  } else return key_heads<decltype(s.keys)>{s.keys};
}

}  // namespace detail
}  // namespace sweep
