#include "frames.hpp"

#define STB_IMAGE_WRITE_IMPLEMENTATION
#include <stb/stb_image_write.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <stdexcept>
#include <vector>

namespace ocean_app {
namespace {

using rgb = std::array<double, 3>;

/// Blue (-1) .. white (0) .. red (+1), through light tints so small values
/// stay visible.
rgb diverging(double v) {
  static const std::array<std::pair<double, rgb>, 7> stops = {{{-1.0, {0.02, 0.19, 0.38}},
                                                              {-0.6, {0.26, 0.58, 0.76}},
                                                              {-0.25, {0.82, 0.90, 0.94}},
                                                              {0.0, {0.97, 0.97, 0.97}},
                                                              {0.25, {0.99, 0.86, 0.78}},
                                                              {0.6, {0.84, 0.38, 0.30}},
                                                              {1.0, {0.40, 0.0, 0.12}}}};
  v = std::clamp(v, -1.0, 1.0);
  for (std::size_t k = 1; k < stops.size(); ++k) {
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

double write_frame(const Kokkos::View<double**, Kokkos::LayoutRight, Kokkos::HostSpace>& field,
                   const std::filesystem::path& path, int size) {
  const int n = int(field.extent(0));
  const int px = std::min(n, size);
  double scale = 0;
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < n; ++j) scale = std::max(scale, std::abs(field(i, j)));
  const double inv = scale > 0 ? 1.0 / scale : 0.0;
  const int bar_gap = std::max(4, px / 64), bar = std::max(8, px / 24);
  const int width = px + bar_gap + bar;
  std::vector<std::uint8_t> img(std::size_t(width) * px * 3, 255);
  auto put = [&](int x, int y, const rgb& c) {
    auto* p = &img[(std::size_t(y) * width + x) * 3];
    for (int ch = 0; ch < 3; ++ch) p[ch] = std::uint8_t(std::lround(255.0 * std::clamp(c[ch], 0.0, 1.0)));
  };
  for (int y = 0; y < px; ++y) {
    // Image row y (top first) covers grid rows [i0, i1) counted from the north.
    const int i0 = int(std::int64_t(px - 1 - y) * n / px), i1 = std::max(i0 + 1, int(std::int64_t(px - y) * n / px));
    for (int x = 0; x < px; ++x) {
      const int j0 = int(std::int64_t(x) * n / px), j1 = std::max(j0 + 1, int(std::int64_t(x + 1) * n / px));
      double sum = 0;
      for (int i = i0; i < i1; ++i)
        for (int j = j0; j < j1; ++j) sum += field(i, j);
      put(x, y, diverging(sum / double((i1 - i0) * (j1 - j0)) * inv));
    }
    const rgb c = diverging(1.0 - 2.0 * (double(y) + 0.5) / double(px));  // +max at the top
    for (int x = px + bar_gap; x < width; ++x) put(x, y, c);
  }
  if (!stbi_write_png(path.string().c_str(), width, px, 3, img.data(), width * 3))
    throw std::runtime_error("cannot write " + path.string());
  return scale;
}

}  // namespace ocean_app
