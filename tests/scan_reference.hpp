// Sequential reference scans, written out for each direction and kind
// (independently of Sweep's own direction handling), the non-commutative
// 2x2 matrix monoid, and the checker shared by the scan tests.
#pragma once

#include "test_support.hpp"

#include <sweep/scan.hpp>

#include <cstdint>
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

template <class T>
bool close(const T& got, const T& want, double tol, double scale) {
  if (got == want) return true;  // also equal infinities
  if constexpr (std::is_floating_point_v<T>) {
    return std::abs(static_cast<double>(got) - static_cast<double>(want)) <=
           tol * (std::abs(static_cast<double>(want)) + scale) + 1e-300;
  } else {
    return got == want;
  }
}

/// Compares results with a reference: floating point within a tolerance
/// scaled by n and by the inputs' magnitudes; outputs are allocated one
/// element longer and poisoned with `guard`, which must survive.
template <class T>
struct result_check {
  T guard;
  double tol = 0, scale = 0;
  std::size_t n = 0;
  result_check(const std::vector<T>& x, const T& init)
      : guard(x.empty() ? init : x[0]), tol(tolerance<T>(x.size())), n(x.size()) {
    if constexpr (std::is_floating_point_v<T>)
      for (const T& v : x) scale += std::abs(static_cast<double>(v));
  }
  /// An output View of m + 1 (default n + 1) elements, all `guard`.
  template <class Space>
  auto poisoned_output(std::size_t m) const {
    return to_device<Space>(std::vector<T>(m + 1, guard), "out");
  }
  template <class Space>
  auto poisoned_output() const {
    return poisoned_output<Space>(n);
  }
  /// got[0..m) equals want (m = want.size()), reporting the count and the
  /// first wrong element, and got[m] still holds `guard`.
  void elements(const std::vector<T>& got, const std::vector<T>& want) const {
    const std::size_t m = want.size();
    std::size_t bad = 0, first_bad = m;
    for (std::size_t i = 0; i < m; ++i)
      if (!close(got[i], want[i], tol, scale) && bad++ == 0) first_bad = i;
    CHECK_MESSAGE(bad == 0, bad, " wrong elements, first at ", first_bad);
    if (bad) CHECK(got[first_bad] == want[first_bad]);
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

inline const std::vector<sweep::scan_algorithm>& all_algorithms() {
  static const std::vector<sweep::scan_algorithm> algos = {
      sweep::scan_algorithm::automatic,  sweep::scan_algorithm::sequential,   sweep::scan_algorithm::hillis_steele,
      sweep::scan_algorithm::blelloch,   sweep::scan_algorithm::brent_kung,   sweep::scan_algorithm::tiled,
      sweep::scan_algorithm::chunked,    sweep::scan_algorithm::single_pass};
  return algos;
}

inline const std::vector<std::size_t>& test_sizes() {
  static const std::vector<std::size_t> sizes = {0,    1,    2,    31,    32,    33,    1000,
                                                 1023, 1025, 4095, 4097,  65535, 65537, (1u << 21) + 1};
  return sizes;
}

/// Runs every algorithm x direction x kind on x and compares with the
/// reference (floating point within an n-scaled tolerance). Also checks
/// that out's element past n (a guard) is never written.
template <class Space, class Op>
void check_all_scans(const std::vector<typename Op::value_type>& x, const Op& op,
                     const typename Op::value_type& init, const std::vector<sweep::scan_algorithm>& algos,
                     sweep::index_t tile = 0, sweep::index_t chunk = 0) {
  using T = typename Op::value_type;
  const std::size_t n = x.size();
  auto in = to_device<Space>(x, "in");
  const result_check<T> check(x, init);
  std::vector<T> want;
  CAPTURE(n);
  for_each_variant(algos, tile, chunk, [&](const sweep::scan_options& opt, bool backward, bool exclusive) {
    auto out = check.template poisoned_output<Space>();
    Space space;
    T total = exclusive ? sweep::exclusive_scan(space, in, out, init, op, opt)
                        : sweep::inclusive_scan(space, in, out, op, opt);
    T want_total = reference_scan(x, want, init, exclusive, backward, op);
    CHECK(close(total, want_total, check.tol, check.scale));
    check.elements(to_host(out), want);
  });
}

}  // namespace sweep_test
