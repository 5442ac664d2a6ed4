// Team-level scan and reduce of a range with any monoid, used by the tiled
// and single-pass scans and by sweep::team_*_scan. Each thread of the team
// folds a contiguous piece; the pieces' totals are scanned in order, by one
// thread or through a scan network (one wire per thread); each thread then
// rescans its piece from its base. Work O(count + team_size); only
// associativity of op is used.
#pragma once

#include <sweep/core.hpp>
#include <sweep/scan_network.hpp>
#include <sweep/team_network_choice.hpp>
#include <sweep/detail/workspace.hpp>

#include <map>
#include <mutex>
#include <type_traits>
#include <vector>

namespace sweep::detail {

/// No network: one thread scans the per-thread partials in order.
struct no_network {};

/// A scan network in device-accessible memory: step s is the operations
/// [begin(s), begin(s+1)) of dst/src. Runs over a team's per-thread
/// partials (one wire per thread) with a barrier between steps.
template <class Mem>
struct network_view {
  Kokkos::View<std::int32_t*, Mem> begin, dst, src;
  std::int32_t steps = 0;
  std::int32_t wires = 0;
};

/// Copies a forward network to memory space Mem.
template <class Mem>
network_view<Mem> upload_network(const scan_network& net) {
  require(net.direction == direction::forward, "sweep::detail::upload_network", "team networks run forward");
  std::vector<std::int32_t> b{0}, d, s;
  for (const auto& step : net.steps) {
    for (auto op : step) d.push_back(op.dst), s.push_back(op.src);
    b.push_back(static_cast<std::int32_t>(d.size()));
  }
  auto put = [](const std::vector<std::int32_t>& v, const char* label) {
    Kokkos::View<std::int32_t*, Mem> out(std::string(label), v.size());
    auto h = Kokkos::create_mirror_view(out);
    for (std::size_t i = 0; i < v.size(); ++i) h(i) = v[i];
    Kokkos::deep_copy(out, h);
    return out;
  };
  network_view<Mem> view;
  view.begin = put(b, "sweep::team_network::begin");
  view.dst = put(d, "sweep::team_network::dst");
  view.src = put(s, "sweep::team_network::src");
  view.steps = static_cast<std::int32_t>(net.steps.size());
  view.wires = net.n;
  return view;
}

/// The automatic choice for `team_size` threads (chosen_team_network under
/// tuned_network_costs<ExecSpace>()) uploaded to ExecSpace's memory once
/// per team size and kept until Kokkos::finalize, so scans do not copy it
/// to the device on every call. Thread-safe.
template <class ExecSpace>
network_view<typename ExecSpace::memory_space> uploaded_team_network(std::int32_t team_size) {
  using Mem = typename ExecSpace::memory_space;
  // Never destroyed (as the workspace pool): the finalize hook may run from
  // the exit handlers, after later statics are gone.
  static std::mutex* const lock = new std::mutex();
  static auto* const uploaded = new std::map<std::int32_t, network_view<Mem>>();
  const std::lock_guard<std::mutex> guard(*lock);
  auto at = uploaded->find(team_size);
  if (at == uploaded->end()) {
    // Views must not outlive Kokkos: the kept copies go at finalize.
    if (uploaded->empty()) on_finalize([] {
        const std::lock_guard<std::mutex> g(*lock);
        uploaded->clear();
      });
    at = uploaded
             ->emplace(team_size,
                      upload_network<Mem>(chosen_team_network(team_size, tuned_network_costs<ExecSpace>())))
             .first;
  }
  return at->second;
}

/// The network the portable team kernels run over their partials: the one
/// choose_team_network() picks under ExecSpace's measured costs
/// (tuning<S>::team_network) when a team has several threads, none
/// otherwise.
template <class ExecSpace, int TeamSize>
using team_network_t =
    std::conditional_t<(TeamSize > 1), network_view<typename ExecSpace::memory_space>, no_network>;

template <class ExecSpace, int TeamSize>
team_network_t<ExecSpace, TeamSize> make_partials_network(int team_size = TeamSize) {
  if constexpr (TeamSize > 1) {
    return uploaded_team_network<ExecSpace>(team_size);
  } else {
    (void)team_size;
    return {};
  }
}

/// The team size of a portable scan kernel of ExecSpace: `tuned`, halved
/// while a team's level-0 scratch, scratch_bytes(team size), is more than
/// the space lets a team take (TeamPolicy::scratch_size_max(0): 40 KiB on
/// CUDA), so wide values run with smaller teams. Throws
/// std::invalid_argument when even one thread's does not fit. One-thread
/// teams (host spaces) are left alone: their scratch is ordinary memory.
template <class ExecSpace, class ScratchBytes>
int fitted_team_size(int tuned, const ScratchBytes& scratch_bytes, const char* what) {
  if (tuned <= 1) return tuned;
  const auto limit = static_cast<std::size_t>(Kokkos::TeamPolicy<ExecSpace>::scratch_size_max(0));
  int ts = tuned;
  while (ts > 1 && scratch_bytes(ts) > limit) ts /= 2;
  require(scratch_bytes(ts) <= limit, what, "a team scan of this value type needs ", scratch_bytes(ts),
          " bytes of team scratch; ", ExecSpace::name(), " gives a team at most ", limit,
          " (the blelloch algorithm scans any value size)");
  return ts;
}

/// Turns parts[0..nt) into exclusive prefixes with parts[nt] the total.
template <class Team, class Op, class T>
KOKKOS_INLINE_FUNCTION void scan_partials(const Team& team, const Op& op, T* parts, const no_network&) {
  const int nt = team.team_size();
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
}

template <class Team, class Op, class T, class Mem>
KOKKOS_INLINE_FUNCTION void scan_partials(const Team& team, const Op& op, T* parts, const network_view<Mem>& net) {
  const int nt = team.team_size();
  const int rank = team.team_rank();
  // Each step: every operation reads both wires, barrier, then writes.
  for (std::int32_t s = 0; s < net.steps; ++s) {
    const std::int32_t first = net.begin(s), last = net.begin(s + 1);
    const std::int32_t k = first + rank;
    T value{};
    const bool mine = k < last;
    if (mine) value = op(parts[net.src(k)], parts[net.dst(k)]);
    team.team_barrier();
    if (mine) parts[net.dst(k)] = value;
    team.team_barrier();
    // Networks wider than the team are not used: ops per step <= wires = nt.
  }
  // Inclusive -> exclusive, total in parts[nt].
  const T incl = parts[rank];
  const T excl = rank == 0 ? Op::identity() : parts[rank - 1];
  team.team_barrier();
  parts[rank] = excl;
  if (rank == nt - 1) parts[nt] = incl;
  team.team_barrier();
}

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
template <class Team, class Op, class Load, class Store, class Net = no_network, class T = typename Op::value_type>
KOKKOS_INLINE_FUNCTION T team_scan_range(const Team& team, index_t count, const Op& op, const T& prefix,
                                         bool exclusive, const Load& load, const Store& store, T* parts,
                                         const Net& net = Net{}) {
  index_t b, e;
  team_piece(team, count, b, e);
  const int nt = team.team_size();
  if (nt == 1) return serial_scan(op, prefix, exclusive, load, store, b, e);
  T run = prefix;
  T total{};
  {
    parts[team.team_rank()] = serial_fold(op, load, b, e);
    team.team_barrier();
    scan_partials(team, op, parts, net);
    run = op(prefix, parts[team.team_rank()]);
    total = op(prefix, parts[nt]);
  }
  serial_scan(op, run, exclusive, load, store, b, e);
  team.team_barrier();
  return total;
}

}  // namespace sweep::detail
