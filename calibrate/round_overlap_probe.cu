// Probe (not a table group): do the rounds of a many-round grid pay their CTAs' wait on memory
// one after another, or does one CTA's wait run under the other CTAs' work? Each warp loads one
// line of its own from DRAM (a fresh slice of a large array per launch), then issues 256 FFMAs
// (8 independent chains) that depend on the loaded value: a wait, then a phase of fp32 work. The
// same kernel without the load gives the work alone. Grids of 1, 2, 4 and 8 full rounds (8 CTAs
// of 256 threads per SM) are timed; the slope over the rounds says what a further round costs:
// about the work alone when the GPU starts a CTA where one has finished and the wait overlaps,
// the work plus the wait when rounds run in lockstep.
// Output: one JSON object per line.
//
//   nvcc -O3 -arch=sm_90 -o round_overlap_probe calibrate/round_overlap_probe.cu && ./round_overlap_probe
#include <cstdio>
#include <vector>

#include "event_timing.cuh"

__global__ void load_then_compute(const float* __restrict__ a, float* out, int iters, int load) {
  const unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  const float x = load ? __ldcg(a + i) : static_cast<float>(threadIdx.x);
  float acc[8];
#pragma unroll
  for (int k = 0; k < 8; ++k) acc[k] = x + static_cast<float>(k);
  for (int t = 0; t < iters; ++t) {
#pragma unroll
    for (int k = 0; k < 8; ++k) acc[k] = fmaf(acc[k], 1.0001f, 0.5f);
  }
  float s = 0;
#pragma unroll
  for (int k = 0; k < 8; ++k) s += acc[k];
  if (s == 1234.5f) out[i] = s;  // never true; keeps the work
}

int main() {
  cudaDeviceProp prop;
  cudaGetDeviceProperties(&prop, 0);
  const int sms = prop.multiProcessorCount, threads = 256, per_sm = 8, launches = 50;
  const size_t max_threads = static_cast<size_t>(sms) * per_sm * 8 * threads;
  const size_t words = max_threads * (launches + 3);  // a fresh slice per launch: cold L2
  float *a = nullptr, *out = nullptr;
  cudaMalloc(&a, words * sizeof(float));
  cudaMalloc(&out, max_threads * sizeof(float));
  cudaMemset(a, 0, words * sizeof(float));
  for (int iters : {32, 64}) {
    for (int load : {1, 0}) {
      for (int rounds : {1, 2, 4, 8}) {
        const int grid = sms * per_sm * rounds;
        const size_t slice = static_cast<size_t>(grid) * threads;
        for (int w = 0; w < 3; ++w) load_then_compute<<<grid, threads>>>(a + w * slice, out, iters, load);
        cudaDeviceSynchronize();
        const LaunchTimes t = time_launches(launches, [&](int r) {
          const float* src = a + ((3 + r) % (launches + 3)) * max_threads;
          load_then_compute<<<grid, threads>>>(src, out, iters, load);
        });
        std::printf("{\"probe\": \"round_overlap\", \"gpu\": \"%s\", \"sms\": %d, \"ffma_per_thread\": %d, \"load\": %d, \"rounds\": %d, "
                    "\"ctas\": %d, \"best_us\": %.3f, \"mean_us\": %.3f}\n",
                    prop.name, sms, iters * 8, load, rounds, grid, t.best_ms * 1e3, t.mean_ms * 1e3);
      }
    }
  }
  const cudaError_t err = cudaGetLastError();
  if (err != cudaSuccess) {
    std::fprintf(stderr, "round_overlap_probe: %s\n", cudaGetErrorString(err));
    return 1;
  }
  return 0;
}
