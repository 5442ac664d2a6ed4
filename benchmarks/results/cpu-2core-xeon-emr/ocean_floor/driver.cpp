// The memory floor of an ocean sweep's traffic on this machine: arrays of
// the n = 4098 grid's size (4098^2 doubles), two threads, best and mean of
// six timed runs after one warm-up: a streaming and an ordinary copy (16
// bytes a point), an in-place a[i] += b[i] (24 bytes a point: a sweep's
// read of u and f and write of u, no stencil), both arrays read alone, and
// c = a + b with streaming stores. Built and run from the repository root:
//   g++ -O3 -march=native -fopenmp benchmarks/results/cpu-2core-xeon-emr/ocean_floor/driver.cpp -o floor
//   OMP_NUM_THREADS=2 OMP_PROC_BIND=spread OMP_PLACES=threads ./floor
#include <immintrin.h>
#include <omp.h>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <algorithm>
int main() {
  const long n = 4098L * 4098L;
  double* a = (double*)aligned_alloc(2 << 20, n * 8 + (2 << 20));
  double* b = (double*)aligned_alloc(2 << 20, n * 8 + (2 << 20));
  double* c = (double*)aligned_alloc(2 << 20, n * 8 + (2 << 20));
#pragma omp parallel for schedule(static)
  for (long i = 0; i < n; ++i) a[i] = i, b[i] = 1, c[i] = 0;
  auto time = [&](const char* name, double bytes, auto&& f) {
    double best = 1e9, tot = 0;
    for (int r = 0; r < 7; ++r) {
      auto t0 = std::chrono::steady_clock::now();
      f();
      double t = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
      if (r > 0) { best = std::min(best, t); tot += t; }
    }
    printf("%-28s best %7.2f ms  mean %7.2f ms  %6.1f GB/s\n", name, best * 1e3, tot / 6 * 1e3, bytes * n / best / 1e9);
  };
  time("copy streaming (16 B)", 16, [&] {
#pragma omp parallel for schedule(static)
    for (long i = 0; i < n; i += 8) _mm512_stream_pd(c + i, _mm512_load_pd(a + i));
  });
  time("copy ordinary (16 B)", 16, [&] {
#pragma omp parallel for schedule(static)
    for (long i = 0; i < n; i += 8) _mm512_store_pd(c + i, _mm512_load_pd(a + i));
  });
  time("a += b in place (24 B)", 24, [&] {
#pragma omp parallel for schedule(static)
    for (long i = 0; i < n; i += 8) _mm512_store_pd(a + i, _mm512_add_pd(_mm512_load_pd(a + i), _mm512_load_pd(b + i)));
  });
  time("read a+b (16 B)", 16, [&] {
    double s = 0;
#pragma omp parallel for schedule(static) reduction(+:s)
    for (long i = 0; i < n; i += 8) s += _mm512_reduce_add_pd(_mm512_add_pd(_mm512_load_pd(a + i), _mm512_load_pd(b + i)));
    if (s == 1) puts("");
  });
  time("c = a + b streaming (24 B)", 24, [&] {
#pragma omp parallel for schedule(static)
    for (long i = 0; i < n; i += 8) _mm512_stream_pd(c + i, _mm512_add_pd(_mm512_load_pd(a + i), _mm512_load_pd(b + i)));
  });
}
