// galaxy: a Barnes-Hut N-body run on sweep::nbody. Bodies come from a
// model (Plummer sphere, two colliding disks, uniform cube) or a body file;
// each step prints energy, its drift, momentum, interactions, the load
// imbalance and the time of every phase to stdout; PNG frames of the
// projected density go to the output folder; the final bodies can be
// written to a file. `--scheme all` runs the same steps once per
// load-balance scheme and prints the work balance vs locality table.
// Progress goes to stderr (see apps/common/console.hpp). Exit status: 0 on
// success, 2 on bad arguments or input (nothing is written then).
//
// Built with Sweep::mpi, `mpiexec -n P galaxy ...` runs
// sweep::mpi::nbody::simulation: rank 0 reads or makes the bodies (the
// first decomposition scatters them), prints the steps (each phase the
// slowest rank's), gathers the bodies for frames and the final file, and
// prints the per-rank balance table (work, bodies, essential-tree and
// migration bytes per rank) for each scheme; `--scheme all` compares cost
// zones, ORB and static. One rank runs the single-process simulation.
#include "console.hpp"
#include "density.hpp"
#include "startup.hpp"

#include <sweep/nbody.hpp>

#ifdef SWEEP_GALAXY_MPI
#include "mpi_start.hpp"

#include <sweep/mpi/nbody.hpp>
#endif

#include <CLI/CLI.hpp>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

namespace {

namespace nb = sweep::nbody;

struct run_options {
  std::string model = "plummer";
  std::int64_t bodies = 16384;
  std::uint64_t seed = 1;
  std::string input, write;
  int steps = 100;
  nb::simulation_parameters sim;
  std::string scheme = "costzones";
  int frame_every = 0;  // 0: steps / 10; negative: no frames
  int image_size = 512;
  std::filesystem::path out = "galaxy-out";
};

std::vector<nb::body> initial_bodies(const run_options& o) {
  if (!o.input.empty()) return nb::read_bodies(o.input);
  if (o.model == "plummer") return nb::plummer(o.bodies, o.seed);
  if (o.model == "disks") return nb::colliding_disks(o.bodies, o.seed);
  return nb::uniform_cube(o.bodies, o.seed);
}

double norm3(const double* v) { return std::sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]); }

/// One run with the given scheme; frames and per-step lines when `verbose`.
struct run_summary {
  double e0 = 0, drift = 0, seconds = 0, force = 0, imbalance = 0, runs = 0;
  double interactions = 0;
  double essential_kb = 0, migration_kb = 0;  // per step, all ranks (MPI runs)
  nb::phase_times phases;
  std::vector<nb::body> final_bodies;
};

