// Bitmask pack/unpack index: from a bitmask of n bits, pack an array (keep
// the elements whose bit is set, in order), unpack it (scatter back; unset
// positions untouched), and map packed index k to expanded position
// (select) and expanded position i to packed index (rank, the set bits
// before i), in batches or one at a time inside kernels.
//
//   sweep::bitmask_index<Encoding, MemorySpace> idx(space, words, n_bits);
//   idx.size(); idx.count(); idx.bytes();      // bits, set bits, index bytes
//   idx.pack(space, expanded_in, packed_out);
//   idx.unpack(space, packed_in, expanded_out);
//   idx.select(space, packed_indices, expanded_out);
//   idx.rank(space, expanded_indices, packed_out);
//   auto d = idx.device_view(); d.select(k); d.rank(i); d.test(i);
//
// `words`: rank-1 contiguous View of uint32 in MemorySpace, bit i = bit
// i%32 of word i/32; bits past n_bits are ignored. The index keeps a
// reference to `words` (no copy): change the mask and build a new index.
// Setup once, apply to any element type, any number of times.
//
// Encodings (sweep::bitmask::...), with the index size for n bits:
//   full_permutation       the packed -> expanded positions (32 bits per
//                          set bit: up to 32x the mask); pack/unpack gather
//                          and scatter through them. n_bits <= 2^32.
//   fixed_inclusive<S1,S2> two layers above the mask from the inclusive
//                          scan: a 16-bit count per S1 bits, a 64-bit count
//                          per S1*S2 bits (default 2^7, 2^8: 12.5%).
//   fixed_exclusive<S1,S2> the same from the exclusive scan (default 2^8,
//                          2^8: 6.3%).
//   dynamic_exclusive      16-bit counts per 1024 bits, then 64-bit layers
//                          of fan-out 2^5 while a layer has > 32 entries
//                          (1.8%).
//   The three trees pack/unpack by descending the tree for every packed
//   element (select), in parallel over the packed elements.
//   rank_select            Sweep's design: O(1) rank from interleaved
//                          superblock/basic-block counts, sampled select
//                          (<= 3.6%); pack/unpack stream the mask word by
//                          word from the rank of each chunk, so their cost
//                          is one pass over mask and elements at any
//                          density. n_bits < 2^43.
//
// Bandwidth model of pack and unpack: mask n/8 bytes, plus the count()
// elements read and the count() written. select/rank cost one descent per
// query (rank_select: one or two cache lines for rank, a few for select).
//
// On CUDA (cuda/bitmask.hpp) the trees descend warp-cooperatively (a
// ballot vote, coalesced loads of 32 entries or pivots, per-thread binary
// search once the warp's queries diverge) in select, pack and unpack, and
// rank_select packs and unpacks with one warp per 1024 mask bits.
//
// Errors (std::invalid_argument naming the sizes, nothing written):
// negative n_bits or `words` shorter than ceil(n_bits/32); a packed array
// whose length is not count(); an expanded array shorter than n_bits;
// batch outputs shorter than their inputs or too narrow for the values;
// select(k) with k outside [0, count()) or rank(i) outside [0, n_bits];
// arrays that overlap (select/rank may write their results over their
// queries when both are the same View), or an output that overlaps the
// mask words the index reads. Inside kernels, device_view's select and rank
// return sweep::bitmask::npos (-1) out of range; test(i) is false.
#pragma once

#include <sweep/core.hpp>
#include <sweep/detail/bitmask_backend.hpp>
#include <sweep/detail/bitmask_rank_select.hpp>
#include <sweep/detail/bitmask_trees.hpp>

#include <limits>
#include <string>
#include <type_traits>

