// Barnes-Hut: tree invariants, forces against direct summation (theta = 0
// exact to rounding, theta > 0 within the error the opening test allows,
// falling with theta), conservation of momentum and energy by the
// integrator, load-balance partitions covering every body once, body files.
#include <sweep/host/isa.hpp>
#include <sweep/nbody.hpp>

#include "test_support.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <numeric>
#include <set>
#include <string>
#include <vector>
#if defined(__x86_64__) || defined(__i386__)
#include <xmmintrin.h>
#endif

using namespace sweep_test;
namespace nb = sweep::nbody;

namespace {

template <class Space>
using arrays_t = nb::body_arrays<typename Space::memory_space>;

/// Host copies of accelerations and potentials indexed by body id.
struct field {
  std::vector<double> ax, ay, az, phi;
  std::vector<std::uint32_t> cost;
};

template <class Mem>
field field_by_id(const nb::body_arrays<Mem>& b) {
  const auto id = to_host(b.id);
  const auto ax = to_host(b.ax), ay = to_host(b.ay), az = to_host(b.az), phi = to_host(b.phi);
  const auto cost = to_host(b.cost);
  field f;
  const std::size_t n = id.size();
  f.ax.resize(n), f.ay.resize(n), f.az.resize(n), f.phi.resize(n), f.cost.resize(n);
  for (std::size_t k = 0; k < n; ++k) {
    const auto i = std::size_t(id[k]);
    f.ax[i] = ax[k], f.ay[i] = ay[k], f.az[i] = az[k], f.phi[i] = phi[k], f.cost[i] = cost[k];
  }
  return f;
}

/// Builds, summarizes and walks the tree for `bodies` (one partition);
/// returns the field by id.
template <class Space>
field tree_field(const std::vector<nb::body>& bodies, double theta, bool quadrupole = true, double eps = 0.05,
                 int leaf = 8) {
  Space space;
  auto b = arrays_t<Space>::from_host(bodies);
  arrays_t<Space> spare(b.size());
  nb::octree<Space> tree(leaf);
  tree.build(space, b, spare, nb::bounding_box(space, b));
  tree.summarize(space, theta);
  const auto part = nb::make_partition(space, nb::scheme::equal_count, b, 3);
  nb::tree_accelerations(space, tree, b, nb::gravity_parameters{1.0, eps, quadrupole}, part.offsets);
  return field_by_id(b);
}

template <class Space>
field direct_field(const std::vector<nb::body>& bodies, double eps = 0.05) {
  Space space;
  auto b = arrays_t<Space>::from_host(bodies);
  nb::direct_accelerations(space, b, nb::gravity_parameters{1.0, eps});
  return field_by_id(b);
}

/// |a - ref| / |ref| per body.
std::vector<double> relative_errors(const field& a, const field& ref) {
  std::vector<double> e(a.ax.size());
  for (std::size_t i = 0; i < e.size(); ++i) {
    const double dx = a.ax[i] - ref.ax[i], dy = a.ay[i] - ref.ay[i], dz = a.az[i] - ref.az[i];
    const double r = std::sqrt(ref.ax[i] * ref.ax[i] + ref.ay[i] * ref.ay[i] + ref.az[i] * ref.az[i]);
    e[i] = std::sqrt(dx * dx + dy * dy + dz * dz) / r;
  }
  return e;
}

double median(std::vector<double> v) {
  std::nth_element(v.begin(), v.begin() + v.size() / 2, v.end());
  return v[v.size() / 2];
}

}  // namespace

