// What an indexed constant load (LDC R, c[0x3][R+imm]) costs by the distinct words a warp's
// lanes read (a probe outside the table groups). Code that keeps a lookup table or a set of bin
// edges in __constant__ memory and indexes it per thread (a binary search over bins, a per-lane
// coefficient) sends the warp's distinct words to the SM's constant unit one at a time;
// microbench.cu's thr_const measured 1, 2, 4 and 32 words at full load, this probe fills the
// curve, times the dependent chain (latency) beside the rate, and gives launches to trace and
// predict whole.
//
// Lane l of a warp reads word (l & mask) of a block (mask + 1 distinct words; mask 0: a
// broadcast the compiler cannot prove uniform, so it stays an LDC); every word of a block points
// to the same word of the next block, so a lane's chain stays on its word; chain c starts at
// block c (c x blocks/32 in tables of 64 blocks or more). Blocks are 512 B apart in a 16 KiB table by default (every block's
// line in one set of a 4-way 2 KiB constant L1); `block_bytes` and `table_kib` change that
// (64 B blocks: consecutive lines, no set shared by more of a warp's chains than it holds).
//   rate    one CTA of 32 warps on every SM, each thread 8 independent chains: SM cycles per
//           warp load (clock64 around the loop, median over the CTAs)
//   chain   one warp on one SM, one chain: cycles per load (latency)
//   app     each rate kernel once as a kernel of its own, for Nsight Compute, the tracer and
//           gpuperf (words 1, 2, 4, 8, 16, 32)
//
//   nvcc -O3 -arch=sm_90 -o const_index_probe const_index_probe.cu
//   ./const_index_probe rate|chain|app [block_bytes=512] [table_kib=16]
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "cuda_check.cuh"

constexpr int kTableWords = 4096;  // 16 KiB of constant words at most
constexpr int kChain = 64;         // loads per chain an iteration (unrolled)
__constant__ unsigned cnext[kTableWords];

template <int CHAINS>
__global__ void const_rate(long long* cycles, unsigned* sink, unsigned mask, int iters, unsigned block_words, unsigned blocks) {
  const unsigned off = threadIdx.x & mask;
  unsigned p[CHAINS];
#pragma unroll
  for (int c = 0; c < CHAINS; ++c) p[c] = (unsigned)c * (blocks >= 64 ? blocks / 32 : 1) * block_words + off;
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

static int fill_table(unsigned block_words, unsigned blocks) {
  std::vector<unsigned> h(kTableWords, 0);
  for (unsigned b = 0; b < blocks; ++b)
    for (unsigned w = 0; w < block_words; ++w) h[b * block_words + w] = ((b + 1) % blocks) * block_words + w;
  CK(cudaMemcpyToSymbol(cnext, h.data(), h.size() * sizeof(unsigned)));
  return 0;
}

int main(int argc, char** argv) {
  const std::string mode = argc > 1 ? argv[1] : "rate";
  if (mode != "rate" && mode != "chain" && mode != "app") {
    std::fprintf(stderr, "usage: %s rate|chain|app [block_bytes=512] [table_kib=16]\n", argv[0]);
    return 2;
  }
  const unsigned block_bytes = argc > 2 ? unsigned(std::atoi(argv[2])) : 512, table_kib = argc > 3 ? unsigned(std::atoi(argv[3])) : 16;
  const unsigned block_words = block_bytes / 4, blocks = block_words ? table_kib * 256 / block_words : 0;
  if (block_words < 32 && block_bytes != 64) {
    std::fprintf(stderr, "block_bytes must be 64 (words up to 16) or at least 128\n");
    return 2;
  }
  if (blocks < 8 || blocks * block_words > kTableWords) {
    std::fprintf(stderr, "the table must hold 8 blocks and at most 16 KiB\n");
    return 2;
  }
  cudaDeviceProp prop;
  CK(cudaGetDeviceProperties(&prop, 0));
  const int sms = prop.multiProcessorCount;
  if (fill_table(block_words, blocks)) return 1;
  long long* cycles;
  unsigned* sink;
  CK(cudaMalloc(&cycles, sizeof(long long) * sms));
  CK(cudaMalloc(&sink, sizeof(unsigned) * sms * 1024));
  const unsigned words[] = {1, 2, 4, 8, 16, 32};
  for (unsigned n : words) {
    if (n > block_words) continue;
    const unsigned mask = n - 1;
    if (mode == "app") {
      // One launch a pattern: a CTA of 32 warps on every SM, 4 iterations (2,048 loads a thread).
      const_rate<8><<<sms, 1024>>>(cycles, sink, mask, 4, block_words, blocks);
      CK(cudaGetLastError());
      CK(cudaDeviceSynchronize());
      std::printf("app words=%u launched\n", n);
      continue;
    }
    const bool chain = mode == "chain";
    const int iters = chain ? 32 : 16;
    auto launch = [&] {
      if (chain) const_rate<1><<<1, 32>>>(cycles, sink, mask, iters, block_words, blocks);
      else const_rate<8><<<sms, 1024>>>(cycles, sink, mask, iters, block_words, blocks);
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
    std::printf("%s block_bytes=%u table_kib=%u words=%u cycles_per_warp_load=%.3f\n", mode.c_str(), block_bytes, table_kib, n,
                double(c[ctas / 2]) / loads);
  }
  CK(cudaFree(cycles));
  CK(cudaFree(sink));
  return 0;
}
