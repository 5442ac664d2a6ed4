// Sizes, types and values the other scan suites pass by: the sizes where
// `automatic` changes algorithm and exact powers of two (every algorithm),
// uint64 with carries past 32 bits, inputs of one type scanned into
// outputs of a wider one, segments given by int32 offsets, non-byte flags
// and keys of other types, and NaN and signed zeros in minimum/maximum
// scans (the behaviour sweep/monoid.hpp documents, checked bit for bit).
#include "segmented_reference.hpp"

#include <sweep/tuning.hpp>

#include <bit>
#include <cstring>

using namespace sweep_test;

namespace {

/// The sizes around the space's switch from sequential to single_pass, and
/// powers of two (a tree's padding and a chunk split come out exact). A
/// space without the switch (a GPU: sequential_below is 0, automatic is
/// single_pass at every size) gets the powers of two and 1.
template <class Space>
std::vector<std::size_t> switch_sizes() {
  const auto t = static_cast<std::size_t>(sweep::tuning<Space>::scan::sequential_below);
  if (t == 0) return {1, 1024, 65536};
  return {1024, t - 1, t, t + 1, 65536};
}

/// Values over the whole range of T (sums wrap, carries cross every bit).
template <class T>
std::vector<T> full_range_values(std::size_t n, std::uint64_t seed) {
  std::mt19937_64 gen(seed);
  std::vector<T> out(n);
  for (auto& x : out) x = static_cast<T>(gen());
  return out;
}

// ---------------------------------------------------------------- NaN

/// The documented minimum/maximum, written out independently of
/// sweep/monoid.hpp as a left fold rule: a NaN already held stays; else a
/// NaN operand takes over; else the operand replaces the held value only
/// when strictly better (ties keep the earlier one).
template <class T, bool Min>
struct documented_extreme {
  using value_type = T;
  static T identity() { return Min ? std::numeric_limits<T>::infinity() : -std::numeric_limits<T>::infinity(); }
  T operator()(const T& held, const T& next) const {
    if (std::isnan(held)) return held;
    if (std::isnan(next)) return next;
    const bool better = Min ? next < held : held < next;
    return better ? next : held;
  }
};

template <class T>
bool same_bits(const T& a, const T& b) {
  return std::memcmp(&a, &b, sizeof(T)) == 0;
}

/// A quiet NaN whose payload tells which one it is.
template <class T>
T nan_with_payload(unsigned tag) {
  if constexpr (std::is_same_v<T, float>)
    return std::bit_cast<float>(0x7fc00000u | (tag & 0x3fffffu));
  else
    return std::bit_cast<double>(0x7ff8000000000000ull | tag);
}

/// Values with repeats, both zeros and a few NaNs (distinct payloads,
/// some negative) at element 0, in a cluster, and in the last quarter; or
/// none.
template <class T>
std::vector<T> nan_values(std::size_t n, std::uint64_t seed, bool with_nans) {
  std::mt19937_64 gen(seed);
  std::uniform_int_distribution<int> small(-4, 4);
  std::vector<T> x(n);
  for (std::size_t i = 0; i < n; ++i) {
    const int v = small(gen);
    x[i] = v == 0 ? (gen() % 2 ? T(0) : -T(0)) : static_cast<T>(v) / T(4);
  }
  if (with_nans && n > 0) {
    x[0] = nan_with_payload<T>(1);
    for (std::size_t i = n / 3; i < n / 3 + 5 && i < n; ++i) x[i] = nan_with_payload<T>(static_cast<unsigned>(10 + i));
    if (n > 8) x[3 * n / 4] = -nan_with_payload<T>(7);
  }
  return x;
}

/// Bit-for-bit comparison of got with the documented fold.
template <class T>
void check_bits(const std::vector<T>& got, const std::vector<T>& want) {
  REQUIRE(got.size() >= want.size());
  std::size_t bad = 0, first = want.size();
  for (std::size_t i = 0; i < want.size(); ++i)
    if (!same_bits(got[i], want[i]) && bad++ == 0) first = i;
  CHECK_MESSAGE(bad == 0, bad, " elements differ in their bits, first at ", first, ": got ",
                bad ? got[first] : T(0), ", want ", bad ? want[first] : T(0));
}

template <class Space, class T, bool Min>
void check_nan_scans(std::size_t n, bool with_nans, const T& init, sweep::index_t tile, sweep::index_t chunk) {
  using Op = std::conditional_t<Min, sweep::minimum<T>, sweep::maximum<T>>;
  CAPTURE(n);
  CAPTURE(Min);
  CAPTURE(with_nans);
  CAPTURE(init);
  CAPTURE(tile);
  const auto x = nan_values<T>(n, n + (Min ? 1 : 2), with_nans);
  auto in = to_device<Space>(x, "in");
  for_each_variant(all_algorithms(), tile, chunk, [&](const sweep::scan_options& opt, bool backward, bool exclusive) {
    Kokkos::View<T*, typename Space::memory_space> out("out", n);
    Space space;
    const T total = exclusive ? sweep::exclusive_scan(space, in, out, init, Op{}, opt)
                              : sweep::inclusive_scan(space, in, out, Op{}, opt);
    std::vector<T> want;
    const T want_total = reference_scan(x, want, init, exclusive, backward, documented_extreme<T, Min>{});
    CHECK_MESSAGE(same_bits(total, want_total), "total ", total, ", want ", want_total);
    check_bits(to_host(out), want);
  });
}

}  // namespace