TEST_CASE_TEMPLATE("octree invariants: Morton order, leaves partition the bodies, masses add up", Space,
                   SWEEP_TEST_SPACES) {
  const std::vector<std::vector<nb::body>> inputs = {nb::plummer(1, 3), nb::plummer(2, 3), nb::plummer(20000, 3),
                                                     nb::uniform_cube(5000, 4), nb::colliding_disks(6000, 5)};
  for (const auto& bodies : inputs)
    for (int leaf : {1, 8}) {
      const std::size_t n = bodies.size();
      CAPTURE(n);
      CAPTURE(leaf);
      Space space;
      auto b = arrays_t<Space>::from_host(bodies);
      arrays_t<Space> spare(b.size());
      nb::octree<Space> tree(leaf);
      tree.build(space, b, spare, nb::bounding_box(space, b));
      tree.summarize(space, 0.5);
      const auto nodes = to_host(tree.nodes());
      const auto codes = to_host(tree.codes());
      const auto pts = to_host(tree.points());
      const auto x = to_host(b.x), m = to_host(b.m);
      const auto id = to_host(b.id);
      // The bodies are a permutation of the input, sorted by Morton code,
      // and the tree's points are them.
      CHECK(std::set<std::int64_t>(id.begin(), id.end()).size() == n);
      CHECK(std::is_sorted(codes.begin(), codes.end()));
      bool same = true;
      for (std::size_t i = 0; i < n; ++i) same = same && pts[i].x == x[i] && pts[i].m == m[i];
      CHECK(same);
      // Every body is in exactly one leaf; children tile their parent's range
      // in order; masses are sums; a leaf holds at most leaf_capacity bodies
      // unless it is at the deepest level.
      std::vector<int> seen(n, 0);
      bool tiles = true, masses = true, capacity = true;
      const auto& lv = tree.level_offsets();
      for (int l = 0; l < tree.levels(); ++l)
        for (auto k = lv[l]; k < lv[l + 1]; ++k) {
          const auto& nd = nodes[k];
          double sum = 0;
          if (nd.child < 0) {
            for (int i = nd.begin; i < nd.end; ++i) ++seen[i], sum += pts[i].m;
            capacity = capacity && (nd.end - nd.begin <= leaf || l == 21);
          } else {
            tiles = tiles && nd.child >= lv[l + 1] && nd.child + nd.nchild <= lv[l + 2] && nd.nchild >= 1 &&
                    nd.nchild <= 8 && nodes[nd.child].begin == nd.begin &&
                    nodes[nd.child + nd.nchild - 1].end == nd.end;
            for (int c = 0; c < nd.nchild; ++c) {
              sum += nodes[nd.child + c].m;
              if (c > 0) tiles = tiles && nodes[nd.child + c].begin == nodes[nd.child + c - 1].end;
              tiles = tiles && nodes[nd.child + c].end > nodes[nd.child + c].begin;
            }
          }
          masses = masses && std::abs(nd.m - sum) <= 1e-12 * std::max(1.0, sum);
        }
      CHECK(std::all_of(seen.begin(), seen.end(), [](int s) { return s == 1; }));
      CHECK(tiles);
      CHECK(masses);
      CHECK(capacity);
      CHECK(nodes[0].m == doctest::Approx(std::accumulate(m.begin(), m.end(), 0.0)).epsilon(1e-12));
    }
}

TEST_CASE("direct summation matches an independent long-double sum") {
  const auto bodies = nb::plummer(300, 11);
  const auto d = direct_field<Kokkos::DefaultHostExecutionSpace>(bodies, 0.05);
  double worst = 0;
  for (std::size_t i = 0; i < bodies.size(); ++i) {
    long double a[3] = {0, 0, 0}, phi = 0;
    for (std::size_t j = 0; j < bodies.size(); ++j) {
      if (i == j) continue;
      const long double dx = bodies[j].x - bodies[i].x, dy = bodies[j].y - bodies[i].y, dz = bodies[j].z - bodies[i].z;
      const long double r2 = dx * dx + dy * dy + dz * dz + 0.0025L, inv = 1 / std::sqrt(r2);
      a[0] += bodies[j].m * dx * inv * inv * inv, a[1] += bodies[j].m * dy * inv * inv * inv;
      a[2] += bodies[j].m * dz * inv * inv * inv, phi -= bodies[j].m * inv;
    }
    worst = std::max({worst, double(std::abs(d.ax[i] - a[0]) / std::abs(a[0])),
                      double(std::abs(d.phi[i] - phi) / std::abs(phi))});
  }
  CHECK(worst < 1e-10);
}

