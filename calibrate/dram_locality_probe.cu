// Probe (not a table group): is a DRAM miss as slow for a thread walking an array in order as for
// the table's pointer chase, which jumps 64 KiB + 128 B a step? One thread of one CTA follows a
// chain through a buffer with a fixed stride (4 B to 64 KiB + 128 B) or through the 128 B lines
// of a 256 KiB region in a shuffled order, 2048 dependent loads, and reports cycles (clock64)
// and nanoseconds (globaltimer) per step. Three states of the caches: cold (a 192 MiB read of
// another buffer before the launch evicts the chain from L2), warm (the same chain again at
// once: L2 hits), and, for the L1-cached load, cold through L1 (stride below a sector: the
// other steps of a sector hit L1). Each point is the median of 5 launches (argument 1: another count). `ncu` on the same
// binary (`--kernel-name regex:chase` with the dram__bytes_read and lts__t_sectors_op_read
// lookup hit/miss metrics) tells how many bytes DRAM moved per step. Last, the same cold chase
// (and warm) by every thread of one CTA of 1 to 32 threads or of 32 CTAs of 128, each thread in
// its own row: one sector of as many lines per warp request as the warp has threads.
// Output: one JSON object per line.
//
//   nvcc -O3 -arch=sm_90 -o dram_locality_probe calibrate/dram_locality_probe.cu && ./dram_locality_probe
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <vector>

#include "l2_flush.cuh"

__device__ __forceinline__ unsigned long long global_ns() {
  unsigned long long t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  return t;
}

// One thread follows next[] for `steps` steps; `l1`: through L1 (ld.ca) or L2 only (ld.cg).
template <bool l1>
__global__ void chase(const unsigned* next, int steps, long long* cycles, unsigned long long* ns, unsigned* sink) {
  unsigned p = 0;
  const unsigned long long n0 = global_ns();
  const long long t0 = clock64();
  for (int i = 0; i < steps; ++i) p = l1 ? __ldca(next + p) : __ldcg(next + p);
  const long long t1 = clock64();
  const unsigned long long n1 = global_ns();
  *cycles = t1 - t0;
  *ns = n1 - n0;
  *sink = p;
}

// Every thread of the grid chases its own chain of `steps` steps (thread t starts at word
// t * row_words), each load through L2 only: a warp's request then spans 32 lines, one sector
// of each. Thread 0 reports cycles for the grid's first warp.
__global__ void chase_rows(const unsigned* next, unsigned row_words, int steps, long long* cycles, unsigned* sink) {
  const unsigned t = blockIdx.x * blockDim.x + threadIdx.x;
  unsigned p = t * row_words;
  const long long t0 = clock64();
  for (int i = 0; i < steps; ++i) p = __ldcg(next + p);
  const long long t1 = clock64();
  if (t == 0) *cycles = t1 - t0;
  if (p == 0xffffffffu) *sink = p;
}

// Word indices of a chain of `steps` steps from word 0: a fixed stride, or a shuffle of the
// lines of a region (stride_bytes = 0: 2048 lines of 128 B in a random order).
static std::vector<unsigned> chain(size_t stride_bytes, int steps, std::mt19937& rng) {
  std::vector<unsigned> at(steps);
  if (stride_bytes > 0) {
    for (int i = 0; i < steps; ++i) at[i] = static_cast<unsigned>(i * stride_bytes / 4);
  } else {
    for (int i = 0; i < steps; ++i) at[i] = static_cast<unsigned>(i * 32);
    std::shuffle(at.begin() + 1, at.end(), rng);
  }
  return at;
}

