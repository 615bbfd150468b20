// Probe (not a table group), three questions the model's simulation and memory stage leave open.
//
// 1. Dispatch order. Does an SM receive the CTAs of its first round together, or one at a time
//    as the dispatcher deals the grid to the SMs in turn? Every CTA records its SM, its first
//    clock64 (the SM's own clock) and %globaltimer, then spins `spin` cycles, so that a full
//    round is resident before any CTA leaves. Per SM: the cycles from its first start to its
//    k-th (median over SMs), and across SMs: the spread of their first starts.
// 2. Serial walks. One warp walks an array in order and stops at the first element above a
//    threshold (Rodinia particlefilter's find_index): each step's load decides whether the next
//    happens. Cycles per step for 4-128 B steps, the array resident in L2 (read just before) or
//    only in DRAM (a 192 MiB read evicts it first), with all 32 lanes on one address.
// 3. The L2's rate for requests that touch one sector of many lines. Warps read an
//    L2-resident 16 MiB array with ld.global.cg (past L1), lane i at word i * stride: stride 1
//    is 4 sectors of 1 line per request, 8 is 32 sectors of 8 lines, 32 is 32 sectors of 32
//    lines. Sectors per SM cycle over the whole GPU, best of 10 event-timed launches.
// Output: one JSON object per line.
//
//   nvcc -O3 -arch=sm_90 -o dispatch_walk_probe calibrate/dispatch_walk_probe.cu && ./dispatch_walk_probe
#include <algorithm>
#include <cstdio>
#include <cstring>
#include <vector>

#include "event_timing.cuh"
#include "l2_flush.cuh"

__device__ __forceinline__ unsigned smid() {
  unsigned r;
  asm volatile("mov.u32 %0, %%smid;" : "=r"(r));
  return r;
}
__device__ __forceinline__ unsigned long long global_ns() {
  unsigned long long r;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(r));
  return r;
}

// ---- 1. dispatch order
struct CtaStart {
  unsigned long long clock, ns;
  unsigned sm, pad;
};

__global__ void record_start(long long spin, CtaStart* out) {
  const long long t0 = clock64();
  const unsigned long long ns = global_ns();
  if (threadIdx.x == 0) out[blockIdx.x] = CtaStart{static_cast<unsigned long long>(t0), ns, smid(), 0};
  while (clock64() - t0 < spin) {
  }
}

static void dispatch_order(const cudaDeviceProp& prop) {
  const int sms = prop.multiProcessorCount;
  struct Shape { int threads, per_sm; };
  for (Shape s : {Shape{256, 8}, Shape{128, 16}, Shape{64, 16}, Shape{32, 32}}) {
    const int grid = sms * s.per_sm;  // one round
    CtaStart* d = nullptr;
    cudaMalloc(&d, grid * sizeof(CtaStart));
    for (int w = 0; w < 3; ++w) record_start<<<grid, s.threads>>>(40000, d);
    cudaDeviceSynchronize();
    std::vector<CtaStart> h(grid);
    cudaMemcpy(h.data(), d, grid * sizeof(CtaStart), cudaMemcpyDeviceToHost);
    cudaFree(d);
    std::vector<std::vector<unsigned long long>> by_sm(sms);
    std::vector<unsigned long long> first_ns(sms, ~0ull);
    unsigned long long ns0 = ~0ull;
    for (const auto& c : h) {
      if (c.sm >= static_cast<unsigned>(sms)) continue;
      by_sm[c.sm].push_back(c.clock);
      first_ns[c.sm] = std::min(first_ns[c.sm], c.ns);
      ns0 = std::min(ns0, c.ns);
    }
    // k-th start after the SM's first, median over SMs that hold at least k + 1 CTAs
    std::printf("{\"probe\": \"dispatch_order\", \"gpu\": \"%s\", \"sms\": %d, \"threads\": %d, \"ctas_per_sm\": %d, \"after_first_cycles\": [",
                prop.name, sms, s.threads, s.per_sm);
    int max_k = 0;
    for (auto& v : by_sm) { std::sort(v.begin(), v.end()); max_k = std::max<int>(max_k, static_cast<int>(v.size())); }
    for (int k = 0; k < max_k; ++k) {
      std::vector<long long> gaps;
      for (auto& v : by_sm)
        if (static_cast<int>(v.size()) > k) gaps.push_back(static_cast<long long>(v[k] - v[0]));
      std::sort(gaps.begin(), gaps.end());
      std::printf("%s%lld", k ? ", " : "", gaps.empty() ? -1 : gaps[gaps.size() / 2]);
    }
    std::vector<unsigned long long> f(first_ns);
    std::sort(f.begin(), f.end());
    std::printf("], \"ctas_on_sm_min_max\": [%zu, %zu], \"first_start_ns_median_max\": [%llu, %llu], \"sm_of_cta_0_15\": [",
                std::min_element(by_sm.begin(), by_sm.end(), [](auto& a, auto& b) { return a.size() < b.size(); })->size(),
                std::max_element(by_sm.begin(), by_sm.end(), [](auto& a, auto& b) { return a.size() < b.size(); })->size(),
                f[f.size() / 2] - ns0, f.back() - ns0);
    for (int i = 0; i < 16 && i < grid; ++i) std::printf("%s%u", i ? ", " : "", h[i].sm);
    std::printf("]}\n");
  }
}

