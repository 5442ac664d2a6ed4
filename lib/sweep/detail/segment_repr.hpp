// From a public segment representation to what the kernels use: checks at
// the door (before anything is written) and a device-callable head functor.
// Offsets become head bits (n/8 bytes, one element-blocked pass); flags,
// bits and keys are read where they lie.
#pragma once

#include <sweep/detail/segment_heads.hpp>
#include <sweep/detail/scan_io.hpp>
#include <sweep/detail/workspace.hpp>

#include <cstdint>
#include <optional>
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

enum : int { not_segments = 0, kind_flags = 1, kind_bits = 2, kind_offsets = 3, kind_keys = 4 };

template <class S>
struct segments_kind : std::integral_constant<int, not_segments> {};
template <class V>
struct segments_kind<head_flags<V>> : std::integral_constant<int, kind_flags> {};
template <class V>
struct segments_kind<head_bits<V>> : std::integral_constant<int, kind_bits> {};
template <class V>
struct segments_kind<segment_offsets<V>> : std::integral_constant<int, kind_offsets> {};
template <class V>
struct segments_kind<segment_keys<V>> : std::integral_constant<int, kind_keys> {};

template <class S>
inline constexpr bool is_offsets_v = segments_kind<S>::value == kind_offsets;

template <class S>
inline constexpr bool is_segments_v = segments_kind<std::remove_cvref_t<S>>::value != not_segments;


template <class V>
const V& repr_view(const head_flags<V>& s) { return s.flags; }
template <class V>
const V& repr_view(const head_bits<V>& s) { return s.words; }
template <class V>
const V& repr_view(const segment_offsets<V>& s) { return s.offsets; }
template <class V>
const V& repr_view(const segment_keys<V>& s) { return s.keys; }

/// Finds the first segment whose offsets decrease and reports it (an
/// error), when there is one.
template <class ExecSpace, class V>
void check_offsets_rise(const ExecSpace& space, const V& off, const char* where) {
  const index_t nseg = static_cast<index_t>(off.extent(0)) - 1;
  // A branch-free count first (one streaming pass); the first offending
  // segment is searched for only when there is one.
  index_t decreasing = 0;
  Kokkos::parallel_reduce(
      "sweep::check_offsets", sweep::detail::range_policy<ExecSpace>(space, 0, nseg),
      KOKKOS_LAMBDA(const index_t s, index_t& count) { count += off(s + 1) < off(s) ? 1 : 0; }, decreasing);
  index_t bad = nseg;
  if (decreasing > 0)
    Kokkos::parallel_reduce(
        "sweep::check_offsets::first", sweep::detail::range_policy<ExecSpace>(space, 0, nseg),
        KOKKOS_LAMBDA(const index_t s, index_t& lo) {
          if (off(s + 1) < off(s) && s < lo) lo = s;
        },
        Kokkos::Min<index_t>(bad));
  require(bad >= nseg, where, "segment_offsets decrease at segment ", bad, " (offsets[", bad, "] = ",
          bad < nseg ? static_cast<index_t>(read_element(space, off, bad)) : 0, " > offsets[", bad + 1, "] = ",
          bad < nseg ? static_cast<index_t>(read_element(space, off, bad + 1)) : 0, "); offsets must not decrease");
}

/// Checks offsets on their own: at least one entry, first 0, and (unless
/// `rise` is false: the caller converts them with offsets_backend,
/// which checks it in the same pass) monotone. Returns the last entry (the
/// number of elements they describe).
template <class ExecSpace, class V>
index_t check_offsets(const ExecSpace& space, const V& off, const char* where, bool rise = true) {
  static_assert(std::is_integral_v<typename V::value_type>, "sweep::segment_offsets needs integral offsets");
  require(off.extent(0) >= 1, where, "segment_offsets has no entries; it needs n_segments + 1 (at least 1: {0})");
  const index_t nseg = static_cast<index_t>(off.extent(0)) - 1;
  const index_t first = static_cast<index_t>(read_element(space, off, 0));
  require(first == 0, where, "segment_offsets starts at ", first, "; the first offset must be 0");
  if (rise) check_offsets_rise(space, off, where);
  return static_cast<index_t>(read_element(space, off, nseg));
}

/// Compile-time checks of a representation against the space.
template <class ExecSpace, class S>
constexpr void static_check_repr() {
  using View = std::remove_cvref_t<decltype(repr_view(std::declval<const S&>()))>;
  using value = typename View::value_type;
  constexpr int kind = segments_kind<S>::value;
  static_assert(is_rank1_view_v<View>, "sweep segments: the representation's View must be rank-1");
  static_assert(accessible_from_v<ExecSpace, View>,
                "sweep segments: the representation's View lives in a memory space the execution space cannot access");
  static_assert(kind != kind_flags || std::is_integral_v<value>, "sweep::head_flags needs integral (byte) flags");
  static_assert(kind != kind_bits || (std::is_integral_v<value> && std::is_unsigned_v<value> && sizeof(value) == 4),
                "sweep::head_bits needs 32-bit unsigned words");
}

