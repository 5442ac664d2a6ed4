// Shared pieces of Sweep's Google Benchmark suites: fenced, manually timed
// regions; the copy ceilings every suite registers next to its own rows
// (`copy`: ordinary stores, which read each destination line before
// writing it; `copy_streaming` on x86 hosts: non-temporal stores, which do
// not, and so are the faster copy once the data exceeds the last-level
// cache; the ceiling at a size is the faster of the two); type names for
// row labels.
//
// Row names follow `<suite>/<impl>/<type>/<log2n>` (suites add fields where
// their issue says so). `bytes_per_second` is set from the traffic model the
// caller passes: for copy and scan that is 2N*sizeof(T) (read N, write N).
#pragma once

#include <benchmark/benchmark.h>
#include <Kokkos_Core.hpp>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstring>
#include <string>
#include <utility>
#include <vector>

#if defined(__SSE2__) && !defined(__CUDACC__)
#include <emmintrin.h>
#define SWEEP_BENCH_STREAMING_COPY 1
#else
#define SWEEP_BENCH_STREAMING_COPY 0
#endif

namespace sweep_bench {

using Space = Kokkos::DefaultExecutionSpace;
using Memory = Space::memory_space;

template <class T>
const char* type_name();
template <> inline const char* type_name<std::int8_t>() { return "int8"; }
template <> inline const char* type_name<std::int32_t>() { return "int32"; }
template <> inline const char* type_name<std::int64_t>() { return "int64"; }
template <> inline const char* type_name<std::uint32_t>() { return "uint32"; }
template <> inline const char* type_name<std::uint64_t>() { return "uint64"; }
template <> inline const char* type_name<float>() { return "float"; }
template <> inline const char* type_name<double>() { return "double"; }

/// Times `body` between two fences of `space` and reports it as the
/// iteration's manual time. `body` must only enqueue or run the work.
template <class ExecSpace, class Body>
void timed(benchmark::State& state, const ExecSpace& space, Body&& body) {
  space.fence();
  auto t0 = std::chrono::steady_clock::now();
  body();
  space.fence();
  auto t1 = std::chrono::steady_clock::now();
  state.SetIterationTime(std::chrono::duration<double>(t1 - t0).count());
}

/// bytes_per_second from the traffic model; rows without one (0) get none.
inline void set_bytes(benchmark::State& state, double bytes_per_iteration) {
  if (bytes_per_iteration > 0)
    state.SetBytesProcessed(static_cast<std::int64_t>(bytes_per_iteration) *
                            static_cast<std::int64_t>(state.iterations()));
}

/// Runs `body` once untimed (first touch, caches, lazy setup), then the
/// benchmark loop; sets bytes_per_second from `bytes_per_iteration`.
template <class ExecSpace, class Body>
void run_timed(benchmark::State& state, const ExecSpace& space, double bytes_per_iteration,
               Body&& body) {
  body();
  space.fence();
  for (auto _ : state) timed(state, space, body);
  set_bytes(state, bytes_per_iteration);
}

/// As run_timed, with an untimed `setup` before every timed `body` (for
/// peers that work in place).
template <class ExecSpace, class Setup, class Body>
void run_timed_with_setup(benchmark::State& state, const ExecSpace& space, double bytes_per_iteration,
                          Setup&& setup, Body&& body) {
  setup();
  body();
  for (auto _ : state) {
    setup();
    timed(state, space, body);
  }
  set_bytes(state, bytes_per_iteration);
}

/// Deterministic non-trivial fill (never time on zeros).
template <class View>
void fill_pattern(const View& v) {
  using T = typename View::non_const_value_type;
  Kokkos::parallel_for(
      "sweep::bench::fill", Kokkos::RangePolicy<typename View::execution_space>(0, v.extent(0)),
      KOKKOS_LAMBDA(const std::int64_t i) {
        v(i) = static_cast<T>(static_cast<int>((i * 2654435761u) % 7u) - 3);
      });
  Kokkos::fence();
}

/// An input of N elements with the pattern and a zeroed output (both
/// touched before any timing).
template <class T>
struct buffers {
  Kokkos::View<T*, Memory> in, out;
  explicit buffers(std::int64_t n)
      : in(Kokkos::view_alloc(Kokkos::WithoutInitializing, "sweep::bench::in"), n),
        out(Kokkos::view_alloc(Kokkos::WithoutInitializing, "sweep::bench::out"), n) {
    fill_pattern(in);
    Kokkos::deep_copy(out, T(0));
  }
};

/// The memory-bandwidth ceiling: a parallel copy of N elements of T
/// (traffic model 2N*sizeof(T)).
template <class T>
void bench_copy(benchmark::State& state, int log2n) {
  const std::int64_t n = std::int64_t(1) << log2n;
  const buffers<T> b(n);
  const auto in = b.in;
  const auto out = b.out;
  Space space;
  run_timed(state, space, 2.0 * n * sizeof(T), [&] {
    Kokkos::parallel_for(
        "sweep::bench::copy", Kokkos::RangePolicy<Space>(space, 0, n),
        KOKKOS_LAMBDA(const std::int64_t i) { out(i) = in(i); });
  });
}

/// True where bench_copy_streaming runs: host spaces built for x86.
constexpr bool has_streaming_copy =
    SWEEP_BENCH_STREAMING_COPY && Kokkos::SpaceAccessibility<Kokkos::HostSpace, Memory>::accessible;

/// Copies bytes [lo, hi) of src to dst with 16-byte non-temporal stores
/// (dst + lo 16-byte aligned), the unaligned tail by memcpy.
inline void copy_streaming_bytes(const char* src, char* dst, std::int64_t lo, std::int64_t hi) {
#if SWEEP_BENCH_STREAMING_COPY
  std::int64_t i = lo;
  for (; i + 64 <= hi; i += 64) {
    const __m128i a = _mm_loadu_si128(reinterpret_cast<const __m128i*>(src + i));
    const __m128i b = _mm_loadu_si128(reinterpret_cast<const __m128i*>(src + i + 16));
    const __m128i c = _mm_loadu_si128(reinterpret_cast<const __m128i*>(src + i + 32));
    const __m128i d = _mm_loadu_si128(reinterpret_cast<const __m128i*>(src + i + 48));
    _mm_stream_si128(reinterpret_cast<__m128i*>(dst + i), a);
    _mm_stream_si128(reinterpret_cast<__m128i*>(dst + i + 16), b);
    _mm_stream_si128(reinterpret_cast<__m128i*>(dst + i + 32), c);
    _mm_stream_si128(reinterpret_cast<__m128i*>(dst + i + 48), d);
  }
  std::memcpy(dst + i, src + i, static_cast<std::size_t>(hi - i));
  _mm_sfence();
#else
  std::memcpy(dst + lo, src + lo, static_cast<std::size_t>(hi - lo));
#endif
}

/// Copies `bytes` from src to dst on the host threads, one contiguous
/// 64-byte-aligned block per thread, with copy_streaming_bytes (dst
/// 64-byte aligned).
inline void copy_streaming_parallel(const char* src, char* dst, std::int64_t bytes) {
  const int parts = Kokkos::DefaultHostExecutionSpace().concurrency();
  Kokkos::parallel_for(
      "sweep::bench::copy_streaming", Kokkos::RangePolicy<Kokkos::DefaultHostExecutionSpace>(0, parts),
      [=](const int p) {
        const std::int64_t lo = (bytes * p / parts) & ~std::int64_t(63);
        const std::int64_t hi = p + 1 == parts ? bytes : (bytes * (p + 1) / parts) & ~std::int64_t(63);
        copy_streaming_bytes(src, dst, lo, hi);
      });
  Kokkos::DefaultHostExecutionSpace().fence();
}

/// Times copy_streaming_parallel of `bytes` from src to dst (traffic
/// model 2 x bytes); skips the row unless dst is 64-byte aligned.
inline void time_copy_streaming(benchmark::State& state, const void* src, void* dst, std::int64_t bytes) {
  if (reinterpret_cast<std::uintptr_t>(dst) % 64 != 0) {
    state.SkipWithError("the output is not 64-byte aligned");
    return;
  }
  const char* from = static_cast<const char*>(src);
  char* to = static_cast<char*>(dst);
  Space space;
  run_timed(state, space, 2.0 * static_cast<double>(bytes), [&] { copy_streaming_parallel(from, to, bytes); });
}

/// The streaming ceiling: a parallel copy of `n` elements of T, one
/// contiguous 64-byte-aligned block per thread, written with non-temporal
/// stores (traffic model 2n*sizeof(T), as `copy`). Host x86 spaces only.
/// Suites whose own copy row moves records (bodies, rays, grids) pass the
/// same byte count as n int8 elements.
template <class T>
void bench_copy_streaming_n(benchmark::State& state, std::int64_t n) {
  const buffers<T> b(n);
  time_copy_streaming(state, b.in.data(), b.out.data(), n * static_cast<std::int64_t>(sizeof(T)));
}

/// A parallel copy of `bytes` from `src` to `dst` on `space`, with
/// streaming stores where the host has them (bench_copy_streaming_n's),
/// ordinary ones elsewhere.
template <class ExecSpace>
void copy_best_bytes(const ExecSpace& space, const char* src, char* dst, std::int64_t bytes) {
  if constexpr (has_streaming_copy) {
    copy_streaming_parallel(src, dst, bytes);
  } else {
    Kokkos::parallel_for(
        "sweep::bench::copy", Kokkos::RangePolicy<ExecSpace, Kokkos::IndexType<std::int64_t>>(space, 0, bytes),
        KOKKOS_LAMBDA(const std::int64_t i) { dst[i] = src[i]; });
  }
}

/// `reference` timed beside `body`, for a machine whose bandwidth drifts
/// between runs and within one: 7 pairs of (reference, then body), each
/// timed between fences of `space`; returns the median over the pairs of
/// reference time / body time.
template <class ExecSpace, class Reference, class Body>
double paired_ratio(const ExecSpace& space, Reference&& reference, Body&& body) {
  std::vector<double> ratio;
  for (int pair = 0; pair < 7; ++pair) {
    space.fence();
    const auto t0 = std::chrono::steady_clock::now();
    reference();
    space.fence();
    const auto t1 = std::chrono::steady_clock::now();
    body();
    space.fence();
    const auto t2 = std::chrono::steady_clock::now();
    ratio.push_back(std::chrono::duration<double>(t1 - t0).count() / std::chrono::duration<double>(t2 - t1).count());
  }
  std::sort(ratio.begin(), ratio.end());
  return ratio[ratio.size() / 2];
}

/// paired_ratio against copy_best_bytes of `bytes` from `src` to `dst`
/// (1.0: the body runs at the copy's speed). `body` may overwrite dst.
template <class ExecSpace, class Body>
double paired_copy_ratio(const ExecSpace& space, const void* src, void* dst, std::int64_t bytes, Body&& body) {
  return paired_ratio(
      space, [&] { copy_best_bytes(space, static_cast<const char*>(src), static_cast<char*>(dst), bytes); }, body);
}

/// bench_copy_streaming_n of 2^log2n elements.
template <class T>
void bench_copy_streaming(benchmark::State& state, int log2n) {
  bench_copy_streaming_n<T>(state, std::int64_t(1) << log2n);
}

/// Registers one row named `name` (Google Benchmark appends
/// "/manual_time"); `f(state)` runs it. Returns the row, for settings of
/// its own.
template <class F>
benchmark::internal::Benchmark* register_row(const std::string& name, F&& f) {
  return benchmark::RegisterBenchmark(name.c_str(), std::forward<F>(f))
      ->UseManualTime()
      ->Unit(benchmark::kMillisecond);
}

/// Registers `<prefix>/<log2n>` for log2n in [lo, hi]; `f(state, log2n)`.
template <class F>
void register_sizes(const std::string& prefix, int lo, int hi, F f) {
  for (int k = lo; k <= hi; ++k)
    register_row(prefix + "/" + std::to_string(k), [f, k](benchmark::State& s) { f(s, k); });
}

/// Registers `<suite>/copy/<type>/<log2n>` for log2n in [lo, hi], and
/// `<suite>/copy_streaming/<type>/<log2n>` where the space has it.
template <class T>
void register_copy(const std::string& suite, int lo, int hi) {
  register_sizes(suite + "/copy/" + type_name<T>(), lo, hi, bench_copy<T>);
  if constexpr (has_streaming_copy)
    register_sizes(suite + "/copy_streaming/" + type_name<T>(), lo, hi, bench_copy_streaming<T>);
}

/// Registers `name` as a streaming copy of `bytes` bytes (the suite's own
/// copy row's traffic) where the space has one; nothing elsewhere.
inline void register_copy_streaming_bytes(const std::string& name, std::int64_t bytes) {
  if constexpr (has_streaming_copy)
    register_row(name, [bytes](benchmark::State& s) { bench_copy_streaming_n<std::int8_t>(s, bytes); });
}

/// Sizes: SWEEP_BENCH_LOG2N_MIN/MAX override a suite's defaults (e.g. 28 on
/// a GPU).
int log2n_min(int fallback);
int log2n_max(int fallback);

/// Registers the suite's benchmarks; each suite defines it.
void register_suite();

}  // namespace sweep_bench
