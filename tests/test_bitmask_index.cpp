// Bitmask index: every encoding agrees with the sequential reference for
// pack, unpack (unset positions untouched), select, rank and the device
// view, over densities from empty to full, uniform and clustered masks,
// n_bits not a multiple of 32, and 1-, 4-, 8- and 12-byte elements.
#include "bitmask_reference.hpp"
#include "workspace_leases.hpp"

#include <sweep/bitmask_index.hpp>

using namespace sweep_test;

namespace {

struct rgb {
  float r = 0, g = 0, b = 0;
  friend bool operator==(const rgb&, const rgb&) = default;
};

/// A value for element i that differs between `salt`s.
template <class T>
T value_of(std::int64_t i, int salt) {
  if constexpr (std::is_same_v<T, rgb>) {
    return rgb{float(i), float(salt), float(i % 7)};
  } else {
    return static_cast<T>((i * 7 + salt * 13) % 101);
  }
}

template <class T>
std::vector<T> values(std::int64_t n, int salt) {
  std::vector<T> v(static_cast<std::size_t>(n));
  for (std::int64_t i = 0; i < n; ++i) v[i] = value_of<T>(i, salt);
  return v;
}

/// Queries: all of [0, limit) when small, else the edges and a random sample.
std::vector<std::int64_t> queries(std::int64_t limit, std::uint64_t seed) {
  std::vector<std::int64_t> q;
  if (limit <= 0) return q;
  if (limit <= 5000) {
    for (std::int64_t i = 0; i < limit; ++i) q.push_back(i);
    return q;
  }
  for (std::int64_t i = 0; i < 64; ++i) q.push_back(i), q.push_back(limit - 1 - i);
  std::mt19937_64 gen(seed);
  std::uniform_int_distribution<std::int64_t> any(0, limit - 1);
  for (int t = 0; t < 20000; ++t) q.push_back(any(gen));
  return q;
}

template <class Space, class Encoding, class T>
void check_elements(const sweep::bitmask_index<Encoding, typename Space::memory_space>& idx, const test_mask& m,
                    const sweep::bitmask_options& opt = {}) {
  Space space;
  const auto n = m.n;
  const auto ones = static_cast<std::int64_t>(m.positions.size());
  // pack
  const auto x = values<T>(n, 1);
  auto in = to_device<Space>(x, "expanded");
  Kokkos::View<T*, typename Space::memory_space> packed("packed", ones);
  idx.pack(space, in, packed, opt);
  std::vector<T> want(static_cast<std::size_t>(ones));
  for (std::int64_t k = 0; k < ones; ++k) want[k] = x[m.positions[k]];
  CHECK(to_host(packed) == want);
  // unpack into a filled array: set positions replaced, the rest untouched
  const auto y = values<T>(ones, 2);
  const auto z = values<T>(n, 3);
  auto src = to_device<Space>(y, "packed_in");
  auto out = to_device<Space>(z, "expanded_out");
  idx.unpack(space, src, out, opt);
  auto want_out = z;
  for (std::int64_t k = 0; k < ones; ++k) want_out[m.positions[k]] = y[k];
  CHECK(to_host(out) == want_out);
  // round trip: unpack(pack(x)) restores every set position
  auto back = to_device<Space>(z, "round_trip");
  idx.unpack(space, packed, back, opt);
  auto want_back = z;
  for (auto p : m.positions) want_back[p] = x[p];
  CHECK(to_host(back) == want_back);
}

template <class Space, class Encoding>
void check_queries(const sweep::bitmask_index<Encoding, typename Space::memory_space>& idx, const test_mask& m) {
  Space space;
  const auto ones = static_cast<std::int64_t>(m.positions.size());
  // select (batch), int64 queries and results
  const auto ks = queries(ones, 11);
  auto kd = to_device<Space>(ks, "k");
  Kokkos::View<std::int64_t*, typename Space::memory_space> sel("select", ks.size());
  idx.select(space, kd, sel);
  std::vector<std::int64_t> want_sel;
  for (auto k : ks) want_sel.push_back(m.positions[k]);
  CHECK(to_host(sel) == want_sel);
  // rank (batch), uint32 queries and results, i = n included
  std::vector<std::uint32_t> is;
  for (auto i : queries(m.n + 1, 12)) is.push_back(static_cast<std::uint32_t>(i));
  auto id = to_device<Space>(is, "i");
  Kokkos::View<std::uint32_t*, typename Space::memory_space> rk("rank", is.size());
  idx.rank(space, id, rk);
  std::vector<std::uint32_t> want_rank;
  for (auto i : is) want_rank.push_back(static_cast<std::uint32_t>(m.rank(i)));
  CHECK(to_host(rk) == want_rank);
  // the device view, inside a kernel: test() on every queried position and
  // the out-of-range sentinels
  const auto d = idx.device_view();
  const auto n = m.n;
  Kokkos::View<std::int64_t*, typename Space::memory_space> tested("tested", is.size());
  Kokkos::parallel_for(
      "test_bits", Kokkos::RangePolicy<Space>(space, 0, is.size()),
      KOKKOS_LAMBDA(const std::int64_t t) { tested(t) = d.test(id(t)) ? 1 : 0; });
  std::vector<std::int64_t> want_test;
  for (auto i : is) want_test.push_back(i < n && m.test(i) ? 1 : 0);
  CHECK(to_host(tested) == want_test);
  int bad = 0;
  Kokkos::parallel_reduce(
      "sentinels", Kokkos::RangePolicy<Space>(space, 0, 1),
      KOKKOS_LAMBDA(const int, int& b) {
        b += d.select(ones) != sweep::bitmask::npos;
        b += d.select(-1) != sweep::bitmask::npos;
        b += d.rank(n + 1) != sweep::bitmask::npos;
        b += d.rank(-1) != sweep::bitmask::npos;
        b += d.test(n) || d.test(-1);
        b += d.rank(n) != ones;
      },
      bad);
  CHECK(bad == 0);
}

template <class Space, class Encoding>
void check_encoding(const test_mask& m, bool all_types) {
  using Mem = typename Space::memory_space;
  CAPTURE(m.name);
  CAPTURE(m.n);
  const std::string encoding = sweep::bitmask_index<Encoding, Mem>::encoding_name();
  CAPTURE(encoding);
  Space space;
  auto words = to_device<Space>(m.words, "words");
  const sweep::bitmask_index<Encoding, Mem> idx(space, words, m.n);
  CHECK(idx.size() == m.n);
  CHECK(idx.count() == static_cast<std::int64_t>(m.positions.size()));
  check_queries<Space>(idx, m);
  check_elements<Space, Encoding, std::int32_t>(idx, m);
  if (all_types) {
    check_elements<Space, Encoding, double>(idx, m);
    check_elements<Space, Encoding, std::int8_t>(idx, m);
    check_elements<Space, Encoding, rgb>(idx, m);
  }
}

template <class Space>
void check_all_encodings(const test_mask& m, bool all_types) {
  namespace bm = sweep::bitmask;
  check_encoding<Space, bm::full_permutation>(m, all_types);
  check_encoding<Space, bm::fixed_inclusive<>>(m, all_types);
  check_encoding<Space, bm::fixed_exclusive<>>(m, all_types);
  check_encoding<Space, bm::dynamic_exclusive>(m, all_types);
  check_encoding<Space, bm::rank_select>(m, all_types);
}

}  // namespace

