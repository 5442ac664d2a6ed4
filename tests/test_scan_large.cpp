// Sizes are 64-bit: an int8 scan of more than 2^32 elements and an int32
// sum of more than 2^31 (the automatic path, which on a CPU is the
// vector-register single-pass kernel), in place, checked element by
// element on the host (a 32-bit kernel index, as Kokkos 3.4.1 gives CUDA by
// default, would wrap and leave elements unwritten; a 32-bit element count
// in a host kernel would go negative past 2^31).
#include "scan_reference.hpp"

using namespace sweep_test;

namespace {

/// The int8 case's values: in [-3, 4], a hash of the index.
KOKKOS_INLINE_FUNCTION std::int8_t int8_value(sweep::index_t i) {
  return static_cast<std::int8_t>(static_cast<int>((static_cast<std::uint64_t>(i) * 2654435761u) >> 7 & 7) - 3);
}

/// The int32 case's values: in [-4, 3], a hash of the whole 64-bit index
/// (so the element 2^31 earlier is unrelated and a wrapped index shows);
/// every prefix stays inside int32 (mean -0.5: about -2^30 at the end).
KOKKOS_INLINE_FUNCTION std::int32_t int32_value(sweep::index_t i) {
  return static_cast<std::int32_t>((static_cast<std::uint64_t>(i) * 0x9E3779B97F4A7C15ull) >> 61) - 4;
}

}  // namespace

TEST_CASE_TEMPLATE("int8 scans of n > 2^32 elements", Space, SWEEP_TEST_SPACES) {
  const sweep::index_t n = (sweep::index_t(1) << 32) + 4097;
  Kokkos::View<std::int8_t*, typename Space::memory_space> v(
      Kokkos::view_alloc(Kokkos::WithoutInitializing, "big"), n);
  auto fill = [&] {
    Kokkos::parallel_for(
        "fill", Kokkos::RangePolicy<Space, Kokkos::IndexType<sweep::index_t>>(0, n),
        KOKKOS_LAMBDA(const sweep::index_t i) { v(i) = int8_value(i); });
  };
  for (bool backward : {false, true}) {
    CAPTURE(backward);
    fill();
    sweep::scan_options opt;
    opt.direction = backward ? sweep::direction::backward : sweep::direction::forward;
    const std::int8_t total = sweep::exclusive_scan(Space(), v, v, std::int8_t(1), opt);
    auto host = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), v);
    std::int8_t acc = 1;
    sweep::index_t bad = 0;
    for (sweep::index_t k = 0; k < n; ++k) {
      const sweep::index_t i = backward ? n - 1 - k : k;
      bad += host(i) != acc;
      acc = static_cast<std::int8_t>(acc + int8_value(i));
    }
    CHECK(bad == 0);
    CHECK(total == acc);
  }
}

TEST_CASE_TEMPLATE("int32 sums of n > 2^31 elements on the automatic path", Space, SWEEP_TEST_SPACES) {
  const sweep::index_t n = (sweep::index_t(1) << 31) + 4099;  // 8 GiB
  Kokkos::View<std::int32_t*, typename Space::memory_space> v(
      Kokkos::view_alloc(Kokkos::WithoutInitializing, "big32"), n);
  for (bool exclusive : {false, true}) {
    CAPTURE(exclusive);
    Kokkos::parallel_for(
        "fill", Kokkos::RangePolicy<Space, Kokkos::IndexType<sweep::index_t>>(0, n),
        KOKKOS_LAMBDA(const sweep::index_t i) { v(i) = int32_value(i); });
    const std::int32_t total =
        exclusive ? sweep::exclusive_scan(Space(), v, v, std::int32_t(5)) : sweep::inclusive_scan(Space(), v, v);
    auto host = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), v);
    std::int64_t acc = exclusive ? 5 : 0;
    sweep::index_t bad = 0, first_bad = -1;
    for (sweep::index_t i = 0; i < n; ++i) {
      const std::int64_t next = acc + int32_value(i);
      const std::int64_t want = exclusive ? acc : next;
      if (host(i) != want && bad++ == 0) first_bad = i;
      acc = next;
    }
    CHECK_MESSAGE(bad == 0, bad, " wrong elements, the first at ", first_bad);
    CHECK(total == acc);
  }
}

TEST_CASE_TEMPLATE("sums whose output exceeds the caches (streamed stores) are exact", Space, SWEEP_TEST_SPACES) {
  const std::size_t n = (std::size_t(1) << 24) + 3;  // 64 MiB of int32 and a tail
  auto x = random_values<std::int32_t>(n, 2024);
  auto in = to_device<Space>(x);
  for (bool exclusive : {false, true})
    for (bool in_place : {false, true}) {
      CAPTURE(exclusive);
      CAPTURE(in_place);
      auto out = in_place ? to_device<Space>(x) : to_device<Space>(std::vector<std::int32_t>(n, -7));
      auto src = in_place ? out : in;
      const std::int32_t total = exclusive ? sweep::exclusive_scan(Space(), src, out, 11)
                                           : sweep::inclusive_scan(Space(), src, out);
      std::vector<std::int32_t> want;
      CHECK(total == reference_scan(x, want, std::int32_t(exclusive ? 11 : 0), exclusive, false,
                                    sweep::plus<std::int32_t>{}));
      CHECK(to_host(out) == want);
    }
}
