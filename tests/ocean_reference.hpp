// Sequential references for the ocean kernels on n x n row-major host
// arrays, written with the same arithmetic as the library so that results
// can be compared bit for bit on the host.
#pragma once

#include <sweep/ocean.hpp>

#include <cmath>
#include <cstdint>
#include <functional>
#include <random>
#include <vector>

namespace sweep_test {

using field = std::vector<double>;

struct sweep_measures {
  double max = 0, l2 = 0;
};

/// One red-black SOR sweep, red (i + j even) first, in row order.
inline sweep_measures red_black_reference(field& u, const field& f, std::int64_t n, double lambda, double length,
                                          double omega) {
  const double h = length / double(n - 1), h2 = h * h, inv_diag = 1.0 / (4.0 + lambda * h2);
  sweep_measures m;
  double sum = 0;
  for (int color = 0; color < 2; ++color)
    for (std::int64_t i = 1; i < n - 1; ++i)
      for (std::int64_t j = 1; j < n - 1; ++j) {
        if (((i + j) & 1) != color) continue;
        const std::int64_t p = i * n + j;
        const double old = u[p];
        const double gs = (u[p - n] + u[p + n] + u[p - 1] + u[p + 1] + h2 * f[p]) * inv_diag;
        const double next = omega == 1.0 ? gs : old + omega * (gs - old);
        u[p] = next;
        m.max = std::max(m.max, std::abs(next - old));
        sum += (next - old) * (next - old);
      }
  m.l2 = std::sqrt(sum);
  return m;
}

/// r = f - A u on the interior; returns ||r||_2.
inline double residual_reference(const field& u, const field& f, field& r, std::int64_t n, double lambda,
                                 double length) {
  const double h = length / double(n - 1), inv_h2 = 1.0 / (h * h);
  double sum = 0;
  r.assign(std::size_t(n * n), 0.0);
  for (std::int64_t i = 1; i < n - 1; ++i)
    for (std::int64_t j = 1; j < n - 1; ++j) {
      const std::int64_t p = i * n + j;
      const double au = (4.0 * u[p] - u[p - n] - u[p + n] - u[p - 1] - u[p + 1]) * inv_h2 + lambda * u[p];
      r[p] = f[p] - au;
      sum += r[p] * r[p];
    }
  return std::sqrt(sum);
}

/// A field from g(x, y) at the grid points of [0, length]^2.
inline field sample(std::int64_t n, double length, const std::function<double(double, double)>& g) {
  field out(std::size_t(n * n));
  const double h = length / double(n - 1);
  for (std::int64_t i = 0; i < n; ++i)
    for (std::int64_t j = 0; j < n; ++j) out[std::size_t(i * n + j)] = g(double(j) * h, double(i) * h);
  return out;
}

inline field random_field(std::int64_t n, std::uint64_t seed, bool zero_ring = false) {
  std::mt19937_64 gen(seed);
  std::uniform_real_distribution<double> dist(-1.0, 1.0);
  field out(std::size_t(n * n));
  for (std::int64_t i = 0; i < n; ++i)
    for (std::int64_t j = 0; j < n; ++j) {
      const bool ring = i == 0 || j == 0 || i == n - 1 || j == n - 1;
      out[std::size_t(i * n + j)] = zero_ring && ring ? 0.0 : dist(gen);
    }
  return out;
}

/// A device grid holding `values` (row-major n x n).
template <class Space>
sweep::ocean::grid<typename Space::memory_space> make_grid(const field& values, std::int64_t n,
                                                            sweep::ocean::grid_layout layout = {}) {
  sweep::ocean::grid<typename Space::memory_space> g("test::grid", n, layout);
  Kokkos::View<const double**, Kokkos::LayoutRight, Kokkos::HostSpace, Kokkos::MemoryUnmanaged> h(values.data(), n, n);
  g.assign(h);
  return g;
}

template <class Grid>
field to_field(const Grid& g) {
  auto h = g.to_host();
  return field(h.data(), h.data() + h.size());
}

}  // namespace sweep_test
