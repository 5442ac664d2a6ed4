// Galaxy: the SPLASH-2 Barnes-Hut case study as library code. A 3D octree
// built in parallel from Morton codes (nbody/octree.hpp, on Sweep's radix
// sort and scans), monopole forces with the L / D < theta opening test and
// Plummer softening, the direct O(N^2) sum as the reference
// (nbody/gravity.hpp), the load-balance schemes cost zones, ORB, static
// and random (nbody/partition.hpp), a kick-drift-kick leapfrog driver that
// times every phase and records each body's interactions
// (nbody/simulation.hpp), initial conditions (nbody/models.hpp) and body
// files (nbody/body_io.hpp).
//
// Cost per step: O(N log N) for the tree, O(N log N / theta^3) interactions
// for the force walk, which dominates; the other phases stream the bodies
// a few times.
#pragma once

#include <sweep/nbody/bodies.hpp>
#include <sweep/nbody/body_io.hpp>
#include <sweep/nbody/gravity.hpp>
#include <sweep/nbody/models.hpp>
#include <sweep/nbody/octree.hpp>
#include <sweep/nbody/partition.hpp>
#include <sweep/nbody/simulation.hpp>
