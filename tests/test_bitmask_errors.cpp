// Bitmask index: bad input raises std::invalid_argument naming the sizes,
// and nothing the caller owns is written.
#include "bitmask_reference.hpp"

#include <sweep/bitmask_index.hpp>

#include <stdexcept>

using namespace sweep_test;

TEST_CASE_TEMPLATE("bitmask index setup rejects short masks and negative sizes", Space, SWEEP_TEST_SPACES) {
  using Mem = typename Space::memory_space;
  using Index = sweep::bitmask_index<sweep::bitmask::rank_select, Mem>;
  Space space;
  Kokkos::View<std::uint32_t*, Mem> words("words", 3);  // 96 bits
  auto msg = thrown([&] { Index idx(space, words, 97); });
  CHECK(contains(msg, "words has 3 elements but 97 bits need 4"));
  msg = thrown([&] { Index idx(space, words, -1); });
  CHECK(contains(msg, "n_bits is negative"));
  CHECK(thrown([&] { Index idx(space, words, 96); }) == nothing_thrown);
  using Perm = sweep::bitmask_index<sweep::bitmask::full_permutation, Mem>;
  CHECK(thrown([&] { Perm idx(space, words, 96); }) == nothing_thrown);
}

TEST_CASE_TEMPLATE("bitmask pack/unpack reject wrong lengths and leave arrays untouched", Space, SWEEP_TEST_SPACES) {
  using Mem = typename Space::memory_space;
  Space space;
  const auto m = uniform_mask(1000, 0.3, 1);
  const auto ones = static_cast<std::int64_t>(m.positions.size());
  auto words = to_device<Space>(m.words, "words");
  const sweep::bitmask_index<sweep::bitmask::fixed_exclusive<>, Mem> tree(space, words, m.n);
  const sweep::bitmask_index<sweep::bitmask::rank_select, Mem> rs(space, words, m.n);
  const std::vector<int> seven(static_cast<std::size_t>(m.n + 5), 7);
  auto expanded = to_device<Space>(std::vector<int>(seven.begin(), seven.begin() + m.n), "expanded");
  auto short_expanded = to_device<Space>(std::vector<int>(seven.begin(), seven.begin() + m.n - 1), "short");
  auto packed = to_device<Space>(std::vector<int>(static_cast<std::size_t>(ones), 9), "packed");
  auto long_packed = to_device<Space>(std::vector<int>(static_cast<std::size_t>(ones + 1), 9), "long_packed");
  const auto expanded_before = to_host(expanded);
  const auto packed_before = to_host(packed);
  const auto long_before = to_host(long_packed);

  CHECK(contains(thrown([&] { rs.pack(space, short_expanded, packed); }),
                 "the expanded array has 999 elements but the mask has 1000 bits"));
  CHECK(contains(thrown([&] { tree.pack(space, expanded, long_packed); }),
                 "the packed array has " + std::to_string(ones + 1) + " elements but the mask has " +
                     std::to_string(ones) + " set bits"));
  CHECK(contains(thrown([&] { rs.unpack(space, long_packed, expanded); }), "set bits"));
  CHECK(contains(thrown([&] { rs.unpack(space, packed, short_expanded); }), "has 999 elements"));
  CHECK(contains(thrown([&] { rs.pack(space, expanded, packed, sweep::bitmask_options{-1}); }), "work_item"));
  // the same memory as both arrays
  auto both = Kokkos::subview(expanded, std::pair<std::int64_t, std::int64_t>(0, ones));
  CHECK(contains(thrown([&] { rs.pack(space, expanded, both); }), "overlap"));
  CHECK(to_host(expanded) == expanded_before);
  CHECK(to_host(packed) == packed_before);
  CHECK(to_host(long_packed) == long_before);
}

TEST_CASE_TEMPLATE("bitmask select/rank reject out-of-range queries before writing", Space, SWEEP_TEST_SPACES) {
  using Mem = typename Space::memory_space;
  Space space;
  const auto m = uniform_mask(500, 0.5, 2);
  const auto ones = static_cast<std::int64_t>(m.positions.size());
  auto words = to_device<Space>(m.words, "words");
  const sweep::bitmask_index<sweep::bitmask::dynamic_exclusive, Mem> idx(space, words, m.n);
  auto results = to_device<Space>(std::vector<std::int64_t>(4, -5), "results");
  const auto results_before = to_host(results);

  auto k = to_device<Space>(std::vector<std::int64_t>{0, 1, ones, 2}, "k");
  CHECK(contains(thrown([&] { idx.select(space, k, results); }),
                 "query 2 is " + std::to_string(ones) + ", outside [0, " + std::to_string(ones - 1) + "]"));
  auto negative = to_device<Space>(std::vector<std::int64_t>{0, -1, 0, 0}, "negative");
  CHECK(contains(thrown([&] { idx.select(space, negative, results); }), "query 1 is -1"));
  auto i = to_device<Space>(std::vector<std::int64_t>{0, 500, 501, 3}, "i");
  CHECK(contains(thrown([&] { idx.rank(space, i, results); }), "query 2 is 501, outside [0, 500]"));
  auto five = to_device<Space>(std::vector<std::int64_t>(5, 0), "five");
  CHECK(contains(thrown([&] { idx.rank(space, five, results); }), "the results View has 4 elements for 5 queries"));
  Kokkos::View<std::uint8_t*, Mem> narrow("narrow", 4);
  CHECK(contains(thrown([&] { idx.select(space, k, narrow); }), "results of up to 500 do not fit"));
  CHECK(to_host(results) == results_before);

  // an empty mask has nothing to select
  const sweep::bitmask_index<sweep::bitmask::rank_select, Mem> empty(space, words, 0);
  auto zero = to_device<Space>(std::vector<std::int64_t>{0}, "zero");
  CHECK(contains(thrown([&] { empty.select(space, zero, results); }), "outside [0, -1]"));
  CHECK(to_host(results) == results_before);
}
