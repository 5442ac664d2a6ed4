// Scan networks: every generator verified for n = 1..300 in both
// directions, the verifier rejecting broken networks, the textbook sizes
// and depths, bank-conflict counts with and without padding, and running a
// network on data with a non-commutative operator.
#include "scan_reference.hpp"

#include <sweep/scan_network.hpp>

using namespace sweep_test;

namespace {
const sweep::network_kind all_kinds[] = {sweep::network_kind::kogge_stone, sweep::network_kind::sklansky,
                                         sweep::network_kind::brent_kung, sweep::network_kind::brent_kung_radix3,
                                         sweep::network_kind::ladner_fischer};

/// Runs a network on values with parallel step semantics.
template <class T, class Op>
std::vector<T> run_network(const sweep::scan_network& net, std::vector<T> x, const Op& op) {
  for (const auto& step : net.steps) {
    std::vector<T> next = x;
    for (auto o : step)
      next[o.dst] = net.direction == sweep::direction::forward ? op(x[o.src], x[o.dst]) : op(x[o.dst], x[o.src]);
    x = next;
  }
  return x;
}
}  // namespace

TEST_CASE("every generator computes the inclusive scan for n = 1..300, both directions") {
  for (auto kind : all_kinds)
    for (auto dir : {sweep::direction::forward, sweep::direction::backward})
      for (std::int32_t n = 1; n <= 300; ++n) {
        auto net = sweep::make_scan_network(kind, n, dir);
        std::string why;
        const bool ok = sweep::verify_prefix(net, &why);
        CHECK_MESSAGE(ok, sweep::to_string(kind), " n=", n, " backward=", dir == sweep::direction::backward, ": ",
                      why);
      }
}

TEST_CASE("networks run on data give the non-commutative scan") {
  for (auto kind : all_kinds)
    for (auto dir : {sweep::direction::forward, sweep::direction::backward})
      for (std::int32_t n : {1, 2, 3, 7, 64, 100, 243}) {
        auto x = random_values<mat2>(static_cast<std::size_t>(n), static_cast<std::uint64_t>(n));
        std::vector<mat2> want;
        reference_scan(x, want, mat2{}, false, dir == sweep::direction::backward, mat2_product{});
        CHECK(run_network(sweep::make_scan_network(kind, n, dir), x, mat2_product{}) == want);
      }
}

TEST_CASE("the verifier rejects broken networks") {
  auto net = sweep::make_scan_network(sweep::network_kind::brent_kung, 16);
  std::string why;
  auto missing = net;
  missing.steps.back().pop_back();
  CHECK_FALSE(sweep::verify_prefix(missing, &why));
  CHECK(why.find("wire") != std::string::npos);

  auto swapped = net;  // operands not adjacent: skips inputs
  swapped.steps[0][0].src = 0;
  swapped.steps[0][0].dst = 3;
  CHECK_FALSE(sweep::verify_prefix(swapped, &why));

  auto twice = net;
  twice.steps[0].push_back(twice.steps[0][0]);
  CHECK_FALSE(sweep::verify_prefix(twice, &why));
  CHECK(why.find("twice") != std::string::npos);

  // Parallel semantics: a step that chains through a wire it also writes.
  sweep::scan_network chained;
  chained.n = 3;
  chained.steps = {{{1, 0}, {2, 1}}};
  CHECK_FALSE(sweep::verify_prefix(chained));

  auto backward_as_forward = sweep::make_scan_network(sweep::network_kind::sklansky, 20, sweep::direction::backward);
  backward_as_forward.direction = sweep::direction::forward;
  CHECK_FALSE(sweep::verify_prefix(backward_as_forward));
  CHECK_THROWS_AS(sweep::make_scan_network(sweep::network_kind::sklansky, -1), std::invalid_argument);
}

TEST_CASE("sizes and depths match the textbook formulas for n = 2^k") {
  for (int k = 1; k <= 10; ++k) {
    const std::int32_t n = 1 << k;
    auto ks = sweep::make_scan_network(sweep::network_kind::kogge_stone, n);
    CHECK(ks.depth() == static_cast<std::size_t>(k));
    CHECK(ks.size() == static_cast<std::size_t>(n * k - n + 1));
    auto sk = sweep::make_scan_network(sweep::network_kind::sklansky, n);
    CHECK(sk.depth() == static_cast<std::size_t>(k));
    CHECK(sk.size() == static_cast<std::size_t>(n / 2 * k));
    auto bk = sweep::make_scan_network(sweep::network_kind::brent_kung, n);
    CHECK(bk.depth() == static_cast<std::size_t>(2 * k - 1));
    CHECK(bk.size() == static_cast<std::size_t>(2 * n - k - 2));
    auto lf = sweep::make_scan_network(sweep::network_kind::ladner_fischer, n);
    CHECK(lf.depth() == static_cast<std::size_t>(k == 1 ? 1 : k + 1));
  }
  CHECK(sweep::make_scan_network(sweep::network_kind::kogge_stone, 1).size() == 0);
  CHECK(sweep::make_scan_network(sweep::network_kind::brent_kung_radix3, 0).depth() == 0);
}

TEST_CASE("padding removes bank conflicts of the strided networks") {
  auto bk = sweep::make_scan_network(sweep::network_kind::brent_kung, 1024);
  const auto plain = sweep::bank_conflicts(bk, sweep::plain_index);
  const auto padded = sweep::bank_conflicts(bk, sweep::padded_index);
  CHECK(plain > 0);
  CHECK(padded * 4 < plain);
  // Kogge-Stone's unit-stride warps hit 32 different banks either way.
  auto ks = sweep::make_scan_network(sweep::network_kind::kogge_stone, 1024);
  CHECK(sweep::bank_conflicts(ks, sweep::plain_index) == 0);
  // A hand-made worst case: 32 threads reading words 32 apart, one bank.
  sweep::scan_network strided;
  strided.n = 32 * 33;
  std::vector<sweep::network_op> step;
  for (int t = 0; t < 32; ++t) step.push_back({32 * t + 32, 32 * t + 31});
  strided.steps = {step};
  CHECK(sweep::bank_conflicts(strided, sweep::plain_index) == 31 * 3);
  CHECK(sweep::bank_conflicts(strided, sweep::padded_index) == 0);
}

TEST_CASE("draw shows one line per step") {
  auto net = sweep::make_scan_network(sweep::network_kind::brent_kung, 8);
  const std::string pic = sweep::draw(net);
  CHECK(pic.find("brent_kung n=8 forward: size 11, depth 5") != std::string::npos);
  CHECK(std::count(pic.begin(), pic.end(), '\n') == 2 + 5);
  CHECK(pic.find("step  0 *o*o*o*o") != std::string::npos);
}
