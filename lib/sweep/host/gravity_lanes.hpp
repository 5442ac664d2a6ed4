// The lanes of the host force walk (host/gravity_backend.hpp): a group's
// interaction lists (nodes with their quadrupoles, bodies with their tree
// points) and the sum of both lists for every body of the group, one body
// per lane, in GCC vector extensions compiled for AVX-512F, AVX2 or SSE2.
// The formulas are sweep::nbody's accumulator's, written with fused
// multiply-adds (a * b + c rounded once): the AVX-512 and AVX2 kernels use
// the FMA instructions, the SSE2 one the C library's fma() per lane (exact
// everywhere, in hardware where the CPU has it), so every lane width gives
// the same bits.
//
// The far field (the accepted nodes) is summed in single precision, 16
// bodies per AVX-512 vector (8 with AVX2, 4 with SSE2): node and body
// positions relative to the group's centre, in units of a power of two at
// least the group's extent (and at least 2^-20 of the largest tree's edge,
// its cells' scale), masses in one at least the largest tree's mass, so the
// scaling itself rounds nothing and the powers of distance the sums form
// stay far from float's limits (in the tree's units, the quadrupole terms
// of a dense core's groups went subnormal, and subnormal operands cost the
// CPU a microcode assist each). Each run of `far_run` nodes is summed in
// float and added to double sums. A group whose single-precision sums are
// not finite (a node of a much smaller tree, another rank's, accepted
// unsoftened at under 1e-7 of the group's unit) is summed again from
// double-precision lists. The near field (the bodies of opened leaves) is summed in double,
// 8, 4 or 2 bodies per vector. 1 / sqrt is Newton's iteration from an
// integer estimate (four steps in double, three in float: a few ulps). A
// body meets itself in the body list (its leaf is always opened): that lane
// adds nothing there and does not count it. The kernel is written once
// (host/gravity_lanes_body.hpp) and included once per level with that
// level's target, so its helpers stay always_inline (also at -O0) and the
// FMA intrinsics inline into them. The kernels are compiled at -O2
// whatever the build's level (GCC's optimize attribute): at -O0, as in the
// sanitized Debug build, each intrinsic's vector arguments went through
// the stack and the force walk took five times as long.
#pragma once

#include <sweep/host/isa.hpp>
#include <sweep/nbody/bodies.hpp>
#include <sweep/nbody/octree.hpp>

#if SWEEP_HOST_SIMD

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <type_traits>
#if SWEEP_HOST_MULTI
#include <immintrin.h>
#endif
#if defined(__x86_64__) || defined(__i386__)
#include <xmmintrin.h>
#endif
#include <vector>

namespace sweep::nbody::detail {

/// An accepted node as the lanes read it: centre of mass, mass, quadrupole.
struct listed_node {
  double x, y, z, m, xx, xy, xz, yy, yz, zz;
};

/// The same in single precision, relative to the group's centre and in the
/// lists' units of length and mass.
struct listed_node_single {
  float x, y, z, m, xx, xy, xz, yy, yz, zz;
};

/// A body of an opened leaf: position, mass, tree point (-1: another tree's).
struct listed_body {
  double x, y, z, m;
  std::int64_t id;
};

/// The units of a group's single-precision far field: powers of two, so
/// scaling by them is exact.
struct far_units {
  double length = 1, mass = 1;

  /// The least power of two at least v (1 where v is not positive and finite).
  static double power_of_two_above(double v) {
    if (!(v > 0) || !std::isfinite(v)) return 1;
    int e = 0;
    (void)std::frexp(v, &e);  // v = f 2^e, 1/2 <= f < 1
    return std::ldexp(1.0, e);
  }
};

/// While it lives, the calling thread's subnormal results are flushed to
/// zero and subnormal operands read as zero (x86's MXCSR FTZ and DAZ; no
/// effect elsewhere). The far field's terms of small quadrupoles far away
/// underflow float; each subnormal operand or result cost a microcode
/// assist (a 10^5-body walk on one thread: 546-638 ms, 427-489 flushed).
/// Every level flushes alike, so the levels still agree bit for bit.
struct flush_subnormals {
#if defined(__x86_64__) || defined(__i386__)
  static constexpr unsigned ftz_daz = 0x8040u;
  unsigned saved = _mm_getcsr();
  flush_subnormals() { _mm_setcsr(saved | ftz_daz); }
  // The two bits as they were; the exception flags raised meanwhile stay.
  ~flush_subnormals() { _mm_setcsr((_mm_getcsr() & ~ftz_daz) | (saved & ftz_daz)); }
#else
  flush_subnormals() = default;
#endif
  flush_subnormals(const flush_subnormals&) = delete;
  flush_subnormals& operator=(const flush_subnormals&) = delete;
};

/// What a group sees: the nodes accepted for it and the bodies of the
/// leaves opened for it. Nodes go to `singles` (relative to `origin`, in
/// `units`), or to `nodes` when `precise` is set. The vectors keep their
/// storage between groups.
struct interaction_lists {
  std::vector<listed_node> nodes;
  std::vector<listed_node_single> singles;
  std::vector<listed_body> bodies;
  bool precise = false;
  double origin[3] = {0, 0, 0};
  far_units units;
  double il = 1, im = 1, iq = 1;  // 1 / length, 1 / mass, 1 / (mass length^2): exact, powers of two

