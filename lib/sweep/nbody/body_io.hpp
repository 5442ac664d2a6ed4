// Body files, two formats (host code):
//
// CSV: one body per line, `m,x,y,z,vx,vy,vz` as decimal numbers; blank
// lines and lines starting with '#' are skipped, as is a first line equal
// to the header `m,x,y,z,vx,vy,vz`. Written with 17 significant digits, so
// a round trip is exact.
//
// Binary: the 8 bytes "SWEEPNB1", the body count N as a little-endian
// uint64, then N records of 7 little-endian IEEE-754 doubles in the CSV's
// field order (56 bytes each); nothing after them.
//
// read_bodies detects the format from the first 8 bytes. Every error throws
// std::invalid_argument naming the file and the line (CSV) or byte offset
// (binary): a missing or unreadable file, a line without exactly 7
// numbers, a field that is not a number, NaN/Inf, a negative mass, a
// total mass of 0 (every mass 0: what simulations and write_bodies
// refuse), a truncated or overlong binary file, N = 0. write_bodies writes a temporary
// file next to the target and renames it over the target only when
// complete, so a failed write never leaves a partial or damaged file.
#pragma once

#include <sweep/core.hpp>
#include <sweep/nbody/bodies.hpp>

#include <bit>
#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <string_view>
#include <system_error>
#include <vector>

namespace sweep::nbody {

enum class body_format { automatic, csv, binary };

namespace detail {

inline constexpr char binary_magic[8] = {'S', 'W', 'E', 'E', 'P', 'N', 'B', '1'};
inline constexpr const char* csv_header = "m,x,y,z,vx,vy,vz";

[[noreturn]] inline void file_error(const std::string& path, const std::string& what) {
  throw std::invalid_argument("sweep::nbody::read_bodies: " + path + ": " + what);
}

inline std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r')) s.remove_suffix(1);
  return s;
}

inline void check_body(const body& b, const std::string& path, const std::string& where) {
  static constexpr const char* names[7] = {"m", "x", "y", "z", "vx", "vy", "vz"};
  const double f[7] = {b.m, b.x, b.y, b.z, b.vx, b.vy, b.vz};
  for (int k = 0; k < 7; ++k)
    if (!std::isfinite(f[k]))
      file_error(path, sweep::detail::concat(where, ": field ", k + 1, " (", names[k], ") is not finite (", f[k], ")"));
  if (b.m < 0) file_error(path, sweep::detail::concat(where, ": negative mass ", b.m));
}

/// Every mass may be 0 one at a time, not all at once: the simulations
/// and write_bodies need a positive total, so a file they would refuse is
/// refused here, where the file can be named.
inline void check_total_mass(const std::vector<body>& bodies, const std::string& path) {
  for (const auto& b : bodies)
    if (b.m > 0) return;
  file_error(path, "the total mass is 0 (N = " + std::to_string(bodies.size()) + ", every mass is 0)");
}

inline std::vector<body> read_csv(const std::string& path, const std::string& text) {
  std::vector<body> out;
  std::size_t line_no = 0, pos = 0;
  while (pos < text.size()) {
    std::size_t nl = text.find('\n', pos);
    if (nl == std::string::npos) nl = text.size();
    const std::string_view line = trim(std::string_view(text).substr(pos, nl - pos));
    pos = nl + 1;
    ++line_no;
    if (line.empty() || line.front() == '#') continue;
    if (out.empty() && line == csv_header) continue;
    double f[7];
    int fields = 0;
    std::size_t start = 0;
    const std::string where = "line " + std::to_string(line_no);
    while (true) {
      const std::size_t comma = line.find(',', start);
      const std::string_view field = trim(line.substr(start, comma == std::string_view::npos ? line.size() - start
                                                                                               : comma - start));
      if (fields < 7) {
        const auto* first = field.data();
        const auto* last = field.data() + field.size();
        if (!field.empty() && *first == '+') ++first;
        const auto [end, ec] = std::from_chars(first, last, f[fields]);
        if (field.empty() || ec != std::errc() || end != last)
          file_error(path, where + ": field " + std::to_string(fields + 1) + " ('" + std::string(field) +
                               "') is not a number");
      }
      ++fields;
      if (comma == std::string_view::npos) break;
      start = comma + 1;
    }
    if (fields != 7)
      file_error(path, where + ": expected 7 comma-separated numbers (" + csv_header + "), found " +
                           std::to_string(fields));
    const body b{f[0], f[1], f[2], f[3], f[4], f[5], f[6]};
    check_body(b, path, where);
    out.push_back(b);
  }
  if (out.empty()) file_error(path, "no bodies (N = 0)");
  check_total_mass(out, path);
  return out;
}

inline std::uint64_t load_le64(const char* p) {
  std::uint64_t v = 0;
  for (int k = 7; k >= 0; --k) v = (v << 8) | static_cast<unsigned char>(p[k]);
  return v;
}

inline void store_le64(char* p, std::uint64_t v) {
  for (int k = 0; k < 8; ++k) p[k] = static_cast<char>((v >> (8 * k)) & 0xff);
}

inline std::vector<body> read_binary(const std::string& path, const std::string& bytes) {
  if (bytes.size() < 16)
    file_error(path, "truncated at byte offset " + std::to_string(bytes.size()) +
                         ": the header (magic + count) needs 16 bytes");
  const std::uint64_t n = load_le64(bytes.data() + 8);
  if (n == 0) file_error(path, "no bodies (N = 0 in the header)");
  const std::uint64_t need = 16 + 56 * n;
  if (n > (std::uint64_t(1) << 40) || bytes.size() < need)
    file_error(path, "truncated at byte offset " + std::to_string(bytes.size()) + ": the header declares " +
                         std::to_string(n) + " bodies (" + std::to_string(need) + " bytes), the file has " +
                         std::to_string(bytes.size()) + " bytes");
  if (bytes.size() > need)
    file_error(path, std::to_string(bytes.size() - need) + " unexpected bytes after the last body at byte offset " +
                         std::to_string(need));
  std::vector<body> out(static_cast<std::size_t>(n));
  for (std::uint64_t i = 0; i < n; ++i) {
    double f[7];
    for (int k = 0; k < 7; ++k) f[k] = std::bit_cast<double>(load_le64(bytes.data() + 16 + 56 * i + 8 * k));
    out[i] = body{f[0], f[1], f[2], f[3], f[4], f[5], f[6]};
    check_body(out[i], path, "body " + std::to_string(i) + " at byte offset " + std::to_string(16 + 56 * i));
  }
  check_total_mass(out, path);
  return out;
}

}  // namespace detail

