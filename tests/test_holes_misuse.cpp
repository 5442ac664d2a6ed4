// Misuse of the segmented scans, conversions and bitmask queries: each
// raises the documented std::invalid_argument, naming the argument and
// sizes, and leaves every View the caller passed (inputs, outputs,
// segments, mask) as it was.
#include "bitmask_reference.hpp"
#include "segmented_reference.hpp"

#include <sweep/bitmask_index.hpp>

#include <functional>

using namespace sweep_test;

namespace {

/// Host copies of Views, taken before a call and compared after it.
class snapshot {
 public:
  template <class View>
  void add(const std::string& name, const View& v) {
    auto before = to_host(v);
    checks_.push_back([name, v, before] {
      const bool same = to_host(v) == before;
      CHECK_MESSAGE(same, name, " was changed by a call that threw");
    });
  }
  void verify() const {
    for (const auto& c : checks_) c();
  }

 private:
  std::vector<std::function<void()>> checks_;
};

/// f() throws std::invalid_argument whose message holds every part, and
/// the snapshot's Views are unchanged.
template <class F>
void refused(const snapshot& views, const F& f, std::initializer_list<std::string> parts) {
  const std::string msg = thrown(f);
  CHECK_MESSAGE(msg != nothing_thrown, "the call was accepted");
  for (const auto& p : parts) CHECK_MESSAGE(contains(msg, p), "'", msg, "' does not mention '", p, "'");
  views.verify();
}

}  // namespace

TEST_CASE_TEMPLATE("segmented scans with short or overlapping output are refused, nothing changed", Space,
                   SWEEP_TEST_SPACES) {
  using Mem = typename Space::memory_space;
  Space space;
  const std::size_t n = 5000;
  const auto l = random_layout(n, 8.0, 3);
  representations<Space> reps(l);
  const auto x = random_values<std::int64_t>(n, 4);
  auto in = to_device<Space>(x, "in");
  auto short_out = to_device<Space>(std::vector<std::int64_t>(n - 1, 55), "short");
  // One buffer holding in at [0, n) and an output shifted by 7 elements.
  auto buffer = to_device<Space>(random_values<std::int64_t>(n + 7, 5), "buffer");
  auto lo = Kokkos::subview(buffer, std::make_pair(std::size_t(0), n));
  auto hi = Kokkos::subview(buffer, std::make_pair(std::size_t(7), n + 7));
  // The output over the offsets (both int64).
  auto off_buffer = to_device<Space>(std::vector<std::int64_t>(n + l.offsets.size(), 0), "off_buffer");
  auto off_part = Kokkos::subview(off_buffer, std::make_pair(std::size_t(n), n + l.offsets.size()));
  Kokkos::deep_copy(off_part, reps.offsets);
  auto over_offsets = Kokkos::subview(off_buffer, std::make_pair(std::size_t(1), n + 1));
  snapshot views;
  views.add("in", in);
  views.add("short out", short_out);
  views.add("buffer", buffer);
  views.add("offsets buffer", off_buffer);
  views.add("flags", reps.flags);
  views.add("words", reps.words);
  views.add("keys", reps.keys);
  for (const auto& entry : sweep::scan_algorithms) {
    const std::string algorithm_name = entry.name;
    CAPTURE(algorithm_name);
    sweep::scan_options opt;
    opt.algorithm = entry.id;
    for (bool backward : {false, true}) {
      CAPTURE(backward);
      opt.direction = backward ? sweep::direction::backward : sweep::direction::forward;
      for_each_representation(reps, [&](const char* repr, const auto& segments) {
        CAPTURE(repr);
        refused(views, [&] { sweep::segmented_inclusive_scan(space, in, segments, short_out, sweep::plus<std::int64_t>{}, opt); },
                {"sweep::segmented_inclusive_scan", "out has 4999 elements", "in has 5000"});
        refused(views, [&] { sweep::segmented_exclusive_scan(space, in, segments, short_out, 1, sweep::plus<std::int64_t>{}, opt); },
                {"sweep::segmented_exclusive_scan", "4999", "5000"});
        refused(views, [&] { sweep::segmented_inclusive_scan(space, lo, segments, hi, sweep::plus<std::int64_t>{}, opt); },
                {"overlap"});
        refused(views, [&] { sweep::segmented_exclusive_scan(space, hi, segments, lo, 0, sweep::plus<std::int64_t>{}, opt); },
                {"overlap"});
        if (!sweep::runs_segmented(entry.id)) {
          Kokkos::View<std::int64_t*, Mem> out("out", n);
          views.add("out", out);
          refused(views, [&] { sweep::segmented_inclusive_scan(space, in, segments, out, sweep::plus<std::int64_t>{}, opt); },
                  {"algorithm " + std::string(entry.name), "no segmented form"});
        }
      });
      refused(views, [&] {
        sweep::segmented_inclusive_scan(space, in, sweep::segment_offsets(off_part), over_offsets,
                                        sweep::plus<std::int64_t>{}, opt);
      }, {"out overlaps the segments"});
    }
  }
  // totals over in, or over the segments.
  Kokkos::View<std::int64_t*, Mem> totals_in("totals_in", n);
  Kokkos::deep_copy(totals_in, in);
  views.add("totals_in", totals_in);
  const auto in_part = Kokkos::subview(totals_in, std::make_pair(std::size_t(0), n));
  refused(views, [&] { sweep::segmented_reduce(space, in_part, sweep::head_flags(reps.flags), totals_in); },
          {"sweep::segmented_reduce", "totals overlaps"});
  refused(views, [&] { sweep::segmented_reduce(space, in, sweep::segment_offsets(off_part), off_buffer); },
          {"totals overlaps"});
}