/// Checks a representation on its own and returns the number of elements
/// it describes (flags and keys: their extent; bits: n_bits; offsets: the
/// last offset, after checking them; `rise` as check_offsets).
template <class ExecSpace, class S>
index_t repr_length(const ExecSpace& space, const S& s, const char* where, bool rise = true) {
  static_check_repr<ExecSpace, S>();
  constexpr int kind = segments_kind<S>::value;
  if constexpr (kind == kind_flags) return static_cast<index_t>(s.flags.extent(0));
  else if constexpr (kind == kind_bits) {
    require(s.n_bits >= 0, where, "head_bits has n_bits = ", s.n_bits, "; it must not be negative");
    require(static_cast<index_t>(s.words.extent(0)) * 32 >= s.n_bits, where, "head_bits has ", s.words.extent(0),
            " words for ", s.n_bits, " bits; it needs ", (s.n_bits + 31) / 32);
    return s.n_bits;
  } else if constexpr (kind == kind_offsets) return check_offsets(space, s.offsets, where, rise);
  else return static_cast<index_t>(s.keys.extent(0));
}

/// Checks that a representation covers the n elements of `in`. With
/// `rise` false, offsets are not yet checked to be monotone: make_heads
/// checks that as it converts them, and must run before anything is
/// written.
template <class ExecSpace, class S>
void check_segments(const ExecSpace& space, const S& s, index_t n, const char* where, bool rise = true) {
  constexpr int kind = segments_kind<S>::value;
  const index_t len = repr_length(space, s, where, rise);
  if constexpr (kind == kind_flags)
    require(len >= n, where, "head_flags has ", len, " entries but in has ", n, "; it must cover every element");
  else if constexpr (kind == kind_bits)
    require(len >= n, where, "head_bits describes ", len, " elements but in has ", n,
            "; it must cover every element");
  else if constexpr (kind == kind_offsets)
    require(len == n, where, "segment_offsets ends at ", len, " but in has ", n, " elements; the last offset must be n");
  else
    require(len >= n, where, "segment_keys has ", len, " keys but in has ", n, "; it must cover every element");
}

/// Where a call keeps the head bits it converts offsets to: (n + 31) / 32
/// words leased from the space's workspace for the call (a repeated call
/// allocates nothing), returned with the space pending; empty for the
/// other representations.
template <class ExecSpace>
using head_scratch = std::optional<workspace_lease<typename ExecSpace::memory_space>>;

/// After offsets_backend<>::to_bits_checked returned `tail`: the entries from `tail`
/// on lie at or past n and must all be n; any other outcome means the
/// offsets decrease somewhere, and the error names the first decrease.
template <class ExecSpace, class V>
void check_offsets_tail(const ExecSpace& space, const V& off, index_t tail, index_t n, const std::string& label,
                        const char* where) {
  const index_t nseg = static_cast<index_t>(off.extent(0)) - 1;
  index_t past = 0;
  if (tail < nseg)
    Kokkos::parallel_reduce(
        label + "::offsets_tail", sweep::detail::range_policy<ExecSpace>(space, tail, nseg + 1),
        KOKKOS_LAMBDA(const index_t k, index_t& count) { count += static_cast<index_t>(off(k)) != n ? 1 : 0; },
        past);
  if (tail > nseg || past > 0) check_offsets_rise(space, off, where);
  require(tail <= nseg && past == 0, where, "segment_offsets must not decrease");
}

/// The head functor of a checked representation (offsets: converted to bits
/// in `scratch`, which must outlive the functor's use, and checked to be
/// monotone in that pass: an error names the first decrease).
template <class ExecSpace, class S>
auto make_heads(const ExecSpace& space, const S& s, index_t n, const std::string& label,
                head_scratch<ExecSpace>& scratch, const char* where) {
  constexpr int kind = segments_kind<S>::value;
  if constexpr (kind == kind_flags) return flag_heads<decltype(s.flags)>{s.flags};
  else if constexpr (kind == kind_bits) return bit_heads<decltype(s.words)>{s.words};
  else if constexpr (kind == kind_offsets) {
    using lease_t = workspace_lease<typename ExecSpace::memory_space>;
    const auto nwords = static_cast<std::size_t>((n + 31) / 32);
    scratch.emplace(lease_t::piece(sizeof(std::uint32_t) * nwords));
    scratch->release_after(space);
    const auto words = scratch->template view<std::uint32_t>(nwords);
    const index_t tail = offsets_backend<ExecSpace>::to_bits_checked(space, s.offsets, n, words, label);
    check_offsets_tail(space, s.offsets, tail, n, label, where);
    return bit_heads<decltype(words)>{words};
  } else return key_heads<decltype(s.keys)>{s.keys};
}

}  // namespace detail
}  // namespace sweep
