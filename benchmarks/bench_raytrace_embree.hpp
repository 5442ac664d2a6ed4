// Embree 3 (Debian libembree-dev) as the peer of Sweep's ray tracer, behind
// a plain interface so it compiles with the host compiler whatever Sweep's
// backend is. Rays and hits are plain structures of floats.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

namespace sweep_bench {

struct plain_ray {
  float ox, oy, oz, dx, dy, dz, tmin, tmax;
};

struct plain_hit {
  float t;
  std::int32_t prim;  // -1: miss
};

class embree_scene {
 public:
  /// Builds Embree's BVH over the triangles (3 indices each) on a device
  /// made with `config` (rtcNewDevice's configuration string; nullptr:
  /// Embree's defaults).
  embree_scene(const std::vector<float>& xyz, const std::vector<std::int32_t>& indices,
               const char* config = nullptr);
  ~embree_scene();
  embree_scene(const embree_scene&) = delete;
  embree_scene& operator=(const embree_scene&) = delete;

  /// Closest hits, one ray at a time (rtcIntersect1) or `width` = 8 or 16
  /// at a time (rtcIntersect8 / rtcIntersect16, consecutive rays;
  /// `coherent` sets Embree's coherent context flag), on the OpenMP
  /// threads. Rays with tmin > tmax are misses.
  void intersect1(const std::vector<plain_ray>& rays, std::vector<plain_hit>& hits) const;
  void intersect_packets(const std::vector<plain_ray>& rays, std::vector<plain_hit>& hits, bool coherent,
                         int width) const;
  /// Any hits (rtcOccluded1 / rtcOccluded8 / rtcOccluded16): 1 when occluded.
  void occluded1(const std::vector<plain_ray>& rays, std::vector<int>& occluded) const;
  void occluded_packets(const std::vector<plain_ray>& rays, std::vector<int>& occluded, bool coherent, int width) const;

 private:
  struct impl;
  std::unique_ptr<impl> m;
};

}  // namespace sweep_bench
