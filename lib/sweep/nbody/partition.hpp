// Load balance of the force phase: which bodies each of P partitions
// (threads on a CPU, teams on a GPU) computes, from the interaction counts
// the previous force evaluation recorded (`cost`; a body with no record
// weighs 1). Bodies must be in the tree's Morton order.
//
//   costzones    SPLASH-2's cost zones: the bodies in tree (depth-first =
//                Morton) order, cut where the running work crosses p W / P
//                (an exclusive sweep::exclusive_scan of the costs and a
//                binary search per cut).
//   orb          orthogonal recursive bisection: each group of bodies is cut
//                across the longest side of its bounding box (a
//                sweep::segmented_reduce of boxes) at its weighted median
//                (sort_by_key on (group, coordinate), a
//                sweep::segmented_inclusive_scan of the work), until every
//                group is one partition; P need not be a power of two.
//                Each partition's bodies are listed in tree order.
//   equal_count  "static": N / P consecutive bodies (in Morton order) each.
//   random       every body to a hashed random partition.
//
// The result lists, partition by partition, the tree slots (Morton indices)
// of the bodies; `apply` reorders the body arrays into that order so each
// partition's bodies are contiguous in memory. Cost: costzones and
// equal_count O(N + P log N); random one sort; orb one sort and two
// segmented passes per level of bisection (ceil(log2 P) levels).
#pragma once

#include <sweep/nbody/bodies.hpp>
#include <sweep/scan.hpp>
#include <sweep/segmented_scan.hpp>
#include <sweep/sort.hpp>

#include <Kokkos_Core.hpp>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

