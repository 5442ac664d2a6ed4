// Galaxy row: the Barnes-Hut force (theta = 0.5, quadrupole) on a Plummer
// sphere of about 2^(log2n - 8) bodies, checked against direct summation:
// the median relative force error must be below 1e-3. Throughput in
// interactions per second (the walk is compute bound). The figure compares
// the four load-balance schemes on the same costs.
#include "tour.hpp"

#include <sweep/nbody.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <sstream>

namespace tour {

std::vector<row> run_galaxy(const options& opt) {
  using Space = Kokkos::DefaultExecutionSpace;
  namespace nb = sweep::nbody;
  using Arrays = nb::body_arrays<Space::memory_space>;
  Space space;
  const std::int64_t n = std::int64_t(1) << std::max(8, opt.log2n - 8);
  const auto bodies = nb::plummer(n, 7);
  const nb::gravity_parameters g{1.0, 0.05, true};

  // Reference: direct summation, by id.
  auto direct = Arrays::from_host(bodies);
  nb::direct_accelerations(space, direct, g);
  const auto rid = download(direct.id);
  const auto rx = download(direct.ax), ry = download(direct.ay), rz = download(direct.az);
  std::vector<double> ref(3 * std::size_t(n));
  for (std::int64_t k = 0; k < n; ++k)
    ref[3 * rid[k]] = rx[k], ref[3 * rid[k] + 1] = ry[k], ref[3 * rid[k] + 2] = rz[k];

  auto b = Arrays::from_host(bodies);
  Arrays spare(n);
  nb::octree<Space> tree(8);
  tree.build(space, b, spare, nb::bounding_box(space, b));
  tree.summarize(space, 0.5);
  const auto parts = nb::default_partitions(space);
  auto part = nb::make_partition(space, nb::scheme::equal_count, b, parts);
  nb::tree_accelerations(space, tree, b, g, part.offsets);
  part = nb::make_partition(space, nb::scheme::costzones, b, parts);  // from the recorded costs
  row r;
  r.capability = "galaxy Barnes-Hut force (theta 0.5)";
  r.size = n;
  r.seconds = best_seconds(opt.repeats, [&] { nb::tree_accelerations(space, tree, b, g, part.offsets); });
  r.items = double(nb::total_interactions(space, b));
  r.unit = "interactions";
  const auto id = download(b.id);
  const auto ax = download(b.ax), ay = download(b.ay), az = download(b.az);
  std::vector<double> err(static_cast<std::size_t>(n));
  for (std::int64_t k = 0; k < n; ++k) {
    const double* e = &ref[3 * id[k]];
    const double dx = ax[k] - e[0], dy = ay[k] - e[1], dz = az[k] - e[2];
    err[k] = std::sqrt(dx * dx + dy * dy + dz * dz) / std::sqrt(e[0] * e[0] + e[1] * e[1] + e[2] * e[2]);
  }
  std::nth_element(err.begin(), err.begin() + n / 2, err.end());
  const double median = err[n / 2];
  r.passed = median < 1e-3;
  char note[160];
  std::snprintf(note, sizeof note, "median force error vs direct sum %.2e (< 1e-3), %.0f interactions/body",
                median, r.items / double(n));
  r.note = note;

  // The figure: the four schemes cut from these costs at 16 partitions.
  std::ostringstream fig;
  fig << "galaxy load balance, " << n << " bodies, 16 partitions (work = recorded interactions):\n";
  for (auto s : {nb::scheme::costzones, nb::scheme::orb, nb::scheme::equal_count, nb::scheme::random}) {
    Arrays copy(n), other(n);
    copy.assign(space, b);
    const auto p = nb::make_partition(space, s, copy, 16);
    nb::apply(space, p, copy, other);
    const auto bal = nb::measure_balance(space, p, copy);
    char line[128];
    std::snprintf(line, sizeof line, "  %-10s imbalance %.3f  runs of tree slots per partition %8.1f\n",
                  nb::to_string(s), bal.imbalance, bal.runs);
    fig << line;
  }
  r.figure = fig.str();
  return {r};
}

}  // namespace tour
