// Distributed stable sort by key: sample sort over the ranks.
//
//   auto part = sweep::mpi::sort_by_key(comm, space, keys, values [, sort_options]);
//   part.keys, part.values   this rank's part of the sorted sequence
//   part.offset, part.total  its position in the global sorted sequence
//
// The global sequence is the concatenation of the ranks' (keys, values) in
// rank order. The result is that sequence sorted by key (uint32 or uint64,
// ascending), stable: equal keys keep their global order. Rank r receives a
// contiguous piece of the sorted sequence, rank 0 the smallest; pieces are
// near equal (splitters from a weighted regular sample) but not exactly so:
// sweep::mpi::rebalance makes them equal blocks. The inputs are not changed.
//
// Method: local stable radix sort (Sweep's sort_by_key), a regular
// sample of (key, position) pairs from every rank (MPI_Allgatherv),
// P - 1 splitters chosen by the samples' weights, one MPI_Alltoall of counts
// and one MPI_Alltoallv each for keys and values, then a stable merge of
// what arrived (one sorted run per source rank, sources in rank order, so
// equal keys stay in global order; detail/merge_runs.hpp). Splitting on
// (key, position) keeps pieces balanced even when every key is equal.
// Device memory is staged through the host unless the MPI is
// GPU-aware (transport in core.hpp).
//
// Errors (every rank throws the same std::invalid_argument, nothing
// written): values not as long as keys, overlapping keys and values, an
// end_bit outside [0, key bits], options different between ranks.
#pragma once

#include <sweep/mpi/core.hpp>
#include <sweep/sort.hpp>
#include <sweep/detail/merge_runs.hpp>

#include <algorithm>
#include <cstdint>
#include <vector>

