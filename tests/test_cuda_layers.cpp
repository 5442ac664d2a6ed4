// The CUDA scan's layers on their own (built only with CUDA): the warp
// scan and the block scan of cuda/warp_scan.hpp, for monoids of 1, 8, 12
// and 16 bytes (two of them non-commutative), blocks of 1, 3, 4 and 32
// warps, and partial blocks whose upper threads hold the identity. Each
// result is compared exactly with a sequential reference on the host.
#include "scan_reference.hpp"

#include <sweep/cuda/warp_scan.hpp>

#include <cstdint>
#include <random>
#include <vector>

namespace {

using sweep_test::mat2;
using sweep_test::mat2_product;

/// Affine maps x -> a x + b mod 2^32 composed left to right, with a count
/// of the maps composed: 12 bytes (three shuffle words), non-commutative.
struct affine {
  std::uint32_t a = 1, b = 0, count = 0;
  friend bool operator==(const affine& x, const affine& y) { return x.a == y.a && x.b == y.b && x.count == y.count; }
  template <class Gen>
  static affine random(Gen& gen) {
    std::uniform_int_distribution<std::uint32_t> dist(0, 1000);
    return {dist(gen) | 1u, dist(gen), 1u};
  }
};
struct affine_compose {
  using value_type = affine;
  KOKKOS_INLINE_FUNCTION static affine identity() { return affine{}; }
  KOKKOS_INLINE_FUNCTION affine operator()(const affine& x, const affine& y) const {
    return {y.a * x.a, y.a * x.b + y.b, x.count + y.count};
  }
};

template <class T>
struct random_value {
  template <class Gen>
  static T draw(Gen& gen) {
    if constexpr (std::is_floating_point_v<T>) return T(std::uniform_real_distribution<double>(-1e3, 1e3)(gen));
    else if constexpr (std::is_integral_v<T>) return T(gen());
    else return T::random(gen);
  }
};

/// Every warp scans its 32 values (lanes at or past `valid` of their warp hold the identity).
template <class Op>
__global__ void warp_scan_kernel(const typename Op::value_type* in, typename Op::value_type* out, int valid) {
  using T = typename Op::value_type;
  const int g = int(blockIdx.x * blockDim.x + threadIdx.x);
  const int lane = int(threadIdx.x & 31u);
  const T v = lane < valid ? in[g] : Op::identity();
  out[g] = sweep::cuda::warp_inclusive_scan(v, Op{});
}

/// Every block scans its `valid` values (threads at or past `valid` hold
/// the identity); thread 0 writes the block's total.
template <int Threads, class Op>
__global__ void __launch_bounds__(Threads)
block_scan_kernel(const typename Op::value_type* in, typename Op::value_type* out, typename Op::value_type* totals,
                  int valid) {
  using T = typename Op::value_type;
  // Raw shared storage: value types with default member initialisers
  // cannot be __shared__ variables.
  __shared__ alignas(T) unsigned char raw[sizeof(T) * (Threads / 32)];
  T* warps = reinterpret_cast<T*>(raw);
  const int t = int(threadIdx.x);
  const int base = int(blockIdx.x) * valid;
  const T v = t < valid ? in[base + t] : Op::identity();
  T total;
  const T before = sweep::cuda::block_exclusive_scan<Threads>(v, Op{}, total, warps);
  if (t < valid) out[base + t] = before;
  if (t == 0) totals[blockIdx.x] = total;
}

template <class T>
Kokkos::View<T*, Kokkos::CudaSpace> device_copy(const std::vector<T>& host) {
  Kokkos::View<T*, Kokkos::CudaSpace> v(Kokkos::view_alloc(Kokkos::WithoutInitializing, "sweep::test::layers"),
                                        host.size());
  Kokkos::deep_copy(v, Kokkos::View<const T*, Kokkos::HostSpace, Kokkos::MemoryUnmanaged>(host.data(), host.size()));
  return v;
}

template <class T>
std::vector<T> host_copy(const Kokkos::View<T*, Kokkos::CudaSpace>& v) {
  std::vector<T> host(v.extent(0));
  Kokkos::deep_copy(Kokkos::View<T*, Kokkos::HostSpace, Kokkos::MemoryUnmanaged>(host.data(), host.size()), v);
  return host;
}

template <class Op>
void check_warp_scan(int valid, unsigned seed) {
  using T = typename Op::value_type;
  const int warps = 6, n = warps * 32;
  std::mt19937 gen(seed);
  std::vector<T> in(n);
  for (auto& x : in) x = random_value<T>::draw(gen);
  const auto d_in = device_copy(in);
  Kokkos::View<T*, Kokkos::CudaSpace> d_out("sweep::test::layers_out", n);
  const Kokkos::Cuda space;
  warp_scan_kernel<Op><<<2, 96, 0, space.cuda_stream()>>>(d_in.data(), d_out.data(), valid);
  sweep::cuda::check_launch("warp_scan_kernel");
  space.fence();
  const auto out = host_copy(d_out);
  const Op op;
  for (int w = 0; w < warps; ++w) {
    T acc = Op::identity();
    for (int lane = 0; lane < 32; ++lane) {
      const T x = lane < valid ? in[w * 32 + lane] : Op::identity();
      acc = op(acc, x);
      INFO("warp " << w << " lane " << lane << " valid " << valid);
      REQUIRE(out[w * 32 + lane] == acc);
    }
  }
}

template <int Threads, class Op>
void check_block_scan(int valid, unsigned seed) {
  using T = typename Op::value_type;
  const int blocks = 5, n = blocks * valid;
  std::mt19937 gen(seed);
  std::vector<T> in(n);
  for (auto& x : in) x = random_value<T>::draw(gen);
  const auto d_in = device_copy(in);
  Kokkos::View<T*, Kokkos::CudaSpace> d_out("sweep::test::layers_out", n), d_totals("sweep::test::layers_totals", blocks);
  const Kokkos::Cuda space;
  block_scan_kernel<Threads, Op><<<blocks, Threads, 0, space.cuda_stream()>>>(d_in.data(), d_out.data(),
                                                                             d_totals.data(), valid);
  sweep::cuda::check_launch("block_scan_kernel");
  space.fence();
  const auto out = host_copy(d_out);
  const auto totals = host_copy(d_totals);
  const Op op;
  for (int b = 0; b < blocks; ++b) {
    T acc = Op::identity();
    for (int t = 0; t < valid; ++t) {
      INFO("threads " << Threads << " block " << b << " thread " << t << " valid " << valid);
      REQUIRE(out[b * valid + t] == acc);
      acc = op(acc, in[b * valid + t]);
    }
    INFO("threads " << Threads << " block " << b << " total, valid " << valid);
    REQUIRE(totals[b] == acc);
  }
}

template <int Threads, class Op>
void check_block_sizes() {
  for (const int valid : {1, 31, 33, Threads / 2 + 5, Threads - 1, Threads})
    if (valid >= 1 && valid <= Threads) check_block_scan<Threads, Op>(valid, unsigned(Threads * 1000 + valid));
}

template <class Op>
void check_layers() {
  for (const int valid : {1, 7, 31, 32}) check_warp_scan<Op>(valid, unsigned(valid));
  check_block_sizes<32, Op>();
  check_block_sizes<96, Op>();
  check_block_sizes<128, Op>();
  check_block_sizes<1024, Op>();
}

}  // namespace

TEST_CASE("cuda layers: warp and block scans, 1-byte sums") { check_layers<sweep::plus<std::uint8_t>>(); }
TEST_CASE("cuda layers: warp and block scans, double maximum") { check_layers<sweep::maximum<double>>(); }
TEST_CASE("cuda layers: warp and block scans, 12-byte affine maps (non-commutative)") { check_layers<affine_compose>(); }
TEST_CASE("cuda layers: warp and block scans, 2x2 matrices (non-commutative)") { check_layers<mat2_product>(); }
