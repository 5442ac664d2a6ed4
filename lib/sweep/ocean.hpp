// Ocean: the SPLASH-2 Ocean case study as library code. Grids of
// (2^k + 2)^2 doubles in row-major or block-major ("4D") layout
// (ocean/grid.hpp); red-black Gauss-Seidel/SOR and Jacobi sweeps that return
// their convergence measure, and the residual (ocean/smoothers.hpp); a
// multigrid V-cycle solver for -lap(u) + lambda u = f that reports what it
// reached (ocean/multigrid.hpp); and a wind-driven double-gyre
// quasi-geostrophic model stepped with that solver (ocean/model.hpp).
//
// The sweeps are memory bound: 24 bytes per point (read u and f, write u),
// one pass per red-black sweep with the fused schedule.
#pragma once

#include <sweep/ocean/grid.hpp>
#include <sweep/ocean/model.hpp>
#include <sweep/ocean/multigrid.hpp>
#include <sweep/ocean/smoothers.hpp>
