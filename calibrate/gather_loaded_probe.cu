// How long a gather waits when every SM's warps gather at once: each active lane of a warp
// chases its own random cycle of 128 B lines, so a warp's load asks for one sector of as many
// lines as it has active lanes (L), and W warps on each of the SMs do so together. The
// table's l2_hit_latency_cycles_vs_lines_per_request and dram_latency_cycles_vs_lines_per_request
// were measured with one warp; dram_line_latency_vs_warps_per_sm and l2_loaded_probe.cu with
// one line a request. This probe measures the two together.
//   space l2:   a 32 MiB table that L2 holds (warm), loads past L1 (__ldcg)
//   space l1nc: the same table read through L1 (__ldg, as a read-only gather), which holds
//               little of it
//   space dram: a 1 GiB table, loads past L1, nearly every step a first touch for L2
// Each line keeps its next line at a word of its own (line * 13 mod 32), so the lanes' words
// spread over the banks. Prints, for each space, L and W, the mean and slowest warp's cycles a
// step and the lines a cycle each SM draws.
//   nvcc -O3 -arch=sm_90 -o gather_loaded_probe gather_loaded_probe.cu && ./gather_loaded_probe
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <numeric>
#include <random>
#include <vector>

#include "cuda_check.cuh"
#include "event_timing.cuh"
#include "line_cycle.cuh"


template <int Space>
__global__ void gather(const unsigned* buf, const unsigned* start, int lanes, int steps, unsigned long long* cycles, unsigned* sink) {
  const int thread = blockIdx.x * blockDim.x + threadIdx.x, warp = thread / 32, lane = threadIdx.x & 31;
  unsigned line = start[thread], acc = 0;
  __syncwarp();
  const long long t0 = clock64();
  if (lane < lanes) {
    for (int s = 0; s < steps; ++s) {
      const unsigned* p = buf + word_of(line);
      line = Space == 1 ? __ldg(p) : __ldcg(p);
      acc += line;
    }
  }
  __syncwarp();
  const long long t1 = clock64();
  if (lane == 0) cycles[warp] = static_cast<unsigned long long>(t1 - t0);
  if (acc == 0xdeadbeef) *sink = acc;
}

int main(int argc, char** argv) {
  int sms = 0, clock_khz = 0;
  CK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
  CK(cudaDeviceGetAttribute(&clock_khz, cudaDevAttrClockRate, 0));
  printf("# sms %d, clock %d MHz\n", sms, clock_khz / 1000);
  const int max_warps_per_sm = 64, max_threads = sms * max_warps_per_sm * 32;
  unsigned *start, *sink;
  unsigned long long* cycles;
  CK(cudaMalloc(&start, 4ull * max_threads));
  CK(cudaMalloc(&cycles, 8ull * max_threads / 32));
  CK(cudaMalloc(&sink, 4));
  std::mt19937 rng(11);
  struct SpaceRun { const char* name; size_t bytes; int kernel; };
  const char* only = argc > 1 ? argv[1] : "";
  for (SpaceRun sp : {SpaceRun{"l2", 16ull << 20, 0}, SpaceRun{"l2_8m", 8ull << 20, 0}, SpaceRun{"l1nc", 16ull << 20, 1}, SpaceRun{"dram", 1ull << 30, 0}}) {
    if (*only && !strstr(only, sp.name)) continue;
    const size_t lines = sp.bytes / 128;
    // One random cycle through every line; each lane starts at its own point of it. Each DRAM
    // launch starts from fresh points, so it does not find the lines its predecessor left in L2.
    LineCycle cycle;
    CK(cycle.build(lines, rng));
    unsigned* buf = cycle.buf;
    auto place = [&]() { return cycle.place_starts(start, max_threads); };
    const bool dram = sp.bytes > (64ull << 20);
    const int steps = dram ? 256 : 512;
    for (int lanes : {1, 4, 8, 16, 32}) {
      for (int w : {1, 4, 8, 16, 32, 40, 64}) {
        const int threads = std::min(w, 8) * 32, ctas = sms * w * 32 / threads;
        auto launch = [&](int n) {
          if (sp.kernel == 1) gather<1><<<ctas, threads>>>(buf, start, lanes, n, cycles, sink);
          else gather<0><<<ctas, threads>>>(buf, start, lanes, n, cycles, sink);
        };
        CK(place());
        if (!dram) {
          launch(steps);  // warm: the kernel's own fetches put the lines in L2
          CK(cudaGetLastError());
        }
        const float ms = time_launches(1, [&](int) { launch(steps); }).best_ms;
        CK(cudaGetLastError());
        const int warps = ctas * threads / 32;
        std::vector<unsigned long long> c(warps);
        CK(cudaMemcpy(c.data(), cycles, 8ull * warps, cudaMemcpyDeviceToHost));
        const double slowest = static_cast<double>(*std::max_element(c.begin(), c.end())) / steps;
        double mean = 0;
        for (auto x : c) mean += static_cast<double>(x) / steps;
        mean /= warps;
        const double lines_per_cycle_sm = static_cast<double>(w) * lanes / mean;
        printf("space %-4s lanes %2d warps_per_sm %2d  cycles_per_step mean %7.1f slowest %7.1f  lines_per_cycle_per_sm %6.3f  event_ms %.3f\n",
               sp.name, lanes, w, mean, slowest, lines_per_cycle_sm, ms);
      }
    }
    CK(cudaFree(buf));
  }
  return 0;
}
