// Bad arguments on one rank: every rank throws the same
// std::invalid_argument (naming the failing rank), no rank hangs (CTest's
// timeout fails a hang), and nothing is written on any rank.
#include "mpi_support.hpp"

#include <sweep/mpi.hpp>

using namespace sweep_test;

namespace {

/// The last rank: the one the tests make misbehave.
int culprit() { return world_size() - 1; }

}  // namespace

TEST_CASE_TEMPLATE("a short output on one rank fails the scan on every rank", Space, SWEEP_TEST_SPACES) {
  Space space;
  using Mem = typename Space::memory_space;
  const bool bad = world_rank() == culprit();
  auto in = to_device<Space>(std::vector<int>(100, 1), "in");
  Kokkos::View<int*, Mem> out("out", bad ? 99 : 100);
  Kokkos::deep_copy(out, -5);
  expect_agreed_error([&] { sweep::mpi::inclusive_scan(MPI_COMM_WORLD, space, in, out); },
                      "rank " + std::to_string(culprit()) + ": sweep::mpi::inclusive_scan: out has 99 elements");
  CHECK(to_host(out) == std::vector<int>(out.extent(0), -5));
  expect_agreed_error([&] { sweep::mpi::exclusive_scan(MPI_COMM_WORLD, space, in, out, 0); }, "out has 99");
  CHECK(to_host(out) == std::vector<int>(out.extent(0), -5));
}

TEST_CASE_TEMPLATE("options that differ between ranks are refused everywhere", Space, SWEEP_TEST_SPACES) {
  if (world_size() < 2) return;  // one rank cannot disagree with itself
  Space space;
  using Mem = typename Space::memory_space;
  auto in = to_device<Space>(std::vector<int>(10, 1), "in");
  Kokkos::View<int*, Mem> out("out", 10);
  sweep::scan_options opt;
  if (world_rank() == culprit()) opt.direction = sweep::direction::backward;
  expect_agreed_error([&] { sweep::mpi::inclusive_scan(MPI_COMM_WORLD, space, in, out, opt); },
                      "scan_options::direction differs across ranks");
  CHECK(to_host(out) == std::vector<int>(10, 0));
  sweep::mpi::sort_options sopt;
  if (world_rank() == culprit()) sopt.end_bit = 16;
  auto keys = to_device<Space>(std::vector<std::uint32_t>(10, 3u), "keys");
  expect_agreed_error([&] { sweep::mpi::sort_by_key(MPI_COMM_WORLD, space, keys, out, sopt); },
                      "sort_options::end_bit differs across ranks");
}

TEST_CASE_TEMPLATE("bad segments, sort and pack arguments on one rank", Space, SWEEP_TEST_SPACES) {
  Space space;
  using Mem = typename Space::memory_space;
  const bool bad = world_rank() == culprit();
  const std::string who = "rank " + std::to_string(culprit()) + ": ";
  auto in = to_device<Space>(std::vector<int>(50, 2), "in");
  Kokkos::View<int*, Mem> out("out", 50);
  // Flags that do not cover the rank's elements.
  Kokkos::View<std::uint8_t*, Mem> flags("flags", bad ? 10 : 50);
  expect_agreed_error(
      [&] { sweep::mpi::segmented_inclusive_scan(MPI_COMM_WORLD, space, in, sweep::head_flags(flags), out); },
      who + "sweep::mpi::segmented_inclusive_scan: head_flags has 10 entries");
  // Global offsets whose last entry is not the global length.
  const auto total = 50 * world_size();
  auto offsets = to_device<Space>(std::vector<std::int64_t>{0, 20, total + (bad ? 1 : 0)}, "offsets");
  auto go = [&] {
    sweep::mpi::segmented_exclusive_scan(MPI_COMM_WORLD, space, in, sweep::segment_offsets(offsets), out, 0);
  };
  expect_agreed_error(go, "the last offset must be the global length");
  CHECK(to_host(out) == std::vector<int>(50, 0));
  // Values shorter than keys.
  auto keys = to_device<Space>(std::vector<std::uint64_t>(bad ? 51 : 50, 1u), "keys");
  expect_agreed_error([&] { sweep::mpi::sort_by_key(MPI_COMM_WORLD, space, keys, out); },
                      who + "sweep::mpi::sort_by_key: values has 50 elements but keys has 51");
  // A packed output too short for what the mask selects.
  auto words = to_device<Space>(std::vector<std::uint32_t>{~0u, ~0u}, "words");
  Kokkos::View<int*, Mem> packed("packed", bad ? 40 : 50);
  expect_agreed_error([&] { sweep::mpi::pack(MPI_COMM_WORLD, space, words, 50, in, packed); },
                      who + "sweep::mpi::pack: out has 40 elements but 50 are selected");
  CHECK(to_host(packed) == std::vector<int>(packed.extent(0), 0));
  // Totals too short for the segments that start on the rank.
  Kokkos::View<std::uint8_t*, Mem> all_heads("heads", 50);
  Kokkos::deep_copy(all_heads, std::uint8_t(1));
  Kokkos::View<int*, Mem> totals("totals", bad ? 3 : 50);
  expect_agreed_error(
      [&] { sweep::mpi::segmented_reduce(MPI_COMM_WORLD, space, in, sweep::head_flags(all_heads), totals); },
      who + "sweep::mpi::segmented_reduce: totals has 3 elements but 50 segments start on this rank");
  CHECK(to_host(totals) == std::vector<int>(totals.extent(0), 0));
}

TEST_CASE_TEMPLATE("MPI_COMM_NULL is refused", Space, SWEEP_TEST_SPACES) {
  Space space;
  auto in = to_device<Space>(std::vector<int>(3, 1), "in");
  Kokkos::View<int*, typename Space::memory_space> out("out", 3);
  CHECK(contains(thrown([&] { sweep::mpi::inclusive_scan(MPI_COMM_NULL, space, in, out); }),
                 "the communicator is MPI_COMM_NULL"));
  CHECK(to_host(out) == std::vector<int>(3, 0));
}

TEST_CASE_TEMPLATE("scans on a split communicator run per group", Space, SWEEP_TEST_SPACES) {
  Space space;
  MPI_Comm half;
  MPI_Comm_split(MPI_COMM_WORLD, world_rank() % 2, world_rank(), &half);
  auto in = to_device<Space>(std::vector<long>(4, 1), "in");
  Kokkos::View<long*, typename Space::memory_space> out("out", 4);
  int group_rank = 0, group_size = 0;
  MPI_Comm_rank(half, &group_rank);
  MPI_Comm_size(half, &group_size);
  CHECK(sweep::mpi::inclusive_scan(half, space, in, out) == 4L * group_size);
  CHECK(to_host(out) == std::vector<long>{4L * group_rank + 1, 4L * group_rank + 2, 4L * group_rank + 3,
                                          4L * group_rank + 4});
  MPI_Comm_free(&half);
}
