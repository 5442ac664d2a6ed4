// The ray tracer on whole scenes: OFF/OBJ loading and its errors (file and
// line), degenerate triangles skipped and counted; packets equal single
// rays on the real meshes; a small render equals a brute-force render;
// bad input refused.
#include <sweep/raytrace.hpp>
#include <sweep/raytrace/mesh_io.hpp>

#include "raytrace_reference.hpp"
#include "test_support.hpp"

#include <cmath>
#include <filesystem>
#include <fstream>
#include <string>

using namespace sweep_test;

TEST_CASE("OFF and OBJ files load; polygons become fans; degenerate triangles are skipped and counted") {
  scratch_dir s("sweep-raytrace-scenes");
  const auto off = s.write("quad.off", "OFF\n# a quad, a degenerate triangle and a sliver of zero area\n6 3 0\n"
                                       "0 0 0\n1 0 0\n1 1 0\n0 1 0\n2 0 0\n3 0 0\n4 0 1 2 3\n3 0 0 1\n3 0 4 5\n");
  const auto m = rt::load_off(off);
  CHECK(m.triangles.size() == 2);
  CHECK(m.degenerate == 2);
  const auto obj = s.write("quad.obj", "# quad\nv 0 0 0\nv 1 0 0\nv 1 1 0\nv 0 1 0\nf 1 2 3 4\nf -4 -3 -2\n");
  const auto o = rt::load_mesh(obj);
  CHECK(o.triangles.size() == 3);
  CHECK(o.vertices.size() == 4);
  CHECK(o.degenerate == 0);
  CHECK(rt::load_mesh(off).triangles.size() == 2);
}

TEST_CASE("malformed mesh files name the file and the line") {
  scratch_dir s("sweep-raytrace-scenes");
  CHECK(contains(thrown([&] { rt::load_mesh((s.path / "missing.off").string()); }), "missing.off: cannot open"));
  CHECK(thrown([&] { rt::load_mesh(s.write("a.ply", "ply\n")); }) ==
        "sweep::raytrace::load_mesh: " + (s.path / "a.ply").string() + ": unknown mesh format '.ply' (expected .obj or .off)");
  const auto bad_header = s.write("h.off", "OFX\n3 1 0\n");
  CHECK(thrown([&] { rt::load_off(bad_header); }) == "sweep::raytrace::load_mesh: " + bad_header + ":1: expected 'OFF', found 'OFX'");
  const auto bad_number = s.write("n.off", "OFF\n3 1 0\n0 0 0\n1 x 0\n0 1 0\n3 0 1 2\n");
  CHECK(thrown([&] { rt::load_off(bad_number); }) == "sweep::raytrace::load_mesh: " + bad_number + ":4: coordinate 'x' is not a number");
  const auto nan = s.write("nan.off", "OFF\n3 1 0\n0 0 0\n1 nan 0\n0 1 0\n3 0 1 2\n");
  CHECK(contains(thrown([&] { rt::load_off(nan); }), "nan.off:4: coordinate 'nan' is not finite"));
  const auto range = s.write("r.off", "OFF\n3 1 0\n0 0 0\n1 0 0\n0 1 0\n3 0 1 7\n");
  CHECK(thrown([&] { rt::load_off(range); }) == "sweep::raytrace::load_mesh: " + range + ":6: vertex index 7 out of range [0, 3)");
  const auto truncated = s.write("t.off", "OFF\n4 2 0\n0 0 0\n1 0 0\n0 1 0\n");
  CHECK(contains(thrown([&] { rt::load_off(truncated); }), "t.off:5: truncated: 4 vertices declared, the file ends after 3"));
  const auto empty = s.write("e.off", "OFF\n3 1 0\n0 0 0\n1 0 0\n2 0 0\n3 0 1 2\n");
  CHECK(contains(thrown([&] { rt::load_off(empty); }), "e.off: no triangles (1 degenerate ones skipped)"));
  // Found by fuzzing: a huge declared count was reserved before any line
  // was read (out of memory), and a face size of 2^63 - 1 overflowed the
  // size check (undefined behaviour, then a huge allocation).
  const auto huge = s.write("big.off", "OFF\n2147483647 1 0\n0 0 0\n");
  CHECK(contains(thrown([&] { rt::load_off(huge); }), "big.off:3: truncated: 2147483647 vertices declared, the file ends after 1"));
  const auto wide = s.write("k.off", "OFF\n3 1 0\n0 0 0\n1 0 0\n0 1 0\n9223372036854775807 0 1 2\n");
  CHECK(thrown([&] { rt::load_off(wide); }) ==
        "sweep::raytrace::load_mesh: " + wide + ":6: a face needs its size (>= 3) and that many vertex indices");
  const auto obj_range = s.write("r.obj", "v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 3\nf 1 2 9\n");
  CHECK(thrown([&] { rt::load_obj(obj_range); }) ==
        "sweep::raytrace::load_mesh: " + obj_range + ":5: vertex index 9 out of range (3 vertices so far)");
  // Found by fuzzing: tinyobjloader ends lines at a lone '\r', the checks
  // did not, so an index out of range on such a line reached the mesh (a
  // read past the vertex array). Both now split lines the same way.
  const auto obj_cr = s.write("cr.obj", "v 0 0 0\rv 1 0 0\rv 0 1 0\rf 1 2 9\r");
  CHECK(thrown([&] { rt::load_obj(obj_cr); }) ==
        "sweep::raytrace::load_mesh: " + obj_cr + ":4: vertex index 9 out of range (3 vertices so far)");
  const auto obj_cr_nan = s.write("crn.obj", "v 0 0 0\rv 1 nan 0\rv 0 1 0\rf 1 2 3\r");
  CHECK(contains(thrown([&] { rt::load_obj(obj_cr_nan); }), "crn.obj:2: coordinate 'nan' is not finite"));
  const auto cr_ok = rt::load_obj(s.write("ok.obj", "v 0 0 0\rv 1 0 0\r\nv 0 1 0\nf 1 2 3\r"));
  CHECK(cr_ok.vertices.size() == 3);
  CHECK(cr_ok.triangles.size() == 1);
  const auto obj_number = s.write("n.obj", "v 0 0 0\nv 1 zero 0\n");
  CHECK(contains(thrown([&] { rt::load_obj(obj_number); }), "n.obj:2: coordinate 'zero' is not a number"));
  const auto obj_empty = s.write("e.obj", "# nothing\nv 0 0 0\n");
  CHECK(contains(thrown([&] { rt::load_obj(obj_empty); }), "e.obj: no triangles"));
}

