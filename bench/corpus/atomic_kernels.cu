// Held-out atomics set: kernels whose time is set by atomic contention, to validate the
// atomic model (whose parameters come only from calibrate/microbench.cu, never from these).
// Usage: atomic_kernels REPS [name-filter]; prints "<name> <mean us>" per kernel (CUDA events).
// REPS = 0 runs each kernel once (for tracing and ncu).
#include <cuda_runtime.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "timing.cuh"

// Histogram of `in` into `bins` global bins.
__global__ void hist_global(const unsigned* in, unsigned* hist, int n, unsigned bins) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) atomicAdd(&hist[in[i] % bins], 1u);
}
// Skewed data: half of the values go to bin 0.
__global__ void hist_skewed(const unsigned* in, unsigned* hist, int n, unsigned bins) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
    unsigned v = in[i];
    atomicAdd(&hist[(v & 1) ? 0 : v % bins], 1u);
  }
}
// Global sum: every thread adds into one float.
__global__ void sum_one_address(const float* in, float* out, int n) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) atomicAdd(out, in[i]);
}
// Scatter-add: out[idx[i]] += in[i] with random idx over a large array (little contention).
__global__ void scatter_add(const float* in, const unsigned* idx, float* out, int n, unsigned m) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) atomicAdd(&out[idx[i] % m], in[i]);
}
// Per-CTA counters: each CTA's threads add to the CTA's own word.
__global__ void per_block_counter(unsigned* counters, int per_thread) {
  for (int i = 0; i < per_thread; ++i) atomicAdd(&counters[blockIdx.x], 1u);
}
// Shared-memory histogram with few bins (intra-warp same-address contention), merged once.
__global__ void hist_smem_bins(const unsigned* in, unsigned* hist, int n, unsigned bins) {
  __shared__ unsigned h[256];
  for (unsigned b = threadIdx.x; b < 256; b += blockDim.x) h[b] = 0;
  __syncthreads();
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) atomicAdd(&h[in[i] % bins], 1u);
  __syncthreads();
  for (unsigned b = threadIdx.x; b < bins; b += blockDim.x) atomicAdd(&hist[b], h[b]);
}

int main(int argc, char** argv) {
  int reps = argc > 1 ? atoi(argv[1]) : 20;
  const char* only = argc > 2 ? argv[2] : "";
  const int N = 1 << 24;
  unsigned *u, *hist;
  float *f, *out;
  CK(cudaMalloc(&u, N * 4)); CK(cudaMalloc(&hist, (1 << 20) * 4));
  CK(cudaMalloc(&f, N * 4)); CK(cudaMalloc(&out, N * 4));
  cudaMemset(hist, 0, (1 << 20) * 4); cudaMemset(out, 0, N * 4); cudaMemset(f, 0, N * 4);
  {
    unsigned* h = (unsigned*)malloc(N * 4);
    unsigned long long x = 0x9E3779B97F4A7C15ull;
    for (int i = 0; i < N; i++) { x ^= x << 13; x ^= x >> 7; x ^= x << 17; h[i] = (unsigned)(x >> 11); }
    cudaMemcpy(u, h, N * 4, cudaMemcpyHostToDevice);
    free(h);
  }
  int sms;
  cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0);
  RUN(hist_global_1bin_1M, (hist_global<<<sms * 8, 256>>>(u, hist, N / 16, 1)));
  RUN(hist_global_16bins_4M, (hist_global<<<sms * 8, 256>>>(u, hist, N / 4, 16)));
  RUN(hist_global_4096bins_16M, (hist_global<<<sms * 8, 256>>>(u, hist, N, 4096)));
  RUN(hist_global_1Mbins_16M, (hist_global<<<sms * 8, 256>>>(u, hist, N, 1 << 20)));
  RUN(hist_skewed_256bins_4M, (hist_skewed<<<sms * 8, 256>>>(u, hist, N / 4, 256)));
  RUN(sum_one_address_1M, (sum_one_address<<<sms * 8, 256>>>(f, out, N / 16)));
  RUN(scatter_add_16M, (scatter_add<<<N / 256, 256>>>(f, u, out, N, N)));
  RUN(per_block_counter_x64, (per_block_counter<<<sms * 8, 256>>>(hist, 64)));
  RUN(hist_smem_8bins_16M, (hist_smem_bins<<<sms * 8, 256>>>(u, hist, N, 8)));
  RUN(hist_smem_256bins_16M, (hist_smem_bins<<<sms * 8, 256>>>(u, hist, N, 256)));
  return 0;
}
