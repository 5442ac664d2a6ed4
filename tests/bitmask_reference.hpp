// Masks for the bitmask-index tests and the sequential reference they are
// checked against: a mask is its 32-bit words (with junk past n_bits, which
// the index must ignore) and the positions of its set bits.
#pragma once

#include "test_support.hpp"

#include <algorithm>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

namespace sweep_test {

struct test_mask {
  std::string name;
  std::int64_t n = 0;
  std::vector<std::uint32_t> words;
  std::vector<std::int64_t> positions;  // set bits, ascending

  bool test(std::int64_t i) const { return (words[i >> 5] >> (i & 31)) & 1u; }
  /// Set bits before i (i in [0, n]).
  std::int64_t rank(std::int64_t i) const {
    return std::lower_bound(positions.begin(), positions.end(), i) - positions.begin();
  }
};

/// Builds a mask from a predicate over positions; the bits of the last word
/// past n are set (junk the index must not see).
template <class Pred>
test_mask make_mask(const std::string& name, std::int64_t n, Pred bit) {
  test_mask m;
  m.name = name;
  m.n = n;
  m.words.assign(static_cast<std::size_t>((n + 31) / 32), 0u);
  for (std::int64_t i = 0; i < n; ++i) {
    if (bit(i)) {
      m.words[i >> 5] |= 1u << (i & 31);
      m.positions.push_back(i);
    }
  }
  if (n % 32 != 0) m.words.back() |= ~0u << (n % 32);
  return m;
}

/// Each bit set with probability p.
inline test_mask uniform_mask(std::int64_t n, double p, std::uint64_t seed) {
  std::mt19937_64 gen(seed);
  std::bernoulli_distribution coin(p);
  return make_mask("uniform p=" + std::to_string(p), n, [&](std::int64_t) { return coin(gen); });
}

/// Runs of set and unset bits with geometric lengths (means `on` and `off`).
inline test_mask clustered_mask(std::int64_t n, double on, double off, std::uint64_t seed) {
  std::mt19937_64 gen(seed);
  std::geometric_distribution<std::int64_t> run_on(1.0 / on), run_off(1.0 / off);
  bool state = false;
  std::int64_t left = run_off(gen);
  return make_mask("clustered on=" + std::to_string(on) + " off=" + std::to_string(off), n, [&](std::int64_t) {
    while (left == 0) {
      state = !state;
      left = state ? run_on(gen) + 1 : run_off(gen);
    }
    --left;
    return state;
  });
}

/// The masks every encoding is checked on for n bits: empty, one bit,
/// uniform at 0.1%, 4%, 50%, 99%, full, and two clustered layouts.
inline std::vector<test_mask> standard_masks(std::int64_t n, std::uint64_t seed) {
  std::vector<test_mask> masks;
  masks.push_back(make_mask("empty", n, [](std::int64_t) { return false; }));
  masks.push_back(make_mask("full", n, [](std::int64_t) { return true; }));
  if (n > 0) {
    const std::int64_t one = static_cast<std::int64_t>(seed % static_cast<std::uint64_t>(n));
    masks.push_back(make_mask("one bit", n, [one](std::int64_t i) { return i == one; }));
    masks.push_back(make_mask("last bit", n, [n](std::int64_t i) { return i == n - 1; }));
  }
  for (double p : {0.001, 0.04, 0.5, 0.99}) masks.push_back(uniform_mask(n, p, seed + static_cast<std::uint64_t>(p * 1000)));
  masks.push_back(clustered_mask(n, 40.0, 1000.0, seed + 7));
  masks.push_back(clustered_mask(n, 3000.0, 3000.0, seed + 8));
  return masks;
}

}  // namespace sweep_test
