// Every tuning constant of Sweep, one struct per kind of execution space:
//
//   sweep::tuning<ExecSpace>::scan::chunk_bytes, ::sort::..., ::segments::..., ::bitmask::...,
//   ::ocean::..., ::raytrace::..., ::gravity::..., ::team_network::...
//
// The primary template below holds the portable defaults, shaped for a GPU
// (any device space without hand-written kernels); lib/sweep/host/tuning.hpp
// specialises it for host spaces and lib/sweep/cuda/tuning.hpp for
// Kokkos::Cuda. Each value says how it was chosen. Options structs
// (scan_options::chunk_size, trace_options::packet_size, ...) override
// them per call; 0 there means "this struct's value".
#pragma once

#include <sweep/core.hpp>
#include <sweep/detail/space.hpp>

#include <cstddef>

namespace sweep {

namespace detail {
/// Levels a ray tracer's binary BVH can have: at most
/// bvh_options::median_depth (<= 64) levels of SAH splits, then halving
/// splits of at most 2^29 triangles down to one per leaf (30 levels), and
/// the root. A wide BVH collapsed from it has no more levels (each wide
/// level takes at least one binary level), so a single-ray walk never holds
/// more than (W - 1) x this many pending entries.
constexpr int raytrace_max_binary_depth = 64 + 30 + 1;
}  // namespace detail

template <class ExecSpace, class Kind = detail::space_kind_t<ExecSpace>>
struct tuning {
  struct scan {
    /// single_pass: bytes per chunk: one team's tile, about what 256
    /// threads keep in registers and shared memory.
    static constexpr std::size_t chunk_bytes = std::size_t(16) << 10;
    /// Threads per team of the team-based scan kernels: 256 fills a
    /// multiprocessor's warp schedulers with a few teams.
    static constexpr int team_size = 256;
    /// tiled: elements per tile (8 per thread of a 256-thread team).
    static constexpr index_t tile_size = 2048;
    /// Streaming stores are a host technique; devices never take them.
    static constexpr std::size_t streaming_bytes = ~std::size_t(0);
    /// `automatic` never scans sequentially on a device.
    static constexpr index_t sequential_below = 0;
  };
  struct sort {
    /// Keys per radix-sort block: one thread's digit histogram, small
    /// enough that a GPU has thousands of blocks in flight.
    static index_t block_keys(const ExecSpace&, index_t) { return 1024; }
    /// Outputs per thread of a merge round (detail/merge_runs.hpp): a
    /// binary search then a short sequential merge, one thread per 32
    /// outputs.
    static index_t merge_chunk(const ExecSpace&, index_t) { return 32; }
  };
  struct segments {
    /// Blocks of 8192 elements per thread's walk when offsets become head
    /// bits (detail/segment_heads.hpp): one, so a GPU runs a thread per
    /// block.
    static index_t offset_walk_blocks(const ExecSpace&, index_t) { return 1; }
  };
  struct bitmask {
    /// Indices per scheduling chunk of the bitmask loops (0: the backend's).
    static index_t grain(const ExecSpace&, index_t) { return 0; }
    /// rank_select streaming pack/unpack: mask words per task.
    static constexpr index_t words_per_task = 2048;
  };
  struct ocean {
    /// Threads per strip team: 128 lanes walk a row segment together.
    static constexpr int team_size = 128;
    /// Rows per strip of the fused red-black sweep: short strips give a
    /// GPU many teams while the wavefront stays two rows deep.
    static index_t strip_rows(const ExecSpace&, index_t interior) { return interior < 16 ? interior : 16; }
    /// Sweeps per pass of red_black_sweeps: a GPU's strips are 16 rows,
    /// so two sweeps (four half-steps) keep the seams' share small; to be
    /// measured on a GPU.
    static constexpr int blocked_sweeps = 2;
    /// MDRange tiles of the phased and Jacobi sweeps: 4 x 64 coalesces a
    /// warp along rows.
    static constexpr index_t tile_rows = 4;
    static constexpr index_t tile_cols = 64;
  };
  struct raytrace {
    /// Packets are a CPU design (one thread carries many rays, its SIMD
    /// lanes test them together). A GPU's lanes are its threads: there
    /// trace_mode::automatic traces a ray per thread, and an explicit
    /// trace_mode::packet uses the smallest packet (state in registers).
    static constexpr bool automatic_packets = false;
    static constexpr int packet_size = 8;
    /// Traversal stack entries per ray or packet: a walk keeps at most
    /// three pending siblings per level of the 4-wide BVH, whose depth is
    /// about half the binary BVH's (bvh_options::median_depth <= 64, then
    /// median splits): 3 x 64 = 192.
    static constexpr int stack_size = 192;
    /// Single rays walk a 4-wide BVH on a GPU (128-byte nodes: one load per
    /// thread stays small) with the stack above; 8-wide nodes are a CPU
    /// choice (host/tuning.hpp), not yet measured on a GPU.
    static constexpr int wide_width = 4;
    static constexpr int wide_stack_size = stack_size;
    /// BVH build: a level partitions one node per thread once it has this
    /// many nodes per unit of concurrency; below, every triangle flags its
    /// side and a scan places it. A GPU needs the per-triangle form until
    /// a level is tens of thousands of nodes wide; to be measured on a GPU.
    static constexpr int build_nodes_per_thread = 1;
  };
  struct gravity {
    /// Threads per partition's team in the tree walk: 64 lanes share a
    /// partition's bodies (the walk diverges beyond a couple of warps).
    static constexpr int team_size = 64;
  };
  struct team_network {
    /// The team-network cost model's constants in ns (team_network_choice.hpp;
    /// bench_team_network's constants and fit rows measure them). Not yet
    /// measured on a GPU: estimates for a 256-thread block at about 1.7 GHz.
    /// A step is two block barriers and a shared-memory round trip (about
    /// 100 cycles); one more operation takes one lane of a warp instruction
    /// (a thirty-second of a few cycles); one more shared-memory transaction
    /// (a bank conflict) about 30 cycles.
    static constexpr double step_ns = 60.0;
    static constexpr double op_ns = 0.1;
    static constexpr double conflict_ns = 20.0;
  };
};

}  // namespace sweep

#define SWEEP_DISPATCH_TUNING
#include <sweep/backend.hpp>