run_summary run(const run_options& o, const std::vector<nb::body>& bodies, nb::simulation_parameters p,
                bool verbose, const galaxy_app::view_window& window, sweep_apps::console& out) {
  Kokkos::DefaultExecutionSpace space;
  nb::simulation<> sim(space, bodies, p);
  const auto d0 = sim.measure();
  run_summary s;
  s.e0 = d0.energy();
  const int every = o.frame_every == 0 ? std::max(1, o.steps / 10) : o.frame_every;
  auto frame = [&](int step) {
    if (!verbose || o.frame_every < 0) return;
    char name[64];
    std::snprintf(name, sizeof name, "density_%06d.png", step);
    const double top = galaxy_app::write_density(sim.bodies(), window, o.out / name, o.image_size);
    out.note("  frame %s (scale top: %.3g of the mass per pixel; 3 decades shown)", name, top);
  };
  if (verbose) {
    out.data("# step time energy rel_energy_drift momentum interactions imbalance step_ms bbox_ms build_ms "
                "summarize_ms partition_ms force_ms integrate_ms\n");
    out.data("0 0 %.9e 0 %.3e %llu %.4f 0 0 0 0 0 0 0\n", s.e0, norm3(d0.momentum),
                static_cast<unsigned long long>(sim.last().interactions), sim.last().imbalance);
    frame(0);
  }
  for (int k = 1; k <= o.steps; ++k) {
    const auto& r = sim.step();
    const auto d = sim.measure();
    const double drift = std::abs(d.energy() - s.e0) / std::abs(s.e0);
    s.drift = std::max(s.drift, drift);
    const auto& t = r.seconds;
    s.seconds += t.total();
    s.force += t.force;
    s.imbalance += r.imbalance;
    s.interactions += double(r.interactions);
    s.phases.bbox += t.bbox, s.phases.build += t.build, s.phases.summarize += t.summarize;
    s.phases.partition += t.partition, s.phases.force += t.force, s.phases.integrate += t.integrate;
    if (verbose) {
      out.data("%d %.6g %.9e %.3e %.3e %llu %.4f %.3f %.3f %.3f %.3f %.3f %.3f %.3f\n", k, r.time, d.energy(),
                  drift, norm3(d.momentum), static_cast<unsigned long long>(r.interactions), r.imbalance,
                  1e3 * t.total(), 1e3 * t.bbox, 1e3 * t.build, 1e3 * t.summarize, 1e3 * t.partition,
                  1e3 * t.force, 1e3 * t.integrate);
      if (k % every == 0 || k == o.steps) frame(k);
      if (k % std::max(1, o.steps / 20) == 0)
        out.status("step %d/%d  t = %.3f  %.1f ms/step  dE/E = %.2e", k, o.steps, r.time, 1e3 * s.seconds / k,
                   drift);
    }
  }
  s.imbalance /= o.steps;
  s.runs = nb::measure_balance(space, sim.last_partition(), sim.arrays()).runs;
  s.final_bodies = sim.bodies();
  return s;
}

#ifdef SWEEP_GALAXY_MPI
namespace mnb = sweep::mpi::nbody;

