// bench_bitmask: the bitmask pack/unpack index, rows
// bitmask/<op>/<encoding>/<density_permille>/<log2n>[/w<work_item>]
// with <op> in setup, pack, unpack, select_random, rank_random, copy,
// copy_streaming.
//
// Masks: each bit set independently with probability density/1000 (a
// hash of its position, so every row sees the same mask). Elements int32.
// Counters:
//   bytes_per_second        the study's convention: setup per mask byte
//                           (n/8), pack/unpack per expanded int32 array
//                           (4n), queries per 16 bytes (index in, result
//                           out); copy: read + write of the expanded array.
//   moved_bytes_per_second  the bytes the operation must move: setup the
//                           mask (n/8) + the index it writes; pack/unpack
//                           the mask + count elements read + count
//                           written (n/8 + 8 count); queries as above.
//   line_bytes_per_second   pack/unpack on the line-granular model: the
//                           mask, every 64-byte line of the expanded
//                           array that holds a selected element (a
//                           sparse mask still moves whole lines), and the
//                           packed array (n/8 + 64 lines + 4 count); the
//                           figure compared with the copy ceiling.
//   index_bytes             the index (mask excluded); `density` the
//                           measured fraction of set bits.
// Peers in the same run: copy and copy_streaming (bench_support's two copy
// rows; the faster is the ceiling), std::copy_if (sequential
// pack), sdsl-lite rank_support_v5 / select_support_mcl (random rank and
// select, batches over the same OpenMP threads; CPU builds), and on CUDA
// cub::DeviceSelect::Flagged (pack from one flag byte per element, made
// from the mask outside the timed region; moved bytes count the flags).
//
// Row groups: (1) every encoding and op over densities at 2^26 bits
// (SWEEP_BENCH_BITMASK_LOG2N; densities from SWEEP_BENCH_BITMASK_PERMILLE,
// a comma-separated list, if set); (2) setup/pack/unpack over sizes
// 2^20..2^28 (SWEEP_BENCH_LOG2N_MIN/MAX) at 50%; (3) pack/unpack over the
// work item (sweep::bitmask_options) at 50%; (4) the fixed trees' layer
// sizes S1 x S2 (pack at 4% and 50%, index bytes).
#include "common/bench_support.hpp"

#include <sweep/bitmask_index.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <memory>
#include <vector>

#if defined(SWEEP_BENCH_HAVE_SDSL)
#include "bench_bitmask_sdsl.hpp"
#endif
#if defined(KOKKOS_ENABLE_CUDA)
#include <cub/device/device_select.cuh>
#endif

