// Bitmask index rows: pack and unpack of int32 through a rank_select index
// of a 10%-dense mask (traffic n/8 + 8 * count bytes: the mask, the kept
// elements read and written), and a batch of random select/rank queries,
// each checked against a sequential reference. The figure shows a small
// mask with its packed array and a few select/rank answers.
#include "tour.hpp"

#include <sweep/bitmask_index.hpp>

#include <algorithm>
#include <random>
#include <sstream>
#include <vector>

namespace tour {
namespace {

using Index = sweep::bitmask_index<sweep::bitmask::rank_select>;

std::string example_figure() {
  using Space = Kokkos::DefaultExecutionSpace;
  const std::vector<std::uint32_t> mask = {0b1011000010010110u};  // 16 bits used
  const std::int64_t n = 16;
  std::vector<std::int32_t> x(n);
  for (std::int64_t i = 0; i < n; ++i) x[i] = static_cast<std::int32_t>(10 + i);
  const Index idx(Space(), upload(mask, "sweep::tour::bm_example_mask"), n);
  Kokkos::View<std::int32_t*> packed("sweep::tour::bm_example_packed", idx.count());
  idx.pack(Space(), upload(x, "sweep::tour::bm_example_in"), packed);
  const auto p = download(packed);
  std::ostringstream os;
  os << "bitmask index, a small example:\n  mask    ";
  for (std::int64_t i = 0; i < n; ++i) os << "  " << ((mask[0] >> i) & 1u);
  os << "\n  in      ";
  for (auto v : x) os << ' ' << v;
  os << "\n  pack    ";
  for (auto v : p) os << ' ' << v;
  os << "\n  select(k) = position of the k-th set bit; rank(i) = set bits before i\n";
  return os.str();
}

}  // namespace

std::vector<row> run_bitmask(const options& opt) {
  using Space = Kokkos::DefaultExecutionSpace;
  const std::int64_t n = std::int64_t(1) << opt.log2n;
  std::vector<row> rows;
  std::mt19937_64 gen(5);
  std::bernoulli_distribution coin(0.1);
  std::vector<std::uint32_t> words(static_cast<std::size_t>((n + 31) / 32), 0u);
  std::vector<std::int64_t> positions;
  for (std::int64_t i = 0; i < n; ++i)
    if (coin(gen)) {
      words[i >> 5] |= 1u << (i & 31);
      positions.push_back(i);
    }
  const auto ones = static_cast<std::int64_t>(positions.size());
  std::vector<std::int32_t> x(static_cast<std::size_t>(n));
  for (std::int64_t i = 0; i < n; ++i) x[i] = static_cast<std::int32_t>((i * 2654435761u) % 1000);
  const auto mask = upload(words, "sweep::tour::bm_mask");
  const auto in = upload(x, "sweep::tour::bm_in");
  const Index idx(Space(), mask, n);
  Kokkos::View<std::int32_t*> packed("sweep::tour::bm_packed", ones), back("sweep::tour::bm_back", n);
  const double moved = static_cast<double>(n) / 8 + 8.0 * static_cast<double>(ones);
  const double percent = 100.0 * static_cast<double>(idx.bytes()) / (static_cast<double>(n) / 8);
  {
    row r;
    r.capability = "bitmask pack int32 (rank_select)";
    r.size = n;
    r.bytes = moved;
    r.seconds = best_seconds(opt.repeats, [&] { idx.pack(Space(), in, packed); });
    const auto got = download(packed);
    std::int64_t wrong = idx.count() == ones ? 0 : 1;
    for (std::int64_t k = 0; k < ones && wrong == 0; ++k) wrong += got[k] != x[positions[k]];
    r.passed = wrong == 0;
    std::ostringstream note;
    note.precision(2);
    note << std::fixed << "10% of bits set, index " << percent << "% of the mask: equals the reference";
    r.note = r.passed ? note.str() : "packed elements differ";
    r.figure = example_figure();
    rows.push_back(r);
  }
  {
    row r;
    r.capability = "bitmask unpack int32 (rank_select)";
    r.size = n;
    r.bytes = moved;
    Kokkos::deep_copy(back, -1);
    r.seconds = best_seconds(opt.repeats, [&] { idx.unpack(Space(), packed, back); });
    const auto got = download(back);
    std::int64_t wrong = 0;
    for (std::int64_t i = 0, k = 0; i < n; ++i) {
      const bool set = k < ones && positions[k] == i;
      wrong += got[i] != (set ? x[i] : -1);
      k += set;
    }
    r.passed = wrong == 0;
    r.note = r.passed ? "set positions restored, the rest untouched" : std::to_string(wrong) + " elements differ";
    rows.push_back(r);
  }
  {
    const std::int64_t q = std::int64_t(1) << 16;
    std::vector<std::int64_t> ks(q), is(q);
    std::uniform_int_distribution<std::int64_t> any_k(0, ones - 1), any_i(0, n);
    for (std::int64_t t = 0; t < q; ++t) ks[t] = any_k(gen), is[t] = any_i(gen);
    const auto kd = upload(ks, "sweep::tour::bm_k"), id = upload(is, "sweep::tour::bm_i");
    Kokkos::View<std::int64_t*> sel("sweep::tour::bm_select", q), rk("sweep::tour::bm_rank", q);
    row r;
    r.capability = "bitmask select+rank (random)";
    r.size = q;
    r.bytes = 2.0 * 16.0 * static_cast<double>(q);
    r.seconds = best_seconds(opt.repeats, [&] {
      idx.select(Space(), kd, sel);
      idx.rank(Space(), id, rk);
    });
    const auto s = download(sel), rr = download(rk);
    std::int64_t wrong = 0;
    for (std::int64_t t = 0; t < q; ++t) {
      wrong += s[t] != positions[ks[t]];
      wrong += rr[t] != std::lower_bound(positions.begin(), positions.end(), is[t]) - positions.begin();
    }
    r.passed = wrong == 0;
    r.note = r.passed ? "2^16 queries each: equal the reference" : std::to_string(wrong) + " answers differ";
    rows.push_back(r);
  }
  return rows;
}

}  // namespace tour