TEST_CASE_TEMPLATE("theta = 0 opens every node: the tree force equals direct summation", Space, SWEEP_TEST_SPACES) {
  for (const auto& bodies : {nb::plummer(3000, 21), nb::colliding_disks(2000, 22)}) {
    const auto t = tree_field<Space>(bodies, 0.0);
    const auto d = direct_field<Space>(bodies);
    const auto err = relative_errors(t, d);
    CHECK(*std::max_element(err.begin(), err.end()) < 1e-11);
    bool phi = true, cost = true;
    for (std::size_t i = 0; i < bodies.size(); ++i) {
      phi = phi && std::abs(t.phi[i] - d.phi[i]) <= 1e-11 * std::abs(d.phi[i]);
      cost = cost && t.cost[i] == bodies.size() - 1 && d.cost[i] == bodies.size() - 1;
    }
    CHECK(phi);
    CHECK(cost);
  }
}

TEST_CASE_TEMPLATE("force error: median below 1e-3 at theta = 0.5 and falling with theta", Space, SWEEP_TEST_SPACES) {
  const auto bodies = nb::plummer(scaled(20000, 5000), 31);
  const auto d = direct_field<Space>(bodies);
  for (bool quadrupole : {true, false}) {
    CAPTURE(quadrupole);
    double previous = 1e300;
    std::uint64_t previous_cost = 0;
    for (double theta : {1.0, 0.7, 0.5, 0.3, 0.2}) {
      CAPTURE(theta);
      const auto t = tree_field<Space>(bodies, theta, quadrupole);
      const double med = median(relative_errors(t, d));
      MESSAGE(std::string(quadrupole ? "quadrupole" : "monopole"), ", theta ", theta, ": median relative force error ", med);
      if (theta == 0.5 && quadrupole) CHECK(med < 1e-3);
      CHECK(med < previous);
      const std::uint64_t cost = std::accumulate(t.cost.begin(), t.cost.end(), std::uint64_t(0));
      CHECK(cost > previous_cost);  // more interactions buy the accuracy
      previous = med;
      previous_cost = cost;
    }
  }
}

TEST_CASE_TEMPLATE("the walk does not depend on the partition: every scheme gives the same forces", Space,
                   SWEEP_TEST_SPACES) {
  const auto bodies = nb::colliding_disks(5000, 41);
  std::vector<field> results;
  for (auto s : {nb::scheme::costzones, nb::scheme::orb, nb::scheme::equal_count, nb::scheme::random}) {
    nb::simulation_parameters p;
    p.balance = s;
    p.partitions = 5;
    nb::simulation<Space> sim(Space(), bodies, p);
    results.push_back(field_by_id(sim.arrays()));
  }
  for (std::size_t k = 1; k < results.size(); ++k) {
    CHECK(results[k].ax == results[0].ax);
    CHECK(results[k].phi == results[0].phi);
    CHECK(results[k].cost == results[0].cost);
  }
}

