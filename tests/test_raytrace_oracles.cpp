// The ray tracer against an independent oracle: Moller-Trumbore in double
// precision on every triangle (raytrace_reference.hpp), not the library's
// watertight test or tie rule. Closest hits (primitive, t, u, v) and any-hit
// answers in every mode must be ones the oracle allows, and equal its
// answer wherever that answer is clear; a render equals the shading of
// camera rays this test builds itself from the pinhole model.
#include <sweep/raytrace.hpp>

#include "raytrace_reference.hpp"
#include "test_support.hpp"

#include <cmath>
#include <string>
#include <vector>

using namespace sweep_test;

namespace {

template <class Space>
std::vector<rt::hit> trace_hits(const rt::bvh<Space>& tree, const std::vector<rt::ray>& rays, rt::trace_options opt) {
  auto d_rays = to_device<Space>(rays);
  Kokkos::View<rt::hit*, typename Space::memory_space> hits("hits", rays.size());
  rt::intersect(Space(), tree, d_rays, hits, opt);
  return to_host(hits);
}

template <class Space>
std::vector<int> trace_occluded(const rt::bvh<Space>& tree, const std::vector<rt::ray>& rays, rt::trace_options opt) {
  auto d_rays = to_device<Space>(rays);
  Kokkos::View<int*, typename Space::memory_space> flags("flags", rays.size());
  rt::occluded(Space(), tree, d_rays, flags, opt);
  return to_host(flags);
}

std::vector<rt::trace_options> modes() {
  std::vector<rt::trace_options> out;
  for (auto isa : packet_isas()) out.push_back({rt::trace_mode::single, 64, 0.5f, 2, isa});
  for (auto isa : packet_isas())
    for (int size : {8, 64}) {
      out.push_back({rt::trace_mode::packet, size, 0.5f, 2, isa});
      out.push_back({rt::trace_mode::automatic, size, 0.5f, 2, isa});
    }
  return out;
}

}  // namespace

TEST_CASE_TEMPLATE("closest and any hits in every mode agree with a double-precision Moller-Trumbore oracle", Space,
                   SWEEP_TEST_SPACES) {
  for (const auto& [triangles, size] : {std::pair<std::size_t, float>{1, 0.5f}, {40, 0.3f}, {2000, 0.05f}}) {
    const auto m = random_soup(triangles, size, 300 + triangles);
    CAPTURE(m.triangles.size());
    const rt::bvh<Space> tree(Space(), m);
    const auto rays = random_rays(m, 2000, 31 + triangles);
    std::vector<oracle_result> ref(rays.size());
    std::size_t clear = 0, clear_hits = 0;
    for (std::size_t i = 0; i < rays.size(); ++i) {
      ref[i] = oracle(m, to_d(rays[i]));
      clear += ref[i].clear();
      clear_hits += ref[i].clear() && !ref[i].certain.empty();
    }
    MESSAGE(m.triangles.size(), " triangles: ", clear, " of ", rays.size(), " rays have one clear answer, ", clear_hits,
            " of them a hit");
    // Most rays are clear (the rest aim at edges and vertices on purpose),
    // and many clear rays hit: the comparison below has teeth.
    CHECK(clear >= rays.size() * 6 / 10);
    CHECK(clear_hits >= rays.size() / 100);
    for (const auto& opt : modes()) {
      CAPTURE(std::string(rt::to_string(opt.mode)));
      CAPTURE(std::string(rt::to_string(opt.isa)));
      CAPTURE(opt.packet_size);
      const auto got = trace_hits(tree, rays, opt);
      const auto any = trace_occluded(tree, rays, opt);
      std::size_t refused = 0, different = 0, refused_any = 0;
      double used = 0;  // the largest error of a clear hit / its allowance
      for (std::size_t i = 0; i < rays.size(); ++i) {
        refused += !acceptable(ref[i], got[i]);
        refused_any += !acceptable_any(ref[i], any[i] != 0);
        if (ref[i].clear()) {
          const std::int32_t want = ref[i].certain.empty() ? -1 : ref[i].certain.front().prim;
          different += got[i].prim != want;
          if (want >= 0 && got[i].prim == want) {
            const auto& c = ref[i].certain.front();
            used = std::max({used, std::abs(double(got[i].t) - c.t) / c.dt, std::abs(double(got[i].u) - c.u) / c.du,
                             std::abs(double(got[i].v) - c.v) / c.du});
          }
        }
      }
      INFO("largest error / allowance on clear hits " << used);
      CHECK(refused == 0);
      CHECK(different == 0);
      if (opt.mode == rt::trace_mode::single && opt.isa == rt::trace_isa::baseline) MESSAGE("largest error / allowance on clear hits: ", used);
      CHECK(refused_any == 0);
    }
  }
}

