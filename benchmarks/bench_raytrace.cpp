// Ray tracing at 1024 x 1024 (SWEEP_BENCH_RAYTRACE_SIZE changes it), rows
// `raytrace/<impl>/<ray_kind>/<scene>`:
//
//   impl      sweep_single (8-wide BVH on a CPU, one ray per thread), sweep_packet
//             (64-ray packets on the binary BVH, AVX-512 lanes where the
//             CPU has them, else AVX2: the row's label says which),
//             sweep_packet_avx2 (the same in AVX2 lanes, where the CPU has
//             them), sweep_packet_baseline (the same with the baseline SSE
//             lanes), sweep_auto (packets
//             that compact and fall back to single rays), embree_single
//             (rtcIntersect1 / rtcOccluded1), embree_packet (rtcIntersect8 /
//             rtcOccluded8, consecutive rays), embree_packet16
//             (rtcIntersect16 / rtcOccluded16), all over the same rays
//   ray_kind  primary (closest hit, camera rays in 8 x 8 tiles), shadow (any
//             hit, from the light to every lit primary hit), diffuse (any
//             hit, 4 cosine-weighted ambient-occlusion rays per primary hit)
//   scene     bunny, armadillo, dragon (libcgal-demo meshes; left out when
//             absent) and procedural
//
// Counters: rays_per_second (rays traced; disabled ones not counted),
// utilisation (active lanes / lanes of the packet rows), agreement (Embree
// rows: share of rays with the same primitive, or the same occlusion, as
// Sweep; the two triangle tests differ on edges). `raytrace/build/<sweep|
// embree>/<scene>` time the BVH builds; `raytrace/copy/rays/<scene>` copies
// the primary rays (32 bytes each, read + write) as the bandwidth line and
// `raytrace/copy_streaming/rays/<scene>` the same bytes with non-temporal
// stores (x86 hosts); the faster of the two is the ceiling.
// SWEEP_HOST_ISA=avx2 (or baseline) caps Sweep's lanes and Embree's kernels
// (max_isa) alike: a run that stands for a CPU without AVX-512.
#include "bench_raytrace_embree.hpp"
#include "common/bench_support.hpp"

#include <sweep/host/isa.hpp>
#include <sweep/raytrace.hpp>

#include <cstdlib>
#include <filesystem>
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace {

using namespace sweep_bench;
namespace rt = sweep::raytrace;

int image_size() {
  const char* v = std::getenv("SWEEP_BENCH_RAYTRACE_SIZE");
  return (v && *v) ? std::atoi(v) : 1024;
}

/// Embree's device configuration: its kernels capped at the level Sweep's
/// host paths are capped at (sweep::host::isa_limit(), from SWEEP_HOST_ISA),
/// so both sides of a row run at the same level.
const char* embree_config() {
  switch (sweep::host::isa_limit()) {
    case sweep::host::isa::baseline: return "max_isa=sse2";
    case sweep::host::isa::avx2: return "max_isa=avx2";
    case sweep::host::isa::avx512: break;
  }
  return nullptr;
}

/// A mesh as Embree's vertex (x, y, z) and index (3 per triangle) arrays.
struct embree_arrays {
  std::vector<float> xyz;
  std::vector<std::int32_t> idx;
  explicit embree_arrays(const rt::mesh& m) {
    for (const auto& v : m.vertices) xyz.insert(xyz.end(), {v.x, v.y, v.z});
    for (const auto& t : m.triangles) idx.insert(idx.end(), t.begin(), t.end());
  }
};

std::vector<plain_ray> to_plain(const Kokkos::View<rt::ray*, Memory>& rays) {
  auto h = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), rays);
  std::vector<plain_ray> out(h.extent(0));
  for (std::size_t i = 0; i < out.size(); ++i)
    out[i] = {h(i).org.x, h(i).org.y, h(i).org.z, h(i).dir.x, h(i).dir.y, h(i).dir.z, h(i).tmin, h(i).tmax};
  return out;
}

/// A scene with its rays of every kind and Sweep's answers for them.
struct scene_data {
  rt::mesh mesh;
  std::unique_ptr<rt::bvh<Space>> tree;
  std::unique_ptr<embree_scene> embree;
  std::map<std::string, Kokkos::View<rt::ray*, Memory>> rays;
  std::map<std::string, std::vector<plain_ray>> plain;
  std::map<std::string, std::uint64_t> enabled;
  std::vector<std::int32_t> primary_prims;  // Sweep's closest hits
  std::map<std::string, std::vector<int>> occlusion;
};

