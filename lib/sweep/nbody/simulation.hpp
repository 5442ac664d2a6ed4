// A Barnes-Hut simulation: leapfrog (kick-drift-kick) with the tree force
// each step, load balanced by one of the schemes of partition.hpp, every
// phase timed.
//
//   step():  kick dt/2, drift dt            (integrate)
//            bounding box                   (bbox)
//            Morton sort + octree           (build)
//            masses, centres, radii         (summarize)
//            partition + reorder            (partition)
//            tree walk, costs recorded      (force)
//            kick dt/2                      (integrate)
//
// The partition of a step is cut from the costs the previous step
// recorded (the first from one force evaluation at construction), as
// SPLASH-2 does. `measure()` sums kinetic and potential energy (the
// potential from the last walk, with the tree's approximation), momentum
// and angular momentum.
#pragma once

#include <sweep/detail/timing.hpp>
#include <sweep/nbody/bodies.hpp>
#include <sweep/nbody/gravity.hpp>
#include <sweep/nbody/octree.hpp>
#include <sweep/nbody/partition.hpp>

#include <Kokkos_Core.hpp>

#include <cmath>
#include <cstdint>
#include <vector>

namespace sweep::nbody {

struct simulation_parameters {
  double G = 1.0;
  double dt = 0.025;
  double eps = 0.05;
  double theta = 0.5;
  bool quadrupole = true;   // false: monopole only
  int leaf_capacity = 8;
  scheme balance = scheme::costzones;
  int partitions = 0;       // 0: threads on a CPU, enough teams to fill a GPU
  std::uint64_t seed = 1;   // scheme::random
};

struct phase_times {
  double bbox = 0, build = 0, summarize = 0, partition = 0, force = 0, integrate = 0;
  double total() const { return bbox + build + summarize + partition + force + integrate; }
};

struct step_report {
  index_t step = 0;
  double time = 0;             // simulated time after the step
  phase_times seconds;
  std::uint64_t interactions = 0;
  double imbalance = 1;        // max / mean work over the partitions of this step
};

struct diagnostics {
  double kinetic = 0, potential = 0;
  double momentum[3] = {0, 0, 0};
  double angular_momentum[3] = {0, 0, 0};
  double mass = 0;
  double energy() const { return kinetic + potential; }
};

namespace detail {

inline void check_parameters(const simulation_parameters& p, const char* where) {
  sweep::detail::require(std::isfinite(p.dt) && p.dt > 0, where, "dt = ", p.dt, " must be finite and > 0");
  sweep::detail::require(std::isfinite(p.theta) && p.theta >= 0, where, "theta = ", p.theta,
                         " must be finite and >= 0");
  sweep::detail::require(p.leaf_capacity >= 1, where, "leaf_capacity = ", p.leaf_capacity, " must be >= 1");
  sweep::detail::require(p.partitions >= 0, where, "partitions = ", p.partitions, " must be >= 0");
  check_gravity(gravity_parameters{p.G, p.eps}, where);
}

/// Sums of a diagnostics record, an array reduction of 9 doubles.
template <class Mem>
struct diagnostics_sums {
  using value_type = double[];
  unsigned value_count = 9;
  body_arrays<Mem> b;
  KOKKOS_INLINE_FUNCTION void operator()(const index_t i, value_type s) const {
    const double m = b.m(i), vx = b.vx(i), vy = b.vy(i), vz = b.vz(i);
    s[0] += 0.5 * m * (vx * vx + vy * vy + vz * vz);
    s[1] += 0.5 * m * b.phi(i);
    s[2] += m * vx, s[3] += m * vy, s[4] += m * vz;
    s[5] += m * (b.y(i) * vz - b.z(i) * vy);
    s[6] += m * (b.z(i) * vx - b.x(i) * vz);
    s[7] += m * (b.x(i) * vy - b.y(i) * vx);
    s[8] += m;
  }
};

}  // namespace detail

/// v += a h.
template <class ExecSpace, class Mem>
void kick(const ExecSpace& space, const body_arrays<Mem>& b, double h) {
  Kokkos::parallel_for(
      "sweep::nbody::kick", sweep::detail::range_policy<ExecSpace>(space, 0, b.size()), KOKKOS_LAMBDA(const index_t i) {
        b.vx(i) += h * b.ax(i), b.vy(i) += h * b.ay(i), b.vz(i) += h * b.az(i);
      });
}

/// x += v h.
template <class ExecSpace, class Mem>
void drift(const ExecSpace& space, const body_arrays<Mem>& b, double h) {
  Kokkos::parallel_for(
      "sweep::nbody::drift", sweep::detail::range_policy<ExecSpace>(space, 0, b.size()), KOKKOS_LAMBDA(const index_t i) {
        b.x(i) += h * b.vx(i), b.y(i) += h * b.vy(i), b.z(i) += h * b.vz(i);
      });
}

/// Sums of the bodies' energies and momenta.
template <class ExecSpace, class Mem>
diagnostics measure(const ExecSpace& space, const body_arrays<Mem>& b) {
  Kokkos::View<double*, Kokkos::HostSpace> s("sweep::nbody::diagnostics", 9);
  Kokkos::parallel_reduce("sweep::nbody::diagnostics", sweep::detail::range_policy<ExecSpace>(space, 0, b.size()),
                          detail::diagnostics_sums<Mem>{9, b}, s);
  space.fence();
  diagnostics d;
  d.kinetic = s(0), d.potential = s(1);
  for (int k = 0; k < 3; ++k) d.momentum[k] = s(2 + k), d.angular_momentum[k] = s(5 + k);
  d.mass = s(8);
  return d;
}

/// Sum of the bodies' recorded interactions.
template <class ExecSpace, class Mem>
std::uint64_t total_interactions(const ExecSpace& space, const body_arrays<Mem>& b) {
  std::uint64_t sum = 0;
  const auto cost = b.cost;
  Kokkos::parallel_reduce(
      "sweep::nbody::interactions", sweep::detail::range_policy<ExecSpace>(space, 0, b.size()),
      KOKKOS_LAMBDA(const index_t i, std::uint64_t& acc) { acc += cost(i); }, sum);
  return sum;
}

/// The partitions a space runs by default: one team of the tree walk per
/// tuning<ExecSpace>::gravity::team_size lanes (one per thread on a CPU).
template <class ExecSpace>
int default_partitions(const ExecSpace& space) {
  return std::max(1, space.concurrency() / tuning<ExecSpace>::gravity::team_size);
}

template <class ExecSpace = Kokkos::DefaultExecutionSpace>
class simulation {
 public:
  using memory_space = typename ExecSpace::memory_space;

