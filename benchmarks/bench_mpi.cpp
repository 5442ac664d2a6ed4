// Sweep's distributed scan and sort across ranks: weak scaling (2^k
// elements on every rank) and strong scaling (2^k elements in all, split
// over the ranks), each row next to the same rank-local work and a copy of
// the rank's bytes, timed in the same run; plus an MPI ping-pong between
// ranks 0 and 1 (latency and bandwidth, the scaling model's inputs).
//
//   OMP_NUM_THREADS=2 mpiexec -n 1 bench_mpi [log2n ...]   (single-process rows)
//   OMP_NUM_THREADS=1 mpiexec -n 2 bench_mpi [log2n ...]   (default log2n = 22 24)
//
// Rows (one line of JSON each on rank 0's stdout; times are the slowest
// rank's, the median of 5 repetitions):
//   scan: int32 inclusive scan. local_scan_ms: sweep::inclusive_scan of the
//     rank's part alone; mpi_scan_ms: sweep::mpi::inclusive_scan (local scan,
//     the rank-prefix collectives, the fix-up); mpi_part_ms: the collectives
//     alone (MPI_Exscan + MPI_Bcast of one value, as the scan calls them);
//     copy_ms: the faster of a parallel copy with ordinary and with
//     streaming stores of the rank's int32s (both reported).
//   sort: uint32 keys with uint32 values, uniform random. local_sort_ms:
//     sweep::sort_by_key of the rank's part; mpi_sort_ms:
//     sweep::mpi::sort_by_key; alltoallv_ms: one MPI_Alltoallv of keys and
//     values with the volume a uniform sample sort moves (each rank keeps
//     1/P and sends the rest), the exchange alone.
//   pingpong (2 ranks or more): one-way time between ranks 0 and 1 per
//     message size.
#include "common/bench_support.hpp"
#include "common/mpi_bench.hpp"

#include <sweep/mpi/scan.hpp>
#include <sweep/mpi/sort.hpp>
#include <sweep/scan.hpp>
#include <sweep/sort.hpp>

#include <Kokkos_Core.hpp>
#include <mpi.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <string>
#include <vector>

