// Which instruction sets Sweep's host paths use: the one compile-time gate
// and the one run-time probe.
//
// Compile time (per translation unit; a device compiler's device pass sees
// none of it):
//   SWEEP_HOST_COMPILER  a host compiler (GCC, clang) compiles the unit,
//                     not a device compiler's front end: kernels of host
//                     spaces may call host-only functions (raw-pointer
//                     chunk kernels).
//   SWEEP_HOST_SSE    x86-64 SSE2 intrinsics in host code (GCC, clang, and
//                     nvcc's host pass): the ray tracer's four-wide tests.
//   SWEEP_HOST_SIMD   GCC's vector extensions (GCC proper, not clang, nvcc's
//                     front end or nvc++): the 16-byte scan kernels.
//   SWEEP_HOST_MULTI  SWEEP_HOST_SIMD on x86-64: functions compiled for
//                     AVX2 or AVX-512F inside target regions, called only
//                     when the run-time level allows.
// Run time: sweep::host::active_isa() is the level the host paths take:
// what the CPU supports, capped by a limit. The limit is `avx512` unless
// the environment variable SWEEP_HOST_ISA (baseline, avx2, avx512f or avx512; read
// at the first call) or sweep::host::set_isa_limit() lowers it, so the
// SSE2 kernels can be run and tested on an AVX-512 machine. Within the
// avx512 level, kernels may also use AVX-512 VBMI2 where the CPU has it
// (uses_avx512_vbmi2()); SWEEP_HOST_ISA=avx512f caps the level at avx512
// without it, so the AVX-512F-only kernels stay tested too. Every level
// gives the same results (bit for bit, except floating-point sums of the
// scan kernels, reassociated differently per vector width).
// Errors: an unknown SWEEP_HOST_ISA value throws std::invalid_argument at
// the first call naming the value (it accepts baseline, avx2, avx512f and
// avx512).
//
// Levels: baseline = x86-64 (SSE2; on other CPUs the portable code);
// avx2 = AVX2 + POPCNT + BMI1; avx512 = avx2 + AVX-512F.
#pragma once

#include <atomic>
#include <cstdlib>
#include <stdexcept>
#include <string>

#if !defined(__CUDACC__) && !defined(__HIPCC__) && !defined(__CUDA_ARCH__) && !defined(__HIP_DEVICE_COMPILE__)
#define SWEEP_HOST_COMPILER 1
#else
#define SWEEP_HOST_COMPILER 0
#endif

#if defined(__SSE2__) && defined(__x86_64__) && !defined(__CUDA_ARCH__) && !defined(__HIP_DEVICE_COMPILE__)
#define SWEEP_HOST_SSE 1
#include <immintrin.h>
#else
#define SWEEP_HOST_SSE 0
#endif

#if SWEEP_HOST_COMPILER && defined(__GNUC__) && !defined(__clang__) && !defined(__NVCOMPILER) && \
    !defined(__INTEL_COMPILER)
#define SWEEP_HOST_SIMD 1
#else
#define SWEEP_HOST_SIMD 0
#endif

#if SWEEP_HOST_SIMD && SWEEP_HOST_SSE
#define SWEEP_HOST_MULTI 1
#else
#define SWEEP_HOST_MULTI 0
#endif