/// One run across the ranks with scheme p.balance; rank 0 prints the steps
/// (when `verbose`) and the per-rank table, writes frames and returns the
/// final bodies (the other ranks return none).
run_summary run_mpi(const run_options& o, const std::vector<nb::body>& bodies, nb::simulation_parameters p,
                    bool verbose, const galaxy_app::view_window& window, sweep_apps::console& out, int rank,
                    int ranks) {
  Kokkos::DefaultExecutionSpace space;
  mnb::simulation<> sim(MPI_COMM_WORLD, space, bodies, p);
  const bool root = rank == 0;
  const auto d0 = sim.measure();
  run_summary s;
  s.e0 = d0.energy();
  const int every = o.frame_every == 0 ? std::max(1, o.steps / 10) : o.frame_every;
  auto frame = [&](int step) {
    if (!verbose || o.frame_every < 0) return;
    const auto all = sim.gather();
    if (!root) return;
    char name[64];
    std::snprintf(name, sizeof name, "density_%06d.png", step);
    const double top = galaxy_app::write_density(all, window, o.out / name, o.image_size);
    out.note("  frame %s (scale top: %.3g of the mass per pixel; 3 decades shown)", name, top);
  };
  const auto interactions = [&] {
    unsigned long long mine = sim.last().work, all = 0;
    MPI_Allreduce(&mine, &all, 1, MPI_UNSIGNED_LONG_LONG, MPI_SUM, MPI_COMM_WORLD);
    return all;
  };
  if (verbose) {
    const unsigned long long inter = interactions();
    const double imb = sim.balance().imbalance;
    if (root) {
      out.data("# step time energy rel_energy_drift momentum interactions imbalance(ranks) step_ms decompose_ms "
               "migrate_ms build_ms exchange_ms force_ms integrate_ms essential_kB\n");
      out.data("0 0 %.9e 0 %.3e %llu %.4f 0 0 0 0 0 0 0 0\n", s.e0, norm3(d0.momentum), inter, imb);
    }
    frame(0);
  }
  // Per rank: sums over the steps of the phases and bytes.
  std::vector<mnb::step_report> sums(static_cast<std::size_t>(ranks));
  for (int k = 1; k <= o.steps; ++k) {
    const auto& r = sim.step();
    const auto d = sim.measure();
    const auto all = sim.reports();
    const double imb = sim.balance().imbalance;
    const unsigned long long inter = interactions();
    const double drift = std::abs(d.energy() - s.e0) / std::abs(s.e0);
    s.drift = std::max(s.drift, drift);
    s.imbalance += imb;
    s.interactions += double(inter);
    if (root) {
      // Each phase's slowest rank, and the step's.
      mnb::phase_times top;
      double step = 0, kb = 0;
      for (std::size_t q = 0; q < all.size(); ++q) {
        const auto& t = all[q].seconds;
        top.decompose = std::max(top.decompose, t.decompose), top.migrate = std::max(top.migrate, t.migrate);
        top.build = std::max(top.build, t.build), top.exchange = std::max(top.exchange, t.exchange);
        top.force = std::max(top.force, t.force), top.integrate = std::max(top.integrate, t.integrate);
        step = std::max(step, t.total());
        kb += double(all[q].essential.bytes_sent()) / 1e3;
        auto& u = sums[q];
        u.seconds.decompose += t.decompose, u.seconds.migrate += t.migrate, u.seconds.build += t.build;
        u.seconds.exchange += t.exchange, u.seconds.force += t.force, u.seconds.integrate += t.integrate;
        u.bodies = all[q].bodies, u.work = all[q].work;
        u.essential.nodes_sent += all[q].essential.nodes_sent, u.essential.bodies_sent += all[q].essential.bodies_sent;
        u.essential.nodes_received += all[q].essential.nodes_received;
        u.essential.bodies_received += all[q].essential.bodies_received;
        u.migration.sent += all[q].migration.sent, u.migration.bytes_sent += all[q].migration.bytes_sent;
      }
      s.seconds += step;
      s.force += top.force;
      if (verbose) {
        out.data("%d %.6g %.9e %.3e %.3e %llu %.4f %.3f %.3f %.3f %.3f %.3f %.3f %.3f %.1f\n", k, r.time, d.energy(),
                 drift, norm3(d.momentum), inter, imb, 1e3 * step, 1e3 * top.decompose, 1e3 * top.migrate,
                 1e3 * top.build, 1e3 * top.exchange, 1e3 * top.force, 1e3 * top.integrate, kb);
        if (k % std::max(1, o.steps / 20) == 0)
          out.status("step %d/%d  t = %.3f  %.1f ms/step  dE/E = %.2e", k, o.steps, r.time, 1e3 * s.seconds / k,
                     drift);
      }
    }
    if (verbose && (k % every == 0 || k == o.steps)) frame(k);
  }
  s.imbalance /= o.steps;
  if (root) {
    const auto w = sim.balance();
    double total = 0;
    for (auto x : w.work) total += double(x);
    out.data("# %s across %d ranks: %zu bodies, %d steps; per rank, means per step\n", nb::to_string(p.balance), ranks,
             bodies.size(), o.steps);
    out.data("# scheme rank bodies work work_share essential_sent_kB essential_received_kB migrated_bodies step_ms "
             "force_ms exchange_ms\n");
    for (int q = 0; q < ranks; ++q) {
      const auto& u = sums[std::size_t(q)];
      out.data("%s %d %lld %llu %.4f %.1f %.1f %.1f %.3f %.3f %.3f\n", nb::to_string(p.balance), q,
               static_cast<long long>(w.bodies[std::size_t(q)]), static_cast<unsigned long long>(w.work[std::size_t(q)]),
               total > 0 ? double(w.work[std::size_t(q)]) / total : 0.0, double(u.essential.bytes_sent()) / 1e3 / o.steps,
               double(u.essential.bytes_received()) / 1e3 / o.steps, double(u.migration.sent) / o.steps,
               1e3 * u.seconds.total() / o.steps, 1e3 * u.seconds.force / o.steps, 1e3 * u.seconds.exchange / o.steps);
    }
    double kb = 0, mkb = 0;
    for (const auto& u : sums) kb += double(u.essential.bytes_sent()) / 1e3, mkb += double(u.migration.bytes_sent) / 1e3;
    s.essential_kb = kb / o.steps;
    s.migration_kb = mkb / o.steps;
  } else {
    sim.balance();
  }
  auto final_bodies = sim.gather();
  if (root) s.final_bodies = std::move(final_bodies);
  return s;
}
#endif