/// Reads a CSV or binary body file (format from its first bytes).
inline std::vector<body> read_bodies(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) detail::file_error(path, "cannot open (" + std::string(std::strerror(errno)) + ")");
  std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  if (in.bad()) detail::file_error(path, "read error");
  if (bytes.size() >= 8 && std::memcmp(bytes.data(), detail::binary_magic, 8) == 0)
    return detail::read_binary(path, bytes);
  return detail::read_csv(path, bytes);
}

/// Writes the bodies (csv, binary, or automatic: csv for a ".csv" name,
/// binary otherwise), replacing `path` only once the new file is complete.
inline void write_bodies(const std::string& path, const std::vector<body>& bodies,
                         body_format format = body_format::automatic) {
  const char* where = "sweep::nbody::write_bodies";
  detail::check_bodies(bodies, where);
  if (format == body_format::automatic)
    format = std::filesystem::path(path).extension() == ".csv" ? body_format::csv : body_format::binary;
  std::string data;
  if (format == body_format::csv) {
    data = std::string(detail::csv_header) + "\n";
    char line[256];
    for (const auto& b : bodies) {
      const int len = std::snprintf(line, sizeof line, "%.17g,%.17g,%.17g,%.17g,%.17g,%.17g,%.17g\n", b.m, b.x, b.y,
                                    b.z, b.vx, b.vy, b.vz);
      data.append(line, static_cast<std::size_t>(len));
    }
  } else {
    data.resize(16 + 56 * bodies.size());
    std::memcpy(data.data(), detail::binary_magic, 8);
    detail::store_le64(data.data() + 8, bodies.size());
    for (std::size_t i = 0; i < bodies.size(); ++i) {
      const double f[7] = {bodies[i].m, bodies[i].x, bodies[i].y, bodies[i].z, bodies[i].vx, bodies[i].vy, bodies[i].vz};
      for (int k = 0; k < 7; ++k)
        detail::store_le64(data.data() + 16 + 56 * i + 8 * k, std::bit_cast<std::uint64_t>(f[k]));
    }
  }
  const std::string tmp = path + ".partial";
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    if (!out) throw std::invalid_argument(sweep::detail::concat(where, ": ", tmp, ": cannot create (", std::strerror(errno), ")"));
    out.write(data.data(), static_cast<std::streamsize>(data.size()));
    out.flush();
    if (!out) {
      std::error_code ec;
      std::filesystem::remove(tmp, ec);
      throw std::invalid_argument(sweep::detail::concat(where, ": ", tmp, ": write failed"));
    }
  }
  std::error_code ec;
  std::filesystem::rename(tmp, path, ec);
  if (ec) {
    std::filesystem::remove(tmp, ec);
    throw std::invalid_argument(sweep::detail::concat(where, ": cannot replace ", path, " (", ec.message(), ")"));
  }
}

}  // namespace sweep::nbody
