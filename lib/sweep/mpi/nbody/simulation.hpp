// Barnes-Hut across ranks: sweep::nbody's leapfrog with the bodies spread
// over the ranks of a communicator, each rank a Kokkos space.
//
//   sweep::mpi::nbody::simulation<> sim(MPI_COMM_WORLD, space, my_bodies, parameters);
//   sim.step();                            // collective
//   auto d = sim.measure();                // the same on every rank
//   auto all = sim.gather();               // every body, in input order, on rank 0
//
// Each rank passes its part of the bodies (rank 0 may pass them all and
// the others none: the first decomposition then scatters them); a body's
// id is its place in the concatenation of the parts in rank order.
//
// A step (every phase timed on every rank, step_report):
//   integrate   kick dt/2, drift dt (local)
//   decompose   global bounding box, then every body's owner by
//               parameters.balance: costzones, orb or static, from the
//               interaction counts of the previous step (domain.hpp)
//   migrate     the bodies to their owners: one all-to-all exchange
//   build       this rank's octree (sweep::nbody::octree) and its
//               thread-level partition (the same scheme inside the rank)
//   exchange    locally essential trees (essential_tree.hpp): the domains'
//               boxes by MPI_Allgather, then the trees
//   force       the walk over the local tree and the received ones
//   integrate   kick dt/2
// The decomposition and migration also run once at construction, with a
// force evaluation, as sweep::nbody::simulation does.
//
// Results: a body's force is the walk over every rank's tree (not one
// global tree), so it differs from sweep::nbody::simulation's by the
// truncation errors of other nodes under the same opening criterion; at
// theta = 0 it is the direct sum (to rounding). Energies and momenta are
// sums over ranks (MPI_Allreduce). Body files are read by rank 0 and
// scattered by the first decomposition, and gathered to rank 0 for writing
// (gather).
//
// Errors (every rank throws the same std::invalid_argument): the
// single-process parameter checks, scheme random, parameters that differ
// across ranks (all but partitions, which is per rank), a body with a
// non-finite value or a negative mass (named by its global index), no
// bodies on any rank, a total mass of 0.
#pragma once

#include <sweep/mpi/core.hpp>
#include <sweep/mpi/nbody/domain.hpp>
#include <sweep/mpi/nbody/essential_tree.hpp>
#include <sweep/nbody/simulation.hpp>

#include <Kokkos_Core.hpp>

#include <algorithm>
#include <bit>
#include <climits>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <string>
#include <tuple>
#include <vector>

namespace sweep::mpi::nbody {

/// Seconds per phase of one step on one rank.
struct phase_times {
  double decompose = 0, migrate = 0, build = 0, exchange = 0, force = 0, integrate = 0;
  double total() const { return decompose + migrate + build + exchange + force + integrate; }
};

/// One rank's record of its last step.
struct step_report {
  index_t step = 0;
  double time = 0;             ///< simulated time after the step
  phase_times seconds;
  index_t bodies = 0;          ///< this rank's bodies after the migration
  std::uint64_t work = 0;      ///< interactions of this rank's bodies (its force walk)
  migration_report migration;
  essential_report essential;
};

/// Work across the ranks (the same on every rank).
struct balance_report {
  std::vector<std::uint64_t> work;  ///< per rank
  std::vector<index_t> bodies;      ///< per rank
  double imbalance = 1;             ///< max / mean work
};

namespace detail {

/// A body with its id, as gather moves it.
struct tagged_body {
  std::int64_t id;
  nb::body b;
};

/// Local checks of a rank's part: every value finite, masses >= 0; bodies
/// are named by their global index.
inline void check_part(const std::vector<nb::body>& part, index_t offset, const char* where) {
  for (std::size_t i = 0; i < part.size(); ++i) {
    const nb::body& q = part[i];
    const double f[7] = {q.m, q.x, q.y, q.z, q.vx, q.vy, q.vz};
    for (double v : f)
      sweep::detail::require(std::isfinite(v), where, "body ", offset + index_t(i), " has a non-finite value (", v,
                             ")");
    sweep::detail::require(q.m >= 0, where, "body ", offset + index_t(i), " has negative mass ", q.m);
  }
}

template <class Mem>
nb::body_arrays<Mem> upload(const std::vector<nb::body>& part, index_t offset) {
  nb::body_arrays<Mem> out(index_t(part.size()));
  auto hx = Kokkos::create_mirror_view(out.x), hy = Kokkos::create_mirror_view(out.y),
       hz = Kokkos::create_mirror_view(out.z), hvx = Kokkos::create_mirror_view(out.vx),
       hvy = Kokkos::create_mirror_view(out.vy), hvz = Kokkos::create_mirror_view(out.vz),
       hm = Kokkos::create_mirror_view(out.m);
  auto hid = Kokkos::create_mirror_view(out.id);
  for (std::size_t i = 0; i < part.size(); ++i) {
    hm(i) = part[i].m;
    hx(i) = part[i].x, hy(i) = part[i].y, hz(i) = part[i].z;
    hvx(i) = part[i].vx, hvy(i) = part[i].vy, hvz(i) = part[i].vz;
    hid(i) = std::int64_t(offset + index_t(i));
  }
  Kokkos::deep_copy(out.x, hx), Kokkos::deep_copy(out.y, hy), Kokkos::deep_copy(out.z, hz);
  Kokkos::deep_copy(out.vx, hvx), Kokkos::deep_copy(out.vy, hvy), Kokkos::deep_copy(out.vz, hvz);
  Kokkos::deep_copy(out.m, hm), Kokkos::deep_copy(out.id, hid);
  return out;
}

}  // namespace detail

template <class ExecSpace = Kokkos::DefaultExecutionSpace>
class simulation {
 public:
  using memory_space = typename ExecSpace::memory_space;

