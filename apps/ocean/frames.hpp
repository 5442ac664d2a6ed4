// PNG frames of an ocean field: a diverging blue-white-red colour map
// symmetric about zero (white = 0, the extremes = +-max |value|), north up,
// box-averaged down to at most `size` pixels, with a colour bar on the
// right. Written with stb_image_write.
#pragma once

#include <Kokkos_Core.hpp>

#include <filesystem>
#include <string>

namespace ocean_app {

/// Writes `field` (n x n, row i = y, row 0 at the bottom) as a PNG; returns
/// the scale (max |value|). Throws std::runtime_error when writing fails.
double write_frame(const Kokkos::View<double**, Kokkos::LayoutRight, Kokkos::HostSpace>& field,
                   const std::filesystem::path& path, int size);

}  // namespace ocean_app
