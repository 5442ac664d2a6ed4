// Every functional variant of a scan from one forward prefix network
// (scan_network.hpp: any generator's, or synthesize_network()'s).
//
//   scan_network sweep::reversed(net);                 // backward (suffix) network
//   std::vector<T> sweep::run_network_variant(net, v, x, op [, init, heads]);
//   bool sweep::verify_variant(net, v [, why]);
//   sweep::head_flagged<Op>, sweep::flagged<T>         // the lifted operator
//
// A variant is a direction, inclusive or exclusive, plain or segmented:
// - backward: the network mirrored (wire i -> n-1-i); each operation then
//   computes x[dst] = x[dst] (+) x[src].
// - exclusive with init: init is folded into the first element (forward:
//   x[0] = init (+) x[0]; backward: x[n-1] = x[n-1] (+) init; one extra
//   operation), the inclusive network runs, and the result moves one wire
//   (forward: out[i] = y[i-1], out[0] = init).
// - segmented by head flags (heads[i]: a segment starts at i, in both
//   directions): the network runs over (value, flag) pairs under the lifted
//   operator (a, b) -> (b.flag ? b.v : a.v (+) b.v, a.flag | b.flag), which
//   is associative whenever (+) is; backward scans flag the last element of
//   each segment and use the mirrored lift. Exclusive segmented scans give
//   init at each segment's first element and init (+) (the segment so far)
//   elsewhere.
// run_network_variant() is the executable definition (step semantics as in
// scan_network.hpp); verify_variant() proves a variant correct for every
// associative operator by running it on symbolic values (the interval of
// inputs, plus init, that a value combines; an operation is legal only on
// adjacent operands) for every head pattern (2^n of them when segmented).
// Team scans run forward variants in kernels: make_team_network(net) in
// team_scan.hpp uploads any forward network, and segmented team scans are
// team scans of flagged<T> under head_flagged<Op>.
//
// Errors: std::invalid_argument for a backward input network, sizes that
// do not match, or verify_variant() on a segmented variant with n > 20.
// Cost: run_network_variant O(size + n); verify_variant O(2^n (size + n))
// segmented, O(size + n) otherwise.
#pragma once

#include <sweep/detail/segmented_io.hpp>
#include <sweep/monoid.hpp>
#include <sweep/scan_network.hpp>

#include <cstdint>
#include <sstream>
#include <string>
#include <vector>

