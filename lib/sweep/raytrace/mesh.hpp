// Triangle meshes on the host: vertices and index triples, read from OFF
// files (here) or OBJ (mesh_io.hpp, through tinyobjloader), or made by
// `procedural_scene()`. Polygons are split into triangle fans. Degenerate
// triangles (a repeated vertex or zero area) are skipped and counted in
// `degenerate`. Errors (a missing file, a malformed or truncated file, an
// index out of range, a non-finite coordinate, no triangle left) throw
// std::invalid_argument naming the file and the line.
#pragma once

#include <sweep/core.hpp>
#include <sweep/raytrace/geometry.hpp>

#include <algorithm>
#include <array>
#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <fstream>
#include <numbers>
#include <sstream>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

namespace sweep::raytrace {

struct mesh {
  std::vector<vec3f> vertices;
  std::vector<std::array<std::int32_t, 3>> triangles;
  std::size_t degenerate = 0;  // triangles skipped as degenerate

  /// The box around the vertices the triangles use.
  aabb bounds() const {
    aabb b;
    for (const auto& t : triangles)
      for (auto i : t) b.grow(vertices[std::size_t(i)]);
    return b;
  }
  /// Appends a triangle unless it is degenerate (counted then).
  void add_triangle(std::int32_t a, std::int32_t b, std::int32_t c) {
    if (a == b || b == c || a == c || zero_area(vertices[std::size_t(a)], vertices[std::size_t(b)], vertices[std::size_t(c)])) {
      ++degenerate;
      return;
    }
    triangles.push_back({a, b, c});
  }
  /// Appends another mesh (vertices renumbered).
  void append(const mesh& other) {
    const auto base = std::int32_t(vertices.size());
    vertices.insert(vertices.end(), other.vertices.begin(), other.vertices.end());
    for (const auto& t : other.triangles) triangles.push_back({t[0] + base, t[1] + base, t[2] + base});
    degenerate += other.degenerate;
  }

 private:
  static bool zero_area(vec3f a, vec3f b, vec3f c) {
    const double ux = double(b.x) - a.x, uy = double(b.y) - a.y, uz = double(b.z) - a.z;
    const double vx = double(c.x) - a.x, vy = double(c.y) - a.y, vz = double(c.z) - a.z;
    const double nx = uy * vz - uz * vy, ny = uz * vx - ux * vz, nz = ux * vy - uy * vx;
    return nx == 0 && ny == 0 && nz == 0;
  }
};

namespace detail {

[[noreturn]] inline void mesh_error(const std::string& path, std::size_t line, const std::string& what) {
  throw std::invalid_argument("sweep::raytrace::load_mesh: " + path + (line ? ":" + std::to_string(line) : "") +
                              ": " + what);
}

/// Lines of a text file with their numbers, '#' comments and blank lines
/// skipped. A line ends at "\n", "\r\n" or a lone "\r", as tinyobjloader
/// splits them, so the OBJ checks see the lines tinyobjloader parses.
class line_reader {
 public:
  explicit line_reader(const std::string& path) : m_path(path) {
    std::ifstream in(path, std::ios::binary);
    if (!in) mesh_error(path, 0, "cannot open (" + std::string(std::strerror(errno)) + ")");
    std::ostringstream all;
    all << in.rdbuf();
    m_text = std::move(all).str();
  }
  /// The next non-empty line's tokens; false at the end.
  bool next(std::vector<std::string_view>& tokens) {
    while (m_pos < m_text.size()) {
      const std::size_t end = std::min(m_text.find_first_of("\r\n", m_pos), m_text.size());
      std::string_view s(m_text.data() + m_pos, end - m_pos);
      m_pos = end + 1;
      if (end < m_text.size() && m_text[end] == '\r' && m_pos < m_text.size() && m_text[m_pos] == '\n') ++m_pos;
      ++m_number;
      const auto hash = s.find('#');
      if (hash != std::string_view::npos) s = s.substr(0, hash);
      tokens.clear();
      std::size_t i = 0;
      while (i < s.size()) {
        while (i < s.size() && (s[i] == ' ' || s[i] == '\t')) ++i;
        const std::size_t j = i;
        while (i < s.size() && s[i] != ' ' && s[i] != '\t') ++i;
        if (i > j) tokens.push_back(s.substr(j, i - j));
      }
      if (!tokens.empty()) return true;
    }
    return false;
  }
  std::size_t line() const { return m_number; }
  const std::string& path() const { return m_path; }
  template <class T>
  T number(std::string_view token, const char* what) const {
    T v{};
    const auto [end, ec] = std::from_chars(token.data(), token.data() + token.size(), v);
    if (ec != std::errc() || end != token.data() + token.size())
      mesh_error(m_path, m_number, std::string(what) + " '" + std::string(token) + "' is not a number");
    if constexpr (std::is_floating_point_v<T>)
      if (!std::isfinite(v)) mesh_error(m_path, m_number, std::string(what) + " '" + std::string(token) + "' is not finite");
    return v;
  }

