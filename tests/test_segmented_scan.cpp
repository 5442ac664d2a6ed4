// Segmented scans and reductions: every representation, algorithm,
// direction and kind against the sequential reference, over segment
// layouts from all-length-1 to one segment; conversions and bad input.
#include "segmented_reference.hpp"
#include "workspace_leases.hpp"

#include <algorithm>
#include <utility>

using namespace sweep_test;

TEST_CASE_TEMPLATE("segmented scans of int32 sums match the reference for every layout", Space, SWEEP_TEST_SPACES) {
  for (std::size_t n : {0u, 1u, 2u, 31u, 33u, 1000u, 4097u, 65537u})
    for (const auto& l : standard_layouts(n, 10 + n))
      check_segmented<Space>(random_values<std::int32_t>(n, n), l, sweep::plus<std::int32_t>{}, std::int32_t(5));
}

TEST_CASE_TEMPLATE("segmented scans with empty segments (offsets)", Space, SWEEP_TEST_SPACES) {
  for (std::size_t n : {0u, 1u, 100u, 5000u})
    for (int every : {1, 3})
      check_segmented<Space>(random_values<std::int64_t>(n, n + 3), random_layout(n, 4.0, n + every, every),
                             sweep::plus<std::int64_t>{}, std::int64_t(-1));
}

TEST_CASE_TEMPLATE("large segmented scans (single pass, many chunks)", Space, SWEEP_TEST_SPACES) {
  const std::size_t n = scaled(std::size_t(1) << 21, std::size_t(1) << 17) + 3;
  for (double mean : {8.0, 1000.0})
    check_segmented<Space>(random_values<std::int32_t>(n, 7), random_layout(n, mean, 8), sweep::plus<std::int32_t>{},
                           std::int32_t(0), {sweep::scan_algorithm::automatic, sweep::scan_algorithm::blelloch});
}

TEST_CASE_TEMPLATE("offsets on chunk and block edges scan right at every chunk size", Space, SWEEP_TEST_SPACES) {
  // Single-pass chunk sizes that are whole blocks of the conversion (8192
  // elements), several blocks, not a power of two, and smaller than a
  // block; offsets of 4 bytes signed (the AVX-512 marking) and unsigned
  // (the scalar one); sums (the vector scans) and maxima (the scalar ones).
  const std::size_t n = 5 * 8192 + 77;
  layout edges{"offsets on chunk edges, empty segments across them", {0}};
  for (std::int64_t e : {8191, 8192, 8192, 8193, 16384, 16384, 16384, 3 * 8192 - 1, 40000, 40960, 40960})
    edges.offsets.push_back(e);
  edges.offsets.push_back(static_cast<std::int64_t>(n));
  edges.offsets.push_back(static_cast<std::int64_t>(n));
  const std::vector<layout> layouts = {random_layout(n, 8.0, 31, 5), random_layout(n, 3000.0, 32, 2), edges,
                                       single_segment(n), unit_segments(n)};
  const auto x = random_values<std::int32_t>(n, 9);
  const std::vector<sweep::scan_algorithm> algos = {sweep::scan_algorithm::automatic,
                                                    sweep::scan_algorithm::single_pass};
  const std::vector<sweep::index_t> chunks = {0, 8192, 16384, 24576, 1000};
  for (const auto& l : layouts) {
    const std::string layout_name = l.name;
    CAPTURE(layout_name);
    const std::vector<std::int32_t> o32(l.offsets.begin(), l.offsets.end());
    const std::vector<std::uint32_t> u32(l.offsets.begin(), l.offsets.end());
    const auto offsets32 = sweep::segment_offsets(to_device<Space>(o32, "offsets32"));
    const auto offsets_u32 = sweep::segment_offsets(to_device<Space>(u32, "offsets_u32"));
    for (sweep::index_t chunk : chunks) {
      CAPTURE(chunk);
      check_segmented_with<Space>(x, l, offsets32, sweep::plus<std::int32_t>{}, std::int32_t(3), algos, chunk);
      check_segmented_with<Space>(x, l, offsets_u32, sweep::maximum<std::int32_t>{}, std::int32_t(-7), algos, chunk);
    }
  }
  const std::vector<double> xd(x.begin(), x.end());
  for (sweep::index_t chunk : chunks) {
    CAPTURE(chunk);
    check_segmented<Space>(xd, layouts[0], sweep::plus<double>{}, 0.5, algos, chunk);
  }
}