int main(int argc, char** argv) {
  cudaDeviceProp prop;
  cudaGetDeviceProperties(&prop, 0);
  const int steps = 2048, repeats = argc > 1 ? std::max(1, std::atoi(argv[1])) : 5;
  const size_t buffer_bytes = static_cast<size_t>(160) << 20;
  unsigned *next = nullptr, *sink = nullptr;
  long long* cycles = nullptr;
  unsigned long long* ns = nullptr;
  float* flush_sink = nullptr;
  cudaMalloc(&next, buffer_bytes);
  cudaMalloc(&sink, sizeof(unsigned));
  cudaMalloc(&cycles, sizeof(long long));
  cudaMalloc(&ns, sizeof(unsigned long long));
  cudaMalloc(&flush_sink, sizeof(float));
  const L2Flush flush(prop, flush_sink);
  std::mt19937 rng(7);
  std::vector<unsigned> host(buffer_bytes / 4, 0);
  for (size_t stride : {size_t(4), size_t(8), size_t(16), size_t(32), size_t(64), size_t(128), size_t(256), size_t(512), size_t(1024),
                        size_t(2048), size_t(4096), size_t(8192), size_t(16384), size_t(65536 + 128), size_t(0)}) {
    const std::vector<unsigned> at = chain(stride, steps, rng);
    for (int i = 0; i < steps; ++i) host[at[i]] = at[(i + 1) % steps];
    cudaMemcpy(next, host.data(), buffer_bytes, cudaMemcpyHostToDevice);
    for (int i = 0; i < steps; ++i) host[at[i]] = 0;
    for (int state = 0; state < 3; ++state) {  // 0 cold (ld.cg), 1 warm L2 (ld.cg), 2 cold through L1 (ld.ca)
      std::vector<long long> c(repeats);
      std::vector<unsigned long long> t(repeats);
      for (int r = 0; r < repeats; ++r) {
        if (state == 1) chase<false><<<1, 1>>>(next, steps, cycles, ns, sink);  // brings the chain into L2
        else flush();
        if (state == 2) chase<true><<<1, 1>>>(next, steps, cycles, ns, sink);
        else chase<false><<<1, 1>>>(next, steps, cycles, ns, sink);
        cudaMemcpy(&c[r], cycles, sizeof c[r], cudaMemcpyDeviceToHost);
        cudaMemcpy(&t[r], ns, sizeof t[r], cudaMemcpyDeviceToHost);
      }
      std::sort(c.begin(), c.end());
      std::sort(t.begin(), t.end());
      static const char* state_name[] = {"cold", "warm_l2", "cold_l1"};
      std::printf("{\"probe\": \"dram_locality\", \"gpu\": \"%s\", \"pattern\": \"%s\", \"stride_bytes\": %zu, \"state\": \"%s\", "
                  "\"steps\": %d, \"cycles_per_step\": %.1f, \"ns_per_step\": %.1f, \"clock_mhz\": %.0f}\n",
                  prop.name, stride ? "stride" : "shuffled_lines_256k", stride ? stride : size_t(128), state_name[state], steps,
                  double(c[repeats / 2]) / steps, double(t[repeats / 2]) / steps, double(c[repeats / 2]) / double(t[repeats / 2]) * 1e3);
    }
  }
  // Warps whose 32 threads walk 32 rows side by side (rows 16 KiB + 128 B apart, 512 steps):
  // a 32-line request per step, as a thread-per-row matrix walk makes. Does a 64 B fill serve
  // the next 32 B step of every row?
  const int row_steps = 512;
  const int row_configs[][2] = {{1, 1}, {1, 2}, {1, 4}, {1, 8}, {1, 16}, {1, 32}, {32, 128}};  // CTAs, threads per CTA
  for (size_t stride : {size_t(32), size_t(64)}) {
    for (const auto& config : row_configs) {
      const int ctas = config[0], threads = config[1];
      const size_t row_bytes = row_steps * stride + 128;
      const unsigned row_words = static_cast<unsigned>(row_bytes / 4);
      const size_t rows = static_cast<size_t>(ctas) * threads;
      for (size_t r = 0; r < rows; ++r)
        for (int i = 0; i < row_steps; ++i) host[r * row_words + i * stride / 4] = static_cast<unsigned>(r * row_words + ((i + 1) % row_steps) * stride / 4);
      cudaMemcpy(next, host.data(), rows * row_bytes, cudaMemcpyHostToDevice);
      for (size_t r = 0; r < rows; ++r)
        for (int i = 0; i < row_steps; ++i) host[r * row_words + i * stride / 4] = 0;
      for (int warm = 0; warm < 2; ++warm) {  // cold: the 192 MiB read first; warm: the same chase just before
        std::vector<long long> c(repeats);
        for (int r = 0; r < repeats; ++r) {
          if (warm) chase_rows<<<ctas, threads>>>(next, row_words, row_steps, cycles, sink);
          else flush();
          chase_rows<<<ctas, threads>>>(next, row_words, row_steps, cycles, sink);
          cudaMemcpy(&c[r], cycles, sizeof c[r], cudaMemcpyDeviceToHost);
        }
        std::sort(c.begin(), c.end());
        std::printf("{\"probe\": \"dram_locality\", \"gpu\": \"%s\", \"pattern\": \"rows\", \"stride_bytes\": %zu, \"state\": \"%s\", "
                    "\"ctas\": %d, \"threads_per_cta\": %d, \"steps\": %d, \"cycles_per_step\": %.1f}\n",
                    prop.name, stride, warm ? "warm_l2" : "cold", ctas, threads, row_steps, double(c[repeats / 2]) / row_steps);
      }
    }
  }
  const cudaError_t err = cudaGetLastError();
  if (err != cudaSuccess) {
    std::fprintf(stderr, "dram_locality_probe: %s\n", cudaGetErrorString(err));
    return 1;
  }
  return 0;
}
