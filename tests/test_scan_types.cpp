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

#if SWEEP_HOST_SIMD
#include <sweep/host/simd_scan.hpp>

#include <cstdlib>
#include <memory>

namespace {
struct aligned_free {
  void operator()(void* p) const { std::free(p); }
};

/// The host vector fold and scan of one type at the active level: every
/// size up to a few blocks plus long ones, both kinds, cached and streaming
/// stores, outputs at every element offset of a 64-byte line, against a
/// scalar loop (exact for integers; floats within the n-scaled bound).
template <class T>
void check_vector_kernels(const char* level) {
  constexpr std::size_t max_n = 4099, line = 64 / sizeof(T);
  // aligned_alloc takes a size that is a multiple of the alignment.
  constexpr std::size_t bytes = ((max_n + line) * sizeof(T) + 63) / 64 * 64;
  std::unique_ptr<T, aligned_free> in_buf(static_cast<T*>(std::aligned_alloc(64, bytes)));
  std::unique_ptr<T, aligned_free> out_buf(static_cast<T*>(std::aligned_alloc(64, bytes)));
  REQUIRE(in_buf);
  REQUIRE(out_buf);
  const auto x = random_values<T>(max_n + line, 7 + sizeof(T));
  std::copy(x.begin(), x.end(), in_buf.get());
  std::vector<std::size_t> sizes;
  for (std::size_t n = 0; n <= 130; ++n) sizes.push_back(n);
  for (std::size_t n : {255, 256, 257, 1000, 4096, 4099}) sizes.push_back(n);
  const T prefix = T(3);
  for (std::size_t n : sizes)
    for (std::size_t offset : {std::size_t(0), std::size_t(1), line - 1})
      for (bool exclusive : {false, true})
        for (bool streaming : {false, true}) {
          CAPTURE(level);
          CAPTURE(n);
          CAPTURE(offset);
          CAPTURE(exclusive);
          CAPTURE(streaming);
          const T* in = in_buf.get() + offset;
          T* out = out_buf.get() + offset;
          std::fill(out_buf.get(), out_buf.get() + max_n + line, T(-1));
          const T total = sweep::detail::host_simd_plus_scan<T>(in, out, static_cast<sweep::index_t>(n), prefix,
                                                                exclusive, streaming);
          T acc = prefix, magnitude = T(0);
          bool same = true;
          for (std::size_t i = 0; i < n; ++i) {
            const T next = acc + in[i];
            const T want = exclusive ? acc : next;
            magnitude += in[i] < T(0) ? T(-in[i]) : in[i];
            if constexpr (std::is_floating_point_v<T>)
              same = same && std::abs(out[i] - want) <=
                                 T(4) * std::numeric_limits<T>::epsilon() * T(i + 2) * (magnitude + std::abs(prefix));
            else
              same = same && out[i] == want;
            acc = next;
          }
          CHECK(same);
          // Nothing is written past the end (the sentinel survives).
          CHECK(out[n] == T(-1));
          const T fold = sweep::detail::host_simd_plus_fold<T>(in, static_cast<sweep::index_t>(n));
          if constexpr (std::is_floating_point_v<T>) {
            const T bound = T(4) * std::numeric_limits<T>::epsilon() * T(n + 2) * (magnitude + std::abs(prefix));
            CHECK(std::abs(total - acc) <= bound);
            CHECK(std::abs(fold + prefix - acc) <= bound);
          } else {
            CHECK(total == acc);
            CHECK(T(fold + prefix) == acc);
          }
        }
}
}  // namespace

TEST_CASE("host vector scan kernels match a scalar loop at every instruction-set level") {
  for (auto level : {sweep::host::isa::avx512, sweep::host::isa::avx2, sweep::host::isa::baseline}) {
    if (static_cast<int>(level) > static_cast<int>(sweep::host::cpu_isa())) continue;
    sweep::host::scoped_isa_limit cap(level);
    REQUIRE(sweep::host::active_isa() == level);
    check_vector_kernels<std::int32_t>(sweep::host::to_string(level));
    check_vector_kernels<std::uint32_t>(sweep::host::to_string(level));
    check_vector_kernels<std::int64_t>(sweep::host::to_string(level));
    check_vector_kernels<std::uint64_t>(sweep::host::to_string(level));
    check_vector_kernels<float>(sweep::host::to_string(level));
    check_vector_kernels<double>(sweep::host::to_string(level));
  }
}
#endif