// ---------------------------------------------------------------- sizes

TEST_CASE_TEMPLATE("automatic switches from sequential to single_pass at the host threshold", Space,
                   SWEEP_TEST_SPACES) {
  using sweep::scan_algorithm;
  if constexpr (sweep::detail::is_host_space_v<Space>) {
    const sweep::index_t t = sweep::tuning<Space>::scan::sequential_below;
    REQUIRE(t == 4096);  // the documented switch (scan.hpp, segmented_scan.hpp)
    CHECK(sweep::resolve_scan_algorithm<Space>(scan_algorithm::automatic, 1) == scan_algorithm::sequential);
    CHECK(sweep::resolve_scan_algorithm<Space>(scan_algorithm::automatic, t - 1) == scan_algorithm::sequential);
    CHECK(sweep::resolve_scan_algorithm<Space>(scan_algorithm::automatic, t) == scan_algorithm::single_pass);
    CHECK(sweep::resolve_scan_algorithm<Space>(scan_algorithm::automatic, t + 1) == scan_algorithm::single_pass);
  }
  for (const auto& entry : sweep::scan_algorithms)
    if (entry.id != scan_algorithm::automatic) {
      const std::string algorithm_name = entry.name;
      CAPTURE(algorithm_name);
      CHECK(sweep::resolve_scan_algorithm<Space>(entry.id, 5) == entry.id);
    }
}

TEST_CASE_TEMPLATE("scans at 1024, around the automatic switch and at 65536, every algorithm", Space,
                   SWEEP_TEST_SPACES) {
  for (std::size_t n : switch_sizes<Space>()) {
    check_all_scans<Space>(random_values<std::int32_t>(n, 11 + n), sweep::plus<std::int32_t>{}, std::int32_t(-2),
                           all_algorithms());
    check_all_scans<Space>(random_values<double>(n, 12 + n), sweep::plus<double>{}, 0.75, all_algorithms());
    check_all_scans<Space>(random_values<mat2>(n, 14 + n), mat2_product{}, mat2{1, 1, 0, 1}, all_algorithms());
  }
}

TEST_CASE_TEMPLATE("segmented scans at 1024, around the automatic switch and at 65536", Space, SWEEP_TEST_SPACES) {
  for (std::size_t n : switch_sizes<Space>()) {
    const auto l = random_layout(n, 8.0, n, 5);
    check_segmented<Space>(random_values<std::int32_t>(n, n + 1), l, sweep::plus<std::int32_t>{}, std::int32_t(3));
    check_segmented<Space>(random_values<mat2>(n, n + 2), l, mat2_product{}, mat2{2, 0, 1, 1});
  }
}

// ---------------------------------------------------------------- types

TEST_CASE_TEMPLATE("uint64 sums wrap modulo 2^64 with carries past bit 32, every algorithm", Space,
                   SWEEP_TEST_SPACES) {
  for (std::size_t n : {1u, 33u, 4097u, 65537u})
    check_all_scans<Space>(full_range_values<std::uint64_t>(n, n), sweep::plus<std::uint64_t>{},
                           std::uint64_t(0xffffffff00000001ull), all_algorithms());
  const std::size_t n = 70001;
  check_all_scans<Space>(full_range_values<std::uint64_t>(n, 5), sweep::bit_xor<std::uint64_t>{},
                         std::uint64_t(1) << 63, all_algorithms());
  check_all_scans<Space>(full_range_values<std::uint64_t>(n, 6), sweep::maximum<std::uint64_t>{}, std::uint64_t(3),
                         all_algorithms());
  // minimum's identity must be 2^64 - 1: half of these values exceed 2^63.
  check_all_scans<Space>(full_range_values<std::uint64_t>(n, 7), sweep::minimum<std::uint64_t>{},
                         ~std::uint64_t(0) - 5, all_algorithms());
}

