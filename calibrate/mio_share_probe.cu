// Whether warp shuffles, special-function instructions, indexed constant loads and global loads
// share the SM's shared-memory pipe or each other's (a probe outside the table groups). One CTA
// of 32 warps on every SM; each warp runs `iters` iterations of independent shared loads (LDS,
// conflict-free), shuffles (SHFL.IDX), MUFU.EX2, constant loads whose register index every lane
// shares (LDC c[0x3][R], a 1 KiB table the constant L1 holds), coalesced global loads that hit
// in L1 (LDG.E, 5 KiB; LDG.E.CONSTANT from __ldg, another 5 KiB), or mixes of them: eight
// chains of each kind a warp (four of one kind in ldc8+ldg4 and ldc4+ldg8), so that throughput,
// not latency, bounds them. Then a sweep of constant-load and global-load chains a warp, the
// global loads L1 hits or (ldcg) loads past L1 that L2 holds.
// Prints SM cycles per iteration (clock64 around the loop, median over the CTAs, the best of
// three launches, min and max over the CTAs): if a mix takes the sum of its kinds' times alone,
// they queue for one pipe; if the larger, they have a pipe each.
//   nvcc -O3 -arch=sm_90 -o mio_share_probe mio_share_probe.cu && ./mio_share_probe
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdio>
#include <vector>

#include "cuda_check.cuh"

enum Mix { kLds8, kShfl8, kMufu8, kLds8Shfl8, kLds8Mufu8, kShfl8Mufu8, kLdc8, kLdg8, kLdc8Ldg8, kLdc8Lds8, kLdg8Lds8, kLdg8Shfl8, kNc8, kNc8Lds8, kNc8Ldg8, kLdc8Ldg4, kLdc4Ldg8, kLdc8Nc8, kMixes };
static const char* const kMixNames[kMixes] = {"lds8",  "shfl8",     "mufu8",     "lds8+shfl8", "lds8+mufu8", "shfl8+mufu8",
                                              "ldc8",  "ldg8",      "ldc8+ldg8", "ldc8+lds8",  "ldg8+lds8",  "ldg8+shfl8",
                                              "nc8",   "nc8+lds8",  "nc8+ldg8",  "ldc8+ldg4",  "ldc4+ldg8",  "ldc8+nc8"};

__constant__ float const_table[256];

template <int M>
__global__ void mix_kernel(float* out, long long* cycles, int iters, const float* global_table, const float* __restrict__ nc_table, const int* zeros) {
  __shared__ float h[1024 + 256];
  for (int i = threadIdx.x; i < 1024 + 256; i += blockDim.x) h[i] = float(i);
  const unsigned lane = threadIdx.x & 31;
  constexpr bool lds = M == kLds8 || M == kLds8Shfl8 || M == kLds8Mufu8 || M == kLdc8Lds8 || M == kLdg8Lds8 || M == kNc8Lds8;
  constexpr bool shfl = M == kShfl8 || M == kLds8Shfl8 || M == kShfl8Mufu8 || M == kLdg8Shfl8;
  constexpr bool mufu = M == kMufu8 || M == kLds8Mufu8 || M == kShfl8Mufu8;
  constexpr bool ldc = M == kLdc8 || M == kLdc8Ldg8 || M == kLdc8Lds8 || M == kLdc8Ldg4 || M == kLdc4Ldg8 || M == kLdc8Nc8;
  constexpr bool ldg = M == kLdg8 || M == kLdc8Ldg8 || M == kLdg8Lds8 || M == kLdg8Shfl8 || M == kNc8Ldg8 || M == kLdc8Ldg4 ||
                       M == kLdc4Ldg8;
  constexpr bool nc = M == kNc8 || M == kNc8Lds8 || M == kNc8Ldg8 || M == kLdc8Nc8;
  constexpr int ldc_chains = M == kLdc4Ldg8 ? 4 : 8, ldg_chains = M == kLdc8Ldg4 ? 4 : 8;  // the rest 8
  // A zero read from memory: the constant index is in a register the compiler cannot prove
  // uniform (LDC c[0x3][R], as a loop over a __constant__ array compiles), not a ULDC.
  const int base = zeros[threadIdx.x];
  float a[8], s[8], m[8], c[8], g[8], n[8];
#pragma unroll
  for (int j = 0; j < 8; ++j) { a[j] = 0; s[j] = float(lane + j); m[j] = 0.001f * (lane + j); c[j] = 0; g[j] = 0; n[j] = 0; }
  __syncthreads();
  const long long t0 = clock64();
#pragma unroll 1
  for (int i = 0; i < iters; ++i) {
#pragma unroll
    for (int j = 0; j < 8; ++j) {
      if (lds) a[j] += static_cast<volatile float*>(h)[lane + 32 * j + (i & 7)];
      if (shfl) s[j] = __shfl_sync(0xffffffffu, s[j], (lane + j + 1) & 31);
      if (mufu) m[j] = exp2f(m[j]) * 0.5f;
      if (ldc && j < ldc_chains) c[j] += const_table[(base + 32 * j + (i & 31)) & 255];
      if (ldg && j < ldg_chains) g[j] += global_table[lane + 32 * j + (i & 7) * 128];
      if (nc) n[j] += __ldg(nc_table + lane + 32 * j + (i & 7) * 128);
    }
  }
  __syncthreads();
  const long long t1 = clock64();
  if (threadIdx.x == 0) cycles[blockIdx.x] = t1 - t0;
  float r = 0;
#pragma unroll
  for (int j = 0; j < 8; ++j) r += a[j] + s[j] + m[j] + c[j] + g[j] + n[j];
  if (r == 1234.5f) out[0] = r;
}

