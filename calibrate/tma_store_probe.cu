// Bulk stores from shared memory to global, as Hopper GEMM epilogues write their tiles: every
// CTA fills a 64 x 64 fp32 tile (16 KiB) in shared memory and one thread sends it to the tensor
// with cp.async.bulk.tensor (SASS UTMASTG), or adds it there (cp.reduce.async.bulk.tensor), or
// copies it as plain bytes (cp.async.bulk, no tensor map), then waits for the copy to have read
// the shared tile before the next (cp.async.bulk.wait_group.read).
//
// Tile t goes to column (t % 64) x 64 and row (t / 64) x 64 of a 16384 x 4096 fp32 tensor
// (256 MiB, over 4x the L2), so a tracer's record of each copy can be checked against where the
// copy wrote: the first row's address is tensor + 4 (64 (t / 64) 4096 + 64 (t % 64)).
//
// What it measures, per configuration (form, CTAs per SM, tiles): the kernel's time (CUDA
// events, best and mean of 10, L2 flushed before each) and the bytes a second it writes. Under
// Nsight Compute (`./tma_store_probe CONFIG 1`), the DRAM's and L2's write counters show what
// the copies cost (dram__bytes_write.sum, lts__t_sectors_op_write.sum, ..._op_red.sum).
//   nvcc -O3 -arch=sm_90a -o tma_store_probe tma_store_probe.cu -lcuda && ./tma_store_probe [config [runs]]
#include <cuda.h>
#include <cuda_runtime.h>

#include <cstdio>
#include <cstdlib>

#include "cuda_check.cuh"
#include "event_timing.cuh"
#include "l2_flush.cuh"

constexpr int kTile = 64;                      // tile edge, elements
constexpr int kTileBytes = kTile * kTile * 4;  // 16 KiB
constexpr int kRows = 16384, kCols = 4096;     // 256 MiB of fp32
constexpr int kTilesX = kCols / kTile, kTiles = (kRows / kTile) * kTilesX;

enum Form { kStore, kReduceAdd, kBulkCopy };
static const char* const kFormNames[] = {"tensor_store", "tensor_reduce_add", "bulk_copy"};

__device__ __forceinline__ unsigned smem_addr(const void* p) { return static_cast<unsigned>(__cvta_generic_to_shared(p)); }

template <int F>
__device__ __forceinline__ void send_tile(const CUtensorMap* map, float* tensor, const float* tile, int x, int y) {
  if (F == kStore)
    asm volatile("cp.async.bulk.tensor.2d.global.shared::cta.bulk_group [%0, {%1, %2}], [%3];" ::"l"(map), "r"(x), "r"(y), "r"(smem_addr(tile))
                 : "memory");
  else if (F == kReduceAdd)
    asm volatile("cp.reduce.async.bulk.tensor.2d.global.shared::cta.add.bulk_group [%0, {%1, %2}], [%3];" ::"l"(map), "r"(x), "r"(y),
                 "r"(smem_addr(tile))
                 : "memory");
  else  // the tile's 64 rows as 64 bulk copies of 256 B each
    for (int r = 0; r < kTile; ++r)
      asm volatile("cp.async.bulk.global.shared::cta.bulk_group [%0], [%1], %2;" ::"l"(tensor + size_t(y + r) * kCols + x),
                   "r"(smem_addr(tile + r * kTile)), "r"(kTile * 4)
                   : "memory");
  asm volatile("cp.async.bulk.commit_group;" ::: "memory");
}

