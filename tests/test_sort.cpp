// sweep::sort_by_key / sort_permutation against std::stable_sort on random
// keys of both widths, few distinct keys (stability), keys differing only
// in high or middle bytes (skipped passes), end_bit, and bad input; the
// stable merge of sorted runs that the distributed sort ends with.
#include <sweep/sort.hpp>
#include <sweep/detail/merge_runs.hpp>

#include "test_support.hpp"
#include "workspace_leases.hpp"

#include <algorithm>
#include <cstdint>
#include <numeric>
#include <random>
#include <vector>

using namespace sweep_test;

namespace {

template <class K>
std::vector<K> make_keys(std::size_t n, int kind, std::uint64_t seed) {
  std::mt19937_64 gen(seed);
  std::vector<K> k(n);
  for (auto& x : k) {
    const std::uint64_t r = gen();
    switch (kind) {
      case 0: x = static_cast<K>(r); break;                                      // all bits
      case 1: x = static_cast<K>(r % 5); break;                                  // few distinct: stability
      case 2: x = static_cast<K>((r % 3) << (8 * sizeof(K) - 4)); break;         // only the top digit varies
      case 3: x = static_cast<K>(0xA5A5A5A5A5A5A5A5ull ^ ((r & 0xF0F) << 12)); break;  // middle digits only
      default: x = K(7);                                                         // all equal
    }
  }
  return k;
}

template <class Space, class K>
void check_sorted(std::size_t n, int kind, int end_bit = 0) {
  CAPTURE(n);
  CAPTURE(kind);
  CAPTURE(end_bit);
  const auto keys = make_keys<K>(n, kind, 1234 + n + kind);
  std::vector<std::int64_t> values(n);
  std::iota(values.begin(), values.end(), 100);
  // Reference: a stable sort of (key restricted to end_bit, original position).
  const K mask = end_bit == 0 || end_bit == int(8 * sizeof(K)) ? ~K(0) : static_cast<K>((K(1) << end_bit) - 1);
  std::vector<std::size_t> order(n);
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](auto a, auto b) { return (keys[a] & mask) < (keys[b] & mask); });

  Space space;
  auto dk = to_device<Space>(keys);
  auto dv = to_device<Space>(values);
  sweep::sort_by_key(space, dk, dv, sweep::sort_options{end_bit});
  const auto gk = to_host(dk);
  const auto gv = to_host(dv);
  bool ok = true;
  for (std::size_t i = 0; i < n && ok; ++i) ok = gk[i] == keys[order[i]] && gv[i] == values[order[i]];
  CHECK(ok);

  auto pk = to_device<Space>(keys);
  Kokkos::View<std::uint32_t*, typename Space::memory_space> perm("perm", n);
  sweep::sort_permutation(space, pk, perm, sweep::sort_options{end_bit});
  const auto gp = to_host(perm);
  ok = true;
  for (std::size_t i = 0; i < n && ok; ++i) ok = gp[i] == order[i];
  CHECK(ok);
}

}  // namespace

TEST_CASE_TEMPLATE("sort_by_key's small temporaries come from the workspace: a repeated sort grows nothing", Space,
                   SWEEP_TEST_SPACES) {
  using Mem = typename Space::memory_space;
  Space space;
  const std::int64_t n = 100000;
  const auto keys = make_keys<std::uint32_t>(static_cast<std::size_t>(n), 0, 77);  // every digit varies: 4 passes
  auto host_keys = Kokkos::View<const std::uint32_t*, Kokkos::HostSpace, Kokkos::MemoryUnmanaged>(keys.data(), keys.size());
  Kokkos::View<std::uint32_t*, Mem> dk("keys", n);
  Kokkos::View<double*, Mem> dv("values", n);
  const auto sort = [&] {
    Kokkos::deep_copy(space, dk, host_keys);
    sweep::sort_by_key(space, dk, dv);
  };
  workspace_leases(space, sort, false);
  // Once: the count table; per pass: the count table's exclusive scan, and
  // on host spaces the scatter's staging buffers.
  const std::int64_t block = sweep::tuning<Space>::sort::block_keys(space, n);
  Kokkos::View<sweep::index_t*, Mem> counts("counts", (n + block - 1) / block * sweep::detail::radix_digits::buckets);
  const auto scan = [&] { sweep::exclusive_scan(space, counts, counts, sweep::index_t(0)); };
  workspace_leases(space, scan, false);
  const std::size_t per_scan = workspace_leases(space, scan, true);
  const std::size_t staging = sweep::detail::is_host_space_v<Space> ? 1 : 0;
  CHECK(workspace_leases(space, sort, true) == 1 + 4 * (per_scan + staging));
  const auto got = to_host(dk);
  CHECK(std::is_sorted(got.begin(), got.end()));
}