// The sweep: C constant-load chains and G global-load chains a warp (0-8 each), the global loads
// L1 hits (LDG.E) or, with kPastL1, loads past L1 that L2 holds (__ldcg, LDG.E.STRONG.GPU).
template <int C, int G, bool kPastL1>
__global__ void sweep_kernel(float* out, long long* cycles, int iters, const float* global_table, const int* zeros) {
  const unsigned lane = threadIdx.x & 31;
  const int base = zeros[threadIdx.x];
  float c[8], g[8];
#pragma unroll
  for (int j = 0; j < 8; ++j) { c[j] = 0; g[j] = 0; }
  __syncthreads();
  const long long t0 = clock64();
#pragma unroll 1
  for (int i = 0; i < iters; ++i) {
#pragma unroll
    for (int j = 0; j < 8; ++j) {
      if (j < C) c[j] += const_table[(base + 32 * j + (i & 31)) & 255];
      if (j < G) {
        const float* a = global_table + lane + 32 * j + (i & 7) * 128;
        g[j] += kPastL1 ? __ldcg(a) : *a;
      }
    }
  }
  __syncthreads();
  const long long t1 = clock64();
  if (threadIdx.x == 0) cycles[blockIdx.x] = t1 - t0;
  float r = 0;
#pragma unroll
  for (int j = 0; j < 8; ++j) r += c[j] + g[j];
  if (r == 1234.5f) out[0] = r;
}

template <int C, int G, bool kPastL1>
void run_sweep(int sms, float* o, long long* c, int iters, const float* g, const int* z) {
  sweep_kernel<C, G, kPastL1><<<sms, 1024>>>(o, c, iters, g, z);
}

template <int M>
void launch(int sms, float* o, long long* c, int iters, const float* g, const int* z) { mix_kernel<M><<<sms, 1024>>>(o, c, iters, g, g + 1280, z); }

using Launch = void (*)(int, float*, long long*, int, const float*, const int*);

// SM cycles per iteration of one launcher's kernel, every SM running one CTA: a warm-up launch,
// then the best of three by the median over the CTAs, with that launch's least and most. Returns
// 1 on a CUDA error (CK), 0 otherwise.
struct Timing {
  double median = 1e30, least = 0, most = 0;
};
int time_per_iteration(Launch run, int sms, float* out, long long* cycles, int iters, const float* global_table, const int* zeros,
                       std::vector<long long>& host, Timing& t) {
  run(sms, out, cycles, 8, global_table, zeros);
  t = Timing{};
  for (int r = 0; r < 3; ++r) {
    run(sms, out, cycles, iters, global_table, zeros);
    CK(cudaGetLastError());
    CK(cudaDeviceSynchronize());
    CK(cudaMemcpy(host.data(), cycles, sizeof(long long) * sms, cudaMemcpyDeviceToHost));
    std::sort(host.begin(), host.end());
    const double med = double(host[sms / 2]) / iters;
    if (med < t.median) t = {med, double(host.front()) / iters, double(host.back()) / iters};
  }
  return 0;
}

