// The shared vocabulary in <sweep/core.hpp>: argument checks, overlap
// detection of (strided) Views, profiling regions, and that every enabled
// space really runs kernels.
#include <sweep/sweep.hpp>

#include "test_support.hpp"

#include <string>

TEST_CASE("require throws std::invalid_argument naming the call and the sizes") {
  CHECK_NOTHROW(sweep::detail::require(true, "sweep::f", "never"));
  try {
    sweep::detail::require(false, "sweep::f", "out has ", 3, " elements but in has ", 5);
    FAIL("require(false) did not throw");
  } catch (const std::invalid_argument& e) {
    CHECK(std::string(e.what()) == "sweep::f: out has 3 elements but in has 5");
  }
}

TEST_CASE("overlap and same_elements see through subviews and strides") {
  Kokkos::View<int*, Kokkos::HostSpace> a("a", 100);
  auto lo = Kokkos::subview(a, Kokkos::make_pair(0, 50));
  auto hi = Kokkos::subview(a, Kokkos::make_pair(50, 100));
  auto mid = Kokkos::subview(a, Kokkos::make_pair(40, 60));
  CHECK_FALSE(sweep::detail::overlap(lo, hi));
  CHECK(sweep::detail::overlap(lo, mid));
  CHECK(sweep::detail::overlap(mid, hi));
  CHECK(sweep::detail::same_elements(a, a));
  CHECK_FALSE(sweep::detail::same_elements(lo, a));

  Kokkos::View<int**, Kokkos::LayoutRight, Kokkos::HostSpace> m("m", 10, 4);
  auto col0 = Kokkos::subview(m, Kokkos::ALL, 0);
  auto col1 = Kokkos::subview(m, Kokkos::ALL, 1);
  CHECK(col0.stride(0) == 4);
  auto [b0, b1] = sweep::detail::byte_span(col0);
  CHECK(b1 - b0 == (9 * 4 + 1) * sizeof(int));
  // Interleaved columns share a byte range: treated as overlapping (the
  // conservative answer; no write can be lost).
  CHECK(sweep::detail::overlap(col0, col1));

  Kokkos::View<int*, Kokkos::HostSpace> empty("empty", 0);
  CHECK_FALSE(sweep::detail::overlap(empty, a));
}

TEST_CASE_TEMPLATE("every enabled space runs a kernel and reports its concurrency", Space,
                   SWEEP_TEST_SPACES) {
  Space space;
  CHECK(sweep::detail::concurrency(space) >= 1);
  const std::size_t n = 1000;
  auto v = sweep_test::to_device<Space>(sweep_test::random_values<int>(n, 7));
  Kokkos::View<long, typename Space::memory_space> total("total");
  Kokkos::parallel_reduce(
      "sweep::test::sum", Kokkos::RangePolicy<Space>(space, 0, n),
      KOKKOS_LAMBDA(const int i, long& acc) { acc += v(i); }, total);
  long expected = 0;
  for (int x : sweep_test::to_host(v)) expected += x;
  long got = 0;
  Kokkos::deep_copy(got, total);
  CHECK(got == expected);
}

TEST_CASE("minimum and maximum identities are the extreme values of each type") {
  auto check = [](auto zero) {
    using T = decltype(zero);
    if constexpr (std::is_floating_point_v<T>) {
      CHECK(sweep::minimum<T>::identity() == std::numeric_limits<T>::infinity());
      CHECK(sweep::maximum<T>::identity() == -std::numeric_limits<T>::infinity());
    } else {
      CHECK(sweep::minimum<T>::identity() == std::numeric_limits<T>::max());
      CHECK(sweep::maximum<T>::identity() == std::numeric_limits<T>::lowest());
    }
  };
  check(0.0f);
  check(0.0);
  check(std::int8_t(0));
  check(std::uint8_t(0));
  check(std::int16_t(0));
  check(std::int32_t(0));
  check(std::uint32_t(0));
  check(std::int64_t(0));
  check(std::uint64_t(0));
  static_assert(sweep::minimum<std::int32_t>::identity() == 2147483647);
}
