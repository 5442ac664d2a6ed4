// sweep::print_configuration: it names the default space, follows the
// ISA limit (SWEEP_HOST_ISA / set_isa_limit) and prints every tuning group.
#include <sweep/configuration.hpp>

#include "test_support.hpp"

#include <cstdlib>
#include <sstream>
#include <stdexcept>
#include <string>

namespace {
std::string configuration() {
  std::ostringstream os;
  sweep::print_configuration(os);
  return os.str();
}
}  // namespace

TEST_CASE("print_configuration names the versions, the default space and every tuning group") {
  const std::string s = configuration();
  CHECK(s.rfind(std::string("sweep: ") + SWEEP_VERSION_STRING + "\n", 0) == 0);
  CHECK(s.find(std::string("default execution space: ") + Kokkos::DefaultExecutionSpace::name() + " (concurrency ") !=
        std::string::npos);
  CHECK(s.find(std::string(" ") + Kokkos::DefaultExecutionSpace::name()) < s.find("default execution space"));
  for (const char* group : {"scan.chunk_bytes", "scan.team_size", "scan.tile_size", "scan.streaming_bytes",
                            "scan.sequential_below", "sort.block_keys", "segments.offset_walk_blocks",
                            "bitmask.grain", "bitmask.words_per_task",
                            "ocean.team_size", "ocean.strip_rows", "ocean.tile_rows", "ocean.tile_cols",
                            "raytrace.automatic_packets", "raytrace.packet_size", "raytrace.stack_size",
                            "raytrace.wide_width", "raytrace.wide_stack_size",
                            "raytrace.build_nodes_per_thread", "gravity.team_size"})
    CHECK_MESSAGE(s.find(std::string("\ntuning.") + group + ": ") != std::string::npos, group);
  CHECK(s.find("\nbuilt: mpi ") != std::string::npos);
}

TEST_CASE("print_configuration follows the ISA limit") {
  {
    sweep::host::scoped_isa_limit cap(sweep::host::isa::baseline);
    const std::string s = configuration();
    CHECK(s.find("limit baseline") != std::string::npos);
    CHECK(s.find("active baseline") != std::string::npos);
    CHECK(s.find("host isa.bitmask: baseline\n") != std::string::npos);
    CHECK(s.find("host isa.segments: baseline\n") != std::string::npos);
    CHECK(s.find("host isa.raytrace: avx512") == std::string::npos);
    CHECK(s.find("host isa.raytrace: avx2") == std::string::npos);
  }
  const std::string s = configuration();
  const std::string active = std::string("active ") + sweep::host::to_string(sweep::host::active_isa()) +
                             (sweep::host::uses_avx512_vbmi2() ? " + vbmi2" : "") + "\n";
  CHECK(s.find(active) != std::string::npos);
}

TEST_CASE("SWEEP_HOST_ISA names a level, avx512f the AVX-512 level without its extensions") {
  const char* old = std::getenv("SWEEP_HOST_ISA");
  const std::string saved = old != nullptr ? old : "";
  const auto read = [](const char* value) {
    ::setenv("SWEEP_HOST_ISA", value, 1);
    return sweep::host::detail::read_isa_env();
  };
  CHECK(read("avx2").level == sweep::host::isa::avx2);
  CHECK(read("avx2").extensions);
  CHECK(read("avx512").level == sweep::host::isa::avx512);
  CHECK(read("avx512").extensions);
  CHECK(read("avx512f").level == sweep::host::isa::avx512);
  CHECK_FALSE(read("avx512f").extensions);
  CHECK(read("").extensions);
  try {
    read("avx512vl");
    FAIL("an unknown level was accepted");
  } catch (const std::invalid_argument& e) {
    CHECK(std::string(e.what()) ==
          "SWEEP_HOST_ISA: unknown instruction set level 'avx512vl'; use baseline, avx2, avx512f or avx512");
  }
  if (old != nullptr) ::setenv("SWEEP_HOST_ISA", saved.c_str(), 1);
  else ::unsetenv("SWEEP_HOST_ISA");
}
