// Distributed compaction, redistribution and sample sort against
// sequential references on the concatenated input: masks of every density,
// predicates, equal blocks after rebalancing, and a stable sort of 32- and
// 64-bit keys (values carry the global position, so stability is checked
// exactly), with device buffers passed directly and staged through the host.
#include "mpi_support.hpp"

#include <sweep/mpi.hpp>

#include <algorithm>
#include <numeric>

using namespace sweep_test;

namespace {

/// Words of a mask of n bits (bit i%32 of word i/32) from per-element bits.
std::vector<std::uint32_t> to_words(const std::vector<bool>& bits) {
  std::vector<std::uint32_t> w((bits.size() + 31) / 32, 0u);
  for (std::size_t i = 0; i < bits.size(); ++i)
    if (bits[i]) w[i / 32] |= std::uint32_t(1) << (i % 32);
  return w;
}

struct is_odd {
  KOKKOS_INLINE_FUNCTION bool operator()(std::int64_t v) const { return (v & 1) != 0; }
};

}  // namespace

TEST_CASE_TEMPLATE("distributed pack by a mask equals the sequential compaction", Space, SWEEP_TEST_SPACES) {
  Space space;
  using Mem = typename Space::memory_space;
  const std::size_t n = 40003;
  std::vector<std::int64_t> x(n);
  std::iota(x.begin(), x.end(), std::int64_t(0));
  for (double density : {0.0, 0.001, 0.3, 1.0}) {
    CAPTURE(density);
    std::mt19937_64 gen(static_cast<std::uint64_t>(density * 1000) + 1);
    std::bernoulli_distribution coin(density);
    std::vector<bool> bits(n);
    for (std::size_t i = 0; i < n; ++i) bits[i] = coin(gen);
    std::vector<std::int64_t> want;
    for (std::size_t i = 0; i < n; ++i)
      if (bits[i]) want.push_back(x[i]);
    for (const auto& s : splits(n, 77)) {
      CAPTURE(s.name);
      const std::vector<bool> my_bits(bits.begin() + static_cast<std::ptrdiff_t>(s.begin()),
                                      bits.begin() + static_cast<std::ptrdiff_t>(s.end()));
      auto words = to_device<Space>(to_words(my_bits), "words");
      auto in = to_device<Space>(slice(x, s), "in");
      Kokkos::View<std::int64_t*, Mem> out("out", s.count());
      const auto r = sweep::mpi::pack(MPI_COMM_WORLD, space, words, sweep::index_t(s.count()), in, out);
      CHECK(r.total == static_cast<sweep::index_t>(want.size()));
      const auto got = to_host(out);
      CHECK(std::vector<std::int64_t>(got.begin(), got.begin() + r.count) ==
            slice(want, static_cast<std::size_t>(r.offset), static_cast<std::size_t>(r.offset + r.count)));
      // Equal blocks afterwards, through both transports.
      for (auto t : {sweep::mpi::transport::automatic, sweep::mpi::transport::staged}) {
        auto packed = Kokkos::subview(out, Kokkos::pair<sweep::index_t, sweep::index_t>(0, r.count));
        const auto balanced = to_host(sweep::mpi::rebalance(MPI_COMM_WORLD, space, packed, t));
        const std::size_t p = static_cast<std::size_t>(world_size()), me = static_cast<std::size_t>(world_rank());
        CHECK(balanced == slice(want, want.size() * me / p, want.size() * (me + 1) / p));
      }
    }
  }
}

TEST_CASE_TEMPLATE("distributed pack_if keeps the elements a predicate selects", Space, SWEEP_TEST_SPACES) {
  Space space;
  const auto x = random_values<std::int64_t>(12345, 3);
  std::vector<std::int64_t> want;
  for (auto v : x)
    if (v & 1) want.push_back(v);
  for (const auto& s : splits(x.size(), 8)) {
    CAPTURE(s.name);
    auto in = to_device<Space>(slice(x, s), "in");
    Kokkos::View<std::int64_t*, typename Space::memory_space> out("out", s.count());
    const auto r = sweep::mpi::pack_if(MPI_COMM_WORLD, space, in, out, is_odd{});
    CHECK(r.total == static_cast<sweep::index_t>(want.size()));
    const auto got = to_host(out);
    CHECK(std::vector<std::int64_t>(got.begin(), got.begin() + r.count) ==
          slice(want, static_cast<std::size_t>(r.offset), static_cast<std::size_t>(r.offset + r.count)));
  }
}

