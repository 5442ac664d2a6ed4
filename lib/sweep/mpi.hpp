// Sweep's distributed layer (target Sweep::mpi): scans, segmented scans and
// reductions, compaction, redistribution and sort over the ranks of an MPI
// communicator, and the ocean's grid and red-black sweep on a 2-D process
// grid (its multigrid and the double-gyre model too), and the galaxy
// (Barnes-Hut with locally essential trees), each rank running
// Sweep on its own Kokkos space. The core
// headers (sweep/sweep.hpp) never include this one.
#pragma once

#include <sweep/mpi/compact.hpp>
#include <sweep/mpi/core.hpp>
#include <sweep/mpi/model.hpp>
#include <sweep/mpi/multigrid.hpp>
#include <sweep/mpi/nbody.hpp>
#include <sweep/mpi/ocean.hpp>
#include <sweep/mpi/scan.hpp>
#include <sweep/mpi/segmented_scan.hpp>
#include <sweep/mpi/sort.hpp>
