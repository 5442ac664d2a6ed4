// Initial conditions, generated on the host from a seed (the same bodies on
// every machine: std::mt19937_64 with Sweep's own conversion to doubles).
//
//   plummer(N, seed)           a Plummer sphere in Henon units (G = 1,
//                              M = 1, E = -1/4), Aarseth, Henon & Wielen's
//                              1974 recipe, cut at 99.9% of the mass,
//                              centre of mass at rest at the origin.
//   colliding_disks(N, seed)   two rotating exponential disks (each half
//                              the mass, a tenth of it in a central body,
//                              velocity dispersion a fifth of the circular
//                              speed) on a prograde/inclined approach.
//   uniform_cube(N, seed)      equal masses uniform in [-1, 1]^3 at rest
//                              (a cold collapse).
#pragma once

#include <sweep/core.hpp>
#include <sweep/nbody/bodies.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <numbers>
#include <random>
#include <vector>

namespace sweep::nbody {

namespace detail {

/// Uniform in [0, 1) from the top 53 bits.
struct uniform01 {
  std::mt19937_64 gen;
  explicit uniform01(std::uint64_t seed) : gen(seed) {}
  double operator()() { return double(gen() >> 11) * 0x1.0p-53; }
  /// A random unit vector times r.
  void direction(double r, double& x, double& y, double& z) {
    const double cz = 2 * (*this)() - 1, phi = 2 * std::numbers::pi * (*this)();
    const double s = std::sqrt(std::max(0.0, 1 - cz * cz));
    x = r * s * std::cos(phi), y = r * s * std::sin(phi), z = r * cz;
  }
  /// Standard normal (Box-Muller).
  double normal() {
    const double u = std::max((*this)(), 1e-300), v = (*this)();
    return std::sqrt(-2 * std::log(u)) * std::cos(2 * std::numbers::pi * v);
  }
};

/// Moves the centre of mass to rest at the origin.
inline void centre(std::vector<body>& b) {
  double m = 0, s[6] = {0, 0, 0, 0, 0, 0};
  for (const auto& q : b) {
    m += q.m;
    s[0] += q.m * q.x, s[1] += q.m * q.y, s[2] += q.m * q.z;
    s[3] += q.m * q.vx, s[4] += q.m * q.vy, s[5] += q.m * q.vz;
  }
  for (auto& q : b) {
    q.x -= s[0] / m, q.y -= s[1] / m, q.z -= s[2] / m;
    q.vx -= s[3] / m, q.vy -= s[4] / m, q.vz -= s[5] / m;
  }
}

inline void check_count(index_t n, const char* where) {
  sweep::detail::require(n >= 1 && n < (index_t(1) << 31), where, "N = ", n, " must be in [1, 2^31)");
}

}  // namespace detail

inline std::vector<body> plummer(index_t n, std::uint64_t seed = 1) {
  detail::check_count(n, "sweep::nbody::plummer");
  detail::uniform01 u(seed);
  const double pos_scale = 3 * std::numbers::pi / 16, vel_scale = std::sqrt(16 / (3 * std::numbers::pi));
  std::vector<body> b(static_cast<std::size_t>(n));
  for (auto& q : b) {
    q.m = 1.0 / double(n);
    double x1;
    do x1 = u(); while (x1 <= 1e-10 || x1 > 0.999);
    const double r = 1 / std::sqrt(std::pow(x1, -2.0 / 3.0) - 1);
    u.direction(r * pos_scale, q.x, q.y, q.z);
    double qv, g;
    do {
      qv = u();
      g = qv * qv * std::pow(1 - qv * qv, 3.5);
    } while (0.1 * u() >= g);
    const double v = qv * std::sqrt(2.0) * std::pow(1 + r * r, -0.25);
    u.direction(v * vel_scale, q.vx, q.vy, q.vz);
  }
  detail::centre(b);
  return b;
}

inline std::vector<body> colliding_disks(index_t n, std::uint64_t seed = 1) {
  detail::check_count(n, "sweep::nbody::colliding_disks");
  sweep::detail::require(n >= 4, "sweep::nbody::colliding_disks", "N = ", n, " must be >= 4 (two disks)");
  detail::uniform01 u(seed);
  std::vector<body> out;
  out.reserve(static_cast<std::size_t>(n));
  const double galaxy_mass = 0.5, core_share = 0.1, scale = 1.0, thickness = 0.05;
  for (int g = 0; g < 2; ++g) {
    const index_t members = g == 0 ? n / 2 : n - n / 2;
    const index_t stars = members - 1;
    const double star_mass = galaxy_mass * (1 - core_share) / double(stars);
    // Exponential disk: radius from the cumulative mass 1 - (1 + s) e^-s (bisection).
    std::vector<body> disk(static_cast<std::size_t>(stars));
    std::vector<double> radius(disk.size());
    for (std::size_t i = 0; i < disk.size(); ++i) {
      const double target = 0.999 * u();
      double lo = 0, hi = 20;
      for (int it = 0; it < 60; ++it) {
        const double mid = 0.5 * (lo + hi);
        (1 - (1 + mid) * std::exp(-mid) < target ? lo : hi) = mid;
      }
      const double r = 0.5 * (lo + hi) * scale, phi = 2 * std::numbers::pi * u();
      radius[i] = r;
      disk[i] = body{star_mass, r * std::cos(phi), r * std::sin(phi), thickness * u.normal(), 0, 0, 0};
    }
    // Circular speed from the mass inside each radius (core + disk stars).
    std::vector<std::size_t> order(disk.size());
    for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
    std::sort(order.begin(), order.end(), [&](auto a, auto b) { return radius[a] < radius[b]; });
    double inside = galaxy_mass * core_share;
    for (std::size_t k = 0; k < order.size(); ++k) {
      body& s = disk[order[k]];
      const double r = radius[order[k]];
      inside += star_mass;
      const double v = r * std::sqrt(inside / std::pow(r * r + 0.05 * 0.05, 1.5));
      // Rotation plus a dispersion of a fifth of the circular speed, which
      // keeps the disk from fragmenting at once.
      const double sigma = 0.2 * v;
      s.vx = -v * s.y / std::max(r, 1e-12) + sigma * u.normal();
      s.vy = v * s.x / std::max(r, 1e-12) + sigma * u.normal();
      s.vz = 0.5 * sigma * u.normal();
    }
    disk.push_back(body{galaxy_mass * core_share, 0, 0, 0, 0, 0, 0});
    // Place: the second disk tilted 60 degrees about x; approach on a
    // slightly offset line.
    const double tilt = g == 0 ? 0.0 : std::numbers::pi / 3;
    const double ct = std::cos(tilt), st = std::sin(tilt);
    const double side = g == 0 ? -1.0 : 1.0;
    for (auto& s : disk) {
      const double y = ct * s.y - st * s.z, z = st * s.y + ct * s.z;
      const double vy = ct * s.vy - st * s.vz, vz = st * s.vy + ct * s.vz;
      out.push_back(body{s.m, s.x + side * 4.0, y + side * 1.0, z, s.vx - side * 0.25, vy, vz});
    }
  }
  detail::centre(out);
  return out;
}

inline std::vector<body> uniform_cube(index_t n, std::uint64_t seed = 1) {
  detail::check_count(n, "sweep::nbody::uniform_cube");
  detail::uniform01 u(seed);
  std::vector<body> b(static_cast<std::size_t>(n));
  for (auto& q : b) q = body{1.0 / double(n), 2 * u() - 1, 2 * u() - 1, 2 * u() - 1, 0, 0, 0};
  detail::centre(b);
  return b;
}

}  // namespace sweep::nbody