TEST_CASE_TEMPLATE("bad trace and render arguments are refused before anything runs", Space, SWEEP_TEST_SPACES) {
  Space space;
  const auto m = rt::procedural_scene(1);
  const rt::bvh<Space> tree(space, m);
  Kokkos::View<rt::ray*, typename Space::memory_space> rays("rays", 10);
  Kokkos::View<rt::hit*, typename Space::memory_space> few("hits", 5);
  CHECK(thrown([&] { rt::intersect(space, tree, rays, few); }) ==
        "sweep::raytrace::intersect: the result View has 5 entries for 10 rays");
  Kokkos::View<rt::hit*, typename Space::memory_space> hits("hits", 10);
  CHECK(thrown([&] { rt::intersect(space, tree, rays, hits, {rt::trace_mode::packet, 12, 0.5f, 2}); }) ==
        "sweep::raytrace::intersect: packet_size = 12 must be 0 (the space's default), 8, 16, 32 or 64");
  CHECK(contains(thrown([&] { rt::intersect(space, tree, rays, hits, {rt::trace_mode::automatic, 64, 1.5f, 2}); }),
            "compact_below = 1.5 must be in [0, 1]"));
  for (const auto& [isa, lacks] : {std::pair<rt::trace_isa, std::string>{rt::trace_isa::avx2, "AVX2"},
                                   {rt::trace_isa::avx512, "AVX-512F"}}) {
    const rt::trace_options wide{rt::trace_mode::packet, 64, 0.5f, 2, isa};
    if (rt::isa_available(isa))
      CHECK_NOTHROW(rt::intersect(space, tree, rays, hits, wide));
    else
      CHECK(thrown([&] { rt::intersect(space, tree, rays, hits, wide); }) ==
            "sweep::raytrace::intersect: isa = " + std::string(rt::to_string(isa)) +
                " is not available: this build or this CPU lacks " + lacks);
    CHECK(rt::packet_isa(isa) == isa);
  }
  // A CPU with AVX-512F has AVX2: the levels are nested.
  CHECK((!rt::isa_available(rt::trace_isa::avx512) || rt::isa_available(rt::trace_isa::avx2)));
  CHECK(rt::isa_available(rt::trace_isa::baseline));
  CHECK(rt::isa_available(rt::trace_isa::automatic));
  CHECK(rt::packet_isa(rt::trace_isa::baseline) == rt::trace_isa::baseline);
  CHECK(rt::packet_isa(rt::trace_isa::automatic) ==
        (rt::isa_available(rt::trace_isa::avx512) ? rt::trace_isa::avx512
         : rt::isa_available(rt::trace_isa::avx2) ? rt::trace_isa::avx2
                                                   : rt::trace_isa::baseline));
  rt::render_options o;
  o.width = 0;
  CHECK(thrown([&] { rt::render(space, tree, rt::camera::framing(m.bounds()), o); }) ==
        "sweep::raytrace::primary_rays: resolution 0 x 512 must be between 1 x 1 and 65536 x 65536");
  CHECK(thrown([&] { rt::bvh<Space> t(space, rt::mesh{}); }) == "sweep::raytrace::bvh: the mesh has no triangles");
  rt::bvh_options bad;
  bad.bins = 1;
  CHECK(thrown([&] { rt::bvh<Space> t(space, m, bad); }) == "sweep::raytrace::bvh: bins = 1 must be in [2, 32]");
}