TEST_CASE_TEMPLATE("radix sort equals std::stable_sort (uint32 and uint64 keys)", Space, SWEEP_TEST_SPACES) {
  for (std::size_t n : {0ul, 1ul, 2ul, 31ul, 33ul, 1000ul, 4097ul, sweep_test::scaled(1ul << 20, 1ul << 16) + 3})
    for (int kind = 0; kind < 5; ++kind) {
      check_sorted<Space, std::uint32_t>(n, kind);
      check_sorted<Space, std::uint64_t>(n, kind);
    }
}

TEST_CASE_TEMPLATE("end_bit sorts by the low bits only, stably", Space, SWEEP_TEST_SPACES) {
  for (int end_bit : {1, 7, 12, 20, 32}) check_sorted<Space, std::uint32_t>(50000, 0, end_bit);
  for (int end_bit : {9, 40, 63, 64}) check_sorted<Space, std::uint64_t>(50000, 0, end_bit);
}

TEST_CASE_TEMPLATE("merge_runs merges sorted runs stably (empty runs, odd counts, masked keys)", Space,
                   SWEEP_TEST_SPACES) {
  using K = std::uint64_t;
  std::mt19937_64 gen(77);
  const std::size_t big = sweep_test::scaled(1ul << 18, 1ul << 14);
  const std::vector<std::vector<std::size_t>> shapes = {
      {5},  {0, 7, 0}, {3, 4}, {big, 1, big / 3}, {0, 0, 9, 1, 0, 16, 2}, std::vector<std::size_t>(37, 0)};
  for (std::size_t shape = 0; shape < shapes.size(); ++shape)
    for (int kind : {0, 1})
      for (int end_bit : {64, 20}) {
        auto lengths = shapes[shape];
        if (lengths.size() == 37)
          for (auto& l : lengths) l = gen() % 300;  // many short runs
        CAPTURE(shape);
        CAPTURE(kind);
        CAPTURE(end_bit);
        const K mask = end_bit == 64 ? ~K(0) : (K(1) << end_bit) - 1;
        std::vector<K> keys;
        std::vector<sweep::index_t> edges{0};
        for (std::size_t len : lengths) {
          auto run = make_keys<K>(len, kind, gen());
          std::stable_sort(run.begin(), run.end(), [&](K a, K b) { return (a & mask) < (b & mask); });
          keys.insert(keys.end(), run.begin(), run.end());
          edges.push_back(sweep::index_t(keys.size()));
        }
        std::vector<std::int64_t> values(keys.size());
        std::iota(values.begin(), values.end(), 0);
        std::vector<std::size_t> order(keys.size());
        std::iota(order.begin(), order.end(), 0);
        std::stable_sort(order.begin(), order.end(),
                         [&](std::size_t a, std::size_t b) { return (keys[a] & mask) < (keys[b] & mask); });
        Space space;
        auto dk = to_device<Space>(keys);
        auto dv = to_device<Space>(values);
        sweep::detail::merge_runs(std::string("test::merge"), space, dk, dv, edges, mask);
        const auto gk = to_host(dk);
        const auto gv = to_host(dv);
        REQUIRE(gk.size() == keys.size());
        bool ok = true;
        for (std::size_t i = 0; i < keys.size() && ok; ++i) ok = gk[i] == keys[order[i]] && gv[i] == values[order[i]];
        CHECK(ok);
      }
}

TEST_CASE_TEMPLATE("bad input throws and leaves keys and values untouched", Space, SWEEP_TEST_SPACES) {
  Space space;
  const auto keys = make_keys<std::uint32_t>(100, 0, 9);
  std::vector<double> values(99, 1.5);
  auto dk = to_device<Space>(keys);
  auto dv = to_device<Space>(values);
  CHECK_THROWS_WITH_AS(sweep::sort_by_key(space, dk, dv),
                       "sweep::sort_by_key: values has 99 elements but keys has 100; they must be equally long",
                       std::invalid_argument);
  Kokkos::View<std::uint32_t*, typename Space::memory_space> perm("perm", 5);
  CHECK_THROWS_AS(sweep::sort_permutation(space, dk, perm), std::invalid_argument);
  auto dv100 = to_device<Space>(std::vector<double>(100, 2.5));
  CHECK_THROWS_WITH_AS(sweep::sort_by_key(space, dk, dv100, sweep::sort_options{33}),
                       "sweep::sort_by_key: end_bit = 33 must be in [0, 32]", std::invalid_argument);
  // keys and values in one allocation
  Kokkos::View<std::uint32_t*, typename Space::memory_space> both("both", 100);
  auto lo = Kokkos::subview(both, Kokkos::make_pair(0, 60));
  auto hi = Kokkos::subview(both, Kokkos::make_pair(40, 100));
  CHECK_THROWS_WITH_AS(sweep::sort_by_key(space, lo, hi), "sweep::sort_by_key: keys and values overlap",
                       std::invalid_argument);
  CHECK(to_host(dk) == keys);
  CHECK(to_host(dv) == values);
  CHECK(to_host(dv100) == std::vector<double>(100, 2.5));
}
