// Sweep: portable scans, segmented scans, bitmask indices and simulation
// kernels on Kokkos. This umbrella header includes every public capability.
#pragma once

#include <sweep/config.hpp>
#include <sweep/core.hpp>
#include <sweep/configuration.hpp>
#include <sweep/bitmask_index.hpp>
#include <sweep/monoid.hpp>
#include <sweep/nbody.hpp>
#include <sweep/ocean.hpp>
#include <sweep/scan.hpp>
#include <sweep/scan_network.hpp>
#include <sweep/scan_network_synthesis.hpp>
#include <sweep/scan_network_variants.hpp>
#include <sweep/team_network_choice.hpp>
#include <sweep/segmented_scan.hpp>
#include <sweep/sort.hpp>
#include <sweep/team_scan.hpp>
