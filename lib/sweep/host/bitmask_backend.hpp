// bitmask_backend for host spaces: loops run ranges of indices per task,
// compiled for POPCNT when the CPU has it (the loop body is inlined into
// the range loop and takes its target, so select's and rank's popcounts are
// one instruction, not a library call); rank_select packs and unpacks
// dense masks through the word-walking kernels of host/bitmask_kernels.hpp
// (block copies, AVX2 lane permutations, AVX-512 compress and expand) when
// both arrays are contiguous, and answers batches of select and rank
// queries with several queries' cache misses in flight.
#pragma once

#include <sweep/detail/bitmask_backend.hpp>
#include <sweep/detail/bitmask_words.hpp>
#include <sweep/host/bitmask_kernels.hpp>
#include <sweep/host/isa.hpp>

#include <array>
#include <bit>
#include <cstdint>
#include <cstring>

namespace sweep::detail {

template <class F>
void host_popcount_loop_plain(index_t begin, index_t end, const F& f) {
  for (index_t i = begin; i < end; ++i) f(i);
}
#if SWEEP_HOST_MULTI
#pragma GCC push_options
#pragma GCC target("popcnt")
template <class F>
void host_popcount_loop_fast(index_t begin, index_t end, const F& f) {
  for (index_t i = begin; i < end; ++i) f(i);
}
#pragma GCC pop_options
#endif

/// f(i) for i in [begin, end), through the POPCNT build where allowed.
template <class F>
void host_popcount_loop(index_t begin, index_t end, const F& f) {
#if SWEEP_HOST_MULTI
  if (host::uses(host::isa::avx2)) return host_popcount_loop_fast(begin, end, f);
#endif
  host_popcount_loop_plain(begin, end, f);
}

/// A host-callable contiguous pointer for `v`, or null.
template <class View>
auto contiguous_data(const View& v) -> decltype(v.data()) {
  return v.extent(0) <= 1 || v.stride(0) == 1 ? v.data() : nullptr;
}

/// select_in_byte[b][r]: the position of the r-th set bit of byte b
/// (r below b's count; 0 past it).
inline constexpr auto select_in_byte = [] {
  std::array<std::array<std::uint8_t, 8>, 256> t{};
  for (int b = 0; b < 256; ++b)
    for (int i = 0, r = 0; i < 8; ++i)
      if ((b >> i) & 1) t[b][r++] = static_cast<std::uint8_t>(i);
  return t;
}();

/// The position of the r-th set bit of w, r below popcount(w), with no
/// data-dependent branch: the bytes' running counts in one multiply, the
/// byte holding the bit as the count of running counts at or below r
/// (compared in all eight bytes at once), then the byte's table row.
[[gnu::always_inline]] inline int select_in_word(std::uint64_t w, int r) {
  constexpr std::uint64_t low = 0x0101010101010101u, high = 0x8080808080808080u;
  std::uint64_t x = w - ((w >> 1) & 0x5555555555555555u);
  x = (x & 0x3333333333333333u) + ((x >> 2) & 0x3333333333333333u);
  x = (x + (x >> 4)) & 0x0f0f0f0f0f0f0f0fu;
  const std::uint64_t running = x * low;  // byte b: set bits in bytes 0..b (at most 64)
  const int byte = popcount64(((std::uint64_t(r) * low | high) - running) & high);
  const int before = static_cast<int>(((running << 8) >> (8 * byte)) & 0xff);
  return 8 * byte + select_in_byte[(w >> (8 * byte)) & 0xff][r - before];
}

template <class ExecSpace>
struct bitmask_backend<ExecSpace, host_kind> : bitmask_backend<ExecSpace, portable_kind> {
  using base = bitmask_backend<ExecSpace, portable_kind>;

  template <class F>
  static void for_each(const ExecSpace& space, const std::string& label, index_t n, index_t grain, const F& f) {
    if (grain <= 0) grain = tuning<ExecSpace>::bitmask::grain(space, n);
    const index_t ranges = (n + grain - 1) / grain;
    Kokkos::parallel_for(label, sweep::detail::range_policy<ExecSpace>(space, 0, ranges),
                         [=](const index_t r) {
                           const index_t b = r * grain;
                           host_popcount_loop(b, b + grain < n ? b + grain : n, f);
                         });
  }

