// Sequential reference scans, written out for each direction and kind
// (independently of Sweep's own direction handling), the non-commutative
// 2x2 matrix monoid, and the checker shared by the scan tests.
#pragma once

#include "test_support.hpp"

#include <sweep/scan.hpp>
#include <sweep/scan_algorithms.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <type_traits>
#include <random>
#include <string>
#include <vector>

namespace sweep_test {

/// 2x2 matrices over the integers mod 2^32 under multiplication: a
/// non-commutative monoid, exact (unsigned wrap-around is defined), and a
/// user-defined struct value type.
struct mat2 {
  std::uint32_t a = 1, b = 0, c = 0, d = 1;
  KOKKOS_INLINE_FUNCTION friend bool operator==(const mat2& x, const mat2& y) {
    return x.a == y.a && x.b == y.b && x.c == y.c && x.d == y.d;
  }
  template <class Gen>
  static mat2 random(Gen& gen) {
    std::uniform_int_distribution<std::uint32_t> dist(0, 5);
    return {dist(gen), dist(gen), dist(gen), dist(gen)};
  }
};

struct mat2_product {
  using value_type = mat2;
  KOKKOS_INLINE_FUNCTION static mat2 identity() { return mat2{}; }
  KOKKOS_INLINE_FUNCTION mat2 operator()(const mat2& x, const mat2& y) const {
    return {x.a * y.a + x.b * y.c, x.a * y.b + x.b * y.d, x.c * y.a + x.d * y.c, x.c * y.b + x.d * y.d};
  }
};

inline std::ostream& operator<<(std::ostream& os, const mat2& m) {
  return os << "[" << m.a << " " << m.b << "; " << m.c << " " << m.d << "]";
}

/// The reference: out and the total, by definition.
template <class T, class Op>
T reference_scan(const std::vector<T>& x, std::vector<T>& out, const T& init, bool exclusive, bool backward,
                 const Op& op) {
  const std::size_t n = x.size();
  out.assign(n, T{});
  T acc = exclusive ? init : Op::identity();
  if (!backward) {
    for (std::size_t i = 0; i < n; ++i) {
      T next = op(acc, x[i]);
      out[i] = exclusive ? acc : next;
      acc = next;
    }
  } else {
    for (std::size_t k = n; k-- > 0;) {
      T next = op(x[k], acc);
      out[k] = exclusive ? acc : next;
      acc = next;
    }
  }
  return acc;
}

/// How results are compared with the reference. Exact operators (integers,
/// min/max, bit operations, the matrix monoid) compare exactly. Floating-point
/// sums and products round, and differently in every algorithm: the
/// reference is computed in a wider type (double for float, long double for
/// double) and each element gets its own allowance from what it actually
/// combines, so a misplaced element or segment head shows at any n.
///
/// Sums. Element i combines a prefix (its segment so far in a segmented
/// scan, the suffix in a backward one, and the init in an exclusive one);
/// with M_i the sum of |x| over it, the allowance is
///     c * eps * M_i,   c = log2(n) + 2,   eps = machine epsilon of T.
/// Why c: a sum evaluated in a tree where every input passes through at
/// most d roundings is off by at most gamma_d * M_i (Higham, Accuracy and
/// Stability of Numerical Algorithms, 2nd ed., eq. 4.3); with u = eps/2,
/// gamma_d ~ d*eps/2. The tree scans (Hillis-Steele, Blelloch, Brent-Kung,
/// the vector kernels' in-register steps, the team networks) take each
/// input through at most 2*log2(n) + 4 roundings, which c covers
/// rigorously. Elsewhere the scans run sequentially (inside a tile or
/// chunk, and along the chain of chunk totals), where the worst case is
/// d = that stretch's length; but there the error is sum_j delta_j * s_j
/// over the running sums s_j (|delta_j| <= u). Modelling the delta_j as
/// independent and zero-mean, Hoeffding's inequality keeps it below
/// 7 * u * sqrt(sum_j s_j^2) except with probability ~5e-11, and for the
/// tests' zero-mean inputs in [-1, 1) that is ~ 6 * u * M_i, inside
/// c * eps * M_i = 2c * u * M_i for every n >= 1. On the
/// suite's inputs the worst element uses 0.07 to 0.12 of this allowance
/// (float and double, every algorithm, plain, segmented and team scans):
/// tight to one order of magnitude.
///
/// Products. Element i's k_i factors (the init counted) go through exactly
/// k_i - 1 roundings in any tree, so it is exact * prod(1 + delta) with
/// |delta| <= u; with independent rounding errors the relative error stays
/// below lambda * sqrt(k_i) * u with probability >= 1 - 2 exp(-lambda^2/2)
/// (Higham and Mary, SIAM J. Sci. Comput. 41(5), 2019); lambda = 8 gives
/// the allowance 4 * sqrt(k_i) * eps * |exact_i|, capped by the rigorous
/// k_i * eps * |exact_i|. The suite's worst product uses 0.2 of it.
enum class rounding { exact, sum, product };

template <class Op>
struct rounding_of {
  static constexpr rounding value = rounding::exact;
};
template <class T>
struct rounding_of<sweep::plus<T>> {
  static constexpr rounding value = std::is_floating_point_v<T> ? rounding::sum : rounding::exact;
};
template <class T>
struct rounding_of<sweep::multiplies<T>> {
  static constexpr rounding value = std::is_floating_point_v<T> ? rounding::product : rounding::exact;
};

/// The reference's type for floating-point T.
template <class T>
using wide_t = std::conditional_t<std::is_same_v<T, float>, double, long double>;

/// Host-only sum and product in the wide type (the library's operators are
/// device functions, which long double must stay out of).
template <class W>
struct wide_plus {
  using value_type = W;
  static W identity() { return W(0); }
  W operator()(const W& a, const W& b) const { return a + b; }
};
template <class W>
struct wide_multiplies {
  using value_type = W;
  static W identity() { return W(1); }
  W operator()(const W& a, const W& b) const { return a * b; }
};

/// The expected results of one scan, and the check of an element against
/// them (the rule above). `reference(values, init, op)` runs the sequential
/// reference of the scan under test (plain or segmented, its direction and
/// kind) on any value type and returns its outputs: the same call gives the
/// wide reference, the prefix magnitudes and the factor counts, so every
/// element is bounded by exactly the elements it combines.
template <class T>
class expected_result {
 public:
  template <class Op, class Reference>
  expected_result(const std::vector<T>& x, const T& init, const Op& op, const Reference& reference) {
    if constexpr (rounding_of<Op>::value == rounding::exact) {
      exact_ = reference(x, init, op);
    } else {
      using W = wide_t<T>;
      const double eps = std::numeric_limits<T>::epsilon();
      const std::vector<W> xw(x.begin(), x.end());
      want_ = reference(xw, W(init), [&] {
        if constexpr (rounding_of<Op>::value == rounding::sum) return wide_plus<W>{};
        else return wide_multiplies<W>{};
      }());
      allow_.resize(want_.size());
      if constexpr (rounding_of<Op>::value == rounding::sum) {
        std::vector<W> mag(x.size());
        for (std::size_t i = 0; i < x.size(); ++i) mag[i] = std::abs(xw[i]);
        const auto m = reference(mag, W(std::abs(W(init))), wide_plus<W>{});
        const double c = std::log2(static_cast<double>(x.size()) + 1.0) + 2.0;
        for (std::size_t i = 0; i < m.size(); ++i) allow_[i] = static_cast<double>(c * eps * m[i]);
      } else {
        const auto k = reference(std::vector<W>(x.size(), W(1)), W(1), wide_plus<W>{});
        for (std::size_t i = 0; i < k.size(); ++i) {
          const double factors = static_cast<double>(k[i]);
          allow_[i] = std::min(4.0 * std::sqrt(factors), factors) * eps * static_cast<double>(std::abs(want_[i]));
        }
      }
    }
  }

