// Ray-tracing row: primary rays of the procedural scene at about 2^(log2n
// - 4) pixels, traced in 64-ray packets and checked hit for hit against
// single rays and, on every 61st ray, against brute force over all
// triangles. Throughput in rays per second (the walk is latency bound).
// The figure is a small picture of the hits in characters.
#include "tour.hpp"

#include <sweep/raytrace.hpp>

#include <cmath>
#include <cstdio>
#include <sstream>

namespace tour {

std::vector<row> run_raytrace(const options& opt) {
  using Space = Kokkos::DefaultExecutionSpace;
  namespace rt = sweep::raytrace;
  Space space;
  const auto m = rt::procedural_scene(3);
  const rt::bvh<Space> tree(space, m);
  const int side = 1 << std::max(4, (opt.log2n - 4) / 2);
  const auto cam = rt::camera::framing(m.bounds(), {0.3f, 0.45f, 1.0f});
  const auto rays = rt::primary_rays(space, cam, side, side, 1, 64);
  Kokkos::View<rt::hit*> single("sweep::tour::rt_single", rays.extent(0)), packet("sweep::tour::rt_packet", rays.extent(0));
  rt::intersect(space, tree, rays, single, {rt::trace_mode::single, 64, 0.5f, 2});
  rt::trace_stats st;
  row r;
  r.capability = "ray tracing, 64-ray packets";
  r.size = std::int64_t(rays.extent(0));
  r.seconds = best_seconds(opt.repeats, [&] { st = rt::intersect(space, tree, rays, packet, {rt::trace_mode::packet, 64, 0.5f, 2}); });
  r.items = double(rays.extent(0));
  r.unit = "rays";
  const auto a = download(single), b = download(packet);
  const auto hr = download(rays);
  std::size_t differ = 0, brute_checked = 0, brute_differ = 0, hits = 0;
  for (std::size_t i = 0; i < a.size(); ++i) {
    differ += a[i].prim != b[i].prim || (a[i].prim >= 0 && a[i].t != b[i].t);
    hits += a[i].prim >= 0;
    if (i % 61 != 0) continue;
    // Brute force with the same triangle test and tie rule.
    const rt::ray_setup q(hr[i]);
    rt::hit best{hr[i].tmax, 0, 0, -1};
    for (std::size_t k = 0; k < m.triangles.size(); ++k) {
      const auto& t = m.triangles[k];
      float u = 0, v = 0;
      const float d = rt::intersect_triangle(q, {m.vertices[std::size_t(t[0])], m.vertices[std::size_t(t[1])], m.vertices[std::size_t(t[2])]},
                                             best.t, u, v);
      if (d != __builtin_huge_valf() && rt::closer(d, std::int32_t(k), best.t, best.prim)) best = rt::hit{d, u, v, std::int32_t(k)};
    }
    ++brute_checked;
    brute_differ += best.prim != a[i].prim || (best.prim >= 0 && best.t != a[i].t);
  }
  r.passed = differ == 0 && brute_differ == 0 && hits > 0;
  char note[200];
  std::snprintf(note, sizeof note,
                "%zu triangles: packets = single rays on all %zu rays, = brute force on %zu; utilisation %.2f",
                m.triangles.size(), a.size(), brute_checked, st.utilisation());
  r.note = note;
  // A character picture of what the rays hit (every 4th row and column).
  std::ostringstream fig;
  fig << "ray tracing, the procedural scene at " << side << " x " << side << " ('#': hit, '.': sky):\n";
  const auto tl = rt::detail::make_tiling(side, side, 1, 64);
  const int step = std::max(1, side / 48);
  for (int y = 0; y < side; y += 2 * step) {
    fig << "  ";
    for (int x = 0; x < side; x += step) fig << (a[std::size_t(tl.ray(x, y, 0))].prim >= 0 ? '#' : '.');
    fig << "\n";
  }
  r.figure = fig.str();
  return {r};
}

}  // namespace tour
