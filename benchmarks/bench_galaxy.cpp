// Barnes-Hut phases on a Plummer sphere (theta = 0.5, quadrupole, leaf 8,
// eps = 0.05), rows `galaxy/<phase>/<scheme>/<N>`, N = 10^4 .. 10^6
// (SWEEP_BENCH_GALAXY_MAX_LOG10N / _MIN_ change the range):
//
//   bbox/none        three min/max reductions        24 B per body
//   build/none       Morton codes, radix sort, permutation of the body
//                    arrays, octree levels           bodies_per_second
//   summarize/none   masses, centres, quadrupoles     bodies_per_second
//   partition/<s>    cut + reorder by scheme s        bodies_per_second
//                    (10 ms minimum time: "min_time:0.010" in the name)
//   force/<s>        tree walk, partitions = threads  interactions_per_second
//   integrate/none   kick, drift, kick               216 B per body
//   step/<s>         one whole simulation step       interactions_per_second
//   force/direct     O(N^2) summation (N <= 10^5)    interactions_per_second
//   copy/bodies      a copy of positions, velocities and masses (56 B per
//                    body read + write), ordinary stores
//   copy_streaming/bodies  the same bytes with non-temporal stores (x86
//                    hosts); the ceiling at an N is the faster copy row
//
// Schemes: costzones, orb, static, random. Partitions are cut from the
// costs one force evaluation recorded. Force rows also report `imbalance`
// (max / mean work over the partitions that ran), `runs` (mean runs of
// consecutive tree slots per partition: locality, 1 = one compact zone)
// and the imbalance the same costs give at 16 and 64 partitions.
#include "common/bench_support.hpp"

#include <sweep/nbody.hpp>

#include <cmath>
#include <cstdlib>
#include <map>
#include <memory>
#include <string>

namespace {

using namespace sweep_bench;
namespace nb = sweep::nbody;
using Arrays = nb::body_arrays<Memory>;

const nb::gravity_parameters gravity{1.0, 0.05, true};
constexpr double theta = 0.5;
const nb::scheme schemes[] = {nb::scheme::costzones, nb::scheme::orb, nb::scheme::equal_count, nb::scheme::random};

/// A Plummer sphere of N bodies in Morton order with its summarized tree
/// and the costs of one force evaluation; built once per N.
struct prepared {
  Arrays sorted, work, spare;
  nb::octree<Space> tree{8};
  nb::box bounds;
  explicit prepared(std::int64_t n)
      : sorted(Arrays::from_host(nb::plummer(n, 2026))), work(n), spare(n) {
    Space space;
    bounds = nb::bounding_box(space, sorted);
    tree.build(space, sorted, spare, bounds);
    tree.summarize(space, theta);
    const auto one = nb::make_partition(space, nb::scheme::equal_count, sorted, 1);
    nb::tree_accelerations(space, tree, sorted, gravity, one.offsets);
    space.fence();
  }
};

prepared& state_for(std::int64_t n) {
  static std::map<std::int64_t, std::unique_ptr<prepared>> cache;
  // Views must go before Kokkos does.
  static const bool hooked = (Kokkos::push_finalize_hook([] { cache.clear(); }), true);
  (void)hooked;
  auto& p = cache[n];
  if (!p) p = std::make_unique<prepared>(n);
  return *p;
}

/// Fenced timing without a warm-up run (the rows are long, their setup
/// already touched everything).
template <class Body>
void timed_loop(benchmark::State& state, Body&& body) {
  Space space;
  for (auto _ : state) timed(state, space, body);
}

void set_rate(benchmark::State& state, const char* name, double per_iteration) {
  state.counters[name] = benchmark::Counter(per_iteration * double(state.iterations()), benchmark::Counter::kIsRate);
}

void bench_copy_bodies(benchmark::State& state, std::int64_t n) {
  auto& p = state_for(n);
  Space space;
  const auto a = p.sorted, b = p.work;
  run_timed(state, space, 2.0 * 56.0 * double(n), [&] {
    Kokkos::parallel_for(
        "sweep::bench::copy_bodies", Kokkos::RangePolicy<Space>(space, 0, n), KOKKOS_LAMBDA(const std::int64_t i) {
          b.x(i) = a.x(i), b.y(i) = a.y(i), b.z(i) = a.z(i);
          b.vx(i) = a.vx(i), b.vy(i) = a.vy(i), b.vz(i) = a.vz(i), b.m(i) = a.m(i);
        });
  });
}

void bench_bbox(benchmark::State& state, std::int64_t n) {
  auto& p = state_for(n);
  Space space;
  run_timed(state, space, 24.0 * double(n), [&] { benchmark::DoNotOptimize(nb::bounding_box(space, p.sorted)); });
}

void bench_build(benchmark::State& state, std::int64_t n) {
  auto& p = state_for(n);
  Space space;
  nb::octree<Space> tree(8);
  p.work.assign(space, p.sorted);
  // The bodies arrive in Morton order from the last step, as in a run.
  timed_loop(state, [&] { tree.build(space, p.work, p.spare, p.bounds); });
  set_rate(state, "bodies_per_second", double(n));
  state.counters["nodes"] = double(tree.node_count());
  state.counters["levels"] = tree.levels();
}

void bench_summarize(benchmark::State& state, std::int64_t n) {
  auto& p = state_for(n);
  Space space;
  timed_loop(state, [&] { p.tree.summarize(space, theta); });
  set_rate(state, "bodies_per_second", double(n));
}

void bench_partition(benchmark::State& state, std::int64_t n, nb::scheme s) {
  auto& p = state_for(n);
  Space space;
  const int parts = nb::default_partitions(space);
  for (auto _ : state) {
    p.work.assign(space, p.sorted);
    timed(state, space, [&] {
      const auto part = nb::make_partition(space, s, p.work, parts);
      nb::apply(space, part, p.work, p.spare);
    });
  }
  set_rate(state, "bodies_per_second", double(n));
}

void bench_force(benchmark::State& state, std::int64_t n, nb::scheme s) {
  auto& p = state_for(n);
  Space space;
  const int parts = nb::default_partitions(space);
  p.work.assign(space, p.sorted);
  const auto part = nb::make_partition(space, s, p.work, parts);
  nb::apply(space, part, p.work, p.spare);
  timed_loop(state, [&] { nb::tree_accelerations(space, p.tree, p.work, gravity, part.offsets, part.slots); });
  const double interactions = double(nb::total_interactions(space, p.work));
  set_rate(state, "interactions_per_second", interactions);
  state.counters["interactions_per_body"] = interactions / double(n);
  const auto balance = nb::measure_balance(space, part, p.work);
  state.counters["imbalance"] = balance.imbalance;
  state.counters["runs"] = balance.runs;
  state.counters["partitions"] = parts;
  // The same costs cut for more processors than this machine has.
  for (int many : {16, 64}) {
    p.work.assign(space, p.sorted);
    const auto wide = nb::make_partition(space, s, p.work, many);
    nb::apply(space, wide, p.work, p.spare);
    state.counters[many == 16 ? "imbalance_p16" : "imbalance_p64"] = nb::measure_balance(space, wide, p.work).imbalance;
  }
}

void bench_direct(benchmark::State& state, std::int64_t n) {
  auto& p = state_for(n);
  Space space;
  p.work.assign(space, p.sorted);
  timed_loop(state, [&] { nb::direct_accelerations(space, p.work, gravity); });
  set_rate(state, "interactions_per_second", double(n) * double(n - 1));
}

void bench_integrate(benchmark::State& state, std::int64_t n) {
  auto& p = state_for(n);
  Space space;
  p.work.assign(space, p.sorted);
  run_timed(state, space, 216.0 * double(n), [&] {
    nb::kick(space, p.work, 1e-9);
    nb::drift(space, p.work, 1e-9);
    nb::kick(space, p.work, 1e-9);
  });
}

void bench_step(benchmark::State& state, std::int64_t n, nb::scheme s) {
  nb::simulation_parameters params;
  params.balance = s;
  params.theta = theta;
  nb::simulation<Space> sim(Space(), nb::plummer(n, 2026), params);
  double interactions = 0;
  timed_loop(state, [&] { interactions += double(sim.step().interactions); });
  set_rate(state, "interactions_per_second", interactions / double(state.iterations()));
  state.counters["imbalance"] = sim.last().imbalance;
}

int env_int(const char* name, int fallback) {
  const char* v = std::getenv(name);
  return (v && *v) ? std::atoi(v) : fallback;
}

}  // namespace