TEST_CASE_TEMPLATE("a small render equals a brute-force render of the same rays", Space, SWEEP_TEST_SPACES) {
  Space space;
  const auto m = rt::procedural_scene(1);
  const rt::bvh<Space> tree(space, m);
  const auto cam = rt::camera::framing(m.bounds(), {0.3f, 0.5f, 1.0f});
  rt::render_options o;
  o.width = 48, o.height = 32, o.samples = 2, o.ao_samples = 3;
  for (auto mode : {rt::trace_mode::single, rt::trace_mode::packet, rt::trace_mode::automatic}) {
    CAPTURE(std::string(rt::to_string(mode)));
    o.trace.mode = mode;
    const auto img = rt::render(space, tree, cam, o);
    REQUIRE(img.rgb.size() == 48u * 32u * 3u);
    // The reference: the renderer's own rays, every hit by brute force,
    // shaded by the same rules.
    const auto primary = to_host(rt::primary_rays(space, cam, 48, 32, 2, rt::resolved_packet_size<Space>(o.trace)));
    std::vector<rt::hit> hits(primary.size());
    for (std::size_t i = 0; i < primary.size(); ++i) hits[i] = brute_force(m, primary[i]);
    const auto d_hits = to_device<Space>(hits);
    const auto d_primary = to_device<Space>(primary);
    const auto light = rt::default_light(cam, tree.bounds());
    const auto shadows = to_host(rt::shadow_rays(space, tree, d_primary, d_hits, light));
    const auto bounces = to_host(rt::diffuse_rays(space, tree, d_primary, d_hits, 3, rt::default_ao_radius(tree.bounds())));
    const auto tl = rt::detail::make_tiling(48, 32, 2, rt::resolved_packet_size<Space>(o.trace));
    double worst = 0;
    for (int y = 0; y < 32; ++y)
      for (int x = 0; x < 48; ++x) {
        double c[3] = {0, 0, 0};
        for (int smp = 0; smp < 2; ++smp) {
          const auto i = std::size_t(tl.ray(x, y, smp));
          const rt::vec3f dir = rt::normalize(primary[i].dir);
          if (hits[i].prim < 0) {
            const double sky = 0.5 * (double(dir.y) + 1.0);
            c[0] += 0.85 - 0.35 * sky, c[1] += 0.88 - 0.25 * sky, c[2] += 0.95 - 0.05 * sky;
            continue;
          }
          const auto& t = m.triangles[std::size_t(hits[i].prim)];
          const rt::vec3f a = m.vertices[std::size_t(t[0])], b = m.vertices[std::size_t(t[1])], cc = m.vertices[std::size_t(t[2])];
          rt::vec3f n = rt::normalize(rt::cross(b - a, cc - a));
          if (rt::dot(n, dir) > 0) n = -1.0f * n;
          const rt::vec3f p = primary[i].org + hits[i].t * primary[i].dir;
          double direct = std::max(0.0, double(rt::dot(n, rt::normalize(light - p))));
          if (brute_force(m, shadows[i], true).prim >= 0) direct = 0;
          int blocked = 0;
          for (int k = 0; k < 3; ++k) blocked += brute_force(m, bounces[i * 3 + std::size_t(k)], true).prim >= 0;
          const double amount = 0.75 * direct + 0.3 * (1.0 - blocked / 3.0);
          c[0] += 0.85 * amount, c[1] += 0.80 * amount, c[2] += 0.72 * amount;
        }
        for (int k = 0; k < 3; ++k)
          worst = std::max(worst, std::abs(c[k] / 2 - double(img.rgb[(std::size_t(y) * 48 + std::size_t(x)) * 3 + std::size_t(k)])));
      }
    CHECK(worst < 1e-5);
    CHECK(img.primary.rays == 48u * 32u * 2u);
    CHECK(img.shadow.rays > 0);
    CHECK(img.diffuse.rays > 0);
  }
}

