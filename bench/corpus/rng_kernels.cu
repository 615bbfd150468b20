// Random-fill set: tensors filled with cuRAND numbers the way libraries initialise their test
// and benchmark data. Every thread of a grid sized by cudaOccupancyMaxPotentialBlockSize seeds
// its own generator and then fills a grid-stride share of the tensor. The seeding is most of
// the time: XORWOW's curand_init(seed, subsequence = global thread id, 0) skips ahead with
// bit-matrix products read from cuRAND's precomputed tables in global memory, one product per
// unit of each base-4 digit of the thread id, so threads differ in work by their id (higher
// CTAs do more) and a warp's lanes diverge on the matrix bits. Philox seeds in a few
// instructions; XORWOW with subsequence 0 (seed per thread) skips nothing.
// Usage: rng_kernels REPS [name-filter]; prints "<name> <mean us> us" per kernel (CUDA events).
// REPS = 0 runs each kernel once.
#include <cuda_fp16.h>
#include <cuda_runtime.h>
#include <curand_kernel.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "timing.cuh"

enum class Seeding { xorwow_subsequence, xorwow_seed_per_thread, philox_subsequence };

template <class T, Seeding S>
__global__ void fill_uniform(T* p, size_t n, unsigned long long seed, float lo, float hi) {
  const unsigned long long gtid = threadIdx.x + static_cast<unsigned long long>(blockIdx.x) * blockDim.x;
  using State = typename std::conditional<S == Seeding::philox_subsequence, curandStatePhilox4_32_10_t, curandStateXORWOW_t>::type;
  State st;
  if (S == Seeding::xorwow_seed_per_thread) curand_init(seed + gtid, 0, 0, &st);
  else curand_init(seed, gtid, 0, &st);
  for (size_t i = gtid; i < n; i += static_cast<size_t>(blockDim.x) * gridDim.x)
    p[i] = static_cast<T>(lo + (hi - lo) * curand_uniform(&st));
}

// The launch a library's fill helper makes: the block size that maximises occupancy and as
// many CTAs as the GPU holds at once (capped by the tensor's size), or a fixed block size
// (`fixed_block`) with two CTAs per SM, as helpers with a hard-coded 128-thread block launch.
template <class T, Seeding S>
void fill(T* p, size_t n, int reps, const char* name, const char* only, int grid_cap = 0, int fixed_block = 0) {
  if (*only && !strstr(name, only)) return;
  int min_grid = 0, block = 0;
  CK(cudaOccupancyMaxPotentialBlockSize(&min_grid, &block, fill_uniform<T, S>));
  if (fixed_block > 0) {
    int sms = 0;
    CK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
    block = fixed_block;
    min_grid = 2 * sms;
  }
  size_t grid = std::min<size_t>(static_cast<size_t>(min_grid), (n + block - 1) / block);
  if (grid_cap > 0) grid = std::min<size_t>(grid, static_cast<size_t>(grid_cap));
  printf("%-28s %10.2f us  (grid %zu x %d)\n", name,
         timeit([&] { fill_uniform<T, S><<<grid, block>>>(p, n, 2024, -4.f, 4.f); }, reps), grid, block);
}

int main(int argc, char** argv) {
  int reps = argc > 1 ? atoi(argv[1]) : 20;
  const char* only = argc > 2 ? argv[2] : "";
  const size_t big = size_t(4096) * 4096;
  void* buf;
  CK(cudaMalloc(&buf, big * sizeof(float)));
  auto* f = static_cast<float*>(buf);
  auto* h = static_cast<__half*>(buf);
  // A 4096 x 4096 and a 512 x 512 tensor in half and float, seeded per subsequence (XORWOW).
  fill<__half, Seeding::xorwow_subsequence>(h, big, reps, "xorwow_half_4096", only);
  fill<float, Seeding::xorwow_subsequence>(f, big, reps, "xorwow_float_4096", only);
  fill<__half, Seeding::xorwow_subsequence>(h, 512 * 512, reps, "xorwow_half_512", only);
  fill<float, Seeding::xorwow_subsequence>(f, 512 * 64, reps, "xorwow_float_512x64", only);
  // A small grid: 16 CTAs, the ids (and so the skip-ahead work) of the first CTAs only.
  fill<float, Seeding::xorwow_subsequence>(f, big, reps, "xorwow_float_16ctas", only, 16);
  // No skip-ahead: XORWOW seeded per thread; Philox (its skip-ahead is arithmetic).
  fill<float, Seeding::xorwow_seed_per_thread>(f, big, reps, "xorwow_seeded_float_4096", only);
  fill<float, Seeding::philox_subsequence>(f, big, reps, "philox_float_4096", only);
  fill<__half, Seeding::philox_subsequence>(h, 512 * 512, reps, "philox_half_512", only);
  // 128-thread blocks, two per SM: 8 warps per SM, each seeding and filling a long share.
  fill<__half, Seeding::xorwow_subsequence>(h, big, reps, "xorwow_half_4096_b128", only, 0, 128);
  fill<float, Seeding::xorwow_subsequence>(f, 1024 * 1024, reps, "xorwow_float_1024_b128", only, 0, 128);
  fill<__half, Seeding::xorwow_subsequence>(h, 256 * 256, reps, "xorwow_half_256_b128", only, 0, 128);
  fill<float, Seeding::philox_subsequence>(f, big, reps, "philox_float_4096_b128", only, 0, 128);
  CK(cudaFree(buf));
  return 0;
}
