// Search for prefix networks under constraints.
//
//   sweep::synthesis_result sweep::synthesize_network(n, constraints);
//
// Finds a forward prefix network (see scan_network.hpp) on n wires that
// meets a maximum depth (steps), a maximum size (operations), a maximum
// fan-out (operations of one step reading the same wire) and, optionally,
// zero bank conflicts under an index mapping (bank_conflicts() with each
// step's operations in increasing dst order), minimising size and then
// bank conflicts. The result says whether the network is proven optimal,
// is the best found when the search budget ran out, or that no network
// exists (proven) or none was found before the budget ran out. Every
// returned network has passed verify_prefix().
//
// Method: in a forward prefix network wire i always holds an interval
// [lo, i], and an operation on wire i must read wire lo - 1; so a network is
// fixed by choosing, for each wire, the steps in which it combines, and a
// wire's choices depend only on the wires to its left. The search fixes
// wires left to right (depth-first, branch and bound), with bounds:
// - Snir's size + depth >= 2n - 2 and the interval-doubling depth bound
//   ceil(log2 n) answer impossible constraints at once;
// - an exact table of the fewest operations a wire needs from each
//   (interval, time) given the wires already fixed bounds the current wire
//   and prunes schedules that cannot finish within the depth;
// - Snir's argument applied to the wires right of the current one bounds
//   the operations they still need, and an over-approximation of the
//   intervals they can reach must let each finish in time;
// - bank conflicts only grow as operations are appended to a step.
// The best of the classic networks that meet the constraints seeds the
// bound. Cost: exponential in the worst case; `node_budget` caps the
// schedules examined, after which the answer is honest about it.
//
// Errors: std::invalid_argument for n outside [0, 64] or negative limits.
#pragma once

#include <sweep/scan_network.hpp>

#include <array>
#include <cstdint>
#include <functional>
#include <limits>
#include <optional>
#include <string>
#include <vector>

namespace sweep {

struct synthesis_constraints {
  std::optional<std::int32_t> max_depth;   ///< steps; none: n - 1 (enough for any minimum)
  std::optional<std::int64_t> max_size;    ///< operations
  std::optional<std::int32_t> max_fanout;  ///< operations of one step reading one wire
  bool conflict_free = false;              ///< require bank_conflicts(net, index_map) == 0
  std::function<std::int64_t(std::int64_t)> index_map = plain_index;
  std::uint64_t node_budget = 50'000'000;  ///< schedules examined before giving up
};

enum class synthesis_status {
  optimal,           ///< network found; no better one exists within the constraints
  feasible,          ///< network found; the budget ran out before optimality was proven
  infeasible,        ///< proven: no network meets the constraints
  budget_exhausted,  ///< no network found before the budget ran out; one may exist
};

inline const char* to_string(synthesis_status s) {
  switch (s) {
    case synthesis_status::optimal: return "optimal";
    case synthesis_status::feasible: return "feasible (budget exhausted before optimality was proven)";
    case synthesis_status::infeasible: return "infeasible";
    case synthesis_status::budget_exhausted: return "search budget exhausted";
  }
  return "?";
}

struct synthesis_result {
  synthesis_status status = synthesis_status::infeasible;
  std::optional<scan_network> network;
  std::size_t conflicts = 0;         ///< bank_conflicts(*network, index_map)
  std::size_t fanout = 0;            ///< max operations of one step reading one wire
  std::size_t size_lower_bound = 0;  ///< proven lower bound on the size under the constraints
  std::uint64_t nodes = 0;           ///< schedules examined
  std::string reason;                ///< why: the bound or search outcome
  explicit operator bool() const { return network.has_value(); }
};

/// Largest number of operations of one step that read the same wire.
inline std::size_t network_fanout(const scan_network& net) {
  std::size_t worst = 0;
  std::vector<std::size_t> count(static_cast<std::size_t>(net.n));
  for (const auto& step : net.steps) {
    std::fill(count.begin(), count.end(), 0);
    for (auto op : step) worst = std::max(worst, ++count[static_cast<std::size_t>(op.src)]);
  }
  return worst;
}

namespace detail {

class network_search {
 public:
  network_search(std::int32_t n, std::int32_t depth, std::int64_t max_size, std::int32_t max_fanout,
                 bool conflict_free, std::vector<std::int64_t> words, std::uint64_t budget)
      : n_(n), d_(depth), max_size_(max_size), max_fanout_(max_fanout), conflict_free_(conflict_free),
        words_(std::move(words)), budget_(budget), lo_(static_cast<std::size_t>(n) * (depth + 1), 0),
        m_(static_cast<std::size_t>(n) * (depth + 1), inf), emin_(static_cast<std::size_t>(n) * n, 0), fan_(static_cast<std::size_t>(n) * depth, 0),
        steps_(static_cast<std::size_t>(depth)), warp_cost_(static_cast<std::size_t>(depth)) {}

