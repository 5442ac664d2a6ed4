// BVH traversal against brute force (same primitive, same distance) on
// random scenes and rays, in every mode and packet size; packets equal
// single rays exactly; BVH invariants (boxes contain their children and
// triangles, every triangle in one leaf); a build level's two partitions
// agree; refit; the watertight test on shared edges and vertices.
#include <sweep/raytrace.hpp>

#include "raytrace_reference.hpp"
#include "test_support.hpp"

#include <algorithm>
#include <random>
#include <string>
#include <vector>

using namespace sweep_test;

namespace {

template <class Space>
std::vector<rt::hit> trace_hits(const rt::bvh<Space>& tree, const std::vector<rt::ray>& rays, rt::trace_options opt,
                                rt::trace_stats* stats = nullptr) {
  auto d_rays = to_device<Space>(rays);
  Kokkos::View<rt::hit*, typename Space::memory_space> hits("hits", rays.size());
  const auto st = rt::intersect(Space(), tree, d_rays, hits, opt);
  if (stats) *stats = st;
  return to_host(hits);
}

template <class Space>
std::vector<int> trace_occluded(const rt::bvh<Space>& tree, const std::vector<rt::ray>& rays, rt::trace_options opt) {
  auto d_rays = to_device<Space>(rays);
  Kokkos::View<int*, typename Space::memory_space> flags("flags", rays.size());
  rt::occluded(Space(), tree, d_rays, flags, opt);
  return to_host(flags);
}

bool same_hit(const rt::hit& a, const rt::hit& b) {
  if (a.prim != b.prim) return false;
  return a.prim < 0 || (a.t == b.t && a.u == b.u && a.v == b.v);
}

std::vector<rt::trace_options> all_modes() {
  std::vector<rt::trace_options> out;
  for (auto isa : packet_isas()) out.push_back({rt::trace_mode::single, 64, 0.5f, 2, isa});
  for (auto isa : packet_isas())
    for (int size : {8, 16, 32, 64}) {
      out.push_back({rt::trace_mode::packet, size, 0.5f, 2, isa});
      out.push_back({rt::trace_mode::automatic, size, 0.5f, 2, isa});
      out.push_back({rt::trace_mode::automatic, size, 1.0f, 4, isa});  // compact eagerly
    }
  return out;
}

}  // namespace

TEST_CASE_TEMPLATE("closest and any hits equal brute force in every mode", Space, SWEEP_TEST_SPACES) {
  for (const auto& [triangles, size] : {std::pair<std::size_t, float>{1, 0.5f}, {5, 0.5f}, {300, 0.2f}, {5000, 0.05f}}) {
    const auto m = random_soup(triangles, size, 100 + triangles);
    CAPTURE(m.triangles.size());
    const rt::bvh<Space> tree(Space(), m);
    const auto rays = random_rays(m, 3000, 7 + triangles);
    std::vector<rt::hit> ref(rays.size());
    std::vector<int> ref_any(rays.size());
    for (std::size_t i = 0; i < rays.size(); ++i) {
      ref[i] = brute_force(m, rays[i]);
      ref_any[i] = brute_force(m, rays[i], true).prim >= 0;
    }
    const auto hits_count = std::count_if(ref.begin(), ref.end(), [](const rt::hit& h) { return h.prim >= 0; });
    CHECK(hits_count > 0);
    for (const auto& opt : all_modes()) {
      CAPTURE(std::string(rt::to_string(opt.mode)));
      CAPTURE(std::string(rt::to_string(opt.isa)));
      CAPTURE(opt.compact_below);
      CAPTURE(opt.packet_size);
      const auto got = trace_hits(tree, rays, opt);
      std::size_t wrong = 0;
      for (std::size_t i = 0; i < rays.size(); ++i) wrong += !same_hit(got[i], ref[i]);
      CHECK(wrong == 0);
      CHECK(trace_occluded(tree, rays, opt) == ref_any);
    }
  }
}

