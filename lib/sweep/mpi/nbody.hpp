// The galaxy across ranks: sweep::nbody's Barnes-Hut with the bodies
// spread over the ranks of a communicator. Domain decomposition by work
// (cost zones along the global Morton curve, orthogonal recursive
// bisection, or equal counts) with one all-to-all migration
// (mpi/nbody/domain.hpp), locally essential trees exchanged so that each
// rank's walk sees every other rank's tree as far as its bodies need it
// (mpi/nbody/essential_tree.hpp), and the leapfrog driver that times every
// phase per rank (mpi/nbody/simulation.hpp).
//
// Cost per step: the local tree walk dominates (O((N / P) log N)
// interactions per rank); the decomposition is a few passes over the
// local bodies and a few small all-reduces, the migration one exchange of
// the bodies that changed owner, the essential trees O(surface) nodes per
// pair of neighbouring domains.
#pragma once

#include <sweep/mpi/nbody/domain.hpp>
#include <sweep/mpi/nbody/essential_tree.hpp>
#include <sweep/mpi/nbody/simulation.hpp>
