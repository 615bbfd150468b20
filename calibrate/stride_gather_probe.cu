// Whether a warp's lanes that walk rows a power of two apart wait longer for DRAM than lanes on
// rows a little further apart (HeCBench simpleSpmv's mv_dense: each thread its own row of 4,096
// floats, rows 16 KiB apart, one warp an SM; 0.72-0.78x from traces on the train part). Each
// lane walks its own row, one new 128 B line a step (a chain: the next offset adds the word just
// loaded, which is 0), so every warp load asks for one sector of each of 32 lines, rows `stride`
// bytes apart; nothing is read twice (first touches, DRAM). One warp on every SM, or one warp
// alone. Prints the mean cycles a step for each stride.
//   nvcc -O3 -arch=sm_90 -o stride_gather_probe stride_gather_probe.cu && ./stride_gather_probe
#include <cuda_runtime.h>

#include <cstdio>
#include <vector>

#include "cuda_check.cuh"
#include "l2_flush.cuh"

__global__ void walk(const unsigned* buf, size_t stride_words, int steps, unsigned long long* cycles, unsigned* sink) {
  const int warp = blockIdx.x, lane = threadIdx.x;
  const unsigned* row = buf + (static_cast<size_t>(warp) * 32 + lane) * stride_words;
  size_t at = 0;
  unsigned acc = 0;
  __syncwarp();
  const long long t0 = clock64();
  for (int s = 0; s < steps; ++s) {
    const unsigned v = __ldcg(row + at);
    acc += v;
    at += 32 + v;  // the next line, after this load returns
  }
  __syncwarp();
  const long long t1 = clock64();
  if (lane == 0) cycles[warp] = static_cast<unsigned long long>(t1 - t0);
  if (acc == 0xdeadbeef) *sink = acc;
}

int main() {
  int sms = 0, clock_khz = 0;
  CK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
  CK(cudaDeviceGetAttribute(&clock_khz, cudaDevAttrClockRate, 0));
  printf("# sms %d, clock %d MHz\n", sms, clock_khz / 1000);
  const int steps = 128;  // 16 KiB of each row
  const size_t strides[] = {16384, 16384 + 128, 16384 + 512, 32768, 65536, 65536 + 128, 262144, 262144 + 128, 1048576, 1048576 + 128};
  size_t most = 0;
  for (size_t s : strides) most = s > most ? s : most;
  const size_t bytes = most * 32 * sms + 32768;
  unsigned *buf, *sink;
  unsigned long long* cycles;
  CK(cudaMalloc(&buf, bytes));
  CK(cudaMalloc(&cycles, 8 * sms));
  CK(cudaMalloc(&sink, 4));
  CK(cudaMemset(buf, 0, bytes));
  // A read of another buffer between runs: nothing of a run stays in L2, and no dirty line is
  // left to write back during the next (a memset here did both).
  cudaDeviceProp prop;
  CK(cudaGetDeviceProperties(&prop, 0));
  float* flush_sink;
  CK(cudaMalloc(&flush_sink, 4));
  const L2Flush flush(prop, flush_sink);
  for (int warps : {sms, 1}) {
    for (size_t stride : strides) {
      flush();
      walk<<<warps, 32>>>(buf, stride / 4, steps, cycles, sink);
      CK(cudaDeviceSynchronize());
      std::vector<unsigned long long> c(warps);
      CK(cudaMemcpy(c.data(), cycles, 8ull * warps, cudaMemcpyDeviceToHost));
      double mean = 0;
      for (auto x : c) mean += static_cast<double>(x) / steps;
      printf("warps %3d stride_bytes %8zu cycles_per_step %7.1f\n", warps, stride, mean / warps);
    }
  }
  return 0;
}