void sweep_bench::register_suite() {
  const int lo = env_int("SWEEP_BENCH_GALAXY_MIN_LOG10N", 4), hi = env_int("SWEEP_BENCH_GALAXY_MAX_LOG10N", 6);
  for (int e = lo; e <= hi; ++e) {
    std::int64_t n = 1;
    for (int k = 0; k < e; ++k) n *= 10;
    const std::string ns = std::string("/").append(std::to_string(n));
    register_row("galaxy/copy/bodies" + ns, [n](benchmark::State& s) { bench_copy_bodies(s, n); });
    register_copy_streaming_bytes("galaxy/copy_streaming/bodies" + ns, 56 * n);
    register_row("galaxy/bbox/none" + ns, [n](benchmark::State& s) { bench_bbox(s, n); });
    register_row("galaxy/build/none" + ns, [n](benchmark::State& s) { bench_build(s, n); });
    register_row("galaxy/summarize/none" + ns, [n](benchmark::State& s) { bench_summarize(s, n); });
    register_row("galaxy/integrate/none" + ns, [n](benchmark::State& s) { bench_integrate(s, n); });
    for (auto sc : schemes) {
      const std::string name = nb::to_string(sc);
      // An iteration copies the bodies back untimed (as the copy row does:
      // 2.7 ms at 10^6 on a 2-core VM) before a partition that may take
      // microseconds (equal_count): 10 ms of timed work per repetition, not
      // the default 0.5 s, keeps the row from running for minutes.
      register_row("galaxy/partition/" + name + ns, [n, sc](benchmark::State& s) { bench_partition(s, n, sc); })
          ->MinTime(0.01);
      register_row("galaxy/force/" + name + ns, [n, sc](benchmark::State& s) { bench_force(s, n, sc); });
    }
    if (n <= 100000) register_row("galaxy/force/direct" + ns, [n](benchmark::State& s) { bench_direct(s, n); });
    for (auto sc : schemes) {
      const std::string name = nb::to_string(sc);
      register_row("galaxy/step/" + name + ns, [n, sc](benchmark::State& s) { bench_step(s, n, sc); });
    }
  }
}