TEST_CASE_TEMPLATE("every host instruction-set level walks to the same forces, bit for bit", Space, SWEEP_TEST_SPACES) {
  // The host walk's lanes (AVX-512: 16 bodies for the float far field, 8
  // for the double near field; AVX2 8 and 4; SSE2 4 and 2) each do one
  // body's sums in the same order: the level changes no bit. The
  // walk also matches the one-body-at-a-time walk (the portable path, run
  // here on the host) to the accuracy of the method, and is no less
  // accurate against the direct sum.
  const auto bodies = nb::plummer(6000, 57);
  const auto direct = direct_field<Space>(bodies);
  for (double theta : {0.0, 0.5, 0.9})
    for (bool quadrupole : {true, false}) {
      CAPTURE(theta);
      CAPTURE(quadrupole);
      std::vector<field> levels;
      for (auto level : {sweep::host::isa::avx512, sweep::host::isa::avx2, sweep::host::isa::baseline}) {
        sweep::host::scoped_isa_limit cap(level);
        levels.push_back(tree_field<Space>(bodies, theta, quadrupole));
      }
      for (std::size_t k = 1; k < levels.size(); ++k) {
        CHECK(levels[k].ax == levels[0].ax);
        CHECK(levels[k].ay == levels[0].ay);
        CHECK(levels[k].az == levels[0].az);
        CHECK(levels[k].phi == levels[0].phi);
        CHECK(levels[k].cost == levels[0].cost);
      }
      if constexpr (sweep::detail::is_host_space_v<Space>) {
        // The portable walk, one body at a time, on the same tree.
        Space space;
        auto b = arrays_t<Space>::from_host(bodies);
        arrays_t<Space> spare(b.size());
        nb::octree<Space> tree(8);
        tree.build(space, b, spare, nb::bounding_box(space, b));
        tree.summarize(space, theta);
        const auto part = nb::make_partition(space, nb::scheme::equal_count, b, 3);
        using Mem = typename Space::memory_space;
        const nb::detail::tree_walk<Mem> walk{tree.nodes(), tree.quadrupoles(), tree.points(), 0.05 * 0.05, quadrupole};
        nb::detail::gravity_backend<Space, void>::template walk<Mem>(space, walk, walk, {}, b, 1.0, part.offsets, {});
        const field one = field_by_id(b);
        const double one_median = median(relative_errors(one, direct)), median_here = median(relative_errors(levels[0], direct));
        MESSAGE("theta ", theta, std::string(quadrupole ? " quadrupole" : " monopole"), ": median error ", median_here,
                " (one body at a time: ", one_median, ")");
        CHECK(median_here <= one_median * (1 + 1e-9) + 1e-15);
        const auto apart = relative_errors(one, levels[0]);
        if (theta == 0) CHECK(*std::max_element(apart.begin(), apart.end()) < 1e-12);
      }
    }
}

TEST_CASE_TEMPLATE("nodes too close for the single-precision far field are summed in double", Space,
                   SWEEP_TEST_SPACES) {
  // The local tree: 1000 bodies in the cube [2e6, 4e6]^3 and a cluster A of
  // 100 bodies 1e-12 across near the origin (alone in its octant: a group
  // of its own, whose unit of length is then 2^-20 of the tree's edge, 4).
  // Another tree (as another rank's would be) holds a cluster B like A,
  // 1e-9 away. Without softening, A's group accepts B's root at 1e-9: 1 /
  // r^5 of 1e48 in that unit, past float's range, so that group's far
  // field is summed again in double. Every level must agree bit for bit,
  // and every force be finite and as accurate as the method (B is 1e-3 of
  // its distance across).
  using Mem = typename Space::memory_space;
  Space space;
  auto mine = nb::uniform_cube(1000, 61);
  for (auto& b : mine) b.x = 3e6 + 1e6 * b.x, b.y = 3e6 + 1e6 * b.y, b.z = 3e6 + 1e6 * b.z;
  std::vector<nb::body> theirs;
  for (int c = 0; c < 2; ++c)
    for (int k = 0; k < 100; ++k) {
      nb::body b;
      b.m = 1e-3;
      b.x = 1e-3 + 1e-9 * c + 1e-12 * (k % 5) / 5, b.y = 1e-3 + 1e-12 * (k / 5 % 5) / 5;
      b.z = 1e-3 + 1e-12 * (k / 25) / 4;
      (c == 0 ? mine : theirs).push_back(b);
    }
  auto everyone = mine;
  everyone.insert(everyone.end(), theirs.begin(), theirs.end());
  const auto direct = direct_field<Space>(everyone, 0.0);
  auto other = arrays_t<Space>::from_host(theirs);
  arrays_t<Space> other_spare(other.size());
  nb::octree<Space> other_tree(8);
  other_tree.build(space, other, other_spare, nb::bounding_box(space, other));
  other_tree.summarize(space, 0.5);
  Kokkos::View<std::int32_t*, Mem> roots("roots", 1);  // zero: the root
  const nb::forest<Mem> others{other_tree.nodes(), other_tree.quadrupoles(), other_tree.points(), roots};
  for (bool quadrupole : {true, false}) {
    CAPTURE(quadrupole);
    std::vector<field> levels;
    for (auto level : {sweep::host::isa::avx512, sweep::host::isa::avx2, sweep::host::isa::baseline}) {
      sweep::host::scoped_isa_limit cap(level);
      auto b = arrays_t<Space>::from_host(mine);
      arrays_t<Space> spare(b.size());
      nb::octree<Space> tree(8);
      tree.build(space, b, spare, nb::bounding_box(space, b));
      tree.summarize(space, 0.5);
      const auto part = nb::make_partition(space, nb::scheme::equal_count, b, 3);
      nb::tree_accelerations(space, tree, others, b, nb::gravity_parameters{1.0, 0.0, quadrupole}, part.offsets);
      levels.push_back(field_by_id(b));
    }
    for (std::size_t k = 1; k < levels.size(); ++k) {
      CHECK(levels[k].ax == levels[0].ax);
      CHECK(levels[k].phi == levels[0].phi);
    }
    bool finite = true;
    double worst_a = 0, worst_cube = 0;
    for (std::size_t i = 0; i < mine.size(); ++i) {
      const field& f = levels[0];
      finite = finite && std::isfinite(f.ax[i]) && std::isfinite(f.ay[i]) && std::isfinite(f.az[i]) &&
               std::isfinite(f.phi[i]);
      const double e = std::hypot(f.ax[i] - direct.ax[i], f.ay[i] - direct.ay[i], f.az[i] - direct.az[i]) /
                       std::hypot(direct.ax[i], direct.ay[i], direct.az[i]);
      (i < 1000 ? worst_cube : worst_a) = std::max(i < 1000 ? worst_cube : worst_a, e);
    }
    CHECK(finite);
    MESSAGE("largest relative error: cluster A ", worst_a, ", the cube ", worst_cube);
    CHECK(worst_a < 1e-6);
    CHECK(worst_cube < 0.1);
  }
}

