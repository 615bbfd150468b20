// Shared-memory loads after a barrier, in bursts: the cycles one level of a tree scan takes
// (two LDS, an add, an STS, __syncthreads) as more warps of the SM run it in step.
//
//   nvcc -O3 -arch=sm_90 -o shared_burst_probe calibrate/shared_burst_probe.cu && ./shared_burst_probe
//
// Each CTA of `threads` threads runs `levels` levels over a shared array of T; per level every
// thread reads two elements (`stride` apart), adds them and writes one back, then the CTA
// synchronises. The grid puts `ctas_per_sm` CTAs on each SM. Printed: cycles per level (the
// CTA's clock64 span over the levels, averaged over CTAs), as JSON lines.
#include <cstdio>
#include <cstdint>
#include <cuda_runtime.h>

// kLoads: the level's two LDS and the add; kStore: its STS (of the sum, or of the level).
template <class T, bool kBarrier, bool kLoads = true, bool kStore = true>
__global__ void levels_kernel(int levels, int stride, unsigned long long* cycles, T* sink) {
  __shared__ T s[2048];
  const int t = threadIdx.x;
  for (int i = t; i < 2048; i += blockDim.x) s[i] = T(i);
  __syncthreads();
  const int n = blockDim.x;
  T acc = 0;
  const long long start = clock64();
  for (int l = 0; l < levels; ++l) {
    const int a = (t + l) & (n - 1), b = (t + l + stride) & (n - 1);  // n: a power of 2
    T x = kLoads ? T(s[a] + s[b]) : T(l);
    if (kStore) s[(t + 1) & (n - 1)] = x;
    acc += x;
    if (kBarrier) __syncthreads();
  }
  const long long end = clock64();
  if (t == 0) cycles[blockIdx.x] = static_cast<unsigned long long>(end - start);
  if (acc == T(123)) sink[t] = acc;
}

template <class T, bool kBarrier, bool kLoads = true, bool kStore = true>
void run(const char* name, int threads, int ctas_per_sm, int sms, int levels) {
  const int grid = ctas_per_sm * sms;
  unsigned long long* d;
  T* sink;
  cudaMalloc(&d, grid * sizeof(unsigned long long));
  cudaMalloc(&sink, 1024 * sizeof(T));
  levels_kernel<T, kBarrier, kLoads, kStore><<<grid, threads>>>(levels, 7, d, sink);  // warm-up
  levels_kernel<T, kBarrier, kLoads, kStore><<<grid, threads>>>(levels, 7, d, sink);
  cudaDeviceSynchronize();
  unsigned long long* h = new unsigned long long[grid];
  cudaMemcpy(h, d, grid * sizeof(unsigned long long), cudaMemcpyDeviceToHost);
  double sum = 0;
  for (int i = 0; i < grid; ++i) sum += double(h[i]);
  printf("{\"case\": \"%s\", \"threads\": %d, \"ctas_per_sm\": %d, \"warps_per_sm\": %d, \"cycles_per_level\": %.2f}\n", name, threads, ctas_per_sm,
         ctas_per_sm * threads / 32, sum / grid / levels);
  delete[] h;
  cudaFree(d);
  cudaFree(sink);
}

int main() {
  int sms = 0;
  cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0);
  const int levels = 4096;
  for (int ctas : {1, 2, 4, 8, 16}) {
    run<unsigned char, true>("u8_barrier", 64, ctas, sms, levels);
    run<unsigned, true>("u32_barrier", 64, ctas, sms, levels);
    run<unsigned char, false>("u8_no_barrier", 64, ctas, sms, levels);
  }
  for (int ctas : {1, 4}) run<unsigned char, true>("u8_barrier", 256, ctas, sms, levels);
  // What the small CTAs' extra time a level comes from: the loads alone, the store alone, and
  // CTAs of 4 warps.
  for (int ctas : {1, 4, 8, 16}) {
    run<unsigned char, true, true, false>("u8_barrier_loads_only", 64, ctas, sms, levels);
    run<unsigned char, true, false, true>("u8_barrier_store_only", 64, ctas, sms, levels);
  }
  for (int ctas : {1, 2, 4, 8}) run<unsigned char, true>("u8_barrier", 128, ctas, sms, levels);
  return 0;
}