  template <class Traits, class View, class In, class Out>
  static void pack(const ExecSpace& space, const std::string& where, const View& v, const In& expanded,
                   const Out& packed, index_t work_item) {
    if constexpr (Traits::streaming) {
      const auto* in = contiguous_data(expanded);
      auto* out = contiguous_data(packed);
      if (!v.sparse && in != nullptr && out != nullptr) {
        const host_mask m{v.mask.words.data(), v.mask.n};
        word_ranges(space, where, v, work_item, [=](index_t w0, index_t w1, index_t k0, index_t k1) {
          host_pack_words(m, w0, w1, in, out + k0, out + k1);
        });
        return;
      }
    }
    base::template pack<Traits>(space, where, v, expanded, packed, work_item);
  }

  template <class Traits, class View, class In, class Out>
  static void unpack(const ExecSpace& space, const std::string& where, const View& v, const In& packed,
                     const Out& expanded, index_t work_item) {
    if constexpr (Traits::streaming) {
      const auto* in = contiguous_data(packed);
      auto* out = contiguous_data(expanded);
      if (!v.sparse && in != nullptr && out != nullptr) {
        const host_mask m{v.mask.words.data(), v.mask.n};
        word_ranges(space, where, v, work_item, [=](index_t w0, index_t w1, index_t k0, index_t k1) {
          host_unpack_words(m, w0, w1, in + k0, in + k1, out);
        });
        return;
      }
    }
    base::template unpack<Traits>(space, where, v, packed, expanded, work_item);
  }

  /// out(t) = select(queries(t)); rank_select's dense layout takes a
  /// task's queries in groups of query_group, three passes over each that
  /// issue the loads of the next before any of them is needed: the
  /// samples; the superblock search (the entries, 0.4% of the mask, stay
  /// cached) and the basic block's mask line; the word walk.
  template <class Traits, class View, class Queries, class Out>
  static void select(const ExecSpace& space, const std::string& where, const View& v, const Queries& queries,
                     const Out& out) {
    if constexpr (Traits::streaming) {
      if (!v.sparse) {
        using R = typename Out::value_type;
        query_tasks(space, where, static_cast<index_t>(queries.extent(0)), [=](index_t b, index_t e) {
          typename View::select_start at[query_group];
          for (index_t t0 = b; t0 < e; t0 += query_group) {
            const index_t t1 = t0 + query_group < e ? t0 + query_group : e;
            for (index_t t = t0; t < t1; ++t)
              __builtin_prefetch(v.samples.data() + (static_cast<index_t>(queries(t)) >> v.sample_shift), 0, 3);
            for (index_t t = t0; t < t1; ++t) {
              at[t - t0] = dense_select_locate(v, static_cast<index_t>(queries(t)));
              prefetch_basic_block(v, at[t - t0].word);
            }
            for (index_t t = t0; t < t1; ++t)
              out(t) = static_cast<R>(dense_select_in_block(v, at[t - t0]));
          }
        });
        return;
      }
    }
    base::template select<Traits>(space, where, v, queries, out);
  }

