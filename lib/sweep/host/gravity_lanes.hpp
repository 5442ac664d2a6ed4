// The lanes of the host force walk (host/gravity_backend.hpp): a group's
// interaction lists (nodes with their quadrupoles, bodies with their tree
// points) and the sum of both lists for every body of the group, one body
// per lane, in GCC vector extensions compiled for AVX-512F (8 lanes), AVX2
// (4) or SSE2 (2). The formulas are sweep::nbody's accumulator's, written
// with fused multiply-adds (a * b + c rounded once): the AVX-512 and AVX2
// kernels use the FMA instructions, the SSE2 one the C library's fma() per
// lane (exact everywhere, in hardware where the CPU has it), so every
// lane width gives the same bits. 1 / sqrt is Newton's iteration from an
// integer estimate (four steps: a few ulps). A body meets itself in the
// body list (its leaf is always opened): that lane adds nothing there and
// does not count it. The kernel is written once (host/gravity_lanes_body.hpp)
// and included once per level with that level's target, so its helpers
// stay always_inline (also at -O0) and the FMA intrinsics inline into them.
// The kernels are compiled at -O2 whatever the build's level (GCC's
// optimize attribute): at -O0, as in the sanitized Debug build, each
// intrinsic's vector arguments went through the stack and the force walk
// took five times as long.
#pragma once

#include <sweep/host/isa.hpp>
#include <sweep/nbody/bodies.hpp>
#include <sweep/nbody/octree.hpp>

#if SWEEP_HOST_SIMD

#include <algorithm>
#include <cstdint>
#include <cstring>
#if SWEEP_HOST_MULTI
#include <immintrin.h>
#endif
#include <vector>

namespace sweep::nbody::detail {

/// An accepted node as the lanes read it: centre of mass, mass, quadrupole.
struct listed_node {
  double x, y, z, m, xx, xy, xz, yy, yz, zz;
};

/// A body of an opened leaf: position, mass, tree point (-1: another tree's).
struct listed_body {
  double x, y, z, m;
  std::int64_t id;
};

/// What a group sees: the nodes accepted for it and the bodies of the
/// leaves opened for it. The vectors keep their storage between groups.
struct interaction_lists {
  std::vector<listed_node> nodes;
  std::vector<listed_body> bodies;

  void clear() { nodes.clear(), bodies.clear(); }
  void add_node(const tree_node& nd, const quadrupole& q) {
    nodes.push_back({nd.x, nd.y, nd.z, nd.m, q.xx, q.xy, q.xz, q.yy, q.yz, q.zz});
  }
  void add_body(const point& p, std::int64_t id) { bodies.push_back({p.x, p.y, p.z, p.m, id}); }
};

/// A run of bodies of one group: positions and tree points (padded to
/// whole vectors: padding lanes repeat the first body, its point
/// included, so they never meet a body at distance 0 unmasked), and each
/// body's sums.
struct group_state {
  static constexpr int widest = 8;
  int n = 0;
  std::vector<double> px, py, pz, ax, ay, az, phi;
  std::vector<std::int64_t> self;
  std::vector<std::uint32_t> count;

  template <class Mem>
  void load(const body_arrays<Mem>& b, const Kokkos::View<const std::int32_t*, Mem>& slots, bool indirect,
            index_t first, index_t last) {
    n = int(last - first);
    const std::size_t padded = std::size_t((n + widest - 1) / widest * widest);
    for (auto* v : {&px, &py, &pz, &ax, &ay, &az, &phi}) v->resize(padded);
    self.resize(padded);
    count.resize(padded);
    for (std::size_t k = 0; k < padded; ++k) {
      const index_t i = first + index_t(k < std::size_t(n) ? k : 0);
      px[k] = b.x(i), py[k] = b.y(i), pz[k] = b.z(i);
      self[k] = indirect ? std::int64_t(slots(i)) : std::int64_t(i);
    }
  }
};

/// W doubles and W 64-bit integers as GCC vectors.
template <int W>
struct lanes;
template <>
struct lanes<8> {
  typedef double vd __attribute__((vector_size(64)));
  typedef std::int64_t vl __attribute__((vector_size(64)));
};
template <>
struct lanes<4> {
  typedef double vd __attribute__((vector_size(32)));
  typedef std::int64_t vl __attribute__((vector_size(32)));
};
template <>
struct lanes<2> {
  typedef double vd __attribute__((vector_size(16)));
  typedef std::int64_t vl __attribute__((vector_size(16)));
};

using lanes_kernel = void (*)(const interaction_lists&, group_state&, double, bool);

}  // namespace sweep::nbody::detail