  /// Seeds the bound with a known network (its size and conflicts).
  void seed(std::int64_t size, std::size_t conflicts) {
    have_best_ = true;
    best_size_ = size;
    best_conflicts_ = conflicts;
  }

  void run() {
    if (n_ > 0) place(0);
  }

  bool aborted() const { return aborted_; }
  bool improved() const { return improved_; }
  std::uint64_t nodes() const { return nodes_; }
  const steps_t& best_steps() const { return best_steps_; }

 private:
  static constexpr std::int32_t inf = std::numeric_limits<std::int32_t>::max() / 4;

  std::int32_t& lo(std::int32_t wire, std::int32_t t) { return lo_[static_cast<std::size_t>(wire) * (d_ + 1) + t]; }
  std::int32_t& m(std::int32_t v, std::int32_t t) { return m_[static_cast<std::size_t>(v) * (d_ + 1) + t]; }
  std::int32_t& fan(std::int32_t t, std::int32_t wire) { return fan_[static_cast<std::size_t>(t) * n_ + wire]; }

  /// Largest size still worth reaching (inclusive) given conflicts so far.
  bool worth(std::int64_t size_lb) const {
    if (size_lb > max_size_) return false;
    if (!have_best_) return true;
    if (size_lb < best_size_) return true;
    return size_lb == best_size_ && !conflict_free_ && conflicts_ < best_conflicts_;
  }

  std::size_t warp_conflicts(const std::vector<network_op>& step, std::size_t w) const {
    const std::size_t begin = w * 32, end = std::min(step.size(), begin + 32);
    std::size_t extra = 0;
    for (int access = 0; access < 2; ++access) {
      std::array<std::int64_t, 32 * 32> seen;  // per bank, distinct words (at most 32)
      std::array<std::size_t, 32> count{};
      std::size_t worst = 1;
      for (std::size_t k = begin; k < end; ++k) {
        const std::int64_t word = words_[static_cast<std::size_t>(access == 0 ? step[k].src : step[k].dst)];
        const std::size_t bank = static_cast<std::size_t>(word % 32);
        bool dup = false;
        for (std::size_t q = 0; q < count[bank]; ++q) dup = dup || seen[bank * 32 + q] == word;
        if (!dup) seen[bank * 32 + count[bank]++] = word;
        worst = std::max(worst, count[bank]);
      }
      extra += (worst - 1) * (access == 0 ? 1 : 2);
    }
    return extra;
  }

  /// Appends op to step t; false (and nothing changed) if a constraint fails.
  bool push(std::int32_t t, network_op op) {
    if (fan(t, op.src) >= max_fanout_) return false;
    auto& step = steps_[static_cast<std::size_t>(t)];
    auto& cost = warp_cost_[static_cast<std::size_t>(t)];
    step.push_back(op);
    const std::size_t w = (step.size() - 1) / 32;
    if (cost.size() <= w) cost.push_back(0);
    const std::size_t now = warp_conflicts(step, w);
    if (conflict_free_ && now > 0) {
      step.pop_back();
      if (step.size() == w * 32) cost.pop_back();
      return false;
    }
    conflicts_ += now - cost[w];
    cost[w] = now;
    ++fan(t, op.src);
    ++size_;
    return true;
  }

  void pop(std::int32_t t) {
    auto& step = steps_[static_cast<std::size_t>(t)];
    auto& cost = warp_cost_[static_cast<std::size_t>(t)];
    const network_op op = step.back();
    step.pop_back();
    const std::size_t w = step.size() / 32;
    const std::size_t now = step.size() == w * 32 ? 0 : warp_conflicts(step, w);
    conflicts_ -= cost[w] - now;
    if (step.size() == w * 32)
      cost.pop_back();
    else
      cost[w] = now;
    --fan(t, op.src);
    --size_;
  }