TEST_CASE("the oracle's allowances are tight: t, u and v of clear hits within a few float ulps of the scene") {
  // A guard on the guard: were the allowances loose, a tracer with u and v
  // exchanged or t off by a part in 1e4 would pass. On clear hits of a
  // scene of unit size they are below 2e-5 for half of them and below
  // 1e-4 for nine in ten.
  const auto m = random_soup(300, 0.2f, 41);
  const auto rays = random_rays(m, 2000, 42);
  std::vector<double> du, dt;
  for (const auto& r : rays) {
    const auto o = oracle(m, to_d(r));
    if (o.clear() && !o.certain.empty()) du.push_back(o.certain.front().du), dt.push_back(o.certain.front().dt);
  }
  REQUIRE(du.size() > 100);
  std::sort(du.begin(), du.end());
  std::sort(dt.begin(), dt.end());
  MESSAGE("allowances on clear hits, median and 90%: u, v ", du[du.size() / 2], ", ", du[du.size() * 9 / 10], "; t ",
          dt[dt.size() / 2], ", ", dt[dt.size() * 9 / 10]);
  CHECK(du[du.size() / 2] < 2e-5);
  CHECK(dt[dt.size() / 2] < 2e-5);
  CHECK(du[du.size() * 9 / 10] < 1e-4);
  CHECK(dt[dt.size() * 9 / 10] < 1e-4);
}