namespace sweep::nbody {

enum class scheme { costzones, orb, equal_count, random };

inline const char* to_string(scheme s) {
  switch (s) {
    case scheme::costzones: return "costzones";
    case scheme::orb: return "orb";
    case scheme::equal_count: return "static";
    case scheme::random: return "random";
  }
  return "?";
}

/// P partitions of N bodies.
template <class MemorySpace>
struct partition {
  scheme kind = scheme::costzones;
  Kokkos::View<index_t*, MemorySpace> offsets;    // P + 1: partition p is bodies [offsets(p), offsets(p + 1))
  std::vector<index_t> host_offsets;              // the same, on the host
  Kokkos::View<std::int32_t*, MemorySpace> slots; // tree slot of each body in partition order; empty: identity
  int parts() const { return int(host_offsets.size()) - 1; }
};

namespace detail {

/// The work of a body: its recorded interactions, 1 without a record.
template <class Mem>
struct body_work {
  Kokkos::View<const std::uint32_t*, Mem> cost;
  Kokkos::View<const std::int32_t*, Mem> slots;  // empty: identity
  KOKKOS_INLINE_FUNCTION index_t operator()(const index_t k) const {
    const std::uint32_t c = cost(slots.extent(0) ? index_t(slots(k)) : k);
    return c > 0 ? index_t(c) : index_t(1);
  }
};

/// First index in [0, n) whose value in the sorted `v` is >= target (n if none).
template <class View>
KOKKOS_INLINE_FUNCTION index_t lower_bound(const View& v, index_t n, index_t target) {
  index_t b = 0, e = n;
  while (b < e) {
    const index_t mid = b + (e - b) / 2;
    if (v(mid) < target) b = mid + 1;
    else e = mid;
  }
  return b;
}

/// floor(total * num / den) without overflow (0 <= num <= den).
KOKKOS_INLINE_FUNCTION index_t scaled(index_t total, index_t num, index_t den) {
  return total / den * num + (total % den) * num / den;
}

/// Order-preserving 32-bit key of a coordinate.
KOKKOS_INLINE_FUNCTION std::uint32_t sortable(double v) {
  const float f = static_cast<float>(v);
  std::uint32_t u;
  std::memcpy(&u, &f, sizeof u);
  return (u & 0x80000000u) ? ~u : (u | 0x80000000u);
}

KOKKOS_INLINE_FUNCTION std::uint64_t mix(std::uint64_t x) {
  x ^= x >> 30;
  x *= 0xbf58476d1ce4e5b9ull;
  x ^= x >> 27;
  x *= 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}

/// Bounding boxes as a monoid (min of lo, max of hi): ORB's group extents.
struct box3 {
  double lo[3], hi[3];
};
struct box_union {
  using value_type = box3;
  KOKKOS_INLINE_FUNCTION static box3 identity() {
    const double inf = __builtin_huge_val();
    return box3{{inf, inf, inf}, {-inf, -inf, -inf}};
  }
  KOKKOS_INLINE_FUNCTION box3 operator()(const box3& a, const box3& b) const {
    box3 r;
    for (int d = 0; d < 3; ++d) {
      r.lo[d] = a.lo[d] < b.lo[d] ? a.lo[d] : b.lo[d];
      r.hi[d] = a.hi[d] > b.hi[d] ? a.hi[d] : b.hi[d];
    }
    return r;
  }
};

template <class Mem>
partition<Mem> finish(scheme kind, const std::vector<index_t>& host_offsets,
                      Kokkos::View<std::int32_t*, Mem> slots = {}) {
  partition<Mem> p;
  p.kind = kind;
  p.host_offsets = host_offsets;
  p.offsets = Kokkos::View<index_t*, Mem>("sweep::nbody::partition_offsets", host_offsets.size());
  Kokkos::View<const index_t*, Kokkos::HostSpace, Kokkos::MemoryUnmanaged> h(host_offsets.data(), host_offsets.size());
  Kokkos::deep_copy(p.offsets, h);
  p.slots = slots;
  return p;
}

template <class ExecSpace, class Mem>
partition<Mem> costzones(const ExecSpace& space, const body_arrays<Mem>& b, int parts) {
  const index_t n = b.size();
  Kokkos::View<index_t*, Mem> work(Kokkos::view_alloc(Kokkos::WithoutInitializing, "sweep::nbody::work"), n);
  const body_work<Mem> w{b.cost, {}};
  Kokkos::parallel_for("sweep::nbody::work", sweep::detail::range_policy<ExecSpace>(space, 0, n),
                       KOKKOS_LAMBDA(const index_t i) { work(i) = w(i); });
  const index_t total = exclusive_scan("sweep::nbody::costzones_scan", space, work, work, index_t(0));
  Kokkos::View<index_t*, Mem> cuts("sweep::nbody::cuts", parts + 1);
  Kokkos::parallel_for(
      "sweep::nbody::costzones_cuts", sweep::detail::range_policy<ExecSpace>(space, 0, parts + 1),
      KOKKOS_LAMBDA(const index_t p) {
        // Zone p takes the bodies whose work starts in [p W / P, (p + 1) W / P).
        const index_t target = scaled(total, p, parts);
        cuts(p) = p == parts ? n : lower_bound(work, n, target);
      });
  auto h = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), cuts);
  return finish<Mem>(scheme::costzones, std::vector<index_t>(h.data(), h.data() + parts + 1));
}

template <class Mem>
partition<Mem> equal_count(index_t n, int parts) {
  std::vector<index_t> off(parts + 1);
  for (int p = 0; p <= parts; ++p) off[p] = scaled(n, p, parts);
  return finish<Mem>(scheme::equal_count, off);
}

template <class ExecSpace, class Mem>
partition<Mem> random_parts(const ExecSpace& space, const body_arrays<Mem>& b, int parts, std::uint64_t seed) {
  const index_t n = b.size();
  Kokkos::View<std::uint32_t*, Mem> keys(Kokkos::view_alloc(Kokkos::WithoutInitializing, "sweep::nbody::keys"), n);
  Kokkos::View<std::int32_t*, Mem> slots(Kokkos::view_alloc(Kokkos::WithoutInitializing, "sweep::nbody::slots"), n);
  const auto id = b.id;
  Kokkos::parallel_for(
      "sweep::nbody::random_keys", sweep::detail::range_policy<ExecSpace>(space, 0, n), KOKKOS_LAMBDA(const index_t i) {
        keys(i) = std::uint32_t(mix(std::uint64_t(id(i)) ^ mix(seed)) % std::uint64_t(parts));
      });
  sort_permutation("sweep::nbody::random_sort", space, keys, slots);
  Kokkos::View<index_t*, Mem> cuts("sweep::nbody::cuts", parts + 1);
  Kokkos::parallel_for(
      "sweep::nbody::random_cuts", sweep::detail::range_policy<ExecSpace>(space, 0, parts + 1),
      KOKKOS_LAMBDA(const index_t p) { cuts(p) = lower_bound(keys, n, p); });
  auto h = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), cuts);
  return finish<Mem>(scheme::random, std::vector<index_t>(h.data(), h.data() + parts + 1), slots);
}

