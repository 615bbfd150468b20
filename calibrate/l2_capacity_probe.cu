// How much data the L2 holds for a kernel: lanes chase one random cycle through every 128 B line
// of a table of F MiB, each lane from its own point of it, so each pass over the table touches
// every line once in the same order; warm passes first, then one timed pass. Where the table
// fits, every step hits L2; past the capacity, the cyclic order misses (an LRU-like L2 keeps
// nothing of a cycle larger than itself). Two ways of reading the table:
//   all: one warp with one active lane on each of 8 CTAs a SM on every SM (data all SMs read)
//   one: 32 warps with one active lane each on a single SM (data one SM reads)
// A lane's step is one 4 B load past L1 (__ldcg), at a word of the line that spreads the lanes
// over the banks. Prints the mean cycles a step for each footprint and way, and the 1 GiB
// table's (every step a DRAM miss) as the miss reference.
//   nvcc -O3 -arch=sm_90 -o l2_capacity_probe l2_capacity_probe.cu && ./l2_capacity_probe
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdio>
#include <numeric>
#include <random>
#include <vector>

#include "cuda_check.cuh"
#include "line_cycle.cuh"


// Lane 0 of every warp chases; start[warp] is where, and it leaves where it stopped there.
__global__ void chase(const unsigned* buf, unsigned* start, int steps, unsigned long long* cycles) {
  const int warp = (blockIdx.x * blockDim.x + threadIdx.x) / 32;
  if ((threadIdx.x & 31) != 0) return;
  unsigned line = start[warp];
  const long long t0 = clock64();
  for (int s = 0; s < steps; ++s) line = __ldcg(buf + word_of(line));
  const long long t1 = clock64();
  cycles[warp] = static_cast<unsigned long long>(t1 - t0);
  start[warp] = line;
}

int main() {
  int sms = 0, clock_khz = 0;
  CK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
  CK(cudaDeviceGetAttribute(&clock_khz, cudaDevAttrClockRate, 0));
  int l2_bytes = 0;
  CK(cudaDeviceGetAttribute(&l2_bytes, cudaDevAttrL2CacheSize, 0));
  printf("# sms %d, clock %d MHz, L2 %d MiB\n", sms, clock_khz / 1000, l2_bytes >> 20);
  std::mt19937 rng(5);
  unsigned *start;
  unsigned long long* cycles;
  const int max_warps = sms * 8;
  CK(cudaMalloc(&start, 4ull * max_warps));
  CK(cudaMalloc(&cycles, 8ull * max_warps));
  for (int mib : {8, 16, 20, 24, 28, 32, 36, 40, 44, 48, 52, 56, 64, 80, 1024}) {
    const size_t lines = (static_cast<size_t>(mib) << 20) / 128;
    LineCycle cycle;
    CK(cycle.build(lines, rng));
    const std::vector<unsigned>& order = cycle.order;
    unsigned* buf = cycle.buf;
    for (int way = 0; way < 2; ++way) {
      const int ctas = way == 0 ? sms * 8 : 1, threads = way == 0 ? 32 : 1024, warps = ctas * threads / 32;
      // Each warp's lane starts where its share of the cycle begins: a pass of lines / warps
      // steps touches every line once.
      std::vector<unsigned> first(warps);
      for (int w = 0; w < warps; ++w) first[w] = order[static_cast<size_t>(w) * lines / warps];
      CK(cudaMemcpy(start, first.data(), 4ull * warps, cudaMemcpyHostToDevice));
      const int pass = static_cast<int>(lines / warps);
      const bool huge = mib > 256;
      if (!huge) {
        chase<<<ctas, threads>>>(buf, start, 2 * pass, cycles);  // two warm passes
        CK(cudaGetLastError());
      }
      const int timed = huge ? std::min(pass, 4096) : pass;
      chase<<<ctas, threads>>>(buf, start, timed, cycles);
      CK(cudaDeviceSynchronize());
      std::vector<unsigned long long> c(warps);
      CK(cudaMemcpy(c.data(), cycles, 8ull * warps, cudaMemcpyDeviceToHost));
      double mean = 0;
      for (auto x : c) mean += static_cast<double>(x) / timed;
      printf("footprint_mib %5d way %-3s warps %4d steps %7d cycles_per_step %7.1f\n", mib, way == 0 ? "all" : "one", warps, timed, mean / warps);
    }
    CK(cudaFree(buf));
  }
  return 0;
}