namespace sweep::mpi {

/// Knobs of the distributed sort.
struct sort_options {
  int end_bit = 0;                         ///< sort by key bits [0, end_bit) (0: all bits)
  index_t samples_per_rank = 0;            ///< regular sample size per rank (0: 128)
  transport buffers = transport::automatic;
};

/// This rank's piece of the sorted sequence.
template <class Key, class Value, class MemorySpace>
struct sorted_part {
  Kokkos::View<Key*, MemorySpace> keys;
  Kokkos::View<Value*, MemorySpace> values;
  index_t offset = 0;  ///< elements on the ranks before this one
  index_t total = 0;   ///< elements on all ranks
};

namespace detail {

/// A sampled element: its (masked) key, its position (the rank's offset
/// plus its index after the local sort, which orders equal keys as the
/// global sequence does), and how many elements it stands for.
template <class Key>
struct sample {
  Key key;
  std::int64_t position;
  double weight;
};

template <class Key>
bool sample_less(const sample<Key>& a, const sample<Key>& b) {
  return a.key < b.key || (a.key == b.key && a.position < b.position);
}

}  // namespace detail

template <class ExecSpace, class KeyView, class ValueView>
  requires Kokkos::is_execution_space<ExecSpace>::value
sorted_part<typename KeyView::non_const_value_type, typename ValueView::non_const_value_type,
            typename ExecSpace::memory_space>
sort_by_key(MPI_Comm comm, const ExecSpace& space, const KeyView& keys, const ValueView& values,
            const sort_options& opt = {}) {
  using K = typename KeyView::non_const_value_type;
  using V = typename ValueView::non_const_value_type;
  using Mem = typename ExecSpace::memory_space;
  static_assert(std::is_integral_v<K> && std::is_unsigned_v<K> && (sizeof(K) == 4 || sizeof(K) == 8),
                "sweep::mpi::sort_by_key: keys must be uint32 or uint64");
  static_assert(std::is_trivially_copyable_v<V>, "sweep::mpi::sort_by_key: values must be trivially copyable");
  static_assert(sweep::detail::is_rank1_view_v<KeyView> && sweep::detail::is_rank1_view_v<ValueView>,
                "sweep::mpi::sort_by_key: keys and values must be rank-1 Views");
  static_assert(sweep::detail::accessible_from_v<ExecSpace, KeyView> &&
                    sweep::detail::accessible_from_v<ExecSpace, ValueView>,
                "sweep::mpi::sort_by_key: keys and values must be accessible from the execution space");
  const char* where = "sweep::mpi::sort_by_key";
  sweep::detail::scoped_region region(where);
  detail::require_comm(comm, where);
  const int size = detail::comm_size(comm), rank = detail::comm_rank(comm);
  const index_t n = static_cast<index_t>(keys.extent(0));
  constexpr int key_bits = int(8 * sizeof(K));
  detail::checked(comm, where, [&] {
    sweep::detail::require(values.extent(0) == keys.extent(0), where, "values has ", values.extent(0),
                           " elements but keys has ", keys.extent(0), "; they must be equally long");
    sweep::detail::require(!sweep::detail::overlap(keys, values), where, "keys and values overlap");
    sweep::detail::require(opt.end_bit >= 0 && opt.end_bit <= key_bits, where, "end_bit = ", opt.end_bit,
                           " must be in [0, ", key_bits, "]");
    sweep::detail::require(opt.samples_per_rank >= 0, where, "samples_per_rank is ", opt.samples_per_rank,
                           "; it must not be negative");
  });
  detail::require_same(comm, where,
                       {{"sort_options::end_bit", opt.end_bit},
                        {"sort_options::samples_per_rank", opt.samples_per_rank},
                        {"the key size", static_cast<long long>(sizeof(K))},
                        {"the value size", static_cast<long long>(sizeof(V))}});
  const int end_bit = opt.end_bit == 0 ? key_bits : opt.end_bit;
  const K mask = end_bit >= key_bits ? static_cast<K>(~K(0)) : static_cast<K>((K(1) << end_bit) - 1);
  const sweep::sort_options local_opt{end_bit};
  index_t begin = 0, total = 0;
  std::tie(begin, total) = detail::offset_and_total(comm, n);

  // 1. Local stable sort of copies of the keys and values. Among equal
  //    (masked) keys, sorted order is input order, so an element's place in
  //    the global stable order is (key, begin + its sorted index): no
  //    permutation is needed to name it.
  Kokkos::View<V*, Mem> v(Kokkos::view_alloc(Kokkos::WithoutInitializing, "sweep::mpi::sort::values"), n);
  Kokkos::View<K*, Mem> original(Kokkos::view_alloc(Kokkos::WithoutInitializing, "sweep::mpi::sort::original"), n);
  if (n > 0) {
    Kokkos::parallel_for(
        "sweep::mpi::sort::copy", detail::range<ExecSpace>(space, 0, n), KOKKOS_LAMBDA(const index_t i) {
          original(i) = keys(i);
          v(i) = values(i);
        });
    sweep::sort_by_key(std::string("sweep::mpi::sort::local"), space, original, v, local_opt);
  }

  // 2. A regular sample of (masked key, position), weighted by the
  //    elements each sample stands for, from every rank.
  const index_t want = opt.samples_per_rank > 0 ? opt.samples_per_rank : 128;
  const index_t s = std::min(n, want);
  Kokkos::View<detail::sample<K>*, Mem> picked("sweep::mpi::sort::sample", s);
  const double weight = s > 0 ? static_cast<double>(n) / static_cast<double>(s) : 0.0;
  Kokkos::parallel_for(
      "sweep::mpi::sort::sample", detail::range<ExecSpace>(space, 0, s), KOKKOS_LAMBDA(const index_t t) {
        const index_t j = ((2 * t + 1) * n) / (2 * s);
        picked(t) = detail::sample<K>{static_cast<K>(original(j) & mask), static_cast<std::int64_t>(begin + j), weight};
      });
  auto picked_host = Kokkos::create_mirror_view(Kokkos::HostSpace(), picked);
  Kokkos::deep_copy(space, picked_host, picked);
  space.fence();
  std::vector<int> sample_counts(size), sample_displs(size + 1, 0);
  const int my_samples = static_cast<int>(s);
  detail::check_mpi(MPI_Allgather(&my_samples, 1, MPI_INT, sample_counts.data(), 1, MPI_INT, comm), "MPI_Allgather");
  for (int r = 0; r < size; ++r) sample_displs[r + 1] = sample_displs[r] + sample_counts[r];
  std::vector<detail::sample<K>> all(static_cast<std::size_t>(sample_displs[size]));
  {
    detail::bytes_type<detail::sample<K>> type;
    detail::check_mpi(MPI_Allgatherv(picked_host.data(), my_samples, type.get(), all.data(), sample_counts.data(),
                                     sample_displs.data(), type.get(), comm),
                      "MPI_Allgatherv");
  }
  std::sort(all.begin(), all.end(), detail::sample_less<K>);

  // 3. Splitter b is the first sample with at least total * b / P weight
  //    before it; bucket b holds the elements from splitter b to b + 1.
  std::vector<detail::sample<K>> splitters;
  {
    double before = 0.0;
    std::size_t next = 0;
    for (int b = 1; b < size; ++b) {
      const double target = static_cast<double>(total) * b / size;
      while (next < all.size() && before < target) before += all[next++].weight;
      if (next < all.size()) splitters.push_back(all[next]);
      else splitters.push_back(detail::sample<K>{static_cast<K>(~K(0)), INT64_MAX, 0.0});
    }
  }
  const index_t nsplit = static_cast<index_t>(splitters.size());
  Kokkos::View<detail::sample<K>*, Kokkos::HostSpace> split_host("sweep::mpi::sort::splitters_host", nsplit);
  for (index_t b = 0; b < nsplit; ++b) split_host(b) = splitters[static_cast<std::size_t>(b)];
  Kokkos::View<detail::sample<K>*, Mem> split("sweep::mpi::sort::splitters", nsplit);
  Kokkos::deep_copy(space, split, split_host);
  Kokkos::View<index_t*, Mem> cut("sweep::mpi::sort::cuts", nsplit);
  Kokkos::parallel_for(
      "sweep::mpi::sort::cuts", detail::range<ExecSpace>(space, 0, nsplit), KOKKOS_LAMBDA(const index_t b) {
        // Local elements before splitter b in (key, position) order.
        const detail::sample<K> sp = split(b);
        index_t lo = 0, hi = n;
        while (lo < hi) {
          const index_t mid = lo + (hi - lo) / 2;
          const K key = static_cast<K>(original(mid) & mask);
          const std::int64_t pos = static_cast<std::int64_t>(begin + mid);
          if (key < sp.key || (key == sp.key && pos < sp.position)) lo = mid + 1;
          else hi = mid;
        }
        cut(b) = lo;
      });
  auto cut_host = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), cut);

  // 4. The exchange: counts, then keys and values.
  std::vector<int> send_counts(size), send_displs(size), recv_counts(size), recv_displs(size);
  std::vector<index_t> edges(static_cast<std::size_t>(size) + 1);
  edges[0] = 0;
  for (int b = 1; b < size; ++b) edges[b] = cut_host(b - 1);
  edges[size] = n;
  std::string count_error;
  try {
    for (int r = 0; r < size; ++r) {
      send_counts[r] = detail::as_count(edges[r + 1] - edges[r], where);
      send_displs[r] = detail::as_count(edges[r], where);
    }
  } catch (const std::invalid_argument& e) {
    count_error = e.what();
  }
  detail::agree(comm, where, count_error);
  detail::check_mpi(MPI_Alltoall(send_counts.data(), 1, MPI_INT, recv_counts.data(), 1, MPI_INT, comm),
                    "MPI_Alltoall");
  index_t received = 0;
  for (int r = 0; r < size; ++r) received += recv_counts[r];
  detail::agree(comm, where,
                received > index_t(INT_MAX) ? sweep::detail::concat(received, " elements would arrive on rank ", rank,
                                                                    ", more than MPI's int displacements reach")
                                            : std::string());
  for (int r = 0, d = 0; r < size; ++r) {
    recv_displs[r] = d;
    d += recv_counts[r];
  }
  sorted_part<K, V, Mem> result;
  result.keys = Kokkos::View<K*, Mem>(Kokkos::view_alloc(Kokkos::WithoutInitializing, "sweep::mpi::sort::keys_out"),
                                      received);
  result.values = Kokkos::View<V*, Mem>(
      Kokkos::view_alloc(Kokkos::WithoutInitializing, "sweep::mpi::sort::values_out"), received);
  detail::alltoallv(comm, space, original, send_counts, send_displs, result.keys, recv_counts, recv_displs,
                    opt.buffers);
  detail::alltoallv(comm, space, v, send_counts, send_displs, result.values, recv_counts, recv_displs, opt.buffers);

  // 5. What arrived is sorted per source rank, sources in rank order: a
  //    stable merge of those runs completes the global order.
  std::vector<index_t> runs(static_cast<std::size_t>(size) + 1);
  for (int r = 0; r < size; ++r) runs[r] = recv_displs[r];
  runs[size] = received;
  sweep::detail::merge_runs(std::string("sweep::mpi::sort::merge"), space, result.keys, result.values, runs, mask);
  space.fence();
  std::tie(result.offset, result.total) = detail::offset_and_total(comm, received);
  return result;
}

}  // namespace sweep::mpi