namespace {

using Space = Kokkos::DefaultExecutionSpace;
using Memory = Space::memory_space;

/// The median of 5 repetitions of the slowest rank's time, in ms.
template <class... Args>
double median_ms(const Space& space, Args&&... args) {
  return sweep_bench::median_seconds(space, std::forward<Args>(args)...) * 1e3;
}

/// Elements on `rank` when `total` are split over `size` ranks as evenly as
/// possible (the first total % size ranks hold one more).
std::int64_t share(std::int64_t total, int size, int rank) {
  return total / size + (rank < total % size ? 1 : 0);
}

template <class T>
Kokkos::View<T*, Memory> random_view(const char* label, std::int64_t n, std::uint64_t seed, T bound) {
  Kokkos::View<T*, Kokkos::HostSpace> h(Kokkos::view_alloc(Kokkos::WithoutInitializing, std::string(label)), n);
  std::mt19937_64 gen(seed);
  std::uniform_int_distribution<std::uint64_t> dist(0, bound);
  for (std::int64_t i = 0; i < n; ++i) h(i) = static_cast<T>(dist(gen));
  Kokkos::View<T*, Memory> d(Kokkos::view_alloc(Kokkos::WithoutInitializing, std::string(label)), n);
  Kokkos::deep_copy(d, h);
  return d;
}

struct copy_int32 {
  Kokkos::View<std::int32_t*, Memory> in, out;
  KOKKOS_INLINE_FUNCTION void operator()(const std::int64_t i) const { out(i) = in(i); }
};

/// Ordinary and streaming copies of n int32 (the streaming one only on x86
/// host spaces; -1 elsewhere).
std::pair<double, double> copy_ms(const Space& space, std::int64_t n) {
  Kokkos::View<std::int32_t*, Memory> in("sweep::bench::copy_in", n), out("sweep::bench::copy_out", n);
  Kokkos::deep_copy(space, in, 1);
  const copy_int32 copy{in, out};
  const double plain = median_ms(space, [&] {
    Kokkos::parallel_for("sweep::bench::copy",
                         Kokkos::RangePolicy<Space, Kokkos::IndexType<std::int64_t>>(space, 0, n), copy);
  });
  double streaming = -1;
  if constexpr (sweep_bench::has_streaming_copy) {
    const char* src = reinterpret_cast<const char*>(in.data());
    char* dst = reinterpret_cast<char*>(out.data());
    const std::int64_t bytes = n * std::int64_t(sizeof(std::int32_t));
    const int parts = Kokkos::DefaultHostExecutionSpace().concurrency();
    streaming = median_ms(space, [&] {
      Kokkos::parallel_for(
          "sweep::bench::copy_streaming", Kokkos::RangePolicy<Kokkos::DefaultHostExecutionSpace>(0, parts),
          [=](const int p) {
            const std::int64_t lo = (bytes * p / parts) & ~std::int64_t(63);
            const std::int64_t hi = p + 1 == parts ? bytes : (bytes * (p + 1) / parts) & ~std::int64_t(63);
            sweep_bench::copy_streaming_bytes(src, dst, lo, hi);
          });
    });
  }
  return {plain, streaming};
}

struct layout {
  const char* mode;
  int log2n;
  std::int64_t local;   // this rank's elements
  std::int64_t most;    // the largest rank's
  std::int64_t global;  // all ranks'
};

layout make_layout(const char* mode, int log2n, int rank, int size) {
  const std::int64_t n = std::int64_t(1) << log2n;
  if (std::string(mode) == "weak") return {mode, log2n, n, n, n * size};
  return {mode, log2n, share(n, size, rank), share(n, size, 0), n};
}

void print_head(const char* bench, const layout& l, int size) {
  std::printf("{\"bench\": \"%s\", \"mode\": \"%s\", \"log2n\": %d, \"ranks\": %d, \"threads\": %d, "
              "\"n_per_rank_max\": %lld, \"n_global\": %lld",
              bench, l.mode, l.log2n, size, Space().concurrency(), static_cast<long long>(l.most),
              static_cast<long long>(l.global));
}

void bench_scan(const Space& space, const layout& l, int rank, int size) {
  const auto in = random_view<std::int32_t>("sweep::bench::scan_in", l.local, 11 + rank, 100);
  Kokkos::View<std::int32_t*, Memory> out("sweep::bench::scan_out", l.local);
  sweep::inclusive_scan(space, in, out);  // first touch, workspace
  const double local = median_ms(space, [&] { sweep::inclusive_scan(space, in, out); });
  sweep::mpi::inclusive_scan(MPI_COMM_WORLD, space, in, out);
  const double distributed = median_ms(space, [&] { sweep::mpi::inclusive_scan(MPI_COMM_WORLD, space, in, out); });
  const std::int32_t total = sweep::detail::read_element(space, out, l.local - 1);
  const double collectives = median_ms(space, [&] {
    sweep::mpi::detail::rank_prefix(MPI_COMM_WORLD, sweep::plus<std::int32_t>{}, total);
  });
  const auto copies = copy_ms(space, l.local);
  const double copy = copies.second > 0 ? std::min(copies.first, copies.second) : copies.first;
  if (rank != 0) return;
  print_head("scan", l, size);
  std::printf(", \"copy_ms\": %.4f, \"copy_plain_ms\": %.4f, \"copy_streaming_ms\": %.4f, \"local_scan_ms\": %.4f, "
              "\"mpi_scan_ms\": %.4f, \"mpi_part_ms\": %.5f, \"mpi_part_share\": %.5f, \"scan_vs_copy\": %.3f}\n",
              copy, copies.first, copies.second, local, distributed, collectives, collectives / local,
              copy / distributed);
  std::fflush(stdout);
}

void bench_sort(const Space& space, const layout& l, int rank, int size) {
  using U = std::uint32_t;
  const auto keys0 = random_view<U>("sweep::bench::keys", l.local, 101 + rank, 0xffffffffu);
  const auto values0 = random_view<U>("sweep::bench::values", l.local, 201 + rank, 0xffffffffu);
  Kokkos::View<U*, Memory> keys("sweep::bench::sort_keys", l.local), values("sweep::bench::sort_values", l.local);
  auto restore = [&] {
    Kokkos::deep_copy(space, keys, keys0);
    Kokkos::deep_copy(space, values, values0);
  };
  restore();
  sweep::sort_by_key(space, keys, values);
  const double local = median_ms(space, restore, [&] { sweep::sort_by_key(space, keys, values); });
  long long received = 0;
  auto distributed_sort = [&] {
    const auto part = sweep::mpi::sort_by_key(MPI_COMM_WORLD, space, keys0, values0);
    received = static_cast<long long>(part.keys.extent(0));
  };
  distributed_sort();
  const double distributed = median_ms(space, distributed_sort);
  long long most_received = 0;
  MPI_Allreduce(&received, &most_received, 1, MPI_LONG_LONG, MPI_MAX, MPI_COMM_WORLD);
  // The exchange alone: what a uniform sample sort sends, keys and values
  // as one 8-byte record per element, 1/P of them kept.
  std::vector<int> counts(size), displs(size);
  for (int r = 0; r < size; ++r) {
    counts[r] = static_cast<int>(share(l.local, size, r));
    displs[r] = r == 0 ? 0 : displs[r - 1] + counts[r - 1];
  }
  std::vector<int> recv_counts(size);
  MPI_Alltoall(counts.data(), 1, MPI_INT, recv_counts.data(), 1, MPI_INT, MPI_COMM_WORLD);
  std::vector<int> recv_displs(size, 0);
  for (int r = 1; r < size; ++r) recv_displs[r] = recv_displs[r - 1] + recv_counts[r - 1];
  std::vector<std::uint64_t> send(l.local, 1), recv(std::size_t(recv_displs[size - 1] + recv_counts[size - 1]));
  const double exchange = median_ms(space, [&] {
    MPI_Alltoallv(send.data(), counts.data(), displs.data(), MPI_UINT64_T, recv.data(), recv_counts.data(),
                  recv_displs.data(), MPI_UINT64_T, MPI_COMM_WORLD);
  });
  long long sent = 8LL * (l.local - counts[rank]), most_sent = 0;
  MPI_Allreduce(&sent, &most_sent, 1, MPI_LONG_LONG, MPI_MAX, MPI_COMM_WORLD);
  if (rank != 0) return;
  print_head("sort", l, size);
  std::printf(", \"local_sort_ms\": %.4f, \"mpi_sort_ms\": %.4f, \"alltoallv_ms\": %.4f, \"alltoallv_share\": %.4f, "
              "\"bytes_sent_max_rank\": %lld, \"n_received_max_rank\": %lld}\n",
              local, distributed, exchange, exchange / distributed, most_sent, most_received);
  std::fflush(stdout);
}

/// One-way time between ranks 0 and 1 per message size (ranks >= 2 wait).
void bench_pingpong(int rank, int size) {
  if (size < 2) return;
  for (const std::int64_t bytes : {std::int64_t(8), std::int64_t(1) << 16, std::int64_t(1) << 22}) {
    std::vector<char> buf(static_cast<std::size_t>(bytes), 1);
    const int reps = bytes <= 65536 ? 1000 : 50;
    std::vector<double> t;
    for (int trial = 0; trial < 5; ++trial) {
      MPI_Barrier(MPI_COMM_WORLD);
      const double t0 = MPI_Wtime();
      for (int k = 0; k < reps && rank < 2; ++k) {
        if (rank == 0) {
          MPI_Send(buf.data(), int(bytes), MPI_BYTE, 1, 7, MPI_COMM_WORLD);
          MPI_Recv(buf.data(), int(bytes), MPI_BYTE, 1, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        } else {
          MPI_Recv(buf.data(), int(bytes), MPI_BYTE, 0, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
          MPI_Send(buf.data(), int(bytes), MPI_BYTE, 0, 7, MPI_COMM_WORLD);
        }
      }
      t.push_back((MPI_Wtime() - t0) / (2.0 * reps));
    }
    std::sort(t.begin(), t.end());
    if (rank == 0) {
      std::printf("{\"bench\": \"pingpong\", \"ranks\": %d, \"bytes\": %lld, \"one_way_us\": %.3f, \"gb_per_s\": %.3f}\n",
                  size, static_cast<long long>(bytes), t[2] * 1e6, double(bytes) / t[2] * 1e-9);
      std::fflush(stdout);
    }
  }
}

}  // namespace

int main(int argc, char** argv) {
  return sweep_bench::mpi_bench_main(argc, argv, {22, 24}, [](int rank, int size,
                                                              const std::vector<std::int64_t>& sizes) {
    Space space;
    bench_pingpong(rank, size);
    for (const std::int64_t log2n : sizes)
      for (const char* mode : {"weak", "strong"}) {
        const layout l = make_layout(mode, static_cast<int>(log2n), rank, size);
        bench_scan(space, l, rank, size);
        bench_sort(space, l, rank, size);
      }
  });
}