namespace sweep::host {

enum class isa { baseline = 0, avx2 = 1, avx512 = 2 };

inline const char* to_string(isa level) {
  switch (level) {
    case isa::baseline: return "baseline";
    case isa::avx2: return "avx2";
    case isa::avx512: return "avx512";
  }
  return "?";
}

/// The level named `name` ("baseline", "avx2", "avx512"); throws
/// std::invalid_argument for anything else.
inline isa parse_isa(const std::string& name, const char* where = "sweep::host::parse_isa") {
  for (isa level : {isa::baseline, isa::avx2, isa::avx512})
    if (name == to_string(level)) return level;
  throw std::invalid_argument(std::string(where) + ": unknown instruction set level '" + name +
                              "'; use baseline, avx2 or avx512");
}

/// The highest level this CPU supports (the same answer in every
/// translation unit, whatever its compiler).
inline isa cpu_isa() {
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
  static const isa level = [] {
    __builtin_cpu_init();
    const bool avx2 = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("popcnt") &&
                      __builtin_cpu_supports("bmi");
    if (avx2 && __builtin_cpu_supports("avx512f")) return isa::avx512;
    return avx2 ? isa::avx2 : isa::baseline;
  }();
  return level;
#else
  return isa::baseline;
#endif
}

/// Whether the CPU has AVX-512 VBMI2 and BW (byte compress and expand; Ice
/// Lake and Zen 4 on).
inline bool cpu_has_avx512_vbmi2() {
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
  static const bool has = [] {
    __builtin_cpu_init();
    return __builtin_cpu_supports("avx512vbmi2") && __builtin_cpu_supports("avx512bw");
  }();
  return has;
#else
  return false;
#endif
}
namespace detail {
/// SWEEP_HOST_ISA as a level and whether it allows the AVX-512 extensions
/// (all but avx512f do); unset is avx512 with them.
struct isa_env {
  isa level = isa::avx512;
  bool extensions = true;
};
inline isa_env read_isa_env() {
  const char* env = std::getenv("SWEEP_HOST_ISA");
  if (env == nullptr || *env == '\0') return {};
  if (std::string(env) == "avx512f") return {isa::avx512, false};
  try {
    return {parse_isa(env, "SWEEP_HOST_ISA"), true};
  } catch (const std::invalid_argument&) {
    throw std::invalid_argument(std::string("SWEEP_HOST_ISA: unknown instruction set level '") + env +
                                "'; use baseline, avx2, avx512f or avx512");
  }
}
inline std::atomic<int>& isa_limit_slot() {
  static std::atomic<int> slot{static_cast<int>(read_isa_env().level)};
  return slot;
}
inline std::atomic<bool>& isa_extensions_slot() {
  static std::atomic<bool> slot{read_isa_env().extensions};
  return slot;
}
}  // namespace detail

/// The cap on the level (SWEEP_HOST_ISA, or the last set_isa_limit).
inline isa isa_limit() { return static_cast<isa>(detail::isa_limit_slot().load(std::memory_order_relaxed)); }

/// Caps the level the host paths take from now on; returns the old cap.
/// For tests and comparisons: call it between Sweep calls, not during one.
inline isa set_isa_limit(isa limit) {
  return static_cast<isa>(detail::isa_limit_slot().exchange(static_cast<int>(limit)));
}

/// The level the host paths take: the CPU's, capped by isa_limit().
inline isa active_isa() {
  const isa cpu = cpu_isa(), cap = isa_limit();
  return static_cast<int>(cpu) < static_cast<int>(cap) ? cpu : cap;
}

/// True when the host paths may use `level`.
inline bool uses(isa level) { return static_cast<int>(active_isa()) >= static_cast<int>(level); }
/// True when the host paths may use AVX-512 VBMI2: the avx512 level is
/// active, the CPU has it, and SWEEP_HOST_ISA is not avx512f.
inline bool uses_avx512_vbmi2() {
  return uses(isa::avx512) && cpu_has_avx512_vbmi2() && detail::isa_extensions_slot().load(std::memory_order_relaxed);
}

/// Caps the level for the lifetime of the object (tests).
class scoped_isa_limit {
 public:
  explicit scoped_isa_limit(isa limit) : m_old(set_isa_limit(limit)) {}
  ~scoped_isa_limit() { set_isa_limit(m_old); }
  scoped_isa_limit(const scoped_isa_limit&) = delete;
  scoped_isa_limit& operator=(const scoped_isa_limit&) = delete;

 private:
  isa m_old;
};

}  // namespace sweep::host
