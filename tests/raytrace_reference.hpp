// References for the ray tracer, on the host:
//  - `oracle`: an independent one, every ray against every triangle with
//    Moller-Trumbore in double precision and its own rounding allowance;
//    it says which hits are certain and which a float tracer may or may
//    not report (near an edge, a tie, an interval end), and `acceptable`
//    judges a tracer's hit (primitive, t, u, v) against that;
//  - `brute_force`: the library's own triangle test and tie rule on every
//    triangle, which checks traversal (BVH culling, packets) bit for bit
//    but not the triangle test itself;
// and random scenes and rays that include the awkward cases (axis-parallel
// directions, rays aimed at vertices and edges, origins inside the scene).
#pragma once

#include <sweep/raytrace/geometry.hpp>
#include <sweep/raytrace/mesh.hpp>
#include <sweep/raytrace/traverse.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
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

struct dvec {
  double x = 0, y = 0, z = 0;
};
inline dvec to_d(const rt::vec3f& a) { return {a.x, a.y, a.z}; }
inline dvec operator-(dvec a, dvec b) { return {a.x - b.x, a.y - b.y, a.z - b.z}; }
inline dvec operator+(dvec a, dvec b) { return {a.x + b.x, a.y + b.y, a.z + b.z}; }
inline dvec operator*(double s, dvec a) { return {s * a.x, s * a.y, s * a.z}; }
inline double dot(dvec a, dvec b) { return a.x * b.x + a.y * b.y + a.z * b.z; }
inline dvec cross(dvec a, dvec b) { return {a.y * b.z - a.z * b.y, a.z * b.x - a.x * b.z, a.x * b.y - a.y * b.x}; }
inline double norm(dvec a) { return std::sqrt(dot(a, a)); }

/// A ray in double precision.
struct dray {
  dvec org, dir;
  double tmin = 0, tmax = std::numeric_limits<double>::infinity();
};
inline dray to_d(const rt::ray& r) { return {to_d(r.org), to_d(r.dir), r.tmin, r.tmax}; }

/// One ray against one triangle by Moller-Trumbore (1997) in double: the
/// plane distance t and the barycentrics u (of vertex 1), v (of vertex 2),
/// whether or not they lie inside, and what a float tracer may be off by.
/// A float tracer works on the offsets of the vertices from the origin
/// (|offset| <= s) and their 2 x 2 cross products, each with a relative
/// error of a few float epsilons, divided by the determinant; so its
/// barycentrics are off by about eps_f s^2 |dir| / |det| (det =
/// dir . (e2 x e1), a scaled twice-area that vanishes for grazing rays) and
/// its distance by about eps_f s / |dir| times (1 + that), plus eps_f t.
/// `slack` is the constant in front of all three: 4 (a few ulps each for
/// the shear, the products, the sums and the division; the float rounding
/// of the ray itself, when a tracer's ray was built in float from a double
/// one, is of the same order). On the test scenes the float tracer's
/// errors stay below a fifth of the allowance.
struct candidate {
  std::int32_t prim = -1;
  double t = 0, u = 0, v = 0;
  double du = 0, dt = 0;  // allowances on the barycentrics and the distance
};

inline bool moller_trumbore(const dray& r, const dvec& a, const dvec& b, const dvec& c, candidate& out,
                            double slack = 4) {
  const dvec e1 = b - a, e2 = c - a, p = cross(r.dir, e2);
  const double det = dot(e1, p);
  if (det == 0) return false;  // parallel to the plane: no single crossing
  const double inv = 1 / det;
  const dvec s = r.org - a, q = cross(s, e1);
  out.u = dot(s, p) * inv;
  out.v = dot(r.dir, q) * inv;
  out.t = dot(e2, q) * inv;
  const double ef = std::numeric_limits<float>::epsilon();
  const double reach = std::max({norm(s), norm(r.org - b), norm(r.org - c)});
  const double dn = norm(r.dir);
  out.du = slack * ef * reach * reach * dn / std::abs(det);
  out.dt = slack * ef * reach / dn * (1 + out.du / (slack * ef)) + slack * ef * std::abs(out.t);
  return std::isfinite(out.t) && std::isfinite(out.u) && std::isfinite(out.v);
}

/// What the oracle knows about one ray: the triangles it certainly hits
/// within its interval (closest first) and those a float tracer may hit.
struct oracle_result {
  std::vector<candidate> certain, possible;
  /// The closest certain distance (+inf when none).
  double closest() const { return certain.empty() ? std::numeric_limits<double>::infinity() : certain.front().t; }
  /// One answer only: the closest certain hit and no other possible hit
  /// that could compete with it, or nothing possible at all.
  bool clear() const {
    if (certain.empty()) return possible.empty();
    const auto& c = certain.front();
    for (const auto& p : possible)
      if (p.prim != c.prim && p.t - p.dt <= c.t + c.dt) return false;
    return true;
  }
};

inline oracle_result oracle(const rt::mesh& m, const dray& r) {
  oracle_result out;
  if (r.tmin > r.tmax) return out;
  for (std::size_t k = 0; k < m.triangles.size(); ++k) {
    const auto& t = m.triangles[k];
    candidate c;
    if (!moller_trumbore(r, to_d(m.vertices[std::size_t(t[0])]), to_d(m.vertices[std::size_t(t[1])]),
                         to_d(m.vertices[std::size_t(t[2])]), c))
      continue;
    c.prim = std::int32_t(k);
    const double w = 1 - c.u - c.v;
    const bool inside_sure = c.u > c.du && c.v > c.du && w > 2 * c.du;
    const bool inside_maybe = c.u >= -c.du && c.v >= -c.du && w >= -2 * c.du;
    const bool range_sure = c.t > r.tmin + c.dt && c.t < r.tmax - c.dt;
    const bool range_maybe = c.t >= r.tmin - c.dt && c.t <= r.tmax + c.dt;
    if (inside_maybe && range_maybe) out.possible.push_back(c);
    if (inside_sure && range_sure) out.certain.push_back(c);
  }
  std::sort(out.certain.begin(), out.certain.end(), [](const candidate& a, const candidate& b) { return a.t < b.t; });
  return out;
}

/// Whether a tracer's closest hit is one the oracle allows: a miss only
/// when no hit is certain; a hit on a possible triangle, with t, u and v
/// within that triangle's allowances, and no certain hit clearly closer.
inline bool acceptable(const oracle_result& o, const rt::hit& h) {
  if (h.prim < 0) return o.certain.empty();
  for (const auto& c : o.possible) {
    if (c.prim != h.prim) continue;
    if (std::abs(double(h.t) - c.t) > c.dt || std::abs(double(h.u) - c.u) > c.du ||
        std::abs(double(h.v) - c.v) > c.du)
      return false;
    for (const auto& s : o.certain)
      if (s.t + s.dt < c.t - c.dt) return false;  // something certainly nearer
    return true;
  }
  return false;
}

/// Whether a tracer's any-hit answer is allowed.
inline bool acceptable_any(const oracle_result& o, bool occluded) {
  return occluded ? !o.possible.empty() : o.certain.empty();
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

/// The packet instruction sets this build and CPU run (baseline first).
inline std::vector<rt::trace_isa> packet_isas() {
  std::vector<rt::trace_isa> out{rt::trace_isa::baseline};
  for (auto isa : {rt::trace_isa::avx2, rt::trace_isa::avx512})
    if (rt::isa_available(isa)) out.push_back(isa);
  return out;
}

}  // namespace sweep_test
