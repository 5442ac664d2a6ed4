// Mesh files: OBJ through tinyobjloader (Debian libtinyobjloader-dev; link
// tinyobjloader::tinyobjloader to use this header) and OFF (mesh.hpp).
//
//   mesh load_obj(path);    // vertices and faces (polygons as fans)
//   mesh load_mesh(path);   // by extension: .obj or .off
//
// tinyobjloader reads what it cannot parse as zeros, so `v` and `f` lines
// are checked first (numbers, finite values, index ranges, at least three
// corners), and every error names the file and the line. What
// tinyobjloader returns is checked again (indices inside its vertex array,
// finite coordinates) before any index is used: its parser is not ours.
#pragma once

#include <sweep/raytrace/mesh.hpp>

#include <tiny_obj_loader.h>

#include <cmath>
#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

namespace sweep::raytrace {

namespace detail {

/// Checks the `v` and `f` lines of an OBJ file (relative and absolute
/// indices, the `v/vt/vn` forms).
inline void check_obj(const std::string& path) {
  line_reader in(path);
  std::vector<std::string_view> tok;
  std::int64_t vertices = 0;
  while (in.next(tok)) {
    if (tok[0] == "v") {
      if (tok.size() < 4) mesh_error(path, in.line(), "a vertex needs 3 coordinates, found " + std::to_string(tok.size() - 1));
      for (int k = 1; k <= 3; ++k) in.number<float>(tok[std::size_t(k)], "coordinate");
      ++vertices;
    } else if (tok[0] == "f") {
      if (tok.size() < 4) mesh_error(path, in.line(), "a face needs at least 3 vertices, found " + std::to_string(tok.size() - 1));
      for (std::size_t k = 1; k < tok.size(); ++k) {
        const auto slash = tok[k].find('/');
        const auto idx = in.number<std::int64_t>(tok[k].substr(0, slash), "vertex index");
        const std::int64_t resolved = idx < 0 ? vertices + idx : idx - 1;
        if (idx == 0 || resolved < 0 || resolved >= vertices)
          mesh_error(path, in.line(), "vertex index " + std::to_string(idx) + " out of range (" + std::to_string(vertices) +
                                          " vertices so far)");
      }
    }
  }
}

}  // namespace detail

inline mesh load_obj(const std::string& path) {
  detail::check_obj(path);
  tinyobj::attrib_t attrib;
  std::vector<tinyobj::shape_t> shapes;
  std::vector<tinyobj::material_t> materials;
  std::string warn, err;
  const auto dir = std::filesystem::path(path).parent_path().string();
  if (!tinyobj::LoadObj(&attrib, &shapes, &materials, &warn, &err, path.c_str(), dir.empty() ? nullptr : dir.c_str(),
                        false))
    detail::mesh_error(path, 0, "tinyobjloader: " + err);
  mesh m;
  for (std::size_t i = 0; i + 2 < attrib.vertices.size(); i += 3) {
    m.vertices.push_back({attrib.vertices[i], attrib.vertices[i + 1], attrib.vertices[i + 2]});
    const auto& v = m.vertices.back();
    if (!std::isfinite(v.x) || !std::isfinite(v.y) || !std::isfinite(v.z))
      detail::mesh_error(path, 0, "tinyobjloader read vertex " + std::to_string(i / 3 + 1) + " as non-finite");
  }
  const auto nv = static_cast<std::int64_t>(m.vertices.size());
  for (const auto& s : shapes) {
    for (const auto& corner : s.mesh.indices)
      if (corner.vertex_index < 0 || corner.vertex_index >= nv)
        detail::mesh_error(path, 0, "tinyobjloader read vertex index " + std::to_string(std::int64_t(corner.vertex_index) + 1) +
                                        ", out of range (" + std::to_string(nv) + " vertices)");
    std::size_t offset = 0;
    for (const auto corners : s.mesh.num_face_vertices) {
      for (std::size_t j = 1; j + 1 < corners; ++j)
        m.add_triangle(s.mesh.indices[offset].vertex_index, s.mesh.indices[offset + j].vertex_index,
                       s.mesh.indices[offset + j + 1].vertex_index);
      offset += corners;
    }
  }
  detail::check_not_empty(m, path);
  return m;
}

/// Loads an .obj or .off file.
inline mesh load_mesh(const std::string& path) {
  const auto ext = std::filesystem::path(path).extension().string();
  if (ext == ".obj" || ext == ".OBJ") return load_obj(path);
  if (ext == ".off" || ext == ".OFF") return load_off(path);
  detail::mesh_error(path, 0, "unknown mesh format '" + ext + "' (expected .obj or .off)");
}

}  // namespace sweep::raytrace
