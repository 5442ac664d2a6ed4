// The sdsl-lite peers of bench_bitmask, in their own translation unit so
// sdsl gets the popcount instructions it selects at compile time
// (-msse4.2 -mpopcnt -mbmi2 on this file only): rank_support_v5 and
// select_support_mcl over a bit_vector holding the same mask.
#include "bench_bitmask_sdsl.hpp"

#include <sdsl/bit_vectors.hpp>
#include <sdsl/rank_support_v5.hpp>
#include <sdsl/select_support_mcl.hpp>

#include <cstring>

namespace sweep_bench {

struct sdsl_index::impl {
  sdsl::bit_vector bits;
  sdsl::rank_support_v5<1, 1> rank;
  sdsl::select_support_mcl<1, 1> select;
};

sdsl_index::sdsl_index(const std::uint32_t* words, std::int64_t n) : m(new impl) {
  m->bits = sdsl::bit_vector(static_cast<std::uint64_t>(n), 0);
  std::memcpy(m->bits.data(), words, static_cast<std::size_t>((n + 7) / 8));
}
sdsl_index::~sdsl_index() = default;

void sdsl_index::build_rank() { m->rank = sdsl::rank_support_v5<1, 1>(&m->bits); }
void sdsl_index::build_select() { m->select = sdsl::select_support_mcl<1, 1>(&m->bits); }
std::size_t sdsl_index::rank_bytes() const { return sdsl::size_in_bytes(m->rank); }
std::size_t sdsl_index::select_bytes() const { return sdsl::size_in_bytes(m->select); }

void sdsl_index::rank(const std::int64_t* q, std::int64_t* out, std::int64_t count) const {
  const auto& r = m->rank;
#pragma omp parallel for schedule(static)
  for (std::int64_t t = 0; t < count; ++t) out[t] = static_cast<std::int64_t>(r.rank(static_cast<std::uint64_t>(q[t])));
}

void sdsl_index::select(const std::int64_t* q, std::int64_t* out, std::int64_t count) const {
  const auto& s = m->select;
#pragma omp parallel for schedule(static)
  for (std::int64_t t = 0; t < count; ++t)
    out[t] = static_cast<std::int64_t>(s.select(static_cast<std::uint64_t>(q[t]) + 1));  // sdsl counts from 1
}

}  // namespace sweep_bench