  /// out(t) = rank(queries(t)); rank_select fetches what query
  /// t + query_group reads while it answers query t: the dense layout's
  /// basic block, or the first and last of the sparse layout's positions
  /// in the query's 2^14-bit block (the counts per block, 0.2% of the mask,
  /// stay cached), so the binary search among them does not wait for
  /// memory at each step.
  template <class Traits, class View, class Queries, class Out>
  static void rank(const ExecSpace& space, const std::string& where, const View& v, const Queries& queries,
                   const Out& out) {
    if constexpr (Traits::streaming) {
      using R = typename Out::value_type;
      const index_t n = v.mask.n;
      const index_t nq = static_cast<index_t>(queries.extent(0));
      if (v.sparse)
        query_tasks(space, where, nq, [=](index_t b, index_t e) {
          for (index_t t = b; t < e; ++t) {
            if (t + query_group < e) {
              const index_t i = static_cast<index_t>(queries(t + query_group));
              if (i >= 0 && i < n) prefetch_positions(v, i >> View::coarse_shift);
            }
            const index_t i = static_cast<index_t>(queries(t));
            if (i < 0 || i >= n) {
              out(t) = static_cast<R>(v.rank(i));  // the count at n, npos outside [0, n]
              continue;
            }
            const index_t block = i >> View::coarse_shift;
            out(t) = static_cast<R>(
                first_above_short(v.positions, index_t(v.coarse(block)), index_t(v.coarse(block + 1)), i - 1));
          }
        });
      else
        query_tasks(space, where, nq, [=](index_t b, index_t e) {
          for (index_t t = b; t < e; ++t) {
            if (t + query_group < e) {
              const index_t i = static_cast<index_t>(queries(t + query_group));
              if (i < n) prefetch_basic_block(v, View::basic_block_word(i));  // rank(n) reads no word
            }
            out(t) = static_cast<R>(dense_rank(v, static_cast<index_t>(queries(t))));
          }
        });
      return;
    }
    base::template rank<Traits>(space, where, v, queries, out);
  }

 private:
  /// Queries in flight in the batched select and rank: enough cache misses
  /// to cover the memory's latency (bench_bitmask's rank_random rows took
  /// the same time with rank fetching 32 queries ahead).
  static constexpr index_t query_group = 16;

  /// Fetches the eight 64-bit mask words from `word` on (one basic block:
  /// one cache line, or two where the caller's mask is not 64-byte aligned).
  template <class View>
  static void prefetch_basic_block(const View& v, index_t word) {
    const char* p = reinterpret_cast<const char*>(v.mask.words.data() + 2 * word);
    __builtin_prefetch(p, 0, 3);
    if ((reinterpret_cast<std::uintptr_t>(p) & 63) != 0) __builtin_prefetch(p + 63, 0, 3);
  }

  /// rank(i) on the dense layout where i's basic block lies wholly inside
  /// the caller's words: the entry's counts, then the block's words before
  /// i read as 64-bit loads of one line (rank_select_view::rank assembles
  /// each word from two 32-bit halves and tests it against n; 2^22 random
  /// queries on 2^26 bits took 49-57 ms this way, 57-80 through the view).
  /// rank_select_view::rank for the last block, n and indices outside
  /// [0, n].
  template <class View>
  static index_t dense_rank(const View& v, index_t i) {
    const index_t first = View::basic_block_word(i);
    if (std::endian::native != std::endian::little || i < 0 || i >= v.mask.n || 2 * first + 16 > v.mask.n32)
      return v.rank(i);
    index_t r = v.before_basic_block(i);
    const char* p = reinterpret_cast<const char*>(v.mask.words.data() + 2 * first);
    const int k = static_cast<int>((i >> 6) & 7);
    std::uint64_t w;
    for (int j = 0; j < k; ++j) {
      std::memcpy(&w, p + 8 * j, 8);
      r += popcount64(w);
    }
    std::memcpy(&w, p + 8 * k, 8);
    return r + popcount64(w & ((std::uint64_t(1) << (i & 63)) - 1));
  }

  /// rank_select_view::select_locate with selects in place of its
  /// data-dependent branches: the superblock found by halving the samples'
  /// range (the step count depends on the range's length only), the basic
  /// block by comparing rem with the entry's three running counts. Valid
  /// queries only (the batch's range check runs first).
  template <class View>
  [[gnu::always_inline]] static typename View::select_start dense_select_locate(const View& v, index_t k) {
    const index_t j = k >> v.sample_shift;
    index_t lo = v.samples(j);
    index_t len = (j + 1 < v.n_samples ? index_t(v.samples(j + 1)) + 1 : v.n_super) - lo;
    while (len > 1) {  // the last superblock in [lo, lo + len) starting at or before k
      const index_t half = len / 2;
      lo = v.super_before(lo + half) <= k ? lo + half : lo;
      len -= half;
    }
    const std::uint64_t e = v.l12(lo);
    const index_t rem = k - v.super_before(lo);
    const index_t c1 = index_t((e >> 32) & 0x3ff);
    const index_t c2 = c1 + index_t((e >> 42) & 0x3ff);
    const index_t c3 = c2 + index_t((e >> 52) & 0x3ff);
    index_t basic = 0, before = 0;
    basic = rem >= c1 ? 1 : basic;
    before = rem >= c1 ? c1 : before;
    basic = rem >= c2 ? 2 : basic;
    before = rem >= c2 ? c2 : before;
    basic = rem >= c3 ? 3 : basic;
    before = rem >= c3 ? c3 : before;
    return {lo * View::super_words + 8 * basic, rem - before};
  }