TEST_CASE_TEMPLATE("segmented sums past 64 MiB of output (streaming stores on a CPU)", Space, SWEEP_TEST_SPACES) {
  const std::size_t n = (std::size_t(1) << 24) + 5;
  const auto l = random_layout(n, 8.0, 21);
  const auto x = random_values<std::int32_t>(n, 22);
  representations<Space> reps(l);
  auto in = to_device<Space>(x, "in");
  Kokkos::View<std::int32_t*, typename Space::memory_space> out("out", n);
  Space space;
  std::vector<std::int32_t> want;
  for (bool exclusive : {false, true}) {
    CAPTURE(exclusive);
    reference_segmented_scan(x, l.heads(), want, std::int32_t(4), exclusive, false, sweep::plus<std::int32_t>{});
    for (int r = 0; r < 2; ++r) {
      CAPTURE(r);
      if (exclusive) {
        if (r == 0) sweep::segmented_exclusive_scan(space, in, sweep::head_flags(reps.flags), out, 4);
        else sweep::segmented_exclusive_scan(space, in, sweep::head_bits(reps.words, sweep::index_t(n)), out, 4);
      } else {
        if (r == 0) sweep::segmented_inclusive_scan(space, in, sweep::head_flags(reps.flags), out);
        else sweep::segmented_inclusive_scan(space, in, sweep::head_bits(reps.words, sweep::index_t(n)), out);
      }
      CHECK(to_host(out) == want);
    }
  }
}

TEST_CASE_TEMPLATE("conversions between representations agree", Space, SWEEP_TEST_SPACES) {
  Space space;
  for (std::size_t n : {0u, 1u, 33u, 5000u, 100000u}) {
    for (const auto& l : {random_layout(n, 8.0, n), random_layout(n, 3.0, n + 1, 2), single_segment(n),
                          unit_segments(n)}) {
      CAPTURE(n);
      const std::string layout_name = l.name;
      CAPTURE(layout_name);
      representations<Space> reps(l);
      const auto compact = without_empty(l);
      const auto heads = l.heads();
      std::vector<std::int64_t> want_ids(n), want_ids_offsets(n);
      for (std::size_t i = 0, s = 0, t = 0; i < n; ++i) {
        while (static_cast<std::size_t>(compact.offsets[s + 1]) <= i) ++s;
        while (static_cast<std::size_t>(l.offsets[t + 1]) <= i) ++t;
        want_ids[i] = static_cast<std::int64_t>(s);
        want_ids_offsets[i] = static_cast<std::int64_t>(t);
      }
      for_each_representation(reps, [&](const char* repr, const auto& segments) {
        CAPTURE(repr);
        const bool offsets = std::string(repr) == "segment_offsets";
        const auto& want_offsets = offsets ? l.offsets : compact.offsets;
        const auto nseg = static_cast<sweep::index_t>(want_offsets.size() - 1);
        CHECK(sweep::segment_count(space, segments) == (n == 0 && !offsets ? 0 : nseg));

        Kokkos::View<std::uint8_t*, typename Space::memory_space> flags("flags", n);
        sweep::to_head_flags(space, segments, flags);
        const auto got_flags = to_host(flags);
        std::size_t bad = 0;
        for (std::size_t i = 0; i < n; ++i) bad += (got_flags[i] != 0) != (i == 0 || heads[i]);
        CHECK(bad == 0);

        Kokkos::View<std::int64_t*, typename Space::memory_space> off("offsets", want_offsets.size());
        const auto got_nseg = sweep::to_segment_offsets(space, segments, off);
        if (n > 0 || offsets) {
          CHECK(got_nseg == nseg);
          CHECK(to_host(off) == want_offsets);
        } else {
          CHECK(got_nseg == 0);
        }

        Kokkos::View<std::int64_t*, typename Space::memory_space> ids("ids", n);
        sweep::to_segment_ids(space, segments, ids);
        CHECK(to_host(ids) == (offsets ? want_ids_offsets : want_ids));
      });
    }
  }
}

