// Brute-force references for the ray tracer: every ray against every
// triangle with the library's own triangle test and tie rule, on the host,
// and random scenes and rays that include the awkward cases (axis-parallel
// directions, rays aimed at vertices and edges, origins inside the scene).
#pragma once

#include <sweep/raytrace/geometry.hpp>
#include <sweep/raytrace/mesh.hpp>

#include <cmath>
#include <cstdint>
#include <random>
#include <vector>

namespace sweep_test {

namespace rt = sweep::raytrace;

inline rt::hit brute_force(const rt::mesh& m, const rt::ray& q, bool any = false) {
  const rt::ray_setup r(q);
  rt::hit h{q.tmax, 0, 0, -1};
  if (q.tmin > q.tmax) return rt::hit{};
  for (std::size_t k = 0; k < m.triangles.size(); ++k) {
    const auto& t = m.triangles[k];
    const rt::triangle tri{m.vertices[std::size_t(t[0])], m.vertices[std::size_t(t[1])], m.vertices[std::size_t(t[2])]};
    float u = 0, v = 0;
    const float d = rt::intersect_triangle(r, tri, h.t, u, v);
    if (d == __builtin_huge_valf()) continue;
    if (rt::closer(d, std::int32_t(k), h.t, h.prim)) h = rt::hit{d, u, v, std::int32_t(k)};
    if (any) break;
  }
  return h.prim >= 0 ? h : rt::hit{};
}

/// n random triangles of edge ~size in [-1, 1]^3, plus a few sharing edges
/// and vertices (a fan), so rays through shared edges are exercised.
inline rt::mesh random_soup(std::size_t n, float size, std::uint64_t seed) {
  std::mt19937_64 gen(seed);
  std::uniform_real_distribution<float> pos(-1, 1), off(-size, size);
  rt::mesh m;
  for (std::size_t k = 0; k < n; ++k) {
    const rt::vec3f c{pos(gen), pos(gen), pos(gen)};
    const auto base = std::int32_t(m.vertices.size());
    for (int j = 0; j < 3; ++j) m.vertices.push_back(c + rt::vec3f{off(gen), off(gen), off(gen)});
    m.add_triangle(base, base + 1, base + 2);
  }
  // A closed fan around the z axis (shared edges and a shared vertex).
  const auto centre = std::int32_t(m.vertices.size());
  m.vertices.push_back({0.1f, 0.2f, 1.5f});
  for (int j = 0; j < 12; ++j) {
    const float a = float(j) * 0.5235988f;
    m.vertices.push_back({0.1f + 0.7f * std::cos(a), 0.2f + 0.7f * std::sin(a), 1.5f});
  }
  for (int j = 0; j < 12; ++j) m.add_triangle(centre, centre + 1 + j, centre + 1 + (j + 1) % 12);
  return m;
}

/// Rays of every kind: random, axis-parallel, aimed at vertices and edge
/// midpoints of the mesh, from outside and inside, some with short tmax,
/// some disabled (tmin > tmax).
inline std::vector<rt::ray> random_rays(const rt::mesh& m, std::size_t n, std::uint64_t seed) {
  std::mt19937_64 gen(seed);
  std::uniform_real_distribution<float> pos(-1.5f, 1.5f), dir(-1, 1), unit(0, 1);
  std::vector<rt::ray> rays(n);
  for (std::size_t i = 0; i < n; ++i) {
    rt::ray& r = rays[i];
    r.org = {pos(gen), pos(gen), pos(gen)};
    const int kind = int(i % 8);
    if (kind == 0) {
      const int axis = int(gen() % 3);
      r.dir = {axis == 0 ? 1.0f : 0.0f, axis == 1 ? -1.0f : 0.0f, axis == 2 ? 1.0f : 0.0f};
    } else if (kind == 1 || kind == 2) {
      const auto& t = m.triangles[gen() % m.triangles.size()];
      const rt::vec3f a = m.vertices[std::size_t(t[0])], b = m.vertices[std::size_t(t[1])];
      const rt::vec3f target = kind == 1 ? a : 0.5f * (a + b);
      r.dir = target - r.org;
    } else {
      r.dir = {dir(gen), dir(gen), dir(gen)};
    }
    r.tmin = 0;
    r.tmax = kind == 5 ? 0.3f * unit(gen) : __builtin_huge_valf();
    if (kind == 6 && i % 16 == 6) r.tmin = 2, r.tmax = 1;  // disabled
  }
  return rays;
}

}  // namespace sweep_test