namespace sweep {

/// A value with its segment-head flag, and the lifted (segmented) operator.
template <class T>
using flagged = detail::seg_value<T, bool>;
template <class Op>
using head_flagged = detail::lifted<Op, bool>;

struct network_variant {
  sweep::direction direction = sweep::direction::forward;
  bool exclusive = false;
  bool segmented = false;
};

inline std::string to_string(const network_variant& v) {
  std::string s = v.direction == direction::forward ? "forward" : "backward";
  s += v.exclusive ? " exclusive" : " inclusive";
  if (v.segmented) s += " segmented";
  return s;
}

/// The mirrored network: a forward prefix network becomes the backward
/// (suffix) one and vice versa.
inline scan_network reversed(const scan_network& net) {
  scan_network out = net;
  out.direction = net.direction == direction::forward ? direction::backward : direction::forward;
  for (auto& step : out.steps)
    for (auto& op : step) op = {net.n - 1 - op.dst, net.n - 1 - op.src};
  return out;
}

namespace detail {

/// Runs `net` (either direction) on x with parallel step semantics.
template <class T, class Op>
void run_steps(const scan_network& net, std::vector<T>& x, const Op& op) {
  const bool fwd = net.direction == direction::forward;
  std::vector<T> next;
  for (const auto& step : net.steps) {
    next = x;
    for (auto o : step) next[o.dst] = fwd ? op(x[o.src], x[o.dst]) : op(x[o.dst], x[o.src]);
    x.swap(next);
  }
}

}  // namespace detail

/// Variant `v` of the scan that forward prefix network `net` computes,
/// applied to x: out[i] as sweep's scans define it (see the top of this
/// file). `heads` (one per element, nonzero: a segment starts) is read only
/// for segmented variants.
template <class T, class Op>
std::vector<T> run_network_variant(const scan_network& net, const network_variant& v, std::vector<T> x,
                                   const Op& op, const T& init = Op::identity(),
                                   const std::vector<char>& heads = {}) {
  const char* fn = "sweep::run_network_variant";
  detail::require(net.direction == direction::forward, fn, "net must be a forward network");
  detail::require(static_cast<std::size_t>(net.n) == x.size(), fn, "net has ", net.n, " wires but x has ",
                  x.size(), " elements");
  detail::require(!v.segmented || heads.size() == x.size(), fn, "heads has ", heads.size(),
                  " flags for x of ", x.size(), " elements");
  const std::size_t n = x.size();
  const bool fwd = v.direction == direction::forward;
  const scan_network run = fwd ? net : reversed(net);
  if (n == 0) return x;
  if (!v.segmented) {
    if (v.exclusive) {
      if (fwd) x[0] = op(init, x[0]);
      else x[n - 1] = op(x[n - 1], init);
    }
    detail::run_steps(run, x, op);
    if (!v.exclusive) return x;
    std::vector<T> out(n);
    for (std::size_t i = 0; i < n; ++i) {
      if (fwd) out[i] = i == 0 ? init : x[i - 1];
      else out[i] = i == n - 1 ? init : x[i + 1];
    }
    return out;
  }
  // Segmented: forward values carry head[i]; backward ones carry "the
  // segment ends here" (head[i + 1]) under the mirrored lift.
  std::vector<flagged<T>> y(n);
  for (std::size_t i = 0; i < n; ++i) {
    const bool mark = fwd ? heads[i] != 0 : (i + 1 < n && heads[i + 1] != 0);
    y[i] = {x[i], mark};
  }
  if (fwd) detail::run_steps(run, y, head_flagged<Op>{op});
  else detail::run_steps(run, y, detail::flipped<head_flagged<detail::flipped<Op>>>{{{op}}});
  std::vector<T> out(n);
  for (std::size_t i = 0; i < n; ++i) {
    if (!v.exclusive) {
      out[i] = y[i].v;
      continue;
    }
    // The element before i in scan order, unless i starts its segment.
    const bool first = fwd ? (i == 0 || heads[i] != 0) : (i == n - 1 || heads[i + 1] != 0);
    if (first) out[i] = init;
    else out[i] = fwd ? op(init, y[i - 1].v) : op(y[i + 1].v, init);
  }
  return out;
}

namespace detail {

/// A symbolic value: init (when `init`) combined with the inputs lo..hi
/// (none when lo > hi), init on the left in forward scans and on the right
/// in backward ones; `bad` once an operation combined operands that are not
/// adjacent in scan order.
struct symbol {
  std::int32_t lo = 1, hi = 0;
  bool init = false, bad = false;
  bool empty() const { return lo > hi; }
  friend bool operator==(const symbol& a, const symbol& b) {
    return a.bad == b.bad && a.init == b.init && (a.empty() ? b.empty() : a.lo == b.lo && a.hi == b.hi);
  }
};

struct symbol_concat {
  using value_type = symbol;
  bool init_left = true;
  static symbol identity() { return {}; }
  symbol operator()(const symbol& a, const symbol& b) const {
    symbol r;
    r.init = a.init || b.init;
    r.bad = a.bad || b.bad;
    // The init must stay at its end: nothing may precede (follow) it.
    if (init_left && b.init && (a.init || !a.empty())) r.bad = true;
    if (!init_left && a.init && (b.init || !b.empty())) r.bad = true;
    if (a.empty()) r.lo = b.lo, r.hi = b.hi;
    else if (b.empty()) r.lo = a.lo, r.hi = a.hi;
    else r.lo = a.lo, r.hi = b.hi, r.bad = r.bad || a.hi + 1 != b.lo;
    return r;
  }
};

}  // namespace detail

/// Proves variant `v` of forward prefix network `net` correct for every
/// associative operator (and every head pattern when segmented) by symbolic
/// execution; on failure `why` says which element and pattern.
inline bool verify_variant(const scan_network& net, const network_variant& v, std::string* why = nullptr) {
  const char* fn = "sweep::verify_variant";
  detail::require(net.direction == direction::forward, fn, "net must be a forward network");
  detail::require(!v.segmented || net.n <= 20, fn, "n is ", net.n, "; segmented variants are verified up to 20");
  const std::int32_t n = net.n;
  const bool fwd = v.direction == direction::forward;
  std::vector<detail::symbol> x(static_cast<std::size_t>(n));
  for (std::int32_t i = 0; i < n; ++i) x[static_cast<std::size_t>(i)] = {i, i, false, false};
  const detail::symbol init{1, 0, true, false};
  const std::uint64_t patterns = v.segmented ? std::uint64_t(1) << n : 1;
  std::vector<char> heads(static_cast<std::size_t>(n));
  for (std::uint64_t p = 0; p < patterns; ++p) {
    for (std::int32_t i = 0; i < n; ++i) heads[static_cast<std::size_t>(i)] = v.segmented && ((p >> i) & 1);
    const auto got = run_network_variant(net, v, x, detail::symbol_concat{fwd}, init, heads);
    for (std::int32_t i = 0; i < n; ++i) {
      // From the segment's start to i (forward) or from i to its end
      // (backward); exclusive drops element i and adds the init.
      detail::symbol want{i, i, v.exclusive, false};
      if (fwd) {
        while (want.lo > 0 && !heads[static_cast<std::size_t>(want.lo)]) --want.lo;
        if (v.exclusive) --want.hi;
      } else {
        while (want.hi + 1 < n && !heads[static_cast<std::size_t>(want.hi + 1)]) ++want.hi;
        if (v.exclusive) ++want.lo;
      }
      const detail::symbol have = got[static_cast<std::size_t>(i)];
      if (!(have == want)) {
        if (why) {
          std::ostringstream msg;
          msg << to_string(v) << ": element " << i << " combines " << (have.init ? "init, " : "") << "["
              << have.lo << ", " << have.hi << "]" << (have.bad ? " (operands not adjacent)" : "")
              << ", expected " << (want.init ? "init, " : "") << "[" << want.lo << ", " << want.hi
              << "]; heads pattern " << p;
          *why = msg.str();
        }
        return false;
      }
    }
  }
  return true;
}

}  // namespace sweep