TEST_CASE_TEMPLATE("bad segments are refused and nothing is written", Space, SWEEP_TEST_SPACES) {
  using Mem = typename Space::memory_space;
  Space space;
  const std::size_t n = 100;
  const auto x = random_values<std::int32_t>(n, 1);
  auto in = to_device<Space>(x, "in");
  const std::vector<std::int32_t> sentinel(n, 77);
  auto out = to_device<Space>(sentinel, "out");
  auto untouched = [&] { return to_host(out) == sentinel; };
  auto throws_with = [&](const auto& call, const char* text) {
    bool thrown = false;
    try {
      call();
    } catch (const std::invalid_argument& e) {
      thrown = true;
      CHECK_MESSAGE(std::string(e.what()).find(text) != std::string::npos, e.what());
    }
    CHECK_MESSAGE(thrown, "expected std::invalid_argument mentioning '", text, "'");
    CHECK(untouched());
  };
  Kokkos::View<std::uint8_t*, Mem> short_flags("flags", n - 1);
  throws_with([&] { sweep::segmented_inclusive_scan(space, in, sweep::head_flags(short_flags), out); },
              "head_flags has 99 entries");
  Kokkos::View<std::uint32_t*, Mem> words("words", 4);
  throws_with([&] { sweep::segmented_inclusive_scan(space, in, sweep::head_bits(words, 99), out); },
              "head_bits describes 99 elements");
  throws_with([&] { sweep::segmented_inclusive_scan(space, in, sweep::head_bits(words, 200), out); },
              "head_bits has 4 words for 200 bits");
  Kokkos::View<std::int32_t*, Mem> short_keys("keys", 10);
  throws_with([&] { sweep::segmented_exclusive_scan(space, in, sweep::segment_keys(short_keys), out, 0); },
              "segment_keys has 10 keys");
  auto offsets_of = [&](std::vector<std::int64_t> v) { return to_device<Space>(v, "offsets"); };
  throws_with([&] { sweep::segmented_inclusive_scan(space, in, sweep::segment_offsets(offsets_of({1, 50, 100})), out); },
              "the first offset must be 0");
  throws_with([&] { sweep::segmented_inclusive_scan(space, in, sweep::segment_offsets(offsets_of({0, 50, 99})), out); },
              "ends at 99");
  throws_with([&] { sweep::segmented_inclusive_scan(space, in, sweep::segment_offsets(offsets_of({0, 60, 50, 100})), out); },
              "decrease at segment 1");
  throws_with([&] {
    sweep::segmented_inclusive_scan(space, in, sweep::segment_offsets(Kokkos::View<std::int64_t*, Mem>("e", 0)), out);
  }, "no entries");
  Kokkos::View<std::uint8_t*, Mem> flags("flags", n);
  Kokkos::deep_copy(flags, std::uint8_t(1));
  for (auto algo : unsegmented_algorithms()) {
    const std::string algorithm = sweep::to_string(algo);
    CAPTURE(algorithm);
    sweep::scan_options opt;
    opt.algorithm = algo;
    throws_with([&] { sweep::segmented_inclusive_scan(space, in, sweep::head_flags(flags), out, opt); },
                "no segmented form");
    throws_with([&] { sweep::segmented_exclusive_scan(space, in, sweep::head_flags(flags), out, 0, opt); },
                sweep::segmented_algorithm_names().c_str());
  }
  // totals shorter than the number of segments (100 here): nothing written.
  auto totals = to_device<Space>(std::vector<std::int32_t>(99, 5), "totals");
  throws_with([&] { sweep::segmented_reduce(space, in, sweep::head_flags(flags), totals); }, "totals has 99 elements");
  CHECK(to_host(totals) == std::vector<std::int32_t>(99, 5));
  // Output overlapping the segments' View.
  Kokkos::View<std::int32_t*, Mem> keys_and_out("keys", n);
  throws_with([&] { sweep::segmented_inclusive_scan(space, in, sweep::segment_keys(keys_and_out), keys_and_out); },
              "overlaps the segments");
  CHECK(to_host(in) == x);
}

TEST_CASE_TEMPLATE("segmented scans run in place", Space, SWEEP_TEST_SPACES) {
  const std::size_t n = 10000;
  const auto l = random_layout(n, 8.0, 3);
  const auto x = random_values<std::int32_t>(n, 4);
  representations<Space> reps(l);
  auto v = to_device<Space>(x, "v");
  Space space;
  sweep::segmented_inclusive_scan(space, v, sweep::head_flags(reps.flags), v);
  std::vector<std::int32_t> want;
  reference_segmented_scan(x, l.heads(), want, 0, false, false, sweep::plus<std::int32_t>{});
  CHECK(to_host(v) == want);
}

