// Scan networks as data. A network on n wires is a list of steps; a step is
// a set of operations (dst, src) that all read the values from before the
// step and then write x[dst] = x[src] (+) x[dst] (forward: src < dst) or
// x[dst] = x[dst] (+) x[src] (backward: src > dst). Generators build the
// classic prefix networks for any n; each reports its size (operations) and
// depth (steps). verify_prefix() decides exactly, by composing the input
// interval each wire holds, whether a network computes the inclusive scan.
// bank_conflicts() counts the extra shared-memory transactions a network
// costs when each operation of a step is one GPU thread (warps of 32, 32
// banks of 4-byte words) under an index mapping; padded_index() is the
// mapping with one padding word per 32 that removes most of them.
//
//   kind                size (n = 2^k)          depth
//   kogge_stone         n log n - n + 1         log n
//   sklansky            (n/2) log n             log n
//   brent_kung          2n - log n - 2          2 log n - 1
//   brent_kung_radix3   about 2n                about 4 log3 n
//   ladner_fischer      about (n/4) log n + n   log n + 1
// The team scans of the tiled and single-pass kernels run these networks
// over their per-thread partial sums (sweep::detail::network_view).
#pragma once

#include <sweep/core.hpp>

#include <algorithm>
#include <bit>
#include <cstdint>
#include <functional>
#include <sstream>
#include <string>
#include <vector>

namespace sweep {

struct network_op {
  std::int32_t dst;
  std::int32_t src;
};

/// `synthesized` marks networks found by synthesize_network()
/// (scan_network_synthesis.hpp); make_scan_network() cannot build it.
enum class network_kind { kogge_stone, sklansky, brent_kung, brent_kung_radix3, ladner_fischer, synthesized };

struct scan_network {
  network_kind kind = network_kind::kogge_stone;
  std::int32_t n = 0;
  sweep::direction direction = sweep::direction::forward;
  std::vector<std::vector<network_op>> steps;

