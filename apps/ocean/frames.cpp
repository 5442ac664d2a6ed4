#include "frames.hpp"

#include "image.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>

namespace ocean_app {

double write_frame(const Kokkos::View<double**, Kokkos::LayoutRight, Kokkos::HostSpace>& field,
                   const std::filesystem::path& path, int size) {
  const int n = int(field.extent(0));
  const int px = std::min(n, size);
  double scale = 0;
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < n; ++j) scale = std::max(scale, std::abs(field(i, j)));
  const double inv = scale > 0 ? 1.0 / scale : 0.0;
  const int bar_gap = std::max(4, px / 64), bar = std::max(8, px / 24);
  sweep_apps::image img(px + bar_gap + bar, px);
  for (int y = 0; y < px; ++y) {
    // Image row y (top first) covers grid rows [i0, i1) counted from the north.
    const int i0 = int(std::int64_t(px - 1 - y) * n / px), i1 = std::max(i0 + 1, int(std::int64_t(px - y) * n / px));
    for (int x = 0; x < px; ++x) {
      const int j0 = int(std::int64_t(x) * n / px), j1 = std::max(j0 + 1, int(std::int64_t(x + 1) * n / px));
      double sum = 0;
      for (int i = i0; i < i1; ++i)
        for (int j = j0; j < j1; ++j) sum += field(i, j);
      img.put(x, y, sweep_apps::diverging(sum / double((i1 - i0) * (j1 - j0)) * inv));
    }
  }
  sweep_apps::colour_bar(img, px + bar_gap, img.width(), [](double v) { return sweep_apps::diverging(2 * v - 1); });
  img.write_png(path);
  return scale;
}

}  // namespace ocean_app