template <int F>
__global__ void __launch_bounds__(256) tma_store(const __grid_constant__ CUtensorMap map, float* tensor, int tiles) {
  __shared__ __align__(128) float tile[kTile * kTile];
  for (int t = blockIdx.x; t < tiles; t += gridDim.x) {
    for (int i = threadIdx.x; i < kTile * kTile; i += blockDim.x) tile[i] = float(t) + i;
    // The threads' writes of the tile, then the copy engine's read of it.
    asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
    __syncthreads();
    if (threadIdx.x == 0) {
      send_tile<F>(&map, tensor, tile, (t % kTilesX) * kTile, (t / kTilesX) * kTile);
      asm volatile("cp.async.bulk.wait_group.read 0;" ::: "memory");
    }
    __syncthreads();
  }
  if (threadIdx.x == 0) asm volatile("cp.async.bulk.wait_group 0;" ::: "memory");
}

int main(int argc, char** argv) {
  cudaDeviceProp prop;
  CK(cudaGetDeviceProperties(&prop, 0));
  float* tensor;
  float* sink;
  CK(cudaMalloc(&tensor, size_t(kRows) * kCols * 4));
  CK(cudaMemset(tensor, 0, size_t(kRows) * kCols * 4));
  CK(cudaMalloc(&sink, 4));
  L2Flush flush(prop, sink);

  CUtensorMap map;
  const cuuint64_t dims[2] = {kCols, kRows}, strides[1] = {kCols * 4ull};
  const cuuint32_t box[2] = {kTile, kTile}, elem[2] = {1, 1};
  if (cuTensorMapEncodeTiled(&map, CU_TENSOR_MAP_DATA_TYPE_FLOAT32, 2, tensor, dims, strides, box, elem, CU_TENSOR_MAP_INTERLEAVE_NONE,
                             CU_TENSOR_MAP_SWIZZLE_NONE, CU_TENSOR_MAP_L2_PROMOTION_L2_128B, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE) != CUDA_SUCCESS) {
    std::fprintf(stderr, "cuTensorMapEncodeTiled failed\n");
    return 1;
  }
  struct Config { int form, ctas_per_sm, tiles; };
  // The last three: 64 tiles, one a CTA, a launch small enough to trace whole.
  const Config all[] = {{kStore, 4, kTiles}, {kReduceAdd, 4, kTiles}, {kBulkCopy, 4, kTiles},
                        {kStore, 0, 64},     {kReduceAdd, 0, 64},     {kBulkCopy, 0, 64}};
  const int only = argc > 1 ? std::atoi(argv[1]) : -1;
  const int runs = argc > 2 ? std::atoi(argv[2]) : 10;
  std::printf("config form ctas tiles best_us mean_us GB_per_s\n");
  for (int c = 0; c < int(sizeof(all) / sizeof(all[0])); ++c) {
    if (only >= 0 && c != only) continue;
    const Config& cf = all[c];
    const int ctas = cf.ctas_per_sm ? prop.multiProcessorCount * cf.ctas_per_sm : cf.tiles;
    const LaunchTimes t = time_launches(runs, [&](int) { flush(); }, [&](int) {
      if (cf.form == kStore) tma_store<kStore><<<ctas, 256>>>(map, tensor, cf.tiles);
      else if (cf.form == kReduceAdd) tma_store<kReduceAdd><<<ctas, 256>>>(map, tensor, cf.tiles);
      else tma_store<kBulkCopy><<<ctas, 256>>>(map, tensor, cf.tiles);
    });
    CK(cudaGetLastError());
    CK(cudaDeviceSynchronize());
    std::printf("%d %s %d %d %.2f %.2f %.1f\n", c, kFormNames[cf.form], ctas, cf.tiles, t.best_ms * 1e3, t.mean_ms * 1e3,
                double(cf.tiles) * kTileBytes / (t.best_ms * 1e-3) / 1e9);
  }
  // Where the copies wrote: tile t's first element holds float(t) after a store.
  float first[2];
  CK(cudaMemcpy(&first[0], tensor, 4, cudaMemcpyDeviceToHost));
  CK(cudaMemcpy(&first[1], tensor + size_t(kTile) * kCols + kTile, 4, cudaMemcpyDeviceToHost));
  std::printf("check tile0 %.1f tile65 %.1f\n", first[0], first[1]);
  return 0;
}
