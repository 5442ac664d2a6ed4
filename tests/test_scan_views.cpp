// Scan entry points on strided and in-place Views, the label overloads, and
// bad input: each error is std::invalid_argument naming the sizes, and the
// caller's data is left untouched.
#include "scan_reference.hpp"

#include <sweep/cuda/policy.hpp>

#include <algorithm>
#include <string>
#include <utility>

using namespace sweep_test;

TEST_CASE_TEMPLATE("in-place scans (out is the same View as in)", Space, SWEEP_TEST_SPACES) {
  for (auto algo : all_algorithms())
    for (bool backward : {false, true})
      for (bool exclusive : {false, true}) {
        const std::string algorithm = sweep::to_string(algo);
        CAPTURE(algorithm);
        const std::size_t n = 10007;
        auto x = random_values<std::int64_t>(n, 5);
        auto v = to_device<Space>(x);
        sweep::scan_options opt{backward ? sweep::direction::backward : sweep::direction::forward, algo};
        Space space;
        auto total = exclusive ? sweep::exclusive_scan(space, v, v, std::int64_t(9), opt)
                               : sweep::inclusive_scan(space, v, v, opt);
        std::vector<std::int64_t> want;
        CHECK(total == reference_scan(x, want, std::int64_t(9), exclusive, backward, sweep::plus<std::int64_t>{}));
        CHECK(to_host(v) == want);
      }
}

namespace {

/// Forward and backward, inclusive and exclusive `automatic` scans of
/// `tiles` tiles of the CUDA scan's policy for T plus `extra` values, read
/// from one View at in_at and written to another at out_at (subviews: a
/// GPU's full tiles move through 16-byte vectors only when both start on a
/// 16-byte boundary; else staged), and in place.
template <class Space, class T>
void check_offset_scans(std::size_t tiles, std::size_t extra, std::size_t in_at, std::size_t out_at) {
  const std::size_t n = tiles * sweep::cuda::scan_policy<sizeof(T)>::tile + extra;
  CAPTURE(n);
  CAPTURE(in_at);
  CAPTURE(out_at);
  const auto x = random_values<T>(n + in_at, n + in_at);
  const std::vector<T> part(x.begin() + in_at, x.end());
  auto whole_in = to_device<Space>(x);
  auto whole_out = to_device<Space>(std::vector<T>(n + out_at, T(0x55)));
  auto in = Kokkos::subview(whole_in, Kokkos::make_pair(in_at, in_at + n));
  auto out = Kokkos::subview(whole_out, Kokkos::make_pair(out_at, out_at + n));
  for (bool backward : {false, true})
    for (bool exclusive : {false, true}) {
      CAPTURE(backward);
      CAPTURE(exclusive);
      const sweep::scan_options opt{backward ? sweep::direction::backward : sweep::direction::forward,
                                    sweep::scan_algorithm::automatic};
      const T init = T(3);
      std::vector<T> want;
      const T want_total = reference_scan(part, want, init, exclusive, backward, sweep::plus<T>{});
      const T total = exclusive ? sweep::exclusive_scan(Space(), in, out, init, opt)
                                : sweep::inclusive_scan(Space(), in, out, opt);
      CHECK(total == want_total);
      const auto got = to_host(whole_out);
      CHECK(std::vector<T>(got.begin() + out_at, got.end()) == want);
      CHECK(std::count(got.begin(), got.begin() + out_at, T(0x55)) == std::ptrdiff_t(out_at));
      auto self = to_device<Space>(part);
      const T self_total = exclusive ? sweep::exclusive_scan(Space(), self, self, init, opt)
                                     : sweep::inclusive_scan(Space(), self, self, opt);
      CHECK(self_total == want_total);
      CHECK(to_host(self) == want);
    }
}

}  // namespace

TEST_CASE_TEMPLATE("1- and 2-byte scans of Views on and off 16-byte boundaries", Space, SWEEP_TEST_SPACES) {
  // Three full tiles of the GPU scan and a partial one; one full tile.
  for (auto [in_at, out_at] : {std::pair<std::size_t, std::size_t>{0, 0}, {1, 0}, {0, 3}, {16, 16}, {8, 8}}) {
    check_offset_scans<Space, std::uint8_t>(3, 1000, in_at, out_at);
    check_offset_scans<Space, std::int16_t>(3, 1000, in_at, out_at);
  }
  check_offset_scans<Space, std::int8_t>(1, 0, 0, 0);
}

