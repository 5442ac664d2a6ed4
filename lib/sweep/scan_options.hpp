// The scan algorithms and the options every scan takes (the list of
// algorithms with their names is sweep/scan_algorithms.hpp).
#pragma once

#include <sweep/core.hpp>


namespace sweep {

enum class scan_algorithm { automatic, sequential, hillis_steele, blelloch, brent_kung, tiled, chunked, single_pass };

/// How an algorithm runs segmented scans.
enum class segmented_form {
  lifted,  ///< the algorithm itself, on the lifted (head, value) operator
  own,     ///< a segmented algorithm of its own (Blelloch's flag propagation)
  none     ///< refused: the algorithm re-reads its own output
};

/// Run-time knobs of a scan; an aggregate with defaults.
struct scan_options {
  sweep::direction direction = sweep::direction::forward;
  scan_algorithm algorithm = scan_algorithm::automatic;
  index_t tile_size = 0;   ///< tiled: elements per tile, >= 2 (0: the space's default)
  index_t chunk_size = 0;  ///< single_pass: elements per chunk (0: the space's default)
};

/// One entry of the algorithm list.
struct scan_algorithm_info {
  scan_algorithm id;
  const char* name;
  segmented_form segmented;
};

}  // namespace sweep