#if defined(__x86_64__) || defined(__i386__)
TEST_CASE_TEMPLATE("the walk leaves every thread's floating-point control word as it found it", Space,
                   SWEEP_TEST_SPACES) {
  // The host walk flushes subnormals (MXCSR FTZ and DAZ) while a thread
  // runs it, and restores those bits after: the caller's control bits (the
  // word less its exception flags), and the host threads' flush bits, must
  // be as they were.
  const auto flush_bits_on_threads = [] {
    unsigned any = 0;
    Kokkos::parallel_reduce(
        "csr", Kokkos::RangePolicy<Kokkos::DefaultHostExecutionSpace>(0, 256),
        [](int, unsigned& bits) { bits |= _mm_getcsr() & 0x8040u; }, Kokkos::BOr<unsigned>(any));
    return any;
  };
  const unsigned saved = _mm_getcsr();
  const auto bodies = nb::plummer(3000, 7);
  for (unsigned word : {saved & ~0x8040u, saved | 0x8040u}) {
    _mm_setcsr(word);
    const unsigned threads = flush_bits_on_threads();
    const auto f = tree_field<Space>(bodies, 0.5);
    CHECK(std::isfinite(f.ax[0]));
    CHECK((_mm_getcsr() & ~0x3fu) == (word & ~0x3fu));
    CHECK(flush_bits_on_threads() == threads);
  }
  _mm_setcsr(saved);
}
#endif

