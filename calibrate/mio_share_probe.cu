// Whether warp shuffles and special-function instructions share the SM's shared-memory pipe
// (a probe outside the table groups). One CTA of 32 warps on every SM; each warp runs `iters`
// iterations of independent shared loads (LDS, conflict-free), shuffles (SHFL.IDX), MUFU.EX2,
// or mixes of them, eight chains of each kind so that throughput, not latency, bounds them.
// Prints SM cycles per iteration (clock64 around the loop, median over the CTAs): if the mix
// of LDS and SHFL takes the sum of their times alone, they queue for one pipe; if the larger,
// they have a pipe each.
//   nvcc -O3 -arch=sm_90 -o mio_share_probe mio_share_probe.cu && ./mio_share_probe
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdio>
#include <vector>

#include "cuda_check.cuh"

enum Mix { kLds8, kShfl8, kMufu8, kLds8Shfl8, kLds8Mufu8, kShfl8Mufu8, kMixes };
static const char* const kMixNames[kMixes] = {"lds8", "shfl8", "mufu8", "lds8+shfl8", "lds8+mufu8", "shfl8+mufu8"};

template <int M>
__global__ void mix_kernel(float* out, long long* cycles, int iters) {
  __shared__ float h[1024 + 256];
  for (int i = threadIdx.x; i < 1024 + 256; i += blockDim.x) h[i] = float(i);
  const unsigned lane = threadIdx.x & 31;
  constexpr bool lds = M == kLds8 || M == kLds8Shfl8 || M == kLds8Mufu8;
  constexpr bool shfl = M == kShfl8 || M == kLds8Shfl8 || M == kShfl8Mufu8;
  constexpr bool mufu = M == kMufu8 || M == kLds8Mufu8 || M == kShfl8Mufu8;
  float a[8], s[8], m[8];
#pragma unroll
  for (int j = 0; j < 8; ++j) { a[j] = 0; s[j] = float(lane + j); m[j] = 0.001f * (lane + j); }
  __syncthreads();
  const long long t0 = clock64();
#pragma unroll 1
  for (int i = 0; i < iters; ++i) {
#pragma unroll
    for (int j = 0; j < 8; ++j) {
      if (lds) a[j] += static_cast<volatile float*>(h)[lane + 32 * j + (i & 7)];
      if (shfl) s[j] = __shfl_sync(0xffffffffu, s[j], (lane + j + 1) & 31);
      if (mufu) m[j] = exp2f(m[j]) * 0.5f;
    }
  }
  __syncthreads();
  const long long t1 = clock64();
  if (threadIdx.x == 0) cycles[blockIdx.x] = t1 - t0;
  float r = 0;
#pragma unroll
  for (int j = 0; j < 8; ++j) r += a[j] + s[j] + m[j];
  if (r == 1234.5f) out[0] = r;
}

template <int M>
void launch(int sms, float* o, long long* c, int iters) { mix_kernel<M><<<sms, 1024>>>(o, c, iters); }

int main() {
  cudaDeviceProp prop;
  CK(cudaGetDeviceProperties(&prop, 0));
  const int sms = prop.multiProcessorCount, iters = 512;
  float* out;
  long long* cycles;
  CK(cudaMalloc(&out, 4));
  CK(cudaMalloc(&cycles, sizeof(long long) * sms));
  void (*kernels[kMixes])(int, float*, long long*, int) = {launch<kLds8>, launch<kShfl8>, launch<kMufu8>,
                                                           launch<kLds8Shfl8>, launch<kLds8Mufu8>, launch<kShfl8Mufu8>};
  std::vector<long long> host(sms);
  std::printf("mix sm_cycles_per_iteration (32 warps an SM, 8 of each kind a warp an iteration) min max\n");
  for (int m = 0; m < kMixes; ++m) {
    kernels[m](sms, out, cycles, 8);
    double best = 1e30, lo = 0, hi = 0;
    for (int r = 0; r < 3; ++r) {
      kernels[m](sms, out, cycles, iters);
      CK(cudaGetLastError());
      CK(cudaDeviceSynchronize());
      CK(cudaMemcpy(host.data(), cycles, sizeof(long long) * sms, cudaMemcpyDeviceToHost));
      std::sort(host.begin(), host.end());
      const double med = double(host[sms / 2]) / iters;
      if (med < best) { best = med; lo = double(host.front()) / iters; hi = double(host.back()) / iters; }
    }
    std::printf("%s %.2f %.2f %.2f\n", kMixNames[m], best, lo, hi);
  }
  return 0;
}