TEST_CASE_TEMPLATE("inputs scanned into a wider output type, every algorithm", Space, SWEEP_TEST_SPACES) {
  for (std::size_t n : {1u, 1000u, 4097u, 65537u}) {
    // int32 in, int64 out: prefixes pass 2^31 (an int32 accumulator
    // would wrap).
    std::vector<std::int32_t> big(n);
    std::mt19937_64 gen(n);
    for (auto& v : big) v = static_cast<std::int32_t>(0x70000000 + static_cast<std::int32_t>(gen() % 0x1000000));
    check_all_scans<Space>(big, sweep::plus<std::int64_t>{}, std::int64_t(-5), all_algorithms());
    // float in, double out: the sums are held to double's bound.
    check_all_scans<Space>(random_values<float>(n, n + 1), sweep::plus<double>{}, 0.125, all_algorithms());
    // uint8 in, int64 out (counting flags).
    std::vector<std::uint8_t> bytes(n);
    for (auto& b : bytes) b = static_cast<std::uint8_t>(gen());
    check_all_scans<Space>(bytes, sweep::plus<std::int64_t>{}, std::int64_t(0), all_algorithms());
    // int16 in, int32 maximum.
    std::vector<std::int16_t> shorts(n);
    for (auto& s : shorts) s = static_cast<std::int16_t>(gen());
    check_all_scans<Space>(shorts, sweep::maximum<std::int32_t>{}, std::int32_t(-40000), all_algorithms());
  }
}

TEST_CASE_TEMPLATE("segments as int32 offsets, wide flags and keys of other types, with mixed in/out types", Space,
                   SWEEP_TEST_SPACES) {
  using Mem = typename Space::memory_space;
  // 40000 int32 elements: two single_pass chunks on a CPU.
  for (std::size_t n : {33u, 40000u}) {
    CAPTURE(n);
    for (const auto& l : {random_layout(n, 8.0, n + 3, 4), random_layout(n, 300.0, n + 4)}) {
      const std::string layout_name = l.name;
      CAPTURE(layout_name);
      const auto heads = l.heads();
      std::vector<std::int32_t> off32(l.offsets.begin(), l.offsets.end());
      // Flags whose only set bits lie above the low byte; keys of several
      // types whose low 32 bits (or whose integer part) never change.
      std::vector<std::int32_t> flags32(n, 0);
      std::vector<std::int64_t> flags64(n, 0), keys64(n);
      std::vector<std::uint8_t> keys8(n);
      std::vector<double> keysd(n);
      std::int64_t seg = 0;
      for (std::size_t i = 0; i < n; ++i) {
        if (i > 0 && heads[i]) {
          ++seg;
          flags32[i] = 0x100 << (i % 8);
          flags64[i] = std::int64_t(1) << (32 + i % 31);
        }
        keys64[i] = (seg % 5) << 33 | 0x7;
        keys8[i] = static_cast<std::uint8_t>(250 + seg % 3);
        keysd[i] = 1.0 + static_cast<double>(seg % 3) * 0x1p-40;
      }
      const auto x = random_values<std::int32_t>(n, n + 7);
      std::vector<std::int32_t> big(n);
      for (std::size_t i = 0; i < n; ++i) big[i] = 0x60000000 + x[i];
      auto do_all = [&](const char* repr, const auto& segments) {
        CAPTURE(repr);
        check_segmented_with<Space>(x, l, segments, sweep::plus<std::int32_t>{}, std::int32_t(9));
        check_segmented_with<Space>(big, l, segments, sweep::plus<std::int64_t>{}, std::int64_t(-1));
        check_segmented_with<Space>(random_values<float>(n, n + 8), l, segments, sweep::plus<double>{}, 0.5);
      };
      const auto d_off32 = to_device<Space>(off32, "offsets32");
      do_all("int32 offsets", sweep::segment_offsets(d_off32));
      if (l.has_empty()) continue;  // flags and keys cannot express empty segments
      const auto d_flags32 = to_device<Space>(flags32, "flags32");
      const auto d_flags64 = to_device<Space>(flags64, "flags64");
      const auto d_keys64 = to_device<Space>(keys64, "keys64");
      const auto d_keys8 = to_device<Space>(keys8, "keys8");
      const auto d_keysd = to_device<Space>(keysd, "keysd");
      do_all("int32 flags", sweep::head_flags(d_flags32));
      do_all("int64 flags", sweep::head_flags(d_flags64));
      do_all("int64 keys", sweep::segment_keys(d_keys64));
      do_all("uint8 keys", sweep::segment_keys(d_keys8));
      do_all("double keys", sweep::segment_keys(d_keysd));

      // Conversions into int32 offsets and ids, and back.
      Space space;
      const auto nseg = static_cast<sweep::index_t>(l.offsets.size() - 1);
      std::vector<std::int32_t> want_ids(n);
      for (std::size_t i = 0, s = 0; i < n; ++i) {
        while (off32[s + 1] <= static_cast<std::int32_t>(i)) ++s;
        want_ids[i] = static_cast<std::int32_t>(s);
      }
      Kokkos::View<std::int32_t*, Mem> o32("o32", nseg + 1), ids("ids", n);
      CHECK(sweep::to_segment_offsets(space, sweep::segment_keys(d_keysd), o32) == nseg);
      CHECK(to_host(o32) == off32);
      sweep::to_segment_ids(space, sweep::head_flags(d_flags64), ids);
      CHECK(to_host(ids) == want_ids);
      sweep::to_segment_ids(space, sweep::segment_offsets(d_off32), ids);
      CHECK(to_host(ids) == want_ids);
      Kokkos::View<std::int16_t*, Mem> f16("f16", n);
      sweep::to_head_flags(space, sweep::segment_keys(d_keys8), f16);
      std::size_t bad = 0;
      const auto got = to_host(f16);
      for (std::size_t i = 0; i < n; ++i) bad += got[i] != ((i == 0 || heads[i]) ? 1 : 0);
      CHECK(bad == 0);
    }
  }
}

