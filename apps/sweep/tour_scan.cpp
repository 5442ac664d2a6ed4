// Scan rows: sweep::inclusive_scan with the automatic algorithm on int32
// (traffic 2N*4 bytes), and an exclusive backward scan with a
// non-commutative operator, each checked against a sequential reference.
#include "tour.hpp"

#include <sweep/scan.hpp>
#include <sweep/scan_network.hpp>

#include <vector>

namespace tour {
namespace {

/// 2x2 integer matrices mod 2^32 under multiplication: non-commutative.
struct mat2 {
  std::uint32_t a = 1, b = 0, c = 0, d = 1;
};
struct mat2_product {
  using value_type = mat2;
  KOKKOS_INLINE_FUNCTION static mat2 identity() { return mat2{}; }
  KOKKOS_INLINE_FUNCTION mat2 operator()(const mat2& x, const mat2& y) const {
    return {x.a * y.a + x.b * y.c, x.a * y.b + x.b * y.d, x.c * y.a + x.d * y.c, x.c * y.b + x.d * y.d};
  }
};

}  // namespace

std::vector<row> run_scan(const options& opt) {
  using Space = Kokkos::DefaultExecutionSpace;
  const std::int64_t n = std::int64_t(1) << opt.log2n;
  std::vector<row> rows;
  {
    Kokkos::View<std::int32_t*> in("sweep::tour::scan_in", n), out("sweep::tour::scan_out", n);
    auto h = Kokkos::create_mirror_view(in);
    for (std::int64_t i = 0; i < n; ++i) h(i) = static_cast<std::int32_t>((i * 2654435761u) % 7) - 3;
    Kokkos::deep_copy(in, h);
    row r;
    r.capability = "inclusive_scan int32 (automatic)";
    r.size = n;
    r.bytes = 2.0 * n * sizeof(std::int32_t);
    std::int32_t total = 0;
    r.seconds = best_seconds(opt.repeats, [&] { total = sweep::inclusive_scan(Space(), in, out); });
    auto got = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), out);
    std::int32_t acc = 0;
    std::int64_t wrong = 0;
    for (std::int64_t i = 0; i < n; ++i) wrong += got(i) != (acc += h(i));
    r.passed = wrong == 0 && total == acc;
    r.note = r.passed ? "equals std::inclusive_scan" : std::to_string(wrong) + " elements differ";
    rows.push_back(r);
  }
  {
    const std::int64_t m = n / 4;
    Kokkos::View<mat2*> in("sweep::tour::mat_in", m), out("sweep::tour::mat_out", m);
    auto h = Kokkos::create_mirror_view(in);
    for (std::int64_t i = 0; i < m; ++i)
      h(i) = {std::uint32_t(i % 3), std::uint32_t(1 + i % 2), std::uint32_t(i % 5 == 0), std::uint32_t(1)};
    Kokkos::deep_copy(in, h);
    sweep::scan_options back;
    back.direction = sweep::direction::backward;
    row r;
    r.capability = "exclusive backward scan, 2x2 matrix";
    r.size = m;
    r.bytes = 2.0 * m * sizeof(mat2);
    r.seconds = best_seconds(opt.repeats, [&] { sweep::exclusive_scan(Space(), in, out, mat2{}, mat2_product{}, back); });
    auto got = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), out);
    mat2 acc{};
    std::int64_t wrong = 0;
    for (std::int64_t i = m; i-- > 0;) {
      const mat2& g = got(i);
      wrong += !(g.a == acc.a && g.b == acc.b && g.c == acc.c && g.d == acc.d);
      acc = mat2_product{}(h(i), acc);
    }
    r.passed = wrong == 0;
    r.note = r.passed ? "equals the sequential suffix product" : std::to_string(wrong) + " elements differ";
    rows.push_back(r);
  }
  {
    // Every network generator, verified exactly for n = 1..256 both ways.
    row r;
    r.capability = "scan networks verified (5 kinds)";
    r.size = 256;
    std::int64_t checked = 0, failed = 0;
    r.seconds = best_seconds(1, [&] {
      checked = failed = 0;
      for (auto kind : {sweep::network_kind::kogge_stone, sweep::network_kind::sklansky,
                        sweep::network_kind::brent_kung, sweep::network_kind::brent_kung_radix3,
                        sweep::network_kind::ladner_fischer})
        for (auto dir : {sweep::direction::forward, sweep::direction::backward})
          for (std::int32_t n = 1; n <= 256; ++n, ++checked)
            failed += !sweep::verify_prefix(sweep::make_scan_network(kind, n, dir));
    });
    r.bytes = 0;
    r.passed = failed == 0;
    r.note = std::to_string(checked - failed) + "/" + std::to_string(checked) + " networks compute the scan";
    const auto bk = sweep::make_scan_network(sweep::network_kind::brent_kung, 16);
    const auto bk1024 = sweep::make_scan_network(sweep::network_kind::brent_kung, 1024);
    r.figure = sweep::draw(bk) + "bank conflicts of brent_kung n=1024: " +
               std::to_string(sweep::bank_conflicts(bk1024, sweep::plain_index)) + " plain, " +
               std::to_string(sweep::bank_conflicts(bk1024, sweep::padded_index)) + " padded (i + i/32)\n";
    rows.push_back(r);
  }
  return rows;
}

}  // namespace tour
