#include "console.hpp"

#include <cstdarg>
#include <cstdio>
#include <string>
#include <sys/ioctl.h>
#include <unistd.h>

namespace sweep_apps {

namespace {

std::string format_text(const char* format, va_list args) {
  va_list copy;
  va_copy(copy, args);
  const int n = std::vsnprintf(nullptr, 0, format, copy);
  va_end(copy);
  std::string s(n > 0 ? std::size_t(n) : 0, '\0');
  if (n > 0) std::vsnprintf(s.data(), s.size() + 1, format, args);
  return s;
}

/// Columns of the terminal on stderr (a live line must not wrap, or the
/// carriage return would redraw only its last row).
std::size_t terminal_columns() {
  winsize w{};
  if (ioctl(STDERR_FILENO, TIOCGWINSZ, &w) == 0 && w.ws_col > 1) return w.ws_col;
  return 80;
}

void write_all(std::FILE* f, const std::string& s) {
  std::fwrite(s.data(), 1, s.size(), f);
  std::fflush(f);
}

}  // namespace

void add_console_options(CLI::App& app, console_options& options) {
  auto* progress = app.add_flag("--progress", options.progress,
                                "progress on stderr even when it is not a terminal (one line per message)");
  app.add_flag("-q,--quiet", options.quiet, "no progress, only data (and errors)")->excludes(progress);
}

console::console(const console_options& options)
    : m_mode(options.quiet      ? mode::off
             : options.progress ? (isatty(STDERR_FILENO) ? mode::live : mode::lines)
             : isatty(STDERR_FILENO) ? mode::live
                                     : mode::off),
      m_stdout_tty(isatty(STDOUT_FILENO) != 0) {}

console::~console() { clear(); }

void console::clear() {
  if (m_live == 0) return;
  write_all(stderr, "\r\033[K");
  m_live = 0;
}

void console::data(const char* format, ...) {
  va_list args;
  va_start(args, format);
  const std::string s = format_text(format, args);
  va_end(args);
  // Only a terminal showing both streams needs the status line out of the way.
  if (m_stdout_tty) clear();
  write_all(stdout, s);
}

void console::status(const char* format, ...) {
  if (m_mode == mode::off) return;
  va_list args;
  va_start(args, format);
  std::string s = format_text(format, args);
  va_end(args);
  if (m_mode == mode::lines) return write_all(stderr, s + "\n");
  const std::size_t columns = terminal_columns() - 1;
  if (s.size() > columns) s.resize(columns);
  write_all(stderr, "\r" + s + "\033[K");
  m_live = s.size() + 1;
}

void console::note(const char* format, ...) {
  if (m_mode == mode::off) return;
  va_list args;
  va_start(args, format);
  const std::string s = format_text(format, args);
  va_end(args);
  clear();
  write_all(stderr, s + "\n");
}

}  // namespace sweep_apps
