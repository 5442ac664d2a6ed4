// Distributed scans against the sequential reference and Sweep's
// single-process scan of the concatenated input: integer sums and the
// non-commutative 2x2 matrix product exactly, both directions, both kinds,
// every split of the input over the ranks (empty ranks included).
#include "mpi_support.hpp"
#include "scan_reference.hpp"

#include <sweep/mpi.hpp>

using namespace sweep_test;

namespace {

template <class Space, class T, class Op>
void check_distributed_scan(const std::vector<T>& x, const Op& op, const T& init,
                            std::initializer_list<sweep::scan_algorithm> algorithms) {
  Space space;
  using Mem = typename Space::memory_space;
  for (const auto& s : splits(x.size(), x.size() + 17)) {
    CAPTURE(s.name);
    const auto mine = slice(x, s);
    auto in = to_device<Space>(mine, "in");
    Kokkos::View<T*, Mem> out("out", mine.size());
    for (auto algorithm : algorithms)
      for (bool exclusive : {false, true})
        for (bool backward : {false, true}) {
          CAPTURE(sweep::to_string(algorithm));
          CAPTURE(exclusive);
          CAPTURE(backward);
          std::vector<T> want;
          const T want_total = reference_scan(x, want, init, exclusive, backward, op);
          // Sweep's single-process result on the whole input agrees too.
          auto whole_in = to_device<Space>(x, "whole");
          Kokkos::View<T*, Mem> whole_out("whole_out", x.size());
          sweep::scan_options opt;
          opt.algorithm = algorithm;
          opt.direction = backward ? sweep::direction::backward : sweep::direction::forward;
          const T single = exclusive ? sweep::exclusive_scan(space, whole_in, whole_out, init, op, opt)
                                     : sweep::inclusive_scan(space, whole_in, whole_out, op, opt);
          CHECK(single == want_total);
          CHECK(slice(to_host(whole_out), s) == slice(want, s));
          const T total = exclusive ? sweep::mpi::exclusive_scan(MPI_COMM_WORLD, space, in, out, init, op, opt)
                                    : sweep::mpi::inclusive_scan(MPI_COMM_WORLD, space, in, out, op, opt);
          CHECK(total == want_total);
          CHECK(to_host(out) == slice(want, s));
        }
  }
}

}  // namespace

TEST_CASE_TEMPLATE("distributed int32 and int64 sums equal the single-process scan", Space, SWEEP_TEST_SPACES) {
  for (std::size_t n : {0u, 1u, 5u, 33u, 4099u, 100003u}) {
    CAPTURE(n);
    check_distributed_scan<Space>(random_values<std::int32_t>(n, n), sweep::plus<std::int32_t>{}, std::int32_t(7),
                                  {sweep::scan_algorithm::automatic});
    check_distributed_scan<Space>(random_values<std::int64_t>(n, n + 1), sweep::plus<std::int64_t>{},
                                  std::int64_t(-3), {sweep::scan_algorithm::sequential});
  }
}

TEST_CASE_TEMPLATE("distributed 2x2 matrix products keep operand order", Space, SWEEP_TEST_SPACES) {
  for (std::size_t n : {1u, 7u, 1000u, 20001u}) {
    CAPTURE(n);
    const mat2 init{2, 1, 1, 1};
    check_distributed_scan<Space>(random_values<mat2>(n, 3 * n), mat2_product{}, init,
                                  {sweep::scan_algorithm::automatic, sweep::scan_algorithm::blelloch});
  }
}

TEST_CASE_TEMPLATE("distributed min and max scans are exact", Space, SWEEP_TEST_SPACES) {
  const auto x = random_values<std::int32_t>(3001, 5);
  check_distributed_scan<Space>(x, sweep::minimum<std::int32_t>{}, std::int32_t(100),
                                {sweep::scan_algorithm::automatic});
  check_distributed_scan<Space>(x, sweep::maximum<std::int32_t>{}, std::int32_t(-100),
                                {sweep::scan_algorithm::automatic});
}

TEST_CASE_TEMPLATE("a distributed scan in place equals one into another View", Space, SWEEP_TEST_SPACES) {
  Space space;
  const auto x = random_values<std::int64_t>(10007, 11);
  std::vector<std::int64_t> want;
  const auto want_total = reference_scan(x, want, std::int64_t(0), false, false, sweep::plus<std::int64_t>{});
  for (const auto& s : splits(x.size(), 3)) {
    CAPTURE(s.name);
    auto data = to_device<Space>(slice(x, s), "data");
    CHECK(sweep::mpi::inclusive_scan(MPI_COMM_WORLD, space, data, data) == want_total);
    CHECK(to_host(data) == slice(want, s));
  }
}

TEST_CASE_TEMPLATE("distributed float sums agree with a double reference to rounding", Space, SWEEP_TEST_SPACES) {
  Space space;
  const std::size_t n = 50001;
  const auto x = random_values<float>(n, 9);
  for (const auto& s : splits(n, 5)) {
    CAPTURE(s.name);
    auto in = to_device<Space>(slice(x, s), "in");
    Kokkos::View<float*, typename Space::memory_space> out("out", s.count());
    const float total = sweep::mpi::inclusive_scan(MPI_COMM_WORLD, space, in, out);
    const auto got = to_host(out);
    // Per element: the error of any order of summation is bounded by
    // (number of additions) * eps * (sum of |x| over the prefix).
    double acc = 0.0, mag = 0.0;
    bool ok = true;
    for (std::size_t i = 0; i < s.end(); ++i) {
      acc += x[i];
      mag += std::abs(double(x[i]));
      const double bound = double(i + 1) * std::numeric_limits<float>::epsilon() * mag;
      if (i >= s.begin() && std::abs(double(got[i - s.begin()]) - acc) > bound) ok = false;
    }
    CHECK(ok);
    double all = 0.0, all_mag = 0.0;
    for (float v : x) all += v, all_mag += std::abs(double(v));
    CHECK(std::abs(double(total) - all) <= double(n) * std::numeric_limits<float>::epsilon() * all_mag);
  }
}
