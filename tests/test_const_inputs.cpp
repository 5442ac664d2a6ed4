// Every public entry point that reads a View accepts a View of const
// elements, and gives the same result as with a mutable View, on every
// enabled space. The calls run on an execution-space instance other than
// the default one where the backend has such instances (a Kokkos::Cuda on
// a stream of its own), so a result read back on the wrong instance shows
// up as a wrong total.
#include <test_support.hpp>

#include <sweep/bitmask_index.hpp>
#include <sweep/scan.hpp>
#include <sweep/segmented_scan.hpp>

#include <cstdint>
#include <numeric>
#include <string>
#include <vector>

namespace {

using sweep_test::to_device;
using sweep_test::to_host;

/// An instance of Space other than the default one where the backend can
/// make one (CUDA: a stream of its own, released with the returned owner).
template <class Space>
struct instance {
#if defined(KOKKOS_ENABLE_CUDA)
  cudaStream_t stream = nullptr;
  Space space;
  instance() : space(make()) {}
  ~instance() {
    if (stream != nullptr) {
      space.fence();
      cudaStreamDestroy(stream);
    }
  }
  Space make() {
    if constexpr (std::is_same_v<Space, Kokkos::Cuda>) {
      cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking);
      return Space(stream);
    } else {
      return Space();
    }
  }
#else
  Space space;
  instance() = default;
#endif
  instance(const instance&) = delete;
  instance& operator=(const instance&) = delete;
};

template <class Space, class T>
Kokkos::View<const T*, typename Space::memory_space> as_const(const Kokkos::View<T*, typename Space::memory_space>& v) {
  return v;
}

std::vector<std::int32_t> data(std::int64_t n) {
  std::vector<std::int32_t> x(static_cast<std::size_t>(n));
  for (std::int64_t i = 0; i < n; ++i) x[i] = static_cast<std::int32_t>((i * 7919) % 201) - 100;
  return x;
}

}  // namespace

TEST_CASE_TEMPLATE("scans read Views of const", Space, SWEEP_TEST_SPACES) {
  using Mem = typename Space::memory_space;
  instance<Space> inst;
  const auto& space = inst.space;
  const std::int64_t n = 100003;
  const auto x = data(n);
  const auto in = as_const<Space>(to_device<Space>(x, "in"));
  Kokkos::View<std::int32_t*, Mem> out("out", n);
  for (const auto& entry : sweep::scan_algorithms) {
    const std::string algorithm_name = entry.name;
    CAPTURE(algorithm_name);
    sweep::scan_options opt;
    opt.algorithm = entry.id;
    std::vector<std::int32_t> want(x.size());
    std::inclusive_scan(x.begin(), x.end(), want.begin());
    const std::int32_t total = sweep::inclusive_scan(space, in, out, opt);
    CHECK(total == want.back());
    CHECK(to_host(out) == want);
    std::exclusive_scan(x.begin(), x.end(), want.begin(), std::int32_t(5));
    const std::int32_t etotal = sweep::exclusive_scan(space, in, out, 5, sweep::plus<std::int32_t>{}, opt);
    CHECK(etotal == want.back() + x.back());
    CHECK(to_host(out) == want);
  }
}