namespace sweep {
namespace bitmask {

struct full_permutation {};
template <unsigned S1 = (1u << 7), unsigned S2 = (1u << 8)>
struct fixed_inclusive {};
template <unsigned S1 = (1u << 8), unsigned S2 = (1u << 8)>
struct fixed_exclusive {};
struct dynamic_exclusive {};
struct rank_select {};

/// What device-side select/rank return out of range.
inline constexpr index_t npos = -1;

}  // namespace bitmask

/// Run-time knob of pack and unpack: the work of one parallel task.
/// rank_select on a CPU: mask bits per task (rounded to whole 64-bit
/// words; default 131072); the trees and full_permutation: packed elements
/// per scheduling chunk (default: the backend's). 0 keeps the default.
struct bitmask_options {
  index_t work_item = 0;
};

namespace detail {

template <class Encoding, class Mem>
struct bitmask_encoding;
template <class Mem>
struct bitmask_encoding<bitmask::full_permutation, Mem> {
  using view = permutation_view<Mem>;
  static constexpr bool streaming = false;
  static constexpr bool tree = false;  // CUDA: warp-cooperative descents
  static std::string name() { return "full_permutation"; }
};
template <unsigned S1, unsigned S2, class Mem>
struct bitmask_encoding<bitmask::fixed_inclusive<S1, S2>, Mem> {
  using view = fixed_tree_view<true, S1, S2, Mem>;
  static constexpr bool streaming = false;
  static constexpr bool tree = true;  // CUDA: warp-cooperative descents
  static std::string name() { return concat("fixed_inclusive<", S1, ",", S2, ">"); }
};
template <unsigned S1, unsigned S2, class Mem>
struct bitmask_encoding<bitmask::fixed_exclusive<S1, S2>, Mem> {
  using view = fixed_tree_view<false, S1, S2, Mem>;
  static constexpr bool streaming = false;
  static constexpr bool tree = true;  // CUDA: warp-cooperative descents
  static std::string name() { return concat("fixed_exclusive<", S1, ",", S2, ">"); }
};
template <class Mem>
struct bitmask_encoding<bitmask::dynamic_exclusive, Mem> {
  using view = dynamic_tree_view<Mem>;
  static constexpr bool streaming = false;
  static constexpr bool tree = true;  // CUDA: warp-cooperative descents
  static std::string name() { return "dynamic_exclusive"; }
};
template <class Mem>
struct bitmask_encoding<bitmask::rank_select, Mem> {
  using view = rank_select_view<Mem>;
  static constexpr bool streaming = true;
  static constexpr bool tree = false;  // CUDA: warp-cooperative descents
  static std::string name() { return "rank_select"; }
};

/// q in [0, max] (false for every q when max < 0).
template <class Q>
KOKKOS_INLINE_FUNCTION bool query_in_range(Q q, index_t max) {
  if (max < 0) return false;
  if constexpr (std::is_signed_v<Q>) {
    if (q < Q(0)) return false;
  }
  return static_cast<std::uint64_t>(q) <= static_cast<std::uint64_t>(max);
}

/// Door of select/rank: shapes, output range, then every query in
/// [0, max_query] (one reduction), before anything is written.
template <class MemorySpace, class ExecSpace, class InView, class OutView>
void check_queries(const std::string& where, const ExecSpace& space, const InView& queries,
                          const OutView& out, index_t max_query, index_t max_value) {
  static_assert(is_rank1_view_v<InView> && is_rank1_view_v<OutView>,
                "sweep::bitmask_index: queries and results must be rank-1 Views");
  static_assert(accessible_from_v<ExecSpace, InView> && accessible_from_v<ExecSpace, OutView>,
                "sweep::bitmask_index: queries and results must be accessible from the execution space");
  static_assert(Kokkos::SpaceAccessibility<ExecSpace, MemorySpace>::accessible,
                "sweep::bitmask_index: the execution space must access the index's memory space");
  using Q = typename InView::non_const_value_type;
  using R = typename OutView::value_type;
  static_assert(std::is_integral_v<Q> && std::is_integral_v<R> && !std::is_const_v<R>,
                "sweep::bitmask_index: queries and results must be Views of integers (results non-const)");
  const index_t n = static_cast<index_t>(queries.extent(0));
  require(static_cast<index_t>(out.extent(0)) >= n, where.c_str(), "the results View has ", out.extent(0),
          " elements for ", n, " queries");
  require(static_cast<std::uint64_t>(std::numeric_limits<R>::max()) >= static_cast<std::uint64_t>(max_value),
          where.c_str(), "results of up to ", max_value, " do not fit the results' type");
  require(!overlap(queries, out) || same_elements(queries, out), where.c_str(),
          "queries and results overlap");
  if (n == 0) return;
  index_t first_bad = n;
  Kokkos::parallel_reduce(
      where + "::check", sweep::detail::range_policy<ExecSpace>(space, 0, n),
      KOKKOS_LAMBDA(const index_t t, index_t& bad) {
        if (!query_in_range(queries(t), max_query) && t < bad) bad = t;
      },
      Kokkos::Min<index_t>(first_bad));
  if (first_bad < n) {
    auto one = Kokkos::subview(queries, std::make_pair(first_bad, first_bad + 1));
    auto host = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), one);
    require(false, where.c_str(), "query ", first_bad, " is ", static_cast<index_t>(host(0)),
            ", outside [0, ", max_query, "]");
  }
}
}  // namespace detail

