// bench_sort: sort_by_key of N random keys carrying one uint32 value each,
// rows sort/<impl>/<key type>/<log2n> for uint32 and uint64 keys.
// Traffic model: 2N*(sizeof(K) + 4), one read and one write of keys and
// values (the bytes of a copy of them), so bytes_per_second over the copy
// row's is the sort's time in copies. The keys and values are restored
// from a pristine copy before every iteration, untimed.
//
// impl: copy (keys and values), sweep_sort_by_key; on host spaces
// thrust_omp (thrust::sort_by_key, OpenMP system) and std_par
// (std::stable_sort of (key, value) pairs with std::execution::par, TBB,
// the packing into pairs and back timed with it); on CUDA
// cub (cub::DeviceRadixSort::SortPairs, double-buffer form, temporary
// storage allocated once) and thrust_cuda.
#include "common/bench_support.hpp"

#include <sweep/sort.hpp>

#include <algorithm>
#include <execution>
#include <utility>
#include <vector>

#include <thrust/sort.h>
#include <thrust/system/omp/execution_policy.h>
#if defined(KOKKOS_ENABLE_CUDA)
#include <cub/device/device_radix_sort.cuh>
#include <thrust/execution_policy.h>
#endif

namespace {
using namespace sweep_bench;

/// Random keys (all bits) and values 0..n-1.
template <class K>
void fill_pairs(const Kokkos::View<K*, Memory>& keys, const Kokkos::View<std::uint32_t*, Memory>& vals) {
  Kokkos::parallel_for(
      "sweep::bench::fill_keys", Kokkos::RangePolicy<Space, Kokkos::IndexType<std::int64_t>>(0, keys.extent(0)),
      KOKKOS_LAMBDA(const std::int64_t i) {
        std::uint64_t z = static_cast<std::uint64_t>(i) + 0x9e3779b97f4a7c15ull;  // splitmix64
        z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
        z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
        keys(i) = static_cast<K>(z ^ (z >> 31));
        vals(i) = static_cast<std::uint32_t>(i);
      });
  Kokkos::fence();
}

/// The keys and values a sort works on, and their pristine copies.
template <class K>
struct sort_buffers {
  Kokkos::View<K*, Memory> keys, keys0;
  Kokkos::View<std::uint32_t*, Memory> vals, vals0;
  explicit sort_buffers(std::int64_t n)
      : keys("keys", n), keys0("keys0", n), vals("vals", n), vals0("vals0", n) {
    fill_pairs(keys0, vals0);
    restore();
  }
  void restore() const {
    Kokkos::deep_copy(keys, keys0);
    Kokkos::deep_copy(vals, vals0);
    Kokkos::fence();
  }
};

template <class K>
constexpr double traffic(std::int64_t n) {
  return 2.0 * static_cast<double>(n) * (sizeof(K) + sizeof(std::uint32_t));
}

template <class K>
void bench_copy_pairs(benchmark::State& state, int log2n) {
  const std::int64_t n = std::int64_t(1) << log2n;
  const sort_buffers<K> b(n);
  const auto k0 = b.keys0;
  const auto v0 = b.vals0;
  const auto k = b.keys;
  const auto v = b.vals;
  Space space;
  run_timed(state, space, traffic<K>(n), [&] {
    Kokkos::parallel_for(
        "sweep::bench::copy_pairs", Kokkos::RangePolicy<Space, Kokkos::IndexType<std::int64_t>>(space, 0, n),
        KOKKOS_LAMBDA(const std::int64_t i) {
          k(i) = k0(i);
          v(i) = v0(i);
        });
  });
}

template <class K>
void bench_sweep(benchmark::State& state, int log2n) {
  const std::int64_t n = std::int64_t(1) << log2n;
  const sort_buffers<K> b(n);
  Space space;
  run_timed_with_setup(state, space, traffic<K>(n), [&] { b.restore(); },
                       [&] { sweep::sort_by_key(space, b.keys, b.vals); });
}

template <class K, class Sort>
void bench_host_peer(benchmark::State& state, int log2n, Sort sort) {
  const std::int64_t n = std::int64_t(1) << log2n;
  const sort_buffers<K> b(n);
  Space space;
  run_timed_with_setup(state, space, traffic<K>(n), [&] { b.restore(); },
                       [&] { sort(b.keys.data(), b.vals.data(), n); });
}

#if defined(KOKKOS_ENABLE_CUDA)
template <class K>
void bench_cub(benchmark::State& state, int log2n) {
  const std::int64_t n = std::int64_t(1) << log2n;
  const sort_buffers<K> b(n);
  Kokkos::View<K*, Memory> keys_alt("keys_alt", n);
  Kokkos::View<std::uint32_t*, Memory> vals_alt("vals_alt", n);
  Space space;
  cub::DoubleBuffer<K> kb(b.keys.data(), keys_alt.data());
  cub::DoubleBuffer<std::uint32_t> vb(b.vals.data(), vals_alt.data());
  std::size_t temp_bytes = 0;
  cub::DeviceRadixSort::SortPairs(nullptr, temp_bytes, kb, vb, static_cast<int>(n), 0, int(8 * sizeof(K)),
                                  space.cuda_stream());
  Kokkos::View<char*, Memory> temp("cub_temp", temp_bytes);
  run_timed_with_setup(
      state, space, traffic<K>(n),
      [&] {
        b.restore();
        kb = cub::DoubleBuffer<K>(b.keys.data(), keys_alt.data());
        vb = cub::DoubleBuffer<std::uint32_t>(b.vals.data(), vals_alt.data());
      },
      [&] {
        cub::DeviceRadixSort::SortPairs(temp.data(), temp_bytes, kb, vb, static_cast<int>(n), 0, int(8 * sizeof(K)),
                                        space.cuda_stream());
      });
}

template <class K>
void bench_thrust_cuda(benchmark::State& state, int log2n) {
  const std::int64_t n = std::int64_t(1) << log2n;
  const sort_buffers<K> b(n);
  Space space;
  run_timed_with_setup(state, space, traffic<K>(n), [&] { b.restore(); }, [&] {
    thrust::sort_by_key(thrust::cuda::par.on(space.cuda_stream()), b.keys.data(), b.keys.data() + n, b.vals.data());
  });
}
#endif

template <class K, class F>
void add(const std::string& impl, int lo, int hi, F&& f) {
  register_sizes("sort/" + impl + "/" + type_name<K>(), lo, hi, std::forward<F>(f));
}

template <class K>
void register_key() {
  const int lo = log2n_min(20), hi = log2n_max(24);
  add<K>("copy", lo, hi, bench_copy_pairs<K>);
  add<K>("sweep_sort_by_key", lo, hi, bench_sweep<K>);
  if constexpr (Kokkos::SpaceAccessibility<Kokkos::HostSpace, Memory>::accessible) {
    add<K>("thrust_omp", lo, hi, [](benchmark::State& s, int k) {
      bench_host_peer<K>(s, k, [](K* keys, std::uint32_t* vals, std::int64_t n) {
        thrust::sort_by_key(thrust::omp::par, keys, keys + n, vals);
      });
    });
    add<K>("std_par", lo, hi, [](benchmark::State& s, int k) {
      bench_host_peer<K>(s, k, [](K* keys, std::uint32_t* vals, std::int64_t n) {
        std::vector<std::pair<K, std::uint32_t>> pairs(static_cast<std::size_t>(n));
        for (std::int64_t i = 0; i < n; ++i) pairs[std::size_t(i)] = {keys[i], vals[i]};
        std::stable_sort(std::execution::par, pairs.begin(), pairs.end(),
                         [](const auto& a, const auto& b) { return a.first < b.first; });
        for (std::int64_t i = 0; i < n; ++i) {
          keys[i] = pairs[std::size_t(i)].first;
          vals[i] = pairs[std::size_t(i)].second;
        }
      });
    });
  }
#if defined(KOKKOS_ENABLE_CUDA)
  add<K>("cub", lo, hi, bench_cub<K>);
  add<K>("thrust_cuda", lo, hi, bench_thrust_cuda<K>);
#endif
}
}  // namespace

void sweep_bench::register_suite() {
  register_key<std::uint32_t>();
  register_key<std::uint64_t>();
}
