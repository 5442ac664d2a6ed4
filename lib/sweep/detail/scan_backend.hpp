// The scan dispatch point. scan_backend<ExecSpace> says what `automatic`
// runs and how a single-pass chunk is folded and scanned; the primary
// template is the portable path (sequential below
// tuning<ExecSpace>::scan::sequential_below elements, else the single-pass
// look-back scan; chunks through the team loops). lib/sweep/host/ and
// lib/sweep/cuda/ specialise it:
//   resolve(n)             the algorithm `automatic` runs for n elements
//   own_automatic          true when the backend runs `automatic` itself,
//                          through automatic<Lifted>(space, io, init,
//                          exclusive, opt, label, sink) (CUDA's kernel;
//                          the sink takes the total: detail/look_back.hpp)
//   chunk_kernels(space, io, chunk)  the single-pass chunk work
//                          (detail/scan_single_pass.hpp)
#pragma once

#include <sweep/scan_options.hpp>
#include <sweep/tuning.hpp>
#include <sweep/detail/scan_single_pass.hpp>
#include <sweep/detail/space.hpp>

namespace sweep::detail {

template <class ExecSpace, class Kind = space_kind_t<ExecSpace>>
struct scan_backend {
  static scan_algorithm resolve(index_t n) {
    return n < tuning<ExecSpace>::scan::sequential_below ? scan_algorithm::sequential : scan_algorithm::single_pass;
  }
  static constexpr bool own_automatic = false;
  template <class IO>
  static portable_chunk_kernels chunk_kernels(const ExecSpace&, const IO&, index_t) {
    return {};
  }
};

}  // namespace sweep::detail

#define SWEEP_DISPATCH_SCAN
#include <sweep/backend.hpp>