template <class Encoding, class MemorySpace = Kokkos::DefaultExecutionSpace::memory_space>
class bitmask_index {
  using traits = detail::bitmask_encoding<Encoding, MemorySpace>;

 public:
  using encoding = Encoding;
  using memory_space = MemorySpace;
  using device_view_type = typename traits::view;
  using words_view = Kokkos::View<const std::uint32_t*, MemorySpace>;

  /// Builds the index of bits [0, n_bits) of `words` on `space`.
  template <class ExecSpace, class Words>
    requires Kokkos::is_execution_space<ExecSpace>::value
  bitmask_index(const ExecSpace& space, const Words& words, index_t n_bits) {
    static_assert(Kokkos::SpaceAccessibility<ExecSpace, MemorySpace>::accessible,
                  "sweep::bitmask_index: the execution space must access the index's memory space");
    static_assert(detail::is_rank1_view_v<Words> &&
                      std::is_same_v<typename Words::non_const_value_type, std::uint32_t> &&
                      std::is_same_v<typename Words::memory_space, MemorySpace>,
                  "sweep::bitmask_index: `words` must be a rank-1 View of uint32 in the index's memory space");
    const std::string where = "sweep::bitmask_index<" + traits::name() + ">";
    detail::require(n_bits >= 0, where.c_str(), "n_bits is negative (", n_bits, ")");
    const index_t need = (n_bits + 31) / 32;
    detail::require(static_cast<index_t>(words.extent(0)) >= need, where.c_str(), "words has ", words.extent(0),
            " elements but ", n_bits, " bits need ", need);
    detail::require(words.extent(0) <= 1 || words.stride(0) == 1, where.c_str(), "words must be contiguous");
    detail::scoped_region region(where + "::setup");
    m_view = device_view_type::build(space, detail::mask_ref<MemorySpace>(words_view(words), n_bits), where);
    space.fence();
  }

  index_t size() const { return m_view.mask.n; }
  index_t count() const { return m_view.ones; }
  /// Bytes of the index itself (the mask is the caller's and not counted).
  std::size_t bytes() const { return m_view.bytes(); }
  device_view_type device_view() const { return m_view; }
  static std::string encoding_name() { return traits::name(); }

  /// packed_out[k] = expanded_in[select(k)] for k in [0, count()).
  template <class ExecSpace, class InView, class OutView>
  void pack(const ExecSpace& space, const InView& expanded_in, const OutView& packed_out,
            const bitmask_options& opt = {}) const {
    const std::string where = "sweep::bitmask_index<" + traits::name() + ">::pack";
    detail::require(opt.work_item >= 0, where.c_str(), "work_item is negative (", opt.work_item, ")");
    check_arrays<ExecSpace, InView, OutView>(where, expanded_in, packed_out, size(), count());
    check_not_mask(where, packed_out, "the packed array");
    detail::scoped_region region(where);
    if (count() == 0) return;
    detail::bitmask_backend<ExecSpace>::template pack<traits>(space, where, m_view, expanded_in, packed_out,
                                                              opt.work_item);
  }

