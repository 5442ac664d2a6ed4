// bench_scan: inclusive scans of N elements, rows scan/<impl>/<type>/<log2n>
// for int32, int64, float and double.
// Traffic model: 2N*sizeof(T) (read N, write N), the same as `copy`, so
// bytes_per_second compares directly with the copy ceiling. The Sweep rows
// and the host peers also report `x_copy_paired`: the median over 7 pairs
// of (streaming copy of the same bytes, then the scan) of copy time / scan
// time, so the ratio holds on a machine whose bandwidth drifts between
// rows.
//
// impl: copy, sweep_<algorithm> for every scan_algorithm,
// kokkos_parallel_scan, kokkoskernels_prefix_sum (in place on a fresh copy,
// the copy untimed), std_sequential, std_par (std::execution::par, TBB),
// thrust_omp; on CUDA also cub and thrust_cuda.
#include "common/bench_support.hpp"

#include <sweep/scan.hpp>

#if defined(SWEEP_BENCH_HAVE_KOKKOSKERNELS)
#include <KokkosKernels_SimpleUtils.hpp>
#endif

#include <algorithm>
#include <execution>
#include <numeric>

#include <thrust/scan.h>
#include <thrust/system/omp/execution_policy.h>
#if defined(KOKKOS_ENABLE_CUDA)
#include <cub/device/device_scan.cuh>
#include <thrust/execution_policy.h>
#endif

namespace {
using namespace sweep_bench;

template <class T>
void bench_sweep(benchmark::State& state, int log2n, sweep::scan_algorithm algo) {
  const std::int64_t n = std::int64_t(1) << log2n;
  buffers<T> b(n);
  Space space;
  sweep::scan_options opt;
  opt.algorithm = algo;
  const auto scan = [&] { sweep::inclusive_scan(space, b.in, b.out, opt); };
  run_timed(state, space, 2.0 * n * sizeof(T), scan);
  state.counters["x_copy_paired"] = paired_copy_ratio(space, b.in.data(), b.out.data(), n * sizeof(T), scan);
}

template <class T>
void bench_kokkos_parallel_scan(benchmark::State& state, int log2n) {
  const std::int64_t n = std::int64_t(1) << log2n;
  buffers<T> b(n);
  Space space;
  auto in = b.in;
  auto out = b.out;
  const auto body = [&] {
    Kokkos::parallel_scan(
        "kokkos_parallel_scan", Kokkos::RangePolicy<Space>(space, 0, n),
        KOKKOS_LAMBDA(const std::int64_t i, T& update, const bool final) {
          update += in(i);
          if (final) out(i) = update;
        });
  };
  run_timed(state, space, 2.0 * n * sizeof(T), body);
  state.counters["x_copy_paired"] = paired_copy_ratio(space, in.data(), out.data(), n * sizeof(T), body);
}

#if defined(SWEEP_BENCH_HAVE_KOKKOSKERNELS)
template <class T>
void bench_kokkoskernels(benchmark::State& state, int log2n) {
  const std::int64_t n = std::int64_t(1) << log2n;
  buffers<T> b(n);
  Space space;
  run_timed_with_setup(
      state, space, 2.0 * n * sizeof(T), [&] { Kokkos::deep_copy(space, b.out, b.in); },
      [&] {
        KokkosKernels::Impl::kk_inclusive_parallel_prefix_sum<decltype(b.out), Space>(static_cast<T>(n), b.out);
      });
}
#endif

/// A host library scan of the same buffers: `scan(first, last, out)`.
template <class T, class Scan>
void bench_host_peer(benchmark::State& state, int log2n, Scan scan) {
  const std::int64_t n = std::int64_t(1) << log2n;
  buffers<T> b(n);
  Space space;
  const auto body = [&] { scan(b.in.data(), b.in.data() + n, b.out.data()); };
  run_timed(state, space, 2.0 * n * sizeof(T), body);
  state.counters["x_copy_paired"] = paired_copy_ratio(space, b.in.data(), b.out.data(), n * sizeof(T), body);
}

#if defined(KOKKOS_ENABLE_CUDA)
template <class T>
void bench_cub(benchmark::State& state, int log2n) {
  const std::int64_t n = std::int64_t(1) << log2n;
  buffers<T> b(n);
  Space space;
  std::size_t temp_bytes = 0;
  cub::DeviceScan::InclusiveSum(nullptr, temp_bytes, b.in.data(), b.out.data(), n, space.cuda_stream());
  Kokkos::View<char*, Memory> temp("cub_temp", temp_bytes);
  run_timed(state, space, 2.0 * n * sizeof(T), [&] {
    cub::DeviceScan::InclusiveSum(temp.data(), temp_bytes, b.in.data(), b.out.data(), n, space.cuda_stream());
  });
}

template <class T>
void bench_thrust_cuda(benchmark::State& state, int log2n) {
  const std::int64_t n = std::int64_t(1) << log2n;
  buffers<T> b(n);
  Space space;
  run_timed(state, space, 2.0 * n * sizeof(T), [&] {
    thrust::inclusive_scan(thrust::cuda::par.on(space.cuda_stream()), b.in.data(), b.in.data() + n, b.out.data());
  });
}
#endif

template <class T, class F>
void add(const std::string& impl, int lo, int hi, F&& f) {
  register_sizes("scan/" + impl + "/" + type_name<T>(), lo, hi, std::forward<F>(f));
}

template <class T>
void register_type(int lo, int hi) {
  register_copy<T>("scan", lo, hi);
  for (const auto& entry : sweep::scan_algorithms)  // every algorithm, one row each
    add<T>(std::string("sweep_") + entry.name, lo, hi,
           [algo = entry.id](benchmark::State& s, int k) { bench_sweep<T>(s, k, algo); });
  add<T>("kokkos_parallel_scan", lo, hi, bench_kokkos_parallel_scan<T>);
#if defined(SWEEP_BENCH_HAVE_KOKKOSKERNELS)
  add<T>("kokkoskernels_prefix_sum", lo, hi, bench_kokkoskernels<T>);
#endif
  if constexpr (Kokkos::SpaceAccessibility<Kokkos::HostSpace, Memory>::accessible) {
    add<T>("std_sequential", lo, hi, [](benchmark::State& s, int k) {
      bench_host_peer<T>(s, k, [](const T* f, const T* l, T* o) { std::inclusive_scan(f, l, o); });
    });
    add<T>("std_par", lo, hi, [](benchmark::State& s, int k) {
      bench_host_peer<T>(s, k, [](const T* f, const T* l, T* o) { std::inclusive_scan(std::execution::par, f, l, o); });
    });
    add<T>("thrust_omp", lo, hi, [](benchmark::State& s, int k) {
      bench_host_peer<T>(s, k, [](const T* f, const T* l, T* o) { thrust::inclusive_scan(thrust::omp::par, f, l, o); });
    });
  }
#if defined(KOKKOS_ENABLE_CUDA)
  add<T>("cub", lo, hi, bench_cub<T>);
  add<T>("thrust_cuda", lo, hi, bench_thrust_cuda<T>);
#endif
}
}  // namespace

void sweep_bench::register_suite() {
  const int lo = log2n_min(20), hi = log2n_max(26);
  register_type<std::int32_t>(lo, hi);
  register_type<std::int64_t>(lo, hi);
  register_type<float>(lo, hi);
  register_type<double>(lo, hi);
}
