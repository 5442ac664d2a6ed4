// One thread sums a synthetic group (96 bodies against 3000 quadrupole
// nodes and 600 bodies) with the AVX-512 lanes, 200 times per repetition.
#include <sweep/host/gravity_lanes.hpp>
#include <chrono>
#include <cstdio>
#include <random>
using namespace sweep::nbody::detail;
int main(int argc, char** argv) {
  int nn = 3000, nb = 600, ng = 96;
  bool precise = argc > 1;
  std::mt19937_64 rng(1);
  std::uniform_real_distribution<double> u(-1, 1);
  interaction_lists L;
  const double c[3] = {0, 0, 0};
  L.start(c, far_units{0.25, 0.5}, precise);
  for (int j = 0; j < nn; ++j) {
    sweep::nbody::tree_node nd{};
    nd.x = u(rng) * 10, nd.y = u(rng) * 10, nd.z = u(rng) * 10, nd.m = 0.001;
    sweep::nbody::quadrupole q{};
    q.xx = u(rng) * 1e-3, q.xy = u(rng) * 1e-3, q.xz = u(rng) * 1e-3, q.yy = u(rng) * 1e-3, q.yz = u(rng) * 1e-3, q.zz = u(rng) * 1e-3;
    L.add_node(nd, q);
  }
  for (int j = 0; j < nb; ++j) L.add_body({u(rng), u(rng), u(rng), 1e-6}, j);
  group_state g;
  g.n = ng;
  for (auto* v : {&g.px, &g.py, &g.pz, &g.ax, &g.ay, &g.az, &g.phi}) v->resize(ng);
  g.self.resize(ng); g.count.resize(ng);
  for (int k = 0; k < ng; ++k) g.px[k] = u(rng) * 0.1, g.py[k] = u(rng) * 0.1, g.pz[k] = u(rng) * 0.1, g.self[k] = k * 3;
  const lanes_kernel kernel = lanes_for(sweep::host::isa::avx512);
  for (int rep = 0; rep < 10; ++rep) {
    auto t0 = std::chrono::steady_clock::now();
    int it = 200;
    bool ok = true;
    for (int i = 0; i < it; ++i) ok = kernel(L, g, 0.0025, true) && ok;
    double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    double node_int = double(it) * ng * nn, body_int = double(it) * ng * nb;
    std::printf("%.3f ns per interaction (nodes+bodies) ax0=%.17g phi0=%.17g ok=%d\n", s / (node_int + body_int) * 1e9, g.ax[0], g.phi[0], ok);
  }
}
