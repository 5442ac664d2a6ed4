// The decoupled look-back protocol of detail/look_back.hpp on its own, on
// host threads: tiles take tickets in order, fold at random speeds (some
// stall while their successors are already waiting on them), and resolve
// their prefixes concurrently. The values are intervals of tile numbers
// whose combine refuses any operand that is not the next interval, so a
// prefix that skips, repeats or reorders a tile cannot pass. A segmented
// variant (a tile may hold a segment head, which closes the prefix) checks
// that look-back stops at a head and publishes it at once.
#include <test_support.hpp>

#include <sweep/detail/look_back.hpp>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <random>
#include <thread>
#include <vector>

namespace {

/// The tiles [lo, hi) folded in order; `broken` once two operands did not
/// meet. `head`: a segment starts inside the interval (segmented variant).
struct span {
  std::int64_t lo;
  std::int64_t hi;
  bool broken;
  bool head;
};

/// Interval concatenation: exact, associative, not commutative. With
/// `Segmented`, an operand holding a head discards what is before it.
template <bool Segmented>
struct span_io {
  using value_type = span;
  static span identity() { return {-1, -1, false, false}; }
  static bool empty(const span& s) { return s.lo == -1 && s.hi == -1 && !s.broken; }
  span combine(const span& a, const span& b) const {
    if (empty(a)) return b;
    if (empty(b)) return a;
    if (Segmented && b.head) return b;
    span r{a.lo, b.hi, a.broken || b.broken || a.hi != b.lo, a.head};
    return r;
  }
};

/// The segmented variant tells the protocol which aggregates close the prefix.
struct segmented_span_io : span_io<true> {
  static bool closes_prefix(const span& s) { return s.head; }
};

struct outcome {
  std::vector<span> exclusive;  // what resolve returned per tile
};

/// Runs `tiles` tiles on `threads` std::threads through look_back_tiles.
template <class IO>
outcome run_tiles(const IO& io, std::int64_t tiles, int threads, const std::vector<bool>& heads,
                  unsigned seed) {
  const sweep::detail::look_back_storage<span, Kokkos::HostSpace> storage(
      Kokkos::DefaultHostExecutionSpace(), tiles);
  Kokkos::fence();
  const auto state = storage.tiles();
  outcome result{std::vector<span>(std::size_t(tiles))};
  std::atomic<std::int64_t> ticket{0};
  std::vector<std::thread> pool;
  for (int t = 0; t < threads; ++t) {
    pool.emplace_back([&, t] {
      std::mt19937 rng(seed * 131u + unsigned(t));
      while (true) {
        const std::int64_t c = ticket.fetch_add(1);
        if (c >= tiles) return;
        // Fold at a random speed: mostly at once, sometimes after a yield,
        // rarely after a sleep long enough for successors to be waiting.
        const unsigned r = rng() % 64;
        if (r == 0) std::this_thread::sleep_for(std::chrono::microseconds(200));
        else if (r < 8) std::this_thread::yield();
        const span aggregate{c, c + 1, false, heads[std::size_t(c)]};
        result.exclusive[std::size_t(c)] = state.resolve(io, c, aggregate, IO::identity());
      }
    });
  }
  for (auto& th : pool) th.join();
  return result;
}

}  // namespace

TEST_CASE("look-back: every tile's exclusive prefix is exactly the tiles before it") {
  // More threads than this machine's cores, so tiles are preempted in the
  // middle of the protocol; waiting tiles spin (as on a GPU), so the tile
  // count stays modest.
  const int threads = 4;
  for (const std::int64_t tiles : {std::int64_t(1), std::int64_t(2), std::int64_t(37), std::int64_t(1500)}) {
    for (unsigned seed = 1; seed <= 3; ++seed) {
      CAPTURE(tiles);
      CAPTURE(seed);
      const auto out = run_tiles(span_io<false>{}, tiles, threads, std::vector<bool>(std::size_t(tiles), false), seed);
      std::int64_t wrong = 0;
      for (std::int64_t c = 0; c < tiles; ++c) {
        const span& e = out.exclusive[std::size_t(c)];
        const bool ok = c == 0 ? span_io<false>::empty(e) : (!e.broken && e.lo == 0 && e.hi == c);
        if (!ok && wrong++ < 5) {
          INFO("tile " << c << ": got [" << e.lo << ", " << e.hi << ") broken " << e.broken);
          CHECK(ok);
        }
      }
      CHECK(wrong == 0);
    }
  }
}

TEST_CASE("look-back: segment heads close the prefix (published at once, walk stops there)") {
  const int threads = 4;
  const std::int64_t tiles = 1500;
  for (unsigned seed = 1; seed <= 3; ++seed) {
    CAPTURE(seed);
    std::mt19937 rng(seed);
    std::vector<bool> heads(static_cast<std::size_t>(tiles));
    for (auto&& h : heads) h = rng() % 16 == 0;
    const auto out = run_tiles(segmented_span_io{}, tiles, threads, heads, seed);
    // Sequential reference: the exclusive prefix of tile c starts at the
    // last head before c (or tile 0) and ends at c.
    std::int64_t start = 0;
    std::int64_t wrong = 0;
    for (std::int64_t c = 0; c < tiles; ++c) {
      const span& e = out.exclusive[std::size_t(c)];
      const bool ok = c == 0 ? span_io<true>::empty(e) : (!e.broken && e.lo == start && e.hi == c);
      if (!ok && wrong++ < 5) {
        INFO("tile " << c << ": got [" << e.lo << ", " << e.hi << "), expected [" << start << ", " << c << ")");
        CHECK(ok);
      }
      if (heads[std::size_t(c)]) start = c;
    }
    CHECK(wrong == 0);
  }
}

TEST_CASE("look-back: the total is the last tile's inclusive prefix, init folded in") {
  const std::int64_t tiles = 513;
  const sweep::detail::look_back_storage<span, Kokkos::HostSpace> storage(
      Kokkos::DefaultHostExecutionSpace(), tiles);
  Kokkos::fence();
  const auto state = storage.tiles();
  const span_io<false> io;
  // init stands for the elements before tile 0: the interval [-5, 0).
  const span init{-5, 0, false, false};
  std::vector<span> exclusive(static_cast<std::size_t>(tiles));
  // Tiles resolved by one thread in ticket order: the protocol's sequential limit.
  for (std::int64_t c = 0; c < tiles; ++c)
    exclusive[std::size_t(c)] = state.resolve(io, c, span{c, c + 1, false, false}, init);
  CHECK(exclusive[0].lo == -5);
  CHECK(exclusive[0].hi == 0);
  CHECK(exclusive[std::size_t(tiles - 1)].lo == -5);
  CHECK(exclusive[std::size_t(tiles - 1)].hi == tiles - 1);
  const span total = storage.total(Kokkos::DefaultHostExecutionSpace());
  CHECK_FALSE(total.broken);
  CHECK(total.lo == -5);
  CHECK(total.hi == tiles);
}
