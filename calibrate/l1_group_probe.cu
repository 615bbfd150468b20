// Probe (not a table group): groups of 5 loads of one address per warp under a per-lane
// predicate, the way cuRAND's XORWOW skip-ahead multiplies a generator's state by a
// precalculated 800-word matrix (LDG.E, 5 words per state bit; each lane's own bit decides
// whether it XORs the row in). Each trip walks one matrix: 32 groups, 160 loads.
// Output: one JSON object per line: the mean and the slowest warp's cycles per trip.
//
//   nvcc -O3 -arch=sm_90 -o l1_group_probe calibrate/l1_group_probe.cu && ./l1_group_probe
//
// Modes (what changes between them):
//   0 lanes take rows by their own random bits (partial masks), one matrix of 4 (12 KiB, L1)
//   1 every lane takes every row (full masks)
//   2 warp-uniform bits (no divergence)
//   3 each lane reads its own row (about 5 lines a request)
//   4 like 0, each warp walking its own sequence over `footprint` KiB of matrices
//   5 like 0, every warp walking the same sequence (the warps of an SM share each fill)
#include <algorithm>
#include <cstdio>
#include <vector>

enum Mode { kPartial = 0, kFull = 1, kUniformBits = 2, kLaneRows = 3, kOwnSequence = 4, kSharedSequence = 5 };
constexpr int kMatrixWords = 800;

__global__ void groups(const unsigned* m, unsigned* sink, long long* cycles, int trips, int mode, int matrices) {
  const unsigned tid = blockIdx.x * blockDim.x + threadIdx.x, lane = threadIdx.x & 31, warp = tid / 32;
  unsigned s = tid * 2654435761u + 12345u;
  s ^= s >> 13;
  s *= 0x5bd1e995u;
  s ^= s >> 15;
  if (mode == kFull) s = 0xffffffffu;
  if (mode == kUniformBits) s = __shfl_sync(0xffffffffu, s, 0);
  unsigned a0 = 0, a1 = 0, a2 = 0, a3 = 0, a4 = 0;
  __syncthreads();
  const long long t0 = clock64();
  for (int t = 0; t < trips; ++t) {
    const unsigned* r = m + (t & 3) * kMatrixWords;
    if (mode == kLaneRows) r = m + ((t & 3) * kMatrixWords + lane * 5) % (4 * kMatrixWords);
    if (mode == kOwnSequence) r = m + ((t * 7 + warp * 13) % matrices) * kMatrixWords;
    if (mode == kSharedSequence) r = m + ((t * 7) % matrices) * kMatrixWords;
#pragma unroll
    for (int i = 0; i < 32; ++i) {
      if (s & (1u << i)) {
        a0 ^= r[i * 5 + 0];
        a1 ^= r[i * 5 + 1];
        a2 ^= r[i * 5 + 2];
        a3 ^= r[i * 5 + 3];
        a4 ^= r[i * 5 + 4];
      }
    }
    s = s * 1664525u + 1013904223u + a0;  // the next trip's bits depend on this trip's loads
    if (mode == kFull) s = 0xffffffffu | a0;
    if (mode == kUniformBits) s = __shfl_sync(0xffffffffu, s, 0);
  }
  const long long t1 = clock64();
  sink[tid] = a0 ^ a1 ^ a2 ^ a3 ^ a4;
  if (lane == 0) cycles[warp] = t1 - t0;
}

int main() {
  const int max_matrices = 1024;
  const int words = max_matrices * kMatrixWords;
  unsigned* m;
  cudaMalloc(&m, words * 4);
  std::vector<unsigned> h(words);
  for (int i = 0; i < words; ++i) h[i] = i * 2654435761u;
  cudaMemcpy(m, h.data(), words * 4, cudaMemcpyHostToDevice);
  unsigned* sink;
  cudaMalloc(&sink, 1 << 24);
  long long* cyc;
  cudaMalloc(&cyc, 1 << 20);
  int sms = 0;
  cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0);
  // 1, 4, 8 (two shapes) and 32 warps per SM.
  struct Shape { int grid, block; } shapes[] = {{sms, 32}, {sms, 128}, {2 * sms, 128}, {sms, 256}, {sms, 1024}};
  const int trips = 200;
  for (int mode = kPartial; mode <= kSharedSequence; ++mode) {
    std::vector<int> sizes = {4};
    if (mode == kOwnSequence) sizes = {4, 16, 32, 48, 64, 80, 128, max_matrices};
    if (mode == kSharedSequence) sizes = {4, max_matrices};
    for (int matrices : sizes)
      for (auto c : shapes) {
        groups<<<c.grid, c.block>>>(m, sink, cyc, 64, mode, matrices);  // warm L1 and L2
        cudaEvent_t e0, e1;
        cudaEventCreate(&e0);
        cudaEventCreate(&e1);
        cudaEventRecord(e0);
        groups<<<c.grid, c.block>>>(m, sink, cyc, trips, mode, matrices);
        cudaEventRecord(e1);
        cudaEventSynchronize(e1);
        float ms = 0;
        cudaEventElapsedTime(&ms, e0, e1);
        const int nw = c.grid * c.block / 32;
        std::vector<long long> hc(nw);
        cudaMemcpy(hc.data(), cyc, nw * sizeof(long long), cudaMemcpyDeviceToHost);
        double mean = 0;
        long long slowest = 0;
        for (auto v : hc) { mean += v; slowest = std::max(slowest, v); }
        mean /= nw;
        printf("{\"mode\": %d, \"footprint_kib\": %.1f, \"grid\": %d, \"block\": %d, \"warps_per_sm\": %.1f, \"cycles_per_trip\": %.1f, "
               "\"slowest_cycles_per_trip\": %.1f, \"us\": %.1f}\n",
               mode, matrices * kMatrixWords * 4 / 1024.0, c.grid, c.block, double(nw) / sms, mean / trips, double(slowest) / trips, ms * 1000);
      }
  }
  const cudaError_t e = cudaGetLastError();
  if (e != cudaSuccess) {
    fprintf(stderr, "l1_group_probe: %s\n", cudaGetErrorString(e));
    return 1;
  }
  return 0;
}