int main_run(run_options& o, sweep_apps::console& out, int rank, int ranks) {
  // Bad parameters or input throw here, before anything is written.
  nb::detail::check_parameters(o.sim, "galaxy");
  const bool root = rank == 0;
  std::vector<nb::body> bodies;
#ifdef SWEEP_GALAXY_MPI
  if (ranks > 1)
    // Rank 0 reads or makes the bodies; its error is every rank's.
    sweep::mpi::detail::checked(MPI_COMM_WORLD, "reading the bodies", [&] {
      if (root) bodies = initial_bodies(o);
    });
  else
#endif
    bodies = initial_bodies(o);
  std::vector<nb::scheme> schemes;
  const std::map<std::string, nb::scheme> names = {{"costzones", nb::scheme::costzones},
                                                   {"orb", nb::scheme::orb},
                                                   {"static", nb::scheme::equal_count},
                                                   {"random", nb::scheme::random}};
  if (o.scheme == "all") {
    for (const auto& [name, s] : names)
      if (ranks == 1 || s != nb::scheme::random) schemes.push_back(s);  // random has no distributed form
  } else {
    schemes.push_back(names.at(o.scheme));
  }
  Kokkos::DefaultExecutionSpace space;
  const int parts = o.sim.partitions > 0 ? o.sim.partitions : nb::default_partitions(space);
  out.note("galaxy: N = %zu (%s), %d steps of dt = %g, eps = %g, theta = %g (%s), leaf %d, %d partitions%s, on %s "
           "(concurrency %d)",
           bodies.size(), o.input.empty() ? o.model.c_str() : o.input.c_str(), o.steps, o.sim.dt, o.sim.eps,
           o.sim.theta, o.sim.quadrupole ? "quadrupole" : "monopole", o.sim.leaf_capacity, parts,
           ranks > 1 ? (" per rank, " + std::to_string(ranks) + " ranks").c_str() : "",
           Kokkos::DefaultExecutionSpace::name(), space.concurrency());
  if (root && o.frame_every >= 0 && schemes.size() == 1) std::filesystem::create_directories(o.out);
  const auto window = galaxy_app::window_for(root ? bodies : std::vector<nb::body>{nb::body{1, 0, 0, 0}});
  std::vector<std::pair<nb::scheme, run_summary>> results;
  for (auto s : schemes) {
    auto p = o.sim;
    p.balance = s;
    if (schemes.size() > 1) out.status("scheme %s ...", nb::to_string(s));
#ifdef SWEEP_GALAXY_MPI
    if (ranks > 1) {
      results.emplace_back(s, run_mpi(o, bodies, p, schemes.size() == 1, window, out, rank, ranks));
      continue;
    }
#endif
    results.emplace_back(s, run(o, bodies, p, schemes.size() == 1, window, out));
  }
  if (!root) return 0;
  const auto& last = results.back().second;
  const std::size_t n = last.final_bodies.size();
  if (schemes.size() > 1 && ranks > 1) {
    out.data("# work balance vs locality across %d ranks: %zu bodies, %d steps\n", ranks, n, o.steps);
    out.data("# scheme imbalance(max/mean work over ranks) essential_kB_per_step(all ranks) "
             "migration_kB_per_step(all ranks) force_ms_per_step step_ms_per_step(slowest rank)\n");
    for (const auto& [s, r] : results)
      out.data("%s %.4f %.1f %.1f %.3f %.3f\n", nb::to_string(s), r.imbalance, r.essential_kb, r.migration_kb,
               1e3 * r.force / o.steps, 1e3 * r.seconds / o.steps);
  } else if (schemes.size() > 1) {
    out.data("# work balance vs locality: %zu bodies, %d steps, %d partitions\n", n, o.steps, parts);
    out.data("# scheme imbalance(max/mean work) runs(Morton runs per partition: 1 = one compact zone) force_ms_per_step "
                "step_ms_per_step\n");
    for (const auto& [s, r] : results)
      out.data("%s %.4f %.1f %.3f %.3f\n", nb::to_string(s), r.imbalance, r.runs, 1e3 * r.force / o.steps,
                  1e3 * r.seconds / o.steps);
  }
  out.data("# summary: %zu bodies, %d steps to t = %g, %.3f s/step (force %.3f s), %.3g interactions/step, "
              "max relative energy drift %.3e, mean imbalance %.4f\n",
              n, o.steps, o.steps * o.sim.dt, last.seconds / o.steps, last.force / o.steps,
              last.interactions / o.steps, last.drift, last.imbalance);
  if (!o.write.empty()) {
    nb::write_bodies(o.write, last.final_bodies);
    out.note("wrote %s", o.write.c_str());
  }
  return 0;
}

