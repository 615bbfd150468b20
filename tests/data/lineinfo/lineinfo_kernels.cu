// Two small kernels over several source lines, compiled with -lineinfo and profiled with
// Nsight Compute to record how its source page maps SASS to CUDA lines (tests/fixtures/lineinfo).
#include <cstdio>
#include <cuda_runtime.h>

#include "lineinfo_helpers.cuh"

__global__ void scale_shift(const float* in, float* out, int n, float a, float b) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float x = in[i];
  float y = axpb(a, x, b);
  out[i] = y;
}

__global__ void block_sum(const float* in, float* out, int n) {
  __shared__ float part[256];
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  part[threadIdx.x] = i < n ? in[i] : 0.0f;
  __syncthreads();
  for (int s = blockDim.x / 2; s > 0; s >>= 1) {
    if (threadIdx.x < s) part[threadIdx.x] += part[threadIdx.x + s];
    __syncthreads();
  }
  if (threadIdx.x == 0) out[blockIdx.x] = part[0];
}

int main() {
  const int n = 1 << 20;
  float *in, *out;
  cudaMalloc(&in, n * sizeof(float));
  cudaMalloc(&out, n * sizeof(float));
  cudaMemset(in, 0, n * sizeof(float));
  scale_shift<<<n / 256, 256>>>(in, out, n, 2.0f, 1.0f);
  block_sum<<<n / 256, 256>>>(in, out, n);
  cudaError_t e = cudaDeviceSynchronize();
  std::printf("%s\n", cudaGetErrorString(e));
  cudaFree(in);
  cudaFree(out);
  return e == cudaSuccess ? 0 : 1;
}