TEST_CASE_TEMPLATE("the README's segmented-scan example runs as written", Space, SWEEP_TEST_SPACES) {
  using Mem = typename Space::memory_space;
  Space space;
  // 4 vertices with 2, 0, 3 and 1 edges.
  auto row_ptr = to_device<Space>(std::vector<std::int64_t>{0, 2, 2, 5, 6}, "row_ptr");
  auto weights = to_device<Space>(std::vector<int>{1, 2, 3, 4, 5, 6}, "weights");
  Kokkos::View<int*, Mem> running("running", 6), slots("slots", 6), row_sums("row_sums", 4);
  // --- as in README.md
  auto rows = sweep::segment_offsets(row_ptr);
  sweep::segmented_inclusive_scan(space, weights, rows, running);        // per-row prefix sums
  sweep::segmented_exclusive_scan(space, weights, rows, slots, 0);       // per-row offsets
  auto n_rows = sweep::segmented_reduce(space, weights, rows, row_sums);  // empty rows: 0
  // ---
  CHECK(n_rows == 4);
  CHECK(to_host(running) == std::vector<int>{1, 3, 3, 7, 12, 6});
  CHECK(to_host(slots) == std::vector<int>{0, 1, 0, 3, 7, 0});
  CHECK(to_host(row_sums) == std::vector<int>{3, 0, 12, 6});

  auto in = to_device<Space>(std::vector<float>{1, 5, 2, 7, 3}, "in");
  Kokkos::View<float*, Mem> out("out", 5);
  auto flags = to_device<Space>(std::vector<std::uint8_t>{1, 0, 1, 0, 0}, "flags");
  const std::size_t n = 5;
  auto words = to_device<Space>(std::vector<std::uint32_t>{0b00101u}, "words");
  auto keys = to_device<Space>(std::vector<int>{7, 7, 3, 3, 3}, "keys");
  Kokkos::View<int*, Mem> iout("iout", 5);
  auto iin = to_device<Space>(std::vector<int>{1, 5, 2, 7, 3}, "iin");
  // --- as in README.md
  sweep::segmented_inclusive_scan(space, in, sweep::head_flags(flags), out, sweep::maximum<float>{});
  // ---
  CHECK(to_host(out) == std::vector<float>{1, 5, 2, 7, 7});
  sweep::segmented_inclusive_scan(space, iin, sweep::head_bits(words, n), iout);
  CHECK(to_host(iout) == std::vector<int>{1, 6, 2, 9, 12});
  sweep::segmented_exclusive_scan(space, iin, sweep::segment_keys(keys), iout, 0, sweep::plus<int>{},
                                  {sweep::direction::backward});
  CHECK(to_host(iout) == std::vector<int>{5, 0, 10, 3, 0});

  Kokkos::View<std::int64_t*, Mem> offsets("offsets", 3);
  Kokkos::View<std::int32_t*, Mem> ids("ids", 5);
  // --- as in README.md
  auto count = sweep::segment_count(space, sweep::head_flags(flags));
  sweep::to_segment_offsets(space, sweep::head_flags(flags), offsets);  // needs count + 1 entries
  sweep::to_segment_ids(space, sweep::segment_keys(keys), ids);
  sweep::to_head_flags(space, sweep::segment_offsets(offsets), flags);
  // ---
  CHECK(count == 2);
  CHECK(to_host(offsets) == std::vector<std::int64_t>{0, 2, 5});
  CHECK(to_host(ids) == std::vector<std::int32_t>{0, 0, 1, 1, 1});
  CHECK(to_host(flags) == std::vector<std::uint8_t>{1, 0, 1, 0, 0});
}

