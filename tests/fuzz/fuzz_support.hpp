// Shared by the libFuzzer targets: a scratch file to hand file-reading
// entry points their input, and a check that aborts with a message (a
// finding) when an accepted input breaks an invariant.
#pragma once

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

#include <unistd.h>

namespace sweep_fuzz {

/// A file under the temporary folder, one per process and suffix,
/// rewritten for every input (the readers take paths).
inline std::string scratch_file(const std::string& suffix) {
  return (std::filesystem::temp_directory_path() /
          ("sweep-fuzz-" + std::to_string(::getpid()) + suffix)).string();
}

inline void write_file(const std::string& path, const std::uint8_t* data, std::size_t size) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(reinterpret_cast<const char*>(data), static_cast<std::streamsize>(size));
  if (!out) {
    std::fprintf(stderr, "fuzz: cannot write %s\n", path.c_str());
    std::abort();
  }
}

[[noreturn]] inline void fail(const char* what) {
  std::fprintf(stderr, "fuzz: invariant broken: %s\n", what);
  std::abort();
}

#define SWEEP_FUZZ_CHECK(cond) \
  do {                         \
    if (!(cond)) ::sweep_fuzz::fail(#cond); \
  } while (0)

}  // namespace sweep_fuzz
