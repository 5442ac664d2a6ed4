// libFuzzer target: sweep::raytrace::load_mesh on arbitrary bytes, built as
// fuzz_mesh_off (the input is an .off file) and fuzz_mesh_obj
// (SWEEP_FUZZ_OBJ: an .obj file through tinyobjloader). A rejected file
// must throw std::invalid_argument; an accepted mesh must have triangles,
// every index inside the vertex array, no repeated corner, and finite
// coordinates.
#include "fuzz_support.hpp"

#ifdef SWEEP_FUZZ_OBJ
#include <sweep/raytrace/mesh_io.hpp>
#else
#include <sweep/raytrace/mesh.hpp>
#endif

#include <cmath>
#include <stdexcept>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
#ifdef SWEEP_FUZZ_OBJ
  static const std::string path = sweep_fuzz::scratch_file(".obj");
#else
  static const std::string path = sweep_fuzz::scratch_file(".off");
#endif
  sweep_fuzz::write_file(path, data, size);
  sweep::raytrace::mesh m;
  try {
#ifdef SWEEP_FUZZ_OBJ
    m = sweep::raytrace::load_mesh(path);
#else
    m = sweep::raytrace::load_off(path);
#endif
  } catch (const std::invalid_argument&) {
    return 0;
  }
  SWEEP_FUZZ_CHECK(!m.triangles.empty());
  const auto nv = static_cast<std::int64_t>(m.vertices.size());
  for (const auto& t : m.triangles) {
    for (auto i : t) SWEEP_FUZZ_CHECK(i >= 0 && i < nv);
    SWEEP_FUZZ_CHECK(t[0] != t[1] && t[1] != t[2] && t[0] != t[2]);
  }
  for (const auto& v : m.vertices) SWEEP_FUZZ_CHECK(std::isfinite(v.x) && std::isfinite(v.y) && std::isfinite(v.z));
  return 0;
}
