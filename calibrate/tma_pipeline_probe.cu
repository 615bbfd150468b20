// A TMA pipeline as Hopper GEMMs and attention kernels build it: one producer thread per CTA
// loads 64 x 64 fp32 tiles (16 KiB) of a 2-D tensor into a ring of `stages` shared-memory
// buffers with cp.async.bulk.tensor (SASS UTMALDG); an mbarrier per buffer counts the bytes in
// (expect_tx), the consumer warps wait on it with mbarrier.try_wait (SASS SYNCS.PHASECHK
// .TRANS64.TRYWAIT, retried in a loop until the phase completes), sum the tile from shared
// memory and release the buffer on a second mbarrier the producer waits on.
//
// What it measures, per configuration (CTAs, stages, consumer warps, work per element, tiles
// reused):
//   - the kernel's time (CUDA events, best and mean of 10; L2 flushed by a read before each)
//     and the bytes a second it streams;
//   - how many times a wait's try_wait ran (the producer's, a consumer warp's), counted on the device:
//     a trace of the same launch records each retry as an executed instruction, and an
//     instrumented run retries more often than a native one (compare ncu's instruction counts
//     of the same PCs with the trace's).
// The tensor (256 MiB) is over 4x the L2, so every tile comes from DRAM, except in the last
// configuration, where all CTAs read the same 256 tiles (4 MiB) over and over from L2. Under
// Nsight Compute (one configuration: `./tma_pipeline_probe CONFIG 1`), the L2's counters show
// what the bulk copies cost it (lts__t_sectors_op_read against the tiles' sectors).
//   nvcc -O3 -arch=sm_90a -o tma_pipeline_probe tma_pipeline_probe.cu -lcuda && ./tma_pipeline_probe [config [runs]]
#include <cuda.h>
#include <cuda_runtime.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "cuda_check.cuh"
#include "event_timing.cuh"
#include "l2_flush.cuh"

constexpr int kTile = 64;                                 // tile edge, elements
constexpr int kTileBytes = kTile * kTile * 4;             // 16 KiB
constexpr int kRows = 16384, kCols = 4096;                // 256 MiB of fp32
constexpr int kTilesX = kCols / kTile, kTiles = (kRows / kTile) * kTilesX;
constexpr int kMaxStages = 8;

__device__ __forceinline__ unsigned smem_addr(const void* p) { return static_cast<unsigned>(__cvta_generic_to_shared(p)); }

__device__ __forceinline__ void mbar_init(unsigned long long* bar, unsigned count) {
  asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;" ::"r"(smem_addr(bar)), "r"(count));
}
__device__ __forceinline__ void mbar_expect_tx(unsigned long long* bar, unsigned bytes) {
  asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(smem_addr(bar)), "r"(bytes) : "memory");
}
__device__ __forceinline__ void mbar_arrive(unsigned long long* bar) {
  asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];" ::"r"(smem_addr(bar)) : "memory");
}
// Waits for the phase of `parity` to complete; returns how many try_waits it took.
__device__ __forceinline__ unsigned mbar_wait(unsigned long long* bar, unsigned parity) {
  unsigned tries = 0, done = 0;
  do {
    ++tries;
    asm volatile(
        "{\n .reg .pred p;\n mbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2;\n selp.u32 %0, 1, 0, p;\n}"
        : "=r"(done) : "r"(smem_addr(bar)), "r"(parity) : "memory");
  } while (!done);
  return tries;
}
__device__ __forceinline__ void tma_load_2d(void* dst, const CUtensorMap* map, int x, int y, unsigned long long* bar) {
  asm volatile("cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1, {%2, %3}], [%4];" ::"r"(smem_addr(dst)),
               "l"(map), "r"(x), "r"(y), "r"(smem_addr(bar))
               : "memory");
}

// Warp 0 lane 0 produces; warps 1..consumers consume. `work`: FMAs per element after the load.
// `reuse` > 0: the CTAs' tiles are the first `reuse` tiles of the tensor over and over (a working
// set the L2 holds, as a GEMM's operand tiles are read by many CTAs).
__global__ void __launch_bounds__(32 * (1 + 8)) tma_stream(const __grid_constant__ CUtensorMap map, int stages, int work, int reuse, float* out,
                                                             unsigned long long* tries) {
  extern __shared__ __align__(1024) unsigned char smem[];
  float* tiles = reinterpret_cast<float*>(smem);
  __shared__ unsigned long long full[kMaxStages], empty[kMaxStages];
  const int warp = threadIdx.x / 32, consumers = blockDim.x / 32 - 1;
  if (threadIdx.x == 0)
    for (int s = 0; s < stages; ++s) { mbar_init(&full[s], 1); mbar_init(&empty[s], consumers); }
  asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
  __syncthreads();
  unsigned my_tries = 0;
  float acc = 0;
  int n = 0;  // this CTA's tile count so far
  if (warp == 0) {
    if (threadIdx.x == 0)
      for (int t = blockIdx.x; t < kTiles; t += gridDim.x, ++n) {
        const int s = n % stages;
        if (n >= stages) my_tries += mbar_wait(&empty[s], ((n / stages) - 1) & 1);
        mbar_expect_tx(&full[s], kTileBytes);
        const int tile = reuse > 0 ? t % reuse : t;
        tma_load_2d(tiles + s * kTile * kTile, &map, (tile % kTilesX) * kTile, (tile / kTilesX) * kTile, &full[s]);
      }
  } else {
    const int lane = threadIdx.x - 32, threads = consumers * 32;
    for (int t = blockIdx.x; t < kTiles; t += gridDim.x, ++n) {
      const int s = n % stages;
      my_tries += mbar_wait(&full[s], (n / stages) & 1);
      const float* tile = tiles + s * kTile * kTile;
      for (int i = lane; i < kTile * kTile; i += threads) {
        float v = tile[i];
        for (int w = 0; w < work; ++w) v = fmaf(v, 1.0001f, 0.5f);
        acc += v;
      }
      __syncwarp();
      if ((threadIdx.x & 31) == 0) mbar_arrive(&empty[s]);
    }
  }
  if (acc == 1234.5f) out[0] = acc;
  if ((threadIdx.x & 31) == 0) atomicAdd(&tries[warp == 0 ? 0 : 1], my_tries);
}

