// Segmented scan rows: a segmented inclusive sum over head flags (segments
// of mean length 8; traffic 2N*4 bytes, the flags not counted), and the row
// sums of a CSR-like layout with empty rows by segmented_reduce over
// offsets, each checked against a sequential reference. The figure shows
// a small example in all three views (flags, scan, reduce).
#include "tour.hpp"

#include <sweep/segmented_scan.hpp>

#include <random>
#include <sstream>
#include <vector>

namespace tour {
namespace {

/// Geometric segment lengths of the given mean: head flags of n elements.
std::vector<std::uint8_t> random_heads(std::int64_t n, double mean, std::uint64_t seed) {
  std::mt19937_64 gen(seed);
  std::bernoulli_distribution head(1.0 / mean);
  std::vector<std::uint8_t> f(static_cast<std::size_t>(n));
  for (auto& x : f) x = head(gen) ? 1 : 0;
  if (n > 0) f[0] = 1;
  return f;
}

std::string example_figure() {
  const std::vector<std::int32_t> x = {3, 1, 4, 1, 5, 9, 2, 6, 5, 3, 5, 8};
  const std::vector<std::uint8_t> f = {1, 0, 0, 1, 0, 0, 0, 1, 1, 0, 0, 0};
  Kokkos::View<std::int32_t*> in = upload(x, "sweep::tour::example_in"), out("sweep::tour::example_out", x.size());
  auto flags = upload(f, "sweep::tour::example_flags");
  Kokkos::View<std::int32_t*> totals("sweep::tour::example_totals", x.size());
  sweep::segmented_inclusive_scan(Kokkos::DefaultExecutionSpace(), in, sweep::head_flags(flags), out);
  const auto nseg = sweep::segmented_reduce(Kokkos::DefaultExecutionSpace(), in, sweep::head_flags(flags), totals);
  const auto got = download(out), sums = download(totals);
  std::ostringstream os;
  os << "segmented scan, a small example (| marks a segment head):\n  in     ";
  for (std::size_t i = 0; i < x.size(); ++i) os << (f[i] ? " |" : "  ") << x[i];
  os << "\n  scan   ";
  for (std::size_t i = 0; i < x.size(); ++i) os << (f[i] ? " |" : "  ") << got[i];
  os << "\n  reduce  ";
  for (std::int64_t s = 0; s < nseg; ++s) os << sums[static_cast<std::size_t>(s)] << (s + 1 < nseg ? ", " : "\n");
  return os.str();
}

}  // namespace

std::vector<row> run_segmented(const options& opt) {
  using Space = Kokkos::DefaultExecutionSpace;
  const std::int64_t n = std::int64_t(1) << opt.log2n;
  std::vector<row> rows;
  std::vector<std::int32_t> x(static_cast<std::size_t>(n));
  for (std::int64_t i = 0; i < n; ++i) x[static_cast<std::size_t>(i)] = static_cast<std::int32_t>((i * 2654435761u) % 7) - 3;
  const auto in = upload(x, "sweep::tour::seg_in");
  {
    const auto f = random_heads(n, 8.0, 1);
    const auto flags = upload(f, "sweep::tour::seg_flags");
    Kokkos::View<std::int32_t*> out("sweep::tour::seg_out", n);
    row r;
    r.capability = "segmented_inclusive_scan int32";
    r.size = n;
    r.bytes = 2.0 * n * sizeof(std::int32_t);
    r.seconds = best_seconds(opt.repeats, [&] { sweep::segmented_inclusive_scan(Space(), in, sweep::head_flags(flags), out); });
    const auto got = download(out);
    std::int32_t acc = 0;
    std::int64_t wrong = 0;
    for (std::size_t i = 0; i < got.size(); ++i) {
      acc = f[i] ? x[i] : acc + x[i];
      wrong += got[i] != acc;
    }
    r.passed = wrong == 0;
    r.note = r.passed ? "head flags, mean length 8: equals the sequential reference"
                      : std::to_string(wrong) + " elements differ";
    r.figure = example_figure();
    rows.push_back(r);
  }
  {
    // CSR-like rows: lengths 0..15, every seventh row empty.
    std::vector<std::int64_t> off{0};
    std::mt19937_64 gen(2);
    for (std::int64_t s = 0; off.back() < n; ++s)
      off.push_back(std::min<std::int64_t>(n, off.back() + (s % 7 == 3 ? 0 : 1 + std::int64_t(gen() % 15))));
    const auto offsets = upload(off, "sweep::tour::seg_offsets");
    const std::int64_t nseg = static_cast<std::int64_t>(off.size()) - 1;
    Kokkos::View<std::int64_t*> totals("sweep::tour::seg_totals", nseg);
    const auto wide = upload(std::vector<std::int64_t>(x.begin(), x.end()), "sweep::tour::seg_in64");
    row r;
    r.capability = "segmented_reduce int64 (offsets)";
    r.size = n;
    r.bytes = n * sizeof(std::int64_t) + nseg * 2.0 * sizeof(std::int64_t);
    std::int64_t count = 0;
    r.seconds = best_seconds(opt.repeats, [&] { count = sweep::segmented_reduce(Space(), wide, sweep::segment_offsets(offsets), totals); });
    const auto got = download(totals);
    std::int64_t wrong = count == nseg ? 0 : 1;
    for (std::int64_t s = 0; s < nseg; ++s) {
      std::int64_t sum = 0;
      for (auto i = off[static_cast<std::size_t>(s)]; i < off[static_cast<std::size_t>(s) + 1]; ++i) sum += x[static_cast<std::size_t>(i)];
      wrong += got[static_cast<std::size_t>(s)] != sum;
    }
    r.passed = wrong == 0;
    r.note = r.passed ? std::to_string(nseg) + " rows, empty ones included: equal the sequential sums"
                      : std::to_string(wrong) + " row sums differ";
    rows.push_back(r);
  }
  return rows;
}

}  // namespace tour
