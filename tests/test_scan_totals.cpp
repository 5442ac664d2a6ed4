// Scans that write their total to a device View (sweep::inclusive_scan /
// exclusive_scan with a rank-0 `total`): every algorithm, direction and
// kind gives the same elements and total as the reference, n = 0 writes
// init; and the per-space workspace the single-pass paths lease their tile
// states from: one lease per scan, reused across calls (nothing grows when
// sizes repeat), a device-total call's buffer left pending and not taken
// by the next call, distinct buffers for leases held at once, queued work
// fenced before a buffer is handed out again, a piece beyond the lease
// refused; the tiled, chunked and sequential scans and the radix sort
// lease it too (one lease per call, nothing left pending).
#include "scan_reference.hpp"

#include <sweep/detail/workspace.hpp>
#include <sweep/sort.hpp>

#include <algorithm>
#include <set>

using namespace sweep_test;

namespace {

/// Runs the device-total form of every variant on x and compares elements
/// and total with the reference; `total` starts poisoned.
template <class Space, class T, class Op>
void check_totals(const std::vector<T>& x, const Op& op, const T& init, const T& poison) {
  const Space space;
  const auto in = to_device<Space>(x, "in");
  for_each_variant(all_algorithms(), 0, 0, [&](const sweep::scan_options& opt, bool backward, bool exclusive) {
    std::vector<T> want;
    const T want_total = reference_scan(x, want, exclusive ? init : Op::identity(), exclusive, backward, op);
    Kokkos::View<T*, typename Space::memory_space> out("out", x.size());
    Kokkos::View<T, typename Space::memory_space> total("total");
    Kokkos::deep_copy(total, poison);
    if (exclusive) sweep::exclusive_scan(space, in, out, init, total, op, opt);
    else sweep::inclusive_scan(space, in, out, total, op, opt);
    space.fence();
    T got_total;
    Kokkos::deep_copy(got_total, total);
    CHECK(got_total == want_total);
    CHECK(to_host(out) == want);
  });
}

}  // namespace

TEST_CASE_TEMPLATE("a total written to a device View equals the scan's total", Space, SWEEP_TEST_SPACES) {
  for (std::size_t n : {std::size_t(0), std::size_t(1), std::size_t(1000), std::size_t(4097), std::size_t(65537)}) {
    CAPTURE(n);
    check_totals<Space>(random_values<std::int64_t>(n, 11 + n), sweep::plus<std::int64_t>{}, std::int64_t(-7),
                        std::int64_t(123456789));
    std::mt19937_64 gen(12 + n);
    std::vector<mat2> m(n);
    for (auto& v : m) v = mat2::random(gen);
    check_totals<Space>(m, mat2_product{}, mat2{2, 1, 0, 3}, mat2{9, 9, 9, 9});
  }
}

TEST_CASE_TEMPLATE("the labelled and scan_options forms write the total too", Space, SWEEP_TEST_SPACES) {
  const Space space;
  const auto x = random_values<std::int32_t>(70000, 5);
  const auto in = to_device<Space>(x, "in");
  Kokkos::View<std::int32_t*, typename Space::memory_space> out("out", x.size());
  Kokkos::View<std::int32_t, typename Space::memory_space> total("total");
  std::vector<std::int32_t> want;
  sweep::scan_options backward;
  backward.direction = sweep::direction::backward;
  std::int32_t got = 0;

  sweep::inclusive_scan("sweep::test::inclusive", space, in, out, total, backward);
  space.fence();
  Kokkos::deep_copy(got, total);
  CHECK(got == reference_scan(x, want, 0, false, true, sweep::plus<std::int32_t>{}));
  CHECK(to_host(out) == want);

  sweep::exclusive_scan("sweep::test::exclusive", space, in, out, 4, total);
  space.fence();
  Kokkos::deep_copy(got, total);
  CHECK(got == reference_scan(x, want, 4, true, false, sweep::plus<std::int32_t>{}));
  CHECK(to_host(out) == want);

  // Errors as for the returning forms: out too short, nothing written.
  Kokkos::View<std::int32_t*, typename Space::memory_space> short_out("short", x.size() - 1);
  Kokkos::deep_copy(total, 77);
  CHECK_THROWS_AS(sweep::inclusive_scan(space, in, short_out, total), std::invalid_argument);
  Kokkos::deep_copy(got, total);
  CHECK(got == 77);
}