TEST_CASE_TEMPLATE("partitions cover every body exactly once; cost zones and ORB balance the recorded work", Space,
                   SWEEP_TEST_SPACES) {
  Space space;
  const auto bodies = nb::plummer(30000, 51);
  auto b = arrays_t<Space>::from_host(bodies);
  arrays_t<Space> spare(b.size());
  nb::octree<Space> tree(8);
  tree.build(space, b, spare, nb::bounding_box(space, b));
  tree.summarize(space, 0.5);
  {
    const auto one = nb::make_partition(space, nb::scheme::equal_count, b, 1);
    nb::tree_accelerations(space, tree, b, nb::gravity_parameters{}, one.offsets);
  }
  const auto cost = to_host(b.cost);
  const double total = std::accumulate(cost.begin(), cost.end(), 0.0);
  const double heaviest = *std::max_element(cost.begin(), cost.end());
  const auto x = to_host(b.x), y = to_host(b.y), z = to_host(b.z);
  const std::size_t n = bodies.size();
  for (auto s : {nb::scheme::costzones, nb::scheme::orb, nb::scheme::equal_count, nb::scheme::random})
    for (int parts : {1, 2, 3, 7, 16, 64}) {
      CAPTURE(nb::to_string(s));
      CAPTURE(parts);
      const auto p = nb::make_partition(space, s, b, parts, 9);
      REQUIRE(p.parts() == parts);
      const auto off = to_host(p.offsets);
      CHECK(off == p.host_offsets);
      CHECK(off.front() == 0);
      CHECK(off.back() == std::int64_t(n));
      CHECK(std::is_sorted(off.begin(), off.end()));
      std::vector<std::int32_t> slots(n);
      if (p.slots.extent(0) == 0) std::iota(slots.begin(), slots.end(), 0);
      else slots = to_host(p.slots);
      std::vector<std::int32_t> sorted = slots;
      std::sort(sorted.begin(), sorted.end());
      std::vector<std::int32_t> iota(n);
      std::iota(iota.begin(), iota.end(), 0);
      CHECK(sorted == iota);  // a permutation: every body once
      // Work per partition from the recorded costs.
      std::vector<double> work(parts, 0.0);
      for (int q = 0; q < parts; ++q)
        for (auto k = off[q]; k < off[q + 1]; ++k) work[q] += cost[slots[k]];
      const double imbalance = *std::max_element(work.begin(), work.end()) / (total / parts);
      int levels = 0;
      while ((1 << levels) < parts) ++levels;
      if (s == nb::scheme::costzones) CHECK(imbalance <= 1 + parts * heaviest / total + 1e-12);
      if (s == nb::scheme::orb) CHECK(imbalance <= 1 + 2 * levels * parts * heaviest / total + 1e-12);
      if (s == nb::scheme::orb && parts == 2) {
        // One cut across the longest side: the halves do not interleave.
        int axis = 0;
        double lo[3] = {1e300, 1e300, 1e300}, hi[3] = {-1e300, -1e300, -1e300};
        for (std::size_t i = 0; i < n; ++i) {
          const double c[3] = {x[i], y[i], z[i]};
          for (int d = 0; d < 3; ++d) lo[d] = std::min(lo[d], c[d]), hi[d] = std::max(hi[d], c[d]);
        }
        for (int d = 1; d < 3; ++d)
          if (hi[d] - lo[d] > hi[axis] - lo[axis]) axis = d;
        const auto& coord = axis == 0 ? x : (axis == 1 ? y : z);
        double left_max = -1e300, right_min = 1e300;
        for (auto k = off[0]; k < off[1]; ++k) left_max = std::max(left_max, double(float(coord[slots[k]])));
        for (auto k = off[1]; k < off[2]; ++k) right_min = std::min(right_min, double(float(coord[slots[k]])));
        CHECK(left_max <= right_min);
      }
      // apply() moves the bodies into partition order.
      arrays_t<Space> moved(b.size()), scratch(b.size());
      Kokkos::deep_copy(moved.id, b.id);
      nb::apply(space, p, moved, scratch);
      const auto id_before = to_host(b.id), id_after = to_host(moved.id);
      bool order = true;
      for (std::size_t k = 0; k < n; ++k) order = order && id_after[k] == id_before[slots[k]];
      CHECK(order);
    }
}

TEST_CASE_TEMPLATE("leapfrog at theta = 0 conserves momentum to rounding", Space, SWEEP_TEST_SPACES) {
  nb::simulation_parameters p;
  p.theta = 0;
  nb::simulation<Space> sim(Space(), nb::plummer(1000, 61), p);
  const auto d0 = sim.measure();
  double scale = 0;
  for (const auto& q : sim.bodies()) scale += q.m * std::sqrt(q.vx * q.vx + q.vy * q.vy + q.vz * q.vz);
  for (int s = 0; s < 40; ++s) sim.step();
  const auto d1 = sim.measure();
  for (int k = 0; k < 3; ++k) {
    CHECK(std::abs(d1.momentum[k] - d0.momentum[k]) <= 1e-13 * scale);
    CHECK(std::abs(d1.angular_momentum[k] - d0.angular_momentum[k]) <= 1e-12 * scale);
  }
}