TEST_CASE_TEMPLATE("offsets convert to head bits in the workspace, reused across calls", Space, SWEEP_TEST_SPACES) {
  using Mem = typename Space::memory_space;
  Space space;
  const std::size_t n = 100003;
  const auto l = random_layout(n, 8.0, 31);
  const auto x = random_values<std::int32_t>(n, 32);
  representations<Space> reps(l);
  auto in = to_device<Space>(x, "in");
  Kokkos::View<std::int32_t*, Mem> out("out", n);
  Kokkos::View<std::uint8_t*, Mem> flags("flags", n);
  std::vector<std::int32_t> want;
  reference_segmented_scan(x, l.heads(), want, std::int32_t(0), false, false, sweep::plus<std::int32_t>{});
  const auto offsets = sweep::segment_offsets(reps.offsets);
  const auto bits = sweep::head_bits(reps.words, sweep::index_t(n));
  // Leases of a second run, which allocates nothing and leaves nothing
  // pending.
  const auto steady_leases = [&](const auto& call) {
    call();
    return workspace_leases(space, call, true);
  };
  // Offsets lease one buffer more than the same heads given as bits: the
  // converted bits.
  const auto scan_bits = steady_leases([&] { sweep::segmented_inclusive_scan(space, in, bits, out); });
  CHECK(to_host(out) == want);
  Kokkos::deep_copy(out, 0);
  const auto scan_offsets = steady_leases([&] { sweep::segmented_inclusive_scan(space, in, offsets, out); });
  CHECK(to_host(out) == want);
  CHECK(scan_offsets == scan_bits + 1);
  CHECK(steady_leases([&] { sweep::to_head_flags(space, offsets, flags); }) == 1);
  const auto got = to_host(flags);
  const auto h = l.heads();
  std::size_t wrong = 0;
  for (std::size_t i = 0; i < n; ++i) wrong += (got[i] != 0) != (h[i] || i == 0);
  CHECK(wrong == 0);
}

// Offsets are checked to rise in the pass that converts them to head bits,
// element block by element block (8192 elements each); a decrease must be
// found wherever it lies: inside a block, at a block's edge, an entry past
// n or below 0 in the middle, trailing entries past n. The scan and the
// reduce name the first decrease and write nothing; valid offsets with
// empty and trailing empty segments still scan.
TEST_CASE_TEMPLATE("offsets that decrease anywhere are refused by the scans", Space, SWEEP_TEST_SPACES) {
  Space space;
  const std::size_t n = 3 * 8192 + 100;
  const auto x = random_values<std::int32_t>(n, 41);
  auto in = to_device<Space>(x, "in");
  const std::vector<std::int32_t> sentinel(n, 77);
  auto out = to_device<Space>(sentinel, "out");
  auto valid = random_layout(n, 40.0, 42, 5).offsets;
  for (int k = 0; k < 3; ++k) valid.push_back(static_cast<std::int64_t>(n));  // trailing empty segments
  const auto nseg = valid.size() - 1;
  {
    layout l{"valid", valid};
    std::vector<std::int32_t> want;
    reference_segmented_scan(x, l.heads(), want, std::int32_t(0), false, false, sweep::plus<std::int32_t>{});
    sweep::segmented_inclusive_scan(space, in, sweep::segment_offsets(to_device<Space>(valid, "offsets")), out);
    CHECK(to_host(out) == want);
    Kokkos::deep_copy(out, 77);
  }
  // The segment holding element e: the last s with offsets[s] <= e.
  const auto segment_at = [&](std::int64_t e) {
    return static_cast<std::size_t>(std::upper_bound(valid.begin(), valid.end(), e) - valid.begin()) - 1;
  };
  std::vector<std::pair<std::string, std::vector<std::int64_t>>> cases;
  const auto with = [&](const std::string& name, std::size_t s, std::int64_t value) {
    auto v = valid;
    v[s] = value;
    cases.emplace_back(name, v);
  };
  const std::size_t mid = segment_at(8192 + 4000);
  with("one entry above its successor, mid-block", mid, valid[mid + 1] + 1);
  with("one entry below its predecessor, mid-block", mid, valid[mid - 1] - 1);
  const std::size_t edge = segment_at(8191) + 1;  // first offset in the second block
  with("the first entry of a block below its predecessor", edge, valid[edge - 1] - 1);
  with("the last entry of a block past the next block's first", edge - 1, valid[edge] + 1);
  with("an entry past n in the middle", mid, static_cast<std::int64_t>(n) + 1000);
  with("a negative entry in the middle", mid, -3);
  with("a trailing entry past n", nseg - 1, static_cast<std::int64_t>(n) + 7);
  with("a trailing entry below n after one at n", nseg - 1, static_cast<std::int64_t>(n) - 1);
  with("the second entry past everything", 1, static_cast<std::int64_t>(n));
  {
    auto v = valid;  // two neighbours across the first block edge swapped
    std::swap(v[edge - 1], v[edge]);
    cases.emplace_back("neighbours across a block edge swapped", v);
  }
  for (const auto& [name, v] : cases) {
    CAPTURE(name);
    std::size_t first = 0;
    while (first + 1 < v.size() && v[first + 1] >= v[first]) ++first;
    REQUIRE(first + 1 < v.size());
    const std::string text = "decrease at segment " + std::to_string(first) + " ";
    const auto offsets = sweep::segment_offsets(to_device<Space>(v, "offsets"));
    const auto msg_inclusive = thrown([&] { sweep::segmented_inclusive_scan(space, in, offsets, out); });
    CHECK_MESSAGE(contains(msg_inclusive, text), msg_inclusive);
    CHECK(to_host(out) == sentinel);
    const auto msg_exclusive = thrown([&] { sweep::segmented_exclusive_scan(space, in, offsets, out, 0); });
    CHECK_MESSAGE(contains(msg_exclusive, text), msg_exclusive);
    CHECK(to_host(out) == sentinel);
    auto totals = to_device<Space>(std::vector<std::int32_t>(v.size(), 5), "totals");
    const auto msg_reduce = thrown([&] { sweep::segmented_reduce(space, in, offsets, totals); });
    CHECK_MESSAGE(contains(msg_reduce, text), msg_reduce);
    CHECK(to_host(totals) == std::vector<std::int32_t>(v.size(), 5));
  }
}