  /// expanded_out[select(k)] = packed_in[k]; unset positions are untouched.
  template <class ExecSpace, class InView, class OutView>
  void unpack(const ExecSpace& space, const InView& packed_in, const OutView& expanded_out,
              const bitmask_options& opt = {}) const {
    const std::string where = "sweep::bitmask_index<" + traits::name() + ">::unpack";
    detail::require(opt.work_item >= 0, where.c_str(), "work_item is negative (", opt.work_item, ")");
    check_arrays<ExecSpace, OutView, InView>(where, expanded_out, packed_in, size(), count());
    check_not_mask(where, expanded_out, "the expanded array");
    detail::scoped_region region(where);
    if (count() == 0) return;
    detail::bitmask_backend<ExecSpace>::template unpack<traits>(space, where, m_view, packed_in, expanded_out,
                                                                opt.work_item);
  }

  /// expanded_out[t] = select(packed_indices[t]); every index in [0, count()).
  template <class ExecSpace, class InView, class OutView>
  void select(const ExecSpace& space, const InView& packed_indices, const OutView& expanded_out) const {
    const std::string where = "sweep::bitmask_index<" + traits::name() + ">::select";
    check_not_mask(where, expanded_out, "the results View");
    detail::check_queries<MemorySpace>(where, space, packed_indices, expanded_out, count() - 1, size());
    detail::scoped_region region(where);
    detail::bitmask_backend<ExecSpace>::template select<traits>(space, where, m_view, packed_indices, expanded_out);
  }

  /// packed_out[t] = rank(expanded_indices[t]); every index in [0, size()].
  template <class ExecSpace, class InView, class OutView>
  void rank(const ExecSpace& space, const InView& expanded_indices, const OutView& packed_out) const {
    const std::string where = "sweep::bitmask_index<" + traits::name() + ">::rank";
    check_not_mask(where, packed_out, "the results View");
    detail::check_queries<MemorySpace>(where, space, expanded_indices, packed_out, size(), count());
    detail::scoped_region region(where);
    detail::bitmask_backend<ExecSpace>::template rank<traits>(space, where, m_view, expanded_indices, packed_out);
  }

 private:
  device_view_type m_view;

  /// An output over the mask words would change the mask while the index
  /// reads it (only the ceil(n_bits/32) words read count).
  template <class OutView>
  void check_not_mask(const std::string& where, const OutView& out, const char* name) const {
    const auto read = Kokkos::subview(m_view.mask.words, std::make_pair(index_t(0), m_view.mask.n32));
    detail::require(!detail::overlap(out, read), where.c_str(), name, " (", out.extent(0),
                    " elements) overlaps the mask's ", m_view.mask.n32, " words");
  }

  template <class ExecSpace, class Expanded, class Packed>
  static void check_arrays(const std::string& where, const Expanded& expanded, const Packed& packed, index_t n,
                           index_t ones) {
    static_assert(detail::is_rank1_view_v<Expanded> && detail::is_rank1_view_v<Packed>,
                  "sweep::bitmask_index: arrays must be rank-1 Views");
    static_assert(detail::accessible_from_v<ExecSpace, Expanded> && detail::accessible_from_v<ExecSpace, Packed>,
                  "sweep::bitmask_index: arrays must be accessible from the execution space");
    static_assert(Kokkos::SpaceAccessibility<ExecSpace, MemorySpace>::accessible,
                  "sweep::bitmask_index: the execution space must access the index's memory space");
    static_assert(std::is_same_v<typename Expanded::non_const_value_type, typename Packed::non_const_value_type>,
                  "sweep::bitmask_index: packed and expanded arrays must hold the same type");
    detail::require(static_cast<index_t>(expanded.extent(0)) >= n, where.c_str(), "the expanded array has ",
            expanded.extent(0), " elements but the mask has ", n, " bits");
    detail::require(static_cast<index_t>(packed.extent(0)) == ones, where.c_str(), "the packed array has ",
            packed.extent(0), " elements but the mask has ", ones, " set bits");
    detail::require(!detail::overlap(expanded, packed), where.c_str(), "the packed and expanded arrays overlap");
  }

};

}  // namespace sweep