TEST_CASE_TEMPLATE("a small Plummer sphere drifts in energy by less than 1e-3 over 1000 steps", Space,
                   SWEEP_TEST_SPACES) {
  nb::simulation_parameters p;  // G = 1, dt = 0.025, eps = 0.05, theta = 0.5
  nb::simulation<Space> sim(Space(), nb::plummer(512, 71), p);
  const double e0 = sim.measure().energy();
  CHECK(e0 < 0);
  double worst = 0;
  for (int s = 0; s < 1000; ++s) {
    sim.step();
    if (s % 50 == 49) worst = std::max(worst, std::abs(sim.measure().energy() - e0) / std::abs(e0));
  }
  MESSAGE("largest relative energy error over 1000 steps: ", worst);
  CHECK(worst < 1e-3);
  CHECK(sim.last().step == 1000);
  CHECK(sim.last().time == doctest::Approx(25.0));
}

TEST_CASE("the Plummer model has the Henon-unit energy -1/4") {
  const auto bodies = nb::plummer(4000, 81);
  const auto d = direct_field<Kokkos::DefaultHostExecutionSpace>(bodies, 0.0);
  double kin = 0, pot = 0, mass = 0;
  for (std::size_t i = 0; i < bodies.size(); ++i) {
    const auto& q = bodies[i];
    kin += 0.5 * q.m * (q.vx * q.vx + q.vy * q.vy + q.vz * q.vz);
    pot += 0.5 * q.m * d.phi[i];
    mass += q.m;
  }
  CHECK(mass == doctest::Approx(1.0));
  CHECK(kin + pot == doctest::Approx(-0.25).epsilon(0.05));  // sampling noise of 4000 bodies
  CHECK(-2 * kin / pot == doctest::Approx(1.0).epsilon(0.06));  // virial equilibrium
}

TEST_CASE("body files round-trip exactly in both formats") {
  const auto bodies = nb::colliding_disks(257, 91);
  const sweep_test::scratch_dir dir("sweep-test-bodies");  // one per process: parallel CTest
  for (const char* name : {"b.csv", "b.bin"}) {
    const auto path = (dir.path / name).string();
    nb::write_bodies(path, bodies);
    const auto back = nb::read_bodies(path);
    REQUIRE(back.size() == bodies.size());
    bool same = true;
    for (std::size_t i = 0; i < back.size(); ++i)
      same = same && back[i].m == bodies[i].m && back[i].x == bodies[i].x && back[i].vz == bodies[i].vz &&
             back[i].y == bodies[i].y && back[i].z == bodies[i].z && back[i].vx == bodies[i].vx &&
             back[i].vy == bodies[i].vy;
    CHECK(same);
  }
}

TEST_CASE_TEMPLATE("the README example runs as written", Space, SWEEP_TEST_SPACES) {
  Space space;
  const sweep_test::scratch_dir dir("sweep-readme-galaxy");  // one per process: parallel CTest
  const auto cwd = std::filesystem::current_path();
  std::filesystem::current_path(dir.path);
  {
    // --- as in README.md
    namespace nb = sweep::nbody;
    auto bodies = nb::plummer(10000, 1);          // or nb::read_bodies("bodies.csv"), nb::colliding_disks, nb::uniform_cube
    nb::simulation_parameters p;                  // G = 1, dt = 0.025, eps = 0.05, theta = 0.5
    p.balance = nb::scheme::costzones;            // orb, equal_count (static), random
    nb::simulation<Space> sim(space, bodies, p);
    for (int s = 0; s < 10; ++s) {
      const nb::step_report& r = sim.step();      // r.seconds.force, r.interactions, r.imbalance
      std::printf("step %lld: %.1f ms, imbalance %.3f\n", (long long)r.step, 1e3 * r.seconds.total(), r.imbalance);
    }
    nb::diagnostics d = sim.measure();            // d.energy(), d.momentum, d.angular_momentum
    nb::write_bodies("bodies.bin", sim.bodies()); // binary; CSV when the name ends in .csv
    // ---
    CHECK(sim.last().step == 10);
    CHECK(d.energy() == doctest::Approx(-0.25).epsilon(0.05));
    CHECK(nb::read_bodies("bodies.bin").size() == 10000);
  }
  std::filesystem::current_path(cwd);
}
