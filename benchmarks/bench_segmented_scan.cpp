// bench_segmented_scan: inclusive segmented sums of N elements, rows
// segscan/<impl>/<repr>/<mean_segment_length>/<type>/<log2n>.
// Traffic model: 2N*sizeof(T) (read the values, write the scan), as for
// `copy` and the plain scan, so bytes_per_second compares directly with
// both; the segment description (flags N bytes, bits N/8, keys 4N,
// offsets 8*segments) is not counted there. The Sweep rows also report
// `x_plain_per_byte_paired`: the plain scan of the same values timed
// beside the row (median of 7 pairs of plain scan, then segmented scan),
// as segmented bytes per second over plain bytes per second with the
// description counted (1.0: as fast per byte touched as the plain scan).
//
// mean_segment_length: 8, 1000 (geometric lengths) and `one` (a single
// segment). repr: flags, bits, offsets, keys (int32 keys, a new segment
// where the key changes).
// impl: copy and plain_scan (sweep::inclusive_scan of the same values, the
// ceiling; repr `none`, mean `any`), sweep_<algorithm> (automatic for every
// representation, single_pass and blelloch on flags), thrust_by_key_omp
// (thrust::inclusive_scan_by_key on the keys, OpenMP system); on CUDA also
// cub_by_key (cub::DeviceScan::InclusiveSumByKey) and thrust_by_key_cuda.
#include "common/bench_support.hpp"

#include <sweep/scan.hpp>
#include <sweep/segmented_scan.hpp>

#include <algorithm>
#include <map>
#include <memory>
#include <random>
#include <tuple>
#include <vector>

#include <thrust/scan.h>
#include <thrust/system/omp/execution_policy.h>
#if defined(KOKKOS_ENABLE_CUDA)
#include <cub/device/device_scan.cuh>
#include <thrust/execution_policy.h>
#endif