int main() {
  cudaDeviceProp prop;
  CK(cudaGetDeviceProperties(&prop, 0));
  const int sms = prop.multiProcessorCount, iters = 512;
  float* out;
  long long* cycles;
  CK(cudaMalloc(&out, 4));
  CK(cudaMalloc(&cycles, sizeof(long long) * sms));
  float* global_table;
  int* zeros;
  CK(cudaMalloc(&global_table, sizeof(float) * 2560));  // the plain loads' 5 KiB, then the nc loads'
  CK(cudaMemset(global_table, 0, sizeof(float) * 2560));
  CK(cudaMalloc(&zeros, sizeof(int) * 1024));
  CK(cudaMemset(zeros, 0, sizeof(int) * 1024));
  std::vector<float> table(256);
  for (int i = 0; i < 256; ++i) table[i] = 0.001f * i;
  CK(cudaMemcpyToSymbol(const_table, table.data(), sizeof(float) * 256));
  const Launch kernels[kMixes] = {
      launch<kLds8>, launch<kShfl8>, launch<kMufu8>,    launch<kLds8Shfl8>, launch<kLds8Mufu8>, launch<kShfl8Mufu8>,
      launch<kLdc8>, launch<kLdg8>,  launch<kLdc8Ldg8>, launch<kLdc8Lds8>,  launch<kLdg8Lds8>, launch<kLdg8Shfl8>,
      launch<kNc8>,  launch<kNc8Lds8>, launch<kNc8Ldg8>, launch<kLdc8Ldg4>, launch<kLdc4Ldg8>, launch<kLdc8Nc8>};
  std::vector<long long> host(sms);
  std::printf("mix sm_cycles_per_iteration (32 warps an SM, 8 of each kind a warp an iteration) min max\n");
  for (int m = 0; m < kMixes; ++m) {
    Timing t;
    if (time_per_iteration(kernels[m], sms, out, cycles, iters, global_table, zeros, host, t)) return 1;
    std::printf("%s %.2f %.2f %.2f\n", kMixNames[m], t.median, t.least, t.most);
  }
  // The sweep (32 warps an SM): C LDC and G LDG chains a warp.
  struct SweepCase {
    const char* name;
    Launch run;
  };
  const SweepCase sweep[] = {
      {"ldc1+ldg8", run_sweep<1, 8, false>},       {"ldc2+ldg8", run_sweep<2, 8, false>},
      {"ldc4+ldg8", run_sweep<4, 8, false>},       {"ldc8+ldg8", run_sweep<8, 8, false>},
      {"ldc8+ldg1", run_sweep<8, 1, false>},       {"ldc8+ldg2", run_sweep<8, 2, false>},
      {"ldc8+ldg4", run_sweep<8, 4, false>},       {"ldc2+ldg2", run_sweep<2, 2, false>},
      {"ldc4+ldg4", run_sweep<4, 4, false>},       {"ldc0+ldg8 (ldcg)", run_sweep<0, 8, true>},
      {"ldc2+ldg8 (ldcg)", run_sweep<2, 8, true>}, {"ldc4+ldg8 (ldcg)", run_sweep<4, 8, true>},
      {"ldc8+ldg8 (ldcg)", run_sweep<8, 8, true>}, {"ldc8+ldg4 (ldcg)", run_sweep<8, 4, true>},
      {"ldc8+ldg2 (ldcg)", run_sweep<8, 2, true>}};
  for (const SweepCase& c : sweep) {
    Timing t;
    if (time_per_iteration(c.run, sms, out, cycles, iters, global_table, zeros, host, t)) return 1;
    std::printf("sweep %s %.2f %.2f %.2f\n", c.name, t.median, t.least, t.most);
  }
  return 0;
}