  /// Over-approximates, for each wire right of `fixed`, the intervals it can
  /// hold at each time (bit v: lo = v); false if one cannot finish in time.
  bool future_can_finish(std::int32_t fixed) {
    if (n_ > 64) return true;
    reach_.assign(static_cast<std::size_t>(n_) * (d_ + 1), 0);
    auto r = [&](std::int32_t w, std::int32_t t) -> std::uint64_t& {
      return reach_[static_cast<std::size_t>(w) * (d_ + 1) + t];
    };
    for (std::int32_t w = 0; w <= fixed; ++w)
      for (std::int32_t t = 0; t <= d_; ++t) r(w, t) = std::uint64_t(1) << lo(w, t);
    for (std::int32_t w = fixed + 1; w < n_; ++w) {
      r(w, 0) = std::uint64_t(1) << w;
      for (std::int32_t t = 0; t < d_; ++t) {
        std::uint64_t next = r(w, t);
        for (std::uint64_t bits = r(w, t) & ~std::uint64_t(1); bits; bits &= bits - 1)
          next |= r(std::countr_zero(bits) - 1, t);
        r(w, t + 1) = next;
      }
      if (!(r(w, d_) & 1)) return false;
    }
    // Earliest possible completion of any of the wires w + 1..n - 2, for
    // future_ops().
    std::int32_t* e = &emin_[static_cast<std::size_t>(fixed) * n_];
    std::int32_t best = d_ + 1;
    for (std::int32_t w = n_ - 1; w >= fixed; --w) {
      e[w] = best;  // over wires w + 1..n - 2
      if (w == fixed || w == n_ - 1) continue;
      std::int32_t t = 0;
      while (!(r(w, t) & 1)) ++t;
      best = std::min(best, t);
    }
    return true;
  }

  /// Fewest operations on wires f..n-1 (f >= 1), by Snir's argument for the
  /// part right of f: the tree T of operations giving wire n - 1 its final
  /// value has at least n - f nodes whose interval reaches past f - 1, all
  /// on those wires; each output f..n-2 needs its own final operation unless
  /// it is a prefix on T's left spine, and a spine prefix [0, a] with a >= f
  /// sits j >= 1 levels below the root, so done by step d - j, which needs
  /// d - j >= ceil(log2(f + 1)) and d - j >= the earliest step any of the
  /// wires a..n-2 can finish in the over-approximation.
  /// `level`: the wires 0..level are fixed and future_can_finish(level) ran.
  std::int64_t future_ops(std::int32_t f, std::int32_t level) const {
    if (f >= n_) return 0;
    std::int32_t need = 0;
    while ((std::int64_t(1) << need) < std::int64_t(f) + 1) ++need;
    if (n_ <= 64 && level >= 0) need = std::max(need, emin_[static_cast<std::size_t>(level) * n_ + f - 1]);
    const std::int64_t outputs = n_ - 1 - f;
    const std::int64_t spine = std::min<std::int64_t>(outputs, std::max(0, d_ - need));
    return (n_ - f) + (outputs - spine);
  }

  void place(std::int32_t i) {
    if (aborted_) return;
    if (i == n_) {
      if (worth(size_)) {
        have_best_ = improved_ = true;
        best_size_ = size_;
        best_conflicts_ = conflicts_;
        best_steps_ = steps_;
      }
      return;
    }
    // Fewest operations from (lo = i, time t), now that wires < i are fixed.
    for (std::int32_t t = d_; t >= 0; --t) {
      if (i == 0)
        m(i, t) = 0;
      else if (t == d_)
        m(i, t) = inf;
      else
        m(i, t) = std::min(m(i, t + 1), 1 + m(lo(i - 1, t), t + 1));
    }
    if (m(i, 0) >= inf) return;
    const std::int64_t own_then_rest = m(i, 0) + (i >= 1 ? future_ops(i + 1, i - 1) : std::int64_t(n_ - 1 - i));
    if (!worth(size_ + std::max<std::int64_t>(own_then_rest, i >= 1 ? future_ops(i, i - 1) : 0))) return;
    lo(i, 0) = i;
    schedule(i, 0, i, 0);
  }