TEST_CASE_TEMPLATE("every bitmask encoding matches the reference on small masks", Space, SWEEP_TEST_SPACES) {
  for (std::int64_t n : std::vector<std::int64_t>{0, 1, 31, 32, 33, 64, 65, 1000, 4099})
    for (const auto& m : standard_masks(n, static_cast<std::uint64_t>(n) + 1)) check_all_encodings<Space>(m, true);
}

TEST_CASE_TEMPLATE("every bitmask encoding matches the reference at 2^20+7 bits", Space, SWEEP_TEST_SPACES) {
  const auto n = static_cast<std::int64_t>(scaled(std::size_t(1) << 20, std::size_t(1) << 16)) + 7;
  for (const auto& m : standard_masks(n, 99)) check_all_encodings<Space>(m, m.name.find("0.5") != std::string::npos);
}

TEST_CASE_TEMPLATE("rank_select packs and unpacks ranges of every density with any work item", Space,
                   SWEEP_TEST_SPACES) {
  // A range's density picks its host kernel (every word through the vector
  // moves, or a walk that queues sparse words and moves dense ones), so the
  // masks mix sparse stretches and dense runs, and the work items cut them
  // into ranges of different densities, some ending inside a run.
  using Mem = typename Space::memory_space;
  const std::int64_t n = static_cast<std::int64_t>(scaled(std::size_t(1) << 18, std::size_t(1) << 14)) + 45;
  std::vector<test_mask> masks;
  for (double p : {0.005, 0.01, 0.02, 0.05})
    masks.push_back(uniform_mask(n, p, 11 + static_cast<std::uint64_t>(p * 1000)));
  masks.push_back(clustered_mask(n, 100.0, 4000.0, 5));
  masks.push_back(clustered_mask(n, 9.0, 400.0, 6));
  Space space;
  for (const auto& m : masks) {
    CAPTURE(m.name);
    auto words = to_device<Space>(m.words, "words");
    const sweep::bitmask_index<sweep::bitmask::rank_select, Mem> idx(space, words, m.n);
    REQUIRE(idx.count() == static_cast<std::int64_t>(m.positions.size()));
    for (std::int64_t work_item : {0, 64, 700, 4096, 65536}) {
      CAPTURE(work_item);
      const sweep::bitmask_options opt{work_item};
      check_elements<Space, sweep::bitmask::rank_select, std::int32_t>(idx, m, opt);
      check_elements<Space, sweep::bitmask::rank_select, double>(idx, m, opt);
      check_elements<Space, sweep::bitmask::rank_select, std::int64_t>(idx, m, opt);
    }
  }
}