TEST_CASE_TEMPLATE("packets of primary rays from one origin equal single rays; reordering compacts them", Space,
                   SWEEP_TEST_SPACES) {
  const auto m = rt::procedural_scene(2);
  const rt::bvh<Space> tree(Space(), m);
  // A 64 x 64 pinhole camera, rays in 8 x 8 tiles.
  std::vector<rt::ray> rays;
  for (int ty = 0; ty < 8; ++ty)
    for (int tx = 0; tx < 8; ++tx)
      for (int y = 0; y < 8; ++y)
        for (int x = 0; x < 8; ++x) {
          const float px = (float(tx * 8 + x) + 0.5f) / 64 - 0.5f, py = (float(ty * 8 + y) + 0.5f) / 64 - 0.5f;
          rays.push_back(rt::ray{{0, 2, 8}, {px * 1.2f, -0.25f - py * 1.2f, -1}, 0, __builtin_huge_valf()});
        }
  rt::trace_stats single_stats;
  const auto single = trace_hits(tree, rays, {rt::trace_mode::single, 64, 0.5f, 2}, &single_stats);
  std::size_t hits = 0;
  for (const auto& h : single) hits += h.prim >= 0;
  CHECK(hits > rays.size() / 2);
  for (auto isa : packet_isas()) {
    CAPTURE(std::string(rt::to_string(isa)));
    rt::trace_stats packet_stats, auto_stats;
    const auto packet = trace_hits(tree, rays, {rt::trace_mode::packet, 64, 0.5f, 2, isa}, &packet_stats);
    const auto automatic = trace_hits(tree, rays, {rt::trace_mode::automatic, 64, 0.5f, 2, isa}, &auto_stats);
    std::size_t diff_packet = 0, diff_auto = 0;
    for (std::size_t i = 0; i < rays.size(); ++i) {
      diff_packet += !same_hit(single[i], packet[i]);
      diff_auto += !same_hit(single[i], automatic[i]);
    }
    CHECK(diff_packet == 0);
    CHECK(diff_auto == 0);
    CHECK(packet_stats.utilisation() > 0.0);
    CHECK(packet_stats.utilisation() <= 1.0);
    CHECK(packet_stats.compactions == 0);
    if constexpr (sweep::tuning<Space>::raytrace::automatic_packets) {
      CHECK(auto_stats.compactions + auto_stats.single_fallbacks > 0);
      CHECK(auto_stats.utilisation() > packet_stats.utilisation());
    } else {
      CHECK(auto_stats.compactions == 0);  // automatic traces single rays on this space
    }
  }
}

TEST_CASE_TEMPLATE("packets read rays from strided Views", Space, SWEEP_TEST_SPACES) {
  using Mem = typename Space::memory_space;
  const auto m = random_soup(500, 0.1f, 5);
  const rt::bvh<Space> tree(Space(), m);
  const auto rays = random_rays(m, 1000, 6);
  // Every ray twice, side by side: column 0 is a View with stride 2.
  Kokkos::View<rt::ray**, Kokkos::LayoutRight, Mem> pairs("pairs", rays.size(), 2);
  auto h = Kokkos::create_mirror_view(pairs);
  for (std::size_t i = 0; i < rays.size(); ++i) h(i, 0) = rays[i], h(i, 1) = rt::ray{};
  Kokkos::deep_copy(pairs, h);
  const auto strided = Kokkos::subview(pairs, Kokkos::ALL, 0);
  CHECK(strided.stride_0() == 2);
  const auto single = trace_hits(tree, rays, {rt::trace_mode::single, 64, 0.5f, 2});
  for (auto isa : packet_isas())
    for (int size : {16, 64}) {
      CAPTURE(std::string(rt::to_string(isa)));
      CAPTURE(size);
      Kokkos::View<rt::hit*, Mem> hits("hits", rays.size());
      rt::intersect(Space(), tree, strided, hits, {rt::trace_mode::packet, size, 0.5f, 2, isa});
      const auto got = to_host(hits);
      std::size_t wrong = 0;
      for (std::size_t i = 0; i < rays.size(); ++i) wrong += !same_hit(got[i], single[i]);
      CHECK(wrong == 0);
    }
}

