// How an L2 hit's latency grows with the warps of every SM that wait on L2 hits at once (the L2
// counterpart of the table's dram_line_latency_vs_warps_per_sm). Every SM runs W warps; each
// warp chases its own random cycle of 128 B lines through a 32 MiB buffer that L2 holds (warm),
// one coalesced request a step past L1 (__ldcg: each lane reads 4 B of the line, the next line
// comes from lane 0 via SHFL). Prints the mean cycles per step of the slowest warp's chase and
// the L2 bandwidth the chases draw, for W = 1, 2, 4, 8, 16, 32, 48, 64.
//   nvcc -O3 -arch=sm_90 -o l2_loaded_probe l2_loaded_probe.cu && ./l2_loaded_probe
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdio>
#include <numeric>
#include <random>
#include <vector>

#include "cuda_check.cuh"

// buf holds, at line l, lane 0's word: the next line of l's cycle.
__global__ void chase(const unsigned* buf, const unsigned* start, int steps, unsigned long long* cycles, unsigned* sink) {
  const int warp = (blockIdx.x * blockDim.x + threadIdx.x) / 32, lane = threadIdx.x & 31;
  unsigned line = start[warp], acc = 0;
  __syncwarp();
  const long long t0 = clock64();
  for (int s = 0; s < steps; ++s) {
    const unsigned v = __ldcg(buf + static_cast<size_t>(line) * 32 + lane);
    acc += v;
    line = __shfl_sync(0xffffffffu, v, 0);
  }
  const long long t1 = clock64();
  if (lane == 0) cycles[warp] = static_cast<unsigned long long>(t1 - t0);
  if (acc == 0xdeadbeef) *sink = acc;
}

int main() {
  int sms = 0, clock_khz = 0;
  CK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
  CK(cudaDeviceGetAttribute(&clock_khz, cudaDevAttrClockRate, 0));
  const size_t lines = (32u << 20) / 128;  // 32 MiB: L2 holds it
  unsigned *buf, *start, *sink;
  unsigned long long* cycles;
  CK(cudaMalloc(&buf, lines * 128));
  CK(cudaMalloc(&start, 4 * 64 * 4096));
  CK(cudaMalloc(&cycles, 8 * 64 * 4096));
  CK(cudaMalloc(&sink, 4));
  std::mt19937 rng(7);
  const int steps = 4096;
  printf("# sms %d, clock %d MHz\n", sms, clock_khz / 1000);
  for (int w : {1, 2, 4, 8, 16, 32, 48, 64}) {
    const int warps = sms * w;
    const size_t per = lines / warps;  // each warp's own lines
    std::vector<unsigned> host(lines * 32, 0), first(warps);
    for (int k = 0; k < warps; ++k) {
      std::vector<unsigned> order(per);
      std::iota(order.begin(), order.end(), static_cast<unsigned>(k * per));
      std::shuffle(order.begin(), order.end(), rng);
      for (size_t i = 0; i < per; ++i) host[static_cast<size_t>(order[i]) * 32] = order[(i + 1) % per];
      first[k] = order[0];
    }
    CK(cudaMemcpy(buf, host.data(), lines * 128, cudaMemcpyHostToDevice));
    CK(cudaMemcpy(start, first.data(), 4 * warps, cudaMemcpyHostToDevice));
    const int threads = std::min(w, 8) * 32, ctas = warps * 32 / threads;
    chase<<<ctas, threads>>>(buf, start, steps / 8, cycles, sink);  // warm: the kernel's own fetches put the lines in L2
    CK(cudaGetLastError());
    cudaEvent_t a, b;
    CK(cudaEventCreate(&a));
    CK(cudaEventCreate(&b));
    CK(cudaEventRecord(a));
    chase<<<ctas, threads>>>(buf, start, steps, cycles, sink);
    CK(cudaEventRecord(b));
    CK(cudaEventSynchronize(b));
    float ms = 0;
    CK(cudaEventElapsedTime(&ms, a, b));
    std::vector<unsigned long long> c(warps);
    CK(cudaMemcpy(c.data(), cycles, 8 * warps, cudaMemcpyDeviceToHost));
    const double slowest = static_cast<double>(*std::max_element(c.begin(), c.end())) / steps;
    double mean = 0;
    for (auto x : c) mean += static_cast<double>(x) / steps;
    mean /= warps;
    const double gbs = static_cast<double>(warps) * steps * 128 / (ms * 1e-3) / 1e9;
    printf("warps_per_sm %2d  cycles_per_step mean %7.1f slowest %7.1f  l2_read_gbs %8.1f\n", w, mean, slowest, gbs);
  }
  return 0;
}