template <class ExecSpace, class Mem>
partition<Mem> orb(const ExecSpace& space, const body_arrays<Mem>& b, int parts) {
  using Range = sweep::detail::range_policy<ExecSpace>;
  const index_t n = b.size();
  // Groups are contiguous ranges of `slots`: [begin[g], begin[g + 1]) owns
  // partitions [first[g], first[g] + count[g]).
  std::vector<index_t> begin{0, n};
  std::vector<int> first{0}, count{parts};
  Kokkos::View<std::int32_t*, Mem> slots(Kokkos::view_alloc(Kokkos::WithoutInitializing, "sweep::nbody::slots"), n);
  Kokkos::parallel_for("sweep::nbody::orb_iota", Range(space, 0, n),
                       KOKKOS_LAMBDA(const index_t i) { slots(i) = std::int32_t(i); });
  Kokkos::View<std::uint64_t*, Mem> keys(Kokkos::view_alloc(Kokkos::WithoutInitializing, "sweep::nbody::orb_keys"), n);
  Kokkos::View<box3*, Mem> pts(Kokkos::view_alloc(Kokkos::WithoutInitializing, "sweep::nbody::orb_points"), n);
  Kokkos::View<index_t*, Mem> work(Kokkos::view_alloc(Kokkos::WithoutInitializing, "sweep::nbody::orb_work"), n);
  const auto x = b.x, y = b.y, z = b.z;
  const body_work<Mem> w{b.cost, slots};
  while (std::any_of(count.begin(), count.end(), [](int c) { return c > 1; })) {
    const index_t groups = index_t(first.size());
    Kokkos::View<index_t*, Mem> gbegin("sweep::nbody::orb_groups", groups + 1);
    {
      Kokkos::View<const index_t*, Kokkos::HostSpace, Kokkos::MemoryUnmanaged> h(begin.data(), begin.size());
      Kokkos::deep_copy(gbegin, h);
    }
    // Each group's bounding box, then the axis to cut: its longest side.
    Kokkos::parallel_for(
        "sweep::nbody::orb_points", Range(space, 0, n), KOKKOS_LAMBDA(const index_t k) {
          const index_t i = slots(k);
          pts(k) = box3{{x(i), y(i), z(i)}, {x(i), y(i), z(i)}};
        });
    Kokkos::View<box3*, Mem> gbox("sweep::nbody::orb_boxes", groups);
    segmented_reduce("sweep::nbody::orb_boxes", space, pts, segment_offsets(gbegin), gbox, box_union{});
    auto hbox = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), gbox);
    Kokkos::View<int*, Kokkos::HostSpace> haxis("sweep::nbody::orb_axis", groups);
    for (index_t g = 0; g < groups; ++g) {
      int a = 0;
      for (int d = 1; d < 3; ++d)
        if (hbox(g).hi[d] - hbox(g).lo[d] > hbox(g).hi[a] - hbox(g).lo[a]) a = d;
      haxis(g) = a;
    }
    auto axis = Kokkos::create_mirror_view_and_copy(space, haxis);
    // Sort by (group, coordinate along the group's axis): groups stay put.
    Kokkos::parallel_for(
        "sweep::nbody::orb_keys", Range(space, 0, n), KOKKOS_LAMBDA(const index_t k) {
          const index_t g = lower_bound(gbegin, groups + 1, k + 1) - 1;
          const index_t i = slots(k);
          const int a = axis(g);
          const double c = a == 0 ? x(i) : (a == 1 ? y(i) : z(i));
          keys(k) = (std::uint64_t(g) << 32) | sortable(c);
        });
    int group_bits = 1;
    while ((index_t(1) << group_bits) < groups) ++group_bits;
    sort_by_key("sweep::nbody::orb_sort", space, keys, slots, sort_options{32 + group_bits});
    // Running work within each group; the cut is where it crosses the
    // left share (floor(count / 2) / count of the group's work).
    Kokkos::parallel_for("sweep::nbody::orb_work", Range(space, 0, n),
                         KOKKOS_LAMBDA(const index_t k) { work(k) = w(k); });
    segmented_inclusive_scan("sweep::nbody::orb_scan", space, work, segment_offsets(gbegin), work);
    Kokkos::View<index_t*, Kokkos::HostSpace> hgoal("sweep::nbody::orb_goal", groups);
    for (index_t g = 0; g < groups; ++g) hgoal(g) = count[g] > 1 ? count[g] / 2 : 0;
    auto goal = Kokkos::create_mirror_view_and_copy(space, hgoal);
    Kokkos::View<index_t*, Mem> cut("sweep::nbody::orb_cut", groups);
    Kokkos::View<index_t*, Kokkos::HostSpace> hcount("sweep::nbody::orb_count", groups);
    for (index_t g = 0; g < groups; ++g) hcount(g) = count[g];
    auto gcount = Kokkos::create_mirror_view_and_copy(space, hcount);
    Kokkos::parallel_for(
        "sweep::nbody::orb_cut", Range(space, 0, groups), KOKKOS_LAMBDA(const index_t g) {
          const index_t lo = gbegin(g), hi = gbegin(g + 1);
          if (goal(g) == 0 || hi == lo) {
            cut(g) = lo;
            return;
          }
          const index_t total = work(hi - 1);
          const index_t want = scaled(total, goal(g), gcount(g));
          // First body whose running work reaches `want`; it goes left when
          // that lands closer to the target.
          index_t b = lo, e = hi;
          while (b < e) {
            const index_t mid = b + (e - b) / 2;
            if (work(mid) < want) b = mid + 1;
            else e = mid;
          }
          if (b < hi) {
            const index_t before = b > lo ? work(b - 1) : 0;
            if (work(b) - want <= want - before) ++b;
          }
          cut(g) = b;
        });
    auto hcut = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), cut);
    std::vector<index_t> nbegin;
    std::vector<int> nfirst, ncount;
    for (index_t g = 0; g < groups; ++g) {
      if (count[g] == 1) {
        nbegin.push_back(begin[g]), nfirst.push_back(first[g]), ncount.push_back(1);
        continue;
      }
      const int left = count[g] / 2;
      nbegin.push_back(begin[g]), nfirst.push_back(first[g]), ncount.push_back(left);
      nbegin.push_back(hcut(g)), nfirst.push_back(first[g] + left), ncount.push_back(count[g] - left);
    }
    nbegin.push_back(n);
    begin = std::move(nbegin), first = std::move(nfirst), count = std::move(ncount);
  }
  // Groups are now partitions, in order of `first`. Within each, the
  // bodies go back to tree (Morton) order, so consecutive bodies of a
  // partition are near each other (the host walk groups them).
  {
    const index_t parts_n = index_t(begin.size()) - 1;
    Kokkos::View<index_t*, Mem> pbegin("sweep::nbody::orb_parts", parts_n + 1);
    Kokkos::View<const index_t*, Kokkos::HostSpace, Kokkos::MemoryUnmanaged> h(begin.data(), begin.size());
    Kokkos::deep_copy(pbegin, h);
    Kokkos::parallel_for(
        "sweep::nbody::orb_order", Range(space, 0, n), KOKKOS_LAMBDA(const index_t k) {
          const index_t p = lower_bound(pbegin, parts_n + 1, k + 1) - 1;
          keys(k) = (std::uint64_t(p) << 32) | std::uint64_t(slots(k));
        });
    int part_bits = 1;
    while ((index_t(1) << part_bits) < parts_n) ++part_bits;
    sort_by_key("sweep::nbody::orb_order_sort", space, keys, slots, sort_options{32 + part_bits});
  }
  return finish<Mem>(scheme::orb, begin, slots);
}

}  // namespace detail

