// What Sweep will do on this machine, as text for a person:
//
//   sweep::print_configuration(std::cout);
//
// prints, one `key: value` line each, Sweep's version; the Kokkos version,
// the backends enabled in Kokkos, the default execution space and its
// concurrency; the instruction-set level each host path takes (what the CPU
// supports, capped by SWEEP_HOST_ISA or sweep::host::set_isa_limit, and what
// this build compiled); every value of sweep::tuning<> for the default
// execution space (functions of the size at two sizes); and the optional
// parts built (Sweep::mpi, the Kokkos Kernels peers of the benchmarks, the
// hand-written CUDA kernels).
//
// Semantics: a snapshot at the call; the ISA lines follow the current
// limit. The CUDA-kernel line and the host ISA gates are those of the
// translation unit that calls it (Sweep is header-only).
// Errors: Kokkos must be initialized (the sizes that depend on the space
// ask its concurrency); an unknown SWEEP_HOST_ISA value throws
// std::invalid_argument naming it (as every host path would).
// Cost: a few hundred bytes of text; no kernel runs, nothing is allocated
// on a device.
#pragma once

#include <sweep/config.hpp>
#include <sweep/core.hpp>
#include <sweep/detail/segment_heads.hpp>
#include <sweep/host/isa.hpp>
#include <sweep/tuning.hpp>

#include <Kokkos_Core.hpp>

#include <cstdlib>
#include <ostream>

#define SWEEP_DISPATCH_CONFIGURATION
#include <sweep/backend.hpp>