namespace {
using namespace sweep_bench;
namespace bm = sweep::bitmask;
using sweep::index_t;

KOKKOS_INLINE_FUNCTION std::uint64_t mix(std::uint64_t x) {  // splitmix64
  x += 0x9e3779b97f4a7c15ull;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}

/// The mask of 2^log2n bits at `permille`, built once.
const Kokkos::View<std::uint32_t*, Memory>& mask_for(int log2n, int permille) {
  static std::map<std::pair<int, int>, Kokkos::View<std::uint32_t*, Memory>> cache;
  if (cache.empty()) Kokkos::push_finalize_hook([] { cache.clear(); });
  auto& m = cache[{log2n, permille}];
  if (m.extent(0) != 0) return m;
  const index_t words = (index_t(1) << log2n) / 32;
  m = Kokkos::View<std::uint32_t*, Memory>("sweep::bench::mask", words);
  const auto mv = m;
  const std::uint64_t threshold = permille >= 1000 ? ~std::uint64_t(0) : (~std::uint64_t(0) / 1000) * permille;
  const bool all = permille >= 1000;
  Kokkos::parallel_for(
      "sweep::bench::make_mask", Kokkos::RangePolicy<Space>(0, words), KOKKOS_LAMBDA(const index_t w) {
        std::uint32_t bits = 0;
        for (int b = 0; b < 32; ++b)
          if (all || mix(std::uint64_t(32 * w + b) * 7 + std::uint64_t(permille)) < threshold) bits |= 1u << b;
        mv(w) = bits;
      });
  Kokkos::fence();
  return m;
}

template <class Enc>
std::string encoding_label() {
  std::string s = sweep::bitmask_index<Enc, Memory>::encoding_name();
  for (char& c : s)
    if (c == '<' || c == ',') c = '_';
  s.erase(std::remove(s.begin(), s.end(), '>'), s.end());
  return s;
}

void set_counters(benchmark::State& state, double bytes, double moved, double index_bytes, index_t ones, index_t n) {
  const auto it = static_cast<double>(state.iterations());
  state.SetBytesProcessed(static_cast<std::int64_t>(bytes * it));
  state.counters["moved_bytes_per_second"] = benchmark::Counter(moved * it, benchmark::Counter::kIsRate);
  state.counters["index_bytes"] = index_bytes;
  state.counters["density"] = n > 0 ? static_cast<double>(ones) / static_cast<double>(n) : 0.0;
}

/// Times `body` (after one untimed run) and sets the counters.
template <class Body>
void run_rows(benchmark::State& state, double bytes, double moved, double index_bytes, index_t ones, index_t n,
              Body&& body) {
  Space space;
  body();
  space.fence();
  for (auto _ : state) timed(state, space, body);
  set_counters(state, bytes, moved, index_bytes, ones, n);
}

template <class Enc>
void bench_setup(benchmark::State& state, int log2n, int permille) {
  const index_t n = index_t(1) << log2n;
  const auto& words = mask_for(log2n, permille);
  Space space;
  sweep::bitmask_index<Enc, Memory> idx(space, words, n);
  const double mask_bytes = static_cast<double>(n) / 8;
  run_rows(state, mask_bytes, mask_bytes + static_cast<double>(idx.bytes()), static_cast<double>(idx.bytes()),
           idx.count(), n, [&] { idx = sweep::bitmask_index<Enc, Memory>(space, words, n); });
}

/// The 64-byte lines of an int32 array (16 elements, one half-word of
/// the mask each) that hold at least one selected element.
index_t touched_lines(const Kokkos::View<std::uint32_t*, Memory>& mask) {
  index_t lines = 0;
  Kokkos::parallel_reduce(
      "sweep::bench::touched_lines", Kokkos::RangePolicy<Space>(0, mask.extent(0)),
      KOKKOS_LAMBDA(const index_t w, index_t& sum) {
        sum += index_t((mask(w) & 0xffffu) != 0) + index_t((mask(w) >> 16) != 0);
      },
      lines);
  return lines;
}

/// Sets line_bytes_per_second for a pack or unpack of 2^log2n elements.
void set_line_bytes(benchmark::State& state, int log2n, int permille, index_t ones) {
  const double lines = static_cast<double>(touched_lines(mask_for(log2n, permille)));
  const double bytes = std::ldexp(1.0, log2n) / 8 + 64.0 * lines + 4.0 * static_cast<double>(ones);
  state.counters["line_bytes_per_second"] =
      benchmark::Counter(bytes * static_cast<double>(state.iterations()), benchmark::Counter::kIsRate);
}

template <class Enc>
void bench_apply(benchmark::State& state, int log2n, int permille, bool pack, index_t work_item = 0) {
  const index_t n = index_t(1) << log2n;
  Space space;
  const sweep::bitmask_index<Enc, Memory> idx(space, mask_for(log2n, permille), n);
  const index_t ones = idx.count();
  Kokkos::View<std::int32_t*, Memory> expanded(Kokkos::view_alloc(Kokkos::WithoutInitializing, "expanded"), n);
  Kokkos::View<std::int32_t*, Memory> packed(Kokkos::view_alloc(Kokkos::WithoutInitializing, "packed"), ones);
  fill_pattern(expanded);
  fill_pattern(packed);
  const double moved = static_cast<double>(n) / 8 + 8.0 * static_cast<double>(ones);
  const sweep::bitmask_options opt{work_item};
  run_rows(state, 4.0 * static_cast<double>(n), moved, static_cast<double>(idx.bytes()), ones, n, [&] {
    if (pack) idx.pack(space, expanded, packed, opt);
    else idx.unpack(space, packed, expanded, opt);
  });
  set_line_bytes(state, log2n, permille, ones);
}

constexpr index_t query_count = index_t(1) << 22;

/// Random queries in [0, limit).
Kokkos::View<index_t*, Memory> random_queries(index_t limit, std::uint64_t seed) {
  Kokkos::View<index_t*, Memory> q(Kokkos::view_alloc(Kokkos::WithoutInitializing, "queries"), query_count);
  Kokkos::parallel_for(
      "sweep::bench::queries", Kokkos::RangePolicy<Space>(0, query_count), KOKKOS_LAMBDA(const index_t t) {
        q(t) = limit > 0 ? static_cast<index_t>(mix(std::uint64_t(t) + seed) % std::uint64_t(limit)) : 0;
      });
  Kokkos::fence();
  return q;
}

template <class Enc>
void bench_query(benchmark::State& state, int log2n, int permille, bool select) {
  const index_t n = index_t(1) << log2n;
  Space space;
  const sweep::bitmask_index<Enc, Memory> idx(space, mask_for(log2n, permille), n);
  if (idx.count() == 0) return state.SkipWithError("no set bits");
  const auto q = random_queries(select ? idx.count() : n, 17);
  Kokkos::View<index_t*, Memory> out("results", query_count);
  const double bytes = 16.0 * query_count;
  run_rows(state, bytes, bytes, static_cast<double>(idx.bytes()), idx.count(), n, [&] {
    if (select) idx.select(space, q, out);
    else idx.rank(space, q, out);
  });
  state.SetItemsProcessed(query_count * static_cast<std::int64_t>(state.iterations()));
}

/// std::copy_if over the expanded array with the mask bit as predicate
/// (one thread: the standard algorithm as a user would call it).
void bench_copy_if(benchmark::State& state, int log2n, int permille) {
  const index_t n = index_t(1) << log2n;
  auto words = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), mask_for(log2n, permille));
  Space space;
  const sweep::bitmask_index<bm::rank_select, Memory> idx(space, mask_for(log2n, permille), n);
  std::vector<std::int32_t> in(static_cast<std::size_t>(n)), out(static_cast<std::size_t>(idx.count()));
  for (index_t i = 0; i < n; ++i) in[i] = static_cast<std::int32_t>(i % 1009);
  const std::int32_t* first = in.data();
  const std::uint32_t* w = words.data();
  run_rows(state, 4.0 * static_cast<double>(n), static_cast<double>(n) / 8 + 8.0 * static_cast<double>(idx.count()),
           0, idx.count(), n, [&] {
             std::copy_if(in.begin(), in.end(), out.begin(), [first, w](const std::int32_t& x) {
               const auto i = &x - first;
               return ((w[i >> 5] >> (i & 31)) & 1u) != 0;
             });
           });
  set_line_bytes(state, log2n, permille, idx.count());
}

