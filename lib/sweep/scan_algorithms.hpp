// The scan algorithms, listed once.
//
// sweep::scan_algorithms holds, for every sweep::scan_algorithm, its name
// (as in labels, test names and benchmark rows) and how it runs a segmented
// scan (operator lifting, an algorithm of its own, or not at all). It is
// made from detail/scan_registry.hpp's scan_algorithm_list, where an
// algorithm is one entry: add the enum value (scan_options.hpp) and the
// entry, and the scans dispatch it, the segmented scans accept or refuse
// it, and the tests and benchmark rows that walk sweep::scan_algorithms
// cover it.
#pragma once

#include <sweep/scan_options.hpp>
#include <sweep/detail/scan_registry.hpp>

#include <string>

namespace sweep {

/// Every algorithm, `automatic` first.
inline constexpr auto scan_algorithms = detail::algorithm_infos(detail::scan_algorithm_list{});

/// The entry of algorithm `a`.
constexpr const scan_algorithm_info& info(scan_algorithm a) {
  for (const auto& entry : scan_algorithms)
    if (entry.id == a) return entry;
  return scan_algorithms[0];
}

/// Name of an algorithm, as used in labels and benchmark rows.
inline const char* to_string(scan_algorithm a) { return info(a).name; }

/// True when segmented scans run with `a`.
constexpr bool runs_segmented(scan_algorithm a) { return info(a).segmented != segmented_form::none; }

/// The algorithms segmented scans accept, comma-separated (for messages).
inline std::string segmented_algorithm_names() {
  std::string names;
  for (const auto& entry : scan_algorithms)
    if (entry.segmented != segmented_form::none) names += (names.empty() ? "" : ", ") + std::string(entry.name);
  return names;
}

}  // namespace sweep
