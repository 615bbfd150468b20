// Small latency-bound grids whose loads are a sliver of the L2's reads. A profile counts every
// client's L2 reads (instruction and constant fetches, page-table walks after the profiler's
// flush beside the SMs' loads), and a few CTAs' loads do not outweigh them: Rodinia nw's 5 us
// launches (train) read 3,754 L2 sectors, 76 % of them hits, where their loads missed L1 on 65.
// The count path took that 76 % for the loads and came out 0.85x from the profiles, 0.96x from
// the traces. These launches give such grids, with the L2 reads from the SMs' L1 counted apart
// (lts__t_sectors_srcunit_tex_op_read, where tools/collect takes it).
//
// Mode app: launches to profile, trace and predict whole: `tile_wave` on 1, 2, 4, 8, 16, 32, 64
// and 128 CTAs of 16 threads, each CTA a 16 x 16 tile of an int matrix 2048 wide (a tile's top
// row and left column, the 16 rows of a second matrix's tile, 31 anti-diagonal steps in shared
// memory between barriers, the tile stored back), every launch on tiles the others do not touch.
//
//   nvcc -O3 -arch=sm_90 -Icalibrate -o small_grid_probe small_grid_probe.cu && ./small_grid_probe app
#include <cuda_runtime.h>

#include <cstdio>
#include <string>

#include "cuda_check.cuh"

namespace {

constexpr int kWidth = 2048, kTile = 16;

// `width`: the matrix's row length, a run-time value (as Rodinia nw's), so each row's address
// takes a register of its own.
__global__ void tile_wave(int* score, const int* ref, int width, int first_tile, int penalty) {
  __shared__ int s[kTile + 1][kTile + 1];
  __shared__ int r[kTile][kTile];
  const int t = threadIdx.x, tiles = width / kTile;
  const int tile = first_tile + blockIdx.x, tx = tile % tiles, ty = tile / tiles;
  const int base = ty * kTile * width + tx * kTile;
  if (t == 0) s[0][0] = score[base];
  for (int i = 0; i < kTile; ++i) r[i][t] = ref[base + width * (i + 1) + t + 1];
  s[0][t + 1] = score[base + t + 1];
  s[t + 1][0] = score[base + width * (t + 1)];
  __syncthreads();
  for (int d = 0; d < 2 * kTile - 1; ++d) {
    const int x = d < kTile ? t + 1 : t + d - kTile + 2, y = d < kTile ? d - t + 1 : kTile - t;
    if (d < kTile ? t <= d : t < 2 * kTile - 1 - d)
      s[y][x] = max(s[y - 1][x - 1] + r[y - 1][x - 1], max(s[y][x - 1] - penalty, s[y - 1][x] - penalty));
    __syncthreads();
  }
  for (int i = 0; i < kTile; ++i) score[base + width * (i + 1) + t + 1] = s[i + 1][t + 1];
}

}  // namespace

int main(int argc, char** argv) {
  const std::string mode = argc > 1 ? argv[1] : "app";
  if (mode != "app") {
    std::fprintf(stderr, "usage: %s app\n", argv[0]);
    return 2;
  }
  int *score, *ref;
  const size_t bytes = 4ull * kWidth * (kWidth + 1);
  CK(cudaMalloc(&score, bytes));
  CK(cudaMalloc(&ref, bytes));
  CK(cudaMemset(score, 0, bytes));
  CK(cudaMemset(ref, 1, bytes));
  int first = 0;
  for (int ctas : {1, 2, 4, 8, 16, 32, 64, 128}) {
    tile_wave<<<ctas, kTile>>>(score, ref, kWidth, first, 10);
    first += ctas;
    CK(cudaGetLastError());
    CK(cudaDeviceSynchronize());
  }
  std::printf("ok\n");
  return 0;
}
