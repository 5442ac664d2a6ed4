// Monoids over wide values: 128- and 256-byte records (a CUDA tile stages
// values through shared memory and routes the widest ones elsewhere), in
// plain and segmented scans, with every algorithm that accepts them. The
// operator is non-commutative in one lane, so an operand swap shows.
#include <test_support.hpp>

#include <sweep/scan.hpp>
#include <sweep/segmented_scan.hpp>

#include <cstdint>
#include <vector>

namespace {

template <int Lanes>
struct record {
  std::int32_t lane[Lanes];
};

/// Lane 0 composes affine maps x -> a x + b packed as (a, b) in lanes 0
/// and 1 (non-commutative); the other lanes add.
template <int Lanes>
struct record_op {
  using value_type = record<Lanes>;
  KOKKOS_INLINE_FUNCTION static value_type identity() {
    value_type r{};
    r.lane[0] = 1;
    return r;
  }
  KOKKOS_INLINE_FUNCTION value_type operator()(const value_type& x, const value_type& y) const {
    value_type r;
    r.lane[0] = x.lane[0] * y.lane[0];
    r.lane[1] = y.lane[0] * x.lane[1] + y.lane[1];
    for (int k = 2; k < Lanes; ++k) r.lane[k] = x.lane[k] + y.lane[k];
    return r;
  }
};

template <int Lanes>
bool same(const record<Lanes>& a, const record<Lanes>& b) {
  for (int k = 0; k < Lanes; ++k)
    if (a.lane[k] != b.lane[k]) return false;
  return true;
}

template <int Lanes>
std::vector<record<Lanes>> inputs(std::int64_t n) {
  std::vector<record<Lanes>> x(static_cast<std::size_t>(n));
  for (std::int64_t i = 0; i < n; ++i) {
    x[i].lane[0] = (i % 5 == 0) ? -1 : 1;  // products stay in {-1, 1}
    x[i].lane[1] = static_cast<std::int32_t>(i % 7) - 3;
    for (int k = 2; k < Lanes; ++k) x[i].lane[k] = static_cast<std::int32_t>((i * (k + 1)) % 11) - 5;
  }
  return x;
}

template <class Space, int Lanes>
void check_wide(std::int64_t n) {
  static_assert(sizeof(record<Lanes>) == 4 * Lanes);
  CAPTURE(sizeof(record<Lanes>));
  CAPTURE(n);
  using Mem = typename Space::memory_space;
  using R = record<Lanes>;
  const record_op<Lanes> op;
  const auto x = inputs<Lanes>(n);
  std::vector<R> want(x.size());
  R acc = op.identity();
  for (std::int64_t i = 0; i < n; ++i) want[i] = acc = op(acc, x[i]);
  const auto in = sweep_test::to_device<Space>(x, "in");
  Kokkos::View<R*, Mem> out("out", n);
  for (const auto& entry : sweep::scan_algorithms) {
    const std::string algorithm_name = entry.name;
    CAPTURE(algorithm_name);
    sweep::scan_options opt;
    opt.algorithm = entry.id;
    const R total = sweep::inclusive_scan(Space(), in, out, op, opt);
    CHECK(same(total, want.back()));
    const auto got = sweep_test::to_host(out);
    std::int64_t bad = 0;
    for (std::int64_t i = 0; i < n; ++i) bad += !same(got[i], want[i]);
    CHECK(bad == 0);
  }
  // Segmented, heads every 97 elements: the lifted (value, head) pairs are
  // wider still.
  std::vector<std::uint8_t> flags(static_cast<std::size_t>(n), 0);
  std::vector<R> want_seg(x.size());
  for (std::int64_t i = 0; i < n; ++i) {
    flags[i] = i % 97 == 0;
    acc = op(flags[i] ? op.identity() : acc, x[i]);
    want_seg[i] = acc;
  }
  const auto heads = sweep_test::to_device<Space>(flags, "flags");
  for (const auto& entry : sweep::scan_algorithms) {
    if (!sweep::runs_segmented(entry.id)) continue;
    const std::string algorithm_name = entry.name;
    CAPTURE(algorithm_name);
    sweep::scan_options opt;
    opt.algorithm = entry.id;
    sweep::segmented_inclusive_scan(Space(), in, sweep::head_flags(heads), out, op, opt);
    const auto got = sweep_test::to_host(out);
    std::int64_t bad = 0;
    for (std::int64_t i = 0; i < n; ++i) bad += !same(got[i], want_seg[i]);
    CHECK(bad == 0);
  }
}

}  // namespace

TEST_CASE_TEMPLATE("128-byte monoid values scan with every algorithm", Space, SWEEP_TEST_SPACES) {
  for (std::int64_t n : {1, 33, 4097, 100003}) check_wide<Space, 32>(n);
}

TEST_CASE_TEMPLATE("256-byte monoid values scan with every algorithm", Space, SWEEP_TEST_SPACES) {
  for (std::int64_t n : {1, 33, 4097, 100003}) check_wide<Space, 64>(n);
}
