// PNG frames of an N-body system: the surface density projected on the
// x-y plane (mass per pixel, cloud-in-cell, over a fixed square window), on
// a logarithmic scale spanning three decades below the 99.5th percentile
// of the occupied pixels, with a colour bar.
#pragma once

#include <sweep/nbody/bodies.hpp>

#include <filesystem>
#include <vector>

namespace galaxy_app {

/// The square window frames show: centred on the origin, half-width
/// `half` (chosen once per run so frames compare).
struct view_window {
  double half = 1;
};

/// A window holding `fraction` of the bodies (by radius in the x-y plane),
/// widened by a margin.
view_window window_for(const std::vector<sweep::nbody::body>& bodies, double fraction = 0.98);

/// Writes the density frame; returns the mass at the top of the scale.
double write_density(const std::vector<sweep::nbody::body>& bodies, const view_window& w,
                     const std::filesystem::path& path, int size);

}  // namespace galaxy_app
