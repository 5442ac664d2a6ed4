// A small renderer on the BVH: a pinhole camera, Lambert shading, a point
// light with shadows and ambient occlusion, and the three kinds of rays the
// lecture compares:
//
//   primary_rays   the camera's rays, in tiles of one packet each (8 x 8
//                  pixels for 64-ray packets): coherent, one shared origin.
//   shadow_rays    from the light to every lit hit point (stopping just
//                  short of it): coherent, one shared origin.
//   diffuse_rays   cosine-weighted bounces over the hemisphere of every hit
//                  (ambient occlusion, up to `ao_radius`): incoherent.
//
// `render` traces all three with the chosen mode and returns the image
// (linear RGB, top row first) and, per kind, the rays traced, the seconds
// and the packet statistics. Random numbers are hashes of pixel and sample,
// so an image is the same on every backend and in every mode.
#pragma once

#include <sweep/detail/timing.hpp>
#include <sweep/raytrace/bvh.hpp>
#include <sweep/raytrace/traverse.hpp>

#include <Kokkos_Core.hpp>

#include <cmath>
#include <cstdint>
#include <vector>

namespace sweep::raytrace {

struct camera {
  vec3f eye{0, 0, 5}, target{0, 0, 0}, up{0, 1, 0};
  float fov_degrees = 40;

