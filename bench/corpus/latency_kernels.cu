// Latency set: small grids whose time is one warp's dependent path, in the patterns that the
// training part's latency-bound kernels share (a search loop over an array every warp walks
// in step, as Rodinia find_index and HeCBench nbody do; one warp's barrier-separated
// shared-memory steps, as Rodinia nw does). Each launch also records the slowest warp's
// clock64 cycles of its loop, printed as cycles per step, so that the missing latency can be
// read per step, not only per launch.
// Usage: latency_kernels REPS [name-filter]; prints "<name> <mean us> us" per kernel (CUDA
// events) and "<name> cycles/step <c>" from the first launch. REPS = 0 runs each kernel once.
#include <cuda_runtime.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "timing.cuh"

// Search loop: every thread walks p[0], p[stride], ... until it finds a value >= thr (never:
// thr is above every element), as find_index's `if (CDF[x] >= u[i]) break`. The address is
// the same for every lane; with `per_warp` each warp walks its own copy, else all warps of
// the grid walk the same array at the same time. Each step waits for its load (the branch
// needs the compare), so the step time is the load's latency plus the loop's few cycles.
__global__ void walk(const double* a, int n, int stride, int per_warp, double thr, int* out, unsigned long long* cyc) {
  const int warp = (blockIdx.x * blockDim.x + threadIdx.x) / 32;
  const double* p = a + (per_warp ? static_cast<size_t>(warp) * n * stride : 0);
  const long long t0 = clock64();
  int index = -1;
#pragma unroll 1
  for (int x = 0; x < n; ++x)
    if (p[static_cast<size_t>(x) * stride] >= thr) { index = x; break; }
  const long long t1 = clock64();
  if ((threadIdx.x & 31) == 0) atomicMax(cyc, static_cast<unsigned long long>(t1 - t0));
  out[blockIdx.x * blockDim.x + threadIdx.x] = index;
}

// One CTA's threads take `n` wavefront steps through shared memory: each reads its left
// neighbour's value and its own, writes their max + 1, with a barrier between the reads and
// the writes and after the writes (nw's diagonal sweep), or __syncwarp where `bar` is 0.
__global__ void shared_steps(int* out, int n, int bar, unsigned long long* cyc) {
  __shared__ int s[1024];
  const int t = threadIdx.x;
  s[t] = t;
  __syncthreads();
  const long long t0 = clock64();
  for (int i = 0; i < n; ++i) {
    const int v = max(s[(t + blockDim.x - 1) % blockDim.x], s[t]) + 1;
    if (bar) __syncthreads(); else __syncwarp();
    s[t] = v;
    if (bar) __syncthreads(); else __syncwarp();
  }
  const long long t1 = clock64();
  if (t == 0) atomicMax(cyc, static_cast<unsigned long long>(t1 - t0));
  out[t] = s[t];
}

// One thread's running sum through memory (Rodinia particlefilter's cdfCalc): c[x] = w[x] +
// c[x - 1], where c and w may alias, so every step loads w[x] after storing c[x - 1].
__global__ void serial_prefix(const double* w, double* c, int n) {
  if (threadIdx.x != 0 || blockIdx.x != 0) return;
  c[0] = w[0];
  for (int x = 1; x < n; ++x) c[x] = w[x] + c[x - 1];
}

int main(int argc, char** argv) {
  int reps = argc > 1 ? atoi(argv[1]) : 20;
  const char* only = argc > 2 ? argv[2] : "";
  const int n = 2048;
  double* a;
  int* out;
  unsigned long long* cyc;
  const size_t elems = static_cast<size_t>(n) * 16 * 20 * 16;  // per-warp copies: 20 CTAs x 16 warps, stride 16
  CK(cudaMalloc(&a, elems * 8));
  CK(cudaMemset(a, 0, elems * 8));
  CK(cudaMalloc(&out, 1 << 20));
  CK(cudaMalloc(&cyc, 8));
  const double thr = 1.0;
  auto cycles = [&](const char* name, double steps) {
    if (*only && !strstr(name, only)) return;
    unsigned long long c = 0;
    CK(cudaMemcpy(&c, cyc, 8, cudaMemcpyDeviceToHost));
    printf("%-28s cycles/step %.1f\n", name, c / steps);
  };
#define WALK(name, ctas, warps, stride, per_warp)                                                                   \
  CK(cudaMemset(cyc, 0, 8));                                                                                        \
  RUN(name, (walk<<<ctas, 32 * (warps)>>>(a, n, stride, per_warp, thr, out, cyc)));                                 \
  cycles(#name, n)
  // One warp: the load's own latency (8 B steps: a new sector every 4th step; 128 B: every step).
  WALK(walk_1cta_1warp_8B, 1, 1, 1, 0);
  WALK(walk_1cta_1warp_128B, 1, 1, 16, 0);
  // 16 warps of one CTA in step on the same array, or each on its own copy.
  WALK(walk_1cta_16warps_8B_shared, 1, 16, 1, 0);
  WALK(walk_1cta_16warps_8B_own, 1, 16, 1, 1);
  WALK(walk_1cta_16warps_128B_shared, 1, 16, 16, 0);
  WALK(walk_1cta_16warps_128B_own, 1, 16, 16, 1);
  // 20 CTAs (find_index's grid) of 16 and 4 warps.
  WALK(walk_20ctas_16warps_8B_shared, 20, 16, 1, 0);
  WALK(walk_20ctas_16warps_8B_own, 20, 16, 1, 1);
  WALK(walk_20ctas_16warps_128B_shared, 20, 16, 16, 0);
  WALK(walk_20ctas_4warps_8B_shared, 20, 4, 1, 0);
  WALK(walk_20ctas_4warps_128B_shared, 20, 4, 16, 0);
#define STEPS(name, threads, bar)                                       \
  CK(cudaMemset(cyc, 0, 8));                                            \
  RUN(name, (shared_steps<<<1, threads>>>(out, 512, bar, cyc)));        \
  cycles(#name, 512)
  // nw's CTA: 16 threads; a full warp; 8 warps (the barrier waits for the others).
  STEPS(shared_steps_16threads_bar, 16, 1);
  STEPS(shared_steps_16threads_syncwarp, 16, 0);
  STEPS(shared_steps_32threads_bar, 32, 1);
  STEPS(shared_steps_256threads_bar, 256, 1);
  // 8 B steps through 80 KB (find_index's CDF is 10,000 doubles).
  RUN(serial_prefix_10k, (serial_prefix<<<1, 32>>>(a, a + (1 << 20), 10000)));
  return 0;
}
