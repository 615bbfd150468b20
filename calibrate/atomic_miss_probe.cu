// What a global atomic costs when its line is not in L2. The table's global atomic latency
// (`global_atomic_latency_cycles`) and rate curves (`atomic_rate_*`) were measured on words the
// L2 already held; a kernel started on a cold L2 (Nsight Compute flushes it before each launch)
// whose atomics scatter over a large array first touches most of their sectors. Does such an
// atomic wait for a DRAM fill, and does it move DRAM bytes (a fill of its sector, a write-back)?
//
// Modes:
//   chain  one thread, each request's address from the last one's result (a random cycle of
//          128 B lines): cycles a step for an ld.global.cg load and for a returning atomicAdd
//          (ATOMG.E.ADD), on lines L2 holds (16 MiB, run once before) and on first touches
//          (cold 4 MiB: the L2 flushed by a read of another buffer before the launch; 1 GiB:
//          fresh points of the cycle each launch)
//   lanes  W warps on every SM, each lane its own such chain, so each request spreads over 32
//          lines: the mean warp's cycles a step, load and atomic alike, L2-held (16 MiB) and
//          first touches (1 GiB)
//   rate   sms x 8 CTAs of 256 threads, each thread 32 updates at hashed words of an F-byte
//          array, F from 4 MiB to 1 GiB, warm (a launch before) and cold (flushed): RED.ADD
//          (no result) and ATOMG.ADD whose result is summed, updates per ns (event-timed)
//   app    launches to profile, trace and predict whole (sms x 4 CTAs of 256 threads, 16
//          updates a thread): red-4m, red-1g, atom-4m, atom-1g (independent updates), chain-4m,
//          chain-1g (each update's word from the last one's result), red-64m, red-256m; then
//          cases added after the model's profile estimator was read off those (a check it never
//          saw): red-32m, red-128m, red-512m, atom-128m, and lines-1g (four lanes a line, each
//          on a sector of its own: a request updates 8 whole lines)
//
//   nvcc -O3 -arch=sm_90 -Icalibrate -o atomic_miss_probe atomic_miss_probe.cu
//   ./atomic_miss_probe chain|lanes|rate|app [case prefixes, comma-separated]
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdio>
#include <numeric>
#include <random>
#include <string>
#include <vector>

#include "case_filter.cuh"
#include "cuda_check.cuh"
#include "event_timing.cuh"
#include "hash_mix.cuh"
#include "l2_flush.cuh"
#include "line_cycle.cuh"

namespace {

enum Op { kLoad = 0, kAtomic = 1 };

template <int O>
__device__ __forceinline__ unsigned step(unsigned* p) {
  if (O == kLoad) return __ldcg(p);
  return atomicAdd(p, 0u);  // the value is the next line: an atomic that leaves it unchanged
}

template <int O>
__global__ void chase(unsigned* buf, const unsigned* start, int lanes, int steps, unsigned long long* cycles, unsigned* sink) {
  const int thread = blockIdx.x * blockDim.x + threadIdx.x, warp = thread / 32, lane = threadIdx.x & 31;
  unsigned line = start[thread], acc = 0;
  __syncwarp();
  const long long t0 = clock64();
  if (lane < lanes) {
    for (int s = 0; s < steps; ++s) {
      line = step<O>(buf + word_of(line));
      acc += line;
    }
  }
  __syncwarp();
  const long long t1 = clock64();
  if (lane == 0) cycles[warp] = static_cast<unsigned long long>(t1 - t0);
  if (acc == 0xdeadbeef) *sink = acc;
}

// Updates at hashed words of `words` (a power of two). Form 0: RED.ADD, no result. Form 1:
// ATOMG.ADD, the results summed (independent requests). Form 2: each update's word from the
// last one's result (a dependent chain per thread). Form 3: RED.ADD, four lanes on one hashed
// line, each on a sector of its own (full warps only).
template <int Form>
__global__ void scatter(unsigned* a, unsigned words, int updates, unsigned* sink) {
  const unsigned t = blockIdx.x * blockDim.x + threadIdx.x;
  unsigned acc = 0, key = mix(t * 2654435761u + 12345u);
  for (int k = 0; k < updates; ++k) {
    unsigned* p = a + (key & (words - 1));
    if (Form == 0) {
      atomicAdd(p, 1u);
      key = mix(key + 0x9e3779b9u);
    } else if (Form == 1) {
      acc += atomicAdd(p, 1u);
      key = mix(key + 0x9e3779b9u);
    } else if (Form == 3) {
      const unsigned lane = threadIdx.x & 31u, group = __shfl_sync(0xffffffffu, key, lane & ~3u);
      atomicAdd(a + (group & (words - 1) & ~31u) + (lane & 3u) * 8u, 1u);
      key = mix(key + 0x9e3779b9u);
    } else {
      const unsigned old = atomicAdd(p, 1u);
      key = mix(key ^ old ^ (k * 0x85ebca6bu));
      acc += old;
    }
  }
  if (Form != 0 && acc == 0xdeadbeef) *sink = acc;
}


}  // namespace

