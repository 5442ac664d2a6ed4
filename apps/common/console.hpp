// Where an app's text goes: data on stdout, progress on stderr, never
// sharing a line.
//
//   sweep_apps::console_options co;  sweep_apps::add_console_options(app, co);
//   sweep_apps::console out(co);
//   out.data("%d %g\n", step, energy);   // stdout, whole lines, flushed
//   out.status("step %d/%d", k, n);      // progress
//   out.note("wrote %s", path);          // progress worth keeping
//
// Progress is shown when stderr is a terminal (status lines redraw one
// line in place with a carriage return, as other tools do) or with
// --progress (then every status and note is a line of its own, for logs);
// --quiet shows none. When stdout is a terminal too, a live status line
// is cleared before data is written; data leaves in one write per call
// and progress lines are whole, so a terminal or a file that receives both
// streams never has a progress message inside a data line. Errors are not progress: apps print them to stderr directly.
#pragma once

#include <CLI/CLI.hpp>

#include <cstddef>

namespace sweep_apps {

struct console_options {
  bool progress = false;  ///< --progress: progress lines even when stderr is not a terminal
  bool quiet = false;     ///< --quiet: no progress at all
};

/// Adds --progress and --quiet (mutually exclusive) to `app`.
void add_console_options(CLI::App& app, console_options& options);

class console {
 public:
  explicit console(const console_options& options);
  ~console();
  console(const console&) = delete;
  console& operator=(const console&) = delete;

  /// Text for stdout (whole lines, newline included).
  void data(const char* format, ...) __attribute__((format(printf, 2, 3)));
  /// A transient progress message (no newline).
  void status(const char* format, ...) __attribute__((format(printf, 2, 3)));
  /// A progress message that stays (no newline).
  void note(const char* format, ...) __attribute__((format(printf, 2, 3)));
  /// Removes a live status line.
  void clear();

  bool shows_progress() const { return m_mode != mode::off; }

 private:
  enum class mode { off, lines, live };
  mode m_mode;
  bool m_stdout_tty;
  std::size_t m_live = 0;  ///< characters of the live status line shown
};

}  // namespace sweep_apps
