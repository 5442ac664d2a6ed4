// Team-level scan and reduce of a range with any monoid, used by the tiled
// and single-pass scans and by sweep::team_*_scan. Each thread of the team
// folds a contiguous piece; the pieces' totals are scanned in order by one
// thread; each thread then rescans its piece from its base. Work O(count +
// team_size), two barriers; only associativity of op is used.
#pragma once

#include <sweep/core.hpp>

namespace sweep::detail {

/// Scratch a team needs for these routines: team_size + 1 values.
template <class T>
KOKKOS_INLINE_FUNCTION constexpr std::size_t team_scan_scratch_elems(int team_size) {
  return static_cast<std::size_t>(team_size) + 1;
}

template <class Team>
KOKKOS_INLINE_FUNCTION void team_piece(const Team& team, index_t count, index_t& begin, index_t& end) {
  const index_t nt = team.team_size();
  const index_t per = (count + nt - 1) / nt;
  begin = team.team_rank() * per;
  if (begin > count) begin = count;
  end = begin + per;
  if (end > count) end = count;
}

/// Fold of load(0..count) in order; every thread gets the result.
/// `parts` is team scratch of team_scan_scratch_elems entries.
template <class Team, class Op, class Load, class T = typename Op::value_type>
KOKKOS_INLINE_FUNCTION T team_reduce_range(const Team& team, index_t count, const Op& op, const Load& load,
                                           T* parts) {
  index_t b, e;
  team_piece(team, count, b, e);
  T acc = Op::identity();
  for (index_t i = b; i < e; ++i) acc = op(acc, load(i));
  const int nt = team.team_size();
  if (nt == 1) return acc;
  parts[team.team_rank()] = acc;
  team.team_barrier();
  if (team.team_rank() == 0) {
    T total = parts[0];
    for (int t = 1; t < nt; ++t) total = op(total, parts[t]);
    parts[nt] = total;
  }
  team.team_barrier();
  T total = parts[nt];
  team.team_barrier();
  return total;
}

/// Scans load(0..count) starting from `prefix`, calling store(i, v) with the
/// inclusive (or exclusive) running value; returns prefix (+) everything.
template <class Team, class Op, class Load, class Store, class T = typename Op::value_type>
KOKKOS_INLINE_FUNCTION T team_scan_range(const Team& team, index_t count, const Op& op, const T& prefix,
                                         bool exclusive, const Load& load, const Store& store, T* parts) {
  index_t b, e;
  team_piece(team, count, b, e);
  const int nt = team.team_size();
  T run = prefix;
  T total{};
  if (nt > 1) {
    T acc = Op::identity();
    for (index_t i = b; i < e; ++i) acc = op(acc, load(i));
    parts[team.team_rank()] = acc;
    team.team_barrier();
    if (team.team_rank() == 0) {
      T sum = Op::identity();
      for (int t = 0; t < nt; ++t) {
        T piece = parts[t];
        parts[t] = sum;
        sum = op(sum, piece);
      }
      parts[nt] = sum;
    }
    team.team_barrier();
    run = op(prefix, parts[team.team_rank()]);
    total = op(prefix, parts[nt]);
  }
  for (index_t i = b; i < e; ++i) {
    T next = op(run, load(i));
    store(i, exclusive ? run : next);
    run = next;
  }
  if (nt > 1) {
    team.team_barrier();
    return total;
  }
  return run;
}

}  // namespace sweep::detail
