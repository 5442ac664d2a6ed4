// The 2D iteration tiles of the ocean's grid kernels (MDRange over rows and
// columns): the caller's tile, else one storage tile of a block-major grid
// on the host, else tuning<ExecSpace>::ocean's tile.
#pragma once

#include <sweep/detail/space.hpp>
#include <sweep/ocean/grid.hpp>
#include <sweep/tuning.hpp>

#include <Kokkos_Core.hpp>

#include <algorithm>
#include <type_traits>

namespace sweep::ocean::detail {

/// Static 2D tiles over [i0, i1) x [j0, j1): the given tile, else one
/// storage tile (block-major, on the host), else the space's default.
/// `col_scale` divides the column tile (the red-black passes iterate over
/// half columns).
template <class ExecSpace, class Indexer>
Kokkos::MDRangePolicy<ExecSpace, Kokkos::Rank<2>> tiled(const ExecSpace& space, const Indexer& idx, index_t i0,
                                                        index_t i1, index_t j0, index_t j1, index_t tr = 0,
                                                        index_t tc = 0, index_t col_scale = 1) {
  using T = typename tuning<ExecSpace>::ocean;
  index_t dr = T::tile_rows, dc = T::tile_cols;
  if constexpr (std::is_same_v<Indexer, block_major_index> && sweep::detail::is_host_space_v<ExecSpace>) {
    dr = index_t(1) << idx.shift;
    dc = std::max<index_t>(1, dr / col_scale);
  } else {
    (void)idx;
    (void)col_scale;
  }
  return Kokkos::MDRangePolicy<ExecSpace, Kokkos::Rank<2>>(space, {i0, j0}, {i1, j1},
                                                           {tr > 0 ? tr : dr, tc > 0 ? tc : dc});
}

}  // namespace sweep::ocean::detail