namespace sweep {

namespace detail {

/// The level a host path takes that needs `level` (and was compiled for
/// it when `compiled`), else `fallback`.
inline const char* host_path_isa(bool compiled, host::isa level, const char* fallback) {
  return compiled && host::uses(level) ? host::to_string(level) : fallback;
}

template <class T>
void print_tuning_field(std::ostream& os, const char* group, const char* name, const T& value) {
  os << "tuning." << group << '.' << name << ": " << value << '\n';
}

/// tuning<>::ocean::strips_per_thread, which only host spaces have (a
/// template, so that the test is on a dependent type).
template <class Ocean>
void print_strips_per_thread(std::ostream& os) {
  if constexpr (requires { Ocean::strips_per_thread; })
    print_tuning_field(os, "ocean", "strips_per_thread", Ocean::strips_per_thread);
}

/// The sort's scatter buffer, where the space's sort has one (host).
template <class Sort>
void print_scatter_buffer(std::ostream& os) {
  if constexpr (requires { Sort::scatter_buffer_bytes; })
    print_tuning_field(os, "sort", "scatter_buffer_bytes", Sort::scatter_buffer_bytes);
}

/// The host walk's group size where the space's tuning has one.
template <class Gravity>
void print_group_size(std::ostream& os) {
  if constexpr (requires { Gravity::group_size; })
    print_tuning_field(os, "gravity", "group_size", Gravity::group_size);
}

/// A tuning function of the size, shown at two sizes.
template <class F>
void print_tuning_function(std::ostream& os, const char* group, const char* name, F&& at) {
  os << "tuning." << group << '.' << name << ": " << at(index_t(1) << 20) << " at n = 2^20, "
     << at(index_t(1) << 26) << " at n = 2^26\n";
}

}  // namespace detail

/// Writes the configuration (see the top of this file) to `os`.
inline void print_configuration(std::ostream& os) {
  using space = Kokkos::DefaultExecutionSpace;
  using tune = tuning<space>;
  const space exec;

  os << "sweep: " << SWEEP_VERSION_STRING << '\n';
  os << "kokkos: " << KOKKOS_VERSION / 10000 << '.' << KOKKOS_VERSION / 100 % 100 << '.' << KOKKOS_VERSION % 100
     << '\n';
  os << "kokkos backends:" << detail::kokkos_backends << '\n';
  os << "default execution space: " << space::name() << " (concurrency " << exec.concurrency() << ")\n";
  os << "default host execution space: " << Kokkos::DefaultHostExecutionSpace::name() << '\n';

  const char* env = std::getenv("SWEEP_HOST_ISA");
  os << "host isa: cpu " << host::to_string(host::cpu_isa()) << ", limit " << host::to_string(host::isa_limit())
     << " (SWEEP_HOST_ISA " << (env != nullptr && *env != '\0' ? env : "unset") << "), active "
     << host::to_string(host::active_isa()) << (host::uses_avx512_vbmi2() ? " + vbmi2" : "") << '\n';
  os << "host isa.scan: "
     << (SWEEP_HOST_SIMD ? detail::host_path_isa(SWEEP_HOST_MULTI, host::isa::avx2, "baseline (16-byte vectors)")
                         : "portable (no vector kernels in this build: not GCC)")
     << '\n';
  os << "host isa.bitmask: "
     << (!SWEEP_HOST_MULTI                      ? "baseline"
         : host::uses_avx512_vbmi2()            ? "avx512 (vbmi2 sparse walk)"
         : host::uses(host::isa::avx512)        ? "avx512"
         : host::uses(host::isa::avx2)          ? "avx2"
                                                : "baseline")
     << '\n';
  os << "host isa.segments: " << detail::host_path_isa(SWEEP_HOST_MULTI, host::isa::avx2, "baseline") << '\n';
  os << "host isa.ocean: " << detail::host_path_isa(SWEEP_HOST_MULTI, host::isa::avx2, "baseline") << '\n';
  os << "host isa.raytrace: "
     << (SWEEP_HOST_MULTI && host::uses(host::isa::avx512) ? "avx512 (16-ray lanes; single rays: 8 boxes per AVX2 test)"
         : SWEEP_HOST_MULTI && host::uses(host::isa::avx2)  ? "avx2 (8-ray lanes; single rays: 8 boxes per AVX2 test)"
         : SWEEP_HOST_SSE                                   ? "baseline (4-ray SSE lanes; single rays: 4 boxes per SSE test)"
                                                            : "portable")
     << '\n';

  detail::print_tuning_field(os, "scan", "chunk_bytes", tune::scan::chunk_bytes);
  detail::print_tuning_field(os, "scan", "team_size", tune::scan::team_size);
  detail::print_tuning_field(os, "scan", "tile_size", tune::scan::tile_size);
  if constexpr (tune::scan::streaming_bytes == ~std::size_t(0))
    detail::print_tuning_field(os, "scan", "streaming_bytes", "never");
  else
    detail::print_tuning_field(os, "scan", "streaming_bytes", tune::scan::streaming_bytes);
  detail::print_tuning_field(os, "scan", "sequential_below", tune::scan::sequential_below);
  detail::print_tuning_function(os, "sort", "block_keys", [&](index_t n) { return tune::sort::block_keys(exec, n); });
  detail::print_scatter_buffer<typename tune::sort>(os);
  detail::print_tuning_function(os, "sort", "merge_chunk", [&](index_t n) { return tune::sort::merge_chunk(exec, n); });
  detail::print_tuning_function(os, "segments", "offset_walk_blocks", [&](index_t n) {
    return tune::segments::offset_walk_blocks(exec, (n + detail::offset_walk_block - 1) / detail::offset_walk_block);
  });
  detail::print_tuning_function(os, "bitmask", "grain", [&](index_t n) { return tune::bitmask::grain(exec, n); });
  detail::print_tuning_field(os, "bitmask", "words_per_task", tune::bitmask::words_per_task);
  detail::print_tuning_field(os, "ocean", "team_size", tune::ocean::team_size);
  detail::print_strips_per_thread<typename tune::ocean>(os);
  os << "tuning.ocean.strip_rows: " << tune::ocean::strip_rows(exec, 512) << " at 512 interior rows, "
     << tune::ocean::strip_rows(exec, 4096) << " at 4096\n";
  detail::print_tuning_field(os, "ocean", "tile_rows", tune::ocean::tile_rows);
  detail::print_tuning_field(os, "ocean", "tile_cols", tune::ocean::tile_cols);
  detail::print_tuning_field(os, "raytrace", "automatic_packets", tune::raytrace::automatic_packets ? "yes" : "no");
  detail::print_tuning_field(os, "raytrace", "packet_size", tune::raytrace::packet_size);
  detail::print_tuning_field(os, "raytrace", "stack_size", tune::raytrace::stack_size);
  detail::print_tuning_field(os, "raytrace", "wide_width", tune::raytrace::wide_width);
  detail::print_tuning_field(os, "raytrace", "wide_stack_size", tune::raytrace::wide_stack_size);
  detail::print_tuning_field(os, "raytrace", "build_nodes_per_thread", tune::raytrace::build_nodes_per_thread);
  detail::print_tuning_field(os, "gravity", "team_size", tune::gravity::team_size);
  detail::print_group_size<typename tune::gravity>(os);

  os << "built: mpi " << (SWEEP_HAVE_MPI ? "yes (Sweep::mpi)" : "no") << ", kokkos kernels peers "
     << (SWEEP_HAVE_KOKKOSKERNELS ? "yes" : "no") << ", cuda kernels " << (detail::cuda_kernels ? "yes" : "no")
     << '\n';
}

}  // namespace sweep
