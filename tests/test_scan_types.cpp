// Every scan algorithm x direction x kind against the sequential reference,
// across sizes and element types, with sweep::plus.
#include "scan_reference.hpp"

using namespace sweep_test;

TEST_CASE_TEMPLATE("scans of every type with plus match the reference", Space, SWEEP_TEST_SPACES) {
  for (std::size_t n : test_sizes()) {
    check_all_scans<Space>(random_values<std::int32_t>(n, 1 + n), sweep::plus<std::int32_t>{}, std::int32_t(5),
                           all_algorithms());
    if (n > 70000) continue;  // the other types at every size up to 2^16+1
    check_all_scans<Space>(random_values<std::int8_t>(n, 2 + n), sweep::plus<std::int8_t>{}, std::int8_t(-3),
                           all_algorithms());
    check_all_scans<Space>(random_values<std::int64_t>(n, 3 + n), sweep::plus<std::int64_t>{}, std::int64_t(1) << 40,
                           all_algorithms());
    check_all_scans<Space>(random_values<std::uint32_t>(n, 4 + n), sweep::plus<std::uint32_t>{}, 7u,
                           all_algorithms());
    check_all_scans<Space>(random_values<float>(n, 5 + n), sweep::plus<float>{}, 0.5f, all_algorithms());
    check_all_scans<Space>(random_values<double>(n, 6 + n), sweep::plus<double>{}, -0.25, all_algorithms());
  }
}

TEST_CASE_TEMPLATE("double scans of a few million elements stay within the prefix-scaled bound", Space,
                   SWEEP_TEST_SPACES) {
  const std::size_t n = 3'000'017;
  check_all_scans<Space>(random_values<double>(n, 99), sweep::plus<double>{}, 1.0,
                         {sweep::scan_algorithm::automatic, sweep::scan_algorithm::tiled,
                          sweep::scan_algorithm::chunked, sweep::scan_algorithm::single_pass});
}

TEST_CASE_TEMPLATE("tile and chunk sizes are honoured, including tiny ones that force deep recursion", Space,
                   SWEEP_TEST_SPACES) {
  for (std::size_t n : {1000u, 4097u, 100'003u}) {
    auto x = random_values<std::int64_t>(n, n);
    for (sweep::index_t size : {2, 3, 17, 256}) {
      CAPTURE(size);
      check_all_scans<Space>(x, sweep::plus<std::int64_t>{}, std::int64_t(3),
                             {sweep::scan_algorithm::tiled, sweep::scan_algorithm::single_pass}, size, size);
    }
    check_all_scans<Space>(x, sweep::plus<std::int64_t>{}, std::int64_t(3), {sweep::scan_algorithm::single_pass}, 0, 1);
  }
}
