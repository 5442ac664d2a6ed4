// Helpers shared by Sweep's tests: the space type list, host <-> device
// copies of std::vector, seeded random data and a floating-point tolerance
// that grows with the number of operations; SWEEP_TEST_SCALE; scratch folders and the
// message of a rejected call for the error tests.
#pragma once

#include <test_spaces.hpp>

#include <doctest/doctest.h>
#include <Kokkos_Core.hpp>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <limits>
#include <random>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

#include <unistd.h>

namespace sweep_test {

/// A View in the default memory space of ExecSpace holding `values`.
template <class ExecSpace, class T>
Kokkos::View<T*, typename ExecSpace::memory_space> to_device(const std::vector<T>& values,
                                                            const std::string& label = "test") {
  Kokkos::View<T*, typename ExecSpace::memory_space> v(
      Kokkos::view_alloc(Kokkos::WithoutInitializing, label), values.size());
  auto host = Kokkos::create_mirror_view(v);
  for (std::size_t i = 0; i < values.size(); ++i) host(i) = values[i];
  Kokkos::deep_copy(v, host);
  return v;
}

/// The elements of any rank-1 View, copied to the host. A strided View
/// the host cannot read is first gathered into a dense one in its own
/// memory space (Kokkos copies between spaces only dense spans).
template <class View>
std::vector<typename View::non_const_value_type> to_host(const View& v) {
  using T = typename View::non_const_value_type;
  using Mem = typename View::memory_space;
  if constexpr (!Kokkos::SpaceAccessibility<Kokkos::HostSpace, Mem>::accessible) {
    if (!v.span_is_contiguous()) {
      Kokkos::View<T*, Mem> dense(Kokkos::view_alloc(Kokkos::WithoutInitializing, std::string("dense")), v.extent(0));
      Kokkos::deep_copy(dense, v);
      return to_host(dense);
    }
  }
  auto host = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), v);
  std::vector<T> out(v.extent(0));
  for (std::size_t i = 0; i < out.size(); ++i) out[i] = host(i);
  return out;
}

/// Seeded random values: integers over a small range (so sums and
/// products stay meaningful), floats in [-1, 1).
template <class T>
std::vector<T> random_values(std::size_t n, std::uint64_t seed) {
  std::mt19937_64 gen(seed);
  std::vector<T> out(n);
  if constexpr (std::is_floating_point_v<T>) {
    std::uniform_real_distribution<T> dist(T(-1), T(1));
    for (auto& x : out) x = dist(gen);
  } else if constexpr (std::is_integral_v<T>) {
    std::uniform_int_distribution<int> dist(std::is_signed_v<T> ? -3 : 0, 3);
    for (auto& x : out) x = static_cast<T>(dist(gen));
  } else {
    for (auto& x : out) x = T::random(gen);
  }
  return out;
}

/// Tolerance for a result accumulated over n floating-point operations.
template <class T>
double tolerance(std::size_t n) {
  if constexpr (std::is_floating_point_v<T>)
    return 8.0 * std::numeric_limits<T>::epsilon() * std::sqrt(static_cast<double>(n) + 1.0) *
           (std::log2(static_cast<double>(n) + 2.0) + 1.0);
  else
    return 0.0;
}

/// SWEEP_TEST_SCALE (a whole number, default 1) divides the large sizes
/// that only stand for "large" (the sanitizer run in CI sets it); sizes
/// that are a test's point (past 2^32, past the caches, a tree depth) stay.
inline std::size_t test_scale() {
  static const std::size_t scale = [] {
    const char* env = std::getenv("SWEEP_TEST_SCALE");
    const long v = env ? std::atol(env) : 1;
    return v > 1 ? static_cast<std::size_t>(v) : std::size_t(1);
  }();
  return scale;
}

/// n divided by SWEEP_TEST_SCALE, but at least `floor`.
inline std::size_t scaled(std::size_t n, std::size_t floor) { return std::max(n / test_scale(), floor); }

/// A fresh folder under the system's temporary folder, removed with it;
/// the process id keeps the 1- and 2-thread runs of a test apart.
struct scratch_dir {
  std::filesystem::path path;
  explicit scratch_dir(const std::string& name)
      : path(std::filesystem::temp_directory_path() / (name + "-" + std::to_string(::getpid()))) {
    std::filesystem::remove_all(path);
    std::filesystem::create_directories(path);
  }
  ~scratch_dir() { std::filesystem::remove_all(path); }
  scratch_dir(const scratch_dir&) = delete;
  scratch_dir& operator=(const scratch_dir&) = delete;
  /// Writes `bytes` to the file `name` in the folder; returns its path.
  std::string write(const std::string& name, const std::string& bytes) const {
    const auto p = (path / name).string();
    std::ofstream(p, std::ios::binary) << bytes;
    return p;
  }
};

/// What thrown() returns when f() throws nothing.
inline const std::string nothing_thrown = "(nothing thrown)";

/// The message of the std::invalid_argument that f() throws, or
/// nothing_thrown.
template <class F>
std::string thrown(F&& f) {
  try {
    f();
  } catch (const std::invalid_argument& e) {
    return e.what();
  }
  return nothing_thrown;
}

/// True when `part` occurs in `text`.
inline bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

}  // namespace sweep_test
