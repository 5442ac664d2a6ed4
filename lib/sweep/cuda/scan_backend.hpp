// scan_backend for Kokkos::Cuda: `automatic` runs the hand-written
// single-pass kernel of cuda/single_pass_scan.hpp (warp shuffles, decoupled
// look-back) on any io, plain or lifted, whose values it can stage through
// shared memory (up to 128 bytes), and the portable Blelloch scan on larger
// ones; the portable algorithms stay selectable by name, so both are
// tested on a GPU.
#pragma once

#include <sweep/cuda/single_pass_scan.hpp>
#include <sweep/detail/scan_backend.hpp>
#include <sweep/detail/scan_blelloch.hpp>

namespace sweep::detail {

template <>
struct scan_backend<Kokkos::Cuda, cuda_kind> : scan_backend<Kokkos::Cuda, portable_kind> {
  static constexpr bool own_automatic = true;
  template <bool Lifted, class IO, class T, class Sink>
  static T automatic(const Kokkos::Cuda& space, const IO& io, const T& init, bool exclusive, const scan_options&,
                     const std::string& label, const Sink& sink) {
    if constexpr (cuda::scan_policy<sizeof(T)>::staged && alignof(T) <= 16)
      return cuda::single_pass_scan(space, io, init, exclusive, label, sink);
    else  // too large to stage through shared memory: global memory only
      return sink.put(space, scan_blelloch(space, io, init, exclusive, label));
  }
};

}  // namespace sweep::detail
