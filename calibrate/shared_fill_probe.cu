// Probe (not a table group): do the warps of an SM that wait on the same L1 fills fall back into
// step, so that each step's requests queue in the L1 behind each other again?
// HeCBench attention_kernel2 (train part, 0.67-0.69x from traces) has each of a CTA's 8 warps
// read one column of a row-major matrix: a load over 32 lines, on one bank, and the 8 warps'
// words in one sector of each line. The first warp's request misses; the other 7 find the
// sectors in flight and wait for the same fills. The simulation gives each warp the mean
// latency from its issue, so the warps stay staggered by the L1's passes (32 a request) and no
// request queues behind another after the first step. If the shared fills release the warps
// together, every step pays the queue of all W requests: about 32 x (W - 1) passes more.
//
// Each lane of a CTA walks a random cycle of 128 B lines through a 1 GiB buffer (every word of a
// line holds the next line's index), one load a step, so a warp's request asks for one sector of
// each of 32 lines on one bank. One CTA on each SM, W warps, L2 read cold (l2_flush.cuh) before
// each timed launch. Modes:
//   own     each warp walks chains of its own (W x 32 distinct lines a step on the SM)
//   sector  every warp walks the CTA's 32 chains, warp w reading word w mod 8 (one sector)
//   line    the same chains, warp w reading word 8 x (w mod 4) (the same lines, 4 sectors)
//   coal    every warp walks one chain of the CTA, its lanes over the line's 32 words (a request
//           of one line, shared by the W warps)
//
// Mode time (default): one JSON object a line: mode, warps, steps, the mean, median and slowest
// warp's cycles a step. Mode app: launches to profile, trace and predict whole (tools/collect):
// sector and own at 8 warps, sector at 1 and 16, line at 4, coal at 8, 128 steps each.
//
//   nvcc -O3 -arch=sm_90 -Icalibrate -o shared_fill_probe shared_fill_probe.cu && ./shared_fill_probe
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdio>
#include <numeric>
#include <random>
#include <string>
#include <vector>

#include "cuda_check.cuh"
#include "l2_flush.cuh"

namespace {

enum Mode { kOwn = 0, kSector = 1, kLine = 2, kCoalesced = 3 };
const char* const kModeNames[] = {"own", "sector", "line", "coal"};
constexpr size_t kLines = (1ull << 30) / 128;
constexpr int kMaxWarps = 32;

// start: the chains' first lines, kMaxWarps x 32 a CTA.
__global__ void walk(const unsigned* __restrict__ buf, const unsigned* __restrict__ start, int mode, int steps, unsigned long long* cycles,
                     unsigned* sink) {
  const int warp = threadIdx.x / 32, lane = threadIdx.x & 31;
  const int chain = mode == kOwn ? warp * 32 + lane : mode == kCoalesced ? 0 : lane;
  const unsigned word = mode == kSector ? warp % 8 : mode == kLine ? 8 * (warp % 4) : mode == kCoalesced ? lane : 0;
  unsigned line = start[blockIdx.x * kMaxWarps * 32 + chain];
  __syncthreads();
  const long long t0 = clock64();
  for (int s = 0; s < steps; ++s) line = buf[static_cast<size_t>(line) * 32 + word];
  const long long t1 = clock64();
  if (lane == 0) cycles[blockIdx.x * kMaxWarps + warp] = static_cast<unsigned long long>(t1 - t0);
  if (line == 0xffffffffu) *sink = line;
}

struct Probe {
  unsigned *buf = nullptr, *start = nullptr, *sink = nullptr;
  unsigned long long* cycles = nullptr;
  std::vector<unsigned> order;
  size_t next_offset = 0;
  int sms = 0;

  cudaError_t setup() {
    if (cudaError_t e = cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0); e != cudaSuccess) return e;
    order.resize(kLines);
    std::iota(order.begin(), order.end(), 0u);
    std::mt19937 rng(29);
    std::shuffle(order.begin(), order.end(), rng);
    // Filled on the host, so the app's only kernels are the walks (tools/collect takes them all).
    std::vector<unsigned> host(kLines * 32);
    for (size_t i = 0; i < kLines; ++i) std::fill_n(host.begin() + static_cast<std::ptrdiff_t>(order[i]) * 32, 32, order[(i + 1) % kLines]);
    for (cudaError_t e : {cudaMalloc(&buf, kLines * 128), cudaMalloc(&start, 4ull * sms * kMaxWarps * 32), cudaMalloc(&cycles, 8ull * sms * kMaxWarps),
                          cudaMalloc(&sink, 4)})
      if (e != cudaSuccess) return e;
    return cudaMemcpy(buf, host.data(), kLines * 128, cudaMemcpyHostToDevice);
  }