#if defined(KOKKOS_ENABLE_CUDA)
/// CUB's stream compaction by flags: the peer a CUDA user would call.
void bench_cub_flagged(benchmark::State& state, int log2n, int permille) {
  const index_t n = index_t(1) << log2n;
  const auto words = mask_for(log2n, permille);
  Kokkos::View<std::uint8_t*, Memory> flags(Kokkos::view_alloc(Kokkos::WithoutInitializing, "flags"), n);
  Kokkos::parallel_for(
      "sweep::bench::flags", Kokkos::RangePolicy<Space>(0, n),
      KOKKOS_LAMBDA(const index_t i) { flags(i) = std::uint8_t((words(i >> 5) >> (i & 31)) & 1u); });
  Space space;
  const sweep::bitmask_index<bm::rank_select, Memory> idx(space, words, n);
  Kokkos::View<std::int32_t*, Memory> in(Kokkos::view_alloc(Kokkos::WithoutInitializing, "expanded"), n);
  Kokkos::View<std::int32_t*, Memory> out(Kokkos::view_alloc(Kokkos::WithoutInitializing, "packed"), idx.count() + 1);
  Kokkos::View<int, Memory> selected("selected");
  fill_pattern(in);
  std::size_t temp_bytes = 0;
  cub::DeviceSelect::Flagged(nullptr, temp_bytes, in.data(), flags.data(), out.data(), selected.data(), int(n),
                             space.cuda_stream());
  Kokkos::View<char*, Memory> temp("cub_temp", temp_bytes);
  run_rows(state, 4.0 * static_cast<double>(n), static_cast<double>(n) + 8.0 * static_cast<double>(idx.count()), 0,
           idx.count(), n, [&] {
             cub::DeviceSelect::Flagged(temp.data(), temp_bytes, in.data(), flags.data(), out.data(), selected.data(),
                                        int(n), space.cuda_stream());
           });
}
#endif