int main(int argc, char** argv) {
  cudaDeviceProp prop;
  CK(cudaGetDeviceProperties(&prop, 0));
  float* tensor;
  float *out, *sink;
  unsigned long long* tries;
  CK(cudaMalloc(&tensor, size_t(kRows) * kCols * 4));
  CK(cudaMemset(tensor, 0, size_t(kRows) * kCols * 4));
  CK(cudaMalloc(&out, 4));
  CK(cudaMalloc(&sink, 4));
  CK(cudaMalloc(&tries, 16));
  L2Flush flush(prop, sink);

  CUtensorMap map;
  const cuuint64_t dims[2] = {kCols, kRows}, strides[1] = {kCols * 4ull};
  const cuuint32_t box[2] = {kTile, kTile}, elem[2] = {1, 1};
  if (cuTensorMapEncodeTiled(&map, CU_TENSOR_MAP_DATA_TYPE_FLOAT32, 2, tensor, dims, strides, box, elem, CU_TENSOR_MAP_INTERLEAVE_NONE,
                                        CU_TENSOR_MAP_SWIZZLE_NONE, CU_TENSOR_MAP_L2_PROMOTION_L2_128B, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE) != CUDA_SUCCESS) {
    std::fprintf(stderr, "cuTensorMapEncodeTiled failed\n");
    return 1;
  }
  CK(cudaFuncSetAttribute(tma_stream, cudaFuncAttributeMaxDynamicSharedMemorySize, kMaxStages * kTileBytes));

  struct Config { int ctas_per_sm, stages, consumers, work, reuse; };
  const Config all[] = {{1, 2, 4, 0, 0}, {1, 4, 4, 0, 0},  {1, 8, 4, 0, 0},  {2, 4, 4, 0, 0},
                        {1, 4, 8, 0, 0}, {1, 4, 4, 16, 0}, {1, 4, 4, 64, 0}, {1, 4, 4, 0, 256}};
  const int only = argc > 1 ? std::atoi(argv[1]) : -1;  // one configuration (for a trace or a profile), else all
  const int runs = argc > 2 ? std::atoi(argv[2]) : 10;
  std::printf("config ctas stages consumer_warps work reuse_tiles best_us mean_us GB_per_s producer_tries_per_wait consumer_tries_per_wait\n");
  for (int c = 0; c < int(sizeof(all) / sizeof(all[0])); ++c) {
    if (only >= 0 && c != only) continue;
    const Config& cf = all[c];
    const int ctas = prop.multiProcessorCount * cf.ctas_per_sm;
    CK(cudaMemset(tries, 0, 16));
    const LaunchTimes t = time_launches(runs, [&](int) { flush(); }, [&](int) {
      tma_stream<<<ctas, 32 * (1 + cf.consumers), cf.stages * kTileBytes>>>(map, cf.stages, cf.work, cf.reuse, out, tries);
    });
    CK(cudaGetLastError());
    CK(cudaDeviceSynchronize());
    unsigned long long h[2];
    CK(cudaMemcpy(h, tries, 16, cudaMemcpyDeviceToHost));
    // Waits of all runs: each consumer warp waits once a tile; the producer once a tile past
    // each CTA's first `stages`.
    const double consumer_waits = double(kTiles) * cf.consumers * runs;
    const double producer_waits = double(kTiles - ctas * cf.stages) * runs;
    std::printf("%d %d %d %d %d %d %.2f %.2f %.1f %.3f %.3f\n", c, ctas, cf.stages, cf.consumers, cf.work, cf.reuse, t.best_ms * 1e3, t.mean_ms * 1e3,
                double(kTiles) * kTileBytes / (t.best_ms * 1e-3) / 1e9, double(h[0]) / producer_waits, double(h[1]) / consumer_waits);
  }
  return 0;
}