  /// Empties the lists for a group centred at `centre`.
  void start(const double (&centre)[3], const far_units& u, bool precise_nodes) {
    nodes.clear(), singles.clear(), bodies.clear();
    for (int a = 0; a < 3; ++a) origin[a] = centre[a];
    units = u;
    il = 1 / u.length, im = 1 / u.mass, iq = im * il * il;
    precise = precise_nodes;
  }
  void add_node(const tree_node& nd, const quadrupole& q) {
    if (precise) {
      nodes.push_back({nd.x, nd.y, nd.z, nd.m, q.xx, q.xy, q.xz, q.yy, q.yz, q.zz});
      return;
    }
    singles.push_back({float((nd.x - origin[0]) * il), float((nd.y - origin[1]) * il), float((nd.z - origin[2]) * il),
                       float(nd.m * im), float(q.xx * iq), float(q.xy * iq), float(q.xz * iq), float(q.yy * iq),
                       float(q.yz * iq), float(q.zz * iq)});
  }
  void add_body(const point& p, std::int64_t id) { bodies.push_back({p.x, p.y, p.z, p.m, id}); }
};

/// A run of bodies of one group: positions and tree points (padded to
/// whole vectors of floats: padding lanes repeat the first body, its point
/// included, so they never meet a body at distance 0 unmasked and their
/// sums are finite where the first body's are), and each body's sums.
struct group_state {
  static constexpr int widest = 16;
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

/// W doubles and W 64-bit integers as GCC vectors, 2W floats and 2W 32-bit
/// integers in vectors of the same size, and W floats.
template <int W>
struct lanes {
  typedef double vd __attribute__((vector_size(8 * W)));
  typedef std::int64_t vl __attribute__((vector_size(8 * W)));
  typedef float vf __attribute__((vector_size(8 * W)));
  typedef std::int32_t vi __attribute__((vector_size(8 * W)));
  typedef float vh __attribute__((vector_size(4 * W)));
};

/// Sums both lists for every body of the group; false (nothing stored)
/// when the single-precision far field was not finite: the caller lists
/// the nodes again with `precise` set.
using lanes_kernel = bool (*)(const interaction_lists&, group_state&, double, bool);

}  // namespace sweep::nbody::detail

#if SWEEP_HOST_MULTI
#define SWEEP_GRAVITY_LEVEL lanes_avx512
#define SWEEP_GRAVITY_WIDTH 8
#define SWEEP_GRAVITY_ATTR target("avx512f,fma"), optimize("O2", "fp-contract=off")
#define SWEEP_GRAVITY_FMADD(a, b, c) (vd) _mm512_fmadd_pd((__m512d)(a), (__m512d)(b), (__m512d)(c))
#define SWEEP_GRAVITY_SET1(a) (vd) _mm512_set1_pd(a)
#define SWEEP_GRAVITY_FMADDF(a, b, c) (vf) _mm512_fmadd_ps((__m512)(a), (__m512)(b), (__m512)(c))
#define SWEEP_GRAVITY_SET1F(a) (vf) _mm512_set1_ps(a)
#include <sweep/host/gravity_lanes_body.hpp>
#undef SWEEP_GRAVITY_LEVEL
#undef SWEEP_GRAVITY_WIDTH
#undef SWEEP_GRAVITY_ATTR
#undef SWEEP_GRAVITY_FMADD
#undef SWEEP_GRAVITY_SET1
#undef SWEEP_GRAVITY_FMADDF
#undef SWEEP_GRAVITY_SET1F

#define SWEEP_GRAVITY_LEVEL lanes_avx2
#define SWEEP_GRAVITY_WIDTH 4
#define SWEEP_GRAVITY_ATTR target("avx2,fma"), optimize("O2", "fp-contract=off")
#define SWEEP_GRAVITY_FMADD(a, b, c) (vd) _mm256_fmadd_pd((__m256d)(a), (__m256d)(b), (__m256d)(c))
#define SWEEP_GRAVITY_SET1(a) (vd) _mm256_set1_pd(a)
#define SWEEP_GRAVITY_FMADDF(a, b, c) (vf) _mm256_fmadd_ps((__m256)(a), (__m256)(b), (__m256)(c))
#define SWEEP_GRAVITY_SET1F(a) (vf) _mm256_set1_ps(a)
#include <sweep/host/gravity_lanes_body.hpp>
#undef SWEEP_GRAVITY_LEVEL
#undef SWEEP_GRAVITY_WIDTH
#undef SWEEP_GRAVITY_ATTR
#undef SWEEP_GRAVITY_FMADD
#undef SWEEP_GRAVITY_SET1
#undef SWEEP_GRAVITY_FMADDF
#undef SWEEP_GRAVITY_SET1F
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
#define SWEEP_GRAVITY_FMADDF(a, b, c)                                                                          \
  vf {                                                                                                         \
    __builtin_fmaf((a)[0], (b)[0], (c)[0]), __builtin_fmaf((a)[1], (b)[1], (c)[1]),                          \
        __builtin_fmaf((a)[2], (b)[2], (c)[2]), __builtin_fmaf((a)[3], (b)[3], (c)[3])                       \
  }
#define SWEEP_GRAVITY_SET1F(a) \
  vf { a, a, a, a }
#include <sweep/host/gravity_lanes_body.hpp>
#undef SWEEP_GRAVITY_LEVEL
#undef SWEEP_GRAVITY_WIDTH
#undef SWEEP_GRAVITY_ATTR
#undef SWEEP_GRAVITY_FMADD
#undef SWEEP_GRAVITY_SET1
#undef SWEEP_GRAVITY_FMADDF
#undef SWEEP_GRAVITY_SET1F

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