  // Fresh, evenly spread points of the cycle for the first `used` chains of every CTA: no chain
  // reaches the lines another walks within `steps` while the chains' spacing exceeds it.
  cudaError_t place(int steps, int used) {
    const size_t chains = static_cast<size_t>(sms) * used, spacing = kLines / chains;
    if (spacing <= static_cast<size_t>(steps)) return cudaErrorInvalidValue;
    std::vector<unsigned> first(static_cast<size_t>(sms) * kMaxWarps * 32, 0);
    for (size_t c = 0; c < chains; ++c) first[c / used * kMaxWarps * 32 + c % used] = order[(c * spacing + next_offset) % kLines];
    next_offset += static_cast<size_t>(steps) + 1;
    return cudaMemcpy(start, first.data(), 4 * first.size(), cudaMemcpyHostToDevice);
  }
};

}  // namespace

int main(int argc, char** argv) {
  const std::string run = argc > 1 ? argv[1] : "time";
  if (run != "time" && run != "app") {
    std::fprintf(stderr, "usage: %s [time|app]\n", argv[0]);
    return 2;
  }
  Probe p;
  CK(p.setup());
  if (run == "app") {
    struct Launch { int mode, warps; };
    for (Launch l : {Launch{kSector, 8}, Launch{kOwn, 8}, Launch{kSector, 1}, Launch{kSector, 16}, Launch{kLine, 4}, Launch{kCoalesced, 8}}) {
      CK(p.place(128, l.mode == kOwn ? l.warps * 32 : 32));
      walk<<<p.sms, l.warps * 32>>>(p.buf, p.start, l.mode, 128, p.cycles, p.sink);
      CK(cudaGetLastError());
      CK(cudaDeviceSynchronize());
    }
    std::printf("ok\n");
    return 0;
  }
  cudaDeviceProp prop{};
  CK(cudaGetDeviceProperties(&prop, 0));
  float* flush_sink = nullptr;
  CK(cudaMalloc(&flush_sink, 4));
  const L2Flush flush(prop, flush_sink);
  constexpr int kSteps = 56;
  int clock_khz = 0;
  CK(cudaDeviceGetAttribute(&clock_khz, cudaDevAttrClockRate, 0));
  std::printf("# sms %d, clock %d MHz, %d steps, 1 GiB of lines\n", p.sms, clock_khz / 1000, kSteps);
  for (int mode : {kOwn, kSector, kLine, kCoalesced}) {
    for (int warps : {1, 2, 4, 8, 16, 32}) {
      for (int rep = 0; rep < 2; ++rep) {
        CK(p.place(kSteps, mode == kOwn ? warps * 32 : 32));
        flush();
        walk<<<p.sms, warps * 32>>>(p.buf, p.start, mode, kSteps, p.cycles, p.sink);
        CK(cudaGetLastError());
        CK(cudaDeviceSynchronize());
        std::vector<unsigned long long> all(static_cast<size_t>(p.sms) * kMaxWarps);
        CK(cudaMemcpy(all.data(), p.cycles, 8 * all.size(), cudaMemcpyDeviceToHost));
        std::vector<double> c;
        for (int b = 0; b < p.sms; ++b)
          for (int w = 0; w < warps; ++w) c.push_back(static_cast<double>(all[static_cast<size_t>(b) * kMaxWarps + w]) / kSteps);
        std::sort(c.begin(), c.end());
        const double mean = std::accumulate(c.begin(), c.end(), 0.0) / c.size();
        std::printf("{\"mode\": \"%s\", \"warps\": %d, \"rep\": %d, \"steps\": %d, \"mean\": %.1f, \"median\": %.1f, \"slowest\": %.1f}\n",
                    kModeNames[mode], warps, rep, kSteps, mean, c[c.size() / 2], c.back());
      }
    }
  }
  return 0;
}
