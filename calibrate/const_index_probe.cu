// What an indexed constant load (LDC R, c[0x3][R+imm]) costs by the distinct words a warp's
// lanes read (a probe outside the table groups). Code that keeps a lookup table or a set of bin
// edges in __constant__ memory and indexes it per thread (a binary search over bins, a per-lane
// coefficient) sends the warp's distinct words to the SM's constant unit one at a time;
// microbench.cu's thr_const measured 1, 2, 4 and 32 words at full load, this probe fills the
// curve, times the dependent chain (latency) beside the rate, and gives launches to trace and
// predict whole.
//
// Lane l of a warp reads word (l & mask) * spread of a 128-word block (mask + 1 distinct words;
// mask 0: a broadcast the compiler cannot prove uniform, so it stays an LDC); every word of a
// block points to the same word of the next block, so a lane's chain stays on its word.
//   rate    one CTA of 32 warps on every SM, each thread 8 independent chains: SM cycles per
//           warp load (clock64 around the loop, median over the CTAs)
//   chain   one warp on one SM, one chain: cycles per load (latency)
//   app     each rate kernel once as a kernel of its own, for Nsight Compute, the tracer and
//           gpuperf (words 1, 2, 4, 8, 16, 32)
//
//   nvcc -O3 -arch=sm_90 -o const_index_probe const_index_probe.cu
//   ./const_index_probe rate|chain|app
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "cuda_check.cuh"

constexpr int kBlockWords = 128;
constexpr int kBlocks = 32;  // 16 KiB of constant words
constexpr int kChain = 64;   // loads per chain an iteration (unrolled)
__constant__ unsigned cnext[kBlocks * kBlockWords];

template <int CHAINS>
__global__ void const_rate(long long* cycles, unsigned* sink, unsigned mask, int iters) {
  const unsigned off = threadIdx.x & mask;
  unsigned p[CHAINS];
#pragma unroll
  for (int c = 0; c < CHAINS; ++c) p[c] = (unsigned)c * kBlockWords + off;
  __syncthreads();
  const long long t0 = clock64();
  for (int it = 0; it < iters; ++it) {
#pragma unroll
    for (int i = 0; i < kChain; ++i) {
#pragma unroll
      for (int c = 0; c < CHAINS; ++c) p[c] = cnext[p[c]];
    }
  }
  __syncthreads();
  const long long t1 = clock64();
  if (threadIdx.x == 0) cycles[blockIdx.x] = t1 - t0;
  unsigned s = 0;
#pragma unroll
  for (int c = 0; c < CHAINS; ++c) s += p[c];
  sink[blockIdx.x * blockDim.x + threadIdx.x] = s;
}

static int fill_table() {
  std::vector<unsigned> h(kBlocks * kBlockWords);
  for (int b = 0; b < kBlocks; ++b)
    for (int w = 0; w < kBlockWords; ++w) h[b * kBlockWords + w] = ((b + 1) % kBlocks) * kBlockWords + w;
  CK(cudaMemcpyToSymbol(cnext, h.data(), h.size() * sizeof(unsigned)));
  return 0;
}

int main(int argc, char** argv) {
  const std::string mode = argc > 1 ? argv[1] : "rate";
  if (mode != "rate" && mode != "chain" && mode != "app") {
    std::fprintf(stderr, "usage: %s rate|chain|app\n", argv[0]);
    return 2;
  }
  cudaDeviceProp prop;
  CK(cudaGetDeviceProperties(&prop, 0));
  const int sms = prop.multiProcessorCount;
  if (fill_table()) return 1;
  long long* cycles;
  unsigned* sink;
  CK(cudaMalloc(&cycles, sizeof(long long) * sms));
  CK(cudaMalloc(&sink, sizeof(unsigned) * sms * 1024));
  const unsigned words[] = {1, 2, 4, 8, 16, 32};
  for (unsigned n : words) {
    const unsigned mask = n - 1;
    if (mode == "app") {
      // One launch a pattern: a CTA of 32 warps on every SM, 4 iterations (2,048 loads a thread).
      const_rate<8><<<sms, 1024>>>(cycles, sink, mask, 4);
      CK(cudaGetLastError());
      CK(cudaDeviceSynchronize());
      std::printf("app words=%u launched\n", n);
      continue;
    }
    const bool chain = mode == "chain";
    const int iters = chain ? 32 : 16;
    auto launch = [&] {
      if (chain) const_rate<1><<<1, 32>>>(cycles, sink, mask, iters);
      else const_rate<8><<<sms, 1024>>>(cycles, sink, mask, iters);
    };
    launch();  // warm the constant caches
    CK(cudaDeviceSynchronize());
    launch();
    CK(cudaGetLastError());
    CK(cudaDeviceSynchronize());
    const int ctas = chain ? 1 : sms;
    std::vector<long long> c(ctas);
    CK(cudaMemcpy(c.data(), cycles, sizeof(long long) * ctas, cudaMemcpyDeviceToHost));
    std::sort(c.begin(), c.end());
    const double loads = chain ? double(iters) * kChain : 32.0 * 8 * iters * kChain;  // warp loads a CTA
    std::printf("%s words=%u cycles_per_warp_load=%.3f\n", mode.c_str(), n, double(c[ctas / 2]) / loads);
  }
  CK(cudaFree(cycles));
  CK(cudaFree(sink));
  return 0;
}