rt::mesh load_scene(const std::string& name) {
  if (name == "procedural") return rt::procedural_scene(4);
  const char* env = std::getenv("SWEEP_MESH_DIR");
  const std::filesystem::path dir = env && *env ? env : SWEEP_MESH_DIR;
  static const std::map<std::string, std::string> files = {
      {"bunny", "bunny00.off"}, {"armadillo", "armadillo.off"}, {"dragon", "ChineseDragon-10kv.off"}};
  return rt::load_off((dir / files.at(name)).string());
}

scene_data& scene(const std::string& name) {
  static std::map<std::string, std::unique_ptr<scene_data>> cache;
  static const bool hooked = (Kokkos::push_finalize_hook([] { cache.clear(); }), true);
  (void)hooked;
  auto& s = cache[name];
  if (s) return *s;
  s = std::make_unique<scene_data>();
  Space space;
  s->mesh = load_scene(name);
  s->tree = std::make_unique<rt::bvh<Space>>(space, s->mesh);
  const embree_arrays arrays(s->mesh);
  s->embree = std::make_unique<embree_scene>(arrays.xyz, arrays.idx, embree_config());
  const int size = image_size();
  const auto cam = rt::camera::framing(s->mesh.bounds());
  const auto primary = rt::primary_rays(space, cam, size, size, 1, 64);
  Kokkos::View<rt::hit*, Memory> hits("sweep::bench::hits", primary.extent(0));
  rt::intersect(space, *s->tree, primary, hits, {rt::trace_mode::single, 64, 0.5f, 2});
  const rt::aabb box = s->tree->bounds();
  s->rays["primary"] = primary;
  s->rays["shadow"] = rt::shadow_rays(space, *s->tree, primary, hits, rt::default_light(cam, box));
  s->rays["diffuse"] = rt::diffuse_rays(space, *s->tree, primary, hits, 4, rt::default_ao_radius(box));
  for (const auto& [kind, r] : s->rays) {
    s->plain[kind] = to_plain(r);
    std::uint64_t on = 0;
    for (const auto& q : s->plain[kind]) on += q.tmin <= q.tmax;
    s->enabled[kind] = on;
  }
  auto hh = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), hits);
  for (std::size_t i = 0; i < hh.extent(0); ++i) s->primary_prims.push_back(hh(i).prim);
  for (const char* kind : {"shadow", "diffuse"}) {
    Kokkos::View<int*, Memory> occ("sweep::bench::occluded", s->rays[kind].extent(0));
    rt::occluded(space, *s->tree, s->rays[kind], occ, {rt::trace_mode::single, 64, 0.5f, 2});
    auto ho = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), occ);
    s->occlusion[kind].assign(ho.data(), ho.data() + ho.extent(0));
  }
  return *s;
}

void set_rays(benchmark::State& state, double rays) {
  state.counters["rays_per_second"] = benchmark::Counter(rays * double(state.iterations()), benchmark::Counter::kIsRate);
}

void bench_sweep(benchmark::State& state, const std::string& name, const std::string& kind, rt::trace_mode mode,
                 rt::trace_isa isa = rt::trace_isa::automatic) {
  auto& s = scene(name);
  Space space;
  const auto rays = s.rays[kind];
  const rt::trace_options opt{mode, 64, 0.5f, 2, isa};
  rt::trace_stats st;
  if (kind == "primary") {
    Kokkos::View<rt::hit*, Memory> hits("sweep::bench::hits", rays.extent(0));
    run_timed(state, space, 0, [&] { st = rt::intersect(space, *s.tree, rays, hits, opt); });
  } else {
    Kokkos::View<int*, Memory> occ("sweep::bench::occluded", rays.extent(0));
    run_timed(state, space, 0, [&] { st = rt::occluded(space, *s.tree, rays, occ, opt); });
  }
  set_rays(state, double(s.enabled[kind]));
  if (mode != rt::trace_mode::single) {
    state.SetLabel(rt::to_string(rt::packet_isa(isa)));
    state.counters["utilisation"] = st.utilisation();
    state.counters["compactions"] = double(st.compactions);
    state.counters["single_fallbacks"] = double(st.single_fallbacks);
  }
}

/// width 1: rtcIntersect1 / rtcOccluded1; 8 or 16: packets of that many rays.
void bench_embree(benchmark::State& state, const std::string& name, const std::string& kind, int width) {
  auto& s = scene(name);
  Space space;
  const auto& rays = s.plain[kind];
  double agree = 0;
  if (kind == "primary") {
    std::vector<plain_hit> hits;
    run_timed(state, space, 0, [&] {
      width > 1 ? s.embree->intersect_packets(rays, hits, true, width) : s.embree->intersect1(rays, hits);
    });
    for (std::size_t i = 0; i < rays.size(); ++i) agree += hits[i].prim == s.primary_prims[i];
  } else {
    std::vector<int> occ;
    const bool coherent = kind == "shadow";
    run_timed(state, space, 0, [&] {
      width > 1 ? s.embree->occluded_packets(rays, occ, coherent, width) : s.embree->occluded1(rays, occ);
    });
    for (std::size_t i = 0; i < rays.size(); ++i) agree += occ[i] == s.occlusion[kind][i];
  }
  set_rays(state, double(s.enabled[kind]));
  state.counters["agreement"] = agree / double(rays.size());
}