TEST_CASE_TEMPLATE("conversions with short or overlapping outputs are refused, nothing changed", Space,
                   SWEEP_TEST_SPACES) {
  using Mem = typename Space::memory_space;
  Space space;
  const std::size_t n = 5000;
  const auto l = random_layout(n, 8.0, 6);
  const auto nseg = static_cast<sweep::index_t>(l.offsets.size() - 1);
  representations<Space> reps(l);
  snapshot views;
  views.add("flags", reps.flags);
  views.add("words", reps.words);
  views.add("offsets", reps.offsets);
  views.add("keys", reps.keys);
  auto short_flags = to_device<Space>(std::vector<std::uint8_t>(n - 1, 9), "short_flags");
  auto short_offsets = to_device<Space>(std::vector<std::int64_t>(static_cast<std::size_t>(nseg), -3), "short_offsets");
  auto short_ids = to_device<Space>(std::vector<std::int32_t>(n - 1, -4), "short_ids");
  views.add("short flags", short_flags);
  views.add("short offsets", short_offsets);
  views.add("short ids", short_ids);
  const std::string need = std::to_string(nseg + 1) + " are needed";
  for_each_representation(reps, [&](const char* repr, const auto& segments) {
    CAPTURE(repr);
    refused(views, [&] { sweep::to_head_flags(space, segments, short_flags); },
            {"sweep::to_head_flags", "flags has 4999 entries but 5000 are needed"});
    refused(views, [&] { sweep::to_segment_offsets(space, segments, short_offsets); },
            {"sweep::to_segment_offsets", "offsets has " + std::to_string(nseg) + " entries", need});
    refused(views, [&] { sweep::to_segment_ids(space, segments, short_ids); },
            {"sweep::to_segment_ids", "ids has 4999 entries but 5000 are needed"});
  });
  // Outputs over the representation: keys replaced by their ids, flags
  // normalised in place, offsets copied onto themselves shifted.
  refused(views, [&] { sweep::to_segment_ids(space, sweep::segment_keys(reps.keys), reps.keys); },
          {"sweep::to_segment_ids", "ids (5000 entries) overlaps the segments"});
  refused(views, [&] { sweep::to_head_flags(space, sweep::head_flags(reps.flags), reps.flags); },
          {"sweep::to_head_flags", "overlaps the segments"});
  refused(views, [&] { sweep::to_head_flags(space, sweep::segment_keys(reps.keys), reps.keys); },
          {"sweep::to_head_flags", "overlaps the segments"});
  Kokkos::View<std::int64_t*, Mem> off_buffer("off_buffer", nseg + 2);
  auto off_lo = Kokkos::subview(off_buffer, std::make_pair(sweep::index_t(0), nseg + 1));
  auto off_hi = Kokkos::subview(off_buffer, std::make_pair(sweep::index_t(1), nseg + 2));
  Kokkos::deep_copy(off_lo, reps.offsets);
  views.add("offsets buffer", off_buffer);
  refused(views, [&] { sweep::to_segment_offsets(space, sweep::segment_offsets(off_lo), off_hi); },
          {"sweep::to_segment_offsets", "overlaps the segments"});
  Kokkos::View<std::uint32_t*, Mem> bits_and_ids("bits_and_ids", n);
  Kokkos::deep_copy(Kokkos::subview(bits_and_ids, std::make_pair(std::size_t(0), reps.words.extent(0))), reps.words);
  views.add("bits and ids", bits_and_ids);
  refused(views, [&] { sweep::to_segment_ids(space, sweep::head_bits(bits_and_ids, sweep::index_t(n)), bits_and_ids); },
          {"sweep::to_segment_ids", "overlaps the segments"});
  // Outputs beside the representation (the same allocation) are fine.
  Kokkos::View<std::int32_t*, Mem> keys_and_ids("keys_and_ids", 2 * n);
  auto k = Kokkos::subview(keys_and_ids, std::make_pair(std::size_t(0), n));
  auto ids = Kokkos::subview(keys_and_ids, std::make_pair(n, 2 * n));
  Kokkos::deep_copy(k, reps.keys);
  sweep::to_segment_ids(space, sweep::segment_keys(k), ids);
  const auto got = to_host(ids);
  std::size_t bad = 0;
  for (std::size_t i = 0, s = 0; i < n; ++i) {
    while (static_cast<std::size_t>(l.offsets[s + 1]) <= i) ++s;
    bad += got[i] != static_cast<std::int32_t>(s);
  }
  CHECK(bad == 0);
}