  /// Collective over comm's ranks; `part` is this rank's share of the
  /// bodies (possibly none).
  simulation(MPI_Comm comm, const ExecSpace& space, const std::vector<nb::body>& part,
             const nb::simulation_parameters& p = {}, transport how = transport::automatic)
      : m_comm(comm), m_space(space), m_p(p), m_how(how), m_tree(std::max(1, p.leaf_capacity)) {
    static constexpr const char* where = "sweep::mpi::nbody::simulation";
    sweep::detail::scoped_region region(where);
    detail::require_comm(comm, where);
    index_t offset = 0, total = 0;
    std::tie(offset, total) = sweep::mpi::detail::offset_and_total(comm, index_t(part.size()));
    detail::checked(comm, where, [&] {
      nb::detail::check_parameters(p, where);
      sweep::detail::require(p.balance != nb::scheme::random, where,
                             "scheme random has no distributed form (costzones, orb or static)");
      detail::check_part(part, offset, where);
    });
    detail::require_same(comm, where,
                         {{"G (bits)", bits(p.G)},
                          {"dt (bits)", bits(p.dt)},
                          {"eps (bits)", bits(p.eps)},
                          {"theta (bits)", bits(p.theta)},
                          {"quadrupole", p.quadrupole},
                          {"leaf_capacity", p.leaf_capacity},
                          {"balance", static_cast<long long>(p.balance)},
                          {"seed", static_cast<long long>(p.seed)}});
    double mass = 0, all_mass = 0;
    for (const auto& b : part) mass += b.m;
    detail::check_mpi(MPI_Allreduce(&mass, &all_mass, 1, MPI_DOUBLE, MPI_SUM, comm), "MPI_Allreduce");
    detail::checked(comm, where, [&] {
      sweep::detail::require(total > 0, where, "N = 0: no rank has bodies");
      sweep::detail::require(all_mass > 0, where, "the total mass is 0");
    });
    m_rank = detail::comm_rank(comm);
    m_size = detail::comm_size(comm);
    m_bodies = detail::upload<memory_space>(part, offset);
    m_parts = m_p.partitions > 0 ? m_p.partitions : nb::default_partitions(space);
    phase_times ignored;
    forces(ignored);
  }

  /// One kick-drift-kick step (collective).
  const step_report& step() {
    sweep::detail::scoped_region region("sweep::mpi::nbody::simulation::step");
    phase_times t;
    t.integrate += timed([&] {
      nb::kick(m_space, m_bodies, 0.5 * m_p.dt);
      nb::drift(m_space, m_bodies, m_p.dt);
    });
    forces(t);
    t.integrate += timed([&] { nb::kick(m_space, m_bodies, 0.5 * m_p.dt); });
    ++m_report.step;
    m_report.time += m_p.dt;
    m_report.seconds = t;
    return m_report;
  }

