// Probe (not a table group): the DRAM latency a warp sees below the loaded-latency curve's first
// point. `dram_line_latency_vs_warps_per_sm` starts at 8 warps on every SM (792 cycles on both
// Hopper GPUs), while `dram_latency_cycles` (686) is one thread's chase over 64 KiB + 128 B
// steps; the model takes the curve's excess over its first point, so 8 warps an SM on every SM
// wait the idle 686. Which is right below 8, and does the number of busy SMs matter?
//
// Each warp chases its own chain of first-touch 128 B lines (32 lanes x 4 B, coalesced; the next
// line's index is lane 0's value), one line in flight per warp, as the curve's chase_lines. The
// chain's step is 640 B (the curve's) or 64 KiB + 128 B (the idle latency's). Configurations:
// `sms` CTAs of `warps` warps each, one CTA per SM (the grid is no larger than the SMs, and each
// CTA takes 1 KiB of shared memory per warp so that the scheduler spreads them), and one warp
// alone. Then one warp alone and 8 warps on every SM whose requests cover only the first
// 8, 16 or 24 lanes' words (1, 2 or 3 of the line's 32 B sectors), from DRAM (the chains
// evicted from L2) and from L2 (the same chase just run). Output: one JSON object per line, the
// median over warps of the SM cycles per step.
//
//   nvcc -O3 -arch=sm_90 -o dram_light_load_probe calibrate/dram_light_load_probe.cu && ./dram_light_load_probe
#include <algorithm>
#include <cstdio>
#include <vector>

#include "cuda_check.cuh"

__global__ void chase_lines(const unsigned* data, long long* cycles, unsigned* sink, size_t region_words, int steps, unsigned lanes) {
  extern __shared__ unsigned pad[];
  const unsigned warp = (blockIdx.x * blockDim.x + threadIdx.x) / 32, lane = threadIdx.x % 32;
  const unsigned* mine = data + (size_t)warp * region_words;
  unsigned p = 0;
  if (threadIdx.x == 0) pad[0] = 0;
  __syncthreads();
  long long t0 = clock64();
  for (int i = 0; i < steps; ++i) {
    unsigned v = lane < lanes ? mine[p + lane] : 0u;
    p = __shfl_sync(0xffffffffu, v, 0);
  }
  long long t1 = clock64();
  if (lane == 0) cycles[warp] = (t1 - t0) / steps;
  if (p == 0xffffffffu) sink[0] = pad[0] + 1;
}

int main() {
  int sms = 0;
  CK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
  const size_t bytes = (size_t)6 << 30;  // 6 GiB: every warp's chain a first touch
  unsigned* data;
  CK(cudaMalloc(&data, bytes));
  unsigned* evict;
  const size_t evict_bytes = (size_t)256 << 20;
  CK(cudaMalloc(&evict, evict_bytes));
  unsigned* sink;
  CK(cudaMalloc(&sink, 64));
  long long* wc;
  CK(cudaMalloc(&wc, 8ull * 64 * 1024));
  const int steps = 256;
  struct Config { int ctas, warps; };
  std::vector<Config> configs = {{1, 1}, {1, 8}, {2, 8}, {16, 8}, {sms, 1}, {sms, 2}, {sms, 4}, {sms, 8}, {sms, 16}};
  for (unsigned stride_words : {640u / 4, (65536u + 128u) / 4}) {
    for (const Config& c : configs) {
      const int warps = c.ctas * c.warps;
      const size_t region_words = bytes / 4 / (size_t)warps / 32 * 32;
      if ((size_t)stride_words * (steps + 2) > region_words) continue;
      // Each warp's chain: word 0 of every stride-th line points to the next.
      std::vector<unsigned> chain((size_t)stride_words * (steps + 2), 0);
      for (size_t w = 0; w + stride_words < chain.size(); w += stride_words) chain[w] = (unsigned)(w + stride_words);
      for (int wp = 0; wp < warps; ++wp)
        CK(cudaMemcpy(data + (size_t)wp * region_words, chain.data(), 4 * chain.size(), cudaMemcpyHostToDevice));
      CK(cudaMemset(evict, 1, evict_bytes));  // the chains leave L2
      CK(cudaDeviceSynchronize());
      chase_lines<<<c.ctas, 32 * c.warps, 1024 * c.warps>>>(data, wc, sink, region_words, steps, 32u);
      CK(cudaDeviceSynchronize());
      std::vector<long long> cyc(warps);
      CK(cudaMemcpy(cyc.data(), wc, 8ull * warps, cudaMemcpyDeviceToHost));
      std::sort(cyc.begin(), cyc.end());
      std::printf("{\"step_bytes\": %u, \"ctas\": %d, \"warps_per_cta\": %d, \"lines_in_flight\": %d, \"cycles_per_step_median\": %lld, \"min\": %lld, \"max\": %lld}\n",
                  stride_words * 4, c.ctas, c.warps, warps, cyc[warps / 2], cyc.front(), cyc.back());
    }
  }
  // Sectors per request: one warp alone and 8 on every SM, cold (DRAM) and warm (L2).
  const unsigned stride_words = (65536u + 128u) / 4;
  for (const Config& c : {Config{1, 1}, Config{sms, 8}}) {
    const int warps = c.ctas * c.warps;
    const size_t region_words = bytes / 4 / (size_t)warps / 32 * 32;
    const int s = std::min<int>(steps, (int)(region_words / stride_words) - 2);
    std::vector<unsigned> chain((size_t)stride_words * (s + 2), 0);
    for (size_t w = 0; w + stride_words < chain.size(); w += stride_words) chain[w] = (unsigned)(w + stride_words);
    for (int wp = 0; wp < warps; ++wp) CK(cudaMemcpy(data + (size_t)wp * region_words, chain.data(), 4 * chain.size(), cudaMemcpyHostToDevice));
    for (unsigned lanes : {8u, 16u, 24u, 32u})
      for (int warm = 0; warm < 2; ++warm) {
        if (!warm) CK(cudaMemset(evict, 1, evict_bytes));
        CK(cudaDeviceSynchronize());
        chase_lines<<<c.ctas, 32 * c.warps, 1024 * c.warps>>>(data, wc, sink, region_words, s, lanes);
        CK(cudaDeviceSynchronize());
        std::vector<long long> cyc(warps);
        CK(cudaMemcpy(cyc.data(), wc, 8ull * warps, cudaMemcpyDeviceToHost));
        std::sort(cyc.begin(), cyc.end());
        std::printf("{\"step_bytes\": %u, \"ctas\": %d, \"warps_per_cta\": %d, \"sectors\": %u, \"from\": \"%s\", \"steps\": %d, \"cycles_per_step_median\": %lld, \"min\": %lld, \"max\": %lld}\n",
                    stride_words * 4, c.ctas, c.warps, lanes / 8, warm ? "l2" : "dram", s, cyc[warps / 2], cyc.front(), cyc.back());
      }
  }
  return 0;
}