  /// Number of operations.
  std::size_t size() const {
    std::size_t s = 0;
    for (const auto& step : steps) s += step.size();
    return s;
  }
  /// Number of steps.
  std::size_t depth() const { return steps.size(); }
};

inline const char* to_string(network_kind k) {
  switch (k) {
    case network_kind::kogge_stone: return "kogge_stone";
    case network_kind::sklansky: return "sklansky";
    case network_kind::brent_kung: return "brent_kung";
    case network_kind::brent_kung_radix3: return "brent_kung_radix3";
    case network_kind::ladner_fischer: return "ladner_fischer";
    case network_kind::synthesized: return "synthesized";
  }
  return "?";
}

namespace detail {

using steps_t = std::vector<std::vector<network_op>>;

inline void push_step(steps_t& steps, std::vector<network_op> step) {
  if (!step.empty()) steps.push_back(std::move(step));
}

inline steps_t kogge_stone_steps(std::int32_t n) {
  steps_t steps;
  for (std::int32_t d = 1; d < n; d *= 2) {
    std::vector<network_op> step;
    for (std::int32_t i = d; i < n; ++i) step.push_back({i, i - d});
    push_step(steps, std::move(step));
  }
  return steps;
}

inline steps_t sklansky_steps(std::int32_t n) {
  steps_t steps;
  for (std::int32_t k = 0; (std::int32_t(1) << k) < n; ++k) {
    std::vector<network_op> step;
    for (std::int32_t i = 0; i < n; ++i)
      if ((i >> k) & 1) step.push_back({i, ((i >> k) << k) - 1});
    push_step(steps, std::move(step));
  }
  return steps;
}

inline steps_t brent_kung_steps(std::int32_t n) {
  steps_t steps;
  for (std::int32_t d = 1; d < n; d *= 2) {
    std::vector<network_op> step;
    for (std::int32_t r = 2 * d - 1; r < n; r += 2 * d) step.push_back({r, r - d});
    push_step(steps, std::move(step));
  }
  const std::int32_t top = n > 0 ? static_cast<std::int32_t>(std::bit_floor(static_cast<std::uint32_t>(n))) : 0;
  for (std::int32_t d = top / 2; d >= 1; d /= 2) {
    std::vector<network_op> step;
    for (std::int32_t r = 3 * d - 1; r < n; r += 2 * d) step.push_back({r, r - d});
    push_step(steps, std::move(step));
  }
  return steps;
}

/// Radix 3: each up-sweep level folds three sub-blocks of stride s into the
/// last (two steps: middle gets first, last gets middle); the down-sweep
/// hands each block's prefix to its first two sub-block ends in one step.
inline steps_t brent_kung_radix3_steps(std::int32_t n) {
  steps_t steps;
  std::vector<std::int32_t> strides;
  for (std::int64_t s = 1; s < n; s *= 3) {
    strides.push_back(static_cast<std::int32_t>(s));
    std::vector<network_op> a, b;
    for (std::int64_t blk = 0; blk + s < n; blk += 3 * s) {
      const std::int64_t e1 = blk + s - 1, e2 = blk + 2 * s - 1, e3 = blk + 3 * s - 1;
      if (e2 < n) a.push_back({static_cast<std::int32_t>(e2), static_cast<std::int32_t>(e1)});
      if (e3 < n) b.push_back({static_cast<std::int32_t>(e3), static_cast<std::int32_t>(e2)});
    }
    push_step(steps, std::move(a));
    push_step(steps, std::move(b));
  }
  for (auto it = strides.rbegin(); it != strides.rend(); ++it) {
    const std::int64_t s = *it;
    std::vector<network_op> step;
    for (std::int64_t blk = 3 * s; blk < n; blk += 3 * s) {
      const std::int64_t p = blk - 1;  // prefix of everything before blk
      if (blk + s - 1 < n) step.push_back({static_cast<std::int32_t>(blk + s - 1), static_cast<std::int32_t>(p)});
      if (blk + 2 * s - 1 < n)
        step.push_back({static_cast<std::int32_t>(blk + 2 * s - 1), static_cast<std::int32_t>(p)});
    }
    push_step(steps, std::move(step));
  }
  return steps;
}

/// Ladner-Fischer: combine pairs, scan the odd wires with Sklansky, then
/// finish the even wires from their odd left neighbours.
inline steps_t ladner_fischer_steps(std::int32_t n) {
  steps_t steps;
  if (n < 2) return steps;
  std::vector<network_op> pairs;
  for (std::int32_t i = 1; i < n; i += 2) pairs.push_back({i, i - 1});
  push_step(steps, std::move(pairs));
  for (auto& inner : sklansky_steps(n / 2)) {
    std::vector<network_op> step;
    for (auto op : inner) step.push_back({2 * op.dst + 1, 2 * op.src + 1});
    push_step(steps, std::move(step));
  }
  std::vector<network_op> evens;
  for (std::int32_t i = 2; i < n; i += 2) evens.push_back({i, i - 1});
  push_step(steps, std::move(evens));
  return steps;
}

}  // namespace detail

/// The network of `kind` on n wires, forward (prefix) or backward (suffix).
inline scan_network make_scan_network(network_kind kind, std::int32_t n, direction dir = direction::forward) {
  detail::require(n >= 0, "sweep::make_scan_network", "n is ", n, "; it must not be negative");
  scan_network net;
  net.kind = kind;
  net.n = n;
  net.direction = dir;
  switch (kind) {
    case network_kind::kogge_stone: net.steps = detail::kogge_stone_steps(n); break;
    case network_kind::sklansky: net.steps = detail::sklansky_steps(n); break;
    case network_kind::brent_kung: net.steps = detail::brent_kung_steps(n); break;
    case network_kind::brent_kung_radix3: net.steps = detail::brent_kung_radix3_steps(n); break;
    case network_kind::ladner_fischer: net.steps = detail::ladner_fischer_steps(n); break;
    case network_kind::synthesized:
      detail::require(false, "sweep::make_scan_network", "kind is synthesized; use sweep::synthesize_network");
  }
  if (dir == direction::backward)
    for (auto& step : net.steps)
      for (auto& op : step) op = {n - 1 - op.dst, n - 1 - op.src};
  return net;
}

/// Exact check that `net` computes the inclusive scan on its n wires: each
/// wire's value is tracked as the interval of inputs it combines; an
/// operation is legal only when its operands are adjacent intervals in the
/// network's order, and a step may write each wire once. On failure `why`
/// (when given) says what went wrong.
inline bool verify_prefix(const scan_network& net, std::string* why = nullptr) {
  const std::int32_t n = net.n;
  const bool fwd = net.direction == direction::forward;
  std::vector<std::int32_t> lo(n), hi(n);
  for (std::int32_t i = 0; i < n; ++i) lo[i] = hi[i] = i;
  auto fail = [&](const std::string& msg) {
    if (why) *why = msg;
    return false;
  };
  for (std::size_t s = 0; s < net.steps.size(); ++s) {
    std::vector<std::int32_t> nlo = lo, nhi = hi;
    std::vector<char> written(n, 0);
    for (auto op : net.steps[s]) {
      std::ostringstream where;
      where << "step " << s << " op (" << op.dst << ", " << op.src << ")";
      if (op.dst < 0 || op.dst >= n || op.src < 0 || op.src >= n) return fail(where.str() + ": wire out of range");
      if (written[op.dst]++) return fail(where.str() + ": wire written twice in one step");
      // forward: [src] then [dst]; backward: [dst] then [src].
      const std::int32_t a = fwd ? op.src : op.dst, b = fwd ? op.dst : op.src;
      if (hi[a] + 1 != lo[b]) return fail(where.str() + ": operands are not adjacent intervals");
      nlo[op.dst] = lo[a];
      nhi[op.dst] = hi[b];
    }
    lo.swap(nlo);
    hi.swap(nhi);
  }
  for (std::int32_t i = 0; i < n; ++i) {
    const bool ok = fwd ? (lo[i] == 0 && hi[i] == i) : (lo[i] == i && hi[i] == n - 1);
    if (!ok) {
      std::ostringstream msg;
      msg << "wire " << i << " ends with inputs [" << lo[i] << ", " << hi[i] << "]";
      return fail(msg.str());
    }
  }
  return true;
}

/// Identity mapping of wires to 4-byte shared-memory words.
inline std::int64_t plain_index(std::int64_t i) { return i; }
/// One padding word after every 32: wire i lives at word i + i/32.
inline std::int64_t padded_index(std::int64_t i) { return i + i / 32; }

/// Extra shared-memory transactions (beyond one per warp access) when the
/// operations of each step run as consecutive threads in warps of 32 and
/// each thread reads src, reads dst and writes dst of its operation; words
/// are placed by `map`, banks are word % 32.
inline std::size_t bank_conflicts(const scan_network& net,
                                  const std::function<std::int64_t(std::int64_t)>& map = plain_index) {
  std::size_t extra = 0;
  for (const auto& step : net.steps) {
    for (std::size_t w = 0; w < step.size(); w += 32) {
      const std::size_t end = std::min(step.size(), w + 32);
      for (int access = 0; access < 2; ++access) {  // src reads; dst reads (= dst writes)
        std::vector<std::vector<std::int64_t>> words(32);
        for (std::size_t t = w; t < end; ++t) {
          const std::int64_t word = map(access == 0 ? step[t].src : step[t].dst);
          auto& bank = words[static_cast<std::size_t>(word % 32)];
          if (std::find(bank.begin(), bank.end(), word) == bank.end()) bank.push_back(word);
        }
        std::size_t worst = 1;
        for (const auto& bank : words) worst = std::max(worst, bank.size());
        extra += (worst - 1) * (access == 0 ? 1 : 2);
      }
    }
  }
  return extra;
}

/// A text picture: one line per step, one column per wire; 'o' marks a wire
/// written in the step, '*' a wire only read, '|' an idle wire.
inline std::string draw(const scan_network& net) {
  std::ostringstream os;
  os << to_string(net.kind) << " n=" << net.n << (net.direction == direction::forward ? " forward" : " backward")
     << ": size " << net.size() << ", depth " << net.depth() << "\n";
  os << "        ";
  for (std::int32_t i = 0; i < net.n; ++i) os << (i % 10);
  os << "\n";
  for (std::size_t s = 0; s < net.steps.size(); ++s) {
    std::string line(static_cast<std::size_t>(net.n), '|');
    for (auto op : net.steps[s]) line[static_cast<std::size_t>(op.src)] = '*';
    for (auto op : net.steps[s]) line[static_cast<std::size_t>(op.dst)] = 'o';
    os << "step " << (s < 10 ? " " : "") << s << " " << line << "\n";
  }
  return os.str();
}

}  // namespace sweep
