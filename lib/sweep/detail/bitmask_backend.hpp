// The bitmask dispatch point. bitmask_backend<ExecSpace> runs the index's
// parallel loops and its batch operations; the primary template is the
// portable path (RangePolicy loops; pack/unpack by one select per packed
// element, or, for rank_select on a dense mask, a walk of the mask words
// from each word's rank). lib/sweep/host/bitmask_backend.hpp and
// lib/sweep/cuda/bitmask_backend.hpp specialise it. `Traits` is the
// encoding's description (bitmask_index.hpp): `streaming` for rank_select,
// `tree` for the three trees.
#pragma once

#include <sweep/core.hpp>
#include <sweep/tuning.hpp>
#include <sweep/detail/bits.hpp>
#include <sweep/detail/space.hpp>

#include <string>

namespace sweep::detail {

template <class ExecSpace, class Kind = space_kind_t<ExecSpace>>
struct bitmask_backend {
  /// f(i) for i in [0, n), `grain` indices per scheduling chunk (0: the
  /// space's tuning, else Kokkos' choice). f must be a KOKKOS_LAMBDA.
  template <class F>
  static void for_each(const ExecSpace& space, const std::string& label, index_t n, index_t grain, const F& f) {
    if (grain <= 0) grain = tuning<ExecSpace>::bitmask::grain(space, n);
    sweep::detail::range_policy<ExecSpace> policy(space, 0, n);
    if (grain > 0) policy.set_chunk_size(static_cast<int>(grain));
    Kokkos::parallel_for(label, policy, f);
  }

  /// packed(k) = expanded(select(k)) for k in [0, v.ones).
  template <class Traits, class View, class In, class Out>
  static void pack(const ExecSpace& space, const std::string& where, const View& v, const In& expanded,
                   const Out& packed, index_t work_item) {
    if constexpr (Traits::streaming) {
      if (!v.sparse) {
        bitmask_backend<ExecSpace>::for_each(
            space, where, v.mask.n64, 0, KOKKOS_LAMBDA(const index_t j) {
              index_t k = v.rank(64 * j);
              for (std::uint64_t w = v.mask.word(j); w != 0; w &= w - 1) packed(k++) = expanded(64 * j + ctz64(w));
            });
        return;
      }
    }
    bitmask_backend<ExecSpace>::for_each(
        space, where, v.ones, work_item, KOKKOS_LAMBDA(const index_t k) { packed(k) = expanded(v.select(k)); });
  }

  /// expanded(select(k)) = packed(k) for k in [0, v.ones); other positions untouched.
  template <class Traits, class View, class In, class Out>
  static void unpack(const ExecSpace& space, const std::string& where, const View& v, const In& packed,
                     const Out& expanded, index_t work_item) {
    if constexpr (Traits::streaming) {
      if (!v.sparse) {
        bitmask_backend<ExecSpace>::for_each(
            space, where, v.mask.n64, 0, KOKKOS_LAMBDA(const index_t j) {
              index_t k = v.rank(64 * j);
              for (std::uint64_t w = v.mask.word(j); w != 0; w &= w - 1) expanded(64 * j + ctz64(w)) = packed(k++);
            });
        return;
      }
    }
    bitmask_backend<ExecSpace>::for_each(
        space, where, v.ones, work_item, KOKKOS_LAMBDA(const index_t k) { expanded(v.select(k)) = packed(k); });
  }

  /// out(t) = select(queries(t)) (queries checked by the caller).
  template <class Traits, class View, class Queries, class Out>
  static void select(const ExecSpace& space, const std::string& where, const View& v, const Queries& queries,
                     const Out& out) {
    using R = typename Out::value_type;
    bitmask_backend<ExecSpace>::for_each(
        space, where, static_cast<index_t>(queries.extent(0)), 0,
        KOKKOS_LAMBDA(const index_t t) { out(t) = static_cast<R>(v.select(static_cast<index_t>(queries(t)))); });
  }

  /// out(t) = rank(queries(t)) (queries checked by the caller).
  template <class Traits, class View, class Queries, class Out>
  static void rank(const ExecSpace& space, const std::string& where, const View& v, const Queries& queries,
                   const Out& out) {
    using R = typename Out::value_type;
    bitmask_backend<ExecSpace>::for_each(
        space, where, static_cast<index_t>(queries.extent(0)), 0,
        KOKKOS_LAMBDA(const index_t t) { out(t) = static_cast<R>(v.rank(static_cast<index_t>(queries(t)))); });
  }
};

/// f(i) for i in [0, n) on `space` through its backend (see for_each).
template <class ExecSpace, class F>
void bitmask_for(const ExecSpace& space, const std::string& label, index_t n, index_t grain, const F& f) {
  bitmask_backend<ExecSpace>::for_each(space, label, n, grain, f);
}

}  // namespace sweep::detail

#define SWEEP_DISPATCH_BITMASK
#include <sweep/backend.hpp>
