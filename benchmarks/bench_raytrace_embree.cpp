#include "bench_raytrace_embree.hpp"

#include <embree3/rtcore.h>

#include <algorithm>
#include <cstring>
#include <stdexcept>
#include <string>

namespace sweep_bench {

struct embree_scene::impl {
  RTCDevice device = nullptr;
  RTCScene scene = nullptr;
};

embree_scene::embree_scene(const std::vector<float>& xyz, const std::vector<std::int32_t>& indices,
                           const char* config)
    : m(new impl) {
  m->device = rtcNewDevice(config);
  if (!m->device || rtcGetDeviceError(m->device) != RTC_ERROR_NONE)
    throw std::runtime_error(std::string("embree: rtcNewDevice(") + (config ? config : "") + ") failed");
  m->scene = rtcNewScene(m->device);
  RTCGeometry geom = rtcNewGeometry(m->device, RTC_GEOMETRY_TYPE_TRIANGLE);
  auto* v = static_cast<float*>(rtcSetNewGeometryBuffer(geom, RTC_BUFFER_TYPE_VERTEX, 0, RTC_FORMAT_FLOAT3,
                                                        3 * sizeof(float), xyz.size() / 3));
  std::memcpy(v, xyz.data(), xyz.size() * sizeof(float));
  auto* t = static_cast<std::uint32_t*>(rtcSetNewGeometryBuffer(geom, RTC_BUFFER_TYPE_INDEX, 0, RTC_FORMAT_UINT3,
                                                                3 * sizeof(std::uint32_t), indices.size() / 3));
  std::memcpy(t, indices.data(), indices.size() * sizeof(std::int32_t));
  rtcCommitGeometry(geom);
  rtcAttachGeometry(m->scene, geom);
  rtcReleaseGeometry(geom);
  rtcCommitScene(m->scene);
  if (rtcGetDeviceError(m->device) != RTC_ERROR_NONE) throw std::runtime_error("embree: scene build failed");
}

embree_scene::~embree_scene() {
  rtcReleaseScene(m->scene);
  rtcReleaseDevice(m->device);
}

namespace {

void to_embree(const plain_ray& r, RTCRay& e) {
  e.org_x = r.ox, e.org_y = r.oy, e.org_z = r.oz;
  e.dir_x = r.dx, e.dir_y = r.dy, e.dir_z = r.dz;
  e.tnear = r.tmin, e.tfar = r.tmax;
  e.time = 0, e.mask = 0xffffffffu, e.id = 0, e.flags = 0;
}

/// Embree's N-ray packet types and calls, N = 8 or 16.
template <int N>
struct packet_api;

template <>
struct packet_api<8> {
  using ray = RTCRay8;
  using ray_hit = RTCRayHit8;
  static void intersect(const int* valid, RTCScene s, RTCIntersectContext* c, ray_hit* r) { rtcIntersect8(valid, s, c, r); }
  static void occluded(const int* valid, RTCScene s, RTCIntersectContext* c, ray* r) { rtcOccluded8(valid, s, c, r); }
};

template <>
struct packet_api<16> {
  using ray = RTCRay16;
  using ray_hit = RTCRayHit16;
  static void intersect(const int* valid, RTCScene s, RTCIntersectContext* c, ray_hit* r) { rtcIntersect16(valid, s, c, r); }
  static void occluded(const int* valid, RTCScene s, RTCIntersectContext* c, ray* r) { rtcOccluded16(valid, s, c, r); }
};

template <int N, class R>
void to_embree_packet(const plain_ray* r, int count, R& e, int* valid) {
  for (int k = 0; k < N; ++k) {
    const bool on = k < count && r[k].tmin <= r[k].tmax;
    valid[k] = on ? -1 : 0;
    const plain_ray q = k < count ? r[k] : plain_ray{0, 0, 0, 0, 0, 1, 1, 0};
    e.org_x[k] = q.ox, e.org_y[k] = q.oy, e.org_z[k] = q.oz;
    e.dir_x[k] = q.dx, e.dir_y[k] = q.dy, e.dir_z[k] = q.dz;
    e.tnear[k] = q.tmin, e.tfar[k] = q.tmax;
    e.time[k] = 0, e.mask[k] = 0xffffffffu, e.id[k] = 0, e.flags[k] = 0;
  }
}

/// Calls f(first, count, ctx) for each packet of N consecutive rays (the
/// last may hold fewer), in parallel, with a fresh context flagged coherent
/// or incoherent.
template <int N, class F>
void for_packets(std::size_t n, bool coherent, F&& f) {
  const long packets = long((n + N - 1) / N);
#pragma omp parallel for schedule(dynamic, 32)
  for (long p = 0; p < packets; ++p) {
    const long first = p * N;
    const int count = int(std::min<long>(N, long(n) - first));
    RTCIntersectContext ctx;
    rtcInitIntersectContext(&ctx);
    ctx.flags = coherent ? RTC_INTERSECT_CONTEXT_FLAG_COHERENT : RTC_INTERSECT_CONTEXT_FLAG_INCOHERENT;
    f(first, count, ctx);
  }
}

template <int N>
void intersect_packets(RTCScene scene, const std::vector<plain_ray>& rays, std::vector<plain_hit>& hits, bool coherent) {
  for_packets<N>(rays.size(), coherent, [&](long first, int count, RTCIntersectContext& ctx) {
    alignas(64) typename packet_api<N>::ray_hit rh;
    alignas(64) int valid[N];
    to_embree_packet<N>(&rays[std::size_t(first)], count, rh.ray, valid);
    for (int k = 0; k < N; ++k) rh.hit.geomID[k] = RTC_INVALID_GEOMETRY_ID;
    packet_api<N>::intersect(valid, scene, &ctx, &rh);
    for (int k = 0; k < count; ++k)
      hits[std::size_t(first + k)] = valid[k] && rh.hit.geomID[k] != RTC_INVALID_GEOMETRY_ID
                                         ? plain_hit{rh.ray.tfar[k], std::int32_t(rh.hit.primID[k])}
                                         : plain_hit{0, -1};
  });
}

template <int N>
void occluded_packets(RTCScene scene, const std::vector<plain_ray>& rays, std::vector<int>& occluded, bool coherent) {
  for_packets<N>(rays.size(), coherent, [&](long first, int count, RTCIntersectContext& ctx) {
    alignas(64) typename packet_api<N>::ray r;
    alignas(64) int valid[N];
    to_embree_packet<N>(&rays[std::size_t(first)], count, r, valid);
    packet_api<N>::occluded(valid, scene, &ctx, &r);
    for (int k = 0; k < count; ++k) occluded[std::size_t(first + k)] = valid[k] && r.tfar[k] < 0 ? 1 : 0;
  });
}

void check_width(int width) {
  if (width != 8 && width != 16) throw std::invalid_argument("embree packets: width " + std::to_string(width) + " must be 8 or 16");
}

}  // namespace

void embree_scene::intersect1(const std::vector<plain_ray>& rays, std::vector<plain_hit>& hits) const {
  hits.resize(rays.size());
  const long n = long(rays.size());
#pragma omp parallel for schedule(dynamic, 256)
  for (long i = 0; i < n; ++i) {
    if (rays[i].tmin > rays[i].tmax) {
      hits[i] = {0, -1};
      continue;
    }
    RTCIntersectContext ctx;
    rtcInitIntersectContext(&ctx);
    RTCRayHit rh;
    to_embree(rays[i], rh.ray);
    rh.hit.geomID = RTC_INVALID_GEOMETRY_ID;
    rtcIntersect1(m->scene, &ctx, &rh);
    hits[i] = rh.hit.geomID == RTC_INVALID_GEOMETRY_ID ? plain_hit{0, -1} : plain_hit{rh.ray.tfar, std::int32_t(rh.hit.primID)};
  }
}

void embree_scene::intersect_packets(const std::vector<plain_ray>& rays, std::vector<plain_hit>& hits, bool coherent,
                                     int width) const {
  check_width(width);
  hits.resize(rays.size());
  if (width == 8) sweep_bench::intersect_packets<8>(m->scene, rays, hits, coherent);
  else sweep_bench::intersect_packets<16>(m->scene, rays, hits, coherent);
}

void embree_scene::occluded1(const std::vector<plain_ray>& rays, std::vector<int>& occluded) const {
  occluded.resize(rays.size());
  const long n = long(rays.size());
#pragma omp parallel for schedule(dynamic, 256)
  for (long i = 0; i < n; ++i) {
    if (rays[i].tmin > rays[i].tmax) {
      occluded[i] = 0;
      continue;
    }
    RTCIntersectContext ctx;
    rtcInitIntersectContext(&ctx);
    RTCRay r;
    to_embree(rays[i], r);
    rtcOccluded1(m->scene, &ctx, &r);
    occluded[i] = r.tfar < 0 ? 1 : 0;  // Embree sets tfar to -inf on a hit
  }
}

void embree_scene::occluded_packets(const std::vector<plain_ray>& rays, std::vector<int>& occluded, bool coherent,
                                    int width) const {
  check_width(width);
  occluded.resize(rays.size());
  if (width == 8) sweep_bench::occluded_packets<8>(m->scene, rays, occluded, coherent);
  else sweep_bench::occluded_packets<16>(m->scene, rays, occluded, coherent);
}

}  // namespace sweep_bench
