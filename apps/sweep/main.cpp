// sweep: the tour of Sweep. Prints the configuration (sweep::print_configuration:
// versions, backends, host ISA levels, tuning values), then runs every
// capability at a small size, checks each against a reference, and prints
// one table: capability, size, time, GB/s, fraction of copy bandwidth,
// check. `--config` prints the configuration alone; `--network SPEC` (see
// network.hpp) prints a synthesized scan network instead, without Kokkos. Progress goes to stderr
// (see apps/common/console.hpp), the configuration and the table to stdout;
// the exit status is non-zero when any check fails, 2 on bad arguments.
#include "console.hpp"
#include "network.hpp"
#include "startup.hpp"
#include "tour.hpp"

#include <sweep/sweep.hpp>

#include <CLI/CLI.hpp>

#include <cstdio>
#include <iostream>
#include <sstream>
#include <string>

int main(int argc, char** argv) {
  sweep_apps::startup start(argc, argv);
  tour::options opt;
  std::string out_dir = "sweep-tour-out";
  bool config_only = false;
  std::string network_spec;
  CLI::App app{"Sweep tour: every capability at a small size, checked and timed"};
  app.add_option("-l,--log2n", opt.log2n, "log2 of the elements per capability")
      ->check(CLI::Range(4, 30))
      ->capture_default_str();
  app.add_option("-r,--repeats", opt.repeats, "timed runs per capability (best is shown)")
      ->check(CLI::Range(1, 1000))
      ->capture_default_str();
  app.add_option("-o,--out", out_dir, "folder for images")->capture_default_str();
  app.add_flag("--config", config_only,
               "print the configuration (versions, backends, host ISA levels, tuning values, optional parts) and exit");
  app.add_option("--network", network_spec,
                 "synthesize and draw a prefix network: n=16,depth=5[,size=S,fanout=F,conflict_free=1,"
                 "map=plain|padded,budget=NODES]");
  sweep_apps::console_options co;
  if (auto status = start.parse(app, co)) return *status;
  if (!network_spec.empty()) return tour::run_network(network_spec);
  if (auto status = start.begin()) return *status;
  sweep_apps::console out(co);
  {
    std::ostringstream config;
    try {
      sweep::print_configuration(config);
    } catch (const std::invalid_argument& e) {
      std::fprintf(stderr, "sweep: %s\n", e.what());
      return 2;
    }
    out.data("%s", config.str().c_str());
  }
  if (config_only) return 0;
  out.data("\n");
  opt.out_dir = out_dir;
  std::filesystem::create_directories(opt.out_dir);
  const std::vector<std::pair<const char*, tour::capability>> capabilities = {
      {"copy", tour::run_copy},
      {"scan", tour::run_scan},
      {"segmented scan", tour::run_segmented},
      {"bitmask index", tour::run_bitmask},
      {"ocean", tour::run_ocean},
      {"galaxy", tour::run_galaxy},
      {"ray tracing", tour::run_raytrace},
#if defined(SWEEP_TOUR_MPI)
      {"distributed (MPI)", tour::run_mpi},
#endif
  };
  std::vector<tour::row> rows;
  for (const auto& [name, run] : capabilities) {
    out.status("running %s ...", name);
    for (auto& r : run(opt)) rows.push_back(std::move(r));
  }

  const double copy_gbs = rows.front().bytes / rows.front().seconds * 1e-9;
  out.data("%-34s %12s %10s %8s %7s  %-5s %s\n", "capability", "size", "time ms", "GB/s", "x copy",
              "check", "detail");
  bool all = true;
  for (const auto& r : rows) {
    const double gbs = r.bytes / r.seconds * 1e-9;
    if (r.bytes > 0) {
      out.data("%-34s %12lld %10.3f %8.2f %7.2f  %-5s %s\n", r.capability.c_str(),
                  static_cast<long long>(r.size), r.seconds * 1e3, gbs, gbs / copy_gbs,
                  r.passed ? "pass" : "FAIL", r.note.c_str());
    } else {
      // Rows that are not bandwidth bound state their throughput, if any.
      std::string detail = r.note;
      if (r.items > 0) {
        char rate[64];
        std::snprintf(rate, sizeof rate, "%.3g %s/s; ", r.items / r.seconds, r.unit.c_str());
        detail = rate + detail;
      }
      out.data("%-34s %12lld %10.3f %8s %7s  %-5s %s\n", r.capability.c_str(), static_cast<long long>(r.size),
                  r.seconds * 1e3, "-", "-", r.passed ? "pass" : "FAIL", detail.c_str());
    }
    all = all && r.passed;
  }
  for (const auto& r : rows)
    if (!r.figure.empty()) out.data("\n%s", r.figure.c_str());
  out.data("%s\n", all ? "all checks passed" : "SOME CHECKS FAILED");
  return all ? 0 : 1;
}