  /// A camera looking at the box from `direction`, far enough to see all
  /// of it.
  static camera framing(const aabb& box, vec3f direction = {0.45f, 0.35f, 1.0f}, float fov = 40) {
    const vec3f centre = 0.5f * (box.lo + box.hi);
    const float radius = 0.5f * float(sweep::detail::square_root(double(dot(box.hi - box.lo, box.hi - box.lo))));
    const float dist = radius / float(std::sin(double(fov) * 3.14159265358979 / 360.0)) * 1.05f;
    camera c;
    c.target = centre;
    c.eye = centre + dist * normalize(direction);
    c.fov_degrees = fov;
    return c;
  }
};

struct render_options {
  int width = 512, height = 512;
  int samples = 1;          // primary rays per pixel (jittered when > 1)
  int ao_samples = 4;       // ambient-occlusion rays per hit (0: none)
  float ao_radius = 0;      // 0: a fifth of the scene's diagonal
  bool shadows = true;
  bool light_set = false;   // false: a light above and to the left of the camera
  vec3f light{0, 0, 0};
  trace_options trace{};
};

/// Rays of one kind and what tracing them cost.
struct kind_report {
  std::uint64_t rays = 0;   // rays traced (disabled ones not counted)
  double seconds = 0;
  trace_stats stats;
  double mrays_per_second() const { return seconds > 0 ? double(rays) / seconds * 1e-6 : 0.0; }
};

struct render_result {
  int width = 0, height = 0;
  std::vector<float> rgb;   // width * height * 3, linear, top row first
  kind_report primary, shadow, diffuse;
};

namespace detail {

/// Tile shape of a packet: 8 -> 4 x 2, 16 -> 4 x 4, 32 -> 8 x 4, 64 -> 8 x 8.
struct tiling {
  int tw = 8, th = 8, width = 0, height = 0, samples = 1;
  KOKKOS_INLINE_FUNCTION index_t tiles_x() const { return (width + tw - 1) / tw; }
  KOKKOS_INLINE_FUNCTION index_t tiles_y() const { return (height + th - 1) / th; }
  KOKKOS_INLINE_FUNCTION index_t per_sample() const { return tiles_x() * tiles_y() * tw * th; }
  KOKKOS_INLINE_FUNCTION index_t count() const { return per_sample() * samples; }
  /// Ray i's pixel (may lie outside the image in edge tiles) and sample.
  KOKKOS_INLINE_FUNCTION void pixel(index_t i, int& x, int& y, int& s) const {
    s = int(i / per_sample());
    const index_t r = i % per_sample(), tile = r / (tw * th), in = r % (tw * th);
    x = int((tile % tiles_x()) * tw + in % tw);
    y = int((tile / tiles_x()) * th + in / tw);
  }
  KOKKOS_INLINE_FUNCTION index_t ray(int x, int y, int s) const {
    const index_t tile = index_t(y / th) * tiles_x() + x / tw;
    return index_t(s) * per_sample() + tile * tw * th + index_t(y % th) * tw + x % tw;
  }
};

inline tiling make_tiling(int width, int height, int samples, int packet) {
  tiling t;
  t.tw = packet >= 32 ? 8 : 4;
  t.th = packet == 8 ? 2 : (packet == 64 ? 8 : 4);
  t.width = width, t.height = height, t.samples = samples;
  return t;
}

KOKKOS_INLINE_FUNCTION std::uint32_t hash32(std::uint32_t x) {
  x ^= x >> 16;
  x *= 0x7feb352dU;
  x ^= x >> 15;
  x *= 0x846ca68bU;
  x ^= x >> 16;
  return x;
}

KOKKOS_INLINE_FUNCTION float unit_float(std::uint32_t h) { return float(h >> 8) * (1.0f / 16777216.0f); }

/// Face normal of hit primitive `prim`, turned towards the ray.
template <class Mem>
KOKKOS_INLINE_FUNCTION vec3f facing_normal(const Kokkos::View<const vec3f*, Mem>& v,
                                           const Kokkos::View<const std::int32_t* [3], Kokkos::LayoutRight, Mem>& idx, std::int32_t prim,
                                           vec3f dir) {
  const vec3f a = v(idx(prim, 0)), b = v(idx(prim, 1)), c = v(idx(prim, 2));
  vec3f n = normalize(cross(b - a, c - a));
  if (dot(n, dir) > 0) n = -1.0f * n;
  return n;
}

template <class ExecSpace, class Rays>
std::uint64_t enabled_rays(const ExecSpace& space, const Rays& rays) {
  std::uint64_t n = 0;
  Kokkos::parallel_reduce(
      "sweep::raytrace::enabled_rays", sweep::detail::range_policy<ExecSpace>(space, 0, rays.extent(0)),
      KOKKOS_LAMBDA(const index_t i, std::uint64_t& acc) { acc += rays(i).tmin <= rays(i).tmax; }, n);
  return n;
}

}  // namespace detail

template <class Mem>
using ray_view = Kokkos::View<ray*, Mem>;

/// The light `render` uses unless told otherwise: above and to the left of
/// the camera, at 0.6 scene diagonals.
inline vec3f default_light(const camera& cam, const aabb& box) {
  const float diagonal = float(sweep::detail::square_root(double(dot(box.hi - box.lo, box.hi - box.lo))));
  const vec3f w = normalize(cam.target - cam.eye), u = normalize(cross(w, cam.up));
  return cam.eye + (0.6f * diagonal) * (normalize(cam.up) - u);
}

/// The ambient-occlusion reach `render` uses unless told otherwise: a fifth
/// of the scene's diagonal.
inline float default_ao_radius(const aabb& box) {
  return 0.2f * float(sweep::detail::square_root(double(dot(box.hi - box.lo, box.hi - box.lo))));
}

/// The camera's rays for a width x height image, `samples` per pixel, in
/// packet tiles (rays of edge tiles outside the image are disabled).
template <class ExecSpace>
ray_view<typename ExecSpace::memory_space> primary_rays(const ExecSpace& space, const camera& cam, int width,
                                                        int height, int samples, int packet_size) {
  sweep::detail::require(width >= 1 && height >= 1 && width <= 65536 && height <= 65536, "sweep::raytrace::primary_rays",
                         "resolution ", width, " x ", height, " must be between 1 x 1 and 65536 x 65536");
  sweep::detail::require(samples >= 1, "sweep::raytrace::primary_rays", "samples = ", samples, " must be >= 1");
  const auto tl = detail::make_tiling(width, height, samples, packet_size);
  ray_view<typename ExecSpace::memory_space> rays(Kokkos::view_alloc(Kokkos::WithoutInitializing, "sweep::raytrace::primary"),
                                                  tl.count());
  const vec3f w = normalize(cam.target - cam.eye), u = normalize(cross(w, cam.up)), v = cross(u, w);
  const float half = float(std::tan(double(cam.fov_degrees) * 3.14159265358979 / 360.0));
  const float aspect = float(width) / float(height);
  const vec3f eye = cam.eye;
  Kokkos::parallel_for(
      "sweep::raytrace::primary_rays", sweep::detail::range_policy<ExecSpace>(space, 0, tl.count()),
      KOKKOS_LAMBDA(const index_t i) {
        int x, y, s;
        tl.pixel(i, x, y, s);
        const std::uint32_t h = detail::hash32(std::uint32_t(x) * 9781u + std::uint32_t(y) * 6271u + std::uint32_t(s) * 26699u);
        const float jx = s == 0 ? 0.5f : detail::unit_float(h), jy = s == 0 ? 0.5f : detail::unit_float(detail::hash32(h));
        const float px = (2.0f * (float(x) + jx) / float(tl.width) - 1.0f) * half * aspect;
        const float py = (1.0f - 2.0f * (float(y) + jy) / float(tl.height)) * half;
        ray r{eye, w + px * u + py * v, 0, __builtin_huge_valf()};
        if (x >= tl.width || y >= tl.height) r.tmin = 1, r.tmax = 0;  // outside the image
        rays(i) = r;
      });
  return rays;
}

/// From the light to each lit hit point, stopping 0.1% short of it.
template <class ExecSpace>
ray_view<typename ExecSpace::memory_space> shadow_rays(const ExecSpace& space, const bvh<ExecSpace>& tree,
                                                       const ray_view<typename ExecSpace::memory_space>& primary,
                                                       const Kokkos::View<hit*, typename ExecSpace::memory_space>& hits,
                                                       vec3f light) {
  ray_view<typename ExecSpace::memory_space> rays(Kokkos::view_alloc(Kokkos::WithoutInitializing, "sweep::raytrace::shadow"),
                                                  primary.extent(0));
  const auto v = tree.vertices();
  const auto idx = tree.indices();
  Kokkos::parallel_for(
      "sweep::raytrace::shadow_rays", sweep::detail::range_policy<ExecSpace>(space, 0, primary.extent(0)),
      KOKKOS_LAMBDA(const index_t i) {
        const hit& h = hits(i);
        ray r{light, vec3f{0, 0, 1}, 1, 0};  // disabled unless lit
        if (h.prim >= 0) {
          const vec3f p = primary(i).org + h.t * primary(i).dir;
          const vec3f n = detail::facing_normal(v, idx, h.prim, primary(i).dir);
          if (dot(n, light - p) > 0) r = ray{light, p - light, 0, 0.999f};
        }
        rays(i) = r;
      });
  return rays;
}

/// `per_hit` cosine-weighted rays over the hemisphere of each hit, up to
/// `radius`, from just off the surface.
template <class ExecSpace>
ray_view<typename ExecSpace::memory_space> diffuse_rays(const ExecSpace& space, const bvh<ExecSpace>& tree,
                                                        const ray_view<typename ExecSpace::memory_space>& primary,
                                                        const Kokkos::View<hit*, typename ExecSpace::memory_space>& hits,
                                                        int per_hit, float radius) {
  sweep::detail::require(per_hit >= 1, "sweep::raytrace::diffuse_rays", "per_hit = ", per_hit, " must be >= 1");
  const index_t n = index_t(primary.extent(0));
  ray_view<typename ExecSpace::memory_space> rays(Kokkos::view_alloc(Kokkos::WithoutInitializing, "sweep::raytrace::diffuse"),
                                                  n * per_hit);
  const auto v = tree.vertices();
  const auto idx = tree.indices();
  const aabb box = tree.bounds();
  const float offset = 1e-4f * float(sweep::detail::square_root(double(dot(box.hi - box.lo, box.hi - box.lo))));
  Kokkos::parallel_for(
      "sweep::raytrace::diffuse_rays", sweep::detail::range_policy<ExecSpace>(space, 0, n * per_hit),
      KOKKOS_LAMBDA(const index_t j) {
        const index_t i = j / per_hit;
        const hit& h = hits(i);
        ray r{vec3f{0, 0, 0}, vec3f{0, 0, 1}, 1, 0};
        if (h.prim >= 0) {
          const vec3f n = detail::facing_normal(v, idx, h.prim, primary(i).dir);
          const vec3f p = primary(i).org + h.t * primary(i).dir + offset * n;
          // An orthonormal basis around n and a cosine-weighted direction.
          const vec3f t = normalize(cross(n, (n.x > 0.9f || n.x < -0.9f) ? vec3f{0, 1, 0} : vec3f{1, 0, 0}));
          const vec3f b = cross(n, t);
          const std::uint32_t h1 = detail::hash32(std::uint32_t(j) * 2654435761u + 12345u);
          const float r1 = detail::unit_float(h1), r2 = detail::unit_float(detail::hash32(h1));
          const float phi = 6.2831853f * r1, sr = float(sweep::detail::square_root(double(r2)));
          const float cz = float(sweep::detail::square_root(double(1.0f - r2)));
          const vec3f d = (sr * float(sweep::detail::cosine(double(phi)))) * t + (sr * float(sweep::detail::sine(double(phi)))) * b + cz * n;
          r = ray{p, d, 0, radius};
        }
        rays(j) = r;
      });
  return rays;
}

/// Renders the scene; see the header comment.
template <class ExecSpace>
render_result render(const ExecSpace& space, const bvh<ExecSpace>& tree, const camera& cam,
                     const render_options& o = {}) {
  sweep::detail::scoped_region region("sweep::raytrace::render");
  using Mem = typename ExecSpace::memory_space;
  sweep::detail::require(o.ao_samples >= 0, "sweep::raytrace::render", "ao_samples = ", o.ao_samples, " must be >= 0");
  sweep::detail::require(o.ao_radius >= 0, "sweep::raytrace::render", "ao_radius = ", o.ao_radius, " must be >= 0");
  const aabb box = tree.bounds();
  const float radius = o.ao_radius > 0 ? o.ao_radius : default_ao_radius(box);
  const vec3f light = o.light_set ? o.light : default_light(cam, box);
  render_result out;
  out.width = o.width, out.height = o.height;
  const auto primary = primary_rays(space, cam, o.width, o.height, o.samples, resolved_packet_size<ExecSpace>(o.trace));
  const index_t n = index_t(primary.extent(0));
  Kokkos::View<hit*, Mem> hits("sweep::raytrace::hits", n);
  out.primary.rays = detail::enabled_rays(space, primary);
  out.primary.seconds = sweep::detail::fenced_seconds(space, [&] { out.primary.stats = intersect(space, tree, primary, hits, o.trace); });
  Kokkos::View<int*, Mem> shadowed("sweep::raytrace::shadowed", o.shadows ? n : 0);
  ray_view<Mem> shadows;
  if (o.shadows) {
    shadows = shadow_rays(space, tree, primary, hits, light);
    out.shadow.rays = detail::enabled_rays(space, shadows);
    out.shadow.seconds = sweep::detail::fenced_seconds(space, [&] { out.shadow.stats = occluded(space, tree, shadows, shadowed, o.trace); });
  }
  const int ao = o.ao_samples;
  Kokkos::View<int*, Mem> blocked("sweep::raytrace::blocked", ao > 0 ? n * ao : 0);
  if (ao > 0) {
    const auto bounces = diffuse_rays(space, tree, primary, hits, ao, radius);
    out.diffuse.rays = detail::enabled_rays(space, bounces);
    out.diffuse.seconds = sweep::detail::fenced_seconds(space, [&] { out.diffuse.stats = occluded(space, tree, bounces, blocked, o.trace); });
  }
  // Shade: every pixel averages its samples.
  const auto tl = detail::make_tiling(o.width, o.height, o.samples, resolved_packet_size<ExecSpace>(o.trace));
  Kokkos::View<float* [3], Kokkos::LayoutRight, Mem> image("sweep::raytrace::image", index_t(o.width) * o.height);
  const auto v = tree.vertices();
  const auto idx = tree.indices();
  const bool with_shadows = o.shadows;
  Kokkos::parallel_for(
      "sweep::raytrace::shade", sweep::detail::range_policy<ExecSpace>(space, 0, index_t(o.width) * o.height),
      KOKKOS_LAMBDA(const index_t pix) {
        const int x = int(pix % tl.width), y = int(pix / tl.width);
        float c[3] = {0, 0, 0};
        for (int s = 0; s < tl.samples; ++s) {
          const index_t i = tl.ray(x, y, s);
          const hit& h = hits(i);
          const vec3f dir = normalize(primary(i).dir);
          if (h.prim < 0) {
            const float sky = 0.5f * (dir.y + 1.0f);
            c[0] += 0.85f - 0.35f * sky, c[1] += 0.88f - 0.25f * sky, c[2] += 0.95f - 0.05f * sky;
            continue;
          }
          const vec3f n = detail::facing_normal(v, idx, h.prim, dir);
          const vec3f p = primary(i).org + h.t * primary(i).dir;
          const vec3f l = normalize(light - p);
          float direct = dot(n, l);
          direct = direct > 0 ? direct : 0.0f;
          if (with_shadows && shadowed(i)) direct = 0;
          float open = 1;
          if (ao > 0) {
            int hit_count = 0;
            for (int k = 0; k < ao; ++k) hit_count += blocked(i * ao + k);
            open = 1.0f - float(hit_count) / float(ao);
          }
          const float light_amount = 0.75f * direct + 0.3f * open;
          c[0] += 0.85f * light_amount, c[1] += 0.80f * light_amount, c[2] += 0.72f * light_amount;
        }
        for (int k = 0; k < 3; ++k) image(pix, k) = c[k] / float(tl.samples);
      });
  auto host = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), image);
  out.rgb.assign(host.data(), host.data() + host.size());
  return out;
}

}  // namespace sweep::raytrace