TEST_CASE_TEMPLATE("fixed trees with other layer sizes", Space, SWEEP_TEST_SPACES) {
  namespace bm = sweep::bitmask;
  for (std::int64_t n : {std::int64_t(0), std::int64_t(33), std::int64_t(70000),
                         static_cast<std::int64_t>(scaled(std::size_t(1) << 18, std::size_t(1) << 17)) + 3}) {
    for (const auto& m : {uniform_mask(n, 0.3, 5), clustered_mask(n, 100.0, 5000.0, 6)}) {
      check_encoding<Space, bm::fixed_inclusive<64, 2>>(m, false);
      check_encoding<Space, bm::fixed_inclusive<1024, 128>>(m, false);  // 32-bit layer 1
      check_encoding<Space, bm::fixed_exclusive<64, 1024>>(m, false);
      check_encoding<Space, bm::fixed_exclusive<512, 256>>(m, false);   // 32-bit layer 1
    }
  }
}

TEST_CASE_TEMPLATE("dynamic tree with four layers", Space, SWEEP_TEST_SPACES) {
  // 2^26 bits: 65536 layer-1 entries, then 2048, 64 and 2.
  const std::int64_t n = (std::int64_t(1) << 25) + 1000;
  check_encoding<Space, sweep::bitmask::dynamic_exclusive>(uniform_mask(n, 0.02, 3), false);
  check_encoding<Space, sweep::bitmask::rank_select>(uniform_mask(n, 0.02, 3), false);
}

TEST_CASE_TEMPLATE("strided arrays take the portable path", Space, SWEEP_TEST_SPACES) {
  using Mem = typename Space::memory_space;
  Space space;
  const auto m = uniform_mask(5000, 0.5, 4);
  auto words = to_device<Space>(m.words, "words");
  const sweep::bitmask_index<sweep::bitmask::rank_select, Mem> idx(space, words, m.n);
  const auto ones = idx.count();
  Kokkos::View<std::int32_t**, Kokkos::LayoutRight, Mem> wide("wide", m.n, 2);
  Kokkos::View<std::int32_t**, Kokkos::LayoutRight, Mem> packed_wide("packed_wide", ones, 3);
  auto in = Kokkos::subview(wide, Kokkos::ALL, 1);
  auto out = Kokkos::subview(packed_wide, Kokkos::ALL, 2);
  Kokkos::parallel_for(
      "fill", Kokkos::RangePolicy<Space>(space, 0, m.n), KOKKOS_LAMBDA(const std::int64_t i) { in(i) = int(i) * 3; });
  idx.pack(space, in, out);
  std::vector<std::int32_t> want;
  for (auto p : m.positions) want.push_back(static_cast<std::int32_t>(p) * 3);
  CHECK(to_host(out) == want);
  Kokkos::deep_copy(wide, -1);
  idx.unpack(space, out, in);
  const auto got = to_host(in);
  std::int64_t wrong = 0;
  for (std::int64_t i = 0; i < m.n; ++i) wrong += got[i] != (m.test(i) ? std::int32_t(i) * 3 : -1);
  CHECK(wrong == 0);
}

TEST_CASE_TEMPLATE("rank_select stays within 4% of the mask", Space, SWEEP_TEST_SPACES) {
  using Mem = typename Space::memory_space;
  Space space;
  const std::int64_t n = std::int64_t(1) << 22;
  for (double p : {0.001, 0.5, 1.0}) {
    const auto m = uniform_mask(n, p, 8);
    auto words = to_device<Space>(m.words, "words");
    const sweep::bitmask_index<sweep::bitmask::rank_select, Mem> idx(space, words, n);
    CAPTURE(p);
    CHECK(static_cast<double>(idx.bytes()) <= 0.04 * static_cast<double>(n / 8));
    const sweep::bitmask_index<sweep::bitmask::dynamic_exclusive, Mem> dyn(space, words, n);
    const sweep::bitmask_index<sweep::bitmask::full_permutation, Mem> perm(space, words, n);
    CHECK(perm.bytes() == 4 * m.positions.size());
    CHECK(dyn.bytes() < idx.bytes());
  }
}

