// ocean: the wind-driven double-gyre ocean of sweep::ocean::qg_model, spun
// up from rest. Each step prints its elliptic solve (V-cycles, relative
// residual) and time to stdout; PNG frames of the stream function and the
// relative vorticity go to the output folder; a summary closes the run.
// Progress goes to stderr (see apps/common/console.hpp). Exit status: 0 on
// success, 1 when a solve fails (not converged within the cycle limit, or
// diverged), 2 on bad arguments.
//
// Built with Sweep::mpi, `mpiexec -n P ocean ...` runs
// sweep::mpi::ocean::qg_model on a P-rank process grid (--process-grid);
// rank 0 prints and writes the frames, gathered from every rank. One
// rank runs the single-process model.
#include "console.hpp"
#include "frames.hpp"
#include "startup.hpp"
#ifdef SWEEP_OCEAN_MPI
#include "mpi_start.hpp"

#include <sweep/mpi/model.hpp>
#endif

#include <sweep/ocean.hpp>

#include <CLI/CLI.hpp>

#include <array>
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
  std::array<int, 2> process_grid{0, 0};  // {0, 0}: MPI_Dims_create's
};

using host_field = Kokkos::View<double**, Kokkos::LayoutRight, Kokkos::HostSpace>;

/// A field of the model on the host of the rank that writes frames.
host_field on_host(const so::grid<>& g) { return g.to_host(); }
so::grid<> rest_like(const so::qg_model<>& m) { return so::grid<>("rest", m.parameters().n, m.parameters().layout); }
std::string where_it_runs(const so::qg_model<>&) { return "1 process"; }

#ifdef SWEEP_OCEAN_MPI
namespace smo = sweep::mpi::ocean;

/// Gathered to rank 0 (collective); empty on the other ranks.
host_field on_host(const smo::distributed_grid<>& g) {
  const bool root = g.decomp().rank() == 0;
  so::grid<> global("sweep::apps::ocean::frame", root ? g.n() : 4);
  smo::gather(Kokkos::DefaultExecutionSpace(), g, global);
  return root ? global.to_host() : host_field();
}
smo::distributed_grid<> rest_like(const smo::qg_model<>& m) { return smo::distributed_grid<>("rest", m.decomp()); }
std::string where_it_runs(const smo::qg_model<>& m) {
  const auto d = m.decomp().dims();
  return std::to_string(m.decomp().size()) + " ranks on a " + std::to_string(d[0]) + " x " + std::to_string(d[1]) +
         " process grid";
}
#endif

/// psi and the relative vorticity zeta = q + F psi, written by `root`.
template <class Model>
void write_frames(const Model& model, const run_options& o, int step, bool root, sweep_apps::console& out) {
  auto psi = on_host(model.psi());
  auto zeta = on_host(model.q());
  if (!root) return;
  for (std::size_t k = 0; k < zeta.size(); ++k) zeta.data()[k] += model.parameters().deformation * psi.data()[k];
  char name[64];
  std::snprintf(name, sizeof name, "psi_%06d.png", step);
  const double ps = ocean_app::write_frame(psi, o.out / name, o.image_size);
  std::snprintf(name, sizeof name, "vorticity_%06d.png", step);
  const double zs = ocean_app::write_frame(zeta, o.out / name, o.image_size);
  out.note("  frames for step %d: |psi| <= %.3e, |zeta| <= %.3e (colour bar: blue -max .. red +max)", step, ps, zs);
}

