// Tuning constants of the host spaces (OpenMP, Serial, Threads): see
// sweep/tuning.hpp. Sized for CPU cores with 1-2 MiB of L2 (the 2-vCPU
// Xeon and EPYC VMs of benchmarks/results/).
#pragma once

#include <sweep/tuning.hpp>

#include <algorithm>

namespace sweep {

template <class ExecSpace>
struct tuning<ExecSpace, detail::host_kind> {
  struct scan {
    /// single_pass: a chunk (128 KiB) stays in a core's L2 between its
    /// fold and its scan, so memory sees one read per element.
    static constexpr std::size_t chunk_bytes = std::size_t(128) << 10;
    /// One thread per chunk: a CPU core scans a chunk with its vector unit.
    static constexpr int team_size = 1;
    /// tiled: 16384 elements per tile, one thread's L2-resident block.
    static constexpr index_t tile_size = 16384;
    /// Outputs of at least 64 MiB (past any last-level cache here) bypass
    /// the caches with streaming stores; smaller ones stay cached for the
    /// caller.
    static constexpr std::size_t streaming_bytes = std::size_t(64) << 20;
    /// Below 4096 elements one thread's scan costs less than waking the
    /// thread pool (bench_scan's sequential and single_pass rows).
    static constexpr index_t sequential_below = 4096;
  };
  struct sort {
    /// Keys per radix-sort block: about four blocks per thread (load
    /// balance) and at least 4096 keys (the 256-bucket histogram pays off).
    static index_t block_keys(const ExecSpace& space, index_t n) {
      const index_t per = (n + 4 * index_t(space.concurrency()) - 1) / (4 * index_t(space.concurrency()));
      return std::max<index_t>(per, 4096);
    }
    /// Bytes of keys and values each thread stages per scatter pass (256
    /// bucket buffers, host/sort_backend.hpp). On the 2-core EPYC VM
    /// (4 KiB pages) a 2^24 uint32 key/value sort took 440 ms with the
    /// plain scatter and 340, 250, 212 and 201 ms with 16, 64, 128 and
    /// 256 entries per bucket (32 KiB to 512 KiB): bigger buffers write
    /// longer runs per page. 512 KiB still sits in a core's L2.
    static constexpr std::size_t scatter_buffer_bytes = std::size_t(512) << 10;
    /// Outputs per task of a merge round: about eight tasks per thread
    /// (load balance), at least 4096 (the binary search that starts a task
    /// stays negligible).
    static index_t merge_chunk(const ExecSpace& space, index_t n) {
      return std::max<index_t>(n / (8 * index_t(space.concurrency())), 4096);
    }
  };
  struct segments {
    /// Blocks of 8192 elements per thread's walk when offsets become head
    /// bits (host/offsets_backend.hpp): about eight walks per thread (load
    /// balance), at most 16 (131072 elements). A walk starts with two
    /// binary searches over the offsets and a cold stream: at one block per
    /// walk, segscan offsets/8/int32 at 2^26 took 16.8-17.1 ms against
    /// 14.4-14.6 ms at 16 (bench_segmented_scan, two alternating runs,
    /// medians of 3); 64 and 256 ran as 16 did (14.7-15.3 ms).
    static index_t offset_walk_blocks(const ExecSpace& space, index_t blocks) {
      const index_t per = blocks / (8 * index_t(space.concurrency()));
      return per < 1 ? 1 : (per > 16 ? 16 : per);
    }
  };
  struct bitmask {
    /// Indices per task of the bitmask loops: about eight tasks per thread
    /// (load balance), at most 4096 (a task stays short).
    static index_t grain(const ExecSpace& space, index_t n) {
      const index_t per = n / (8 * index_t(space.concurrency()));
      return per < 1 ? 1 : (per > 4096 ? 4096 : per);
    }
    /// rank_select streaming pack/unpack: 2048 words (131072 mask bits)
    /// per task (bench_bitmask's work_item rows vary it).
    static constexpr index_t words_per_task = 2048;
  };
  struct ocean {
    /// One thread per strip: rows are walked with plain pointers.
    static constexpr int team_size = 1;
    /// Four strips per thread balance the load against the extra passes
    /// over strip-edge rows.
    static constexpr index_t strips_per_thread = 4;
    static index_t strip_rows(const ExecSpace& space, index_t interior) {
      const index_t strips = std::max<index_t>(1, index_t(space.concurrency()) * strips_per_thread);
      return std::max<index_t>(2, (interior + strips - 1) / strips);
    }
    /// Sweeps per pass of red_black_sweeps (temporal blocking). bench_ocean
    /// on the 2-vCPU EPYC VM, n = 4098 row-major, 2 threads: one sweep
    /// 8.19 ms; 2, 4 and 8 sweeps 11.9, 20.3 and 41.2 ms (8 in two passes
    /// of 4): past 4 the pass is bound by the row kernel, not memory, and
    /// longer wavefronts only widen the seams.
    static constexpr int blocked_sweeps = 4;
    /// Block-major row walks fetch u this many rows ahead (f one less),
    /// into L2. bench_ocean rb_sweep block_major at n = 4098 (EPYC VM, 2
    /// threads, alternating runs): no fetch 18.0-19.7 ms; 2 rows 13.1-13.4
    /// ms (into L1), 4 rows 11.9-12.3 ms (into L2), 6 rows 13.6-13.8 ms
    /// (measured before whole-run AVX-512 rows and huge-page grids).
    static constexpr index_t block_prefetch_rows = 4;
    /// MDRange tiles of the phased and Jacobi sweeps: 64 rows of 512
    /// doubles (256 KiB) stay in L2.
    static constexpr index_t tile_rows = 64;
    static constexpr index_t tile_cols = 512;
  };
  struct raytrace {
    /// 64 rays per packet: a thread carries many coherent rays (primary
    /// rays of a pixel block) and compaction regroups the ones that
    /// diverge; the packet walk's SSE / AVX-512 lanes need 16 or more.
    static constexpr bool automatic_packets = true;
    static constexpr int packet_size = 64;
    /// Packet and binary walks: at most one pending sibling per binary level.
    static constexpr int stack_size = 192;
    /// Single rays walk an 8-wide BVH: half the levels of a 4-wide one, and
    /// eight boxes per node test in one AVX2 vector (two SSE halves on the
    /// baseline); Embree's single rays use 8-wide nodes on AVX CPUs too.
    /// See bench_raytrace's sweep_single rows and the README's figures.
    static constexpr int wide_width = 8;
    /// Single-ray stack: up to seven pending children per wide level, over
    /// as many levels as a binary BVH can have (bvh_nodes.hpp), so no tree
    /// overflows it.
    static constexpr int wide_stack_size = (wide_width - 1) * detail::raytrace_max_binary_depth;
    /// BVH build: from 4 nodes per thread a level partitions a node
    /// per thread (dynamic schedule) instead of flagging and scanning every
    /// triangle; see bench_raytrace's build rows.
    static constexpr int build_nodes_per_thread = 4;
  };
  struct gravity {
    /// One thread per partition: a CPU thread walks its bodies alone.
    static constexpr int team_size = 1;
    /// Bodies that share one walk and one interaction list
    /// (host/gravity_backend.hpp): the largest subtrees of at most this
    /// many. Measured with apps/galaxy on a Plummer sphere, one step, 2
    /// threads, AVX-512, on the 2-vCPU EPYC VM: 10^6 bodies took 4.69,
    /// 2.85, 2.58 and 2.63 s per step at 16, 64, 128 and 256 (3.5 to 4.0
    /// x 10^9 interactions: larger groups open more nodes but walk less
    /// often); 10^5 bodies 0.40, 0.24, 0.22 and 0.23 s.
    static constexpr index_t group_size = 128;
  };
  struct team_network {
    /// Measured by bench_team_network's team_network/constants/2 row on the
    /// 2-vCPU EPYC VM (OpenMP, 2 threads; benchmarks/results/cpu-2core-epyc/
    /// bench_team_network.json, median of 3): a team barrier 364 ns, one
    /// operation with its two scratch loads 1.96 ns, so a step (two
    /// barriers and an operation) 730 ns. Six runs on this shared VM gave
    /// barriers of 106 to 372 ns and operations of 1.9 to 2.0 ns; at every
    /// one a step is worth over 100 operations, so the choice (the smallest
    /// network of the least depth) does not change. This VM's teams hold at
    /// most 2 threads, where every network is one operation; the fit rows
    /// need 8 or more threads, and oversubscribed runs time the scheduler.
    static constexpr double step_ns = 730.0;
    static constexpr double op_ns = 1.96;
    /// Host caches have no shared-memory banks.
    static constexpr double conflict_ns = 0.0;
  };
};

}  // namespace sweep