// The conversions refuse offsets that decrease, whether or not the offsets
// describe any element ({0, 7, 0}: n = 0, nothing to convert), and write
// nothing.
TEST_CASE_TEMPLATE("conversions refuse decreasing offsets and write nothing", Space, SWEEP_TEST_SPACES) {
  Space space;
  for (const auto& v : {std::vector<std::int64_t>{0, 60, 50, 100}, std::vector<std::int64_t>{0, 7, 0}}) {
    const auto n = static_cast<std::size_t>(v.back());
    CAPTURE(n);
    const auto offsets = sweep::segment_offsets(to_device<Space>(v, "offsets"));
    const std::vector<std::uint8_t> flag_sentinel(n + 1, 9);
    const std::vector<std::int64_t> sentinel(n + v.size(), 9);
    auto flags = to_device<Space>(flag_sentinel, "flags");
    auto ids = to_device<Space>(sentinel, "ids");
    auto out = to_device<Space>(sentinel, "out");
    for (const auto& msg : {thrown([&] { sweep::to_head_flags(space, offsets, flags); }),
                            thrown([&] { sweep::to_segment_ids(space, offsets, ids); }),
                            thrown([&] { sweep::to_segment_offsets(space, offsets, out); }),
                            thrown([&] { sweep::segment_count(space, offsets); })})
      CHECK_MESSAGE(contains(msg, "decrease at segment 1 "), msg);
    CHECK(to_host(flags) == flag_sentinel);
    CHECK(to_host(ids) == sentinel);
    CHECK(to_host(out) == sentinel);
  }
}

