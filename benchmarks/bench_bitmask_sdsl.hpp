// sdsl-lite rank/select peers for bench_bitmask (host only).
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>

namespace sweep_bench {

class sdsl_index {
 public:
  sdsl_index(const std::uint32_t* words, std::int64_t n);  // copies the mask
  ~sdsl_index();
  void build_rank();    // rank_support_v5
  void build_select();  // select_support_mcl
  std::size_t rank_bytes() const;
  std::size_t select_bytes() const;
  /// Batches over OpenMP threads, as Sweep's: out[t] = rank(q[t]) / select(q[t]).
  void rank(const std::int64_t* q, std::int64_t* out, std::int64_t count) const;
  void select(const std::int64_t* q, std::int64_t* out, std::int64_t count) const;

 private:
  struct impl;
  std::unique_ptr<impl> m;
};

}  // namespace sweep_bench