  /// Energies, momenta and mass over every rank (collective; the same on
  /// every rank).
  nb::diagnostics measure() const {
    const nb::diagnostics d = nb::measure(m_space, m_bodies);
    double mine[9] = {d.kinetic, d.potential, d.momentum[0], d.momentum[1], d.momentum[2],
                      d.angular_momentum[0], d.angular_momentum[1], d.angular_momentum[2], d.mass};
    double all[9];
    detail::check_mpi(MPI_Allreduce(mine, all, 9, MPI_DOUBLE, MPI_SUM, m_comm), "MPI_Allreduce");
    nb::diagnostics out;
    out.kinetic = all[0], out.potential = all[1];
    for (int k = 0; k < 3; ++k) out.momentum[k] = all[2 + k], out.angular_momentum[k] = all[5 + k];
    out.mass = all[8];
    return out;
  }

  /// Work and bodies per rank of the last force evaluation (collective).
  balance_report balance() const {
    balance_report r;
    r.work.resize(std::size_t(m_size));
    r.bodies.resize(std::size_t(m_size));
    const unsigned long long w = m_report.work;
    const long long n = m_report.bodies;
    std::vector<unsigned long long> works(static_cast<std::size_t>(m_size));
    std::vector<long long> counts(static_cast<std::size_t>(m_size));
    detail::check_mpi(MPI_Allgather(&w, 1, MPI_UNSIGNED_LONG_LONG, works.data(), 1, MPI_UNSIGNED_LONG_LONG, m_comm),
                      "MPI_Allgather");
    detail::check_mpi(MPI_Allgather(&n, 1, MPI_LONG_LONG, counts.data(), 1, MPI_LONG_LONG, m_comm), "MPI_Allgather");
    double sum = 0, top = 0;
    for (std::size_t q = 0; q < works.size(); ++q) {
      r.work[q] = works[q], r.bodies[q] = index_t(counts[q]);
      sum += double(works[q]);
      top = std::max(top, double(works[q]));
    }
    r.imbalance = sum > 0 ? top / (sum / double(m_size)) : 1.0;
    return r;
  }

  /// Every rank's report of its last step, on `root` (collective; empty
  /// on the other ranks).
  std::vector<step_report> reports(int root = 0) const {
    std::vector<step_report> all(m_rank == root ? std::size_t(m_size) : 0);
    detail::bytes_type<step_report> type;
    detail::check_mpi(MPI_Gather(&m_report, 1, type.get(), all.data(), 1, type.get(), root, m_comm), "MPI_Gather");
    return all;
  }