  std::size_t size() const { return exact_.empty() ? want_.size() : exact_.size(); }

  /// got is element i's result.
  bool ok(std::size_t i, const T& got) const {
    if constexpr (std::is_floating_point_v<T>) {
      if (!want_.empty()) {
        const auto w = want_[i];
        return static_cast<wide_t<T>>(got) == w || std::abs(static_cast<wide_t<T>>(got) - w) <= allow_[i];
      }
    }
    return got == exact_[i];
  }

  /// Element i of the reference, rounded to T (for messages).
  T value(std::size_t i) const { return exact_.empty() ? static_cast<T>(want_[i]) : exact_[i]; }
  /// Element i's allowance (0 where exact).
  double allowance(std::size_t i) const { return allow_.empty() ? 0.0 : allow_[i]; }

 private:
  std::vector<T> exact_;
  std::vector<wide_t<std::conditional_t<std::is_floating_point_v<T>, T, double>>> want_;
  std::vector<double> allow_;
};

/// Builds expected_result from a reference call (template argument
/// deduction for the class needs the value type spelled out otherwise).
template <class T, class Op, class Reference>
expected_result<T> expect(const std::vector<T>& x, const T& init, const Op& op, const Reference& reference) {
  return expected_result<T>(x, init, op, reference);
}

/// The reference call of a plain scan for expect(): the outputs, then the
/// total as one more element.
inline auto plain_reference(bool exclusive, bool backward) {
  return [exclusive, backward](const auto& v, const auto& v_init, const auto& v_op) {
    std::decay_t<decltype(v)> r;
    const auto r_total = reference_scan(v, r, v_init, exclusive, backward, v_op);
    r.push_back(r_total);
    return r;
  };
}

/// Checks got[0..m) against want, reporting
/// the count and the first wrong element.
template <class T>
void check_elements(const std::vector<T>& got, const expected_result<T>& want, std::size_t m) {
  std::size_t bad = 0, first_bad = m;
  for (std::size_t i = 0; i < m; ++i)
    if (!want.ok(i, got[i]) && bad++ == 0) first_bad = i;
  CHECK_MESSAGE(bad == 0, bad, " wrong elements, first at ", first_bad);
  if (bad) {
    const T got_first = got[first_bad], want_first = want.value(first_bad);
    const double allowance = want.allowance(first_bad);
    CAPTURE(allowance);
    CHECK(got_first == want_first);
  }
}

/// Outputs are allocated one element longer than the result and poisoned
/// with `guard`, which must survive.
template <class T>
struct result_check {
  T guard;
  std::size_t n = 0;
  result_check(const std::vector<T>& x, const T& init) : guard(x.empty() ? init : x[0]), n(x.size()) {}
  /// An output View of m + 1 (default n + 1) elements, all `guard`.
  template <class Space>
  auto poisoned_output(std::size_t m) const {
    return to_device<Space>(std::vector<T>(m + 1, guard), "out");
  }
  template <class Space>
  auto poisoned_output() const {
    return poisoned_output<Space>(n);
  }
  /// got[0..m) matches want, and got[m] still holds `guard`.
  void elements(const std::vector<T>& got, const expected_result<T>& want, std::size_t m) const {
    check_elements(got, want, m);
    CHECK_MESSAGE(got[m] == guard, "element past the result was written");
  }
};

/// Calls f(options, backward, exclusive) for every algorithm x direction x
/// kind, with the choice captured for failure messages.
template <class F>
void for_each_variant(const std::vector<sweep::scan_algorithm>& algos, sweep::index_t tile, sweep::index_t chunk,
                      const F& f) {
  for (auto algo : algos)
    for (bool backward : {false, true})
      for (bool exclusive : {false, true}) {
        const std::string algorithm = sweep::to_string(algo);
        CAPTURE(algorithm);
        CAPTURE(backward);
        CAPTURE(exclusive);
        sweep::scan_options opt;
        opt.algorithm = algo;
        opt.direction = backward ? sweep::direction::backward : sweep::direction::forward;
        opt.tile_size = tile;
        opt.chunk_size = chunk;
        f(opt, backward, exclusive);
      }
}

/// Every algorithm of sweep::scan_algorithms (automatic first), so a new
/// entry there is tested without edits here.
inline const std::vector<sweep::scan_algorithm>& all_algorithms() {
  static const std::vector<sweep::scan_algorithm> algos = [] {
    std::vector<sweep::scan_algorithm> v;
    for (const auto& entry : sweep::scan_algorithms) v.push_back(entry.id);
    return v;
  }();
  return algos;
}

inline const std::vector<std::size_t>& test_sizes() {
  static const std::vector<std::size_t> sizes = {0,    1,    2,    31,    32,    33,    1000,
                                                 1023, 1025, 4095, 4097,  65535, 65537, scaled(1u << 21, 1u << 17) + 1};
  return sizes;
}

/// Runs every algorithm x direction x kind on x and compares with the
/// reference (floating point by the rule of expected_result). Also checks
/// that out's element past n (a guard) is never written. The input may
/// hold another type than the operator's (In converted to it, as the scans
/// do; the reference scans the converted values).
template <class Space, class Op, class In>
void check_all_scans(const std::vector<In>& x, const Op& op, const typename Op::value_type& init,
                     const std::vector<sweep::scan_algorithm>& algos, sweep::index_t tile = 0,
                     sweep::index_t chunk = 0) {
  using T = typename Op::value_type;
  const std::size_t n = x.size();
  const std::vector<T> wide(x.begin(), x.end());
  auto in = to_device<Space>(x, "in");
  const result_check<T> check(wide, init);
  CAPTURE(n);
  for_each_variant(algos, tile, chunk, [&](const sweep::scan_options& opt, bool backward, bool exclusive) {
    auto out = check.template poisoned_output<Space>();
    Space space;
    const T total = exclusive ? sweep::exclusive_scan(space, in, out, init, op, opt)
                              : sweep::inclusive_scan(space, in, out, op, opt);
    const auto want = expect(wide, init, op, plain_reference(exclusive, backward));
    CHECK_MESSAGE(want.ok(n, total), "total ", total, ", want ", want.value(n));
    check.elements(to_host(out), want, n);
  });
}

}  // namespace sweep_test