  simulation(const ExecSpace& space, const std::vector<body>& bodies, const simulation_parameters& p = {})
      : m_space(space), m_p(checked(p)), m_tree(p.leaf_capacity), m_bodies(body_arrays<memory_space>::from_host(bodies)),
        m_spare(m_bodies.size()) {
    m_parts = m_p.partitions > 0 ? m_p.partitions : default_partitions(space);
    phase_times ignored;
    forces(ignored);
  }

  /// One kick-drift-kick step.
  const step_report& step() {
    sweep::detail::scoped_region region("sweep::nbody::simulation::step");
    phase_times t;
    t.integrate += timed([&] {
      kick(m_space, m_bodies, 0.5 * m_p.dt);
      drift(m_space, m_bodies, m_p.dt);
    });
    forces(t);
    t.integrate += timed([&] { kick(m_space, m_bodies, 0.5 * m_p.dt); });
    ++m_report.step;
    m_report.time += m_p.dt;
    m_report.seconds = t;
    return m_report;
  }

  diagnostics measure() const { return nbody::measure(m_space, m_bodies); }
  const step_report& last() const { return m_report; }
  const simulation_parameters& parameters() const { return m_p; }
  int partitions() const { return m_parts; }
  /// The bodies in their current (partition) order.
  const body_arrays<memory_space>& arrays() const { return m_bodies; }
  const octree<ExecSpace>& tree() const { return m_tree; }
  const partition<memory_space>& last_partition() const { return m_partition; }
  /// The bodies in input order.
  std::vector<body> bodies() const { return m_bodies.to_host(); }

 private:
  static simulation_parameters checked(const simulation_parameters& p) {
    detail::check_parameters(p, "sweep::nbody::simulation");
    return p;
  }

  template <class F>
  double timed(F&& f) {
    return sweep::detail::fenced_seconds(m_space, f);
  }

  void forces(phase_times& t) {
    box bounds;
    t.bbox += timed([&] { bounds = bounding_box(m_space, m_bodies); });
    t.build += timed([&] { m_tree.build(m_space, m_bodies, m_spare, bounds); });
    t.summarize += timed([&] { m_tree.summarize(m_space, m_p.theta); });
    t.partition += timed([&] {
      m_partition = make_partition(m_space, m_p.balance, m_bodies, m_parts, m_p.seed + std::uint64_t(m_report.step));
      apply(m_space, m_partition, m_bodies, m_spare);
    });
    t.force += timed([&] {
      tree_accelerations(m_space, m_tree, m_bodies, gravity_parameters{m_p.G, m_p.eps, m_p.quadrupole}, m_partition.offsets,
                         m_partition.slots);
    });
    const auto balance = measure_balance(m_space, m_partition, m_bodies);
    m_report.imbalance = balance.imbalance;
    m_report.interactions = total_interactions(m_space, m_bodies);
  }

  ExecSpace m_space;
  simulation_parameters m_p;
  octree<ExecSpace> m_tree;
  body_arrays<memory_space> m_bodies, m_spare;
  partition<memory_space> m_partition;
  int m_parts = 1;
  step_report m_report;
};

}  // namespace sweep::nbody