// ---- 2. serial walks
template <class T>
__global__ void walk(const T* a, int n, T above, int* found, long long* cycles) {
  const long long t0 = clock64();
  int idx = -1;
  for (int x = 0; x < n; ++x) {
    if (a[x] >= above) {
      idx = x;
      break;
    }
  }
  const long long t1 = clock64();
  if (threadIdx.x == 0) {
    found[0] = idx;
    cycles[0] = t1 - t0;
  }
}

template <class T>
__global__ void fill(T* a, size_t n) {
  for (size_t i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += static_cast<size_t>(gridDim.x) * blockDim.x) a[i] = static_cast<T>(i % 1000);
}

template <class T>
__global__ void touch(const T* a, size_t n, T* sink) {
  T s = 0;
  for (size_t i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += static_cast<size_t>(gridDim.x) * blockDim.x) s += a[i];
  if (s == static_cast<T>(-1)) sink[0] = s;
}

// Walks `steps` elements spaced `stride_bytes` apart: the element type is the step when the
// stride is 4 or 8 B; wider strides read one double every stride (an array of structs).
template <int kBytes>
struct Padded { double v; char pad[kBytes - sizeof(double)]; __host__ __device__ bool operator>=(const Padded& o) const { return v >= o.v; } };

template <class T>
static void walk_case(const cudaDeviceProp& prop, const char* name, int stride_bytes, const L2Flush& flush) {
  const int steps = 4096;
  T* a = nullptr;
  int* found = nullptr;
  long long* cycles = nullptr;
  cudaMalloc(&a, static_cast<size_t>(steps) * sizeof(T));
  cudaMemset(a, 0, static_cast<size_t>(steps) * sizeof(T));
  cudaMalloc(&found, sizeof(int));
  cudaMalloc(&cycles, sizeof(long long));
  T above;  // never reached: the walk runs all steps
  std::memset(&above, 0, sizeof above);
  if constexpr (sizeof(T) == 4) above = static_cast<T>(1e30f);
  else reinterpret_cast<double*>(&above)[0] = 1e30;
  for (int resident_l2 : {1, 0}) {
    long long best = 1LL << 62;
    for (int r = 0; r < 5; ++r) {
      flush();
      if (resident_l2) walk<T><<<1, 32>>>(a, steps, above, found, cycles);  // brings it into L2 (L1 does not outlive the launch)
      cudaDeviceSynchronize();
      walk<T><<<1, 32>>>(a, steps, above, found, cycles);
      long long c = 0;
      cudaMemcpy(&c, cycles, sizeof c, cudaMemcpyDeviceToHost);
      best = std::min(best, c);
    }
    std::printf("{\"probe\": \"serial_walk\", \"gpu\": \"%s\", \"element\": \"%s\", \"stride_bytes\": %d, \"steps\": %d, \"data\": \"%s\", "
                "\"cycles_per_step\": %.2f, \"cycles_per_sector\": %.2f}\n",
                prop.name, name, stride_bytes, steps, resident_l2 ? "l2" : "dram", double(best) / steps,
                double(best) / steps * std::max(1.0, 32.0 / stride_bytes));
  }
  cudaFree(a);
  cudaFree(found);
  cudaFree(cycles);
}

