// How every app starts: its own options first, Kokkos only when there is
// work to do.
//
//   sweep_apps::startup start(argc, argv);       // sets --kokkos-* aside
//   CLI::App app{...}; ...;
//   sweep_apps::console_options co;
//   if (auto status = start.parse(app, co)) return *status;  // --help: 0, no Kokkos
//   if (auto status = start.begin()) return *status;         // --kokkos-help, or Kokkos
//                                                            // until `start` dies
//
// Kokkos' options (--kokkos-*) go to Kokkos::initialize and nothing else
// does, so `--help` shows the app's options and never Kokkos' (Kokkos
// 3.4.1 answers a plain --help too); `--kokkos-help` prints Kokkos' own.
//
// Thread binding: when neither OMP_PROC_BIND nor OMP_PLACES is set,
// initialize() sets OMP_PROC_BIND=spread and OMP_PLACES=threads (what
// Kokkos recommends for performance, one thread per hardware thread,
// spread over the cores) and, when OMP_PROC_BIND alone is unset, sets
// OMP_PROC_BIND=spread. The OpenMP runtime reads these variables when the
// program is loaded, so the app then re-executes itself (/proc/self/exe,
// same arguments) once for them to take effect; if that fails the
// variables are restored and the run goes on unbound (Kokkos then says
// so). A user's own values always win; OMP_PROC_BIND=false turns binding
// off. Kokkos' output is never filtered.
#pragma once

#include "console.hpp"

#include <CLI/CLI.hpp>

#include <Kokkos_Core.hpp>

#include <optional>
#include <string>
#include <vector>

namespace sweep_apps {

class startup {
 public:
  startup(int argc, char** argv);
  startup(const startup&) = delete;
  startup& operator=(const startup&) = delete;

  /// The app's own arguments (argv[0] first), for CLI::App::parse.
  int argc() const { return static_cast<int>(m_own.size()) - 1; }
  char** argv() { return m_own.data(); }

  /// Adds the console options (--progress, --quiet) and a footer on the
  /// Kokkos options and the OpenMP binding defaults to `app`, then parses
  /// the app's own arguments. Returns the exit status when the app should
  /// stop now (--help: 0; bad arguments: 2).
  std::optional<int> parse(CLI::App& app, console_options& console);

  /// --kokkos-help: prints Kokkos' help and returns 0. Otherwise
  /// initializes Kokkos (see initialize) and returns nothing.
  std::optional<int> begin();

  /// Adds a footer to `app`'s --help on the Kokkos options and the
  /// OpenMP binding defaults.
  void describe(CLI::App& app) const;

  /// True when --kokkos-help was given.
  bool kokkos_help() const { return m_kokkos_help; }
  /// Prints Kokkos' help (Kokkos::initialize does) and returns 0.
  int print_kokkos_help();

  /// Sets the OpenMP binding defaults (re-executing when needed) and
  /// initializes Kokkos with its options; finalized when `*this` dies.
  void initialize();

 private:
  char** m_original;
  std::vector<std::string> m_kokkos_args;
  std::vector<char*> m_own, m_kokkos;
  bool m_kokkos_help = false;
  std::optional<Kokkos::ScopeGuard> m_guard;
};

}  // namespace sweep_apps