TEST_CASE_TEMPLATE("strided Views (matrix columns) in and out", Space, SWEEP_TEST_SPACES) {
  using Mem = typename Space::memory_space;
  const std::size_t n = 5000;
  Kokkos::View<double**, Kokkos::LayoutRight, Mem> m("m", n, 3);
  auto x = random_values<double>(n, 3);
  auto host = Kokkos::create_mirror_view(m);
  for (std::size_t i = 0; i < n; ++i) host(i, 0) = x[i], host(i, 1) = -1, host(i, 2) = -2;
  Kokkos::deep_copy(m, host);
  auto col_in = Kokkos::subview(m, Kokkos::ALL, 0);
  auto col_out = Kokkos::subview(m, Kokkos::ALL, 2);
  for (auto algo : all_algorithms()) {
    const std::string algorithm = sweep::to_string(algo);
    CAPTURE(algorithm);
    sweep::scan_options opt;
    opt.algorithm = algo;
    // Columns of one matrix interleave in memory: rejected as overlapping.
    CHECK_THROWS_AS(sweep::inclusive_scan(Space(), col_in, col_out, sweep::plus<double>{}, opt),
                    std::invalid_argument);
    Kokkos::View<double*, Kokkos::LayoutStride, Mem> out("out", Kokkos::LayoutStride(n, 2));
    sweep::inclusive_scan(Space(), col_in, out, sweep::plus<double>{}, opt);
    const auto want = expect(x, 0.0, sweep::plus<double>{}, plain_reference(false, false));
    check_elements(to_host(out), want, n);
  }
}

TEST_CASE_TEMPLATE("label overloads and default operators", Space, SWEEP_TEST_SPACES) {
  auto x = random_values<std::int32_t>(777, 8);
  auto in = to_device<Space>(x);
  Kokkos::View<std::int32_t*, typename Space::memory_space> out("out", x.size());
  std::vector<std::int32_t> want;
  CHECK(sweep::inclusive_scan(std::string("user::prefix"), Space(), in, out) ==
        reference_scan(x, want, 0, false, false, sweep::plus<std::int32_t>{}));
  CHECK(to_host(out) == want);
  CHECK(sweep::exclusive_scan(std::string("user::offsets"), Space(), in, out, 100) ==
        reference_scan(x, want, 100, true, false, sweep::plus<std::int32_t>{}));
  CHECK(to_host(out) == want);
  sweep::scan_options back{sweep::direction::backward};
  CHECK(sweep::exclusive_scan(Space(), in, out, 1, sweep::maximum<std::int32_t>{}, back) ==
        reference_scan(x, want, 1, true, true, sweep::maximum<std::int32_t>{}));
  CHECK(to_host(out) == want);
}

TEST_CASE_TEMPLATE("bad input throws, names the sizes and writes nothing", Space, SWEEP_TEST_SPACES) {
  using Mem = typename Space::memory_space;
  auto x = random_values<std::int32_t>(100, 4);
  auto in = to_device<Space>(x);
  const std::vector<std::int32_t> sentinel(99, 12345);
  auto short_out = to_device<Space>(sentinel);
  for (auto algo : all_algorithms()) {
    sweep::scan_options opt;
    opt.algorithm = algo;
    try {
      sweep::inclusive_scan(Space(), in, short_out, opt);
      FAIL("a short out was accepted");
    } catch (const std::invalid_argument& e) {
      const std::string what = e.what();
      CHECK(what.find("sweep::inclusive_scan") != std::string::npos);
      CHECK(what.find("99") != std::string::npos);
      CHECK(what.find("100") != std::string::npos);
    }
    CHECK_THROWS_AS(sweep::exclusive_scan(Space(), in, short_out, 0, opt), std::invalid_argument);
    CHECK(to_host(short_out) == sentinel);
  }

  // Overlapping but different Views.
  auto whole = to_device<Space>(x);
  auto lo = Kokkos::subview(whole, Kokkos::make_pair(0, 60));
  auto hi = Kokkos::subview(whole, Kokkos::make_pair(40, 100));
  try {
    sweep::inclusive_scan(Space(), lo, hi);
    FAIL("overlapping in/out were accepted");
  } catch (const std::invalid_argument& e) {
    CHECK(std::string(e.what()).find("overlap") != std::string::npos);
    CHECK(std::string(e.what()).find("60") != std::string::npos);
  }
  CHECK(to_host(whole) == x);

  // Negative knobs.
  Kokkos::View<std::int32_t*, Mem> out("out", 100);
  sweep::scan_options bad;
  for (sweep::index_t tile : {-1, 1}) {
    bad.tile_size = tile;
    CHECK_THROWS_AS(sweep::inclusive_scan(Space(), in, out, bad), std::invalid_argument);
  }
  bad.tile_size = 0;
  bad.chunk_size = -5;
  CHECK_THROWS_AS(sweep::inclusive_scan(Space(), in, out, bad), std::invalid_argument);

  // n = 0: returns init / identity, touches nothing.
  Kokkos::View<std::int32_t*, Mem> empty("empty", 0);
  auto untouched = to_device<Space>(sentinel);
  CHECK(sweep::exclusive_scan(Space(), empty, untouched, 42) == 42);
  CHECK(sweep::inclusive_scan(Space(), empty, untouched, sweep::multiplies<std::int32_t>{}) == 1);
  CHECK(to_host(untouched) == sentinel);
}