namespace {

template <class Space, class K>
void check_distributed_sort(const std::vector<K>& keys, const std::string& name, int end_bit = 0) {
  CAPTURE(name);
  CAPTURE(end_bit);
  Space space;
  const std::size_t n = keys.size();
  const K mask = end_bit == 0 ? static_cast<K>(~K(0)) : static_cast<K>((K(1) << end_bit) - 1);
  std::vector<std::int64_t> order(n);
  std::iota(order.begin(), order.end(), std::int64_t(0));
  std::stable_sort(order.begin(), order.end(), [&](std::int64_t a, std::int64_t b) {
    return (keys[static_cast<std::size_t>(a)] & mask) < (keys[static_cast<std::size_t>(b)] & mask);
  });
  std::vector<K> want_keys(n);
  for (std::size_t i = 0; i < n; ++i) want_keys[i] = keys[static_cast<std::size_t>(order[i])];
  std::vector<std::int64_t> position(n);
  std::iota(position.begin(), position.end(), std::int64_t(0));
  for (const auto& s : splits(n, n + 1)) {
    CAPTURE(s.name);
    auto k = to_device<Space>(slice(keys, s), "keys");
    auto v = to_device<Space>(slice(position, s), "values");
    for (auto t : {sweep::mpi::transport::automatic, sweep::mpi::transport::staged}) {
      sweep::mpi::sort_options opt;
      opt.end_bit = end_bit;
      opt.buffers = t;
      const auto part = sweep::mpi::sort_by_key(MPI_COMM_WORLD, space, k, v, opt);
      CHECK(part.total == static_cast<sweep::index_t>(n));
      const auto b = static_cast<std::size_t>(part.offset), e = b + part.keys.extent(0);
      CHECK(to_host(part.keys) == slice(want_keys, b, e));
      CHECK(to_host(part.values) == slice(order, b, e));
      // The inputs are left as they were.
      CHECK(to_host(k) == slice(keys, s));
    }
  }
}

}  // namespace

TEST_CASE_TEMPLATE("distributed sort_by_key is a stable sort of the concatenated input", Space, SWEEP_TEST_SPACES) {
  for (std::size_t n : {0u, 1u, 17u, 5000u, 100001u}) {
    CAPTURE(n);
    std::mt19937_64 gen(n);
    std::vector<std::uint32_t> wide(n), few(n), same(n, 42u), sorted(n);
    std::vector<std::uint64_t> wide64(n);
    for (std::size_t i = 0; i < n; ++i) {
      wide[i] = static_cast<std::uint32_t>(gen());
      few[i] = static_cast<std::uint32_t>(gen() % 5);
      sorted[i] = static_cast<std::uint32_t>(i / 3);
      wide64[i] = gen();
    }
    check_distributed_sort<Space>(wide, "uint32 keys");
    check_distributed_sort<Space>(few, "five distinct keys");
    check_distributed_sort<Space>(same, "all keys equal");
    check_distributed_sort<Space>(sorted, "already sorted");
    check_distributed_sort<Space>(wide64, "uint64 keys");
    check_distributed_sort<Space>(wide64, "uint64 keys, low 20 bits", 20);
  }
}

TEST_CASE_TEMPLATE("sample sort pieces are balanced even when every key is equal", Space, SWEEP_TEST_SPACES) {
  Space space;
  const std::size_t n = 80000;
  const auto p = static_cast<std::size_t>(world_size());
  const std::vector<std::uint32_t> keys(n / p + (static_cast<std::size_t>(world_rank()) < n % p ? 1 : 0), 7u);
  auto k = to_device<Space>(keys, "keys");
  Kokkos::View<int*, typename Space::memory_space> v("values", keys.size());
  const auto part = sweep::mpi::sort_by_key(MPI_COMM_WORLD, space, k, v);
  // 128 samples per rank: a piece is within 2 * n / (128 P) of n / P.
  const double share = double(n) / double(p);
  CHECK(std::abs(double(part.keys.extent(0)) - share) <= 2.0 * double(n) / (128.0 * double(p)) + 1.0);
}
