// `sweep --network SPEC`: synthesizes a prefix network (sweep::
// synthesize_network) and prints it drawn by sweep::draw with its size,
// depth, fan-out and bank conflicts. SPEC is comma-separated key=value:
// n (wires, required), depth, size, fanout, conflict_free (0/1),
// map (plain|padded: the index mapping for bank conflicts), budget (nodes).
// Returns the exit status: 0 found, 1 none found, 2 bad SPEC.
#pragma once

#include <string>

namespace tour {
int run_network(const std::string& spec);
}
