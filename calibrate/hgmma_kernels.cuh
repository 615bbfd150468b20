// Hopper warpgroup MMA (wgmma / SASS HGMMA) microbenchmarks; compiled for sm_90a only.
// Inline PTX needs one operand per accumulator register, hence the long operand list.
// One warpgroup (128 threads) multiplies a 64x16 A by a 16x128 B, both from shared memory via
// matrix descriptors (no swizzle), accumulating f32 in registers. Values do not matter for
// timing; the buffers are zeroed.
#include <cuda_runtime.h>
#include <cstdint>

namespace hgmma {

constexpr int kAcc = 64;

__device__ inline std::uint64_t smem_desc(const void* p) {
  std::uint64_t addr = static_cast<std::uint32_t>(__cvta_generic_to_shared(p));
  std::uint64_t d = 0;
  d |= (addr >> 4) & 0x3FFF;              // start address
  d |= std::uint64_t(128 >> 4) << 16;     // leading byte offset (next core matrix along K)
  d |= std::uint64_t(256 >> 4) << 32;     // stride byte offset (next 8-row group)
  return d;                               // bits 62-63 = 0: no swizzle
}

// Zeroed A (64x16) and B (16x128) tiles in shared memory, zeroed accumulators, and the tiles'
// descriptors.
__device__ inline void setup(unsigned short* a, unsigned short* b, float* d, std::uint64_t& da, std::uint64_t& db) {
  for (int i = threadIdx.x; i < 64 * 16; i += blockDim.x) a[i] = 0;
  for (int i = threadIdx.x; i < 128 * 16; i += blockDim.x) b[i] = 0;
  __syncthreads();
  for (int i = 0; i < kAcc; ++i) d[i] = 0.f;
  da = smem_desc(a);
  db = smem_desc(b);
}

__device__ inline void mma(float* d, std::uint64_t da, std::uint64_t db, int accumulate) {
  asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, %66, 0;\nwgmma.mma_async.sync.aligned.m64n128k16.f32.f16.f16 {%0,%1,%2,%3,%4,%5,%6,%7,%8,%9,%10,%11,%12,%13,%14,%15,%16,%17,%18,%19,%20,%21,%22,%23,%24,%25,%26,%27,%28,%29,%30,%31,%32,%33,%34,%35,%36,%37,%38,%39,%40,%41,%42,%43,%44,%45,%46,%47,%48,%49,%50,%51,%52,%53,%54,%55,%56,%57,%58,%59,%60,%61,%62,%63}, %64, %65, p, 1, 1, 0, 0;\n}\n"
               : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]), "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]), "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]), "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31]), "+f"(d[32]), "+f"(d[33]), "+f"(d[34]), "+f"(d[35]), "+f"(d[36]), "+f"(d[37]), "+f"(d[38]), "+f"(d[39]), "+f"(d[40]), "+f"(d[41]), "+f"(d[42]), "+f"(d[43]), "+f"(d[44]), "+f"(d[45]), "+f"(d[46]), "+f"(d[47]), "+f"(d[48]), "+f"(d[49]), "+f"(d[50]), "+f"(d[51]), "+f"(d[52]), "+f"(d[53]), "+f"(d[54]), "+f"(d[55]), "+f"(d[56]), "+f"(d[57]), "+f"(d[58]), "+f"(d[59]), "+f"(d[60]), "+f"(d[61]), "+f"(d[62]), "+f"(d[63])
               : "l"(da), "l"(db), "r"(accumulate));
}
__device__ inline void fence() { asm volatile("wgmma.fence.sync.aligned;\n" ::: "memory"); }
__device__ inline void commit() { asm volatile("wgmma.commit_group.sync.aligned;\n" ::: "memory"); }
template <int N>
__device__ inline void wait() { asm volatile("wgmma.wait_group.sync.aligned %0;\n" ::"n"(N) : "memory"); }

}  // namespace hgmma

// Dependent: each wgmma waits for the previous one (fence, mma, commit, wait 0).
__global__ void lat_hgmma(long long* cycles, float* sink, int iters) {
  __shared__ __align__(128) unsigned short a[64 * 16], b[128 * 16];
  float d[hgmma::kAcc];
  std::uint64_t da, db;
  hgmma::setup(a, b, d, da, db);
  long long t0 = clock64();
  for (int it = 0; it < iters; ++it) {
    hgmma::fence();
    hgmma::mma(d, da, db, 1);
    hgmma::commit();
    hgmma::wait<0>();
  }
  long long t1 = clock64();
  if (threadIdx.x == 0) *cycles = (t1 - t0) / iters;
  float s = 0;
  for (int i = 0; i < hgmma::kAcc; ++i) s += d[i];
  sink[threadIdx.x] = s;
}

// Pipelined: batches of 8 wgmma into the same accumulators, one batch kept in flight.
__global__ void thr_hgmma(long long* cycles, float* sink, int batches) {
  __shared__ __align__(128) unsigned short a[64 * 16], b[128 * 16];
  float d[hgmma::kAcc];
  std::uint64_t da, db;
  hgmma::setup(a, b, d, da, db);
  __syncthreads();
  long long t0 = clock64();
  hgmma::fence();
  for (int it = 0; it < batches; ++it) {
#pragma unroll
    for (int j = 0; j < 8; ++j) hgmma::mma(d, da, db, 1);
    hgmma::commit();
    hgmma::wait<1>();
  }
  hgmma::wait<0>();
  __syncthreads();
  long long t1 = clock64();
  if (threadIdx.x == 0) cycles[blockIdx.x] = t1 - t0;
  float s = 0;
  for (int i = 0; i < hgmma::kAcc; ++i) s += d[i];
  sink[blockIdx.x * blockDim.x + threadIdx.x] = s;
}
