// Domain decomposition of an N-body system spread over the ranks of a
// communicator: which rank owns which body, by work, and the one exchange
// that moves the bodies there.
//
//   auto box = sweep::mpi::nbody::global_box(comm, space, bodies);
//   auto owner = sweep::mpi::nbody::owners(comm, space, scheme, bodies, box);
//   auto moved = sweep::mpi::nbody::migrate(comm, space, bodies, owner);
//
// A body's work is the interaction count its last force evaluation
// recorded (`cost`; 1 without a record), as in sweep::nbody's partitions.
//
//   costzones    the bodies in global space-filling-curve order (63-bit
//                Morton keys in the cube around the global bounding box),
//                cut into P contiguous key ranges of equal work: rank r
//                owns the keys in [x_r, x_{r+1}), where x_r is the key at
//                which the running work (all ranks' bodies in key order)
//                crosses r W / P.
//   orb          orthogonal recursive bisection: the ranks [r0, r1) of a
//                group split into [r0, m) and [m, r1), m = r0 + (r1 - r0)
//                / 2 (any P, not only powers of two); the group's bodies
//                are cut across the longest side of their bounding box
//                where the running work crosses (m - r0) / (r1 - r0) of the
//                group's, until every group is one rank.
//   equal_count  "static": the costzones cut with every body weighing 1.
//
// Both cuts are distributed selections: the key (or coordinate, as an
// order-preserving 64-bit key) where a group's running work crosses a
// target is found 8 bits at a time from the top, each round one weighted
// histogram of 256 buckets per open range (ranges of different cuts that
// share their leading bits are counted once), summed over the ranks by one
// MPI_Allreduce; 8 rounds give the exact key. Bodies whose key equals a
// cut go to the upper side, so bodies with equal keys stay together.
//
// Cost per decomposition: costzones and static 8 passes over the local
// bodies and 8 MPI_Allreduce of at most 256 (P - 1) counts; orb per
// level of bisection (ceil(log2 P) levels) one more pass for the groups'
// boxes and 8 passes and reductions of 256 counts per group. migrate: one
// radix sort of the owners, one MPI_Alltoall of counts and one
// MPI_Alltoallv of 64-byte records (mass, position, velocity, id), skipped
// (one more MPI_Allreduce) when no body changes rank.
//
// Bodies with equal keys (coordinates) fall on one side of a cut, so a
// rank's work exceeds its share by at most the work of the bodies sharing
// the key at its cut (one body's when keys differ).
//
// Errors: scheme::random has no distributed form (std::invalid_argument
// on every rank, raised by the callers that check their options).
#pragma once

#include <sweep/mpi/core.hpp>
#include <sweep/nbody/bodies.hpp>
#include <sweep/nbody/octree.hpp>
#include <sweep/nbody/partition.hpp>
#include <sweep/sort.hpp>

#include <Kokkos_Core.hpp>

#include <algorithm>
#include <array>
#include <bit>
#include <cstring>
#include <cstdint>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