TEST_CASE_TEMPLATE("bitmask outputs over their queries or the mask are refused, nothing changed", Space,
                   SWEEP_TEST_SPACES) {
  using Mem = typename Space::memory_space;
  Space space;
  const auto m = uniform_mask(3000, 0.4, 7);
  const auto ones = static_cast<std::int64_t>(m.positions.size());
  auto check = [&](auto encoding) {
    using E = decltype(encoding);
    const std::string name = sweep::bitmask_index<E, Mem>::encoding_name();
    CAPTURE(name);
    // The mask words at the front of a buffer, other arrays behind them.
    const auto nw = static_cast<std::int64_t>(m.words.size());
    Kokkos::View<std::uint32_t*, Mem> buffer("buffer", nw + m.n + 64);
    auto words = Kokkos::subview(buffer, std::make_pair(std::int64_t(0), nw));
    Kokkos::deep_copy(words, to_device<Space>(m.words, "words"));
    const sweep::bitmask_index<E, Mem> idx(space, words, m.n);
    REQUIRE(idx.count() == ones);
    auto queries = to_device<Space>(std::vector<std::int64_t>{0, 1, 2, 3, 4, 5, 6, 7}, "queries");
    snapshot views;
    views.add("buffer", buffer);
    views.add("queries", queries);
    // Results overlapping the queries without being them.
    Kokkos::View<std::int64_t*, Mem> q_buffer("q_buffer", 12);
    Kokkos::deep_copy(Kokkos::subview(q_buffer, std::make_pair(0, 8)), queries);
    views.add("query buffer", q_buffer);
    auto q = Kokkos::subview(q_buffer, std::make_pair(0, 8));
    auto r = Kokkos::subview(q_buffer, std::make_pair(3, 11));
    refused(views, [&] { idx.select(space, q, r); }, {"select", "queries and results overlap"});
    refused(views, [&] { idx.rank(space, q, r); }, {"rank", "queries and results overlap"});
    // Results over the mask's words (uint32 results: 8 of them lie on it).
    auto on_mask = Kokkos::subview(buffer, std::make_pair(nw - 3, nw + 5));
    refused(views, [&] { idx.select(space, queries, on_mask); },
            {"select", "the results View (8 elements) overlaps the mask's " + std::to_string(nw) + " words"});
    refused(views, [&] { idx.rank(space, queries, on_mask); }, {"rank", "overlaps the mask"});
    // pack's packed output and unpack's expanded output over the mask.
    auto expanded = to_device<Space>(std::vector<std::uint32_t>(static_cast<std::size_t>(m.n), 5u), "expanded");
    auto packed = to_device<Space>(std::vector<std::uint32_t>(static_cast<std::size_t>(ones), 6u), "packed");
    views.add("expanded", expanded);
    views.add("packed", packed);
    auto packed_on_mask = Kokkos::subview(buffer, std::make_pair(std::int64_t(1), std::int64_t(1) + ones));
    refused(views, [&] { idx.pack(space, expanded, packed_on_mask); }, {"pack", "the packed array", "overlaps the mask"});
    auto expanded_on_mask = Kokkos::subview(buffer, std::make_pair(nw - 1, nw - 1 + m.n));
    refused(views, [&] { idx.unpack(space, packed, expanded_on_mask); },
            {"unpack", "the expanded array", "overlaps the mask"});
    // Right behind the words is not on them; in-place select/rank (the
    // same View) is allowed.
    auto behind = Kokkos::subview(buffer, std::make_pair(nw, nw + 8));
    idx.select(space, queries, behind);
    std::vector<std::uint32_t> want;
    for (int k = 0; k < 8; ++k) want.push_back(static_cast<std::uint32_t>(m.positions[k]));
    CHECK(to_host(behind) == want);
    auto in_place = to_device<Space>(std::vector<std::int64_t>{0, 1, 2, 3, 4, 5, 6, 7}, "in_place");
    idx.select(space, in_place, in_place);
    idx.rank(space, in_place, in_place);
    CHECK(to_host(in_place) == std::vector<std::int64_t>{0, 1, 2, 3, 4, 5, 6, 7});
  };
  namespace bm = sweep::bitmask;
  check(bm::full_permutation{});
  check(bm::fixed_inclusive<>{});
  check(bm::fixed_exclusive<>{});
  check(bm::dynamic_exclusive{});
  check(bm::rank_select{});
}