int main(int argc, char** argv) {
  const std::string mode = argc > 1 ? argv[1] : "chain";
  const std::string only = argc > 2 ? argv[2] : "";
  if (mode != "chain" && mode != "lanes" && mode != "rate" && mode != "app") {
    std::fprintf(stderr, "usage: %s chain|lanes|rate|app [case prefixes, comma-separated]\n", argv[0]);
    return 2;
  }
  cudaDeviceProp prop;
  CK(cudaGetDeviceProperties(&prop, 0));
  const int sms = prop.multiProcessorCount;
  int clock_khz = 0;
  CK(cudaDeviceGetAttribute(&clock_khz, cudaDevAttrClockRate, 0));
  std::printf("# %s, %d SMs, clock %d MHz\n", prop.name, sms, clock_khz / 1000);
  unsigned *sink, *start;
  unsigned long long* cycles;
  const int max_threads = sms * 32 * 32;
  CK(cudaMalloc(&sink, 64));
  CK(cudaMalloc(&start, 4ull * max_threads));
  CK(cudaMalloc(&cycles, 8ull * max_threads / 32));
  L2Flush flush(prop, reinterpret_cast<float*>(sink));

  if (mode == "app") {
    // Arrays zeroed once; Nsight Compute (or the tracer's run) flushes L2 before each launch.
    struct App { const char* name; int form; size_t bytes; };
    unsigned* a;
    CK(cudaMalloc(&a, 1ull << 30));
    CK(cudaMemset(a, 0, 1ull << 30));
    for (App c : {App{"red-4m", 0, 4ull << 20}, App{"red-1g", 0, 1ull << 30}, App{"atom-4m", 1, 4ull << 20}, App{"atom-1g", 1, 1ull << 30},
                  App{"chain-4m", 2, 4ull << 20}, App{"chain-1g", 2, 1ull << 30}, App{"red-64m", 0, 64ull << 20}, App{"red-256m", 0, 256ull << 20},
                  App{"red-32m", 0, 32ull << 20}, App{"red-128m", 0, 128ull << 20}, App{"red-512m", 0, 512ull << 20}, App{"atom-128m", 1, 128ull << 20},
                  App{"lines-1g", 3, 1ull << 30}}) {
      if (!case_selected(only, c.name)) continue;
      const unsigned words = static_cast<unsigned>(c.bytes / 4);
      flush();
      if (c.form == 0) scatter<0><<<sms * 4, 256>>>(a, words, 16, sink);
      if (c.form == 1) scatter<1><<<sms * 4, 256>>>(a, words, 16, sink);
      if (c.form == 2) scatter<2><<<sms * 4, 256>>>(a, words, 16, sink);
      if (c.form == 3) scatter<3><<<sms * 4, 256>>>(a, words, 16, sink);
      CK(cudaGetLastError());
      CK(cudaDeviceSynchronize());
    }
    return 0;
  }

  if (mode == "rate") {
    unsigned* a;
    CK(cudaMalloc(&a, 1ull << 30));
    CK(cudaMemset(a, 0, 1ull << 30));
    const int ctas = sms * 8, threads = 256, updates = 32;
    const double n = double(ctas) * threads * updates;
    std::printf("form bytes_mib l2 updates_per_ns best_us mean_us\n");
    for (int form : {0, 1}) {
      for (size_t mib : {4, 16, 64, 256, 1024}) {
        const unsigned words = static_cast<unsigned>((mib << 20) / 4);
        auto launch = [&](int) {
          if (form == 0) scatter<0><<<ctas, threads>>>(a, words, updates, sink);
          else scatter<1><<<ctas, threads>>>(a, words, updates, sink);
        };
        const std::string name = std::string(form == 0 ? "red-" : "atom-") + std::to_string(mib) + "m";
        if (!case_selected(only, name)) continue;
        const LaunchTimes warm = time_launches(4, launch);  // each after the last: the L2 holds what fits
        const LaunchTimes cold = time_launches(4, [&](int) { flush(); }, launch);
        CK(cudaGetLastError());
        std::printf("%s %zu warm %.2f %.2f %.2f\n", form == 0 ? "red" : "atom", mib, n / (warm.best_ms * 1e6), warm.best_ms * 1e3, warm.mean_ms * 1e3);
        std::printf("%s %zu cold %.2f %.2f %.2f\n", form == 0 ? "red" : "atom", mib, n / (cold.best_ms * 1e6), cold.best_ms * 1e3, cold.mean_ms * 1e3);
      }
    }
    return 0;
  }

  // chain and lanes: random cycles of 128 B lines.
  std::mt19937 rng(7);
  struct Space { const char* name; size_t bytes; bool flushed; };
  std::printf("case op lanes warps_per_sm cycles_per_step_mean slowest\n");
  for (Space sp : {Space{"l2-16m", 16ull << 20, false}, Space{"cold-4m", 4ull << 20, true}, Space{"cold-1g", 1ull << 30, false}}) {
    const size_t lines = sp.bytes / 128;
    LineCycle cycle;
    CK(cycle.build(lines, rng));
    unsigned* buf = cycle.buf;
    auto place = [&]() { return cycle.place_starts(start, max_threads); };
    const bool warm = std::string(sp.name).rfind("l2", 0) == 0;
    for (int op : {kLoad, kAtomic}) {
      const std::string name = std::string(sp.name) + (op == kLoad ? "-ld" : "-atom");
      if (!case_selected(only, name)) continue;
      std::vector<std::pair<int, int>> shapes;  // (lanes, warps per SM)
      if (mode == "chain") shapes = {{1, 0}};
      else shapes = {{32, 1}, {32, 4}, {32, 8}, {32, 16}, {32, 32}};
      for (const auto& shape : shapes) {
        const int lanes = shape.first, w = shape.second;
        const int threads = w == 0 ? 32 : std::min(w, 8) * 32, ctas = w == 0 ? 1 : sms * w * 32 / threads;
        // Cold steps stay first touches: a quarter of the lines at most between flushes or
        // fresh starting points (4 MiB holds 32,768 lines: one chain of 1,024 steps, so the
        // loaded shapes walk the 1 GiB cycle only).
        if (w > 0 && sp.flushed) continue;
        const int lanes_total = ctas * threads;
        const int steps = w == 0 ? 1024 : warm ? 256 : std::clamp(static_cast<int>(lines / 4 / lanes_total), 4, 128);
        auto launch = [&]() {
          if (op == kLoad) chase<kLoad><<<ctas, threads>>>(buf, start, lanes, steps, cycles, sink);
          else chase<kAtomic><<<ctas, threads>>>(buf, start, lanes, steps, cycles, sink);
        };
        double best = 1e30, best_slowest = 0;
        for (int r = 0; r < 3; ++r) {
          CK(place());
          if (warm) launch();
          if (sp.flushed) flush();
          launch();
          CK(cudaGetLastError());
          CK(cudaDeviceSynchronize());
          const int warps = ctas * threads / 32;
          std::vector<unsigned long long> c(warps);
          CK(cudaMemcpy(c.data(), cycles, 8ull * warps, cudaMemcpyDeviceToHost));
          double mean = 0;
          for (auto x : c) mean += double(x) / steps;
          mean /= warps;
          if (mean < best) { best = mean; best_slowest = double(*std::max_element(c.begin(), c.end())) / steps; }
        }
        std::printf("%s %s %d %d %.1f %.1f\n", sp.name, op == kLoad ? "ld" : "atom", lanes, w, best, best_slowest);
      }
    }
    CK(cudaFree(buf));
  }
  return 0;
}