/// Runs the model on every rank; `root` prints and writes the frames.
template <class Model>
int run(Model& model, const run_options& o, bool root, sweep_apps::console& out) {
  using clock = std::chrono::steady_clock;
  Kokkos::DefaultExecutionSpace space;
  const auto& p = model.parameters();
  if (root) std::filesystem::create_directories(o.out);
  const int every = o.frame_every > 0 ? o.frame_every : std::max(1, o.steps / 10);
  out.note("ocean: n = %lld (%s), dt = %.4g, beta = %g, wind = %g, friction = %g, viscosity = %g, F = %g, "
           "tolerance = %g, on %s, %s (concurrency %d)",
           static_cast<long long>(p.n), so::to_string(p.layout.kind), p.dt, p.beta, p.wind, p.friction, p.viscosity,
           p.deformation, p.solver.tolerance, where_it_runs(model).c_str(), Kokkos::DefaultExecutionSpace::name(),
           space.concurrency());
  if (!model.set_vorticity(rest_like(model)).converged()) {
    out.clear();
    if (root) std::fprintf(stderr, "ocean: the initial solve failed\n");
    return 1;
  }
  if (root) out.data("# step time cycles relative_residual step_ms energy max_abs_psi\n");
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
      if (root)
        std::fprintf(stderr,
                     "ocean: step %d: the elliptic solve %s after %d V-cycles (relative residual %.3e, tolerance "
                     "%.3e); stopping. Lower dt, raise --max-cycles or relax --tolerance.\n",
                     s, so::to_string(st.result), st.cycles, st.relative_residual, p.solver.tolerance);
      return 1;
    }
    const auto d = model.diagnostics();
    if (root)
      out.data("%d %.6g %d %.3e %.3f %.6e %.6e\n", s, model.time(), st.cycles, st.relative_residual, ms, d.energy,
               d.max_abs_psi);
    if (s % every == 0 || s == o.steps) write_frames(model, o, s, root, out);
    if (s % std::max(1, o.steps / 20) == 0)
      out.status("step %d/%d  t = %.3f  %.1f ms/step", s, o.steps, model.time(), total / s);
  }
  const double wall = std::chrono::duration<double>(clock::now() - start).count();
  const auto d = model.diagnostics();
  if (root)
    out.data("# summary: %d steps of dt = %.4g to t = %.4g in %.2f s (%.2f ms/step, %.2f V-cycles/step), "
             "energy %.6e, enstrophy %.6e, max |psi| %.6e, frames in %s\n",
             o.steps, p.dt, model.time(), wall, total / o.steps, double(cycles) / o.steps, d.energy, d.enstrophy,
             d.max_abs_psi, o.out.string().c_str());
  return 0;
}

/// The single-process model on one rank, the distributed one on several.
int run(const run_options& o, sweep_apps::console_options co) {
  Kokkos::DefaultExecutionSpace space;
#ifdef SWEEP_OCEAN_MPI
  sweep_apps::ensure_mpi();
  int ranks = 1, rank = 0;
  MPI_Comm_size(MPI_COMM_WORLD, &ranks);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  if (ranks > 1) {
    if (rank != 0) co.quiet = true;
    sweep_apps::console out(co);
    smo::decomposition d(MPI_COMM_WORLD, o.model.n, o.process_grid);
    smo::qg_model<> model(space, d, o.model);
    return run(model, o, rank == 0, out);
  }
#endif
  sweep_apps::console out(co);
  so::qg_model<> model(space, o.model);
  return run(model, o, true, out);
}

#ifdef SWEEP_OCEAN_MPI
using sweep_apps::rank_and_ranks;
#else
/// Without MPI: rank 0 of 1.
std::array<int, 2> rank_and_ranks() { return {0, 1}; }
#endif

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
#ifdef SWEEP_OCEAN_MPI
  std::string process_grid = "0x0";
  app.add_option("--process-grid", process_grid,
                 "under mpiexec: process rows x columns (0x0: MPI chooses, Px1: row strips, 1xP: column strips)")
      ->check(CLI::Validator(
          [&o](std::string& s) {
            int r = -1, c = -1;
            char x = 0, tail = 0;
            if (std::sscanf(s.c_str(), "%d%c%d%c", &r, &x, &c, &tail) != 3 || x != 'x' || r < 0 || c < 0)
              return "expected ROWSxCOLUMNS, e.g. 2x1 (got " + s + ")";
            o.process_grid = {r, c};
            return std::string();
          },
          "RxC"))
      ->capture_default_str();
#endif
  sweep_apps::console_options co;
  if (auto status = start.parse(app, co)) return *status;
  if (!(o.deformation_radius >= 0) || !std::isfinite(o.deformation_radius)) {
    std::fprintf(stderr, "ocean: --deformation-radius = %g must be >= 0\n", o.deformation_radius);
    return 2;
  }
  o.model.layout.kind = layout == "row_major" ? so::layout::row_major : so::layout::block_major;
  if (o.deformation_radius > 0) o.model.deformation = 1.0 / (o.deformation_radius * o.deformation_radius);
  if (auto status = start.begin()) return *status;
  try {
    return run(o, co);
  } catch (const std::invalid_argument& e) {
    // Every rank has the same error (the library's checks agree): rank 0 says it.
    if (rank_and_ranks()[0] == 0) std::fprintf(stderr, "ocean: %s\n", e.what());
    return 2;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "ocean: %s\n", e.what());
#ifdef SWEEP_OCEAN_MPI
    // Only this rank failed (writing a frame, memory): stop the others.
    if (rank_and_ranks()[1] > 1) MPI_Abort(MPI_COMM_WORLD, 1);
#endif
    return 1;
  }
}