/// Partitions Morton-ordered bodies into `parts` by `kind`; `seed` drives
/// `random`.
template <class ExecSpace, class Mem>
partition<Mem> make_partition(const ExecSpace& space, scheme kind, const body_arrays<Mem>& b, int parts,
                              std::uint64_t seed = 1) {
  sweep::detail::scoped_region region(std::string("sweep::nbody::partition::") + to_string(kind));
  sweep::detail::require(parts >= 1, "sweep::nbody::make_partition", "parts = ", parts, " must be >= 1");
  sweep::detail::require(b.size() > 0, "sweep::nbody::make_partition", "N = 0: there are no bodies");
  switch (kind) {
    case scheme::costzones: return detail::costzones(space, b, parts);
    case scheme::orb: return detail::orb(space, b, parts);
    case scheme::equal_count: return detail::equal_count<Mem>(b.size(), parts);
    case scheme::random: return detail::random_parts(space, b, parts, seed);
  }
  return detail::equal_count<Mem>(b.size(), parts);
}

/// Reorders the bodies into the partition's order (so partition p is the
/// contiguous range [offsets(p), offsets(p + 1))); `spare` is scratch of
/// the same size. Nothing moves for costzones and static.
template <class ExecSpace, class Mem>
void apply(const ExecSpace& space, const partition<Mem>& p, body_arrays<Mem>& bodies, body_arrays<Mem>& spare) {
  if (p.slots.extent(0) == 0) return;
  detail::permute(space, bodies, spare, Kokkos::View<const std::int32_t*, Mem>(p.slots));
}

