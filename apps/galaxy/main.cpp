// galaxy: a Barnes-Hut N-body run on sweep::nbody. Bodies come from a
// model (Plummer sphere, two colliding disks, uniform cube) or a body file;
// each step prints energy, its drift, momentum, interactions, the load
// imbalance and the time of every phase to stdout; PNG frames of the
// projected density go to the output folder; the final bodies can be
// written to a file. `--scheme all` runs the same steps once per
// load-balance scheme and prints the work balance vs locality table.
// Progress goes to stderr (see apps/common/console.hpp). Exit status: 0 on
// success, 2 on bad arguments or input (nothing is written then).
#include "console.hpp"
#include "density.hpp"
#include "startup.hpp"

#include <sweep/nbody.hpp>

#include <CLI/CLI.hpp>

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

int main_run(run_options& o, sweep_apps::console& out) {
  // Bad parameters or input throw here, before anything is written.
  nb::detail::check_parameters(o.sim, "galaxy");
  const auto bodies = initial_bodies(o);
  std::vector<nb::scheme> schemes;
  const std::map<std::string, nb::scheme> names = {{"costzones", nb::scheme::costzones},
                                                   {"orb", nb::scheme::orb},
                                                   {"static", nb::scheme::equal_count},
                                                   {"random", nb::scheme::random}};
  if (o.scheme == "all")
    for (const auto& [name, s] : names) schemes.push_back(s);
  else
    schemes.push_back(names.at(o.scheme));
  Kokkos::DefaultExecutionSpace space;
  const int parts = o.sim.partitions > 0 ? o.sim.partitions : nb::default_partitions(space);
  out.note("galaxy: N = %zu (%s), %d steps of dt = %g, eps = %g, theta = %g (%s), leaf %d, %d partitions, on %s "
           "(concurrency %d)",
           bodies.size(), o.input.empty() ? o.model.c_str() : o.input.c_str(), o.steps, o.sim.dt, o.sim.eps,
           o.sim.theta, o.sim.quadrupole ? "quadrupole" : "monopole", o.sim.leaf_capacity, parts,
           Kokkos::DefaultExecutionSpace::name(), space.concurrency());
  if (o.frame_every >= 0 && schemes.size() == 1) std::filesystem::create_directories(o.out);
  const auto window = galaxy_app::window_for(bodies);
  std::vector<std::pair<nb::scheme, run_summary>> results;
  for (auto s : schemes) {
    auto p = o.sim;
    p.balance = s;
    if (schemes.size() > 1) out.status("scheme %s ...", nb::to_string(s));
    results.emplace_back(s, run(o, bodies, p, schemes.size() == 1, window, out));
  }
  if (schemes.size() > 1) {
    out.data("# work balance vs locality: %zu bodies, %d steps, %d partitions\n", bodies.size(), o.steps, parts);
    out.data("# scheme imbalance(max/mean work) runs(Morton runs per partition: 1 = one compact zone) force_ms_per_step "
                "step_ms_per_step\n");
    for (const auto& [s, r] : results)
      out.data("%s %.4f %.1f %.3f %.3f\n", nb::to_string(s), r.imbalance, r.runs, 1e3 * r.force / o.steps,
                  1e3 * r.seconds / o.steps);
  }
  const auto& last = results.back().second;
  out.data("# summary: %zu bodies, %d steps to t = %g, %.3f s/step (force %.3f s), %.3g interactions/step, "
              "max relative energy drift %.3e, mean imbalance %.4f\n",
              bodies.size(), o.steps, o.steps * o.sim.dt, last.seconds / o.steps, last.force / o.steps,
              last.interactions / o.steps, last.drift, last.imbalance);
  if (!o.write.empty()) {
    nb::write_bodies(o.write, last.final_bodies);
    out.note("wrote %s", o.write.c_str());
  }
  return 0;
}

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
  sweep_apps::console out(co);
  try {
    return main_run(o, out);
  } catch (const std::invalid_argument& e) {
    out.clear();
    std::fprintf(stderr, "galaxy: %s\n", e.what());
    return 2;
  } catch (const std::exception& e) {
    out.clear();
    std::fprintf(stderr, "galaxy: %s\n", e.what());
    return 1;
  }
}