#if SWEEP_HOST_MULTI
#define SWEEP_GRAVITY_LEVEL lanes_avx512
#define SWEEP_GRAVITY_WIDTH 8
#define SWEEP_GRAVITY_ATTR target("avx512f,fma"), optimize("O2", "fp-contract=off")
#define SWEEP_GRAVITY_FMADD(a, b, c) (vd) _mm512_fmadd_pd((__m512d)(a), (__m512d)(b), (__m512d)(c))
#define SWEEP_GRAVITY_SET1(a) (vd) _mm512_set1_pd(a)
#include <sweep/host/gravity_lanes_body.hpp>
#undef SWEEP_GRAVITY_LEVEL
#undef SWEEP_GRAVITY_WIDTH
#undef SWEEP_GRAVITY_ATTR
#undef SWEEP_GRAVITY_FMADD
#undef SWEEP_GRAVITY_SET1

#define SWEEP_GRAVITY_LEVEL lanes_avx2
#define SWEEP_GRAVITY_WIDTH 4
#define SWEEP_GRAVITY_ATTR target("avx2,fma"), optimize("O2", "fp-contract=off")
#define SWEEP_GRAVITY_FMADD(a, b, c) (vd) _mm256_fmadd_pd((__m256d)(a), (__m256d)(b), (__m256d)(c))
#define SWEEP_GRAVITY_SET1(a) (vd) _mm256_set1_pd(a)
#include <sweep/host/gravity_lanes_body.hpp>
#undef SWEEP_GRAVITY_LEVEL
#undef SWEEP_GRAVITY_WIDTH
#undef SWEEP_GRAVITY_ATTR
#undef SWEEP_GRAVITY_FMADD
#undef SWEEP_GRAVITY_SET1
#endif

// SSE2 has no FMA instruction: the C library's fma() per lane (the
// arguments are the body's plain references, so naming them twice is safe).
#define SWEEP_GRAVITY_LEVEL lanes_sse2
#define SWEEP_GRAVITY_WIDTH 2
#define SWEEP_GRAVITY_ATTR optimize("O2", "fp-contract=off")
#define SWEEP_GRAVITY_FMADD(a, b, c) \
  vd { __builtin_fma((a)[0], (b)[0], (c)[0]), __builtin_fma((a)[1], (b)[1], (c)[1]) }
#define SWEEP_GRAVITY_SET1(a) \
  vd { a, a }
#include <sweep/host/gravity_lanes_body.hpp>
#undef SWEEP_GRAVITY_LEVEL
#undef SWEEP_GRAVITY_WIDTH
#undef SWEEP_GRAVITY_ATTR
#undef SWEEP_GRAVITY_FMADD
#undef SWEEP_GRAVITY_SET1

namespace sweep::nbody::detail {

/// The widest kernel `level` allows (the wide ones also need FMA, which
/// every CPU with AVX2 known to us has; one without takes SSE2's).
inline lanes_kernel lanes_for(sweep::host::isa level) {
#if SWEEP_HOST_MULTI
  static const bool has_fma = [] {
    __builtin_cpu_init();
    return __builtin_cpu_supports("fma") != 0;
  }();
  if (level == sweep::host::isa::avx512 && has_fma) return &lanes_avx512::sum_lists;
  if (level == sweep::host::isa::avx2 && has_fma) return &lanes_avx2::sum_lists;
#else
  (void)level;
#endif
  return &lanes_sse2::sum_lists;
}

}  // namespace sweep::nbody::detail

#endif
