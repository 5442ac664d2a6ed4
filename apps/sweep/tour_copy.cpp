// The copy row: the memory-bandwidth ceiling every other row is compared with.
#include "tour.hpp"

namespace tour {

std::vector<row> run_copy(const options& opt) {
  using Space = Kokkos::DefaultExecutionSpace;
  const std::int64_t n = std::int64_t(1) << opt.log2n;
  Kokkos::View<std::int32_t*> in("sweep::tour::in", n), out("sweep::tour::out", n);
  Kokkos::parallel_for(
      "sweep::tour::fill", Kokkos::RangePolicy<Space>(0, n),
      KOKKOS_LAMBDA(const std::int64_t i) { in(i) = static_cast<std::int32_t>(i * 7 + 1); });
  row r;
  r.capability = "copy (bandwidth ceiling)";
  r.size = n;
  r.bytes = 2.0 * n * sizeof(std::int32_t);
  r.seconds = best_seconds(opt.repeats, [&] {
    Kokkos::parallel_for(
        "sweep::tour::copy", Kokkos::RangePolicy<Space>(0, n),
        KOKKOS_LAMBDA(const std::int64_t i) { out(i) = in(i); });
  });
  std::int64_t wrong = 0;
  Kokkos::parallel_reduce(
      "sweep::tour::check_copy", Kokkos::RangePolicy<Space>(0, n),
      KOKKOS_LAMBDA(const std::int64_t i, std::int64_t& bad) {
        bad += (out(i) != static_cast<std::int32_t>(i * 7 + 1)) ? 1 : 0;
      },
      wrong);
  r.passed = wrong == 0;
  r.note = r.passed ? "every element equal" : std::to_string(wrong) + " elements differ";
  return {r};
}

}  // namespace tour
