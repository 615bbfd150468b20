// Whether a line that every SM loads at the same moment waits longer than a line of its own
// (HeCBench attention-warp's attention_kernel2 and simpleSpmv's mv_dense: each step every warp of
// every CTA reads the same coalesced line of a vector, then a gather of 32 rows; both 0.67-0.72x
// from traces on the train part, where the gather alone measured what the model predicts:
// stride_gather_probe). One CTA of W warps on each of C SMs walks a chain, one step a line:
//   hot       every CTA reads the same new line a step (each lane its own word)
//   private   each CTA reads a new line of its own region a step
//   +gather   then each lane reads one word of its own row (rows 4 KiB apart, 32 new rows a step;
//             the CTA's warps share the sector, as attention_kernel2's columns do), after the line.
//             gather 1: the next step's line does not wait for it (ptxas overlaps the two, see
//             README); gather 2: the next line's address adds the gathered word, so each step
//             waits for the line and then the gather, as attention_kernel2's in-order issue does
// Cold: L2 flushed before the launch (first touches, DRAM); warm: the same launch run once
// before (the lines in L2; L1 does not keep them across launches). The next address adds the
// word just loaded (0), so each step waits for the last. Prints mean and slowest warp's cycles
// a step.
//   nvcc -O3 -arch=sm_90 -o hot_line_probe hot_line_probe.cu && ./hot_line_probe [GATHER]
// (GATHER: run only that gather mode, 0, 1 or 2; all three without it)
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "cuda_check.cuh"
#include "l2_flush.cuh"

constexpr int kSteps = 256;
constexpr size_t kRowWords = 1024;                    // 4 KiB rows, as attention_kernel2's value matrix
constexpr size_t kRegionWords = kSteps * 32 + 1024;  // one CTA's private lines

__global__ void walk(const unsigned* __restrict__ lines, const unsigned* __restrict__ rows, int private_lines, int gather,
                     unsigned long long* cycles, unsigned* sink) {
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5, cta = blockIdx.x;
  const unsigned* line = lines + (private_lines ? static_cast<size_t>(cta) * kRegionWords : 0) + lane;
  const unsigned* row = rows + lane * kRowWords + (static_cast<size_t>(cta) * 8 + warp) % kRowWords;
  size_t at = 0, g = 0;
  unsigned acc = 0;
  __syncthreads();
  const long long t0 = clock64();
  for (int s = 0; s < kSteps; ++s) {
    const unsigned v = __ldg(line + at);
    acc += v;
    at += 32 + v;
    if (gather) {
      const unsigned u = __ldg(row + g + v);
      acc += u;
      g += 32 * kRowWords + u;
      if (gather == 2) at += u;  // the rows hold zeros: the address is unchanged, the wait is not
    }
  }
  const long long t1 = clock64();
  if (lane == 0) cycles[cta * 32 + warp] = static_cast<unsigned long long>(t1 - t0);
  if (acc == 0xdeadbeef) *sink = acc;
}

int main(int argc, char** argv) {
  const int only_gather = argc > 1 ? atoi(argv[1]) : -1;
  int sms = 0, clock_khz = 0;
  CK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
  CK(cudaDeviceGetAttribute(&clock_khz, cudaDevAttrClockRate, 0));
  cudaDeviceProp prop;
  CK(cudaGetDeviceProperties(&prop, 0));
  printf("# %s, sms %d, clock %d MHz, %d steps\n", prop.name, sms, clock_khz / 1000, kSteps);
  const size_t line_bytes = kRegionWords * 4 * sms;
  const size_t row_bytes = static_cast<size_t>(kSteps) * 32 * kRowWords * 4 + 4096;
  unsigned *lines, *rows, *sink;
  unsigned long long* cycles;
  CK(cudaMalloc(&lines, line_bytes));
  CK(cudaMalloc(&rows, row_bytes));
  CK(cudaMalloc(&cycles, 8ull * sms * 32));
  CK(cudaMalloc(&sink, 4));
  CK(cudaMemset(lines, 0, line_bytes));
  CK(cudaMemset(rows, 0, row_bytes));
  float* flush_sink;
  CK(cudaMalloc(&flush_sink, 4));
  const L2Flush flush(prop, flush_sink);
  printf("shape\tgather\tsource\tctas\twarps\tmean_cycles_per_step\tslowest_cycles_per_step\n");
  for (int gather : {0, 1, 2})
    for (int private_lines : {0, 1})
      for (int warm : {0, 1})
        for (int warps : {1, 8})
          for (int ctas : {1, 8, 33, 66, sms}) {
            if (only_gather >= 0 && gather != only_gather) continue;
            for (int run = 0; run < 3; ++run) {
              flush();
              if (warm) walk<<<ctas, 32 * warps>>>(lines, rows, private_lines, gather, cycles, sink);
              walk<<<ctas, 32 * warps>>>(lines, rows, private_lines, gather, cycles, sink);
              CK(cudaDeviceSynchronize());
              std::vector<unsigned long long> c(static_cast<size_t>(ctas) * 32);
              CK(cudaMemcpy(c.data(), cycles, 8ull * ctas * 32, cudaMemcpyDeviceToHost));
              double mean = 0, slowest = 0;
              for (int b = 0; b < ctas; ++b)
                for (int w = 0; w < warps; ++w) {
                  const double x = static_cast<double>(c[static_cast<size_t>(b) * 32 + w]) / kSteps;
                  mean += x;
                  slowest = std::max(slowest, x);
                }
              printf("%s\t%d\t%s\t%d\t%d\t%.1f\t%.1f\n", private_lines ? "private" : "hot", gather, warm ? "warm" : "cold", ctas, warps,
                     mean / (ctas * warps), slowest);
            }
          }
  return 0;
}