void bench_build_sweep(benchmark::State& state, const std::string& name) {
  auto& s = scene(name);
  Space space;
  for (auto _ : state) timed(state, space, [&] { rt::bvh<Space> tree(space, s.mesh); });
  state.counters["triangles"] = double(s.mesh.triangles.size());
}

void bench_build_embree(benchmark::State& state, const std::string& name) {
  auto& s = scene(name);
  Space space;
  const embree_arrays arrays(s.mesh);
  for (auto _ : state) timed(state, space, [&] { embree_scene e(arrays.xyz, arrays.idx, embree_config()); });
  state.counters["triangles"] = double(s.mesh.triangles.size());
}

void bench_copy_rays(benchmark::State& state, const std::string& name) {
  auto& s = scene(name);
  Space space;
  const auto in = s.rays["primary"];
  Kokkos::View<rt::ray*, Memory> out("sweep::bench::ray_copy", in.extent(0));
  run_timed(state, space, 2.0 * sizeof(rt::ray) * double(in.extent(0)), [&] {
    Kokkos::parallel_for(
        "sweep::bench::copy_rays", Kokkos::RangePolicy<Space>(space, 0, in.extent(0)),
        KOKKOS_LAMBDA(const std::int64_t i) { out(i) = in(i); });
  });
  set_rays(state, double(in.extent(0)));
}

/// The streaming ceiling over the bytes bench_copy_rays moves.
void bench_copy_rays_streaming(benchmark::State& state, const std::string& name) {
  const auto n = scene(name).rays["primary"].extent(0);
  bench_copy_streaming_n<std::int8_t>(state, static_cast<std::int64_t>(sizeof(rt::ray) * n));
  set_rays(state, double(n));
}

}  // namespace

void sweep_bench::register_suite() {
  std::vector<std::string> scenes;
  const char* env = std::getenv("SWEEP_MESH_DIR");
  const std::filesystem::path dir = env && *env ? env : SWEEP_MESH_DIR;
  for (const char* name : {"bunny", "armadillo", "dragon"}) {
    const std::string file = std::string(name) == "bunny" ? "bunny00.off"
                             : std::string(name) == "armadillo" ? "armadillo.off"
                                                                 : "ChineseDragon-10kv.off";
    if (std::filesystem::exists(dir / file)) scenes.push_back(name);
  }
  scenes.push_back("procedural");
  for (const auto& name : scenes) {
    register_row("raytrace/copy/rays/" + name, [name](benchmark::State& s) { bench_copy_rays(s, name); });
    if constexpr (has_streaming_copy)
      register_row("raytrace/copy_streaming/rays/" + name,
                   [name](benchmark::State& s) { bench_copy_rays_streaming(s, name); });
    register_row("raytrace/build/sweep/" + name, [name](benchmark::State& s) { bench_build_sweep(s, name); });
    register_row("raytrace/build/embree/" + name, [name](benchmark::State& s) { bench_build_embree(s, name); });
    for (const std::string kind : {"primary", "shadow", "diffuse"}) {
      const std::string tail = "/" + kind + "/" + name;
      register_row("raytrace/sweep_single" + tail,
                   [name, kind](benchmark::State& s) { bench_sweep(s, name, kind, rt::trace_mode::single); });
      register_row("raytrace/sweep_packet" + tail,
                   [name, kind](benchmark::State& s) { bench_sweep(s, name, kind, rt::trace_mode::packet); });
      if (rt::isa_available(rt::trace_isa::avx2))
        register_row("raytrace/sweep_packet_avx2" + tail, [name, kind](benchmark::State& s) {
          bench_sweep(s, name, kind, rt::trace_mode::packet, rt::trace_isa::avx2);
        });
      register_row("raytrace/sweep_packet_baseline" + tail, [name, kind](benchmark::State& s) {
        bench_sweep(s, name, kind, rt::trace_mode::packet, rt::trace_isa::baseline);
      });
      register_row("raytrace/sweep_auto" + tail,
                   [name, kind](benchmark::State& s) { bench_sweep(s, name, kind, rt::trace_mode::automatic); });
      register_row("raytrace/embree_single" + tail, [name, kind](benchmark::State& s) { bench_embree(s, name, kind, 1); });
      register_row("raytrace/embree_packet" + tail, [name, kind](benchmark::State& s) { bench_embree(s, name, kind, 8); });
      register_row("raytrace/embree_packet16" + tail, [name, kind](benchmark::State& s) { bench_embree(s, name, kind, 16); });
    }
  }
}