TEST_CASE_TEMPLATE("single-pass scans lease the space's workspace and reuse it", Space, SWEEP_TEST_SPACES) {
  using Mem = typename Space::memory_space;
  using pool = sweep::detail::workspace_pool<Mem>;
  const Space space;
  const std::size_t n = 1u << 20;
  const auto in = to_device<Space>(random_values<std::int32_t>(n, 3), "in");
  Kokkos::View<std::int32_t*, Mem> out("out", n);
  sweep::scan_options single_pass;
  single_pass.algorithm = sweep::scan_algorithm::single_pass;
  sweep::inclusive_scan(space, in, out, sweep::plus<std::int32_t>{}, single_pass);
  pool::get().settle();
  const auto before = pool::get().footprint();
  CHECK(before.buffers >= 1);
  CHECK(before.bytes > 0);
  CHECK(before.pending == 0);
  // 40 scans of this size or smaller (automatic runs single-pass from
  // 4096 elements): one lease each, nothing allocated, nothing pending.
  for (int k = 0; k < 20; ++k) {
    const auto part = Kokkos::subview(in, Kokkos::pair<std::size_t, std::size_t>(0, n >> (k % 4)));
    sweep::exclusive_scan(space, part, out, 1, sweep::plus<std::int32_t>{}, single_pass);
    sweep::inclusive_scan(space, part, out);
  }
  auto after = pool::get().footprint();
  CHECK(after.leases == before.leases + 40);
  after.leases = before.leases;
  CHECK(after == before);

  // A total left on the device: the call returns with its buffer pending on
  // the instance, and the next such call takes another buffer instead of
  // waiting for it (at most max_buffers, then it fences one).
  Kokkos::View<std::int32_t, Mem> total("total");
  sweep::inclusive_scan(space, in, out, total, single_pass);
  CHECK(pool::get().footprint().pending == 1);
  sweep::exclusive_scan(space, in, out, 2, total, single_pass);
  CHECK(pool::get().footprint().pending == 2);
  space.fence();
  pool::get().settle();
  CHECK(pool::get().footprint().pending == 0);
}

TEST_CASE("workspace leases: distinct while held, fenced before reuse, bounded") {
  using Mem = Kokkos::HostSpace;
  using pool = sweep::detail::workspace_pool<Mem>;
  // Lease every buffer the pool has and more, up to its cap at least: all
  // are then held, and the pool may not add buffers to avoid a fence.
  std::vector<sweep::detail::workspace_lease<Mem>> held;
  const std::size_t count = std::max(pool::get().footprint().buffers + 1, pool::max_buffers);
  for (std::size_t k = 0; k < count; ++k) held.emplace_back(1000);
  std::set<const void*> distinct;
  for (const auto& l : held) distinct.insert(l.bytes().data());
  CHECK(distinct.size() == count);
  CHECK(pool::get().footprint().buffers == count);

  // One is given back with queued work: the next lease must fence first
  // and gets that buffer (the only free one, the pool being full), grown
  // if needed.
  int fences = 0;
  auto* buffer = pool::get().acquire(64);
  const void* data = buffer->bytes.data();
  pool::get().release(buffer, [&] { ++fences; });
  CHECK(fences == 0);
  auto* again = pool::get().acquire(64);
  CHECK(fences == 1);
  CHECK(again->bytes.data() == data);
  pool::get().release(again, nullptr);
  auto* grown = pool::get().acquire(1 << 20);
  CHECK(grown->bytes.extent(0) >= std::size_t(1) << 20);
  pool::get().release(grown, nullptr);

  // Pieces are 64-byte aligned and may not run past the lease.
  sweep::detail::workspace_lease<Mem> lease(200);
  auto* a = lease.take<char>(3);
  auto* b = lease.take<double>(4);
  CHECK(reinterpret_cast<std::uintptr_t>(a) % 64 == 0);
  CHECK(reinterpret_cast<char*>(b) - a == 64);
  CHECK_THROWS_AS(lease.take<double>(20), std::invalid_argument);
}