 private:
  std::string m_path;
  std::string m_text;
  std::size_t m_pos = 0;
  std::size_t m_number = 0;
};

inline void check_not_empty(const mesh& m, const std::string& path) {
  if (m.triangles.empty())
    mesh_error(path, 0, "no triangles" + (m.degenerate ? " (" + std::to_string(m.degenerate) + " degenerate ones skipped)"
                                                       : std::string()));
}

}  // namespace detail

/// Reads an OFF file: "OFF", the counts "V F E", V lines "x y z", F lines
/// "k i0 .. ik-1" (polygons become fans).
inline mesh load_off(const std::string& path) {
  detail::line_reader in(path);
  std::vector<std::string_view> tok;
  if (!in.next(tok)) detail::mesh_error(path, 0, "empty file (expected the OFF header)");
  std::size_t first = 0;
  if (tok[0].substr(0, 3) != "OFF") detail::mesh_error(path, in.line(), "expected 'OFF', found '" + std::string(tok[0]) + "'");
  if (tok[0] != "OFF") detail::mesh_error(path, in.line(), "unsupported OFF variant '" + std::string(tok[0]) + "'");
  first = 1;
  if (tok.size() == first) {
    if (!in.next(tok)) detail::mesh_error(path, in.line(), "truncated: the vertex and face counts are missing");
    first = 0;
  }
  if (tok.size() < first + 2) detail::mesh_error(path, in.line(), "expected the counts 'vertices faces [edges]'");
  const auto nv = in.number<std::int64_t>(tok[first], "vertex count");
  const auto nf = in.number<std::int64_t>(tok[first + 1], "face count");
  if (nv < 0 || nf < 0 || nv >= (std::int64_t(1) << 31))
    detail::mesh_error(path, in.line(), "counts out of range (" + std::to_string(nv) + " vertices, " + std::to_string(nf) + " faces)");
  mesh m;
  // The header's count is only a claim until the lines are there: reserve
  // no more than a small file could hold, so a short file that declares
  // 2^31 vertices is refused as truncated instead of allocating 24 GiB.
  m.vertices.reserve(std::size_t(std::min<std::int64_t>(nv, std::int64_t(1) << 16)));
  for (std::int64_t i = 0; i < nv; ++i) {
    if (!in.next(tok))
      detail::mesh_error(path, in.line(), "truncated: " + std::to_string(nv) + " vertices declared, the file ends after " +
                                              std::to_string(i));
    if (tok.size() < 3) detail::mesh_error(path, in.line(), "a vertex needs 3 coordinates, found " + std::to_string(tok.size()));
    m.vertices.push_back({in.number<float>(tok[0], "coordinate"), in.number<float>(tok[1], "coordinate"),
                          in.number<float>(tok[2], "coordinate")});
  }
  for (std::int64_t f = 0; f < nf; ++f) {
    if (!in.next(tok))
      detail::mesh_error(path, in.line(), "truncated: " + std::to_string(nf) + " faces declared, the file ends after " +
                                              std::to_string(f));
    const auto k = in.number<std::int64_t>(tok[0], "face size");
    if (k < 3 || k > std::int64_t(tok.size()) - 1)
      detail::mesh_error(path, in.line(), "a face needs its size (>= 3) and that many vertex indices");
    std::vector<std::int32_t> idx(static_cast<std::size_t>(k));
    for (std::int64_t j = 0; j < k; ++j) {
      const auto v = in.number<std::int64_t>(tok[std::size_t(j + 1)], "vertex index");
      if (v < 0 || v >= nv)
        detail::mesh_error(path, in.line(), "vertex index " + std::to_string(v) + " out of range [0, " + std::to_string(nv) + ")");
      idx[std::size_t(j)] = std::int32_t(v);
    }
    for (std::size_t j = 1; j + 1 < idx.size(); ++j) m.add_triangle(idx[0], idx[j], idx[j + 1]);
  }
  detail::check_not_empty(m, path);
  return m;
}

/// A scene made in code (no files): a ground plane, five spheres of
/// different sizes and a box; about 6,000 triangles at `detail` 3.
inline mesh procedural_scene(int detail = 3) {
  sweep::detail::require(detail >= 0 && detail <= 7, "sweep::raytrace::procedural_scene", "detail = ", detail,
                         " must be in [0, 7]");
  mesh scene;
  auto add_quad = [](mesh& m, vec3f a, vec3f b, vec3f c, vec3f d) {
    const auto base = std::int32_t(m.vertices.size());
    m.vertices.insert(m.vertices.end(), {a, b, c, d});
    m.add_triangle(base, base + 1, base + 2);
    m.add_triangle(base, base + 2, base + 3);
  };
  add_quad(scene, {-6, 0, -6}, {-6, 0, 6}, {6, 0, 6}, {6, 0, -6});
  // Icospheres: an icosahedron subdivided `detail` times.
  auto sphere = [&](vec3f c, float r) {
    mesh s;
    const float p = float((1.0 + std::sqrt(5.0)) / 2.0);
    const vec3f v[12] = {{-1, p, 0}, {1, p, 0}, {-1, -p, 0}, {1, -p, 0}, {0, -1, p}, {0, 1, p},
                         {0, -1, -p}, {0, 1, -p}, {p, 0, -1}, {p, 0, 1}, {-p, 0, -1}, {-p, 0, 1}};
    std::vector<std::array<std::int32_t, 3>> faces = {{0, 11, 5}, {0, 5, 1}, {0, 1, 7}, {0, 7, 10}, {0, 10, 11},
                                                      {1, 5, 9}, {5, 11, 4}, {11, 10, 2}, {10, 7, 6}, {7, 1, 8},
                                                      {3, 9, 4}, {3, 4, 2}, {3, 2, 6}, {3, 6, 8}, {3, 8, 9},
                                                      {4, 9, 5}, {2, 4, 11}, {6, 2, 10}, {8, 6, 7}, {9, 8, 1}};
    for (auto q : v) s.vertices.push_back(normalize(q));
    for (int d = 0; d < detail; ++d) {
      std::vector<std::array<std::int32_t, 3>> next;
      for (const auto& f : faces) {
        std::int32_t mid[3];
        for (int e = 0; e < 3; ++e) {
          s.vertices.push_back(normalize(0.5f * (s.vertices[std::size_t(f[e])] + s.vertices[std::size_t(f[(e + 1) % 3])])));
          mid[e] = std::int32_t(s.vertices.size() - 1);
        }
        next.push_back({f[0], mid[0], mid[2]});
        next.push_back({f[1], mid[1], mid[0]});
        next.push_back({f[2], mid[2], mid[1]});
        next.push_back({mid[0], mid[1], mid[2]});
      }
      faces = std::move(next);
    }
    for (auto& q : s.vertices) q = c + r * q;
    for (const auto& f : faces) s.add_triangle(f[0], f[1], f[2]);
    scene.append(s);
  };
  sphere({0, 1, 0}, 1.0f);
  sphere({-2.5f, 0.6f, 1.0f}, 0.6f);
  sphere({2.2f, 0.8f, -0.8f}, 0.8f);
  sphere({1.0f, 0.35f, 2.2f}, 0.35f);
  sphere({-1.2f, 0.45f, -2.4f}, 0.45f);
  // A box standing on the ground.
  const vec3f lo{-3.6f, 0, -2.0f}, hi{-2.4f, 1.6f, -0.8f};
  mesh box;
  add_quad(box, {lo.x, lo.y, lo.z}, {hi.x, lo.y, lo.z}, {hi.x, hi.y, lo.z}, {lo.x, hi.y, lo.z});
  add_quad(box, {lo.x, lo.y, hi.z}, {lo.x, hi.y, hi.z}, {hi.x, hi.y, hi.z}, {hi.x, lo.y, hi.z});
  add_quad(box, {lo.x, lo.y, lo.z}, {lo.x, hi.y, lo.z}, {lo.x, hi.y, hi.z}, {lo.x, lo.y, hi.z});
  add_quad(box, {hi.x, lo.y, lo.z}, {hi.x, lo.y, hi.z}, {hi.x, hi.y, hi.z}, {hi.x, hi.y, lo.z});
  add_quad(box, {lo.x, hi.y, lo.z}, {hi.x, hi.y, lo.z}, {hi.x, hi.y, hi.z}, {lo.x, hi.y, hi.z});
  scene.append(box);
  return scene;
}

}  // namespace sweep::raytrace
