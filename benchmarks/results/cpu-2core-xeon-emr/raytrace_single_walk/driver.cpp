// What single rays cost on the wide BVH, beside Embree's rtcIntersect1 /
// rtcOccluded1 on the same rays: the benchmark's primary, shadow and
// diffuse rays of one mesh at 1024 x 1024, rays pointing away from the
// mesh (one node test each), disabled rays, the diffuse rays in a random
// order; the wide tree's nodes and fill per level; node visits and
// triangle blocks per ray from a scalar copy of walk_wide's order.
// Best of 5 per row. Arguments: mesh file [max_leaf [bins]].
#include <sweep/raytrace.hpp>

#include "bench_raytrace_embree.hpp"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

namespace rt = sweep::raytrace;
using Space = Kokkos::DefaultExecutionSpace;
using Rays = Kokkos::View<rt::ray*>;

template <class F>
double best_ms(F&& f) {
  double b = 1e30;
  for (int r = 0; r < 5; ++r) {
    Space().fence();
    const auto t0 = std::chrono::steady_clock::now();
    f();
    Space().fence();
    b = std::min(b, std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count());
  }
  return b;
}

/// Node visits and triangle blocks of walk_wide's order for one ray.
template <bool Any>
void count_walk(const rt::bvh<Space>& tree, const rt::ray& q, double& visits, double& blocks) {
  constexpr int W = rt::bvh<Space>::wide_width;
  const auto wide = tree.wide_nodes();
  const auto blk = tree.triangle_blocks();
  const rt::ray_setup r(q);
  rt::hit h{q.tmax, 0, 0, -1};
  std::vector<rt::detail::stack_entry> stack;
  rt::detail::stack_entry cur{0, 0, r.tmin};
  while (true) {
    bool descended = false;
    if (cur.count > 0) {
      for (int k = cur.ref; k < cur.ref + (cur.count + 3) / 4; ++k) {
        blocks += 1;
        for (int l = 0; l < 4; ++l) {
          if (blk(k).prim[l] < 0) continue;
          float u = 0, v = 0;
          const float d = rt::intersect_triangle(r, rt::detail::block_triangle(blk(k), l), h.t, u, v);
          if (d < __builtin_huge_valf() && rt::closer(d, blk(k).prim[l], h.t, h.prim)) {
            h = rt::hit{d, u, v, blk(k).prim[l]};
            if (Any) return;
          }
        }
      }
    } else {
      visits += 1;
      const auto& nd = wide(cur.ref);
      float t[W];
      int mask = 0;
      for (int c = 0; c < W; ++c) {
        t[c] = nd.count[c] < 0 ? __builtin_huge_valf()
                               : rt::box_entry(r, {nd.lo_x[c], nd.lo_y[c], nd.lo_z[c]}, {nd.hi_x[c], nd.hi_y[c], nd.hi_z[c]}, h.t);
        if (t[c] < __builtin_huge_valf()) mask |= 1 << c;
      }
      if (mask) {
        int pick = __builtin_ctz(unsigned(mask));
        if (!Any)
          for (int m = mask & (mask - 1); m; m &= m - 1)
            if (t[__builtin_ctz(unsigned(m))] < t[pick]) pick = __builtin_ctz(unsigned(m));
        int rest = mask & ~(1 << pick);
        while (rest) {
          int far = __builtin_ctz(unsigned(rest));
          if (!Any)
            for (int m = rest & (rest - 1); m; m &= m - 1)
              if (t[__builtin_ctz(unsigned(m))] > t[far]) far = __builtin_ctz(unsigned(m));
          stack.push_back({nd.child[far], nd.count[far], t[far]});
          rest &= ~(1 << far);
        }
        cur = {nd.child[pick], nd.count[pick], t[pick]};
        descended = true;
      }
    }
    if (descended) continue;
    do {
      if (stack.empty()) return;
      cur = stack.back();
      stack.pop_back();
    } while (cur.t > h.t * rt::detail::exit_scale);
  }
}

template <bool Any>
void report_walk(const char* kind, const rt::bvh<Space>& tree, const Rays& rays) {
  double visits = 0, blocks = 0, n = 0;
  for (std::size_t i = 0; i < rays.extent(0); i += 7) {  // every 7th enabled ray
    if (rays(i).tmin > rays(i).tmax) continue;
    count_walk<Any>(tree, rays(i), visits, blocks);
    n += 1;
  }
  std::printf("%s rays: %.1f node visits and %.1f triangle blocks per ray\n", kind, visits / n, blocks / n);
}

std::vector<sweep_bench::plain_ray> plain(const Rays& r) {
  std::vector<sweep_bench::plain_ray> o(r.extent(0));
  for (std::size_t i = 0; i < o.size(); ++i)
    o[i] = {r(i).org.x, r(i).org.y, r(i).org.z, r(i).dir.x, r(i).dir.y, r(i).dir.z, r(i).tmin, r(i).tmax};
  return o;
}