/// Work of each partition (sum of its bodies' costs, bodies in partition
/// order), the imbalance max / mean, and a measure of locality: the mean
/// number of runs of consecutive tree slots (Morton order) a partition's
/// bodies form. 1 is a single compact zone of the tree (cost zones,
/// static); ORB's boxes cut the Morton curve a few times; random
/// assignment scatters a partition over about N / P runs.
struct balance_report {
  std::vector<std::uint64_t> work;
  double imbalance = 1;
  double runs = 1;
};

template <class ExecSpace, class Mem>
balance_report measure_balance(const ExecSpace& space, const partition<Mem>& p, const body_arrays<Mem>& b) {
  using Range = sweep::detail::range_policy<ExecSpace>;
  const index_t n = b.size();
  const int parts = p.parts();
  Kokkos::View<index_t*, Mem> prefix(Kokkos::view_alloc(Kokkos::WithoutInitializing, "sweep::nbody::work_prefix"),
                                     n + 1);
  const auto cost = b.cost;
  Kokkos::parallel_for(
      "sweep::nbody::balance_work", Range(space, 0, n + 1),
      KOKKOS_LAMBDA(const index_t i) { prefix(i) = i < n ? index_t(cost(i)) : 0; });
  exclusive_scan("sweep::nbody::balance_scan", space, prefix, prefix, index_t(0));
  auto h = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), prefix);
  balance_report r;
  double sum = 0, top = 0;
  for (int q = 0; q < parts; ++q) {
    const auto wq = std::uint64_t(h(p.host_offsets[q + 1]) - h(p.host_offsets[q]));
    r.work.push_back(wq);
    sum += double(wq);
    top = std::max(top, double(wq));
  }
  r.imbalance = sum > 0 ? top / (sum / parts) : 1.0;

  // Runs: sort (partition, slot) pairs and count the breaks.
  Kokkos::View<std::uint64_t*, Mem> keys(Kokkos::view_alloc(Kokkos::WithoutInitializing, "sweep::nbody::run_keys"), n);
  Kokkos::View<std::int32_t*, Mem> order(Kokkos::view_alloc(Kokkos::WithoutInitializing, "sweep::nbody::run_order"), n);
  const auto offsets = p.offsets;
  const auto slots = p.slots;
  Kokkos::parallel_for(
      "sweep::nbody::run_keys", Range(space, 0, n), KOKKOS_LAMBDA(const index_t k) {
        const index_t q = detail::lower_bound(offsets, parts + 1, k + 1) - 1;
        const index_t slot = slots.extent(0) ? index_t(slots(k)) : k;
        keys(k) = (std::uint64_t(q) << 32) | std::uint64_t(slot);
      });
  sort_permutation("sweep::nbody::run_sort", space, keys, order);
  index_t breaks = 0;
  Kokkos::parallel_reduce(
      "sweep::nbody::run_breaks", Range(space, 1, n),
      KOKKOS_LAMBDA(const index_t k, index_t& acc) { acc += keys(k) != keys(k - 1) + 1; }, breaks);
  int occupied = 0;
  for (int q = 0; q < parts; ++q) occupied += p.host_offsets[q + 1] > p.host_offsets[q];
  // Partition boundaries are breaks too; each occupied partition has its first run.
  r.runs = double(breaks + 1) / double(std::max(occupied, 1));
  return r;
}

}  // namespace sweep::nbody