TEST_CASE_TEMPLATE("a render equals the shading of camera rays built by the test", Space, SWEEP_TEST_SPACES) {
  // The pinhole camera: w towards the target, u = w x up, v = u x w (all
  // unit); the ray through pixel (x, y) (top row first) at its centre is
  //   w + px u + py v,  px = (2 (x + 1/2) / width - 1) tan(fov / 2) aspect,
  //                     py = (1 - 2 (y + 1/2) / height) tan(fov / 2).
  // Shading: sky 0.85 - 0.35 s, 0.88 - 0.25 s, 0.95 - 0.05 s with s =
  // (dir_y / |dir| + 1) / 2 on a miss; otherwise (0.85, 0.80, 0.72) times
  // 0.75 max(0, n . l) (0 when the segment from the light to the point,
  // up to 0.999 of it, is blocked) + 0.3, n the face normal turned to the
  // ray, l the unit vector to the light (no ambient occlusion here).
  Space space;
  const auto m = rt::procedural_scene(1);
  const rt::bvh<Space> tree(space, m);
  const auto cam = rt::camera::framing(m.bounds(), {0.3f, 0.5f, 1.0f});
  const int width = 64, height = 48;
  rt::render_options o;
  o.width = width, o.height = height, o.samples = 1, o.ao_samples = 0, o.shadows = true;
  o.light_set = true;
  o.light = {5.0f, 4.0f, 6.0f};  // low: the spheres cast long shadows on the ground
  const dvec eye = to_d(cam.eye), light = to_d(o.light);
  auto unit = [](dvec a) { return (1 / norm(a)) * a; };
  const dvec w = unit(to_d(cam.target) - eye), u = unit(cross(w, to_d(cam.up))), v = cross(u, w);
  const double half = std::tan(double(cam.fov_degrees) * 3.14159265358979323846 / 360.0);
  const double aspect = double(width) / double(height);
  // The expected colour of every pixel, or a flag where the oracle cannot
  // tell (the ray or its shadow ray passes within rounding of an edge).
  std::vector<double> want(std::size_t(width * height) * 3, 0.0);
  std::vector<int> unclear(std::size_t(width * height), 0);
  std::size_t hit_pixels = 0, shadowed_pixels = 0;
  for (int y = 0; y < height; ++y)
    for (int x = 0; x < width; ++x) {
      const std::size_t pix = std::size_t(y * width + x);
      const double px = (2 * (x + 0.5) / width - 1) * half * aspect, py = (1 - 2 * (y + 0.5) / height) * half;
      const dray r{eye, w + px * u + py * v};
      const auto hit = oracle(m, r);
      if (!hit.clear()) {
        unclear[pix] = 1;
        continue;
      }
      double* c = &want[pix * 3];
      if (hit.certain.empty()) {
        const double s = 0.5 * (r.dir.y / norm(r.dir) + 1);
        c[0] = 0.85 - 0.35 * s, c[1] = 0.88 - 0.25 * s, c[2] = 0.95 - 0.05 * s;
        continue;
      }
      ++hit_pixels;
      const auto& h = hit.certain.front();
      const auto& t = m.triangles[std::size_t(h.prim)];
      const dvec a = to_d(m.vertices[std::size_t(t[0])]), b = to_d(m.vertices[std::size_t(t[1])]),
                 cc = to_d(m.vertices[std::size_t(t[2])]);
      dvec n = unit(cross(b - a, cc - a));
      if (dot(n, r.dir) > 0) n = -1.0 * n;
      const dvec p = r.org + h.t * r.dir;
      double direct = std::max(0.0, dot(n, unit(light - p)));
      if (dot(n, light - p) > 0) {
        const auto shadow = oracle(m, dray{light, p - light, 0, 0.999});
        if (!shadow.certain.empty() != !shadow.possible.empty()) {
          unclear[pix] = 1;
          continue;
        }
        if (!shadow.certain.empty()) direct = 0, ++shadowed_pixels;
      }
      const double amount = 0.75 * direct + 0.3;
      c[0] = 0.85 * amount, c[1] = 0.80 * amount, c[2] = 0.72 * amount;
    }
  std::size_t unclear_count = 0;
  for (int f : unclear) unclear_count += std::size_t(f);
  MESSAGE(hit_pixels, " pixels hit the scene, ", shadowed_pixels, " in shadow, ", unclear_count, " of ",
          width * height, " unclear");
  CHECK(hit_pixels > std::size_t(width * height) / 10);
  CHECK(shadowed_pixels > 10);
  CHECK(unclear_count <= std::size_t(width * height) / 20);
  for (auto mode : {rt::trace_mode::single, rt::trace_mode::packet, rt::trace_mode::automatic}) {
    CAPTURE(std::string(rt::to_string(mode)));
    o.trace.mode = mode;
    const auto img = rt::render(space, tree, cam, o);
    REQUIRE(img.rgb.size() == std::size_t(width * height) * 3);
    // Float shading of float rays: a few 1e-7; 1e-5 leaves room.
    std::size_t wrong = 0;
    double worst = 0;
    for (std::size_t pix = 0; pix < unclear.size(); ++pix) {
      if (unclear[pix]) continue;
      for (int k = 0; k < 3; ++k) {
        const double d = std::abs(double(img.rgb[pix * 3 + std::size_t(k)]) - want[pix * 3 + std::size_t(k)]);
        worst = std::max(worst, d);
        wrong += d > 1e-5;
      }
    }
    INFO("worst colour difference " << worst);
    CHECK(wrong == 0);
  }
}
