// The galaxy across ranks (sweep::mpi::nbody::simulation): per phase and
// per rank, the seconds of a step (decomposition, migration, local build,
// essential-tree exchange, force, integration), each rank's bodies and
// work, the bytes of the essential trees and of the migration, for cost
// zones, ORB and static, on a Plummer sphere of n bodies (theta 0.5,
// quadrupoles, leaf 8). A 1-rank run adds sweep::nbody::simulation (one
// process, every thread) as the baseline.
//
//   OMP_NUM_THREADS=2 mpiexec -n 1 bench_mpi_galaxy [n ...]   (default n = 100000 1000000)
//   OMP_NUM_THREADS=1 mpiexec -n 2 bench_mpi_galaxy [n ...]
//
// Every rank builds the same sphere and passes its equal share; one step
// runs untimed (so every decomposition balances recorded costs), then
// `steps` steps are timed (3 below 10^6 bodies, 2 from there). One JSON
// line per (n, scheme, rank, step) on rank 0's stdout ("kind": "rank"),
// and per (n, scheme) a summary ("kind": "step": the slowest rank's step
// and the exchange's share of it, medians over the timed steps; the
// imbalance and the bytes over all ranks of the last step).
#include "common/mpi_bench.hpp"

#include <sweep/mpi/nbody.hpp>
#include <sweep/nbody.hpp>

#include <Kokkos_Core.hpp>
#include <mpi.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <vector>

namespace nb = sweep::nbody;
namespace mnb = sweep::mpi::nbody;

namespace {

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

}  // namespace

int main(int argc, char** argv) {
  return sweep_bench::mpi_bench_main(argc, argv, {100000, 1000000}, [](int rank, int size,
                                                                       const std::vector<std::int64_t>& sizes) {
    Kokkos::DefaultExecutionSpace space;
    const int threads = space.concurrency();
    for (const std::int64_t n : sizes) {
      const int steps = n < 1000000 ? 3 : 2;
      const auto bodies = nb::plummer(std::size_t(n), 42);
      nb::simulation_parameters p;  // theta 0.5, quadrupoles, leaf 8
      if (size == 1) {
        nb::simulation<> one(space, bodies, p);
        one.step();
        std::vector<double> t;
        for (int s = 0; s < steps; ++s) t.push_back(one.step().seconds.total());
        const auto& r = one.last();
        std::printf(
            "{\"kind\": \"single-process\", \"n\": %lld, \"ranks\": 1, \"threads\": %d, \"scheme\": \"%s\", "
            "\"step_s\": %.4f, \"force_s\": %.4f, \"build_s\": %.4f, \"interactions\": %llu}\n",
            static_cast<long long>(n), threads, nb::to_string(p.balance), median(t), r.seconds.force,
            r.seconds.build + r.seconds.summarize + r.seconds.bbox + r.seconds.partition,
            static_cast<unsigned long long>(r.interactions));
        std::fflush(stdout);
      }
      for (nb::scheme s : {nb::scheme::costzones, nb::scheme::orb, nb::scheme::equal_count}) {
        p.balance = s;
        const std::size_t b = bodies.size() * std::size_t(rank) / std::size_t(size),
                          e = bodies.size() * std::size_t(rank + 1) / std::size_t(size);
        mnb::simulation<> sim(MPI_COMM_WORLD, space, std::vector<nb::body>(bodies.begin() + long(b), bodies.begin() + long(e)),
                              p);
        sim.step();
        std::vector<double> step_s;
        std::vector<double> exchange_share;
        double imbalance = 1;
        unsigned long long let_bytes = 0, migration_bytes = 0;
        for (int k = 0; k < steps; ++k) {
          MPI_Barrier(MPI_COMM_WORLD);
          sim.step();
          const auto all = sim.reports();
          imbalance = sim.balance().imbalance;
          if (rank != 0) continue;
          double slowest = 0, slowest_exchange = 0;
          let_bytes = migration_bytes = 0;
          for (int q = 0; q < size; ++q) {
            const auto& r = all[std::size_t(q)];
            slowest = std::max(slowest, r.seconds.total());
            slowest_exchange = std::max(slowest_exchange, r.seconds.exchange);
            let_bytes += r.essential.bytes_sent();
            migration_bytes += r.migration.bytes_sent;
            std::printf(
                "{\"kind\": \"rank\", \"n\": %lld, \"ranks\": %d, \"threads\": %d, \"scheme\": \"%s\", \"step\": %d, "
                "\"rank\": %d, \"bodies\": %lld, \"work\": %llu, \"decompose_s\": %.5f, \"migrate_s\": %.5f, "
                "\"build_s\": %.5f, \"exchange_s\": %.5f, \"force_s\": %.5f, \"integrate_s\": %.5f, "
                "\"step_s\": %.5f, \"let_nodes_sent\": %lld, \"let_bodies_sent\": %lld, \"let_bytes_sent\": %llu, "
                "\"let_bytes_received\": %llu, \"migrated_bodies\": %lld, \"migration_bytes\": %llu}\n",
                static_cast<long long>(n), size, threads, nb::to_string(s), k, q, static_cast<long long>(r.bodies),
                static_cast<unsigned long long>(r.work), r.seconds.decompose, r.seconds.migrate, r.seconds.build,
                r.seconds.exchange, r.seconds.force, r.seconds.integrate, r.seconds.total(),
                static_cast<long long>(r.essential.nodes_sent), static_cast<long long>(r.essential.bodies_sent),
                static_cast<unsigned long long>(r.essential.bytes_sent()),
                static_cast<unsigned long long>(r.essential.bytes_received()),
                static_cast<long long>(r.migration.sent), static_cast<unsigned long long>(r.migration.bytes_sent));
          }
          step_s.push_back(slowest);
          exchange_share.push_back(slowest_exchange / slowest);
        }
        if (rank == 0) {
          std::printf(
              "{\"kind\": \"step\", \"n\": %lld, \"ranks\": %d, \"threads\": %d, \"scheme\": \"%s\", \"step_s\": %.4f, "
              "\"exchange_share\": %.4f, \"imbalance\": %.4f, \"let_bytes\": %llu, \"migration_bytes\": %llu}\n",
              static_cast<long long>(n), size, threads, nb::to_string(s), median(step_s), median(exchange_share),
              imbalance, let_bytes, migration_bytes);
          std::fflush(stdout);
        }
      }
    }
  });
}
