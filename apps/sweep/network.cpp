#include "network.hpp"

#include <sweep/scan_network_synthesis.hpp>

#include <cstdio>
#include <sstream>
#include <stdexcept>

namespace tour {

namespace {
std::int64_t to_int(const std::string& key, const std::string& value) {
  std::size_t used = 0;
  long long v = 0;
  try {
    v = std::stoll(value, &used);
  } catch (const std::exception&) {
    used = 0;
  }
  if (used == 0 || used != value.size())
    throw std::invalid_argument("--network: " + key + "=" + value + " is not an integer");
  return v;
}
}  // namespace

int run_network(const std::string& spec) {
  std::int64_t n = -1;
  sweep::synthesis_constraints c;
  std::string map = "plain";
  try {
    std::istringstream in(spec);
    std::string item;
    while (std::getline(in, item, ',')) {
      const auto eq = item.find('=');
      const std::string key = item.substr(0, eq), value = eq == std::string::npos ? "" : item.substr(eq + 1);
      if (key == "n") {
        n = to_int(key, value);
      } else if (key == "depth") {
        c.max_depth = static_cast<std::int32_t>(to_int(key, value));
      } else if (key == "size") {
        c.max_size = to_int(key, value);
      } else if (key == "fanout") {
        c.max_fanout = static_cast<std::int32_t>(to_int(key, value));
      } else if (key == "conflict_free") {
        c.conflict_free = value.empty() || to_int(key, value) != 0;
      } else if (key == "budget") {
        c.node_budget = static_cast<std::uint64_t>(to_int(key, value));
      } else if (key == "map") {
        if (value == "plain") c.index_map = sweep::plain_index;
        else if (value == "padded") c.index_map = sweep::padded_index;
        else throw std::invalid_argument("--network: map=" + value + " is not plain or padded");
        map = value;
      } else {
        throw std::invalid_argument("--network: unknown key '" + key +
                                    "' (keys: n, depth, size, fanout, conflict_free, map, budget)");
      }
    }
    if (n < 0) throw std::invalid_argument("--network: n=<wires> is required");
    if (n > 64) throw std::invalid_argument("--network: n=" + std::to_string(n) + " is above 64");
    const auto r = sweep::synthesize_network(static_cast<std::int32_t>(n), c);
    if (!r.network) {
      std::printf("no network on %lld wires: %s (%s); %llu nodes searched\n", static_cast<long long>(n),
                  sweep::to_string(r.status), r.reason.c_str(), static_cast<unsigned long long>(r.nodes));
      return 1;
    }
    std::printf("%s", sweep::draw(*r.network).c_str());
    std::printf("size %zu, depth %zu, fan-out %zu, bank conflicts %zu (%s index)\n", r.network->size(),
                r.network->depth(), r.fanout, r.conflicts, map.c_str());
    std::printf("%s (%s); size lower bound %zu; %llu nodes searched\n", sweep::to_string(r.status),
                r.reason.c_str(), r.size_lower_bound, static_cast<unsigned long long>(r.nodes));
    return 0;
  } catch (const std::invalid_argument& e) {
    std::fprintf(stderr, "sweep: %s\n", e.what());
    return 2;
  }
}

}  // namespace tour