namespace sweep::mpi::nbody {

namespace nb = sweep::nbody;

namespace detail {
using sweep::mpi::detail::agree;
using sweep::mpi::detail::alltoallv;
using sweep::mpi::detail::as_count;
using sweep::mpi::detail::bytes_type;
using sweep::mpi::detail::check_mpi;
using sweep::mpi::detail::checked;
using sweep::mpi::detail::comm_rank;
using sweep::mpi::detail::comm_size;
using sweep::mpi::detail::range;
using sweep::mpi::detail::require_comm;
using sweep::mpi::detail::require_same;
}  // namespace detail

/// The bounding box of every rank's bodies (collective). An empty rank adds
/// nothing; with no bodies anywhere lo > hi.
template <class ExecSpace, class Mem>
nb::box global_box(MPI_Comm comm, const ExecSpace& space, const nb::body_arrays<Mem>& b) {
  const nb::box local = nb::bounding_box(space, b);
  double mine[6], all[6];
  for (int a = 0; a < 3; ++a) mine[a] = local.lo[a], mine[3 + a] = -local.hi[a];
  detail::check_mpi(MPI_Allreduce(mine, all, 6, MPI_DOUBLE, MPI_MIN, comm), "MPI_Allreduce");
  nb::box out;
  for (int a = 0; a < 3; ++a) out.lo[a] = all[a], out.hi[a] = -all[3 + a];
  return out;
}

/// What one migration moved (this rank's part).
struct migration_report {
  index_t sent = 0, received = 0;  ///< bodies sent to and received from other ranks
  std::uint64_t bytes_sent = 0, bytes_received = 0;
};

namespace detail {

/// Order-preserving 64-bit key of a double (finite values; -0 < +0).
KOKKOS_INLINE_FUNCTION std::uint64_t ordered(double v) {
  std::uint64_t u;
  std::memcpy(&u, &v, sizeof u);
  return (u >> 63) ? ~u : (u | (std::uint64_t(1) << 63));
}

inline double from_ordered(std::uint64_t k) {
  return std::bit_cast<double>((k >> 63) ? (k & ~(std::uint64_t(1) << 63)) : ~k);
}

/// One cut: in group `group`, the smallest key x whose running work
/// W(key <= x) exceeds floor(W_group num / den).
struct cut_request {
  std::int32_t group = 0;
  std::uint64_t num = 0, den = 1;
};

/// floor(total num / den) without overflow (num <= den).
inline std::uint64_t scaled(std::uint64_t total, std::uint64_t num, std::uint64_t den) {
  return total / den * num + (total % den) * num / den;
}

/// The cuts of `requests` over every rank's (group, key, weight) triples
/// (collective; see the header). `groups` empty: every body is in group 0.
/// A cut whose target is the group's whole work (or more) is ~0.
template <class ExecSpace, class Mem>
std::vector<std::uint64_t> select_cuts(MPI_Comm comm, const ExecSpace& space,
                                       const Kokkos::View<const std::uint64_t*, Mem>& keys,
                                       const Kokkos::View<const std::int32_t*, Mem>& groups,
                                       const Kokkos::View<const std::uint64_t*, Mem>& weights,
                                       const std::vector<cut_request>& requests) {
  const std::size_t s_count = requests.size();
  const index_t n = index_t(keys.extent(0));
  std::vector<std::uint64_t> lo(s_count, 0), below(s_count, 0), target(s_count, 0);
  std::vector<bool> done(s_count, false);
  using range_key = std::pair<std::int32_t, std::uint64_t>;
  for (int round = 0; round < 8; ++round) {
    const int shift = 56 - 8 * round;
    // Keys agree with a range on the bits above this round's byte.
    const std::uint64_t high = round == 0 ? 0 : ~((std::uint64_t(1) << (shift + 8)) - 1);
    std::vector<range_key> ranges;
    for (std::size_t s = 0; s < s_count; ++s)
      if (!done[s]) ranges.push_back({requests[s].group, lo[s]});
    std::sort(ranges.begin(), ranges.end());
    ranges.erase(std::unique(ranges.begin(), ranges.end()), ranges.end());
    const index_t nr = index_t(ranges.size());
    if (nr == 0) break;  // the same on every rank: the requests and their outcomes are global
    Kokkos::View<std::int32_t*, Kokkos::HostSpace> hg("sweep::mpi::nbody::cut_groups_host", nr);
    Kokkos::View<std::uint64_t*, Kokkos::HostSpace> hl("sweep::mpi::nbody::cut_ranges_host", nr);
    for (index_t r = 0; r < nr; ++r) hg(r) = ranges[std::size_t(r)].first, hl(r) = ranges[std::size_t(r)].second;
    Kokkos::View<std::int32_t*, Mem> rg("sweep::mpi::nbody::cut_groups", nr);
    Kokkos::View<std::uint64_t*, Mem> rl("sweep::mpi::nbody::cut_ranges", nr);
    Kokkos::deep_copy(space, rg, hg);
    Kokkos::deep_copy(space, rl, hl);
    Kokkos::View<std::uint64_t*, Mem> hist("sweep::mpi::nbody::cut_histogram", nr * 256);
    const bool grouped = groups.extent(0) > 0;
    Kokkos::parallel_for(
        "sweep::mpi::nbody::cut_histogram", range<ExecSpace>(space, 0, n), KOKKOS_LAMBDA(const index_t i) {
          const std::int32_t g = grouped ? groups(i) : 0;
          const std::uint64_t k = keys(i), start = k & high;
          index_t a = 0, b = nr;  // first range not below (g, start)
          while (a < b) {
            const index_t mid = a + (b - a) / 2;
            if (rg(mid) < g || (rg(mid) == g && rl(mid) < start)) a = mid + 1;
            else b = mid;
          }
          if (a < nr && rg(a) == g && rl(a) == start)
            Kokkos::atomic_add(&hist(a * 256 + index_t((k >> shift) & 255u)), weights(i));
        });
    auto local = Kokkos::create_mirror_view(Kokkos::HostSpace(), hist);
    Kokkos::deep_copy(space, local, hist);
    space.fence();
    std::vector<std::uint64_t> sum(std::size_t(nr) * 256);
    check_mpi(MPI_Allreduce(local.data(), sum.data(), int(sum.size()), MPI_UINT64_T, MPI_SUM, comm), "MPI_Allreduce");
    for (std::size_t s = 0; s < s_count; ++s) {
      if (done[s]) continue;
      const auto at = std::size_t(std::lower_bound(ranges.begin(), ranges.end(), range_key{requests[s].group, lo[s]}) -
                                  ranges.begin());
      const std::uint64_t* h = sum.data() + at * 256;
      if (round == 0) {
        std::uint64_t total = 0;
        for (int j = 0; j < 256; ++j) total += h[j];
        target[s] = scaled(total, requests[s].num, requests[s].den);
      }
      std::uint64_t run = below[s];
      int j = 0;
      while (j < 256 && run + h[j] <= target[s]) run += h[j++];
      if (j == 256) {
        lo[s] = ~std::uint64_t(0);
        done[s] = true;
        continue;
      }
      below[s] = run;
      lo[s] |= std::uint64_t(j) << shift;
    }
  }
  return lo;
}

/// Work of a body for a scheme: its recorded interactions (1 without a
/// record), or 1 for static.
template <class ExecSpace, class Mem>
Kokkos::View<std::uint64_t*, Mem> body_weights(const ExecSpace& space, const nb::body_arrays<Mem>& b, bool by_cost) {
  Kokkos::View<std::uint64_t*, Mem> w(Kokkos::view_alloc(Kokkos::WithoutInitializing, "sweep::mpi::nbody::weights"),
                                      b.size());
  const auto cost = b.cost;
  Kokkos::parallel_for(
      "sweep::mpi::nbody::weights", range<ExecSpace>(space, 0, b.size()), KOKKOS_LAMBDA(const index_t i) {
        w(i) = by_cost && cost(i) > 0 ? std::uint64_t(cost(i)) : std::uint64_t(1);
      });
  return w;
}

/// Owners along the space-filling curve: rank = the number of cuts at or
/// below a body's Morton key.
template <class ExecSpace, class Mem>
Kokkos::View<std::uint32_t*, Mem> curve_owners(MPI_Comm comm, const ExecSpace& space, const nb::body_arrays<Mem>& b,
                                               const nb::box& global, bool by_cost) {
  const int size = comm_size(comm);
  const index_t n = b.size();
  Kokkos::View<std::uint64_t*, Mem> keys(Kokkos::view_alloc(Kokkos::WithoutInitializing, "sweep::mpi::nbody::keys"), n);
  Kokkos::parallel_for("sweep::mpi::nbody::keys", range<ExecSpace>(space, 0, n),
                       nb::detail::morton_codes<Mem>{b.x, b.y, b.z, keys, nb::detail::enclosing_cube(global)});
  const auto w = body_weights(space, b, by_cost);
  std::vector<cut_request> req;
  for (int r = 1; r < size; ++r) req.push_back({0, std::uint64_t(r), std::uint64_t(size)});
  const auto cuts = select_cuts<ExecSpace, Mem>(comm, space, keys, {}, w, req);
  Kokkos::View<std::uint64_t*, Kokkos::HostSpace> hc("sweep::mpi::nbody::cuts_host", cuts.size());
  for (std::size_t r = 0; r < cuts.size(); ++r) hc(r) = cuts[r];
  Kokkos::View<std::uint64_t*, Mem> dc("sweep::mpi::nbody::cuts", cuts.size());
  Kokkos::deep_copy(space, dc, hc);
  Kokkos::View<std::uint32_t*, Mem> owner(Kokkos::view_alloc(Kokkos::WithoutInitializing, "sweep::mpi::nbody::owner"),
                                          n);
  const index_t nc = index_t(cuts.size());
  Kokkos::parallel_for(
      "sweep::mpi::nbody::curve_owner", range<ExecSpace>(space, 0, n), KOKKOS_LAMBDA(const index_t i) {
        index_t a = 0, e = nc;  // cuts <= key
        while (a < e) {
          const index_t mid = a + (e - a) / 2;
          if (dc(mid) <= keys(i)) a = mid + 1;
          else e = mid;
        }
        owner(i) = std::uint32_t(a);
      });
  return owner;
}

/// Owners by orthogonal recursive bisection over the ranks (see the header).
template <class ExecSpace, class Mem>
Kokkos::View<std::uint32_t*, Mem> orb_owners(MPI_Comm comm, const ExecSpace& space, const nb::body_arrays<Mem>& b) {
  const int size = comm_size(comm);
  const index_t n = b.size();
  // A body's label: the first rank of its group.
  Kokkos::View<std::uint32_t*, Mem> label("sweep::mpi::nbody::orb_label", n);
  const auto w = body_weights(space, b, true);
  Kokkos::View<std::uint64_t*, Mem> keys(Kokkos::view_alloc(Kokkos::WithoutInitializing, "sweep::mpi::nbody::orb_keys"),
                                         n);
  Kokkos::View<std::int32_t*, Mem> group(Kokkos::view_alloc(Kokkos::WithoutInitializing, "sweep::mpi::nbody::orb_group"),
                                         n);
  std::vector<std::pair<int, int>> groups{{0, size}};  // [r0, r1), every group of the current level
  while (true) {
    std::vector<std::pair<int, int>> split;
    for (const auto& g : groups)
      if (g.second - g.first > 1) split.push_back(g);
    if (split.empty()) break;
    const index_t ng = index_t(split.size());
    // Group index of each label (ranks not starting a splitting group: -1).
    Kokkos::View<std::int32_t*, Kokkos::HostSpace> hslot("sweep::mpi::nbody::orb_slot_host", size);
    Kokkos::deep_copy(hslot, -1);
    for (index_t k = 0; k < ng; ++k) hslot(split[std::size_t(k)].first) = std::int32_t(k);
    Kokkos::View<std::int32_t*, Mem> slot("sweep::mpi::nbody::orb_slot", size);
    Kokkos::deep_copy(space, slot, hslot);
    // The groups' bounding boxes (order-preserving keys, so integer atomics).
    Kokkos::View<std::uint64_t*, Mem> ext("sweep::mpi::nbody::orb_extent", ng * 6);
    {
      auto h = Kokkos::create_mirror_view(Kokkos::HostSpace(), ext);
      for (index_t k = 0; k < ng * 6; ++k) h(k) = k % 6 < 3 ? ~std::uint64_t(0) : 0;
      Kokkos::deep_copy(space, ext, h);
    }
    Kokkos::parallel_for(
        "sweep::mpi::nbody::orb_extent", range<ExecSpace>(space, 0, n), KOKKOS_LAMBDA(const index_t i) {
          const std::int32_t g = slot(label(i));
          group(i) = g;
          if (g < 0) return;
          const std::uint64_t k[3] = {ordered(b.x(i)), ordered(b.y(i)), ordered(b.z(i))};
          for (int a = 0; a < 3; ++a) {
            Kokkos::atomic_fetch_min(&ext(g * 6 + a), k[a]);
            Kokkos::atomic_fetch_max(&ext(g * 6 + 3 + a), k[a]);
          }
        });
    auto hext = Kokkos::create_mirror_view(Kokkos::HostSpace(), ext);
    Kokkos::deep_copy(space, hext, ext);
    space.fence();
    std::vector<std::uint64_t> lo_mine(std::size_t(ng) * 3), hi_mine(std::size_t(ng) * 3), lo(lo_mine.size()),
        hi(hi_mine.size());
    for (index_t k = 0; k < ng; ++k)
      for (int a = 0; a < 3; ++a) lo_mine[std::size_t(k * 3 + a)] = hext(k * 6 + a), hi_mine[std::size_t(k * 3 + a)] = hext(k * 6 + 3 + a);
    check_mpi(MPI_Allreduce(lo_mine.data(), lo.data(), int(lo.size()), MPI_UINT64_T, MPI_MIN, comm), "MPI_Allreduce");
    check_mpi(MPI_Allreduce(hi_mine.data(), hi.data(), int(hi.size()), MPI_UINT64_T, MPI_MAX, comm), "MPI_Allreduce");
    // The cut axis of each group: the longest side of its box (the first
    // on ties; axis 0 for a group without bodies).
    Kokkos::View<std::int32_t*, Kokkos::HostSpace> haxis("sweep::mpi::nbody::orb_axis_host", ng);
    std::vector<cut_request> req;
    for (index_t k = 0; k < ng; ++k) {
      int best = 0;
      double longest = -1;
      for (int a = 0; a < 3; ++a) {
        const std::size_t at = std::size_t(k * 3 + a);
        if (lo[at] > hi[at]) continue;
        const double side = from_ordered(hi[at]) - from_ordered(lo[at]);
        if (side > longest) longest = side, best = a;
      }
      haxis(k) = best;
      const auto& g = split[std::size_t(k)];
      req.push_back({std::int32_t(k), std::uint64_t((g.second - g.first) / 2), std::uint64_t(g.second - g.first)});
    }
    Kokkos::View<std::int32_t*, Mem> axis("sweep::mpi::nbody::orb_axis", ng);
    Kokkos::deep_copy(space, axis, haxis);
    Kokkos::parallel_for(
        "sweep::mpi::nbody::orb_keys", range<ExecSpace>(space, 0, n), KOKKOS_LAMBDA(const index_t i) {
          const std::int32_t g = group(i);
          if (g < 0) {
            keys(i) = 0;
            return;
          }
          const int a = axis(g);
          keys(i) = ordered(a == 0 ? b.x(i) : (a == 1 ? b.y(i) : b.z(i)));
        });
    const auto cuts = select_cuts<ExecSpace, Mem>(comm, space, keys, group, w, req);
    // The upper side of each cut moves to its group's second half.
    Kokkos::View<std::uint64_t*, Kokkos::HostSpace> hcut("sweep::mpi::nbody::orb_cuts_host", ng);
    Kokkos::View<std::uint32_t*, Kokkos::HostSpace> hmid("sweep::mpi::nbody::orb_mid_host", ng);
    for (index_t k = 0; k < ng; ++k) {
      const auto& g = split[std::size_t(k)];
      hcut(k) = cuts[std::size_t(k)];
      hmid(k) = std::uint32_t(g.first + (g.second - g.first) / 2);
    }
    Kokkos::View<std::uint64_t*, Mem> dcut("sweep::mpi::nbody::orb_cuts", ng);
    Kokkos::View<std::uint32_t*, Mem> dmid("sweep::mpi::nbody::orb_mid", ng);
    Kokkos::deep_copy(space, dcut, hcut);
    Kokkos::deep_copy(space, dmid, hmid);
    Kokkos::parallel_for(
        "sweep::mpi::nbody::orb_split", range<ExecSpace>(space, 0, n), KOKKOS_LAMBDA(const index_t i) {
          const std::int32_t g = group(i);
          if (g >= 0 && keys(i) >= dcut(g)) label(i) = dmid(g);
        });
    std::vector<std::pair<int, int>> next;
    for (const auto& g : groups) {
      if (g.second - g.first == 1) {
        next.push_back(g);
        continue;
      }
      const int m = g.first + (g.second - g.first) / 2;
      next.push_back({g.first, m});
      next.push_back({m, g.second});
    }
    groups = std::move(next);
  }
  return label;
}

/// The 64 bytes a migrating body carries; the rest (accelerations,
/// potential, cost) is recomputed by the next force evaluation.
struct migrant {
  double m, x, y, z, vx, vy, vz;
  std::int64_t id;
};

}  // namespace detail

/// The owner rank of every local body under `kind` (collective), for the
/// bodies' current positions and recorded costs; `global` is
/// global_box's result.
template <class ExecSpace, class Mem>
Kokkos::View<std::uint32_t*, Mem> owners(MPI_Comm comm, const ExecSpace& space, nb::scheme kind,
                                         const nb::body_arrays<Mem>& b, const nb::box& global) {
  sweep::detail::scoped_region region(std::string("sweep::mpi::nbody::owners::") + nb::to_string(kind));
  sweep::detail::require(kind != nb::scheme::random, "sweep::mpi::nbody::owners",
                         "scheme random has no distributed form (costzones, orb or static)");
  if (kind == nb::scheme::orb) return detail::orb_owners(comm, space, b);
  return detail::curve_owners(comm, space, b, global, kind == nb::scheme::costzones);
}

/// Moves every body to owner[i] (collective; one MPI_Alltoall of counts
/// and one MPI_Alltoallv of 64-byte records): afterwards `b` holds this
/// rank's bodies, those from lower ranks first, each source's in the
/// order it held them; accelerations, potentials and costs are zero.
/// `owner` is sorted in place (it is the sort's key). When no body
/// changes rank anywhere, nothing moves and `b` is left as it was.
template <class ExecSpace, class Mem>
migration_report migrate(MPI_Comm comm, const ExecSpace& space, nb::body_arrays<Mem>& b,
                         std::type_identity_t<Kokkos::View<std::uint32_t*, Mem>> owner,
                         transport how = transport::automatic) {
  static constexpr const char* where = "sweep::mpi::nbody::migrate";
  sweep::detail::scoped_region region(where);
  const int size = detail::comm_size(comm), rank = detail::comm_rank(comm);
  const index_t n = b.size();
  detail::checked(comm, where, [&] {
    sweep::detail::require(index_t(owner.extent(0)) == n, where, "owner has ", owner.extent(0), " entries for ", n,
                           " bodies");
  });
  // Bodies grouped by owner (stable; the owners end up sorted), and where
  // each owner's run starts.
  Kokkos::View<std::int32_t*, Mem> perm(Kokkos::view_alloc(Kokkos::WithoutInitializing, "sweep::mpi::nbody::migrate_perm"),
                                        n);
  if (n > 0) sort_permutation("sweep::mpi::nbody::migrate_sort", space, owner, perm);
  Kokkos::View<index_t*, Mem> starts("sweep::mpi::nbody::migrate_starts", size + 1);
  Kokkos::parallel_for(
      "sweep::mpi::nbody::migrate_starts", detail::range<ExecSpace>(space, 0, size + 1), KOKKOS_LAMBDA(const index_t q) {
        index_t a = 0, e = n;
        while (a < e) {
          const index_t mid = a + (e - a) / 2;
          if (index_t(owner(mid)) < q) a = mid + 1;
          else e = mid;
        }
        starts(q) = a;
      });
  auto hs = Kokkos::create_mirror_view(Kokkos::HostSpace(), starts);
  Kokkos::deep_copy(space, hs, starts);
  space.fence();
  std::vector<int> send_counts(size), send_displs(size), recv_counts(size), recv_displs(size);
  // Counts beyond MPI's int fail on every rank, before any exchange.
  detail::checked(comm, where, [&] {
    for (int q = 0; q < size; ++q) {
      send_counts[q] = detail::as_count(hs(q + 1) - hs(q), where);
      send_displs[q] = detail::as_count(hs(q), where);
    }
  });
  detail::check_mpi(MPI_Alltoall(send_counts.data(), 1, MPI_INT, recv_counts.data(), 1, MPI_INT, comm), "MPI_Alltoall");
  index_t received = 0;
  migration_report rep;
  for (int q = 0; q < size; ++q) received += recv_counts[q];
  detail::checked(comm, where, [&] {
    sweep::detail::require(received < (index_t(1) << 31), where, received,
                           " bodies would arrive on one rank; a rank holds at most 2^31 - 1");
  });
  received = 0;
  for (int q = 0; q < size; ++q) {
    recv_displs[q] = int(received);
    received += recv_counts[q];
    if (q != rank) rep.sent += send_counts[q], rep.received += recv_counts[q];
  }
  // Nothing leaves or arrives (one rank; a settled step): the bodies stay
  // as they are (a rank's decision, the exchange is skipped on every rank
  // only when all agree, as MPI_Alltoallv is collective).
  long long moving = rep.sent, any = 0;
  detail::check_mpi(MPI_Allreduce(&moving, &any, 1, MPI_LONG_LONG, MPI_SUM, comm), "MPI_Allreduce");
  if (any == 0) return rep;
  rep.bytes_sent = std::uint64_t(rep.sent) * sizeof(detail::migrant);
  rep.bytes_received = std::uint64_t(rep.received) * sizeof(detail::migrant);
  Kokkos::View<detail::migrant*, Mem> out(Kokkos::view_alloc(Kokkos::WithoutInitializing, "sweep::mpi::nbody::migrate_out"),
                                          n);
  Kokkos::parallel_for(
      "sweep::mpi::nbody::migrate_pack", detail::range<ExecSpace>(space, 0, n), KOKKOS_LAMBDA(const index_t k) {
        const index_t i = perm(k);
        out(k) = detail::migrant{b.m(i), b.x(i), b.y(i), b.z(i), b.vx(i), b.vy(i), b.vz(i), b.id(i)};
      });
  Kokkos::View<detail::migrant*, Mem> in(Kokkos::view_alloc(Kokkos::WithoutInitializing, "sweep::mpi::nbody::migrate_in"),
                                         received);
  detail::alltoallv(comm, space, out, send_counts, send_displs, in, recv_counts, recv_displs, how);
  nb::body_arrays<Mem> moved(received);
  Kokkos::parallel_for(
      "sweep::mpi::nbody::migrate_unpack", detail::range<ExecSpace>(space, 0, received), KOKKOS_LAMBDA(const index_t i) {
        const detail::migrant r = in(i);
        moved.m(i) = r.m, moved.x(i) = r.x, moved.y(i) = r.y, moved.z(i) = r.z;
        moved.vx(i) = r.vx, moved.vy(i) = r.vy, moved.vz(i) = r.vz, moved.id(i) = r.id;
      });
  space.fence();
  b = moved;
  return rep;
}

}  // namespace sweep::mpi::nbody