  /// rank_select_view::select_in_block where the basic block lies wholly
  /// inside the caller's words: its eight words read as 64-bit loads, the
  /// word holding the set bit picked by counting the running counts at or
  /// below rem, the bit by select_in_word; the view's walk for the last
  /// block. (Bits past n in the last word lie above every set bit, and
  /// rem is below the block's count, so they are never reached.)
  template <class View>
  [[gnu::always_inline]] static index_t dense_select_in_block(const View& v,
                                                              const typename View::select_start& s) {
    if (std::endian::native != std::endian::little || 2 * s.word + 16 > v.mask.n32) return v.select_in_block(s);
    const char* p = reinterpret_cast<const char*>(v.mask.words.data() + 2 * s.word);
    std::uint64_t w[8];
    int before[8];
    const int r = static_cast<int>(s.rem);
    int total = 0, j = 0;
    for (int q = 0; q < 8; ++q) {
      std::memcpy(&w[q], p + 8 * q, 8);
      before[q] = total;
      total += popcount64(w[q]);
      j += total <= r;
    }
    return 64 * (s.word + j) + select_in_word(w[j], r - before[j]);
  }

  /// Fetches the first and last position of the sparse layout's block
  /// `block` (its positions span one or two cache lines at the densities
  /// that take the layout).
  template <class View>
  static void prefetch_positions(const View& v, index_t block) {
    const index_t lo = v.coarse(block), hi = v.coarse(block + 1);
    if (hi == lo) return;
    __builtin_prefetch(v.positions.data() + lo, 0, 3);
    __builtin_prefetch(v.positions.data() + hi - 1, 0, 3);
  }

  /// f(b, e) over the ranges of [0, n) the tasks take (the tuning's
  /// indices per task, rounded up to whole groups of query_group), each
  /// through the POPCNT build where allowed.
  template <class F>
  static void query_tasks(const ExecSpace& space, const std::string& label, index_t n, const F& f) {
    const index_t grain = tuning<ExecSpace>::bitmask::grain(space, n);
    const index_t per_task = (grain + query_group - 1) / query_group * query_group;
    const index_t tasks = (n + per_task - 1) / per_task;
    Kokkos::parallel_for(label, sweep::detail::range_policy<ExecSpace>(space, 0, tasks), [=](const index_t r) {
      const index_t b = r * per_task, e = b + per_task < n ? b + per_task : n;
      host_popcount_loop(r, r + 1, [&](index_t) { f(b, e); });
    });
  }

  /// f(w0, w1, k0, k1) over ranges [w0, w1) of the mask's 64-bit words,
  /// whose set bits are packed elements [k0, k1): work_item mask bits per
  /// task (rounded up to whole words), or the tuning's words per task.
  template <class View, class F>
  static void word_ranges(const ExecSpace& space, const std::string& label, const View& v, index_t work_item,
                          const F& f) {
    const index_t n64 = v.mask.n64, ones = v.ones;
    const index_t chunk = work_item > 0 ? (work_item + 63) / 64 : tuning<ExecSpace>::bitmask::words_per_task;
    const index_t chunks = (n64 + chunk - 1) / chunk;
    Kokkos::parallel_for(label, sweep::detail::range_policy<ExecSpace>(space, 0, chunks),
                         [=](const index_t c) {
                           const index_t w0 = c * chunk;
                           const index_t w1 = w0 + chunk < n64 ? w0 + chunk : n64;
                           f(w0, w1, v.rank(64 * w0), w1 < n64 ? v.rank(64 * w1) : ones);
                         });
  }
};

}  // namespace sweep::detail
