#include "image.hpp"

#define STB_IMAGE_WRITE_IMPLEMENTATION
#include <stb/stb_image_write.h>

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>

namespace sweep_apps {
namespace {

template <std::size_t N>
rgb interpolate(const std::array<std::pair<double, rgb>, N>& stops, double v) {
  v = std::clamp(v, stops.front().first, stops.back().first);
  for (std::size_t k = 1; k < N; ++k) {
    if (v <= stops[k].first) {
      const double t = (v - stops[k - 1].first) / (stops[k].first - stops[k - 1].first);
      rgb c;
      for (int ch = 0; ch < 3; ++ch) c[ch] = stops[k - 1].second[ch] + t * (stops[k].second[ch] - stops[k - 1].second[ch]);
      return c;
    }
  }
  return stops.back().second;
}

}  // namespace

rgb diverging(double v) {
  static const std::array<std::pair<double, rgb>, 7> stops = {{{-1.0, {0.02, 0.19, 0.38}},
                                                              {-0.6, {0.26, 0.58, 0.76}},
                                                              {-0.25, {0.82, 0.90, 0.94}},
                                                              {0.0, {0.97, 0.97, 0.97}},
                                                              {0.25, {0.99, 0.86, 0.78}},
                                                              {0.6, {0.84, 0.38, 0.30}},
                                                              {1.0, {0.40, 0.0, 0.12}}}};
  return interpolate(stops, v);
}

rgb sequential(double v) {
  static const std::array<std::pair<double, rgb>, 6> stops = {{{0.0, {0.0, 0.0, 0.02}},
                                                              {0.2, {0.23, 0.06, 0.44}},
                                                              {0.45, {0.55, 0.16, 0.51}},
                                                              {0.65, {0.87, 0.32, 0.39}},
                                                              {0.85, {0.99, 0.62, 0.42}},
                                                              {1.0, {0.99, 0.99, 0.75}}}};
  return interpolate(stops, v);
}

void image::put(int x, int y, const rgb& c) {
  auto* p = &m_pixels[(std::size_t(y) * m_width + x) * 3];
  for (int ch = 0; ch < 3; ++ch) p[ch] = std::uint8_t(std::lround(255.0 * std::clamp(c[ch], 0.0, 1.0)));
}

void image::write_png(const std::filesystem::path& path) const {
  if (!stbi_write_png(path.string().c_str(), m_width, m_height, 3, m_pixels.data(), m_width * 3))
    throw std::runtime_error("cannot write " + path.string());
}

}  // namespace sweep_apps
