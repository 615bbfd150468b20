// Shared by corpus_kernels.cu and atomic_kernels.cu: error check, CUDA-event timing and the
// RUN(name, launch) line that `tools/collect --time-cmd` reads ("<name> <mean us> us").
#pragma once
#include <cuda_runtime.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>

#define CK(x) do { cudaError_t e = (x); if (e != cudaSuccess) { fprintf(stderr, "CUDA error %s at line %d\n", cudaGetErrorString(e), __LINE__); exit(1); } } while (0)

// Mean microseconds of `reps` back-to-back launches after one warm-up; reps <= 0 launches once
// (for tracing and ncu) and returns 0.
template <class F> float timeit(F f, int reps) {
  cudaEvent_t s, e;
  cudaEventCreate(&s);
  cudaEventCreate(&e);
  f();
  CK(cudaDeviceSynchronize());
  if (reps <= 0) return 0.f;
  cudaEventRecord(s);
  for (int i = 0; i < reps; i++) f();
  cudaEventRecord(e);
  cudaEventSynchronize(e);
  float ms;
  cudaEventElapsedTime(&ms, s, e);
  CK(cudaGetLastError());
  return ms * 1000.f / reps;
}

// Needs `reps` and `only` (a name filter) in scope.
#define RUN(name, call) if (!*only || strstr(#name, only)) printf("%-28s %10.2f us\n", #name, timeit([&] { call; }, reps));
