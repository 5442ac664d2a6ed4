#include "startup.hpp"

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <unistd.h>

namespace sweep_apps {

namespace {

bool is_set(const char* name) {
  const char* v = std::getenv(name);
  return v != nullptr && *v != '\0';
}

struct binding_defaults {
  bool proc_bind = false, places = false;
};

/// Sets the binding defaults the user left open.
binding_defaults set_binding_defaults() {
  binding_defaults set;
  if (is_set("OMP_PROC_BIND")) return set;
  if (!is_set("OMP_PLACES")) set.places = setenv("OMP_PLACES", "threads", 1) == 0;
  set.proc_bind = setenv("OMP_PROC_BIND", "spread", 1) == 0;
  return set;
}

}  // namespace

startup::startup(int argc, char** argv) : m_original(argv) {
  m_own.push_back(argv[0]);
  m_kokkos.push_back(argv[0]);
  for (int k = 1; k < argc; ++k) {
    if (std::strncmp(argv[k], "--kokkos-", 9) != 0) {
      m_own.push_back(argv[k]);
    } else if (std::strcmp(argv[k], "--kokkos-help") == 0) {
      m_kokkos_help = true;
    } else {
      m_kokkos.push_back(argv[k]);
    }
  }
  // argv[argc] is null, as in main's.
  m_own.push_back(nullptr);
  m_kokkos.push_back(nullptr);
}

std::optional<int> startup::parse(CLI::App& app, console_options& console) {
  add_console_options(app, console);
  describe(app);
  try {
    app.parse(argc(), argv());
  } catch (const CLI::ParseError& e) {
    return app.exit(e) == 0 ? 0 : 2;
  }
  return std::nullopt;
}

std::optional<int> startup::begin() {
  if (kokkos_help()) return print_kokkos_help();
  initialize();
  return std::nullopt;
}

void startup::describe(CLI::App& app) const {
  app.footer(
      "Kokkos options (--kokkos-num-threads=N, or --kokkos-threads=N with Kokkos 3.4, ...) are passed to "
      "Kokkos; --kokkos-help lists them.\n"
      "Thread binding: when OMP_PROC_BIND is unset the app runs with OMP_PROC_BIND=spread, and with "
      "OMP_PLACES=threads when that is unset too (it re-executes itself once for the OpenMP runtime to read "
      "them); your own values win, OMP_PROC_BIND=false turns binding off.\n"
      "Output: data on stdout; progress on stderr when it is a terminal or with --progress.");
}

int startup::print_kokkos_help() {
  // Kokkos prints its help while initializing and then carries on.
  static char help[] = "--kokkos-help";
  m_kokkos.insert(m_kokkos.end() - 1, help);
  initialize();
  m_guard.reset();
  return 0;
}

void startup::initialize() {
  const binding_defaults set = set_binding_defaults();
  if (set.proc_bind || set.places) {
    std::fflush(nullptr);
    execv("/proc/self/exe", m_original);
    // Still here: the variables would claim a binding the runtime never read.
    const int err = errno;
    if (set.proc_bind) unsetenv("OMP_PROC_BIND");
    if (set.places) unsetenv("OMP_PLACES");
    std::fprintf(stderr, "note: could not re-execute with the OpenMP binding defaults (%s); running unbound\n",
                 std::strerror(err));
  }
  int n = static_cast<int>(m_kokkos.size()) - 1;
  m_guard.emplace(n, m_kokkos.data());
}

}  // namespace sweep_apps
