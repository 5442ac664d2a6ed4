// ocean: the wind-driven double-gyre ocean of sweep::ocean::qg_model, spun
// up from rest. Each step prints its elliptic solve (V-cycles, relative
// residual) and time to stdout; PNG frames of the stream function and the
// relative vorticity go to the output folder; a summary closes the run.
// Progress goes to stderr (see apps/common/console.hpp). Exit status: 0 on
// success, 1 when a solve fails (not converged within the cycle limit, or
// diverged), 2 on bad arguments.
#include "console.hpp"
#include "frames.hpp"
#include "startup.hpp"

#include <sweep/ocean.hpp>

#include <CLI/CLI.hpp>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <map>
#include <string>

namespace {

namespace so = sweep::ocean;

struct run_options {
  so::model_parameters model;
  int steps = 1000;
  int frame_every = 0;  // 0: steps / 10
  int image_size = 768;
  double deformation_radius = 0;  // 0: barotropic
  std::filesystem::path out = "ocean-out";
};

/// psi and the relative vorticity zeta = q + F psi on the host.
void write_frames(const so::qg_model<>& model, const run_options& o, int step, sweep_apps::console& out) {
  auto psi = model.psi().to_host();
  auto zeta = model.q().to_host();
  for (std::size_t k = 0; k < zeta.size(); ++k) zeta.data()[k] += model.parameters().deformation * psi.data()[k];
  char name[64];
  std::snprintf(name, sizeof name, "psi_%06d.png", step);
  const double ps = ocean_app::write_frame(psi, o.out / name, o.image_size);
  std::snprintf(name, sizeof name, "vorticity_%06d.png", step);
  const double zs = ocean_app::write_frame(zeta, o.out / name, o.image_size);
  out.note("  frames for step %d: |psi| <= %.3e, |zeta| <= %.3e (colour bar: blue -max .. red +max)", step, ps, zs);
}

int run(const run_options& o, sweep_apps::console& out) {
  using clock = std::chrono::steady_clock;
  Kokkos::DefaultExecutionSpace space;
  so::qg_model<> model(space, o.model);
  const auto& p = model.parameters();
  std::filesystem::create_directories(o.out);
  const int every = o.frame_every > 0 ? o.frame_every : std::max(1, o.steps / 10);
  out.note("ocean: n = %lld (%s), dt = %.4g, beta = %g, wind = %g, friction = %g, viscosity = %g, F = %g, "
           "tolerance = %g, on %s (concurrency %d)",
           static_cast<long long>(p.n), so::to_string(p.layout.kind), p.dt, p.beta, p.wind, p.friction, p.viscosity,
           p.deformation, p.solver.tolerance, Kokkos::DefaultExecutionSpace::name(), space.concurrency());
  so::grid<> rest("rest", p.n, p.layout);
  if (!model.set_vorticity(rest).converged()) {
    out.clear();
    std::fprintf(stderr, "ocean: the initial solve failed\n");
    return 1;
  }
  out.data("# step time cycles relative_residual step_ms energy max_abs_psi\n");
  double total = 0;
  long cycles = 0;
  const auto start = clock::now();
  for (int s = 1; s <= o.steps; ++s) {
    const auto t0 = clock::now();
    const auto& st = model.step();
    space.fence();
    const double ms = std::chrono::duration<double, std::milli>(clock::now() - t0).count();
    total += ms;
    cycles += st.cycles;
    if (!st.converged()) {
      out.clear();
      std::fprintf(stderr,
                   "ocean: step %d: the elliptic solve %s after %d V-cycles (relative residual %.3e, tolerance "
                   "%.3e); stopping. Lower dt, raise --max-cycles or relax --tolerance.\n",
                   s, so::to_string(st.result), st.cycles, st.relative_residual, p.solver.tolerance);
      return 1;
    }
    const auto d = model.diagnostics();
    out.data("%d %.6g %d %.3e %.3f %.6e %.6e\n", s, model.time(), st.cycles, st.relative_residual, ms, d.energy,
                d.max_abs_psi);
    if (s % every == 0 || s == o.steps) write_frames(model, o, s, out);
    if (s % std::max(1, o.steps / 20) == 0)
      out.status("step %d/%d  t = %.3f  %.1f ms/step", s, o.steps, model.time(), total / s);
  }
  const double wall = std::chrono::duration<double>(clock::now() - start).count();
  const auto d = model.diagnostics();
  out.data("# summary: %d steps of dt = %.4g to t = %.4g in %.2f s (%.2f ms/step, %.2f V-cycles/step), "
              "energy %.6e, enstrophy %.6e, max |psi| %.6e, frames in %s\n",
              o.steps, p.dt, model.time(), wall, total / o.steps, double(cycles) / o.steps, d.energy, d.enstrophy,
              d.max_abs_psi, o.out.string().c_str());
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  sweep_apps::startup start(argc, argv);
  run_options o;
  std::string layout = "row_major";
  CLI::App app{"Wind-driven double-gyre ocean (barotropic QG) on Sweep's multigrid solver"};
  app.add_option("-n,--size", o.model.n, "grid points per side, 2^k + 2 (SPLASH-2: 258, 514, 1026, 2050, 4098)")
      ->capture_default_str();
  const CLI::Validator positive(
      [](std::string& s) {
        double v = 0;
        try {
          v = std::stod(s);
        } catch (const std::exception&) {
          return std::string("not a number");
        }
        return v > 0 && std::isfinite(v) ? std::string() : "must be > 0 (got " + s + ")";
      },
      "> 0");
  app.add_option("-s,--steps", o.steps, "time steps")->check(positive)->capture_default_str();
  app.add_option("-t,--tolerance", o.model.solver.tolerance, "relative residual of each elliptic solve")
      ->check(positive)
      ->capture_default_str();
  app.add_option("--max-cycles", o.model.solver.max_cycles, "V-cycles allowed per solve")
      ->check(positive)
      ->capture_default_str();
  app.add_option("-l,--layout", layout, "grid storage")
      ->check(CLI::IsMember({"row_major", "block_major"}))
      ->capture_default_str();
  app.add_option("--tile", o.model.layout.tile, "block-major tile edge (power of two)")->capture_default_str();
  app.add_option("--dt", o.model.dt, "time step (0: the model's stable estimate)")->capture_default_str();
  app.add_option("--beta", o.model.beta, "planetary vorticity gradient")->capture_default_str();
  app.add_option("--wind", o.model.wind, "wind stress amplitude tau0")->capture_default_str();
  app.add_option("--friction", o.model.friction, "bottom friction r")->capture_default_str();
  app.add_option("--viscosity", o.model.viscosity, "lateral viscosity A")->capture_default_str();
  app.add_option("--deformation-radius", o.deformation_radius, "Rossby radius Ld (0: barotropic)")
      ->capture_default_str();
  app.add_option("--frame-every", o.frame_every, "steps between PNG frames (0: steps / 10)")
      ->check(CLI::Range(0, 1 << 30));
  app.add_option("--image-size", o.image_size, "largest frame edge in pixels")
      ->check(CLI::Range(16, 8192))
      ->capture_default_str();
  app.add_option("-o,--out", o.out, "folder for the frames")->capture_default_str();
  sweep_apps::console_options co;
  if (auto status = start.parse(app, co)) return *status;
  if (!(o.deformation_radius >= 0) || !std::isfinite(o.deformation_radius)) {
    std::fprintf(stderr, "ocean: --deformation-radius = %g must be >= 0\n", o.deformation_radius);
    return 2;
  }
  o.model.layout.kind = layout == "row_major" ? so::layout::row_major : so::layout::block_major;
  if (o.deformation_radius > 0) o.model.deformation = 1.0 / (o.deformation_radius * o.deformation_radius);
  if (auto status = start.begin()) return *status;
  sweep_apps::console out(co);
  try {
    return run(o, out);
  } catch (const std::invalid_argument& e) {
    out.clear();
    std::fprintf(stderr, "ocean: %s\n", e.what());
    return 2;
  } catch (const std::exception& e) {
    out.clear();
    std::fprintf(stderr, "ocean: %s\n", e.what());
    return 1;
  }
}
