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

/// Folds load(b..e) in order as four independent chains over four
/// consecutive sub-ranges (more instruction-level parallelism than one
/// chain; the chains are combined in order, so only associativity is used).
template <class Op, class Load, class T = typename Op::value_type>
KOKKOS_INLINE_FUNCTION void fold_lanes(const Op& op, const Load& load, index_t b, index_t e, T lane[4],
                                       index_t& q) {
  q = (e - b) / 4;
  lane[0] = lane[1] = lane[2] = lane[3] = Op::identity();
  for (index_t j = 0; j < q; ++j) {
    lane[0] = op(lane[0], load(b + j));
    lane[1] = op(lane[1], load(b + q + j));
    lane[2] = op(lane[2], load(b + 2 * q + j));
    lane[3] = op(lane[3], load(b + 3 * q + j));
  }
  for (index_t i = b + 4 * q; i < e; ++i) lane[3] = op(lane[3], load(i));
}

/// Fold of load(b..e) in order.
template <class Op, class Load, class T = typename Op::value_type>
KOKKOS_INLINE_FUNCTION T serial_fold(const Op& op, const Load& load, index_t b, index_t e) {
  T lane[4];
  index_t q;
  fold_lanes(op, load, b, e, lane, q);
  return op(op(lane[0], lane[1]), op(lane[2], lane[3]));
}

/// Scan of load(b..e) from `prefix`, four chains at once; returns prefix
/// (+) everything.
template <class Op, class Load, class Store, class T = typename Op::value_type>
KOKKOS_INLINE_FUNCTION T serial_scan(const Op& op, const T& prefix, bool exclusive, const Load& load,
                                     const Store& store, index_t b, index_t e) {
  T lane[4];
  index_t q;
  fold_lanes(op, load, b, e, lane, q);
  T run[4];
  run[0] = prefix;
  run[1] = op(run[0], lane[0]);
  run[2] = op(run[1], lane[1]);
  run[3] = op(run[2], lane[2]);
  const T total = op(run[3], lane[3]);
  for (index_t j = 0; j < q; ++j) {
    for (int k = 0; k < 4; ++k) {
      const index_t i = b + k * q + j;
      const T next = op(run[k], load(i));
      store(i, exclusive ? run[k] : next);
      run[k] = next;
    }
  }
  for (index_t i = b + 4 * q; i < e; ++i) {
    const T next = op(run[3], load(i));
    store(i, exclusive ? run[3] : next);
    run[3] = next;
  }
  return total;
}

/// Fold of load(0..count) in order; every thread gets the result.
/// `parts` is team scratch of team_scan_scratch_elems entries.
template <class Team, class Op, class Load, class T = typename Op::value_type>
KOKKOS_INLINE_FUNCTION T team_reduce_range(const Team& team, index_t count, const Op& op, const Load& load,
                                           T* parts) {
  index_t b, e;
  team_piece(team, count, b, e);
  const T acc = serial_fold(op, load, b, e);
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
  if (nt == 1) return serial_scan(op, prefix, exclusive, load, store, b, e);
  T run = prefix;
  T total{};
  {
    parts[team.team_rank()] = serial_fold(op, load, b, e);
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
  serial_scan(op, run, exclusive, load, store, b, e);
  team.team_barrier();
  return total;
}

}  // namespace sweep::detail