namespace {
using namespace sweep_bench;

/// A segmentation of N elements in all four representations, built once
/// per (log2n, mean) and shared by the rows.
struct segments_data {
  Kokkos::View<std::uint8_t*, Memory> flags;
  Kokkos::View<std::uint32_t*, Memory> words;
  Kokkos::View<std::int64_t*, Memory> offsets;
  Kokkos::View<std::int32_t*, Memory> keys;
  std::int64_t n = 0;
};

/// mean 0: a single segment.
const segments_data& segments_for(int log2n, int mean) {
  static std::map<std::pair<int, int>, std::unique_ptr<segments_data>> cache;
  if (cache.empty()) Kokkos::push_finalize_hook([] { cache.clear(); });  // Views must go before Kokkos does
  auto& slot = cache[{log2n, mean}];
  if (slot) return *slot;
  const std::int64_t n = std::int64_t(1) << log2n;
  std::vector<std::int64_t> off{0};
  std::mt19937_64 gen(42 + static_cast<std::uint64_t>(mean));
  std::geometric_distribution<std::int64_t> len(mean > 0 ? 1.0 / mean : 0.5);
  while (off.back() < n) off.push_back(mean > 0 ? std::min(n, off.back() + 1 + len(gen)) : n);
  auto d = std::make_unique<segments_data>();
  d->n = n;
  d->flags = Kokkos::View<std::uint8_t*, Memory>("sweep::bench::flags", n);
  d->words = Kokkos::View<std::uint32_t*, Memory>("sweep::bench::words", (n + 31) / 32);
  d->offsets = Kokkos::View<std::int64_t*, Memory>("sweep::bench::offsets", off.size());
  d->keys = Kokkos::View<std::int32_t*, Memory>("sweep::bench::keys", n);
  auto ho = Kokkos::create_mirror_view(d->offsets);
  for (std::size_t s = 0; s < off.size(); ++s) ho(s) = off[s];
  Kokkos::deep_copy(d->offsets, ho);
  Space space;
  sweep::to_head_flags(space, sweep::segment_offsets(d->offsets), d->flags);
  auto flags = d->flags;
  auto words = d->words;
  Kokkos::parallel_for(
      "sweep::bench::pack_bits", Kokkos::RangePolicy<Space>(space, 0, (n + 31) / 32),
      KOKKOS_LAMBDA(const std::int64_t w) {
        std::uint32_t bits = 0;
        for (int b = 0; b < 32 && w * 32 + b < n; ++b) bits |= std::uint32_t(flags(w * 32 + b) != 0) << b;
        words(w) = bits;
      });
  // Keys: segment id mod 7 (repeats, never in adjacent segments).
  Kokkos::View<std::int64_t*, Memory> ids("sweep::bench::ids", n);
  sweep::to_segment_ids(space, sweep::segment_offsets(d->offsets), ids);
  auto keys = d->keys;
  Kokkos::parallel_for(
      "sweep::bench::keys", Kokkos::RangePolicy<Space>(space, 0, n),
      KOKKOS_LAMBDA(const std::int64_t i) { keys(i) = static_cast<std::int32_t>(ids(i) % 7); });
  space.fence();
  slot = std::move(d);
  return *slot;
}

enum class repr { flags, bits, offsets, keys };
const char* repr_name(repr r) {
  switch (r) {
    case repr::flags: return "flags";
    case repr::bits: return "bits";
    case repr::offsets: return "offsets";
    case repr::keys: return "keys";
  }
  return "?";
}

template <class F>
void with_segments(const segments_data& d, repr r, F&& f) {
  switch (r) {
    case repr::flags: f(sweep::head_flags(d.flags)); return;
    case repr::bits: f(sweep::head_bits(d.words, d.n)); return;
    case repr::offsets: f(sweep::segment_offsets(d.offsets)); return;
    case repr::keys: f(sweep::segment_keys(d.keys)); return;
  }
}

/// Bytes of the segment description a scan reads: flags N, bits N/8
/// (whole words), offsets 8 per segment boundary, keys 4N.
double descriptor_bytes(const segments_data& d, repr r) {
  switch (r) {
    case repr::flags: return double(d.flags.extent(0));
    case repr::bits: return 4.0 * double(d.words.extent(0));
    case repr::offsets: return 8.0 * double(d.offsets.extent(0));
    case repr::keys: return 4.0 * double(d.keys.extent(0));
  }
  return 0;
}

template <class T>
void bench_sweep(benchmark::State& state, int log2n, int mean, repr r, sweep::scan_algorithm algo) {
  const auto& d = segments_for(log2n, mean);
  buffers<T> b(d.n);
  Space space;
  sweep::scan_options opt;
  opt.algorithm = algo;
  with_segments(d, r, [&](const auto& segments) {
    const auto scan = [&] { sweep::segmented_inclusive_scan(space, b.in, segments, b.out, opt); };
    run_timed(state, space, 2.0 * d.n * sizeof(T), scan);
    // Against the plain scan of the same values, timed beside it, per byte
    // touched (the segment description counted too).
    const double values = 2.0 * d.n * sizeof(T);
    const double touched = values + descriptor_bytes(d, r);
    state.counters["x_plain_per_byte_paired"] =
        paired_ratio(space, [&] { sweep::inclusive_scan(space, b.in, b.out); }, scan) * touched / values;
  });
}

template <class T>
void bench_plain_scan(benchmark::State& state, int log2n) {
  const std::int64_t n = std::int64_t(1) << log2n;
  buffers<T> b(n);
  Space space;
  run_timed(state, space, 2.0 * n * sizeof(T), [&] { sweep::inclusive_scan(space, b.in, b.out); });
}

template <class T>
void bench_thrust_by_key_omp(benchmark::State& state, int log2n, int mean) {
  const auto& d = segments_for(log2n, mean);
  buffers<T> b(d.n);
  Space space;
  run_timed(state, space, 2.0 * d.n * sizeof(T), [&] {
    thrust::inclusive_scan_by_key(thrust::omp::par, d.keys.data(), d.keys.data() + d.n, b.in.data(), b.out.data());
  });
}

#if defined(KOKKOS_ENABLE_CUDA)
template <class T>
void bench_cub_by_key(benchmark::State& state, int log2n, int mean) {
  const auto& d = segments_for(log2n, mean);
  buffers<T> b(d.n);
  Space space;
  std::size_t temp_bytes = 0;
  cub::DeviceScan::InclusiveSumByKey(nullptr, temp_bytes, d.keys.data(), b.in.data(), b.out.data(), d.n,
                                     cuda::std::equal_to<>{}, space.cuda_stream());
  Kokkos::View<char*, Memory> temp("cub_temp", temp_bytes);
  run_timed(state, space, 2.0 * d.n * sizeof(T), [&] {
    cub::DeviceScan::InclusiveSumByKey(temp.data(), temp_bytes, d.keys.data(), b.in.data(), b.out.data(), d.n,
                                       cuda::std::equal_to<>{}, space.cuda_stream());
  });
}

template <class T>
void bench_thrust_by_key_cuda(benchmark::State& state, int log2n, int mean) {
  const auto& d = segments_for(log2n, mean);
  buffers<T> b(d.n);
  Space space;
  run_timed(state, space, 2.0 * d.n * sizeof(T), [&] {
    thrust::inclusive_scan_by_key(thrust::cuda::par.on(space.cuda_stream()), d.keys.data(), d.keys.data() + d.n,
                                  b.in.data(), b.out.data());
  });
}
#endif

std::string mean_name(int mean) { return mean > 0 ? std::to_string(mean) : std::string("one"); }

template <class T>
void register_type(int lo, int hi) {
  const std::string t = type_name<T>();
  register_sizes("segscan/copy/none/any/" + t, lo, hi, bench_copy<T>);
  if constexpr (has_streaming_copy)
    register_sizes("segscan/copy_streaming/none/any/" + t, lo, hi, bench_copy_streaming<T>);
  register_sizes("segscan/plain_scan/none/any/" + t, lo, hi, bench_plain_scan<T>);
  for (int mean : {8, 1000, 0}) {
    std::string m = "/";  // built piecewise: GCC 12 warns (-Wrestrict) on "/" + string + ...
    m += mean_name(mean);
    m += "/";
    m += t;
    for (repr r : {repr::flags, repr::bits, repr::offsets, repr::keys})
      register_sizes(std::string("segscan/sweep_automatic/") + repr_name(r) + m, lo, hi,
                     [mean, r](benchmark::State& s, int k) {
                       bench_sweep<T>(s, k, mean, r, sweep::scan_algorithm::automatic);
                     });
    for (const auto& entry : sweep::scan_algorithms) {  // every algorithm that runs segmented, on flags
      if (entry.id == sweep::scan_algorithm::automatic || !sweep::runs_segmented(entry.id)) continue;
      register_sizes(std::string("segscan/sweep_") + entry.name + "/flags" + m, lo, hi,
                     [mean, algo = entry.id](benchmark::State& s, int k) {
                       bench_sweep<T>(s, k, mean, repr::flags, algo);
                     });
    }
    if constexpr (Kokkos::SpaceAccessibility<Kokkos::HostSpace, Memory>::accessible)
      register_sizes("segscan/thrust_by_key_omp/keys" + m, lo, hi,
                     [mean](benchmark::State& s, int k) { bench_thrust_by_key_omp<T>(s, k, mean); });
#if defined(KOKKOS_ENABLE_CUDA)
    register_sizes("segscan/cub_by_key/keys" + m, lo, hi,
                   [mean](benchmark::State& s, int k) { bench_cub_by_key<T>(s, k, mean); });
    register_sizes("segscan/thrust_by_key_cuda/keys" + m, lo, hi,
                   [mean](benchmark::State& s, int k) { bench_thrust_by_key_cuda<T>(s, k, mean); });
#endif
  }
}
}  // namespace

void sweep_bench::register_suite() {
  const int lo = log2n_min(26), hi = log2n_max(26);
  register_type<std::int32_t>(lo, hi);
  register_type<double>(lo, hi);
}
