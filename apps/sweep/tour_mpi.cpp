// Distributed rows (built with Sweep::mpi): sweep::mpi::inclusive_scan and
// sweep::mpi::sort_by_key over MPI_COMM_WORLD, which is one rank when the
// tour runs on its own (MPI starts as a singleton). The scan is checked
// against sweep::inclusive_scan of the same input, the sort for order,
// stability and that it permutes its input.
#include "mpi_start.hpp"
#include "tour.hpp"

#include <sweep/mpi/scan.hpp>
#include <sweep/mpi/sort.hpp>
#include <sweep/scan.hpp>

#include <mpi.h>

#include <algorithm>
#include <string>
#include <vector>

namespace tour {

std::vector<row> run_mpi(const options& opt) {
  sweep_apps::ensure_mpi();
  int ranks = 1;
  MPI_Comm_size(MPI_COMM_WORLD, &ranks);
  const std::string on = " (" + std::to_string(ranks) + (ranks == 1 ? " rank)" : " ranks)");
  Kokkos::DefaultExecutionSpace space;
  std::vector<row> rows;
  {
    const std::int64_t n = std::int64_t(1) << opt.log2n;
    std::vector<std::int32_t> h(static_cast<std::size_t>(n));
    for (std::int64_t i = 0; i < n; ++i) h[std::size_t(i)] = static_cast<std::int32_t>((i * 2654435761u) % 7) - 3;
    const auto in = upload(h, "sweep::tour::mpi_scan_in");
    Kokkos::View<std::int32_t*> out("sweep::tour::mpi_scan_out", n), want("sweep::tour::mpi_scan_want", n);
    row r;
    r.capability = "mpi::inclusive_scan int32" + on;
    r.size = n;
    r.bytes = 2.0 * n * sizeof(std::int32_t);
    r.seconds = best_seconds(opt.repeats, [&] { sweep::mpi::inclusive_scan(MPI_COMM_WORLD, space, in, out); });
    sweep::inclusive_scan(space, in, want);
    const auto got = download(out), ref = download(want);
    std::int64_t wrong = 0;
    for (std::size_t i = 0; i < got.size(); ++i) wrong += got[i] != ref[i] ? 1 : 0;
    r.passed = wrong == 0;
    r.note = r.passed ? "equals sweep::inclusive_scan" : std::to_string(wrong) + " elements differ";
    rows.push_back(r);
  }
  {
    const std::int64_t n = std::int64_t(1) << std::min(opt.log2n, 20);
    std::vector<std::uint32_t> keys(static_cast<std::size_t>(n)), index(static_cast<std::size_t>(n));
    for (std::int64_t i = 0; i < n; ++i) {
      keys[std::size_t(i)] = static_cast<std::uint32_t>((i * 2654435761u) >> 12);  // repeats: stability matters
      index[std::size_t(i)] = static_cast<std::uint32_t>(i);
    }
    const auto k = upload(keys, "sweep::tour::mpi_sort_keys");
    const auto v = upload(index, "sweep::tour::mpi_sort_values");
    row r;
    r.capability = "mpi::sort_by_key uint32" + on;
    r.size = n;
    r.items = double(n);
    r.unit = "keys";
    sweep::mpi::sorted_part<std::uint32_t, std::uint32_t, Kokkos::DefaultExecutionSpace::memory_space> part;
    r.seconds = best_seconds(opt.repeats, [&] { part = sweep::mpi::sort_by_key(MPI_COMM_WORLD, space, k, v); });
    const auto sk = download(part.keys), sv = download(part.values);
    // One rank: the value names the key's origin. Several: each rank
    // checks its piece's order (values are then local indices).
    const bool alone = ranks == 1;
    bool ok = !alone || std::int64_t(sk.size()) == n;
    for (std::size_t i = 0; ok && i < sk.size(); ++i) {
      if (alone) ok = sv[i] < keys.size() && keys[sv[i]] == sk[i];
      if (ok && i > 0) ok = sk[i - 1] < sk[i] || (sk[i - 1] == sk[i] && (!alone || sv[i - 1] < sv[i]));
    }
    r.passed = ok;
    r.note = ok ? "sorted, stable, a permutation of the input" : "not a stable sort of the input";
    rows.push_back(r);
  }
  return rows;
}

}  // namespace tour