TEST_CASE_TEMPLATE("BVH invariants: boxes contain children and triangles, leaves hold every triangle once", Space,
                   SWEEP_TEST_SPACES) {
  for (std::size_t n : {1ul, 2ul, 5ul, 1000ul, 30000ul}) {
    CAPTURE(n);
    const auto m = random_soup(n, 0.05f, n);
    for (int max_leaf : {1, 4}) {
      rt::bvh_options o;
      o.max_leaf = max_leaf;
      const rt::bvh<Space> tree(Space(), m, o);
      const auto nodes = to_host(tree.nodes());
      const auto tris = to_host(tree.triangles());
      const auto ids = to_host(tree.primitive_ids());
      std::vector<int> seen(m.triangles.size(), 0);
      bool contain = true, leaf_size = true;
      for (const auto& nd : nodes) {
        const rt::aabb box{nd.lo, nd.hi};
        if (nd.leaf()) {
          leaf_size = leaf_size && nd.count() <= max_leaf;
          for (int k = nd.first; k < nd.first + nd.count(); ++k) {
            ++seen[std::size_t(ids[std::size_t(k)])];
            rt::aabb tb;
            tb.grow(tris[std::size_t(k)].a), tb.grow(tris[std::size_t(k)].b), tb.grow(tris[std::size_t(k)].c);
            contain = contain && box.contains(tb);
          }
        } else {
          contain = contain && box.contains(rt::aabb{nodes[std::size_t(nd.first)].lo, nodes[std::size_t(nd.first)].hi}) &&
                    box.contains(rt::aabb{nodes[std::size_t(nd.first) + 1].lo, nodes[std::size_t(nd.first) + 1].hi});
        }
      }
      CHECK(std::all_of(seen.begin(), seen.end(), [](int s) { return s == 1; }));
      CHECK(contain);
      CHECK(leaf_size);
      CHECK(tree.depth() <= 64);
      // Leaf-order triangles are the mesh's.
      bool same = true;
      for (std::size_t k = 0; k < tris.size(); ++k) {
        const auto& t = m.triangles[std::size_t(ids[k])];
        same = same && tris[k].a.x == m.vertices[std::size_t(t[0])].x && tris[k].c.z == m.vertices[std::size_t(t[2])].z;
      }
      CHECK(same);
      // Wide nodes: every slot's box contains what it points to, and the
      // greedy collapse fills all W slots unless every child is a leaf.
      constexpr int W = rt::bvh<Space>::wide_width;
      const auto wide = to_host(tree.wide_nodes());
      const auto blocks = to_host(tree.triangle_blocks());
      bool wide_ok = true, filled = true;
      std::size_t wide_tris = 0;
      for (const auto& w : wide) {
        int used = 0, inner = 0;
        for (int c = 0; c < W; ++c) used += w.count[c] >= 0, inner += w.count[c] == 0;
        filled = filled && (used == W || inner == 0);
        for (int c = 0; c < W; ++c) {
          if (w.count[c] < 0) continue;
          const rt::aabb slot{{w.lo_x[c], w.lo_y[c], w.lo_z[c]}, {w.hi_x[c], w.hi_y[c], w.hi_z[c]}};
          if (w.count[c] > 0) {
            wide_tris += std::size_t(w.count[c]);
            for (int k = 0; k < w.count[c]; ++k) {
              const auto& blk = blocks[std::size_t(w.child[c] + k / 4)];
              const int lane = k % 4;
              rt::aabb tb;
              tb.grow(rt::vec3f{blk.ax[lane], blk.ay[lane], blk.az[lane]}), tb.grow(rt::vec3f{blk.bx[lane], blk.by[lane], blk.bz[lane]});
              tb.grow(rt::vec3f{blk.cx[lane], blk.cy[lane], blk.cz[lane]});
              wide_ok = wide_ok && slot.contains(tb) && blk.prim[lane] >= 0;
            }
          } else {
            const auto& ch = wide[std::size_t(w.child[c])];
            for (int g = 0; g < W; ++g)
              if (ch.count[g] >= 0)
                wide_ok = wide_ok && slot.contains({{ch.lo_x[g], ch.lo_y[g], ch.lo_z[g]}, {ch.hi_x[g], ch.hi_y[g], ch.hi_z[g]}});
          }
        }
      }
      CHECK(wide_ok);
      CHECK(filled);
      CHECK(wide_tris == m.triangles.size());
    }
  }
}