TEST_CASE_TEMPLATE("the README's bitmask example runs as written", Space, SWEEP_TEST_SPACES) {
  if constexpr (std::is_same_v<typename Space::memory_space, Kokkos::DefaultExecutionSpace::memory_space>) {
    Space space;
    const std::int64_t n = 70;  // bits 3, 40, 41 and 69 set
    auto words = to_device<Space>(std::vector<std::uint32_t>{1u << 3, (1u << 8) | (1u << 9), 1u << 5}, "words");
    auto field = to_device<Space>(values<double>(n, 4), "field");
    const auto before = to_host(field);
    auto ks = to_device<Space>(std::vector<std::int64_t>{3, 0}, "ks");
    Kokkos::View<std::int64_t*, typename Space::memory_space> positions("positions", 2), pos("pos", 4);
    // --- as in README.md
    sweep::bitmask_index<sweep::bitmask::rank_select> idx(space, words, n);
    Kokkos::View<double*> packed("packed", idx.count());
    idx.pack(space, field, packed);             // packed[k] = field[select(k)]
    idx.unpack(space, packed, field);           // the unset positions of field are untouched
    idx.select(space, ks, positions);           // batches of queries, any integer types
    idx.rank(space, positions, ks);
    auto d = idx.device_view();                 // inside kernels:
    Kokkos::parallel_for(idx.count(), KOKKOS_LAMBDA(std::int64_t k) { pos(k) = d.select(k); });
    // ---
    CHECK(idx.count() == 4);
    CHECK(to_host(packed) == std::vector<double>{before[3], before[40], before[41], before[69]});
    CHECK(to_host(field) == before);
    CHECK(to_host(positions) == std::vector<std::int64_t>{69, 3});
    CHECK(to_host(ks) == std::vector<std::int64_t>{3, 0});
    CHECK(to_host(pos) == std::vector<std::int64_t>{3, 40, 41, 69});
  }
}

TEST_CASE_TEMPLATE("index builds take their block counts from the workspace and reuse it", Space, SWEEP_TEST_SPACES) {
  using Mem = typename Space::memory_space;
  namespace bm = sweep::bitmask;
  Space space;
  const std::int64_t n = (std::int64_t(1) << 20) + 5;
  // The leases of one scan of block counts (every encoding here has fewer
  // than 4096 blocks at this n, so each scans them the same way).
  Kokkos::View<std::uint64_t*, Mem> counts("counts", 600);
  const auto scan = [&] { sweep::exclusive_scan(space, counts, counts, std::uint64_t(0)); };
  workspace_leases(space, scan, false);
  const auto per_scan = workspace_leases(space, scan, true);
  // Sparse and dense rank_select layouts, and every tree.
  for (double p : {0.001, 0.5}) {
    const auto m = uniform_mask(n, p, 12);
    CAPTURE(p);
    const auto ones = static_cast<std::int64_t>(m.positions.size());
    auto words = to_device<Space>(m.words, "words");
    const auto build = [&](auto encoding) {
      const sweep::bitmask_index<decltype(encoding), Mem> idx(space, words, n);
      CHECK(idx.count() == ones);
      check_queries<Space>(idx, m);  // it answers after its build's lease went back
    };
    const auto build_all = [&] {
      build(bm::full_permutation{});
      build(bm::fixed_inclusive<>{});
      build(bm::fixed_exclusive<>{});
      build(bm::dynamic_exclusive{});
      build(bm::rank_select{});
    };
    workspace_leases(space, build_all, false);  // grows the pool if it must
    // Each build leases its counts once and scans them (rank_select twice
    // when the sparse layout is tried and not taken); the second round
    // allocates nothing.
    const std::size_t builds = p < 0.01 ? 5 : 6;
    CHECK(workspace_leases(space, build_all, true) == builds * (1 + per_scan));
  }
}

TEST_CASE("the host's branch-free select in a word matches a walk over the bits") {
  std::mt19937_64 gen(21);
  int words = 0;
  for (int density_bits = 1; density_bits <= 64; ++density_bits)
    for (int t = 0; t < 200; ++t) {
      // words of every popcount: density_bits random bits set (with repeats)
      std::uint64_t w = 0;
      for (int b = 0; b < density_bits; ++b) w |= std::uint64_t(1) << (gen() & 63);
      if (t == 0) w = density_bits == 64 ? ~std::uint64_t(0) : (std::uint64_t(1) << density_bits) - 1;
      CAPTURE(w);
      int r = 0;
      for (int i = 0; i < 64; ++i)
        if ((w >> i) & 1) {
          CAPTURE(r);
          REQUIRE(sweep::detail::select_in_word(w, r) == i);
          ++r;
        }
      ++words;
    }
  CHECK(words == 64 * 200);
}