#if defined(SWEEP_TEST_MESH_DIR)
TEST_CASE_TEMPLATE("on the real meshes, packets of every size equal single rays", Space, SWEEP_TEST_SPACES) {
  Space space;
  for (const char* file : {"bunny00.off", "ChineseDragon-10kv.off"}) {
    CAPTURE(file);
    const auto m = rt::load_off((std::filesystem::path(SWEEP_TEST_MESH_DIR) / file).string());
    const rt::bvh<Space> tree(space, m);
    const auto cam = rt::camera::framing(m.bounds());
    const auto primary = rt::primary_rays(space, cam, 256, 256, 1, 64);
    Kokkos::View<rt::hit*, typename Space::memory_space> ref("ref", primary.extent(0)), got("got", primary.extent(0));
    rt::intersect(space, tree, primary, ref, {rt::trace_mode::single, 64, 0.5f, 2});
    const auto r = to_host(ref);
    std::size_t hit_count = 0;
    for (const auto& h : r) hit_count += h.prim >= 0;
    CHECK(hit_count > r.size() / 10);
    const auto shadows = rt::shadow_rays(space, tree, primary, ref, rt::default_light(cam, tree.bounds()));
    const auto bounces = rt::diffuse_rays(space, tree, primary, ref, 2, rt::default_ao_radius(tree.bounds()));
    Kokkos::View<int*, typename Space::memory_space> occ_ref("occ_ref", bounces.extent(0)), occ("occ", bounces.extent(0));
    rt::occluded(space, tree, bounces, occ_ref, {rt::trace_mode::single, 64, 0.5f, 2});
    Kokkos::View<int*, typename Space::memory_space> sh_ref("sh_ref", shadows.extent(0)), sh("sh", shadows.extent(0));
    rt::occluded(space, tree, shadows, sh_ref, {rt::trace_mode::single, 64, 0.5f, 2});
    for (int size : {8, 16, 32, 64})
      for (auto mode : {rt::trace_mode::packet, rt::trace_mode::automatic}) {
        CAPTURE(size);
        CAPTURE(std::string(rt::to_string(mode)));
        rt::intersect(space, tree, primary, got, {mode, size, 0.5f, 2});
        const auto g = to_host(got);
        std::size_t diff = 0;
        for (std::size_t i = 0; i < r.size(); ++i)
          diff += g[i].prim != r[i].prim || (r[i].prim >= 0 && (g[i].t != r[i].t || g[i].u != r[i].u));
        CHECK(diff == 0);
        rt::occluded(space, tree, bounces, occ, {mode, size, 0.5f, 2});
        CHECK(to_host(occ) == to_host(occ_ref));
        rt::occluded(space, tree, shadows, sh, {mode, size, 0.5f, 2});
        CHECK(to_host(sh) == to_host(sh_ref));
      }
  }
}
#endif

TEST_CASE_TEMPLATE("the README example runs as written", Space, SWEEP_TEST_SPACES) {
  Space space;
  scratch_dir dir("sweep-raytrace-readme");
  const std::string mesh_dir = dir.path.string();
  rt::mesh bunny = rt::procedural_scene(2);  // a stand-in written as an OFF file
  {
    std::ofstream off(mesh_dir + "/bunny00.off");
    off << "OFF\n" << bunny.vertices.size() << " " << bunny.triangles.size() << " 0\n";
    for (const auto& v : bunny.vertices) off << v.x << " " << v.y << " " << v.z << "\n";
    for (const auto& t : bunny.triangles) off << "3 " << t[0] << " " << t[1] << " " << t[2] << "\n";
  }
  // --- as in README.md
  namespace rt = sweep::raytrace;
  rt::mesh m = rt::load_off(mesh_dir + "/bunny00.off");   // or rt::load_mesh("x.obj") (<sweep/raytrace/mesh_io.hpp>), rt::procedural_scene()
  rt::bvh<Space> tree(space, m);                           // binned SAH, binary + wide
  auto cam = rt::camera::framing(m.bounds());
  auto rays = rt::primary_rays(space, cam, 256, 256, 1, 64);             // 8 x 8 tiles, one packet each
  Kokkos::View<rt::hit*, typename Space::memory_space> hits("hits", rays.extent(0));
  rt::trace_stats st = rt::intersect(space, tree, rays, hits, {rt::trace_mode::packet, 64});
  std::printf("packet utilisation %.2f\n", st.utilisation());           // active lanes / lanes
  rt::render_options o;                                    // 512 x 512, 1 sample, 4 AO rays, shadows
  rt::render_result img = rt::render(space, tree, cam, o); // img.rgb, img.primary.mrays_per_second(), ...
  // ---
  CHECK(m.triangles.size() == bunny.triangles.size());
  CHECK(st.utilisation() > 0);
  CHECK(img.rgb.size() == 512u * 512u * 3u);
  CHECK(img.primary.rays == 512u * 512u);
  CHECK(img.primary.mrays_per_second() > 0);
}