TEST_CASE_TEMPLATE("a build level partitions node by node exactly as by the scan of every triangle's side", Space,
                   SWEEP_TEST_SPACES) {
  using Mem = typename Space::memory_space;
  using Policy = Kokkos::RangePolicy<Space, Kokkos::IndexType<std::int64_t>>;
  // Triangle boxes: a random soup, then 20 copies of one box (coincident
  // centroids: a median split even at an SAH level).
  const auto m = random_soup(3000, 0.05f, 7);
  std::vector<rt::aabb> boxes;
  for (const auto& t : m.triangles) {
    rt::aabb b;
    for (int c = 0; c < 3; ++c) b.grow(m.vertices[std::size_t(t[std::size_t(c)])]);
    boxes.push_back(b);
  }
  for (int k = 0; k < 20; ++k) boxes.push_back(boxes[5]);
  const auto n = std::int32_t(boxes.size());
  // The level's nodes 3..8 own these ranges (ids between them are in
  // finished leaves); the ids start shuffled so that order matters.
  const std::vector<std::int32_t> begins{0, 10, 1010, 1013, 2600, n - 20}, ends{3, 1010, 1013, 2500, n - 20, n};
  const std::int64_t lo = 3, hi = lo + std::int64_t(begins.size()), width = hi - lo;
  std::vector<std::int32_t> ids0(static_cast<std::size_t>(n)), b0(static_cast<std::size_t>(hi), 0),
      e0(static_cast<std::size_t>(hi), 0);
  for (std::int32_t i = 0; i < n; ++i) ids0[std::size_t(i)] = i;
  std::mt19937 gen(11);
  std::shuffle(ids0.begin(), ids0.end() - 20, gen);  // the copies stay in the last node
  std::shuffle(ids0.end() - 20, ids0.end(), gen);
  for (std::size_t k = 0; k < begins.size(); ++k) b0[std::size_t(lo) + k] = begins[k], e0[std::size_t(lo) + k] = ends[k];
  const auto d_boxes = to_device<Space>(boxes);
  for (int level : {0, 48}) {  // 48: bvh_options' median_depth, halves by position
    CAPTURE(level);
    const int bins = 16, max_leaf = 4, median_depth = 48;
    auto run = [&](bool in_node, std::vector<rt::detail::split_plan>& plans_out, std::vector<std::int32_t>& scan_nleft) {
      rt::detail::build_views<Mem> v{d_boxes, to_device<Space>(ids0), Kokkos::View<rt::bvh_node*, Mem>("nodes", hi),
                                     to_device<Space>(b0), to_device<Space>(e0)};
      Kokkos::View<rt::detail::split_plan*, Mem> plans("plans", width);
      Kokkos::View<std::int32_t*, Mem> tmp("tmp", n), flags("flags", n + 1);
      Kokkos::parallel_for(Policy(0, width),
                           rt::detail::plan_splits<Mem>{v, plans, tmp, lo, level, max_leaf, bins, median_depth, in_node});
      if (!in_node) {
        Kokkos::parallel_for(Policy(0, n + 1), rt::detail::flag_left<Mem>{v, plans, flags, lo, hi, n, bins});
        sweep::exclusive_scan(Space(), flags, flags, std::int32_t(0));
        Kokkos::parallel_for(Policy(0, n), rt::detail::partition_ids<Mem>{v, plans, flags, tmp, lo, hi});
        Kokkos::deep_copy(v.ids, tmp);
        const auto f = to_host(flags);
        for (std::size_t k = 0; k < begins.size(); ++k)
          scan_nleft.push_back(f[std::size_t(ends[k])] - f[std::size_t(begins[k])]);
      }
      plans_out = to_host(plans);
      return to_host(v.ids);
    };
    std::vector<rt::detail::split_plan> by_node, by_scan;
    std::vector<std::int32_t> unused, scan_nleft;
    const auto ids_node = run(true, by_node, unused);
    const auto ids_scan = run(false, by_scan, scan_nleft);
    CHECK(ids_node == ids_scan);
    CHECK((ids_node != ids0) == (level == 0));  // halves by position keep the order
    int sah = 0, median = 0;
    for (std::size_t k = 0; k < begins.size(); ++k) {
      CAPTURE(k);
      const auto &a = by_node[k], &b = by_scan[k];
      CHECK(a.axis == b.axis);
      CHECK(a.split_bin == b.split_bin);
      CHECK(a.nleft == b.nleft);
      if (a.axis >= 0) CHECK(a.nleft == scan_nleft[k]);
      const auto same = [](const rt::vec3f& x, const rt::vec3f& y) { return x.x == y.x && x.y == y.y && x.z == y.z; };
      CHECK((same(a.left.lo, b.left.lo) && same(a.left.hi, b.left.hi) && same(a.right.lo, b.right.lo) &&
             same(a.right.hi, b.right.hi)));
      // Every triangle of a splitting node lies in its child's box.
      if (a.axis >= 0)
        for (std::int32_t i = begins[k]; i < ends[k]; ++i)
          CHECK((i < begins[k] + a.nleft ? a.left : a.right).contains(boxes[std::size_t(ids_node[std::size_t(i)])]));
      sah += a.split_bin > 0;
      median += a.split_bin < 0 && a.axis >= 0;
    }
    // Both kinds of split are exercised (nodes 0 and 2 are leaves; the
    // coincident node halves at every level).
    CHECK(sah == (level == 0 ? 3 : 0));
    CHECK(median == (level == 0 ? 1 : 4));
  }
}