  void schedule(std::int32_t i, std::int32_t t, std::int32_t v, std::int32_t ops) {
    if (aborted_) return;
    if (++nodes_ > budget_) {
      aborted_ = true;
      return;
    }
    if (v == 0) {
      for (std::int32_t u = t; u <= d_; ++u) lo(i, u) = 0;
      if (i + 1 < n_ && !future_can_finish(i)) return;
      place(i + 1);
      return;
    }
    if (t == d_) return;
    const std::int64_t rest = future_ops(i + 1, i - 1);
    const std::int32_t src = v - 1, nv = lo(src, t);
    const std::int32_t after_combine = 1 + m(nv, t + 1), after_idle = m(v, t + 1);
    auto combine = [&] {
      if (after_combine >= inf || !worth(size_ + 1 + m(nv, t + 1) + rest)) return;
      if (!push(t, {i, src})) return;
      lo(i, t + 1) = nv;
      schedule(i, t + 1, nv, ops + 1);
      pop(t);
    };
    auto idle = [&] {
      if (after_idle >= inf || !worth(size_ + after_idle + rest)) return;
      lo(i, t + 1) = v;
      schedule(i, t + 1, v, ops);
    };
    if (after_combine < after_idle) {
      combine();
      idle();
    } else {
      idle();
      combine();
    }
  }

