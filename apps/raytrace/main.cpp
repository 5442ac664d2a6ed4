// raytrace: renders a mesh (OBJ or OFF, or one of the scenes by name) with
// Sweep's BVH: Lambert shading, a point light with shadows, ambient
// occlusion. Prints the BVH build time and, per ray kind (primary, shadow,
// diffuse), rays, Mrays/s and packet utilisation; writes a PNG. Progress
// goes to stderr (see apps/common/console.hpp). The PNG is written to a temporary name and renamed when
// complete, so a failed run leaves no image behind. Exit status: 0 on
// success, 2 on bad arguments or input (missing or malformed mesh, bad
// resolution), 1 on other failures.
#include "console.hpp"
#include "image.hpp"
#include "startup.hpp"

#include <sweep/raytrace.hpp>
#include <sweep/raytrace/mesh_io.hpp>

#include <CLI/CLI.hpp>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <string>

namespace {

namespace rt = sweep::raytrace;

struct run_options {
  std::string scene = "bunny";
  std::string mesh_file;
  int width = 1024, height = 1024;
  int samples = 1, ao = 4;
  bool shadows = true;
  std::string mode = "auto";
  int packet = 64;
  std::string isa = "auto";
  std::filesystem::path out = "raytrace.png";
};

/// Where the named scenes live: $SWEEP_MESH_DIR, else the configured folder.
std::filesystem::path mesh_dir() {
  if (const char* env = std::getenv("SWEEP_MESH_DIR"); env && *env) return env;
  return SWEEP_MESH_DIR;
}

rt::mesh load(const run_options& o, std::string& name) {
  if (!o.mesh_file.empty()) {
    name = o.mesh_file;
    return rt::load_mesh(o.mesh_file);
  }
  name = o.scene;
  if (o.scene == "procedural") return rt::procedural_scene(4);
  static const std::map<std::string, std::string> files = {
      {"bunny", "bunny00.off"}, {"armadillo", "armadillo.off"}, {"dragon", "ChineseDragon-10kv.off"}, {"elephant", "elephant.off"}};
  return rt::load_off((mesh_dir() / files.at(o.scene)).string());
}

void write_png(const rt::render_result& r, const std::filesystem::path& path) {
  sweep_apps::image img(r.width, r.height);
  for (int y = 0; y < r.height; ++y)
    for (int x = 0; x < r.width; ++x) {
      const float* c = &r.rgb[(std::size_t(y) * r.width + x) * 3];
      // Linear to display (gamma 2.2).
      img.put(x, y, {std::pow(double(c[0]), 1 / 2.2), std::pow(double(c[1]), 1 / 2.2), std::pow(double(c[2]), 1 / 2.2)});
    }
  const auto tmp = path.string() + ".partial.png";
  img.write_png(tmp);
  std::filesystem::rename(tmp, path);
}

int run(const run_options& o, sweep_apps::console& out) {
  using clock = std::chrono::steady_clock;
  Kokkos::DefaultExecutionSpace space;
  std::string name;
  const auto m = load(o, name);
  out.note("raytrace: %s: %zu triangles (%zu degenerate skipped), %zu vertices, on %s (concurrency %d)", name.c_str(),
           m.triangles.size(), m.degenerate, m.vertices.size(), Kokkos::DefaultExecutionSpace::name(),
           space.concurrency());
  auto t0 = clock::now();
  const rt::bvh<> tree(space, m);
  space.fence();
  const double build = std::chrono::duration<double>(clock::now() - t0).count();
  out.data("bvh: %lld triangles, %lld binary nodes, %lld %d-wide nodes, depth %d, built in %.2f ms\n",
              static_cast<long long>(tree.triangle_count()), static_cast<long long>(tree.node_count()),
              static_cast<long long>(tree.wide_node_count()), rt::bvh<>::wide_width, tree.depth(), 1e3 * build);
  rt::render_options ro;
  ro.width = o.width, ro.height = o.height, ro.samples = o.samples, ro.ao_samples = o.ao, ro.shadows = o.shadows;
  ro.trace.mode = o.mode == "single" ? rt::trace_mode::single
                  : o.mode == "packet" ? rt::trace_mode::packet
                                       : rt::trace_mode::automatic;
  ro.trace.packet_size = o.packet;
  ro.trace.isa = o.isa == "baseline" ? rt::trace_isa::baseline
                 : o.isa == "avx2"   ? rt::trace_isa::avx2
                 : o.isa == "avx512" ? rt::trace_isa::avx512
                                     : rt::trace_isa::automatic;
  const auto cam = rt::camera::framing(m.bounds());
  out.status("rendering %d x %d, %d sample(s), %d AO ray(s) per hit, mode %s, packets of %d (%s lanes) ...", o.width,
             o.height, o.samples, o.ao, rt::to_string(ro.trace.mode), o.packet,
             rt::to_string(rt::packet_isa(ro.trace.isa)));
  t0 = clock::now();
  const auto r = rt::render(space, tree, cam, ro);
  const double total = std::chrono::duration<double>(clock::now() - t0).count();
  out.data("# kind rays ms Mrays/s packet_utilisation compactions single_fallbacks\n");
  for (const auto& [kind, k] : {std::pair<const char*, const rt::kind_report&>{"primary", r.primary},
                                {"shadow", r.shadow}, {"diffuse", r.diffuse}}) {
    if (k.rays == 0) continue;
    out.data("%s %llu %.2f %.2f %.3f %llu %llu\n", kind, static_cast<unsigned long long>(k.rays), 1e3 * k.seconds,
                k.mrays_per_second(), k.stats.utilisation(), static_cast<unsigned long long>(k.stats.compactions),
                static_cast<unsigned long long>(k.stats.single_fallbacks));
  }
  write_png(r, o.out);
  out.data("# summary: %s, %d x %d, %.1f ms in all, image %s\n", name.c_str(), o.width, o.height, 1e3 * total,
              o.out.string().c_str());
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  sweep_apps::startup start(argc, argv);
  run_options o;
  CLI::App app{"Sweep's BVH ray tracer: Lambert shading, shadows, ambient occlusion"};
  app.add_option("-s,--scene", o.scene, "a scene by name")
      ->check(CLI::IsMember({"bunny", "armadillo", "dragon", "elephant", "procedural"}))
      ->capture_default_str();
  app.add_option("-m,--mesh", o.mesh_file, "an .obj or .off file instead of a named scene");
  app.add_option("-W,--width", o.width, "image width")->check(CLI::Range(1, 16384))->capture_default_str();
  app.add_option("-H,--height", o.height, "image height")->check(CLI::Range(1, 16384))->capture_default_str();
  app.add_option("--samples", o.samples, "primary rays per pixel")->check(CLI::Range(1, 1024))->capture_default_str();
  app.add_option("--ao", o.ao, "ambient-occlusion rays per hit (0: none)")->check(CLI::Range(0, 256))->capture_default_str();
  app.add_flag("!--no-shadows", o.shadows, "no shadow rays");
  app.add_option("--mode", o.mode, "traversal")->check(CLI::IsMember({"single", "packet", "auto"}))->capture_default_str();
  app.add_option("--packet", o.packet, "rays per packet")->check(CLI::IsMember({8, 16, 32, 64}))->capture_default_str();
  app.add_option("--isa", o.isa, "packet lanes: auto (the widest the CPU has), baseline, avx2, avx512")
      ->check(CLI::IsMember({"auto", "baseline", "avx2", "avx512"}))
      ->capture_default_str();
  app.add_option("-o,--out", o.out, "PNG to write")->capture_default_str();
  sweep_apps::console_options co;
  if (auto status = start.parse(app, co)) return *status;
  if (auto status = start.begin()) return *status;
  sweep_apps::console out(co);
  try {
    return run(o, out);
  } catch (const std::invalid_argument& e) {
    out.clear();
    std::fprintf(stderr, "raytrace: %s\n", e.what());
    return 2;
  } catch (const std::exception& e) {
    out.clear();
    std::fprintf(stderr, "raytrace: %s\n", e.what());
    return 1;
  }
}