#if defined(SWEEP_BENCH_HAVE_SDSL)
void bench_sdsl_setup(benchmark::State& state, int log2n, int permille, bool select) {
  const index_t n = index_t(1) << log2n;
  auto words = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), mask_for(log2n, permille));
  sdsl_index s(words.data(), n);
  const auto build = [&] { select ? s.build_select() : s.build_rank(); };
  build();
  const double bytes = static_cast<double>(select ? s.select_bytes() : s.rank_bytes());
  const sweep::bitmask_index<bm::rank_select, Memory> idx(Space(), mask_for(log2n, permille), n);
  run_rows(state, static_cast<double>(n) / 8, static_cast<double>(n) / 8 + bytes, bytes, idx.count(), n, build);
}

void bench_sdsl_query(benchmark::State& state, int log2n, int permille, bool select) {
  const index_t n = index_t(1) << log2n;
  auto words = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), mask_for(log2n, permille));
  Space space;
  const sweep::bitmask_index<bm::rank_select, Memory> idx(space, mask_for(log2n, permille), n);
  if (idx.count() == 0) return state.SkipWithError("no set bits");
  sdsl_index s(words.data(), n);
  select ? s.build_select() : s.build_rank();
  auto q = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), random_queries(select ? idx.count() : n, 17));
  std::vector<index_t> out(query_count);
  const double bytes = 16.0 * query_count;
  run_rows(state, bytes, bytes, static_cast<double>(select ? s.select_bytes() : s.rank_bytes()), idx.count(), n,
           [&] { select ? s.select(q.data(), out.data(), query_count) : s.rank(q.data(), out.data(), query_count); });
  state.SetItemsProcessed(query_count * static_cast<std::int64_t>(state.iterations()));
}
#endif

std::string row(const std::string& op, const std::string& enc, int permille, int log2n) {
  std::string s = "bitmask/" + op;
  s += "/" + enc;
  s += "/" + std::to_string(permille);
  s += "/" + std::to_string(log2n);
  return s;
}

template <class Enc>
void register_encoding(int log2n, const std::vector<int>& densities, bool queries) {
  const std::string e = encoding_label<Enc>();
  for (int d : densities) {
    register_row(row("setup", e, d, log2n), [=](benchmark::State& s) { bench_setup<Enc>(s, log2n, d); });
    register_row(row("pack", e, d, log2n), [=](benchmark::State& s) { bench_apply<Enc>(s, log2n, d, true); });
    register_row(row("unpack", e, d, log2n), [=](benchmark::State& s) { bench_apply<Enc>(s, log2n, d, false); });
    if (queries && d > 0) {
      register_row(row("select_random", e, d, log2n), [=](benchmark::State& s) { bench_query<Enc>(s, log2n, d, true); });
      register_row(row("rank_random", e, d, log2n), [=](benchmark::State& s) { bench_query<Enc>(s, log2n, d, false); });
    }
  }
}

template <class Enc>
void register_work_items(int log2n, int permille) {
  const std::string e = encoding_label<Enc>();
  for (index_t w = 64; w <= (index_t(1) << 20); w *= 4) {
    const std::string suffix = "/w" + std::to_string(w);
    register_row(row("pack", e, permille, log2n) + suffix,
                 [=](benchmark::State& s) { bench_apply<Enc>(s, log2n, permille, true, w); });
    register_row(row("unpack", e, permille, log2n) + suffix,
                 [=](benchmark::State& s) { bench_apply<Enc>(s, log2n, permille, false, w); });
  }
}

template <bool Inclusive, unsigned S1, unsigned... S2>
void register_layer_row(int log2n) {
  (
      [&] {
        using Enc = std::conditional_t<Inclusive, bm::fixed_inclusive<S1, S2>, bm::fixed_exclusive<S1, S2>>;
        const std::string e = encoding_label<Enc>();
        for (int d : {40, 500})
          register_row(row("pack", e, d, log2n), [=](benchmark::State& s) { bench_apply<Enc>(s, log2n, d, true); });
      }(),
      ...);
}

template <bool Inclusive>
void register_layers(int log2n) {
  register_layer_row<Inclusive, 64, 16, 64, 256, 1024>(log2n);
  register_layer_row<Inclusive, 256, 16, 64, 256, 1024>(log2n);
  register_layer_row<Inclusive, 1024, 16, 64, 256, 1024>(log2n);
}

int env_or(const char* name, int fallback) {
  const char* v = std::getenv(name);
  return v && *v ? std::atoi(v) : fallback;
}