  std::int32_t n_, d_;
  std::int64_t max_size_;
  std::int32_t max_fanout_;
  bool conflict_free_;
  std::vector<std::int64_t> words_;
  std::uint64_t budget_, nodes_ = 0;
  bool aborted_ = false, have_best_ = false, improved_ = false;
  std::vector<std::int32_t> lo_, m_, emin_, fan_;
  std::vector<std::uint64_t> reach_;
  steps_t steps_;
  std::vector<std::vector<std::size_t>> warp_cost_;
  std::int64_t size_ = 0, best_size_ = 0;
  std::size_t conflicts_ = 0, best_conflicts_ = 0;
  steps_t best_steps_;
};

inline steps_t serial_steps(std::int32_t n) {
  steps_t steps;
  for (std::int32_t i = 1; i < n; ++i) steps.push_back({{i, i - 1}});
  return steps;
}

}  // namespace detail

/// Searches for a minimum-size (then fewest bank conflicts) forward prefix
/// network on n wires meeting `c`; see the top of this file.
inline synthesis_result synthesize_network(std::int32_t n, const synthesis_constraints& c = {}) {
  const char* fn = "sweep::synthesize_network";
  detail::require(n >= 0 && n <= 64, fn, "n is ", n, "; the search handles 0 <= n <= 64");
  detail::require(!c.max_depth || *c.max_depth >= 0, fn, "max_depth is ", c.max_depth.value_or(0),
                  "; it must not be negative");
  detail::require(!c.max_size || *c.max_size >= 0, fn, "max_size is ", c.max_size.value_or(0),
                  "; it must not be negative");
  detail::require(!c.max_fanout || *c.max_fanout >= 1, fn, "max_fanout is ", c.max_fanout.value_or(0),
                  "; it must be at least 1");
  detail::require(static_cast<bool>(c.index_map), fn, "index_map is empty");

  synthesis_result res;
  const std::int32_t full = std::max<std::int32_t>(n - 1, 0);
  const std::int32_t depth = std::min(c.max_depth.value_or(full), full);
  const std::int64_t max_size = c.max_size.value_or(std::numeric_limits<std::int64_t>::max());
  const std::int32_t max_fanout = c.max_fanout.value_or(std::numeric_limits<std::int32_t>::max());
  std::int32_t min_depth = 0;
  while (n > 1 && (std::int64_t(1) << min_depth) < n) ++min_depth;
  // Snir: size + depth >= 2n - 2; and every wire but the first needs an op.
  const std::int64_t size_lb = std::max<std::int64_t>({std::int64_t(full), 2 * std::int64_t(n) - 2 - depth, 0});
  res.size_lower_bound = static_cast<std::size_t>(size_lb);
  if (depth < min_depth) {
    res.reason = "depth " + std::to_string(depth) + " is below ceil(log2 n) = " + std::to_string(min_depth);
    return res;
  }
  if (max_size < size_lb) {
    res.reason = "size " + std::to_string(max_size) + " is below the lower bound max(n - 1, 2n - 2 - depth) = " +
                 std::to_string(size_lb);
    return res;
  }

  std::vector<std::int64_t> words(static_cast<std::size_t>(n));
  for (std::int32_t i = 0; i < n; ++i) words[static_cast<std::size_t>(i)] = c.index_map(i);
  auto meets = [&](const scan_network& net, std::size_t conflicts) {
    return net.depth() <= static_cast<std::size_t>(depth) && static_cast<std::int64_t>(net.size()) <= max_size &&
           network_fanout(net) <= static_cast<std::size_t>(max_fanout) && (!c.conflict_free || conflicts == 0);
  };

  // Seed: the best classic network (or the serial chain) that qualifies.
  std::optional<scan_network> best;
  std::size_t best_conflicts = 0;
  auto consider = [&](scan_network net) {
    const std::size_t conflicts = bank_conflicts(net, c.index_map);
    if (!meets(net, conflicts)) return;
    if (!best || net.size() < best->size() || (net.size() == best->size() && conflicts < best_conflicts)) {
      best = std::move(net);
      best_conflicts = conflicts;
    }
  };
  for (auto kind : {network_kind::kogge_stone, network_kind::sklansky, network_kind::brent_kung,
                    network_kind::brent_kung_radix3, network_kind::ladner_fischer})
    consider(make_scan_network(kind, n));
  {
    scan_network serial;
    serial.kind = network_kind::synthesized;
    serial.n = n;
    serial.steps = detail::serial_steps(n);
    consider(std::move(serial));
  }

  const bool done_by_bound = best && static_cast<std::int64_t>(best->size()) == size_lb && best_conflicts == 0;
  if (done_by_bound) {
    res.status = synthesis_status::optimal;
    res.reason = "meets the lower bound max(n - 1, 2n - 2 - depth) with no bank conflicts";
  } else {
    // Iterative deepening on the size: a search capped at size T prunes far
    // more than one capped by the seed, and each one that fails proves that
    // nothing of size <= T exists. At the seed's size (or the cap) the
    // search only looks for fewer bank conflicts.
    const std::int64_t most = std::min<std::int64_t>(max_size, std::int64_t(full) * depth);
    const std::int64_t last = best ? static_cast<std::int64_t>(best->size()) : most;
    bool aborted = false, improved = false;
    std::uint64_t left = c.node_budget;
    for (std::int64_t target = size_lb; target <= last && !aborted && !improved; ++target) {
      detail::network_search search(n, depth, target, max_fanout, c.conflict_free, words, left);
      if (best && target == last) search.seed(last, best_conflicts);
      search.run();
      res.nodes += search.nodes();
      left -= std::min(left, search.nodes());
      aborted = search.aborted();
      if (search.improved()) {
        improved = true;
        scan_network net;
        net.kind = network_kind::synthesized;
        net.n = n;
        for (const auto& step : search.best_steps())
          if (!step.empty()) net.steps.push_back(step);
        best_conflicts = bank_conflicts(net, c.index_map);
        best = std::move(net);
      } else if (!aborted && !(best && target == last)) {
        res.size_lower_bound = static_cast<std::size_t>(std::max(size_lb, target + 1));
      }
    }
    // The search at the first target that has a network also minimised its
    // conflicts (branch and bound within that size), unless it was aborted.
    if (aborted && best && best->size() == res.size_lower_bound && best_conflicts == 0) aborted = false;
    if (aborted) {
      res.status = best ? synthesis_status::feasible : synthesis_status::budget_exhausted;
      res.reason = "node budget of " + std::to_string(c.node_budget) + " schedules exhausted";
    } else {
      res.status = best ? synthesis_status::optimal : synthesis_status::infeasible;
      res.reason = best ? "exhaustive search" : "exhaustive search found no network within the constraints";
    }
  }
  if (best) {
    std::string why;
    detail::require(verify_prefix(*best, &why), fn, "internal error: result fails verify_prefix: ", why);
    res.conflicts = best_conflicts;
    res.fanout = network_fanout(*best);
    res.network = std::move(best);
  }
  return res;
}

}  // namespace sweep
