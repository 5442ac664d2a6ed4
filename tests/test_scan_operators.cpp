// Every scan algorithm with every built-in operator and with a
// non-commutative user monoid (2x2 matrix product), which catches any
// reordering of operands.
#include "scan_reference.hpp"

#include <random>

using namespace sweep_test;

namespace {
/// Values near 1, so long products neither vanish nor overflow quickly.
std::vector<double> near_one(std::size_t n, std::uint64_t seed) {
  std::mt19937_64 gen(seed);
  std::uniform_real_distribution<double> dist(0.999, 1.001);
  std::vector<double> out(n);
  for (auto& x : out) x = dist(gen);
  return out;
}
std::vector<std::uint32_t> bits(std::size_t n, std::uint64_t seed) {
  std::mt19937_64 gen(seed);
  std::vector<std::uint32_t> out(n);
  for (auto& x : out) x = static_cast<std::uint32_t>(gen()) | static_cast<std::uint32_t>(gen());
  return out;
}
}  // namespace

TEST_CASE_TEMPLATE("scans with every built-in operator match the reference", Space, SWEEP_TEST_SPACES) {
  for (std::size_t n : {0u, 1u, 2u, 33u, 1000u, 4097u, 65537u}) {
    check_all_scans<Space>(random_values<std::int32_t>(n, n), sweep::minimum<std::int32_t>{}, std::int32_t(2),
                           all_algorithms());
    check_all_scans<Space>(random_values<std::int32_t>(n, n + 1), sweep::maximum<std::int32_t>{},
                           std::int32_t(-2), all_algorithms());
    check_all_scans<Space>(random_values<double>(n, n + 2), sweep::minimum<double>{}, 0.0, all_algorithms());
    check_all_scans<Space>(random_values<float>(n, n + 3), sweep::maximum<float>{}, -0.5f, all_algorithms());
    check_all_scans<Space>(random_values<std::uint32_t>(n, n + 4), sweep::multiplies<std::uint32_t>{}, 3u,
                           all_algorithms());
    check_all_scans<Space>(near_one(n, n + 5), sweep::multiplies<double>{}, 2.0, all_algorithms());
    check_all_scans<Space>(bits(n, n + 6), sweep::bit_and<std::uint32_t>{}, ~0u, all_algorithms());
    check_all_scans<Space>(bits(n, n + 7), sweep::bit_or<std::uint32_t>{}, 0u, all_algorithms());
    check_all_scans<Space>(bits(n, n + 8), sweep::bit_xor<std::uint32_t>{}, 0x5au, all_algorithms());
  }
}

TEST_CASE_TEMPLATE("a non-commutative monoid (2x2 matrix product) is scanned exactly", Space, SWEEP_TEST_SPACES) {
  for (std::size_t n : test_sizes()) {
    const mat2 init{2, 1, 1, 1};
    check_all_scans<Space>(random_values<mat2>(n, 1234 + n), mat2_product{}, init, all_algorithms());
  }
  // Small tiles and chunks, so many partial results are combined.
  check_all_scans<Space>(random_values<mat2>(5000, 77), mat2_product{}, mat2{},
                         {sweep::scan_algorithm::tiled, sweep::scan_algorithm::single_pass}, 7, 7);
}

TEST_CASE("the matrix monoid really is non-commutative") {
  const mat2 x{1, 1, 0, 1}, y{1, 0, 1, 1};
  CHECK_FALSE(mat2_product{}(x, y) == mat2_product{}(y, x));
}
