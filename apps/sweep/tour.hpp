// The tour: every capability Sweep has, run at a small size, checked against
// a reference, timed, and summed up in one table.
#pragma once

#include <Kokkos_Core.hpp>

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <string>
#include <vector>

namespace tour {

struct options {
  int log2n = 22;                 // elements per capability
  int repeats = 5;                // timed runs; the best is reported
  std::filesystem::path out_dir;  // where images go
};

struct row {
  std::string capability;
  std::int64_t size = 0;
  double seconds = 0;    // best of the timed runs
  double bytes = 0;      // traffic model of one run (0: not bandwidth bound, see rate)
  double items = 0;      // work items of one run, reported as a rate when bytes is 0
  std::string unit;      // what an item is ("interactions", "rays")
  bool passed = false;   // checked against a reference
  std::string note;      // what was checked, or why it failed
  std::string figure;    // optional text picture printed after the table
};

/// Best wall time of `repeats` fenced runs of `body`, after one warm-up.
template <class Body>
double best_seconds(int repeats, Body&& body) {
  body();
  Kokkos::fence();
  double best = 1e300;
  for (int r = 0; r < repeats; ++r) {
    auto t0 = std::chrono::steady_clock::now();
    body();
    Kokkos::fence();
    best = std::min(best, std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
  }
  return best;
}

/// A device View holding `v` (labelled), and back.
template <class T>
Kokkos::View<T*> upload(const std::vector<T>& v, const char* label) {
  Kokkos::View<T*> d(std::string(label), v.size());
  auto h = Kokkos::create_mirror_view(d);
  for (std::size_t i = 0; i < v.size(); ++i) h(i) = v[i];
  Kokkos::deep_copy(d, h);
  return d;
}

template <class View>
std::vector<typename View::non_const_value_type> download(const View& d) {
  auto h = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), d);
  return std::vector<typename View::non_const_value_type>(h.data(), h.data() + h.extent(0));
}

using capability = std::function<std::vector<row>(const options&)>;

/// Each tour_*.cpp contributes its rows through one of these.
std::vector<row> run_copy(const options& opt);
std::vector<row> run_scan(const options& opt);
std::vector<row> run_segmented(const options& opt);
std::vector<row> run_bitmask(const options& opt);
std::vector<row> run_ocean(const options& opt);
std::vector<row> run_galaxy(const options& opt);
std::vector<row> run_raytrace(const options& opt);
#if defined(SWEEP_TOUR_MPI)
std::vector<row> run_mpi(const options& opt);  // built with Sweep::mpi
#endif

}  // namespace tour