TEST_CASE_TEMPLATE("refit after moving the vertices gives the hits of a fresh build", Space, SWEEP_TEST_SPACES) {
  auto m = random_soup(2000, 0.05f, 77);
  rt::bvh<Space> tree(Space(), m);
  for (auto& v : m.vertices) v = rt::vec3f{v.x * 1.3f + 0.2f * v.y, v.y - 0.4f * v.z * v.z, v.z + 0.1f};
  tree.refit(Space(), m.vertices);
  const rt::bvh<Space> fresh(Space(), m);
  const auto rays = random_rays(m, 2000, 78);
  const auto a = trace_hits(tree, rays, {rt::trace_mode::single, 64, 0.5f, 2});
  const auto b = trace_hits(fresh, rays, {rt::trace_mode::automatic, 32, 0.5f, 2});
  std::size_t wrong = 0;
  for (std::size_t i = 0; i < rays.size(); ++i) wrong += !same_hit(a[i], b[i]) || !same_hit(a[i], brute_force(m, rays[i]));
  CHECK(wrong == 0);
  CHECK_THROWS_AS(tree.refit(Space(), std::vector<rt::vec3f>(5)), std::invalid_argument);
}

TEST_CASE_TEMPLATE("rays through shared edges and vertices hit in every mode, as single rays do", Space,
                   SWEEP_TEST_SPACES) {
  // A grid of squares split along their diagonals, and fans around its
  // vertices; rays from one point straight down onto the edges and
  // vertices (edge functions exactly zero) and around them.
  rt::mesh m;
  const int n = 8;
  for (int y = 0; y <= n; ++y)
    for (int x = 0; x <= n; ++x) m.vertices.push_back({float(x) / n, float(y) / n, 0});
  for (int y = 0; y < n; ++y)
    for (int x = 0; x < n; ++x) {
      const int v = y * (n + 1) + x;
      m.add_triangle(v, v + 1, v + n + 2);
      m.add_triangle(v, v + n + 2, v + n + 1);
    }
  const rt::bvh<Space> tree(Space(), m);
  std::vector<rt::ray> rays;
  for (int k = 0; k <= 4 * n; ++k)
    for (int j = 0; j <= 4 * n; ++j) {
      const float x = 0.0625f + 0.875f * float(j) / float(4 * n), y = 0.0625f + 0.875f * float(k) / float(4 * n);
      rays.push_back(rt::ray{{x, y, 1}, {0, 0, -1}, 0, 10});                   // parallel, onto edges and vertices
      rays.push_back(rt::ray{{0.5f, 0.5f, 2}, {x - 0.5f, y - 0.5f, -2}, 0, 10});  // one origin, through the grid
    }
  for (const auto& opt : all_modes()) {
    CAPTURE(std::string(rt::to_string(opt.mode)));
    CAPTURE(std::string(rt::to_string(opt.isa)));
    CAPTURE(opt.packet_size);
    const auto got = trace_hits(tree, rays, opt);
    std::size_t missed = 0, wrong = 0;
    for (std::size_t i = 0; i < rays.size(); ++i) {
      missed += got[i].prim < 0;
      wrong += !same_hit(got[i], brute_force(m, rays[i]));
    }
    CHECK(missed == 0);
    CHECK(wrong == 0);
    CHECK(trace_occluded(tree, rays, opt) == std::vector<int>(rays.size(), 1));
  }
}

TEST_CASE("the watertight test: rays through a shared edge or vertex never slip through") {
  // Two triangles sharing the diagonal (0,0)-(1,1) of the unit square, and
  // a fan of six around the origin.
  rt::mesh m;
  m.vertices = {{0, 0, 0}, {1, 0, 0}, {1, 1, 0}, {0, 1, 0}};
  m.add_triangle(0, 1, 2);
  m.add_triangle(0, 2, 3);
  int missed = 0;
  for (int k = 1; k < 1000; ++k) {
    const float s = float(k) / 1000;
    // Straight down onto the diagonal, and obliquely through it.
    for (const rt::ray& r : {rt::ray{{s, s, 1}, {0, 0, -1}, 0, 10}, rt::ray{{s - 0.3f, s + 0.2f, 1}, {0.3f, -0.2f, -1}, 0, 10}})
      missed += brute_force(m, r).prim < 0;
  }
  CHECK(missed == 0);
  rt::mesh fan;
  fan.vertices.push_back({0, 0, 0});
  for (int j = 0; j < 6; ++j) fan.vertices.push_back({std::cos(float(j) * 1.0471976f), std::sin(float(j) * 1.0471976f), 0});
  for (int j = 0; j < 6; ++j) fan.add_triangle(0, 1 + j, 1 + (j + 1) % 6);
  for (const rt::ray& r : {rt::ray{{0, 0, 1}, {0, 0, -1}, 0, 10}, rt::ray{{0.5f, -0.25f, 1}, {-0.5f, 0.25f, -1}, 0, 10}}) {
    const auto h = brute_force(fan, r);
    CHECK(h.prim >= 0);
    CHECK(h.t == doctest::Approx(1.0).epsilon(1e-6));
  }
}
