// Segmented scans and reductions with every type and built-in operator and
// with the non-commutative matrix monoid, which catches any reordering of
// operands inside or across segments.
#include "segmented_reference.hpp"

using namespace sweep_test;

TEST_CASE_TEMPLATE("segmented scans with every type and operator", Space, SWEEP_TEST_SPACES) {
  for (std::size_t n : {1u, 33u, 4097u}) {
    for (const auto& l : {random_layout(n, 8.0, n), random_layout(n, 1000.0, n + 1)}) {
      check_segmented<Space>(random_values<double>(n, n), l, sweep::plus<double>{}, 0.5);
      check_segmented<Space>(random_values<float>(n, n + 1), l, sweep::maximum<float>{}, -0.25f);
      check_segmented<Space>(random_values<std::int32_t>(n, n + 2), l, sweep::minimum<std::int32_t>{},
                             std::int32_t(1));
      check_segmented<Space>(random_values<std::uint32_t>(n, n + 3), l, sweep::multiplies<std::uint32_t>{}, 3u);
      check_segmented<Space>(random_values<std::uint64_t>(n, n + 4), l, sweep::bit_xor<std::uint64_t>{},
                             std::uint64_t(0x5a));
      check_segmented<Space>(random_values<std::int8_t>(n, n + 5), l, sweep::plus<std::int8_t>{}, std::int8_t(1));
      check_segmented<Space>(random_values<mat2>(n, n + 6), l, mat2_product{}, mat2{2, 1, 1, 1});
    }
  }
}

TEST_CASE_TEMPLATE("segmented scans of a non-commutative monoid over many chunks", Space, SWEEP_TEST_SPACES) {
  const std::size_t n = 20000;
  for (const auto& l : standard_layouts(n, 99))
    check_segmented<Space>(random_values<mat2>(n, 5), l, mat2_product{}, mat2{1, 2, 0, 1},
                           {sweep::scan_algorithm::single_pass, sweep::scan_algorithm::blelloch}, 7);
}


TEST_CASE_TEMPLATE("segmented sums on the CPU vector path, any chunking", Space, SWEEP_TEST_SPACES) {
  // Forward sums of dense arithmetic data run on vectors on a CPU; chunk
  // sizes that are not multiples of the vector width or of 8 take the
  // unaligned entry points.
  // Only host spaces have the vector path: other builds skip the body (and
  // its compile time).
  if constexpr (sweep::detail::is_host_space_v<Space>) {
    const std::size_t n = 100003;
    for (const auto& l : {random_layout(n, 3.0, 1), random_layout(n, 40.0, 2), single_segment(n)})
      for (sweep::index_t chunk : {0, 7, 64, 1000}) {
        const std::vector<sweep::scan_algorithm> sp = {sweep::scan_algorithm::single_pass};
        check_segmented<Space>(random_values<std::int32_t>(n, 1), l, sweep::plus<std::int32_t>{}, std::int32_t(3), sp, chunk);
        check_segmented<Space>(random_values<std::uint32_t>(n, 2), l, sweep::plus<std::uint32_t>{}, 3u, sp, chunk);
        check_segmented<Space>(random_values<std::int64_t>(n, 3), l, sweep::plus<std::int64_t>{}, std::int64_t(-3), sp, chunk);
        check_segmented<Space>(random_values<std::uint64_t>(n, 4), l, sweep::plus<std::uint64_t>{}, std::uint64_t(1), sp, chunk);
        check_segmented<Space>(random_values<float>(n, 5), l, sweep::plus<float>{}, 0.5f, sp, chunk);
        check_segmented<Space>(random_values<double>(n, 6), l, sweep::plus<double>{}, -0.5, sp, chunk);
      }
  }
}
