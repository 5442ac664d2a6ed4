// What a trace call takes and reports.
//
// trace_mode: `single` walks the wide BVH one ray per work item;
// `packet` walks the binary BVH with packets of packet_size consecutive
// rays; `automatic` runs packets with reordering (compaction, single-ray
// fall-back) where the space's tuning packs rays (CPUs: one thread, many
// rays in SIMD lanes), and single rays elsewhere (GPUs: a ray per thread).
// trace_isa picks the packet lanes (and single rays' node tests: AVX2 for
// avx2 and avx512) on x86-64 hosts. trace_stats says what
// a batch cost. Results never depend on any of these.
#pragma once

#include <cstdint>

namespace sweep::raytrace {

enum class trace_mode { single, packet, automatic };

inline const char* to_string(trace_mode m) {
  return m == trace_mode::single ? "single" : (m == trace_mode::packet ? "packet" : "auto");
}

/// The instruction set of the packet walk on x86-64 hosts (single rays:
/// AVX2 node tests for avx2 and avx512, SSE for baseline): `automatic`
/// takes the widest lanes the build and the CPU have (AVX-512, then AVX2),
/// else the baseline (SSE, or scalar code elsewhere). Results are the same
/// with every one.
enum class trace_isa { automatic, baseline, avx2, avx512 };

inline const char* to_string(trace_isa i) {
  switch (i) {
    case trace_isa::automatic: return "auto";
    case trace_isa::baseline: return "baseline";
    case trace_isa::avx2: return "avx2";
    case trace_isa::avx512: return "avx512";
  }
  return "?";
}

struct trace_options {
  trace_mode mode = trace_mode::automatic;  // see trace_mode
  int packet_size = 0;         // 8, 16, 32 or 64 rays; 0: tuning<S>::raytrace::packet_size
  float compact_below = 0.5f;  // automatic: compact when active / lanes <= this
  int single_below = 2;        // automatic: trace singly at this many active rays or fewer
  trace_isa isa = trace_isa::automatic;
};

/// What a batch of rays cost.
struct trace_stats {
  std::uint64_t rays = 0;
  std::uint64_t packet_node_tests = 0;  // packet visits of a node (box tests of a whole packet)
  std::uint64_t packet_lanes = 0;       // lanes those tests covered
  std::uint64_t active_lanes = 0;       // lanes whose ray hit the box
  std::uint64_t compactions = 0;        // packets compacted into smaller ones
  std::uint64_t single_fallbacks = 0;   // rays that left their packet to finish alone
  /// Active lanes / lanes over all packet node tests (1 for single rays).
  double utilisation() const { return packet_lanes ? double(active_lanes) / double(packet_lanes) : 1.0; }
};

}  // namespace sweep::raytrace
