// A Kokkos Tools library that checks Sweep's labels. Loaded into a test
// program with --kokkos-tools-library=<this library>, it watches every
// kernel launch and allocation made while a profiling region whose name
// starts with "sweep::" is open (every public Sweep call opens one): their
// labels must start with "sweep::". Kokkos' own work inside such a call
// (deep_copy fills, View initialisation, thread scratch) is named
// "Kokkos::..." or "[unlabeled]"; it passes when a View label it names in
// brackets is Sweep's. At finalize the
// library prints what it saw; any offending label, or no Sweep work seen
// at all, ends the process with exit status 1.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <string>
#include <vector>

namespace {

struct state {
  std::vector<std::string> regions;
  int sweep_depth = 0;  // open regions named sweep::...
  std::uint64_t kernels = 0, allocations = 0;
  std::map<std::string, std::string> offending;  // label -> enclosing Sweep region
};

state& get() {
  static state s;
  return s;
}

bool starts_with(const std::string& s, const char* prefix) { return s.rfind(prefix, 0) == 0; }

bool acceptable(const std::string& label) {
  if (starts_with(label, "sweep::")) return true;
  // Kokkos' own unnamed allocations (thread and reduction scratch).
  if (label == "[unlabeled]") return true;
  if (!starts_with(label, "Kokkos::")) return false;
  // Kokkos names the View it works on in brackets; Kokkos 3.4 leaves them
  // empty when destroying a View made WithoutInitializing (its allocation
  // was checked when it was made).
  const auto open = label.find('[');
  return open == std::string::npos || label.compare(open + 1, 7, "sweep::") == 0 ||
         label.compare(open, 2, "[]") == 0;
}

std::string innermost_sweep_region() {
  const auto& r = get().regions;
  for (auto it = r.rbegin(); it != r.rend(); ++it)
    if (starts_with(*it, "sweep::")) return *it;
  return {};
}

void seen(const char* kind, const char* name, std::uint64_t& counter) {
  state& s = get();
  if (s.sweep_depth == 0) return;
  ++counter;
  const std::string label = name ? name : "";
  if (acceptable(label)) return;
  s.offending.emplace(std::string(kind) + " '" + label + "'", innermost_sweep_region());
  // For a debugger: stop at the first offence.
  if (std::getenv("SWEEP_LABEL_TOOL_ABORT") != nullptr) std::abort();
}

}  // namespace

struct SpaceHandle {
  char name[64];
};

extern "C" {

void kokkosp_init_library(int, std::uint64_t, std::uint32_t, void*) {}

void kokkosp_finalize_library() {
  const state& s = get();
  std::fprintf(stderr, "sweep label check: %llu kernels and %llu allocations inside Sweep calls\n",
               static_cast<unsigned long long>(s.kernels), static_cast<unsigned long long>(s.allocations));
  for (const auto& [label, region] : s.offending)
    std::fprintf(stderr, "sweep label check: %s (inside %s) does not start with sweep::\n", label.c_str(),
                 region.c_str());
  if (!s.offending.empty() || s.kernels == 0) {
    if (s.kernels == 0) std::fprintf(stderr, "sweep label check: no Sweep kernel was seen\n");
    std::fflush(stderr);
    std::_Exit(1);
  }
}

void kokkosp_begin_parallel_for(const char* name, std::uint32_t, std::uint64_t*) { seen("kernel", name, get().kernels); }
void kokkosp_end_parallel_for(std::uint64_t) {}
void kokkosp_begin_parallel_reduce(const char* name, std::uint32_t, std::uint64_t*) { seen("kernel", name, get().kernels); }
void kokkosp_end_parallel_reduce(std::uint64_t) {}
void kokkosp_begin_parallel_scan(const char* name, std::uint32_t, std::uint64_t*) { seen("kernel", name, get().kernels); }
void kokkosp_end_parallel_scan(std::uint64_t) {}

void kokkosp_push_profile_region(const char* name) {
  state& s = get();
  s.regions.emplace_back(name ? name : "");
  if (starts_with(s.regions.back(), "sweep::")) ++s.sweep_depth;
}

void kokkosp_pop_profile_region() {
  state& s = get();
  if (s.regions.empty()) return;
  if (starts_with(s.regions.back(), "sweep::")) --s.sweep_depth;
  s.regions.pop_back();
}

void kokkosp_allocate_data(SpaceHandle, const char* name, const void*, std::uint64_t) {
  seen("allocation", name, get().allocations);
}
void kokkosp_deallocate_data(SpaceHandle, const char*, const void*, std::uint64_t) {}

}  // extern "C"