// The conversion of offsets to head bits has a host walk (a byte map per
// block of 8192 elements, several blocks per thread) and the portable one
// (the word being filled in a register, one block per thread on a GPU).
// Both give the same words and the same verdict (the value every check
// reads) at every host instruction-set level, for 64- and 32-bit offsets,
// on valid offsets with and without empty and trailing segments and on
// offsets that decrease inside a walk, across its edges and at the ends.
// 41 blocks: a walk holds several at 1 and 2 threads.
TEST_CASE_TEMPLATE("offsets become the same head bits on the host walk and the portable one", Space,
                   SWEEP_TEST_SPACES) {
  using Mem = typename Space::memory_space;
  using portable = sweep::detail::offsets_backend<Space, sweep::detail::portable_kind>;
  using backend = sweep::detail::offsets_backend<Space>;
  Space space;
  const std::size_t n = 40 * 8192 + 37;
  const auto nwords = (n + 31) / 32;
  std::vector<std::pair<layout, bool>> cases;  // offsets, valid
  for (const auto& l : {random_layout(n, 8.0, 71), random_layout(n, 3.0, 72, 2), random_layout(n, 1000.0, 73),
                        single_segment(n), unit_segments(n)})
    cases.emplace_back(l, true);
  auto trailing = random_layout(n, 30.0, 74);
  for (int k = 0; k < 3; ++k) trailing.offsets.push_back(static_cast<std::int64_t>(n));
  cases.emplace_back(trailing, true);
  const auto base = random_layout(n, 8.0, 75);
  // The first offset of `from` at or past element e.
  const auto at = [&](std::int64_t e, const layout& from) {
    const auto s = static_cast<std::size_t>(std::lower_bound(from.offsets.begin(), from.offsets.end(), e) -
                                            from.offsets.begin());
    REQUIRE(s + 1 < from.offsets.size());
    return s;
  };
  const auto with = [&](const std::string& name, std::size_t s, std::int64_t value, const layout& from) {
    auto l = from;
    l.name = name;
    l.offsets[s] = value;
    cases.emplace_back(l, false);
  };
  for (std::int64_t block : {1, 2, 5, 16, 40}) {  // walk edges at 1 and 2 threads, and inside walks
    const std::size_t s = at(block * 8192, base);
    with("block " + std::to_string(block) + "'s first offset below its predecessor", s, base.offsets[s - 1] - 1,
         base);
    with("block " + std::to_string(block) + "'s last offset past its successor", s - 1, base.offsets[s] + 1, base);
  }
  with("an entry in the middle of a block lowered", at(3 * 8192 + 4000, base), 3 * 8192 + 100, base);
  with("a negative entry", at(7 * 8192 + 17, base), -5, base);
  with("an entry past n", at(9 * 8192 + 3, base), static_cast<std::int64_t>(n) + 1000, base);
  with("the second entry past everything", 1, static_cast<std::int64_t>(n), base);
  // Blocks with few offsets set their bits without the map: decreases
  // there too, one of them negative in the last, short block.
  const auto sparse = random_layout(n, 1000.0, 76);
  with("a sparse block's entry lowered", at(6 * 8192 + 2000, sparse), 6 * 8192 + 10, sparse);
  {
    auto l = sparse;  // the last block (37 elements) gets offsets, one of them negative
    l.name = "a negative entry in the last block";
    l.offsets.pop_back();
    while (l.offsets.back() >= 40 * 8192) l.offsets.pop_back();
    for (const std::int64_t o : {std::int64_t(40 * 8192 + 5), std::int64_t(-5), std::int64_t(40 * 8192 + 20),
                                 static_cast<std::int64_t>(n)})
      l.offsets.push_back(o);
    cases.emplace_back(l, false);
  }
  with("a sparse block's entry past n", at(12 * 8192 + 100, sparse), static_cast<std::int64_t>(n) + 1, sparse);
  for (const auto& [l, valid] : cases) {
    CAPTURE(l.name);
    const auto offsets = to_device<Space>(l.offsets, "offsets");
    // The same offsets in 32 bits (the AVX-512 walk widens them eight at a time).
    const auto offsets32 = to_device<Space>(std::vector<std::int32_t>(l.offsets.begin(), l.offsets.end()), "offsets32");
    Kokkos::View<std::uint32_t*, Mem> want("want", nwords), got("got", nwords);
    const auto verdict = portable::to_bits_checked(space, offsets, sweep::index_t(n), want, "sweep::test");
    std::vector<std::uint32_t> reference(nwords, 0);
    if (valid) {
      const auto h = l.heads();
      for (std::size_t i = 0; i < n; ++i)
        if (h[i] || i == 0) reference[i / 32] |= std::uint32_t(1) << (i % 32);
      CHECK(verdict < static_cast<sweep::index_t>(l.offsets.size()));
      CHECK(to_host(want) == reference);
    } else {
      CHECK(verdict == static_cast<sweep::index_t>(l.offsets.size()));  // nseg + 1
    }
    for (auto level : {sweep::host::isa::avx512, sweep::host::isa::avx2, sweep::host::isa::baseline}) {
      sweep::host::scoped_isa_limit cap(level);
      CAPTURE(sweep::host::to_string(level));
      Kokkos::deep_copy(got, 0x5a5a5a5au);
      CHECK(backend::to_bits_checked(space, offsets, sweep::index_t(n), got, "sweep::test") == verdict);
      if (valid) CHECK(to_host(got) == reference);
      Kokkos::deep_copy(got, 0x5a5a5a5au);
      CHECK(backend::to_bits_checked(space, offsets32, sweep::index_t(n), got, "sweep::test") == verdict);
      if (valid) CHECK(to_host(got) == reference);
    }
  }
}
