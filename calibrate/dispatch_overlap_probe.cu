// Probe (not a table group): does the time the GPU takes to start a grid's CTAs overlap the CTAs'
// own life, or add to it? Every CTA spins for `spin` SM cycles (clock64) and exits; CTAs of 8
// warps, 8 resident per SM (or of 1 warp, 32 per SM), 32 full rounds. Alone, the starts take
// about 1.19 SM cycles per CTA over the whole GPU (the table's cta_dispatch_interval), i.e. 1,257
// cycles per round of 8 CTAs on 132 SMs, and the lives take 32 x spin. A max() of the two gives
// a sharp corner in the time over `spin`; a sum gives none. Each point is the best of 20
// CUDA-event timed launches (back to back, after 3 warm-up launches).
// Output: one JSON object per line.
//
//   nvcc -O3 -arch=sm_90 -o dispatch_overlap_probe calibrate/dispatch_overlap_probe.cu && ./dispatch_overlap_probe
#include <cstdio>

#include "event_timing.cuh"

__global__ void spin_cta(long long spin, int* out) {
  const long long t0 = clock64();
  while (clock64() - t0 < spin) {
  }
  if (spin < 0) out[0] = 1;  // never true
}

int main() {
  cudaDeviceProp prop;
  cudaGetDeviceProperties(&prop, 0);
  const int sms = prop.multiProcessorCount, rounds = 32, launches = 20;
  int* out = nullptr;
  cudaMalloc(&out, sizeof(int));
  struct Shape { int threads, per_sm; };
  for (Shape s : {Shape{256, 8}, Shape{32, 32}}) {
    const int grid = sms * s.per_sm * rounds;
    for (long long spin : {0LL, 250LL, 500LL, 750LL, 1000LL, 1250LL, 1500LL, 1750LL, 2000LL, 2500LL, 3000LL, 4000LL, 6000LL, 8000LL}) {
      for (int w = 0; w < 3; ++w) spin_cta<<<grid, s.threads>>>(spin, out);
      cudaDeviceSynchronize();
      const LaunchTimes t = time_launches(launches, [&](int) { spin_cta<<<grid, s.threads>>>(spin, out); });
      std::printf("{\"probe\": \"dispatch_overlap\", \"gpu\": \"%s\", \"sms\": %d, \"threads\": %d, \"ctas_per_sm\": %d, \"rounds\": %d, "
                  "\"ctas\": %d, \"spin_cycles\": %lld, \"best_us\": %.3f, \"mean_us\": %.3f}\n",
                  prop.name, sms, s.threads, s.per_sm, rounds, grid, spin, t.best_ms * 1e3, t.mean_ms * 1e3);
    }
  }
  const cudaError_t err = cudaGetLastError();
  if (err != cudaSuccess) {
    std::fprintf(stderr, "dispatch_overlap_probe: %s\n", cudaGetErrorString(err));
    return 1;
  }
  return 0;
}
