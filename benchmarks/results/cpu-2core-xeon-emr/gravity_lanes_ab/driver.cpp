// One thread sums a synthetic group (96 bodies against 3000 quadrupole
// nodes and 600 bodies) with the AVX-512 lanes of the galaxy walk, 200
// times per repetition, and prints ns per lane-interaction and one force
// component (its bits tell the two builds apart).
#include <sweep/host/gravity_lanes.hpp>
#include <chrono>
#include <cstdio>
#include <random>
using namespace sweep::nbody::detail;
int main() {
  int nn = 3000, nb = 600, ng = 96;
  std::mt19937_64 rng(1);
  std::uniform_real_distribution<double> u(-1, 1);
  interaction_lists L;
  for (int j = 0; j < nn; ++j) L.nodes.push_back({u(rng) * 10, u(rng) * 10, u(rng) * 10, 0.001, u(rng) * 1e-3, u(rng) * 1e-3, u(rng) * 1e-3, u(rng) * 1e-3, u(rng) * 1e-3, u(rng) * 1e-3});
  for (int j = 0; j < nb; ++j) L.bodies.push_back({u(rng), u(rng), u(rng), 1e-6, j});
  group_state g;
  g.n = ng;
  for (auto* v : {&g.px, &g.py, &g.pz, &g.ax, &g.ay, &g.az, &g.phi}) v->resize(ng);
  g.self.resize(ng); g.count.resize(ng);
  for (int k = 0; k < ng; ++k) g.px[k] = u(rng) * 0.1, g.py[k] = u(rng) * 0.1, g.pz[k] = u(rng) * 0.1, g.self[k] = k * 3;
  const lanes_kernel kernel = lanes_for(sweep::host::isa::avx512);
  for (int rep = 0; rep < 10; ++rep) {
    auto t0 = std::chrono::steady_clock::now();
    int it = 200;
    for (int i = 0; i < it; ++i) kernel(L, g, 0.0025, true);
    double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    double node_int = double(it) * ng * nn, body_int = double(it) * ng * nb;
    std::printf("%.3f ns per interaction (nodes+bodies) ax0=%.17g\n", s / (node_int + body_int) * 1e9, g.ax[0]);
  }
}
