// What Sweep's apps need to write pictures: colour maps (a diverging map
// for signed fields, a sequential one for densities and magnitudes) and an
// 8-bit RGB image written as PNG with stb_image_write.
#pragma once

#include <array>
#include <cstdint>
#include <filesystem>
#include <utility>
#include <vector>

namespace sweep_apps {

using rgb = std::array<double, 3>;

/// Blue (-1) .. white (0) .. red (+1), through light tints so small values
/// stay visible.
rgb diverging(double v);

/// Black (0) .. purple .. orange .. pale yellow (1), monotone in lightness.
rgb sequential(double v);

/// A width x height RGB image, row 0 at the top.
class image {
 public:
  image(int width, int height, std::uint8_t fill = 255)
      : m_width(width), m_height(height), m_pixels(std::size_t(width) * height * 3, fill) {}
  int width() const { return m_width; }
  int height() const { return m_height; }
  /// Colour components in [0, 1] (clamped).
  void put(int x, int y, const rgb& c);
  const std::vector<std::uint8_t>& pixels() const { return m_pixels; }
  /// Throws std::runtime_error when the file cannot be written.
  void write_png(const std::filesystem::path& path) const;

 private:
  int m_width, m_height;
  std::vector<std::uint8_t> m_pixels;
};

/// A vertical colour bar in columns [x0, x1): map(1) at the top, map(0) at
/// the bottom.
template <class Map>
void colour_bar(image& img, int x0, int x1, Map&& map) {
  for (int y = 0; y < img.height(); ++y) {
    const rgb c = map(1.0 - (double(y) + 0.5) / double(img.height()));
    for (int x = x0; x < x1; ++x) img.put(x, y, c);
  }
}

}  // namespace sweep_apps
