// The BVHs' storage: binary nodes (32 bytes: box, first child or triangle,
// count and split axis), wide nodes of W children (W = 4: 128 bytes, W = 8:
// 256 bytes; the boxes as structure of arrays, children, counts), blocks of
// four triangles as structure of arrays (a wide leaf's triangles, tested
// together), and the build options with their checks.
#pragma once

#include <sweep/core.hpp>
#include <sweep/raytrace/geometry.hpp>

#include <Kokkos_Core.hpp>

#include <cstdint>

namespace sweep::raytrace {

/// A binary node: internal when count() == 0 (children first, first + 1),
/// else a leaf of triangles [first, first + count()).
struct bvh_node {
  vec3f lo, hi;
  std::int32_t first;
  std::uint32_t meta;  // count << 2 | split axis
  KOKKOS_INLINE_FUNCTION std::int32_t count() const { return std::int32_t(meta >> 2); }
  KOKKOS_INLINE_FUNCTION int axis() const { return int(meta & 3u); }
  KOKKOS_INLINE_FUNCTION bool leaf() const { return count() > 0; }
};

/// A W-wide node. Slot c: count[c] == 0 an inner node child[c], count[c] > 0
/// a leaf of count[c] triangles in the triangle blocks from child[c] on,
/// count[c] < 0 empty (its box empty: lo +inf, hi -inf).
template <int W>
struct bvh_wide_node {
  static constexpr int width = W;
  float lo_x[W], lo_y[W], lo_z[W], hi_x[W], hi_y[W], hi_z[W];
  std::int32_t child[W];
  std::int32_t count[W];
};
using bvh4_node = bvh_wide_node<4>;
using bvh8_node = bvh_wide_node<8>;

/// Up to four triangles of a wide leaf as structure of arrays (one
/// leaf's triangles fill consecutive blocks); prim -1 pads.
struct triangle_block {
  float ax[4], ay[4], az[4], bx[4], by[4], bz[4], cx[4], cy[4], cz[4];
  std::int32_t prim[4];
};

struct bvh_options {
  int max_leaf = 4;       // triangles per leaf (more only past median_depth's limit)
  int bins = 16;          // SAH bins per axis, 2..32
  int median_depth = 48;  // below this depth nodes split at the median (bounds the depth)
};

namespace detail {

constexpr int max_bins = 32;

inline void check_bvh_options(const bvh_options& o) {
  const char* where = "sweep::raytrace::bvh";
  sweep::detail::require(o.max_leaf >= 1 && o.max_leaf <= 64, where, "max_leaf = ", o.max_leaf, " must be in [1, 64]");
  sweep::detail::require(o.bins >= 2 && o.bins <= max_bins, where, "bins = ", o.bins, " must be in [2, ", max_bins, "]");
  sweep::detail::require(o.median_depth >= 1 && o.median_depth <= 64, where, "median_depth = ", o.median_depth,
                         " must be in [1, 64]");
}

}  // namespace detail
}  // namespace sweep::raytrace
