#include "density.hpp"

#include "image.hpp"

#include <algorithm>
#include <cmath>
#include <cstddef>

namespace galaxy_app {

view_window window_for(const std::vector<sweep::nbody::body>& bodies, double fraction) {
  std::vector<double> r(bodies.size());
  for (std::size_t i = 0; i < r.size(); ++i) r[i] = std::max(std::abs(bodies[i].x), std::abs(bodies[i].y));
  const auto k = std::min(r.size() - 1, std::size_t(fraction * double(r.size())));
  std::nth_element(r.begin(), r.begin() + std::ptrdiff_t(k), r.end());
  return view_window{std::max(1e-6, 1.2 * r[k])};
}

double write_density(const std::vector<sweep::nbody::body>& bodies, const view_window& w,
                     const std::filesystem::path& path, int size) {
  // Cloud-in-cell deposit: each body's mass shared by the four nearest
  // pixel centres.
  std::vector<double> mass(std::size_t(size) * size, 0.0);
  const double scale = double(size) / (2 * w.half);
  for (const auto& b : bodies) {
    const double fx = (b.x + w.half) * scale - 0.5, fy = (w.half - b.y) * scale - 0.5;  // north up
    if (!(fx > -1 && fy > -1 && fx < size && fy < size)) continue;
    const int x0 = int(std::floor(fx)), y0 = int(std::floor(fy));
    const double tx = fx - x0, ty = fy - y0;
    for (int dy = 0; dy < 2; ++dy)
      for (int dx = 0; dx < 2; ++dx) {
        const int x = x0 + dx, y = y0 + dy;
        if (x >= 0 && y >= 0 && x < size && y < size)
          mass[std::size_t(y) * size + x] += b.m * (dx ? tx : 1 - tx) * (dy ? ty : 1 - ty);
      }
  }
  // The top of the scale is the 99.5th percentile of the occupied pixels,
  // so a single heavy body does not darken the rest.
  std::vector<double> occupied;
  for (double m : mass)
    if (m > 0) occupied.push_back(m);
  double top = 0;
  if (!occupied.empty()) {
    const auto k = std::size_t(0.995 * double(occupied.size() - 1));
    std::nth_element(occupied.begin(), occupied.begin() + std::ptrdiff_t(k), occupied.end());
    top = occupied[k];
  }
  const double decades = 3;
  const int gap = std::max(4, size / 64), bar = std::max(8, size / 24);
  sweep_apps::image img(size + gap + bar, size);
  for (int y = 0; y < size; ++y)
    for (int x = 0; x < size; ++x) {
      const double m = mass[std::size_t(y) * size + x];
      const double v = m > 0 && top > 0 ? 1 + std::log10(m / top) / decades : 0.0;
      img.put(x, y, sweep_apps::sequential(std::clamp(v, 0.0, 1.0)));
    }
  sweep_apps::colour_bar(img, size + gap, img.width(), sweep_apps::sequential);
  img.write_png(path);
  return top;
}

}  // namespace galaxy_app