int main(int argc, char** argv) {
  Kokkos::ScopeGuard guard(argc, argv);
  const std::string file = argc > 1 ? argv[1] : SWEEP_MESH_DIR "/bunny00.off";
  rt::bvh_options o;
  if (argc > 2) o.max_leaf = std::atoi(argv[2]);
  if (argc > 3) o.bins = std::atoi(argv[3]);
  const rt::mesh m = rt::load_off(file);
  Space space;
  const rt::bvh<Space> tree(space, m, o);
  const auto cam = rt::camera::framing(m.bounds());
  const auto primary = rt::primary_rays(space, cam, 1024, 1024, 1, 64);
  const std::size_t n = primary.extent(0);
  Kokkos::View<rt::hit*> hits("hits", n);
  const rt::trace_options single{rt::trace_mode::single, 64, 0.5f, 2};
  rt::intersect(space, tree, primary, hits, single);
  const auto shadow = rt::shadow_rays(space, tree, primary, hits, rt::default_light(cam, tree.bounds()));
  const auto diffuse = rt::diffuse_rays(space, tree, primary, hits, 4, rt::default_ao_radius(tree.bounds()));
  Rays away("away", n), disabled("disabled", n), shuffled("shuffled", diffuse.extent(0));
  for (std::size_t i = 0; i < n; ++i) {
    away(i) = disabled(i) = primary(i);
    away(i).dir = rt::vec3f{-primary(i).dir.x, -primary(i).dir.y, -primary(i).dir.z};
    disabled(i).tmin = 2, disabled(i).tmax = 1;
  }
  std::vector<std::size_t> perm(diffuse.extent(0));
  for (std::size_t i = 0; i < perm.size(); ++i) perm[i] = i;
  std::uint64_t x = 88172645463325252ull;
  for (std::size_t i = perm.size() - 1; i > 0; --i) {
    x ^= x << 13, x ^= x >> 7, x ^= x << 17;
    std::swap(perm[i], perm[x % (i + 1)]);
  }
  for (std::size_t i = 0; i < perm.size(); ++i) shuffled(i) = diffuse(perm[i]);
  Kokkos::View<int*> occ("occ", diffuse.extent(0));
  auto closest = [&](const Rays& r) { return best_ms([&] { rt::intersect(space, tree, r, hits, single); }); };
  auto any = [&](const Rays& r) { return best_ms([&] { rt::occluded(space, tree, r, occ, single); }); };
  std::printf("sweep: primary %.2f shadow %.2f diffuse %.2f shuffled diffuse %.2f away %.2f disabled %.2f ms\n",
              closest(primary), any(shadow), any(diffuse), any(shuffled), closest(away), closest(disabled));
  std::vector<float> xyz;
  std::vector<std::int32_t> idx;
  for (const auto& v : m.vertices) xyz.insert(xyz.end(), {v.x, v.y, v.z});
  for (const auto& t : m.triangles) idx.insert(idx.end(), t.begin(), t.end());
  const sweep_bench::embree_scene embree(xyz, idx);
  const auto pp = plain(primary), ps = plain(shadow), pd = plain(diffuse), psh = plain(shuffled);
  std::vector<int> eo;
  std::vector<sweep_bench::plain_hit> eh;
  std::printf("embree: primary %.2f shadow %.2f diffuse %.2f shuffled diffuse %.2f ms\n",
              best_ms([&] { embree.intersect1(pp, eh); }), best_ms([&] { embree.occluded1(ps, eo); }),
              best_ms([&] { embree.occluded1(pd, eo); }), best_ms([&] { embree.occluded1(psh, eo); }));
  const auto wide = tree.wide_nodes();
  std::vector<int> depth(wide.extent(0), 0);
  std::vector<double> nodes_at(64, 0), used_at(64, 0), leaves_at(64, 0);
  for (std::size_t k = 0; k < wide.extent(0); ++k) {
    for (int c = 0; c < rt::bvh<Space>::wide_width; ++c) {
      used_at[std::size_t(depth[k])] += wide(k).count[c] >= 0;
      leaves_at[std::size_t(depth[k])] += wide(k).count[c] > 0;
      if (wide(k).count[c] == 0) depth[std::size_t(wide(k).child[c])] = depth[k] + 1;
    }
    nodes_at[std::size_t(depth[k])] += 1;
  }
  std::printf("wide tree: %ld nodes of %d slots, %ld triangle blocks\n", long(wide.extent(0)), rt::bvh<Space>::wide_width,
              long(tree.triangle_blocks().extent(0)));
  for (int d = 0; d < 64 && nodes_at[std::size_t(d)] > 0; ++d)
    std::printf("  level %d: %g nodes, %.2f slots used, %.2f of them leaves\n", d, nodes_at[std::size_t(d)],
                used_at[std::size_t(d)] / nodes_at[std::size_t(d)], leaves_at[std::size_t(d)] / nodes_at[std::size_t(d)]);
  report_walk<false>("primary", tree, primary);
  report_walk<true>("shadow", tree, shadow);
  report_walk<true>("diffuse", tree, diffuse);
}