  /// Every body in input (id) order on `root`, empty elsewhere (collective).
  std::vector<nb::body> gather(int root = 0) const {
    const index_t n = m_bodies.size();
    auto get = [](const auto& v) { return Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), v); };
    const auto hm = get(m_bodies.m), hx = get(m_bodies.x), hy = get(m_bodies.y), hz = get(m_bodies.z),
               hvx = get(m_bodies.vx), hvy = get(m_bodies.vy), hvz = get(m_bodies.vz);
    const auto hid = get(m_bodies.id);
    std::vector<detail::tagged_body> mine(static_cast<std::size_t>(n));
    for (index_t i = 0; i < n; ++i)
      mine[std::size_t(i)] = {hid(i), {hm(i), hx(i), hy(i), hz(i), hvx(i), hvy(i), hvz(i)}};
    static constexpr const char* where = "sweep::mpi::nbody::simulation::gather";
    int count = 0;
    detail::checked(m_comm, where, [&] { count = detail::as_count(n, where); });
    std::vector<int> counts(m_rank == root ? std::size_t(m_size) : 0), displs(counts.size());
    detail::check_mpi(MPI_Gather(&count, 1, MPI_INT, counts.data(), 1, MPI_INT, root, m_comm), "MPI_Gather");
    index_t sum = 0;
    for (std::size_t q = 0; q < counts.size(); ++q) sum += counts[q];
    detail::checked(m_comm, where, [&] {
      sweep::detail::require(sum <= index_t(INT_MAX), where, sum, " bodies exceed MPI's int displacements on rank ",
                             root);
    });
    sum = 0;
    for (std::size_t q = 0; q < counts.size(); ++q) {
      displs[q] = int(sum);
      sum += counts[q];
    }
    std::vector<detail::tagged_body> all(static_cast<std::size_t>(sum));
    detail::bytes_type<detail::tagged_body> type;
    detail::check_mpi(MPI_Gatherv(mine.data(), count, type.get(), all.data(), counts.data(), displs.data(), type.get(),
                                  root, m_comm),
                      "MPI_Gatherv");
    std::vector<nb::body> out(all.size());
    for (const auto& t : all) out[std::size_t(t.id)] = t.b;
    return out;
  }

  const step_report& last() const { return m_report; }
  const nb::simulation_parameters& parameters() const { return m_p; }
  /// This rank's bodies (after the last decomposition; id = input index).
  const nb::body_arrays<memory_space>& arrays() const { return m_bodies; }
  const nb::octree<ExecSpace>& tree() const { return m_tree; }
  const essential_trees<ExecSpace>& essential() const { return m_let; }
  /// This rank's thread-level partition of the last force evaluation.
  const nb::partition<memory_space>& last_partition() const { return m_partition; }
  MPI_Comm comm() const { return m_comm; }
  int partitions() const { return m_parts; }

 private:
  static long long bits(double x) { return std::bit_cast<long long>(x); }

  template <class F>
  double timed(F&& f) {
    return sweep::detail::fenced_seconds(m_space, f);
  }

  void forces(phase_times& t) {
    Kokkos::View<std::uint32_t*, memory_space> owner;
    t.decompose += timed([&] {
      const nb::box global = global_box(m_comm, m_space, m_bodies);
      owner = owners(m_comm, m_space, m_p.balance, m_bodies, global);
    });
    t.migrate += timed([&] { m_report.migration = migrate(m_comm, m_space, m_bodies, owner, m_how); });
    const index_t n = m_bodies.size();
    nb::partition<memory_space>& part = m_partition;
    part = {};
    t.build += timed([&] {
      if (n == 0) return;
      if (m_spare.size() != n) m_spare = nb::body_arrays<memory_space>(n);
      m_tree.build(m_space, m_bodies, m_spare, nb::bounding_box(m_space, m_bodies));
      m_tree.summarize(m_space, m_p.theta);
      part = nb::make_partition(m_space, m_p.balance, m_bodies, m_parts, m_p.seed + std::uint64_t(m_report.step));
      nb::apply(m_space, part, m_bodies, m_spare);
    });
    t.exchange += timed([&] {
      nb::box mine = nb::bounding_box(m_space, m_bodies);
      if (n == 0) mine = empty_box();
      std::vector<nb::box> domains(static_cast<std::size_t>(m_size));
      detail::bytes_type<nb::box> type;
      detail::check_mpi(MPI_Allgather(&mine, 1, type.get(), domains.data(), 1, type.get(), m_comm), "MPI_Allgather");
      m_let.exchange(m_comm, m_space, n > 0 ? &m_tree : nullptr, domains, m_how);
    });
    t.force += timed([&] {
      if (n == 0) return;
      nb::tree_accelerations(m_space, m_tree, m_let.forest(), m_bodies,
                             nb::gravity_parameters{m_p.G, m_p.eps, m_p.quadrupole}, part.offsets, part.slots);
    });
    m_report.bodies = n;
    m_report.work = n > 0 ? nb::total_interactions(m_space, m_bodies) : 0;
    m_report.essential = m_let.report();
  }

  static nb::box empty_box() {
    nb::box b;
    for (int a = 0; a < 3; ++a) b.lo[a] = __builtin_huge_val(), b.hi[a] = -__builtin_huge_val();
    return b;
  }

  MPI_Comm m_comm;
  ExecSpace m_space;
  nb::simulation_parameters m_p;
  transport m_how;
  int m_rank = 0, m_size = 1;
  nb::octree<ExecSpace> m_tree;
  nb::body_arrays<memory_space> m_bodies, m_spare;
  essential_trees<ExecSpace> m_let;
  nb::partition<memory_space> m_partition;
  int m_parts = 1;
  step_report m_report;
};

}  // namespace sweep::mpi::nbody