/// The two copy ceilings of 2^log2n int32 (ordinary and, where the space
/// has it, streaming stores): `bitmask/copy[_streaming]/none/any/<log2n>`.
void register_copy_rows(int log2n) {
  register_sizes("bitmask/copy/none/any", log2n, log2n, bench_copy<std::int32_t>);
  if constexpr (has_streaming_copy)
    register_sizes("bitmask/copy_streaming/none/any", log2n, log2n, bench_copy_streaming<std::int32_t>);
}

/// Densities (per mille) of row group (1): SWEEP_BENCH_BITMASK_PERMILLE as
/// a comma-separated list (each 0..1000), or the default list.
std::vector<int> densities_from_env(std::vector<int> fallback) {
  const char* text = std::getenv("SWEEP_BENCH_BITMASK_PERMILLE");
  if (text == nullptr || *text == '\0') return fallback;
  std::vector<int> list;
  for (const char* p = text; *p != '\0';) {
    char* end = nullptr;
    const long v = std::strtol(p, &end, 10);
    if (end == p || v < 0 || v > 1000 || (*end != ',' && *end != '\0')) {
      std::fprintf(stderr, "SWEEP_BENCH_BITMASK_PERMILLE: expected a comma-separated list of 0..1000, got '%s'\n", text);
      std::exit(2);
    }
    list.push_back(static_cast<int>(v));
    p = *end == ',' ? end + 1 : end;
  }
  return list;
}

}  // namespace

void sweep_bench::register_suite() {
  const int main_log2n = env_or("SWEEP_BENCH_BITMASK_LOG2N", 26);
  const std::vector<int> densities = densities_from_env({0, 1, 10, 40, 100, 250, 500, 750, 900, 990, 1000});
  // (1) densities at the main size
  register_copy_rows(main_log2n);
  register_encoding<bm::rank_select>(main_log2n, densities, true);
  register_encoding<bm::full_permutation>(main_log2n, densities, true);
  register_encoding<bm::fixed_inclusive<>>(main_log2n, densities, true);
  register_encoding<bm::fixed_exclusive<>>(main_log2n, densities, true);
  register_encoding<bm::dynamic_exclusive>(main_log2n, densities, true);
  for (int d : densities)
    register_row(row("pack", "std_copy_if", d, main_log2n),
                 [=](benchmark::State& s) { bench_copy_if(s, main_log2n, d); });
#if defined(KOKKOS_ENABLE_CUDA)
  for (int d : densities)
    register_row(row("pack", "cub_flagged", d, main_log2n),
                 [=](benchmark::State& s) { bench_cub_flagged(s, main_log2n, d); });
#endif
#if defined(SWEEP_BENCH_HAVE_SDSL)
  for (int d : densities) {
    register_row(row("setup", "sdsl_rank_v5", d, main_log2n),
                 [=](benchmark::State& s) { bench_sdsl_setup(s, main_log2n, d, false); });
    register_row(row("setup", "sdsl_select_mcl", d, main_log2n),
                 [=](benchmark::State& s) { bench_sdsl_setup(s, main_log2n, d, true); });
    if (d == 0) continue;
    register_row(row("rank_random", "sdsl_rank_v5", d, main_log2n),
                 [=](benchmark::State& s) { bench_sdsl_query(s, main_log2n, d, false); });
    register_row(row("select_random", "sdsl_select_mcl", d, main_log2n),
                 [=](benchmark::State& s) { bench_sdsl_query(s, main_log2n, d, true); });
  }
#endif
  // (2) sizes at 50%
  const int lo = log2n_min(20), hi = log2n_max(28);
  for (int k = lo; k <= hi; k += 2) {
    if (k == main_log2n) continue;
    register_copy_rows(k);
    register_encoding<bm::rank_select>(k, {500}, false);
    register_encoding<bm::full_permutation>(k, {500}, false);
    register_encoding<bm::fixed_inclusive<>>(k, {500}, false);
    register_encoding<bm::fixed_exclusive<>>(k, {500}, false);
    register_encoding<bm::dynamic_exclusive>(k, {500}, false);
  }
  // (3) work item at 50%
  register_work_items<bm::rank_select>(main_log2n, 500);
  register_work_items<bm::fixed_exclusive<>>(main_log2n, 500);
  register_work_items<bm::full_permutation>(main_log2n, 500);
  // (4) layer sizes of the fixed trees
  register_layers<true>(main_log2n);
  register_layers<false>(main_log2n);
}