TEST_CASE_TEMPLATE("the tiled, chunked and sequential scans and the radix sort lease the workspace", Space,
                   SWEEP_TEST_SPACES) {
  using Mem = typename Space::memory_space;
  using pool = sweep::detail::workspace_pool<Mem>;
  const Space space;
  const std::size_t n = 100000;
  const auto x = random_values<std::int64_t>(n, 21);
  const auto in = to_device<Space>(x, "in");
  Kokkos::View<std::int64_t*, Mem> out("out", n);
  std::vector<std::int64_t> want;
  for (auto algorithm : {sweep::scan_algorithm::tiled, sweep::scan_algorithm::chunked,
                         sweep::scan_algorithm::sequential}) {
    const std::string name = sweep::to_string(algorithm);
    CAPTURE(name);
    sweep::scan_options opt;
    opt.algorithm = algorithm;
    opt.tile_size = 64;  // tiled: three levels of tile totals at this n
    CHECK(sweep::inclusive_scan(space, in, out, sweep::plus<std::int64_t>{}, opt) ==
          reference_scan(x, want, std::int64_t(0), false, false, sweep::plus<std::int64_t>{}));
    CHECK(to_host(out) == want);
    pool::get().settle();
    const auto before = pool::get().footprint();
    // Five more calls of this size or smaller: one lease each, nothing
    // allocated, nothing left pending, the same results.
    for (int k = 0; k < 5; ++k) {
      const std::size_t m = n >> k;
      const auto part = Kokkos::subview(in, Kokkos::pair<std::size_t, std::size_t>(0, m));
      const std::vector<std::int64_t> head(x.begin(), x.begin() + static_cast<std::ptrdiff_t>(m));
      CHECK(sweep::exclusive_scan(space, part, out, std::int64_t(5), sweep::plus<std::int64_t>{}, opt) ==
            reference_scan(head, want, std::int64_t(5), true, false, sweep::plus<std::int64_t>{}));
      std::vector<std::int64_t> got = to_host(out);
      got.resize(m);
      CHECK(got == want);
    }
    auto after = pool::get().footprint();
    CHECK(after.leases == before.leases + 5);
    after.leases = before.leases;
    CHECK(after == before);
  }

  // sort_by_key: the digit counts come from the workspace (and the scan of
  // them leases too), nothing pending after the call, nothing grows when
  // the size repeats.
  std::mt19937 gen(22);
  std::vector<std::uint32_t> keys_host(n);
  for (auto& k : keys_host) k = static_cast<std::uint32_t>(gen());
  std::vector<std::uint32_t> iota(n);
  for (std::size_t i = 0; i < n; ++i) iota[i] = static_cast<std::uint32_t>(i);
  auto order = iota;
  std::stable_sort(order.begin(), order.end(), [&](auto a, auto b) { return keys_host[a] < keys_host[b]; });
  const auto sorted_values = [&] {
    auto keys = to_device<Space>(keys_host, "keys");
    auto values = to_device<Space>(iota, "values");
    sweep::sort_by_key(space, keys, values);
    return to_host(values);
  };
  CHECK(sorted_values() == order);
  pool::get().settle();
  const auto before = pool::get().footprint();
  CHECK(sorted_values() == order);
  auto after = pool::get().footprint();
  CHECK(after.leases > before.leases);
  CHECK(after.pending == 0);
  after.leases = before.leases;
  CHECK(after == before);
}
