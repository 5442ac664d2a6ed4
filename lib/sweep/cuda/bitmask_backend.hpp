// bitmask_backend for Kokkos::Cuda: the trees' select, pack and unpack
// descend warp-cooperatively, and rank_select packs and unpacks dense masks
// by streaming the mask, one warp per 1024 bits (cuda/bitmask.hpp); the
// rest is the portable path.
#pragma once

#include <sweep/cuda/bitmask.hpp>
#include <sweep/detail/bitmask_backend.hpp>

namespace sweep::detail {

template <>
struct bitmask_backend<Kokkos::Cuda, cuda_kind> : bitmask_backend<Kokkos::Cuda, portable_kind> {
  using base = bitmask_backend<Kokkos::Cuda, portable_kind>;

  template <class Traits, class View, class In, class Out>
  static void pack(const Kokkos::Cuda& space, const std::string& where, const View& v, const In& expanded,
                   const Out& packed, index_t work_item) {
    if constexpr (Traits::streaming) {
      if (!v.sparse) return cuda::stream<true>(space, where, v, expanded, packed);
    } else if constexpr (Traits::tree) {
      return cuda::move_by_select<true>(space, where, v, expanded, packed);
    }
    base::template pack<Traits>(space, where, v, expanded, packed, work_item);
  }

  template <class Traits, class View, class In, class Out>
  static void unpack(const Kokkos::Cuda& space, const std::string& where, const View& v, const In& packed,
                     const Out& expanded, index_t work_item) {
    if constexpr (Traits::streaming) {
      if (!v.sparse) return cuda::stream<false>(space, where, v, expanded, packed);
    } else if constexpr (Traits::tree) {
      return cuda::move_by_select<false>(space, where, v, packed, expanded);
    }
    base::template unpack<Traits>(space, where, v, packed, expanded, work_item);
  }

  template <class Traits, class View, class Queries, class Out>
  static void select(const Kokkos::Cuda& space, const std::string& where, const View& v, const Queries& queries,
                     const Out& out) {
    if constexpr (Traits::tree) return cuda::select(space, where, v, queries, out);
    else base::template select<Traits>(space, where, v, queries, out);
  }
};

}  // namespace sweep::detail
