// Distributed segmented scans and reductions against the sequential
// reference on the concatenated input: segments that span ranks, start on
// a rank boundary or cover everything; heads as each rank's flags and as
// global offsets (with empty segments); both directions and kinds.
#include "mpi_support.hpp"
#include "segmented_reference.hpp"

#include <sweep/mpi.hpp>

using namespace sweep_test;

namespace {

template <class Space, class T, class Op>
void check_distributed_segmented(const std::vector<T>& x, const layout& l, const Op& op, const T& init) {
  Space space;
  using Mem = typename Space::memory_space;
  const auto heads = l.heads();
  std::vector<std::uint8_t> global_flags(x.size());
  for (std::size_t i = 0; i < x.size(); ++i) global_flags[i] = heads[i] ? 1 : 0;
  auto offsets = to_device<Space>(l.offsets, "offsets");
  for (const auto& s : splits(x.size(), x.size() + 5)) {
    CAPTURE(s.name);
    CAPTURE(l.name);
    auto in = to_device<Space>(slice(x, s), "in");
    auto flags = to_device<Space>(slice(global_flags, s), "flags");
    Kokkos::View<T*, Mem> out("out", s.count());
    for (bool exclusive : {false, true})
      for (bool backward : {false, true})
        for (bool by_offsets : {false, true}) {
          CAPTURE(exclusive);
          CAPTURE(backward);
          CAPTURE(by_offsets);
          std::vector<T> want;
          reference_segmented_scan(x, heads, want, init, exclusive, backward, op);
          sweep::scan_options opt;
          opt.direction = backward ? sweep::direction::backward : sweep::direction::forward;
          auto run = [&](const auto& segments) {
            if (exclusive)
              sweep::mpi::segmented_exclusive_scan(MPI_COMM_WORLD, space, in, segments, out, init, op, opt);
            else
              sweep::mpi::segmented_inclusive_scan(MPI_COMM_WORLD, space, in, segments, out, op, opt);
          };
          if (by_offsets) run(sweep::segment_offsets(offsets));
          else run(sweep::head_flags(flags));
          CHECK(to_host(out) == slice(want, s));
        }
    // Totals of the segments that start on this rank, numbered globally by
    // the prefix sum of the counts.
    const auto want_totals = reference_segmented_reduce(x, without_empty(l), op);
    Kokkos::View<T*, Mem> totals("totals", s.count());
    const auto count = sweep::mpi::segmented_reduce(MPI_COMM_WORLD, space, in, sweep::head_flags(flags), totals, op);
    long long mine = count, first = 0;
    MPI_Exscan(&mine, &first, 1, MPI_LONG_LONG, MPI_SUM, MPI_COMM_WORLD);
    if (world_rank() == 0) first = 0;
    std::size_t starts = 0;
    for (std::size_t i = s.begin(); i < s.end(); ++i) starts += (heads[i] || i == 0) ? 1 : 0;
    CHECK(static_cast<std::size_t>(count) == starts);
    const auto got = to_host(totals);
    CHECK(std::vector<T>(got.begin(), got.begin() + count) ==
          slice(want_totals, static_cast<std::size_t>(first), static_cast<std::size_t>(first + count)));
  }
}

}  // namespace

TEST_CASE_TEMPLATE("distributed segmented int32 sums match the reference for every layout", Space,
                   SWEEP_TEST_SPACES) {
  for (std::size_t n : {0u, 1u, 2u, 33u, 1000u, 20001u})
    for (const auto& l : standard_layouts(n, 10 + n)) {
      CAPTURE(n);
      check_distributed_segmented<Space>(random_values<std::int32_t>(n, n), l, sweep::plus<std::int32_t>{},
                                         std::int32_t(5));
    }
}

TEST_CASE_TEMPLATE("distributed segmented matrix products keep operand order", Space, SWEEP_TEST_SPACES) {
  for (std::size_t n : {1u, 100u, 6007u})
    for (const auto& l : {random_layout(n, 8.0, n), random_layout(n, 3000.0, n + 1), single_segment(n)}) {
      CAPTURE(n);
      check_distributed_segmented<Space>(random_values<mat2>(n, n + 2), l, mat2_product{}, mat2{1, 1, 0, 1});
    }
}

TEST_CASE_TEMPLATE("global offsets with empty segments", Space, SWEEP_TEST_SPACES) {
  for (std::size_t n : {0u, 1u, 5000u})
    check_distributed_segmented<Space>(random_values<std::int64_t>(n, n + 3), random_layout(n, 4.0, n + 1, 2),
                                       sweep::plus<std::int64_t>{}, std::int64_t(-1));
}