TEST_CASE_TEMPLATE("segmented scans, reductions and conversions read Views of const", Space, SWEEP_TEST_SPACES) {
  using Mem = typename Space::memory_space;
  instance<Space> inst;
  const auto& space = inst.space;
  const std::int64_t n = 50021;
  const auto x = data(n);
  std::vector<std::uint8_t> flags(static_cast<std::size_t>(n), 0);
  std::vector<std::int64_t> offsets{0};
  std::vector<std::int32_t> keys(static_cast<std::size_t>(n));
  std::int32_t key = 0;
  for (std::int64_t i = 0; i < n; ++i) {
    if (i == 0 || (i * 31) % 97 == 0) {
      flags[i] = 1;
      if (i > 0) offsets.push_back(i);
      ++key;
    }
    keys[i] = key;
  }
  offsets.push_back(n);
  const std::int64_t nseg = static_cast<std::int64_t>(offsets.size()) - 1;
  std::vector<std::int32_t> want(x.size()), want_totals(static_cast<std::size_t>(nseg));
  for (std::int64_t s = 0; s < nseg; ++s) {
    std::int32_t acc = 0;
    for (std::int64_t i = offsets[s]; i < offsets[s + 1]; ++i) want[i] = acc += x[i];
    want_totals[s] = acc;
  }
  const auto in = as_const<Space>(to_device<Space>(x, "in"));
  const auto cflags = as_const<Space>(to_device<Space>(flags, "flags"));
  const auto coffsets = as_const<Space>(to_device<Space>(offsets, "offsets"));
  const auto ckeys = as_const<Space>(to_device<Space>(keys, "keys"));
  Kokkos::View<std::int32_t*, Mem> out("out", n), totals("totals", nseg);
  auto check_all = [&](const auto& segments) {
    sweep::segmented_inclusive_scan(space, in, segments, out);
    CHECK(to_host(out) == want);
    CHECK(sweep::segmented_reduce(space, in, segments, totals) == nseg);
    CHECK(to_host(totals) == want_totals);
    CHECK(sweep::segment_count(space, segments) == nseg);
    Kokkos::View<std::int64_t*, Mem> off("off", nseg + 1);
    CHECK(sweep::to_segment_offsets(space, segments, off) == nseg);
    CHECK(to_host(off) == offsets);
  };
  SUBCASE("head_flags") { check_all(sweep::head_flags(cflags)); }
  SUBCASE("segment_offsets") { check_all(sweep::segment_offsets(coffsets)); }
  SUBCASE("segment_keys") { check_all(sweep::segment_keys(ckeys)); }
}

TEST_CASE_TEMPLATE("bitmask indexes build from and read Views of const", Space, SWEEP_TEST_SPACES) {
  using Mem = typename Space::memory_space;
  instance<Space> inst;
  const auto& space = inst.space;
  const std::int64_t n = 70001;
  std::vector<std::uint32_t> words(static_cast<std::size_t>((n + 31) / 32), 0);
  std::vector<std::int64_t> positions;
  for (std::int64_t i = 0; i < n; ++i)
    if ((i * 13) % 7 == 0 || i % 1000 < 40) {
      words[i / 32] |= 1u << (i % 32);
      positions.push_back(i);
    }
  const std::int64_t ones = static_cast<std::int64_t>(positions.size());
  const auto cwords = as_const<Space>(to_device<Space>(words, "words"));
  const auto x = data(n);
  const auto expanded = as_const<Space>(to_device<Space>(x, "expanded"));
  std::vector<std::int32_t> y(static_cast<std::size_t>(ones));
  for (std::int64_t k = 0; k < ones; ++k) y[k] = static_cast<std::int32_t>(k * 3 + 1);
  const auto packed_in = as_const<Space>(to_device<Space>(y, "packed_in"));
  std::vector<std::int64_t> ks;
  for (std::int64_t k = 0; k < ones; k += 17) ks.push_back(k);
  const auto queries = as_const<Space>(to_device<Space>(ks, "queries"));
  auto check = [&](auto encoding) {
    using E = decltype(encoding);
    const std::string name = sweep::bitmask_index<E, Mem>::encoding_name();
    CAPTURE(name);
    const sweep::bitmask_index<E, Mem> idx(space, cwords, n);
    CHECK(idx.count() == ones);
    Kokkos::View<std::int32_t*, Mem> packed("packed", ones);
    idx.pack(space, expanded, packed);
    std::vector<std::int32_t> want(static_cast<std::size_t>(ones));
    for (std::int64_t k = 0; k < ones; ++k) want[k] = x[positions[k]];
    CHECK(to_host(packed) == want);
    Kokkos::View<std::int32_t*, Mem> back("back", n);
    idx.unpack(space, packed_in, back);
    std::vector<std::int32_t> want_back(static_cast<std::size_t>(n), 0);
    for (std::int64_t k = 0; k < ones; ++k) want_back[positions[k]] = y[k];
    CHECK(to_host(back) == want_back);
    Kokkos::View<std::int64_t*, Mem> sel("select", ks.size());
    idx.select(space, queries, sel);
    std::vector<std::int64_t> want_sel;
    for (auto k : ks) want_sel.push_back(positions[k]);
    CHECK(to_host(sel) == want_sel);
    Kokkos::View<std::int64_t*, Mem> rk("rank", ks.size());
    idx.rank(space, as_const<Space>(sel), rk);
    CHECK(to_host(rk) == ks);
  };
  namespace bm = sweep::bitmask;
  check(bm::full_permutation{});
  check(bm::fixed_inclusive<>{});
  check(bm::fixed_exclusive<>{});
  check(bm::dynamic_exclusive{});
  check(bm::rank_select{});
}
