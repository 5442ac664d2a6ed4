// One thread: rows 2..6 of an 8-row grid, each as a red row and the black
// row above it, by two relax_run_avx512 calls and by one relax_pair_avx512
// walk; checks both give the same bits and prints the fastest of five
// timings of each per grid point. usage: a.out [columns [pitch [offset
// [omega]]]] (rows of 256 columns stay in L1, of 1024 and 4096 in L2).
#include <sweep/host/stencil_rows.hpp>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>
using namespace sweep::ocean::detail;
int main(int argc, char** argv) {
  const long len = argc > 1 ? atol(argv[1]) : 1024;
  const long pitch = argc > 2 ? atol(argv[2]) : len + 2;
  const long off = argc > 3 ? atol(argv[3]) : 1;
  const int rows = 8;
  const long total = rows * pitch + 64;
  double* u = static_cast<double*>(aligned_alloc(64, sizeof(double) * total));
  double* v = static_cast<double*>(aligned_alloc(64, sizeof(double) * total));
  double* f = static_cast<double*>(aligned_alloc(64, sizeof(double) * total));
  for (long i = 0; i < total; ++i) u[i] = (i * 7 % 13) * 0.1, f[i] = (i % 5) * 0.01;
  std::memcpy(v, u, sizeof(double) * total);
  const double h2 = 0.01, inv = 1.0 / 4.0001, om = argc > 4 ? atof(argv[4]) : 1.0;
  auto seq = [&](double* g, int i, double& acc) {
    for (int c = 0; c < 2; ++c) {
      double* row = g + (i - c) * pitch + off;
      const long k0 = (i + 1) & 1;
      if (om == 1.0)
        relax_run_avx512<false, false>(row, row - pitch, row + pitch, f + (i - c) * pitch + off, k0, len, row[k0 - 1], row[len], h2, inv, om, acc);
      else
        relax_run_avx512<false, true>(row, row - pitch, row + pitch, f + (i - c) * pitch + off, k0, len, row[k0 - 1], row[len], h2, inv, om, acc);
    }
  };
  auto par = [&](double* g, int i, double& acc) {
    double* row = g + i * pitch + off;
    double* ab = row - pitch;
    const long k0 = (i + 1) & 1;
    if (om == 1.0)
      relax_pair_avx512<false, false>(row, ab, row + pitch, ab - pitch, f + i * pitch + off, f + (i - 1) * pitch + off, k0, len, row[k0 - 1], row[len], ab[k0 - 1], ab[len], h2, inv, om, acc);
    else
      relax_pair_avx512<false, true>(row, ab, row + pitch, ab - pitch, f + i * pitch + off, f + (i - 1) * pitch + off, k0, len, row[k0 - 1], row[len], ab[k0 - 1], ab[len], h2, inv, om, acc);
  };
  double a1 = 0, a2 = 0;
  for (int i = 2; i < rows - 1; ++i) seq(u, i, a1), par(v, i, a2);
  const bool same = std::memcmp(u, v, sizeof(double) * total) == 0 && a1 == a2;
  const int reps = 20000;
  double best[2] = {1e30, 1e30};
  for (int r = 0; r < 5; ++r)
    for (int m = 0; m < 2; ++m) {
      auto t0 = std::chrono::steady_clock::now();
      for (int rep = 0; rep < reps; ++rep)
        for (int i = 2; i < rows - 1; ++i) m == 0 ? seq(u, i, a1) : par(v, i, a2);
      const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
      best[m] = std::min(best[m], s / (double(reps) * (rows - 3) * len));
    }
  std::printf("len %ld pitch %ld off %ld omega %g: two runs %.3f, pair %.3f ns per point; same bits: %s\n", len, pitch,
              off, om, best[0] * 1e9, best[1] * 1e9, same ? "yes" : "NO");
}
