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
// arrays that overlap. Inside kernels, device_view's select and rank
// return sweep::bitmask::npos (-1) out of range; test(i) is false.
#pragma once

#include <sweep/core.hpp>
#include <sweep/detail/bitmask_rank_select.hpp>
#include <sweep/detail/bitmask_trees.hpp>
#include <sweep/detail/host_bitmask_kernels.hpp>
#include <sweep/detail/scan_io.hpp>

#if defined(KOKKOS_ENABLE_CUDA) && defined(__CUDACC__)
#include <sweep/cuda/bitmask.hpp>
#define SWEEP_BITMASK_CUDA 1
#else
#define SWEEP_BITMASK_CUDA 0
#endif

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

/// Pack and unpack by one select per packed element.
template <class ExecSpace, class View, class InView, class OutView>
void gather_by_select(const ExecSpace& space, const std::string& where, const View& v,
                   const InView& expanded_in, const OutView& packed_out, const bitmask_options& opt) {
  bitmask_for(space, where, v.ones, opt.work_item,
                      KOKKOS_LAMBDA(const index_t k) { packed_out(k) = expanded_in(v.select(k)); });
}
template <class ExecSpace, class View, class InView, class OutView>
void scatter_by_select(const ExecSpace& space, const std::string& where, const View& v,
                    const InView& packed_in, const OutView& expanded_out, const bitmask_options& opt) {
  bitmask_for(space, where, v.ones, opt.work_item,
                      KOKKOS_LAMBDA(const index_t k) { expanded_out(v.select(k)) = packed_in(k); });
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
      where + "::check", Kokkos::RangePolicy<ExecSpace, Kokkos::IndexType<index_t>>(space, 0, n),
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
/// A host-callable contiguous pointer for `v`, or null.
template <class View>
auto contiguous_data(const View& v) -> decltype(v.data()) {
  return v.extent(0) <= 1 || v.stride(0) == 1 ? v.data() : nullptr;
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
    detail::scoped_region region(where);
    if (count() == 0) return;
    const device_view_type v = m_view;
    using T = typename OutView::value_type;
#if SWEEP_BITMASK_CUDA
    if constexpr (std::is_same_v<ExecSpace, Kokkos::Cuda>) {
      if constexpr (traits::streaming) {
        if (!v.sparse) return cuda::stream<true>(space, where, v, expanded_in, packed_out);
      } else if constexpr (traits::tree) {
        return cuda::move_by_select<true>(space, where, v, expanded_in, packed_out);
      }
    }
#endif
    if constexpr (traits::streaming) {
      if (v.sparse) return detail::gather_by_select(space, where, v, expanded_in, packed_out, opt);
      if constexpr (detail::is_host_space_v<ExecSpace>) {
        const T* in = detail::contiguous_data(expanded_in);
        T* out = detail::contiguous_data(packed_out);
        if (in != nullptr && out != nullptr) {
          const detail::host_mask m{v.mask.words.data(), v.mask.n};
          const index_t n64 = v.mask.n64, ones = v.ones;
          for_chunks(space, where, n64, opt, [=](index_t w0, index_t w1) {
            const index_t k1 = w1 < n64 ? v.rank(64 * w1) : ones;
            detail::host_pack_words(m, w0, w1, in, out + v.rank(64 * w0), out + k1);
          });
          return;
        }
      }
      detail::bitmask_for(
          space, where, v.mask.n64, 0, KOKKOS_LAMBDA(const index_t j) {
            index_t k = v.rank(64 * j);
            for (std::uint64_t w = v.mask.word(j); w != 0; w &= w - 1)
              packed_out(k++) = expanded_in(64 * j + detail::ctz64(w));
          });
    } else {
      detail::gather_by_select(space, where, v, expanded_in, packed_out, opt);
    }
  }

  /// expanded_out[select(k)] = packed_in[k]; unset positions are untouched.
  template <class ExecSpace, class InView, class OutView>
  void unpack(const ExecSpace& space, const InView& packed_in, const OutView& expanded_out,
              const bitmask_options& opt = {}) const {
    const std::string where = "sweep::bitmask_index<" + traits::name() + ">::unpack";
    detail::require(opt.work_item >= 0, where.c_str(), "work_item is negative (", opt.work_item, ")");
    check_arrays<ExecSpace, InView, OutView>(where, expanded_out, packed_in, size(), count());
    detail::scoped_region region(where);
    if (count() == 0) return;
    const device_view_type v = m_view;
    using T = typename OutView::value_type;
#if SWEEP_BITMASK_CUDA
    if constexpr (std::is_same_v<ExecSpace, Kokkos::Cuda>) {
      if constexpr (traits::streaming) {
        if (!v.sparse) return cuda::stream<false>(space, where, v, expanded_out, packed_in);
      } else if constexpr (traits::tree) {
        return cuda::move_by_select<false>(space, where, v, packed_in, expanded_out);
      }
    }
#endif
    if constexpr (traits::streaming) {
      if (v.sparse) return detail::scatter_by_select(space, where, v, packed_in, expanded_out, opt);
      if constexpr (detail::is_host_space_v<ExecSpace>) {
        const T* in = detail::contiguous_data(packed_in);
        T* out = detail::contiguous_data(expanded_out);
        if (in != nullptr && out != nullptr) {
          const detail::host_mask m{v.mask.words.data(), v.mask.n};
          const T* in_end = in + v.ones;
          for_chunks(space, where, v.mask.n64, opt, [=](index_t w0, index_t w1) {
            detail::host_unpack_words(m, w0, w1, in + v.rank(64 * w0), in_end, out);
          });
          return;
        }
      }
      detail::bitmask_for(
          space, where, v.mask.n64, 0, KOKKOS_LAMBDA(const index_t j) {
            index_t k = v.rank(64 * j);
            for (std::uint64_t w = v.mask.word(j); w != 0; w &= w - 1)
              expanded_out(64 * j + detail::ctz64(w)) = packed_in(k++);
          });
    } else {
      detail::scatter_by_select(space, where, v, packed_in, expanded_out, opt);
    }
  }

  /// expanded_out[t] = select(packed_indices[t]); every index in [0, count()).
  template <class ExecSpace, class InView, class OutView>
  void select(const ExecSpace& space, const InView& packed_indices, const OutView& expanded_out) const {
    const std::string where = "sweep::bitmask_index<" + traits::name() + ">::select";
    detail::check_queries<MemorySpace>(where, space, packed_indices, expanded_out, count() - 1, size());
    detail::scoped_region region(where);
    const device_view_type v = m_view;
    using R = typename OutView::value_type;
#if SWEEP_BITMASK_CUDA
    if constexpr (std::is_same_v<ExecSpace, Kokkos::Cuda> && traits::tree)
      return cuda::select(space, where, v, packed_indices, expanded_out);
#endif
    detail::bitmask_for(
        space, where, static_cast<index_t>(packed_indices.extent(0)), 0, KOKKOS_LAMBDA(const index_t t) {
          expanded_out(t) = static_cast<R>(v.select(static_cast<index_t>(packed_indices(t))));
        });
  }

  /// packed_out[t] = rank(expanded_indices[t]); every index in [0, size()].
  template <class ExecSpace, class InView, class OutView>
  void rank(const ExecSpace& space, const InView& expanded_indices, const OutView& packed_out) const {
    const std::string where = "sweep::bitmask_index<" + traits::name() + ">::rank";
    detail::check_queries<MemorySpace>(where, space, expanded_indices, packed_out, size(), count());
    detail::scoped_region region(where);
    const device_view_type v = m_view;
    using R = typename OutView::value_type;
    detail::bitmask_for(
        space, where, static_cast<index_t>(expanded_indices.extent(0)), 0, KOKKOS_LAMBDA(const index_t t) {
          packed_out(t) = static_cast<R>(v.rank(static_cast<index_t>(expanded_indices(t))));
        });
  }

 private:
  device_view_type m_view;

  /// Runs f(w0, w1) over ranges of 64-bit words, a few per thread.
  template <class ExecSpace, class F>
  static void for_chunks(const ExecSpace& space, const std::string& label, index_t n64, const bitmask_options& opt,
                         const F& f) {
    const index_t chunk = opt.work_item > 0 ? (opt.work_item + 63) / 64 : 2048;  // words
    const index_t chunks = (n64 + chunk - 1) / chunk;
    Kokkos::parallel_for(label, Kokkos::RangePolicy<ExecSpace, Kokkos::IndexType<index_t>>(space, 0, chunks),
                         [=](const index_t c) {
                           const index_t w0 = c * chunk;
                           f(w0, w0 + chunk < n64 ? w0 + chunk : n64);
                         });
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
