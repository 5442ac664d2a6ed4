// What the traversal kernels share: the device-side handle of a bvh, the
// single-ray stack entry, how a candidate hit is taken, a triangle of a
// four-triangle block.
#pragma once

#include <sweep/detail/bits.hpp>
#include <sweep/raytrace/bvh.hpp>
#include <sweep/raytrace/geometry.hpp>
#include <sweep/tuning.hpp>

#include <Kokkos_Core.hpp>

#include <cstdint>

namespace sweep::raytrace::detail {

/// The wide BVH's width for bvhs in memory space Mem: its execution
/// space's (bvh<ExecSpace>::wide_width; every host space has the same).
template <class Mem>
constexpr int wide_width_of = tuning<typename Mem::execution_space>::raytrace::wide_width;

/// The device-side handle of a bvh.
template <class Mem>
struct bvh_view {
  static constexpr int wide_width = wide_width_of<Mem>;
  Kokkos::View<const bvh_node*, Mem> nodes;
  Kokkos::View<const bvh_wide_node<wide_width>*, Mem> wide;
  Kokkos::View<const triangle*, Mem> tris;
  Kokkos::View<const std::int32_t*, Mem> ids;
  Kokkos::View<const triangle_block*, Mem> blocks;
  Kokkos::View<const std::int32_t*, Mem> leaf_blocks;  // first block of each binary leaf
};

using sweep::detail::ctz64;
using sweep::detail::popcount64;

struct stack_entry {
  std::int32_t ref;    // wide node, or first triangle block of a leaf
  std::int32_t count;  // 0: node, > 0: leaf
  float t;             // entry distance
};

/// Takes lane `lane`'s candidate distance t (or +inf) of a block; true when
/// an any-hit query is done.
template <bool Any>
KOKKOS_INLINE_FUNCTION bool take(float t, float u, float v, std::int32_t prim, hit& h) {
  if (t == __builtin_huge_valf() || prim < 0) return false;
  if (Any) {
    h = hit{t, u, v, prim};
    return true;
  }
  if (closer(t, prim, h.t, h.prim)) h = hit{t, u, v, prim};
  return false;
}

KOKKOS_INLINE_FUNCTION triangle block_triangle(const triangle_block& k, int lane) {
  return triangle{vec3f{k.ax[lane], k.ay[lane], k.az[lane]}, vec3f{k.bx[lane], k.by[lane], k.bz[lane]},
                  vec3f{k.cx[lane], k.cy[lane], k.cz[lane]}};
}

KOKKOS_INLINE_FUNCTION int lowest_bit32(int m) { return ctz64(std::uint64_t(unsigned(m))); }

}  // namespace sweep::raytrace::detail