// ---------------------------------------------------------------- NaN

TEST_CASE_TEMPLATE("minimum/maximum scans keep the first NaN and the first of equal values, every algorithm",
                   Space, SWEEP_TEST_SPACES) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  // Tiles and chunks of 17 elements make deep trees at small n; 40000
  // doubles span several of the default tiles and chunks.
  struct shape {
    std::size_t n;
    bool with_nans;
    sweep::index_t size;
  };
  for (const shape s : {shape{1, true, 0}, shape{40, true, 17}, shape{5000, true, 17}, shape{5000, false, 17},
                        shape{40000, true, 0}}) {
    check_nan_scans<Space, double, true>(s.n, s.with_nans, 0.5, s.size, s.size);
    check_nan_scans<Space, double, false>(s.n, s.with_nans, -0.0, s.size, s.size);
    check_nan_scans<Space, float, true>(s.n, s.with_nans, 0.0f, s.size, s.size);
    check_nan_scans<Space, float, false>(s.n, s.with_nans, 0.25f, s.size, s.size);
  }
  // A NaN init: every exclusive result (and total) is that NaN.
  check_nan_scans<Space, double, true>(5000, false, nan, 0, 0);
  check_nan_scans<Space, float, false>(5000, true, -std::numeric_limits<float>::quiet_NaN(), 17, 17);
}

TEST_CASE_TEMPLATE("segmented minimum/maximum with NaN, every segmented algorithm", Space, SWEEP_TEST_SPACES) {
  for (std::size_t n : {40u, 40000u}) {
    CAPTURE(n);
    const auto l = random_layout(n, 50.0, n + 9, 6);
    representations<Space> reps(l);
    const auto heads = l.heads();
    const auto x = nan_values<double>(n, n, true);
    auto in = to_device<Space>(x, "in");
    Space space;
    for_each_representation(reps, [&](const char* repr, const auto& segments) {
      CAPTURE(repr);
      for_each_variant(segmented_algorithms(), 0, 0, [&](const sweep::scan_options& opt, bool backward, bool exclusive) {
        Kokkos::View<double*, typename Space::memory_space> lo("lo", n), hi("hi", n);
        if (exclusive) {
          sweep::segmented_exclusive_scan(space, in, segments, lo, 0.5, sweep::minimum<double>{}, opt);
          sweep::segmented_exclusive_scan(space, in, segments, hi, -0.0, sweep::maximum<double>{}, opt);
        } else {
          sweep::segmented_inclusive_scan(space, in, segments, lo, sweep::minimum<double>{}, opt);
          sweep::segmented_inclusive_scan(space, in, segments, hi, sweep::maximum<double>{}, opt);
        }
        std::vector<double> want;
        reference_segmented_scan(x, heads, want, 0.5, exclusive, backward, documented_extreme<double, true>{});
        check_bits(to_host(lo), want);
        reference_segmented_scan(x, heads, want, -0.0, exclusive, backward, documented_extreme<double, false>{});
        check_bits(to_host(hi), want);
      });
    });
  }
}