#ifdef SWEEP_GALAXY_MPI
using sweep_apps::rank_and_ranks;
#else
/// Without MPI: rank 0 of 1.
std::array<int, 2> rank_and_ranks() { return {0, 1}; }
#endif

}  // namespace

int main(int argc, char** argv) {
  sweep_apps::startup start(argc, argv);
  run_options o;
  CLI::App app{"Barnes-Hut galaxy simulation on Sweep (octree, cost zones / ORB load balance)"};
  app.add_option("-m,--model", o.model, "initial conditions")
      ->check(CLI::IsMember({"plummer", "disks", "cube"}))
      ->capture_default_str();
  app.add_option("-N,--bodies", o.bodies, "bodies of the model")->check(CLI::Range(std::int64_t(1), std::int64_t(1) << 30))
      ->capture_default_str();
  app.add_option("--seed", o.seed, "model seed")->capture_default_str();
  app.add_option("-i,--input", o.input, "read bodies from a CSV or binary body file instead of a model");
  app.add_option("-w,--write", o.write, "write the final bodies (.csv: CSV, otherwise binary)");
  app.add_option("-s,--steps", o.steps, "time steps")->check(CLI::Range(1, 1 << 30))->capture_default_str();
  app.add_option("--dt", o.sim.dt, "time step")->capture_default_str();
  app.add_option("--eps", o.sim.eps, "softening length")->capture_default_str();
  app.add_option("--theta", o.sim.theta, "opening angle (0: direct summation)")->capture_default_str();
  app.add_flag("--monopole", [&](std::int64_t) { o.sim.quadrupole = false; }, "monopole nodes only (no quadrupole)");
  app.add_option("--leaf", o.sim.leaf_capacity, "bodies per leaf")->capture_default_str();
  app.add_option("--scheme", o.scheme, "load balance (all: compare the four)")
      ->check(CLI::IsMember({"costzones", "orb", "static", "random", "all"}))
      ->capture_default_str();
  app.add_option("-p,--partitions", o.sim.partitions, "partitions (0: one per thread / enough GPU teams)")
      ->capture_default_str();
  app.add_option("--frame-every", o.frame_every, "steps between PNG frames (0: steps / 10, -1: none)");
  app.add_option("--image-size", o.image_size, "frame edge in pixels")->check(CLI::Range(16, 8192))->capture_default_str();
  app.add_option("-o,--out", o.out, "folder for the frames")->capture_default_str();
  sweep_apps::console_options co;
  if (auto status = start.parse(app, co)) return *status;
  if (auto status = start.begin()) return *status;
#ifdef SWEEP_GALAXY_MPI
  sweep_apps::ensure_mpi();
#endif
  const auto [rank, ranks] = rank_and_ranks();
  if (rank != 0) co.quiet = true;
  sweep_apps::console out(co);
  try {
    return main_run(o, out, rank, ranks);
  } catch (const std::invalid_argument& e) {
    out.clear();
    // Every rank has the same error (the library's checks agree): rank 0 says it.
    if (rank == 0) std::fprintf(stderr, "galaxy: %s\n", e.what());
    return 2;
  } catch (const std::exception& e) {
    out.clear();
    std::fprintf(stderr, "galaxy: %s\n", e.what());
#ifdef SWEEP_GALAXY_MPI
    // Only this rank failed (writing a file, memory): stop the others.
    if (ranks > 1) MPI_Abort(MPI_COMM_WORLD, 1);
#endif
    return 1;
  }
}
