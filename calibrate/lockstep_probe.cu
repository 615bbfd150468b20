// Probe (not a table group): do a tree scan's small CTAs run their levels in lock step?
// calibrate/shared_burst_probe.cu found 16 CTAs of 2 warps per SM take 145 cycles a level where
// the simulation, which lets one CTA's latency run under another's shared-memory burst, takes
// 110. Here every CTA runs the same levels (two LDS.U8, an add, an STS.U8, __syncthreads) and
// thread 0 records clock64 after the barrier of levels kFirst .. kFirst + kKept - 1, with its
// SM. Per SM and level: the spread (max - min) of its CTAs' times, over the level's period;
// about 0 means the CTAs pass each barrier together, about 1 - 1/CTAs that they are spread
// evenly over the period. Medians over SMs and levels, as JSON lines.
//
//   nvcc -O3 -arch=sm_90 -o lockstep_probe calibrate/lockstep_probe.cu && ./lockstep_probe
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <vector>

constexpr int kLevels = 2048, kFirst = 1024, kKept = 64;

__device__ __forceinline__ unsigned smid() {
  unsigned r;
  asm volatile("mov.u32 %0, %%smid;" : "=r"(r));
  return r;
}

__global__ void levels_kernel(unsigned long long* stamps, unsigned* sms, unsigned char* sink) {
  __shared__ unsigned char s[2048];
  const int t = threadIdx.x, n = blockDim.x;
  for (int i = t; i < 2048; i += n) s[i] = static_cast<unsigned char>(i);
  __syncthreads();
  unsigned char acc = 0;
  for (int l = 0; l < kLevels; ++l) {
    const int a = (t + l) & (n - 1), b = (t + l + 7) & (n - 1);
    const unsigned char x = static_cast<unsigned char>(s[a] + s[b]);
    s[(t + 1) & (n - 1)] = x;
    acc += x;
    __syncthreads();
    if (t == 0 && l >= kFirst && l < kFirst + kKept) stamps[static_cast<size_t>(blockIdx.x) * kKept + (l - kFirst)] = clock64();
  }
  if (t == 0) sms[blockIdx.x] = smid();
  if (acc == 123) sink[t] = acc;
}

static void run(int threads, int ctas_per_sm, int sm_count, const char* gpu) {
  const int grid = ctas_per_sm * sm_count;
  unsigned long long* d_stamps;
  unsigned* d_sms;
  unsigned char* sink;
  cudaMalloc(&d_stamps, static_cast<size_t>(grid) * kKept * sizeof(unsigned long long));
  cudaMalloc(&d_sms, grid * sizeof(unsigned));
  cudaMalloc(&sink, 1024);
  levels_kernel<<<grid, threads>>>(d_stamps, d_sms, sink);  // warm-up
  levels_kernel<<<grid, threads>>>(d_stamps, d_sms, sink);
  cudaDeviceSynchronize();
  std::vector<unsigned long long> stamps(static_cast<size_t>(grid) * kKept);
  std::vector<unsigned> sm(grid);
  cudaMemcpy(stamps.data(), d_stamps, stamps.size() * sizeof(unsigned long long), cudaMemcpyDeviceToHost);
  cudaMemcpy(sm.data(), d_sms, sm.size() * sizeof(unsigned), cudaMemcpyDeviceToHost);
  std::vector<std::vector<int>> ctas_of(sm_count);
  for (int c = 0; c < grid; ++c)
    if (sm[c] < static_cast<unsigned>(sm_count)) ctas_of[sm[c]].push_back(c);
  std::vector<double> spreads, periods;
  for (const auto& ctas : ctas_of) {
    if (ctas.size() < 2) continue;
    for (int l = 0; l + 1 < kKept; ++l) {
      unsigned long long lo = ~0ull, hi = 0;
      double period = 0;
      for (int c : ctas) {
        const unsigned long long x = stamps[static_cast<size_t>(c) * kKept + l];
        lo = std::min(lo, x);
        hi = std::max(hi, x);
        period += double(stamps[static_cast<size_t>(c) * kKept + l + 1] - x);
      }
      period /= ctas.size();
      spreads.push_back(double(hi - lo));
      periods.push_back(period);
    }
  }
  auto median = [](std::vector<double> v) { std::sort(v.begin(), v.end()); return v.empty() ? 0.0 : v[v.size() / 2]; };
  const double spread = median(spreads), period = median(periods);
  size_t most = 0, least = ~size_t(0);
  for (const auto& c : ctas_of) { most = std::max(most, c.size()); least = std::min(least, c.size()); }
  std::printf("{\"probe\": \"lockstep\", \"gpu\": \"%s\", \"threads\": %d, \"ctas_per_sm\": %d, \"ctas_on_sm_min_max\": [%zu, %zu], "
              "\"cycles_per_level\": %.1f, \"spread_cycles\": %.1f, \"spread_over_period\": %.3f, \"even_spread_would_be\": %.3f}\n",
              gpu, threads, ctas_per_sm, least, most, period, spread, period > 0 ? spread / period : 0.0, 1.0 - 1.0 / ctas_per_sm);
  cudaFree(d_stamps);
  cudaFree(d_sms);
  cudaFree(sink);
}

int main() {
  cudaDeviceProp prop;
  cudaGetDeviceProperties(&prop, 0);
  struct Shape { int threads, per_sm; };
  for (Shape s : {Shape{64, 16}, Shape{64, 8}, Shape{64, 4}, Shape{128, 8}, Shape{256, 4}}) run(s.threads, s.per_sm, prop.multiProcessorCount, prop.name);
  const cudaError_t err = cudaGetLastError();
  if (err != cudaSuccess) {
    std::fprintf(stderr, "lockstep_probe: %s\n", cudaGetErrorString(err));
    return 1;
  }
  return 0;
}