// ---- 3. one-sector requests over many lines
__global__ void gather_cg(const float* __restrict__ a, unsigned mask, unsigned stride, int iters, float* sink) {
  const unsigned tid = blockIdx.x * blockDim.x + threadIdx.x, warp = tid >> 5, lane = tid & 31;
  float s = 0;
#pragma unroll 8
  for (int i = 0; i < iters; ++i) {
    const unsigned base = (warp * static_cast<unsigned>(iters) + static_cast<unsigned>(i)) * 32u * stride;
    s += __ldcg(&a[(base + lane * stride) & mask]);
  }
  if (s == 1234.5f) sink[0] = s;
}

static void gather_rates(const cudaDeviceProp& prop, float* sink) {
  const size_t words = static_cast<size_t>(4) << 20;  // 16 MiB
  float* a = nullptr;
  cudaMalloc(&a, words * 4);
  fill<float><<<prop.multiProcessorCount * 4, 512>>>(a, words);
  const int ctas = prop.multiProcessorCount * 8, threads = 256, iters = 256;
  const double warps = double(ctas) * threads / 32;
  for (unsigned stride : {1u, 2u, 4u, 8u, 16u, 32u}) {
    for (int w = 0; w < 3; ++w) gather_cg<<<ctas, threads>>>(a, static_cast<unsigned>(words - 1), stride, iters, sink);
    cudaDeviceSynchronize();
    const LaunchTimes t = time_launches(10, [&](int) { gather_cg<<<ctas, threads>>>(a, static_cast<unsigned>(words - 1), stride, iters, sink); });
    const double sectors_per_request = stride >= 8 ? 32 : 4.0 * stride, lines_per_request = std::max(1.0, 32.0 * stride / 32.0);
    int khz = 0;
    cudaDeviceGetAttribute(&khz, cudaDevAttrClockRate, 0);
    const double requests = warps * iters, ns = t.best_ms * 1e6, sm_cycles = ns * khz * 1e-6;
    std::printf("{\"probe\": \"l2_gather\", \"gpu\": \"%s\", \"stride_words\": %u, \"sectors_per_request\": %.0f, \"lines_per_request\": %.0f, "
                "\"requests\": %.0f, \"best_us\": %.3f, \"sectors_per_ns\": %.2f, \"lines_per_ns\": %.2f, \"sectors_per_sm_cycle_gpu\": %.2f}\n",
                prop.name, stride, sectors_per_request, lines_per_request, requests, t.best_ms * 1e3, requests * sectors_per_request / ns,
                requests * lines_per_request / ns, requests * sectors_per_request / sm_cycles);
  }
  cudaFree(a);
}

int main() {
  cudaDeviceProp prop;
  cudaGetDeviceProperties(&prop, 0);
  float* sink = nullptr;
  cudaMalloc(&sink, sizeof(float));
  dispatch_order(prop);
  const L2Flush flush(prop, sink);
  walk_case<float>(prop, "float", 4, flush);
  walk_case<double>(prop, "double", 8, flush);
  walk_case<Padded<16>>(prop, "double in 16 B", 16, flush);
  walk_case<Padded<32>>(prop, "double in 32 B", 32, flush);
  walk_case<Padded<64>>(prop, "double in 64 B", 64, flush);
  walk_case<Padded<128>>(prop, "double in 128 B", 128, flush);
  gather_rates(prop, sink);
  const cudaError_t err = cudaGetLastError();
  if (err != cudaSuccess) {
    std::fprintf(stderr, "dispatch_walk_probe: %s\n", cudaGetErrorString(err));
    return 1;
  }
  return 0;
}
