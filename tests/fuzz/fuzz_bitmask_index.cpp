// libFuzzer target: every bitmask_index encoding built on arbitrary words,
// then pack, unpack, select, rank and the device view (in range and out of
// range) compared with a sequential reference.
//
// Input: byte 0 cuts 0..31 bits off the end of the mask (n_bits not a
// multiple of 32); byte 1 picks the shape: 0 the words as given, 1 sparse
// (each word ANDed with its rotations), 2 runs (each input bit becomes a
// whole 32-bit word of ones or zeros, so a few bytes make masks that cross
// the encodings' block and superblock boundaries), and a pack/unpack
// work_item (1..64 words, or the default); the rest are the words, at most
// max_words of them (2^15 bits: 16 rank_select superblocks, two coarse
// select blocks, and still many runs a second).
#include "fuzz_support.hpp"

#include <sweep/bitmask_index.hpp>

#include <algorithm>
#include <bit>
#include <vector>

namespace {

using space_t = Kokkos::DefaultHostExecutionSpace;
using mem_t = space_t::memory_space;
constexpr std::size_t max_words = 1024;

struct reference {
  std::int64_t n = 0;
  std::vector<std::uint32_t> words;
  std::vector<std::int64_t> positions;
  std::int64_t rank(std::int64_t i) const {
    return std::lower_bound(positions.begin(), positions.end(), i) - positions.begin();
  }
};

/// The queries checked: all of [0, limit) when small, else both edges and a
/// stride through the middle.
std::vector<std::int64_t> queries(std::int64_t limit) {
  std::vector<std::int64_t> q;
  if (limit <= 4096) {
    for (std::int64_t i = 0; i < limit; ++i) q.push_back(i);
    return q;
  }
  for (std::int64_t i = 0; i < 512; ++i) q.push_back(i), q.push_back(limit - 1 - i);
  for (std::int64_t i = 512; i < limit - 512; i += limit / 2048 + 1) q.push_back(i);
  return q;
}

template <class Encoding>
void check(const reference& ref, const Kokkos::View<std::uint32_t*, mem_t>& words, std::int64_t work_item) {
  space_t space;
  const sweep::bitmask_index<Encoding, mem_t> idx(space, words, ref.n);
  const auto ones = static_cast<std::int64_t>(ref.positions.size());
  SWEEP_FUZZ_CHECK(idx.size() == ref.n);
  SWEEP_FUZZ_CHECK(idx.count() == ones);
  const sweep::bitmask_options opt{work_item};

  // pack: element i holds i, so packed[k] is the position of set bit k
  Kokkos::View<std::int64_t*, mem_t> expanded("sweep::fuzz::expanded", std::size_t(ref.n));
  for (std::int64_t i = 0; i < ref.n; ++i) expanded(i) = i;
  Kokkos::View<std::int64_t*, mem_t> packed("sweep::fuzz::packed", std::size_t(ones));
  idx.pack(space, expanded, packed, opt);
  space.fence();
  for (std::int64_t k = 0; k < ones; ++k) SWEEP_FUZZ_CHECK(packed(k) == ref.positions[std::size_t(k)]);

  // unpack into -1s: set bits get their packed index, the rest stay -1
  Kokkos::View<std::int64_t*, mem_t> source("sweep::fuzz::source", std::size_t(ones));
  for (std::int64_t k = 0; k < ones; ++k) source(k) = k;
  Kokkos::deep_copy(expanded, -1);
  idx.unpack(space, source, expanded, opt);
  space.fence();
  std::size_t next = 0;
  for (std::int64_t i = 0; i < ref.n; ++i) {
    const bool set = next < ref.positions.size() && ref.positions[next] == i;
    SWEEP_FUZZ_CHECK(expanded(i) == (set ? std::int64_t(next) : -1));
    if (set) ++next;
  }

  // batch select and rank
  const auto ks = queries(ones);
  const auto is = queries(ref.n + 1);
  Kokkos::View<std::int64_t*, mem_t> kq("sweep::fuzz::kq", ks.size()), kr("sweep::fuzz::kr", ks.size());
  Kokkos::View<std::int64_t*, mem_t> iq("sweep::fuzz::iq", is.size()), ir("sweep::fuzz::ir", is.size());
  for (std::size_t t = 0; t < ks.size(); ++t) kq(t) = ks[t];
  for (std::size_t t = 0; t < is.size(); ++t) iq(t) = is[t];
  if (!ks.empty()) idx.select(space, kq, kr);
  idx.rank(space, iq, ir);
  space.fence();
  for (std::size_t t = 0; t < ks.size(); ++t) SWEEP_FUZZ_CHECK(kr(t) == ref.positions[std::size_t(ks[t])]);
  for (std::size_t t = 0; t < is.size(); ++t) SWEEP_FUZZ_CHECK(ir(t) == ref.rank(is[t]));

  // the device view, including just outside the ranges
  const auto d = idx.device_view();
  for (auto k : ks) SWEEP_FUZZ_CHECK(d.select(k) == ref.positions[std::size_t(k)]);
  for (auto i : is) SWEEP_FUZZ_CHECK(d.rank(i) == ref.rank(i));
  for (auto i : is)
    if (i < ref.n) SWEEP_FUZZ_CHECK(d.test(i) == bool((ref.words[std::size_t(i >> 5)] >> (i & 31)) & 1u));
  SWEEP_FUZZ_CHECK(d.select(-1) == sweep::bitmask::npos && d.select(ones) == sweep::bitmask::npos);
  SWEEP_FUZZ_CHECK(d.rank(-1) == sweep::bitmask::npos && d.rank(ref.n + 1) == sweep::bitmask::npos);
  SWEEP_FUZZ_CHECK(!d.test(-1) && !d.test(ref.n));
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  Kokkos::initialize();
  std::atexit(Kokkos::finalize);
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size < 2) return 0;
  const int cut = data[0] % 32;
  const int shape = data[1] % 3;
  const std::int64_t work_item = (data[1] / 3) % 65 * 64;  // 0: the default
  data += 2;
  size -= 2;
  reference ref;
  if (shape == 2) {
    for (std::size_t b = 0; b < std::min(size * 8, max_words); ++b) ref.words.push_back(((data[b / 8] >> (b % 8)) & 1u) ? ~0u : 0u);
  } else {
    for (std::size_t w = 0; w < std::min(size / 4, max_words); ++w) {
      std::uint32_t x = std::uint32_t(data[4 * w]) | std::uint32_t(data[4 * w + 1]) << 8 |
                        std::uint32_t(data[4 * w + 2]) << 16 | std::uint32_t(data[4 * w + 3]) << 24;
      if (shape == 1) x &= std::rotl(x, 7) & std::rotl(x, 13);
      ref.words.push_back(x);
    }
  }
  ref.n = std::max<std::int64_t>(0, std::int64_t(ref.words.size()) * 32 - cut);
  for (std::int64_t i = 0; i < ref.n; ++i)
    if ((ref.words[std::size_t(i >> 5)] >> (i & 31)) & 1u) ref.positions.push_back(i);

  Kokkos::View<std::uint32_t*, mem_t> words("sweep::fuzz::words", ref.words.size());
  for (std::size_t w = 0; w < ref.words.size(); ++w) words(w) = ref.words[w];
  check<sweep::bitmask::full_permutation>(ref, words, work_item);
  check<sweep::bitmask::fixed_inclusive<>>(ref, words, work_item);
  check<sweep::bitmask::fixed_exclusive<>>(ref, words, work_item);
  check<sweep::bitmask::fixed_inclusive<64, 2>>(ref, words, work_item);
  check<sweep::bitmask::dynamic_exclusive>(ref, words, work_item);
  check<sweep::bitmask::rank_select>(ref, words, work_item);
  return 0;
}
