// gpuperf calibration microbenchmarks, after the seeds' recipes (seed-tables.md appendix B):
// dependent chains timed with clock64 in one warp give the dependent-issue latency; the same
// chains in 8 independent copies across 32 warps per SM give the issue interval; pointer
// chases give memory latencies; streaming kernels give bandwidths.
// Output: one JSON object per line, {"bench": ..., "value": ..., "unit": ..., "kernel": ...}.
// calibrate/run_calibration.py checks each kernel's SASS and writes a table file.
#include <cuda.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <numeric>
#include <random>
#include <vector>

#define CK(x) do { cudaError_t e = (x); if (e != cudaSuccess) { fprintf(stderr, "CUDA error %s at line %d\n", cudaGetErrorString(e), __LINE__); exit(1); } } while (0)
#define CKD(x) do { CUresult e = (x); if (e != CUDA_SUCCESS) { const char* m = ""; cuGetErrorString(e, &m); fprintf(stderr, "CUDA driver error %s at line %d\n", m, __LINE__); exit(1); } } while (0)

constexpr int CHAIN = 256;   // instructions per timed chain (unrolled)
constexpr int ITERS = 16;    // chain repetitions

// ---------------------------------------------------------------------------------------------
// ALU chains. OP(x) is one inline-PTX instruction that reads and writes x.
#define ALU_KERNEL(NAME, T, CONSTRAINT, ASM, INIT)                                                 \
  __global__ void lat_##NAME(long long* cycles, T* sink, T seed) {                                 \
    T x = seed + (T)threadIdx.x;                                                                   \
    T y = (T)INIT;                                                                                 \
    long long best = 1ll << 62;                                                                    \
    for (int it = 0; it < ITERS; ++it) {                                                           \
      __syncwarp();                                                                                \
      long long t0 = clock64();                                                                    \
      _Pragma("unroll") for (int i = 0; i < CHAIN; ++i) asm volatile(ASM : "+" CONSTRAINT(x) : CONSTRAINT(y)); \
      long long t1 = clock64();                                                                    \
      if (t1 - t0 < best) best = t1 - t0;                                                          \
    }                                                                                              \
    if (threadIdx.x == 0) *cycles = best;                                                          \
    sink[threadIdx.x] = x;                                                                         \
  }                                                                                                \
  __global__ void thr_##NAME(long long* cycles, T* sink, T seed) {                                 \
    T x0 = seed + (T)threadIdx.x, x1 = x0 + (T)1, x2 = x0 + (T)2, x3 = x0 + (T)3;                  \
    T x4 = x0 + (T)4, x5 = x0 + (T)5, x6 = x0 + (T)6, x7 = x0 + (T)7;                              \
    T y = (T)INIT;                                                                                 \
    __syncthreads();                                                                               \
    long long t0 = clock64();                                                                      \
    for (int it = 0; it < ITERS; ++it) {                                                           \
      _Pragma("unroll") for (int i = 0; i < CHAIN / 8; ++i) {                                      \
        asm volatile(ASM : "+" CONSTRAINT(x0) : CONSTRAINT(y));                                    \
        asm volatile(ASM : "+" CONSTRAINT(x1) : CONSTRAINT(y));                                    \
        asm volatile(ASM : "+" CONSTRAINT(x2) : CONSTRAINT(y));                                    \
        asm volatile(ASM : "+" CONSTRAINT(x3) : CONSTRAINT(y));                                    \
        asm volatile(ASM : "+" CONSTRAINT(x4) : CONSTRAINT(y));                                    \
        asm volatile(ASM : "+" CONSTRAINT(x5) : CONSTRAINT(y));                                    \
        asm volatile(ASM : "+" CONSTRAINT(x6) : CONSTRAINT(y));                                    \
        asm volatile(ASM : "+" CONSTRAINT(x7) : CONSTRAINT(y));                                    \
      }                                                                                            \
    }                                                                                              \
    __syncthreads();                                                                               \
    long long t1 = clock64();                                                                      \
    if (threadIdx.x == 0) cycles[blockIdx.x] = t1 - t0;                                            \
    sink[blockIdx.x * blockDim.x + threadIdx.x] = x0 + x1 + x2 + x3 + x4 + x5 + x6 + x7;           \
  }

ALU_KERNEL(ffma, float, "f", "fma.rn.f32 %0, %0, %1, %1;", 0.999f)
ALU_KERNEL(fadd, float, "f", "add.f32 %0, %0, %1;", 1e-3f)
ALU_KERNEL(fmul, float, "f", "mul.f32 %0, %0, %1;", 0.999f)
ALU_KERNEL(imad, unsigned, "r", "mad.lo.u32 %0, %0, %1, %1;", 3u)
// IMAD.WIDE.U32 (the 64-bit products of address arithmetic and of Philox/XORWOW generators):
// each step adds the 64-bit product of its low word to itself, so both halves are live (with
// only the low word used, ptxas makes it a 32-bit IMAD). ptxas adds the product's low word
// with an IADD3 (the chain) and its high word with an IADD3.X every other step (off it).
ALU_KERNEL(imad_wide_iadd3, unsigned long long, "l",
           "{.reg .u32 a, b; cvt.u32.u64 a, %0; cvt.u32.u64 b, %1; mad.wide.u32 %0, a, b, %0;}", 0x9e3779b97f4a7c15ull)
ALU_KERNEL(lop3, unsigned, "r", "lop3.b32 %0, %0, %1, %1, 0x96;", 0x5555u)
ALU_KERNEL(shf, unsigned, "r", "shf.l.wrap.b32 %0, %0, %0, %1;", 3u)
ALU_KERNEL(dfma, double, "d", "fma.rn.f64 %0, %0, %1, %1;", 0.999)
ALU_KERNEL(dadd, double, "d", "add.f64 %0, %0, %1;", 1e-3)
ALU_KERNEL(mufu_ex2, float, "f", "ex2.approx.ftz.f32 %0, %0;", 0.f)
ALU_KERNEL(mufu_sqrt, float, "f", "sqrt.approx.ftz.f32 %0, %0;", 0.f)
ALU_KERNEL(popc, unsigned, "r", "popc.b32 %0, %0;", 0u)
ALU_KERNEL(flo, unsigned, "r", "bfind.u32 %0, %0;", 0u)
ALU_KERNEL(hfma2, unsigned, "r", "fma.rn.f16x2 %0, %0, %1, %1;", 0x3bff3bffu)
// Conversions, each alone: the result's bits are reinterpreted as the next input, so the
// chain is one instruction per step and cannot be folded.
ALU_KERNEL(f2i, unsigned, "r", "{.reg .f32 t; mov.b32 t, %0; cvt.rni.s32.f32 %0, t;}", 0u)
ALU_KERNEL(i2f, float, "f", "{.reg .s32 t; mov.b32 t, %0; cvt.rn.f32.s32 %0, t;}", 0.f)
// Pairs: an instruction that ptxas would fold when chained alone, followed by one whose
// latency is measured on its own (the driver subtracts it).
ALU_KERNEL(f2f_pair, float, "f", "{.reg .f64 d; cvt.f64.f32 d, %0; cvt.rn.f32.f64 %0, d;}", 0.f)
ALU_KERNEL(mufu_rcp_fadd, float, "f", "rcp.approx.ftz.f32 %0, %0; add.ftz.f32 %0, %0, %1;", 1e-3f)
ALU_KERNEL(mufu_sin_fmul, float, "f", "sin.approx.ftz.f32 %0, %0; mul.ftz.f32 %0, %0, %1;", 1.0001f)
ALU_KERNEL(isetp_sel, unsigned, "r", "{.reg .pred p; setp.lt.u32 p, %0, %1; selp.u32 %0, %1, 3, p;}", 5u)
ALU_KERNEL(fsetp_fsel, float, "f", "{.reg .pred p; setp.lt.f32 p, %0, %1; selp.f32 %0, %1, 0f40400000, p;}", 5.f)

// CTA barrier: CHAIN bar.sync in a row, timed by thread 0, for CTAs of 1, 8 and 32 warps: the
// cycles from one barrier's release to the next (a lone warp: the barrier's own latency).
__global__ void bar_chain(long long* cycles) {
  long long best = 1ll << 62;
  for (int it = 0; it < ITERS; ++it) {
    __syncthreads();
    long long t0 = clock64();
#pragma unroll
    for (int i = 0; i < CHAIN; ++i) asm volatile("bar.sync 0;" ::: "memory");
    long long t1 = clock64();
    if (t1 - t0 < best) best = t1 - t0;
  }
  if (threadIdx.x == 0) *cycles = best;
}

// Shuffle: each lane reads its neighbour, so no two steps are the same permutation's identity
// (a constant source lane makes the chain idempotent and ptxas keeps one SHFL).
__global__ void lat_shfl(long long* cycles, unsigned* sink, unsigned seed) {
  unsigned x = seed + threadIdx.x, lane = (threadIdx.x + 1) & 31;
  long long best = 1ll << 62;
  for (int it = 0; it < ITERS; ++it) {
    __syncwarp();
    long long t0 = clock64();
#pragma unroll
    for (int i = 0; i < CHAIN; ++i) asm volatile("shfl.sync.idx.b32 %0, %0, %1, 0x1f, -1;" : "+r"(x) : "r"(lane));
    long long t1 = clock64();
    if (t1 - t0 < best) best = t1 - t0;
  }
  if (threadIdx.x == 0) *cycles = best;
  sink[threadIdx.x] = x;
}
__global__ void thr_shfl(long long* cycles, unsigned* sink, unsigned seed) {
  unsigned x[8], lane = (threadIdx.x + 1) & 31;
#pragma unroll
  for (int j = 0; j < 8; ++j) x[j] = seed + threadIdx.x + j;
  __syncthreads();
  long long t0 = clock64();
  for (int it = 0; it < ITERS; ++it) {
#pragma unroll
    for (int i = 0; i < CHAIN / 8; ++i)
#pragma unroll
      for (int j = 0; j < 8; ++j) asm volatile("shfl.sync.idx.b32 %0, %0, %1, 0x1f, -1;" : "+r"(x[j]) : "r"(lane));
  }
  __syncthreads();
  long long t1 = clock64();
  if (threadIdx.x == 0) cycles[blockIdx.x] = t1 - t0;
  unsigned s = 0;
#pragma unroll
  for (int j = 0; j < 8; ++j) s += x[j];
  sink[blockIdx.x * blockDim.x + threadIdx.x] = s;
}

// IADD3: ptxas folds add chains with a loop-invariant operand (x + n*y) and moves half of a
// two-input add chain to IMAD.IADD or IMAD.X (pipe balancing). Three values that each add the
// other two (a += b + c; b += c + a; c += a + b) compile to one three-input IADD3 per step,
// every step depending on the previous one.
constexpr int TRIPLES = 85;  // 255 IADD3 per timed chain
#define IADD3_STEP(a, b, c) asm volatile("add.u32 %0, %0, %1; add.u32 %0, %0, %2;" : "+r"(a) : "r"(b), "r"(c))
__global__ void lat_iadd3(long long* cycles, unsigned* sink, unsigned seed) {
  unsigned a = seed + threadIdx.x, b = seed * 3u, c = seed ^ 0x55u;
  long long best = 1ll << 62;
  for (int it = 0; it < ITERS; ++it) {
    __syncwarp();
    long long t0 = clock64();
#pragma unroll
    for (int i = 0; i < TRIPLES; ++i) { IADD3_STEP(a, b, c); IADD3_STEP(b, c, a); IADD3_STEP(c, a, b); }
    long long t1 = clock64();
    if (t1 - t0 < best) best = t1 - t0;
  }
  if (threadIdx.x == 0) *cycles = best;
  sink[threadIdx.x] = a + b + c;
}
// Four independent triples.
__global__ void thr_iadd3(long long* cycles, unsigned* sink, unsigned seed) {
  unsigned a[4], b[4], c[4];
#pragma unroll
  for (int j = 0; j < 4; ++j) { a[j] = seed + threadIdx.x + j; b[j] = seed * 3u + j; c[j] = seed ^ (0x55u + j); }
  __syncthreads();
  long long t0 = clock64();
  for (int it = 0; it < ITERS; ++it) {
#pragma unroll
    for (int i = 0; i < TRIPLES / 4; ++i)
#pragma unroll
      for (int j = 0; j < 4; ++j) { IADD3_STEP(a[j], b[j], c[j]); IADD3_STEP(b[j], c[j], a[j]); IADD3_STEP(c[j], a[j], b[j]); }
  }
  __syncthreads();
  long long t1 = clock64();
  if (threadIdx.x == 0) cycles[blockIdx.x] = t1 - t0;
  unsigned s = 0;
#pragma unroll
  for (int j = 0; j < 4; ++j) s += a[j] + b[j] + c[j];
  sink[blockIdx.x * blockDim.x + threadIdx.x] = s;
}

// Tensor core: mma.sync m16n8k16 f16 inputs, f32 accumulate; dependent through the accumulator.
// Turing has no k16 shape: there one step is two dependent m16n8k8 (HMMA.1688), and the host
// reports per HMMA.1688. Volta's m8n8k4 is not benchmarked (the host skips the group below sm_75).
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ < 750
#define MMA_16816(c0, c1, c2, c3, a0, a1, a2, a3, b0, b1) __trap()
#elif defined(__CUDA_ARCH__) && __CUDA_ARCH__ < 800
#define MMA_16816(c0, c1, c2, c3, a0, a1, a2, a3, b0, b1)                                                                    \
  do {                                                                                                                     \
    asm volatile("mma.sync.aligned.m16n8k8.row.col.f32.f16.f16.f32 {%0,%1,%2,%3}, {%4,%5}, {%6}, {%0,%1,%2,%3};"           \
                 : "+f"(c0), "+f"(c1), "+f"(c2), "+f"(c3) : "r"(a0), "r"(a1), "r"(b0));                                  \
    asm volatile("mma.sync.aligned.m16n8k8.row.col.f32.f16.f16.f32 {%0,%1,%2,%3}, {%4,%5}, {%6}, {%0,%1,%2,%3};"           \
                 : "+f"(c0), "+f"(c1), "+f"(c2), "+f"(c3) : "r"(a2), "r"(a3), "r"(b1));                                  \
  } while (0)
#else
#define MMA_16816(c0, c1, c2, c3, a0, a1, a2, a3, b0, b1)                                                                    \
  asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};"   \
               : "+f"(c0), "+f"(c1), "+f"(c2), "+f"(c3) : "r"(a0), "r"(a1), "r"(a2), "r"(a3), "r"(b0), "r"(b1))
#endif
__global__ void lat_hmma(long long* cycles, float* sink) {
  unsigned a0 = 0x3c003c00u, a1 = a0, a2 = a0, a3 = a0, b0 = a0, b1 = a0;
  float c0 = threadIdx.x, c1 = 0, c2 = 0, c3 = 0;
  long long best = 1ll << 62;
  for (int it = 0; it < ITERS; ++it) {
    long long t0 = clock64();
#pragma unroll
    for (int i = 0; i < CHAIN / 4; ++i)
      MMA_16816(c0, c1, c2, c3, a0, a1, a2, a3, b0, b1);
    long long t1 = clock64();
    if (t1 - t0 < best) best = t1 - t0;
  }
  if (threadIdx.x == 0) *cycles = best;
  sink[threadIdx.x] = c0 + c1 + c2 + c3;
}
__global__ void thr_hmma(long long* cycles, float* sink) {
  unsigned a = 0x3c003c00u;
  float c[4][4] = {};
  __syncthreads();
  long long t0 = clock64();
  for (int it = 0; it < ITERS; ++it) {
#pragma unroll
    for (int i = 0; i < CHAIN / 16; ++i)
#pragma unroll
      for (int j = 0; j < 4; ++j)
        MMA_16816(c[j][0], c[j][1], c[j][2], c[j][3], a, a, a, a, a, a);
  }
  __syncthreads();
  long long t1 = clock64();
  if (threadIdx.x == 0) cycles[blockIdx.x] = t1 - t0;
  float s = 0;
  for (int j = 0; j < 4; ++j) s += c[j][0] + c[j][1] + c[j][2] + c[j][3];
  sink[blockIdx.x * blockDim.x + threadIdx.x] = s;
}

// The same, with operands read from memory (nothing known to ptxas) and an iteration count from
// the host, so the host can also time it with events and compute the tensor FLOP rate.
__global__ void thr_hmma_rt(long long* cycles, float* sink, const unsigned* ab, int iters) {
  unsigned a0 = ab[0], a1 = ab[1], a2 = ab[2], a3 = ab[3], b0 = ab[4], b1 = ab[5];
  float c[4][4];
#pragma unroll
  for (int j = 0; j < 4; ++j) c[j][0] = c[j][1] = c[j][2] = c[j][3] = 0.f;
  __syncthreads();
  long long t0 = clock64();
  for (int it = 0; it < iters; ++it) {
#pragma unroll
    for (int j = 0; j < 4; ++j)
      MMA_16816(c[j][0], c[j][1], c[j][2], c[j][3], a0, a1, a2, a3, b0, b1);
  }
  __syncthreads();
  long long t1 = clock64();
  if (threadIdx.x == 0) cycles[blockIdx.x] = t1 - t0;
  float s = 0;
  for (int j = 0; j < 4; ++j) s += c[j][0] + c[j][1] + c[j][2] + c[j][3];
  sink[blockIdx.x * blockDim.x + threadIdx.x] = s;
}

// F1 Table I: the cycles per instruction one sees with N independent add.u32 between two
// clock reads (the clock read's own cost is spread over the window).
template <int N>
__global__ void window_cpi(long long* out, unsigned* sink, unsigned seed) {
  unsigned x[N];
#pragma unroll
  for (int i = 0; i < N; ++i) x[i] = seed + threadIdx.x + i;
  unsigned best = ~0u;
  for (int it = 0; it < ITERS; ++it) {
    unsigned t0, t1;
    asm volatile("mov.u32 %0, %%clock;" : "=r"(t0));
#pragma unroll
    for (int i = 0; i < N; ++i) asm volatile("add.u32 %0, %0, %1;" : "+r"(x[i]) : "r"(seed));
    asm volatile("mov.u32 %0, %%clock;" : "=r"(t1));
    if (t1 - t0 < best) best = t1 - t0;
  }
  unsigned s = 0;
#pragma unroll
  for (int i = 0; i < N; ++i) s += x[i];
  if (threadIdx.x == 0) *out = best;
  sink[threadIdx.x] = s;
}

#ifdef GPUPERF_HGMMA  // sm_90a: the driver adds -arch=sm_90a -DGPUPERF_HGMMA on Hopper
#include "hgmma_kernels.cuh"
#endif

// ---------------------------------------------------------------------------------------------
// Pointer chases: one thread follows next[] for `steps` steps; cycles per step.
__global__ void chase_global_ca(const unsigned* next, long long* cycles, unsigned* sink, int steps) {
  unsigned p = 0;
  for (int i = 0; i < steps; ++i) p = __ldca(next + p);  // warm-up pass
  long long t0 = clock64();
  for (int i = 0; i < steps; ++i) p = __ldca(next + p);
  long long t1 = clock64();
  *cycles = (t1 - t0) / steps;
  *sink = p;
}
__global__ void chase_global_cg(const unsigned* next, long long* cycles, unsigned* sink, int steps, int warm) {
  unsigned p = 0;
  if (warm) for (int i = 0; i < steps; ++i) p = __ldcg(next + p);
  long long t0 = clock64();
  for (int i = 0; i < steps; ++i) p = __ldcg(next + p);
  long long t1 = clock64();
  *cycles = (t1 - t0) / steps;
  *sink = p;
}
// DRAM latency under load: block 0's thread 0 chases through DRAM (every step a new line) while
// the other CTAs stream 16 B ld.cg loads, 8 in flight per thread, each over its own share of a
// buffer far larger than L2, until the chase is done; each streamer reports its bytes per cycle.
__global__ void chase_under_load(const unsigned* next, const float4* stream, unsigned long long stream_n4, volatile int* done,
                                 long long* cycles, double* bytes_per_cycle, unsigned* sink, int steps) {
  if (blockIdx.x == 0) {
    if (threadIdx.x != 0) return;
    long long t = clock64();
    while (clock64() - t < 40000) {  // let the streamers ramp up
    }
    unsigned p = 0;
    long long t0 = clock64();
    for (int i = 0; i < steps; ++i) p = __ldcg(next + p);
    long long t1 = clock64();
    *cycles = (t1 - t0) / steps;
    *sink = p;
    __threadfence();
    *done = 1;
    return;
  }
  __shared__ unsigned long long loads;
  if (threadIdx.x == 0) loads = 0;
  __syncthreads();
  const unsigned long long share = stream_n4 / (gridDim.x - 1);
  const float4* mine = stream + (blockIdx.x - 1) * share;
  float acc = 0;
  unsigned long long i = threadIdx.x, n = 0;
  long long t0 = clock64();
  while (!*done) {
#pragma unroll
    for (int u = 0; u < 8; ++u) {
      float4 v = __ldcg(mine + i);
      acc += v.x + v.y + v.z + v.w;
      i += blockDim.x;
      if (i >= share) i = threadIdx.x;
    }
    n += 8;
  }
  long long t1 = clock64();
  atomicAdd(&loads, n);
  __syncthreads();
  if (threadIdx.x == 0) bytes_per_cycle[blockIdx.x] = 16.0 * double(loads) / double(t1 - t0);
  if (acc == 1234.5f) sink[1] = 1;
}
// DRAM latency as a loaded SM sees it: every warp chases its own chain of whole 128 B lines
// (32 lanes x 4 B, coalesced; the next line's index is lane 0's value), one line in flight per
// warp, 8-64 warps per SM, every line a first touch. CG: ld.cg (L2 only), else default caching.
template <bool CG>
__global__ void chase_lines(const unsigned* data, long long* cycles, unsigned* sink, unsigned region_words, int steps) {
  const unsigned warp = (blockIdx.x * blockDim.x + threadIdx.x) / 32, lane = threadIdx.x % 32;
  const unsigned* mine = data + (size_t)warp * region_words;
  unsigned p = 0;
  __syncthreads();
  long long t0 = clock64();
  for (int i = 0; i < steps; ++i) {
    unsigned v = CG ? __ldcg(mine + p + lane) : mine[p + lane];
    p = __shfl_sync(0xffffffffu, v, 0);
  }
  long long t1 = clock64();
  if (lane == 0) cycles[warp] = (t1 - t0) / steps;
  if (p == 0xffffffffu) sink[0] = 1;
}
__global__ void chase_shared(long long* cycles, unsigned* sink, int steps) {
  __shared__ unsigned s[4096];
  for (int i = threadIdx.x; i < 4096; i += blockDim.x) s[i] = (i + 97) % 4096;
  __syncthreads();
  if (threadIdx.x) return;
  unsigned p = 0;
  long long t0 = clock64();
  for (int i = 0; i < steps; ++i) p = s[p];
  long long t1 = clock64();
  *cycles = (t1 - t0) / steps;
  *sink = p;
}
// Constant caches: a chase through __constant__ memory with a 64 B stride (the L1 constant line)
// over a footprint from 512 B (inside the 2 KiB L1 constant cache of Volta-Turing) to 60 KiB
// (beyond it, in the L1.5). One thread: every load is a broadcast.
__constant__ unsigned cnext[15360];
__global__ void chase_const(long long* cycles, unsigned* sink, int steps) {
  unsigned p = 0;
  for (int i = 0; i < steps; ++i) p = cnext[p];
  long long t0 = clock64();
  for (int i = 0; i < steps; ++i) p = cnext[p];
  long long t1 = clock64();
  *cycles = (t1 - t0) / steps;
  *sink = p;
}

// Constant-load throughput: every thread follows eight independent chains through __constant__
// memory with a register index (LDC R, c[0x3][R]), in 32 warps per SM. Lane l reads word
// l & mask of a 128 B block whose every word points to the same word of the next block, so a
// warp's load touches mask + 1 distinct words (mask 0: a broadcast). The mask comes at run time,
// so that ptxas cannot prove a broadcast index uniform and load it with ULDC instead. ONE_SP:
// only the warps of one sub-partition (warp % 4 == 0) load, which tells a per-SM unit from a
// per-sub-partition one.
template <bool ONE_SP>
__global__ void thr_const(long long* cycles, unsigned* sink, unsigned mask) {
  unsigned warp = threadIdx.x / 32;
  unsigned off = threadIdx.x & mask;
  unsigned p0 = 0 * 32 + off, p1 = 1 * 32 + off, p2 = 2 * 32 + off, p3 = 3 * 32 + off;
  unsigned p4 = 4 * 32 + off, p5 = 5 * 32 + off, p6 = 6 * 32 + off, p7 = 7 * 32 + off;
  bool active = !ONE_SP || warp % 4 == 0;
  __syncthreads();
  long long t0 = clock64();
  if (active)
    for (int it = 0; it < ITERS; ++it) {
#pragma unroll
      for (int i = 0; i < CHAIN / 8; ++i) {
        p0 = cnext[p0]; p1 = cnext[p1]; p2 = cnext[p2]; p3 = cnext[p3];
        p4 = cnext[p4]; p5 = cnext[p5]; p6 = cnext[p6]; p7 = cnext[p7];
      }
    }
  __syncthreads();
  long long t1 = clock64();
  if (threadIdx.x == 0) cycles[blockIdx.x] = t1 - t0;
  sink[blockIdx.x * blockDim.x + threadIdx.x] = p0 + p1 + p2 + p3 + p4 + p5 + p6 + p7;
}

// TLB: a one-thread chase over the pages of a footprint in random order, one element per 2 MiB page
// (at page k + 128 B * k, which spreads the chased lines over L2 sets), over a footprint of F bytes, so it touches F / 2 MiB pages and only
// F / 2 MiB lines (4 MiB at 64 GiB), which stay in L2. Each step costs an L2 hit while the pages
// fit the TLBs, plus the walk beyond their reach (the recipe of F0 section 3 with the page as stride).
// An ordinary cudaMalloc range is physically contiguous, and the TLBs cover contiguous runs of
// pages with one entry, so it never misses; the scattered range below maps 2 MiB chunks in a
// shuffled order, so that every page needs its own entry.
// Links the pages in the order `order` (a permutation of 0..pages-1): page order[k]'s element
// points at page order[k+1]'s, the last back at the first.
__global__ void chain_init_pages(unsigned long long* base, const unsigned* order, unsigned pages, unsigned long long stride_elems) {
  unsigned k = blockIdx.x * blockDim.x + threadIdx.x;
  if (k < pages) base[order[k] * stride_elems] = order[(k + 1) % pages] * stride_elems;
}
__global__ void chase64_cg(const unsigned long long* next, long long* cycles, unsigned long long* sink, int warm_steps,
                           int timed_steps) {
  unsigned long long p = 0;
  for (int i = 0; i < warm_steps; ++i) p = __ldcg(next + p);
  long long t0 = clock64();
  for (int i = 0; i < timed_steps; ++i) p = __ldcg(next + p);
  long long t1 = clock64();
  *cycles = (t1 - t0) / timed_steps;
  *sink = p;
}

// L1 bandwidth: each CTA streams over its own 16 KiB (fits L1) with 16 B loads.
__global__ void bw_l1(const float4* in, long long* cycles, float* sink, int iters) {
  const float4* mine = in + blockIdx.x * 1024;
  float4 acc = make_float4(0, 0, 0, 0);
  for (int i = 0; i < 4; ++i) { float4 v = __ldca(mine + ((threadIdx.x + i * 256) & 1023)); acc.x += v.x; }
  __syncthreads();
  long long t0 = clock64();
  for (int i = 0; i < iters; ++i) {
    float4 v = __ldca(mine + ((threadIdx.x + i * 32) & 1023));
    acc.x += v.x; acc.y += v.y; acc.z += v.z; acc.w += v.w;
  }
  __syncthreads();
  long long t1 = clock64();
  if (threadIdx.x == 0) cycles[blockIdx.x] = t1 - t0;
  sink[blockIdx.x * blockDim.x + threadIdx.x] = acc.x + acc.y + acc.z + acc.w;
}

// Atomic latency as in F0 Table 4.2 / F3 Table 7: `contenders` lanes of one warp hit the same
// address, the others stay idle; each atomic depends on the previous result (`zero` is 0 at
// run time, which ptxas cannot know).
template <bool SHARED>
__global__ void atomic_latency_dep(unsigned* g, long long* cycles, int contenders, unsigned zero) {
  __shared__ unsigned s[32];
  if (threadIdx.x < 32) s[threadIdx.x] = 0;
  __syncthreads();
  unsigned v = 0;
  __syncwarp();
  long long t0 = clock64();
  if ((int)threadIdx.x < contenders) {
    if (SHARED) for (int i = 0; i < 64; ++i) v = atomicAdd(&s[v & zero], 1u);        // ATOMS
    else for (int i = 0; i < 64; ++i) v = atomicAdd(&g[v & zero], 1u);              // ATOMG
  }
  __syncwarp();
  long long t1 = clock64();
  if (threadIdx.x == 0) *cycles = (t1 - t0) / 64;
  if (v == 0xdeadbeef) g[1] = v;
}
// Atomic throughput: every thread of a full grid adds to one of `k` consecutive words, chosen
// by a per-thread xorshift (a histogram's pattern); the result is unused (RED). The index is
// always computed (x % k, also for k = 1), so ptxas cannot see a warp-uniform address and
// aggregate the warp's updates into one.
template <class T>
__global__ void atomic_rate(T* bins, unsigned k, int per_thread) {
  unsigned x = (blockIdx.x * blockDim.x + threadIdx.x) * 2654435761u + 12345u;
  for (int i = 0; i < per_thread; ++i) {
    x ^= x << 13; x ^= x >> 17; x ^= x << 5;
    atomicAdd(&bins[x % k], T(1));
  }
}

// Atomic throughput over k words one 128 B line apart (`stride` = 32 words): the same random
// bins as atomic_rate, so that rates over k lines and over k consecutive words can be compared
// (is it the lines, spread over the L2's slices, or the words that set the rate?). With
// `warp_word`, every lane of a warp updates its warp's word (a one-value histogram per warp):
// the address is data-dependent, so ptxas cannot aggregate the warp's updates.
__global__ void atomic_rate_lines(unsigned* bins, const unsigned* seeds, unsigned k, unsigned stride, int per_thread, int warp_word) {
  const unsigned t = blockIdx.x * blockDim.x + threadIdx.x;
  unsigned x = seeds[warp_word ? t / 32 : t];
  for (int i = 0; i < per_thread; ++i) {
    x ^= x << 13; x ^= x >> 17; x ^= x << 5;
    atomicAdd(&bins[(x % k) * stride], 1u);
  }
}


// L1 request rates for global accesses spread over several lines: each warp request touches
// `lines` 128 B lines (1, 4, 8 or 32), 32 / lines consecutive 4 B words in each, so the sectors
// per request are max(4, lines) and requests of 1 and 4 lines move the same sectors. The lines
// are spread over a footprint of 2^k lines by an odd multiplier (distinct lines within a
// request, every L2 slice used, the whole footprint touched whatever `lines` is). OP: 0 load through L1 (ld.ca), 1 load from L2 (ld.cg), 2 store,
// 3 reduction (RED.ADD, result unused). Each warp issues `iters` x 4 independent requests.
template <int OP>
__global__ void lsu_rate(unsigned* buf, unsigned line_mask, unsigned lines, int iters, long long* cycles, unsigned* sink) {
  const unsigned lane = threadIdx.x & 31, per_line = 32 / lines;
  const unsigned warp = (blockIdx.x * blockDim.x + threadIdx.x) >> 5;
  const unsigned word_in_line = lane % per_line, line_in_req = lane / per_line;
  unsigned acc = 0;
  __syncthreads();
  long long t0 = clock64();
  for (int it = 0; it < iters; ++it) {
#pragma unroll
    for (int u = 0; u < 4; ++u) {
      const unsigned req = (warp * (unsigned)iters + (unsigned)it) * 4u + (unsigned)u;
      const unsigned line = ((req * lines + line_in_req) * 2654435761u) & line_mask;
      unsigned* a = buf + (size_t)line * 32 + word_in_line;
      if (OP == 0) acc += __ldca(a);
      else if (OP == 1) acc += __ldcg(a);
      else if (OP == 2) *a = req;
      else atomicAdd(a, 1u);
    }
  }
  __syncthreads();
  long long t1 = clock64();
  if (threadIdx.x == 0) cycles[blockIdx.x] = t1 - t0;
  if (acc == 0xdeadbeefu) sink[0] = acc;
}

// ---------------------------------------------------------------------------------------------
// Bandwidths.
__global__ void bw_copy(const float4* in, float4* out, size_t n4) {
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n4; i += (size_t)gridDim.x * blockDim.x) out[i] = in[i];
}
__global__ void bw_read_l2(const float4* in, size_t n4, int passes, float* sink) {
  float4 acc = make_float4(0, 0, 0, 0);
  for (int p = 0; p < passes; ++p)
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n4; i += (size_t)gridDim.x * blockDim.x) {
      float4 v = __ldcg(in + i);
      acc.x += v.x; acc.y += v.y; acc.z += v.z; acc.w += v.w;
    }
  if (acc.x == 1234.5f) sink[0] = acc.y + acc.z + acc.w;
}
__global__ void bw_shared(long long* cycles, float* sink, int iters) {
  __shared__ float s[1024];
  s[threadIdx.x] = threadIdx.x;
  __syncthreads();
  float acc = 0;
  long long t0 = clock64();
  for (int i = 0; i < iters; ++i) acc += s[(threadIdx.x + i) & 1023];
  __syncthreads();
  long long t1 = clock64();
  if (threadIdx.x == 0) cycles[blockIdx.x] = t1 - t0;
  sink[blockIdx.x * blockDim.x + threadIdx.x] = acc;
}
// Shared-memory bandwidth with 16 B loads (LDS.128): one warp reads 512 B, four wavefronts.
__global__ void bw_shared16(long long* cycles, float* sink, int iters) {
  __shared__ float4 s[1024];
  s[threadIdx.x] = make_float4(threadIdx.x, 1, 2, 3);
  __syncthreads();
  float4 acc = make_float4(0, 0, 0, 0);
  long long t0 = clock64();
  for (int i = 0; i < iters; ++i) {
    float4 v = s[(threadIdx.x + i * 32) & 1023];
    acc.x += v.x; acc.y += v.y; acc.z += v.z; acc.w += v.w;
  }
  __syncthreads();
  long long t1 = clock64();
  if (threadIdx.x == 0) cycles[blockIdx.x] = t1 - t0;
  sink[blockIdx.x * blockDim.x + threadIdx.x] = acc.x + acc.y + acc.z + acc.w;
}
__global__ void empty_kernel() {}
// Launch pipelining: one CTA per SM spins for `cycles`; timed back to back, the per-launch time
// against the spin time shows what a launch adds to a kernel that is not empty.
__global__ void spin_kernel(long long cycles) {
  long long t0 = clock64();
  while (clock64() - t0 < cycles) {
  }
}


// ---------------------------------------------------------------------------------------------
static int sms = 0;
static double clock_mhz = 0;

static void emit(const char* bench, double v, const char* unit, const char* kernel) {
  printf("{\"bench\": \"%s\", \"value\": %.4f, \"unit\": \"%s\", \"kernel\": \"%s\"}\n", bench, v, unit, kernel);
  fflush(stdout);
}

// A virtual range of `pages` 2 MiB (allocation-granularity) chunks of device memory mapped in a
// shuffled order: neighbouring virtual pages are not physically adjacent.
struct ScatteredRange {
  CUdeviceptr va = 0;
  size_t gran = 0, size = 0;
  std::vector<CUmemGenericAllocationHandle> chunks;
  explicit ScatteredRange(size_t max_bytes) {
    CUmemAllocationProp prop = {};
    prop.type = CU_MEM_ALLOCATION_TYPE_PINNED;
    prop.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
    prop.location.id = 0;
    CKD(cuMemGetAllocationGranularity(&gran, &prop, CU_MEM_ALLOC_GRANULARITY_MINIMUM));
    size_t n = max_bytes / gran;
    size = n * gran;
    CKD(cuMemAddressReserve(&va, size, 0, 0, 0));
    chunks.resize(n);
    for (auto& h : chunks) CKD(cuMemCreate(&h, gran, &prop, 0));
    std::vector<size_t> order(n);
    std::iota(order.begin(), order.end(), 0);
    std::shuffle(order.begin(), order.end(), std::mt19937_64(12345));
    for (size_t i = 0; i < n; ++i) CKD(cuMemMap(va + i * gran, gran, 0, chunks[order[i]], 0));
    CUmemAccessDesc acc = {};
    acc.location = prop.location;
    acc.flags = CU_MEM_ACCESS_FLAGS_PROT_READWRITE;
    CKD(cuMemSetAccess(va, size, &acc, 1));
  }
  ~ScatteredRange() {
    cuMemUnmap(va, size);
    for (auto h : chunks) cuMemRelease(h);
    cuMemAddressFree(va, size);
  }
};

// Cycles of the slowest of `n` CTAs, each of which wrote its clock64 span to cycles[blockIdx.x].
static long long slowest_cta(const long long* dev_cycles, int n) {
  std::vector<long long> cs(n);
  CK(cudaMemcpy(cs.data(), dev_cycles, sizeof(long long) * n, cudaMemcpyDeviceToHost));
  return *std::max_element(cs.begin(), cs.end());
}

// Milliseconds of the GPU work `launch` enqueues, between two events.
template <class F>
static float elapsed_ms(F launch) {
  cudaEvent_t e0, e1;
  cudaEventCreate(&e0);
  cudaEventCreate(&e1);
  cudaEventRecord(e0);
  launch();
  cudaEventRecord(e1);
  CK(cudaGetLastError());
  CK(cudaEventSynchronize(e1));
  float ms;
  cudaEventElapsedTime(&ms, e0, e1);
  cudaEventDestroy(e0);
  cudaEventDestroy(e1);
  return ms;
}

template <class T, class K>
static void alu(const char* name, K lat, K thr, T seed, const char* lat_kernel, const char* thr_kernel, double lat_instrs = CHAIN,
                double thr_instrs_per_warp = double(CHAIN) * ITERS) {
  long long* cyc;
  T* sink;
  CK(cudaMalloc(&cyc, sizeof(long long) * 4096));
  CK(cudaMalloc(&sink, sizeof(T) * 1024 * 4096));
  lat<<<1, 32>>>(cyc, sink, seed);
  CK(cudaGetLastError());
  CK(cudaDeviceSynchronize());
  long long c;
  CK(cudaMemcpy(&c, cyc, sizeof c, cudaMemcpyDeviceToHost));
  char b[64];
  snprintf(b, sizeof b, "latency.%s", name);
  emit(b, double(c) / lat_instrs, "cycles", lat_kernel);
  if (thr) {
    thr<<<sms, 1024>>>(cyc, sink, seed);
    CK(cudaGetLastError());
    CK(cudaDeviceSynchronize());
    long long mx = slowest_cta(cyc, sms);
    // 32 warps per SM = 8 per sub-partition, each CHAIN*ITERS instructions.
    snprintf(b, sizeof b, "issue_interval.%s", name);
    emit(b, double(mx) / (8.0 * thr_instrs_per_warp), "cycles", thr_kernel);
  }
  cudaFree(cyc);
  cudaFree(sink);
}

static double chase(unsigned* dnext, const std::vector<unsigned>& next, int steps, int mode, int warm = 1) {
  CK(cudaMemcpy(dnext, next.data(), next.size() * 4, cudaMemcpyHostToDevice));
  long long* cyc;
  unsigned* sink;
  CK(cudaMalloc(&cyc, 8));
  CK(cudaMalloc(&sink, 4));
  if (mode == 0) chase_global_ca<<<1, 1>>>(dnext, cyc, sink, steps);
  else chase_global_cg<<<1, 1>>>(dnext, cyc, sink, steps, warm);
  CK(cudaDeviceSynchronize());
  long long c;
  CK(cudaMemcpy(&c, cyc, 8, cudaMemcpyDeviceToHost));
  cudaFree(cyc);
  cudaFree(sink);
  return double(c);
}

static std::vector<unsigned> stride_chain(size_t n_elems, size_t stride_elems) {
  std::vector<unsigned> v(n_elems, 0);
  for (size_t i = 0; i < n_elems; i += stride_elems) v[i] = (unsigned)((i + stride_elems) % n_elems);
  return v;
}

int main(int argc, char** argv) {
  const char* only = argc > 1 ? argv[1] : "";
  cudaDeviceProp prop;
  CK(cudaGetDeviceProperties(&prop, 0));
  sms = prop.multiProcessorCount;
  int khz = 0;
  cudaDeviceGetAttribute(&khz, cudaDevAttrClockRate, 0);
  clock_mhz = khz / 1000.0;
  printf("{\"device\": \"%s\", \"sms\": %d, \"cc\": \"%d.%d\", \"max_clock_mhz\": %.0f, \"l2_bytes\": %d}\n", prop.name, sms, prop.major,
         prop.minor, clock_mhz, prop.l2CacheSize);
  // argv[1]: "" (everything), "alu" (the instruction chains), or a substring of a group name
  // (window, hmma, hgmma, memory, const, tlb, launch, loaded, cta, lsu, atomic_lines, barrier). The driver runs groups in separate processes, so a fault
  // in one (an illegal instruction kills the context) does not lose the others.
  auto want = [&](const char* n) {
    static const char* groups[] = {"window", "hmma", "hgmma", "memory", "const", "tlb", "launch", "loaded", "cta", "lsu", "atomic_lines", "barrier"};
    if (!strcmp(only, "alu")) {
      for (auto g : groups) if (!strcmp(n, g)) return false;
      return true;
    }
    return !*only || strstr(n, only) != nullptr;
  };
#define ALU(name, T, seed) if (want(#name)) alu<T>(#name, lat_##name, thr_##name, (T)seed, "lat_" #name, "thr_" #name);
  ALU(ffma, float, 1.0f)
  ALU(fadd, float, 1.0f)
  ALU(fmul, float, 1.0f)
  if (want("iadd3")) alu<unsigned>("iadd3", lat_iadd3, thr_iadd3, 7u, "lat_iadd3", "thr_iadd3", 3.0 * TRIPLES, 3.0 * (TRIPLES / 4) * 4 * ITERS);
  ALU(imad, unsigned, 1)
  ALU(imad_wide_iadd3, unsigned long long, 0x2545f4914f6cdd1dull)
  ALU(lop3, unsigned, 1)
  ALU(shf, unsigned, 1)
  ALU(dfma, double, 1.0)
  ALU(dadd, double, 1.0)
  ALU(mufu_ex2, float, 0.5f)
  ALU(mufu_sqrt, float, 0.5f)
  ALU(popc, unsigned, 7)
  ALU(flo, unsigned, 7)
  ALU(hfma2, unsigned, 0x3c003c00u)
  ALU(shfl, unsigned, 1)
  ALU(f2i, unsigned, 0x40490fdbu)
  ALU(i2f, float, 3.0f)
  ALU(f2f_pair, float, 1.5f)
  ALU(mufu_rcp_fadd, float, 0.5f)
  ALU(mufu_sin_fmul, float, 0.5f)
  ALU(isetp_sel, unsigned, 1)
  ALU(fsetp_fsel, float, 1.0f)
  if (want("barrier")) {
    long long* c;
    CK(cudaMalloc(&c, 8));
    for (int warps : {1, 8, 32}) {
      bar_chain<<<1, 32 * warps>>>(c);
      CK(cudaGetLastError());
      char b[64];
      snprintf(b, sizeof b, "barrier.cycles_per_bar_w%d", warps);
      emit(b, double(slowest_cta(c, 1)) / CHAIN, "cycles", "bar_chain");
    }
    cudaFree(c);
  }
  if (want("window")) {
    long long* c;
    unsigned* sink;
    CK(cudaMalloc(&c, 8));
    CK(cudaMalloc(&sink, 4 * 32));
    auto one = [&](auto kernel, int n) {
      kernel<<<1, 32>>>(c, sink, 1u);
      CK(cudaGetLastError());
      CK(cudaDeviceSynchronize());
      long long v;
      CK(cudaMemcpy(&v, c, 8, cudaMemcpyDeviceToHost));
      char b[64], k[64];
      snprintf(b, sizeof b, "window_cpi.%d", n);
      snprintf(k, sizeof k, "window_cpi<%d>", n);
      emit(b, double(v) / n, "cycles", k);
    };
    one(window_cpi<1>, 1);
    one(window_cpi<2>, 2);
    one(window_cpi<3>, 3);
    one(window_cpi<4>, 4);
    one(window_cpi<8>, 8);
    one(window_cpi<64>, 64);
    cudaFree(c);
    cudaFree(sink);
  }
  const int cc = prop.major * 10 + prop.minor;
  if (want("hmma") && cc < 75) fprintf(stderr, "hmma: skipped, mma.sync f16 shapes start at sm_75\n");
  if (want("hmma") && cc >= 75) {
    // Per instruction: one HMMA.16816 per step on sm_80+, two HMMA.1688 on Turing.
    const double per_step = cc >= 80 ? 1 : 2;
    const char* shape = cc >= 80 ? "16816" : "1688";
    char b[80];
    long long* cyc;
    float* sink;
    CK(cudaMalloc(&cyc, 8 * 4096));
    CK(cudaMalloc(&sink, 4 * 1024 * 4096));
    lat_hmma<<<1, 32>>>(cyc, sink);
    CK(cudaDeviceSynchronize());
    long long c;
    CK(cudaMemcpy(&c, cyc, 8, cudaMemcpyDeviceToHost));
    snprintf(b, sizeof b, "latency.hmma_%s_f32", shape);
    emit(b, double(c) / (CHAIN / 4) / per_step, "cycles", "lat_hmma");
    CK(cudaMemset(cyc, 0, 8 * 4096));
    thr_hmma<<<sms, 1024>>>(cyc, sink);
    CK(cudaGetLastError());
    CK(cudaDeviceSynchronize());
    snprintf(b, sizeof b, "issue_interval.hmma_%s_f32_const", shape);
    emit(b, double(slowest_cta(cyc, sms)) / (8.0 * (CHAIN / 16) * 4 * ITERS * per_step), "cycles", "thr_hmma");
    // Runtime operands, 1..8 warps per sub-partition; clock64 per CTA and events for the grid.
    unsigned* ab;
    CK(cudaMalloc(&ab, 64));
    unsigned host_ab[8] = {0x3c003c00u, 0x3c003c00u, 0x3c003c00u, 0x3c003c00u, 0x3c003c00u, 0x3c003c00u, 0, 0};
    CK(cudaMemcpy(ab, host_ab, 32, cudaMemcpyHostToDevice));
    const int iters = 4096;
    for (int warps_per_sp : {1, 2, 4, 8}) {
      int threads = 128 * warps_per_sp;
      thr_hmma_rt<<<sms, threads>>>(cyc, sink, ab, 16);
      CK(cudaGetLastError());
      float ms = elapsed_ms([&] { thr_hmma_rt<<<sms, threads>>>(cyc, sink, ab, iters); });
      long long mx = slowest_cta(cyc, sms);
      double per_sp = double(warps_per_sp) * iters * 4;  // m16n8k16 steps per sub-partition
      snprintf(b, sizeof b, "issue_interval.hmma_%s_f32_w%d", shape, warps_per_sp);
      emit(b, double(mx) / (per_sp * per_step), "cycles", "thr_hmma_rt");
      snprintf(b, sizeof b, "rate.hmma_%s_f32_w%d", shape, warps_per_sp);
      emit(b, double(sms) * 4 * per_sp * 4096.0 / (ms * 1e-3) / 1e12, "TFLOPS", "thr_hmma_rt");
    }
    cudaFree(ab);
  }
#ifdef GPUPERF_HGMMA
  if (want("hgmma")) {
    long long* cyc;
    float* sink;
    CK(cudaMalloc(&cyc, 8 * 4096));
    CK(cudaMalloc(&sink, 4 * 256 * 4096));
    lat_hgmma<<<1, 128>>>(cyc, sink, 8);
    CK(cudaGetLastError());
    lat_hgmma<<<1, 128>>>(cyc, sink, 256);
    CK(cudaGetLastError());
    CK(cudaDeviceSynchronize());
    long long c;
    CK(cudaMemcpy(&c, cyc, 8, cudaMemcpyDeviceToHost));
    emit("latency.hgmma_64x128x16_f32", double(c), "cycles", "lat_hgmma");
    const int batches = 512;
    for (int wg : {1, 2}) {
      thr_hgmma<<<sms, 128 * wg>>>(cyc, sink, 4);
      CK(cudaGetLastError());
      float ms = elapsed_ms([&] { thr_hgmma<<<sms, 128 * wg>>>(cyc, sink, batches); });
      long long mx = slowest_cta(cyc, sms);
      double per_sm = double(wg) * batches * 8;  // wgmma per SM
      char b[80];
      // Cycles per wgmma per SM = cycles per warp-level HGMMA instruction per sub-partition.
      snprintf(b, sizeof b, "issue_interval.hgmma_64x128x16_f32_wg%d", wg);
      emit(b, double(mx) / per_sm, "cycles", "thr_hgmma");
      snprintf(b, sizeof b, "rate.hgmma_64x128x16_f32_wg%d", wg);
      emit(b, double(sms) * per_sm * 2.0 * 64 * 128 * 16 / (ms * 1e-3) / 1e12, "TFLOPS", "thr_hgmma");
    }
    cudaFree(cyc);
    cudaFree(sink);
  }
#endif
  if (want("memory")) {
    size_t big = (size_t)1 << 30;  // 1 GiB of unsigned
    unsigned* dnext;
    CK(cudaMalloc(&dnext, big));
    emit("latency.l1_hit", chase(dnext, stride_chain(4096, 32), 128, 0), "cycles", "chase_global_ca");
    emit("latency.l2_hit", chase(dnext, stride_chain((size_t)4 << 20, 64), 2048, 1), "cycles", "chase_global_cg");
    // DRAM: 1 GiB footprint, 64 KiB + 128 B stride: every step misses L2; pages are reused often enough for the TLB.
    emit("latency.dram", chase(dnext, stride_chain(big / 4, (65536 + 128) / 4), 4096, 1, 0), "cycles", "chase_global_cg");
    long long* cyc;
    unsigned* sink;
    CK(cudaMalloc(&cyc, 8 * 4096));
    CK(cudaMalloc(&sink, 4 * 4096));
    chase_shared<<<1, 256>>>(cyc, sink, 4096);
    CK(cudaDeviceSynchronize());
    long long c;
    CK(cudaMemcpy(&c, cyc, 8, cudaMemcpyDeviceToHost));
    emit("latency.shared", double(c), "cycles", "chase_shared");
    // Atomic latency vs contention (F0 Table 4.2 / F3 Table 7).
    for (int sh = 0; sh < 2; ++sh)
      for (int cont : {1, 2, 4, 8, 16, 32}) {
        if (sh) atomic_latency_dep<true><<<1, 32>>>(dnext, cyc, cont, 0u);
        else atomic_latency_dep<false><<<1, 32>>>(dnext, cyc, cont, 0u);
        CK(cudaGetLastError());
        CK(cudaDeviceSynchronize());
        CK(cudaMemcpy(&c, cyc, 8, cudaMemcpyDeviceToHost));
        char b[64];
        snprintf(b, sizeof b, "latency.%s_atomic_%d", sh ? "shared" : "global", cont);
        emit(b, double(c), "cycles", sh ? "atomic_latency_dep<true>" : "atomic_latency_dep<false>");
      }
    // Atomic throughput over k consecutive words (whole grid, random bins): updates per ns.
    {
      for (int f32 = 0; f32 < 2; ++f32)
        for (unsigned k : {1u, 8u, 32u, 256u, 4096u, 65536u, 1u << 20}) {
          CK(cudaMemset(dnext, 0, 4u * k));
          int per_thread = k <= 8 ? 2 : k <= 256 ? 16 : 64;
          auto launch = [&](int n) {
            if (f32) atomic_rate<float><<<sms * 8, 256>>>((float*)dnext, k, n);
            else atomic_rate<unsigned><<<sms * 8, 256>>>(dnext, k, n);
          };
          launch(1);
          CK(cudaGetLastError());
          float ms = elapsed_ms([&] { launch(per_thread); });
          char b[64];
          snprintf(b, sizeof b, "atomic_rate.global_%s_k%u", f32 ? "f32" : "u32", k);
          emit(b, double(sms) * 8 * 256 * per_thread / (ms * 1e6), "updates/ns", f32 ? "atomic_rate<float>" : "atomic_rate<unsigned>");
        }
    }
    // Bandwidths.
    float4* in = (float4*)dnext;
    float4* out;
    CK(cudaMalloc(&out, (size_t)512 << 20));
    size_t n4 = ((size_t)512 << 20) / 16;
    bw_copy<<<sms * 8, 512>>>(in, out, n4);
    float ms = elapsed_ms([&] { for (int r = 0; r < 5; ++r) bw_copy<<<sms * 8, 512>>>(in, out, n4); });
    emit("bandwidth.dram_copy", 5.0 * 2 * ((size_t)512 << 20) / (ms * 1e-3) / 1e9, "GB/s", "bw_copy");
    size_t l2n4 = ((size_t)16 << 20) / 16;
    bw_read_l2<<<sms * 4, 512>>>(in, l2n4, 1, (float*)sink);
    ms = elapsed_ms([&] { bw_read_l2<<<sms * 4, 512>>>(in, l2n4, 20, (float*)sink); });
    emit("bandwidth.l2_read", 20.0 * ((size_t)16 << 20) / (ms * 1e-3) / 1e9, "GB/s", "bw_read_l2");
    float* fs;  // per-thread sinks; both kernels run 1024 threads per SM
    CK(cudaMalloc(&fs, 4 * 1024 * sms));
    bw_shared<<<sms, 1024>>>(cyc, fs, 4096);
    CK(cudaDeviceSynchronize());
    emit("bandwidth.shared_per_sm", 1024.0 * 4 * 4096 / double(slowest_cta(cyc, sms)), "bytes/cycle", "bw_shared");
    // L1: 256 threads per CTA, 4 CTAs per SM, each CTA on its own 16 KiB.
    bw_l1<<<sms * 4, 256>>>((const float4*)dnext, cyc, fs, 4096);
    CK(cudaGetLastError());
    CK(cudaDeviceSynchronize());
    emit("bandwidth.l1_per_sm", 4.0 * 256 * 16 * 4096 / double(slowest_cta(cyc, sms * 4)), "bytes/cycle", "bw_l1");
    CK(cudaFree(fs));
    empty_kernel<<<1, 32>>>();
    CK(cudaDeviceSynchronize());
    ms = elapsed_ms([] { for (int r = 0; r < 1000; ++r) empty_kernel<<<1, 32>>>(); });
    emit("launch.empty_kernel_back_to_back", ms * 1000.0 / 1000, "us", "empty_kernel");
  }
  if (want("loaded")) {
    // DRAM latency vs achieved DRAM bandwidth, as a fraction of the theoretical peak.
    int mem_khz = 0, bus_bits = 0;
    cudaDeviceGetAttribute(&mem_khz, cudaDevAttrMemoryClockRate, 0);
    cudaDeviceGetAttribute(&bus_bits, cudaDevAttrGlobalMemoryBusWidth, 0);
    const double peak_gbs = 2.0 * mem_khz * 1e3 * (bus_bits / 8) / 1e9;
    emit("dram_loaded.peak_gbs", peak_gbs, "GB/s", "chase_under_load");
    size_t big = (size_t)1 << 30, stream_bytes = (size_t)4 << 30;
    unsigned* dnext;
    float4* stream;
    int* done;
    long long* cyc;
    double* rates;
    unsigned* sink;
    CK(cudaMalloc(&dnext, big));
    CK(cudaMalloc(&stream, stream_bytes));
    CK(cudaMemset(stream, 0, stream_bytes));
    CK(cudaMalloc(&done, 4));
    CK(cudaMalloc(&cyc, 8));
    CK(cudaMalloc(&rates, 8 * 4096));
    CK(cudaMalloc(&sink, 8));
    auto chain = stride_chain(big / 4, (65536 + 128) / 4);
    CK(cudaMemcpy(dnext, chain.data(), big, cudaMemcpyHostToDevice));
    for (int streamers : {0, 2, 4, 8, 16, 33, 66, 99, 131, 262}) {
      for (int threads : {256, 1024}) {
        if (streamers == 0 && threads == 1024) continue;
        CK(cudaMemset(done, 0, 4));
        CK(cudaMemset(rates, 0, 8 * 4096));
        CK(cudaMemset(sink, 0, 8));
        // Writing 256 MiB evicts the chain's lines from L2 (each run chases the same lines).
        CK(cudaMemset(stream, 1, (size_t)256 << 20));
        chase_under_load<<<1 + streamers, threads>>>(dnext, stream, stream_bytes / 16, done, cyc, rates, sink, 2048);
        CK(cudaGetLastError());
        CK(cudaDeviceSynchronize());
        long long c;
        CK(cudaMemcpy(&c, cyc, 8, cudaMemcpyDeviceToHost));
        std::vector<double> r(1 + streamers);
        CK(cudaMemcpy(r.data(), rates, 8 * (1 + streamers), cudaMemcpyDeviceToHost));
        double bpc = 0;
        for (int b = 1; b <= streamers; ++b) bpc += r[b];
        char b[80];
        snprintf(b, sizeof b, "dram_loaded.latency_s%d_t%d", streamers, threads);
        emit(b, double(c), "cycles", "chase_under_load");
        snprintf(b, sizeof b, "dram_loaded.utilization_s%d_t%d", streamers, threads);
        emit(b, bpc * clock_mhz * 1e6 / 1e9 / peak_gbs, "fraction", "chase_under_load");
      }
    }
    // Lines chased by every warp of a loaded SM (the chain: word 0 of each line holds the next line).
    for (int cg = 0; cg < 2; ++cg)
      for (int blocks_per_sm : {1, 2, 4, 8}) {
        const int warps = sms * blocks_per_sm * 8, steps = 128;
        const unsigned region_words = (unsigned)((stream_bytes / 4) / warps);
        const unsigned stride_words = 32 * 5;  // 640 B: every step a new line
        std::vector<unsigned> chain(region_words, 0);
        for (unsigned w = 0; w + stride_words < region_words; w += stride_words) chain[w] = w + stride_words;
        CK(cudaMemset(stream, 0, stream_bytes));
        for (int wp = 0; wp < warps; ++wp) CK(cudaMemcpyAsync((unsigned*)stream + (size_t)wp * region_words, chain.data(), 4ull * std::min<unsigned>(region_words, stride_words * (steps + 2)), cudaMemcpyHostToDevice));
        CK(cudaMemset(dnext, 1, (size_t)256 << 20));  // evict the chains from L2
        long long* wc;
        CK(cudaMalloc(&wc, 8ull * warps));
        float ms = elapsed_ms([&] {
          if (cg) chase_lines<true><<<sms * blocks_per_sm, 256>>>((const unsigned*)stream, wc, sink, region_words, steps);
          else chase_lines<false><<<sms * blocks_per_sm, 256>>>((const unsigned*)stream, wc, sink, region_words, steps);
        });
        std::vector<long long> c(warps);
        CK(cudaMemcpy(c.data(), wc, 8ull * warps, cudaMemcpyDeviceToHost));
        std::sort(c.begin(), c.end());
        char b[80];
        snprintf(b, sizeof b, "dram_loaded.line_latency_%s_w%d", cg ? "cg" : "ca", blocks_per_sm * 8);
        emit(b, double(c[warps / 2]), "cycles", cg ? "chase_lines<true>" : "chase_lines<false>");
        snprintf(b, sizeof b, "dram_loaded.line_utilization_%s_w%d", cg ? "cg" : "ca", blocks_per_sm * 8);
        emit(b, 128.0 * warps * steps / (ms * 1e-3) / 1e9 / peak_gbs, "fraction", cg ? "chase_lines<true>" : "chase_lines<false>");
        CK(cudaFree(wc));
      }
    CK(cudaFree(dnext));
    CK(cudaFree(stream));
    CK(cudaFree(done));
    CK(cudaFree(cyc));
    CK(cudaFree(rates));
    CK(cudaFree(sink));
  }
  if (want("const")) {
    long long* cyc;
    unsigned* sink;
    CK(cudaMalloc(&cyc, 8));
    CK(cudaMalloc(&sink, 4));
    for (unsigned bytes : {512u, 1024u, 2048u, 3072u, 4096u, 8192u, 16384u, 32768u, 61440u}) {
      unsigned words = bytes / 4;
      std::vector<unsigned> cn(words, 0);
      for (unsigned i = 0; i < words; i += 16) cn[i] = (i + 16) % words;
      CK(cudaMemcpyToSymbol(cnext, cn.data(), bytes));
      // The warm pass visits every line at least twice.
      chase_const<<<1, 1>>>(cyc, sink, (int)std::max(512u, 2 * words / 16));
      CK(cudaGetLastError());
      CK(cudaDeviceSynchronize());
      long long c;
      CK(cudaMemcpy(&c, cyc, 8, cudaMemcpyDeviceToHost));
      char b[64];
      snprintf(b, sizeof b, "latency.const_footprint_b_%u", bytes);
      emit(b, double(c), "cycles", "chase_const");
    }
    CK(cudaFree(cyc));
    CK(cudaFree(sink));
    // Throughput: 2 KiB of 128 B blocks (inside every generation's L1 constant cache).
    {
      const unsigned words = 512, threads = 1024;
      std::vector<unsigned> cn(words);
      for (unsigned i = 0; i < words; ++i) cn[i] = ((i / 32 + 1) % (words / 32)) * 32 + i % 32;
      CK(cudaMemcpyToSymbol(cnext, cn.data(), words * 4));
      long long* tc;
      unsigned* ts;
      CK(cudaMalloc(&tc, 8 * sms));
      CK(cudaMalloc(&ts, 4ull * sms * threads));
      auto run = [&](bool one_sp, unsigned dist) {
        auto kernel = one_sp ? thr_const<true> : thr_const<false>;
        kernel<<<sms, threads>>>(tc, ts, dist - 1);  // warm
        kernel<<<sms, threads>>>(tc, ts, dist - 1);
        CK(cudaGetLastError());
        CK(cudaDeviceSynchronize());
        std::vector<long long> c(sms);
        CK(cudaMemcpy(c.data(), tc, 8 * sms, cudaMemcpyDeviceToHost));
        std::sort(c.begin(), c.end());
        double loads = double(one_sp ? 8 : 32) * CHAIN * ITERS;
        char b[80];
        snprintf(b, sizeof b, "const_rate.loads_per_sm_cycle_d%u%s", dist, one_sp ? "_one_sp" : "");
        emit(b, loads / double(c[sms / 2]), "warp loads per cycle", one_sp ? "thr_const<true>" : "thr_const<false>");
      };
      run(false, 1);
      run(true, 1);
      run(false, 2);
      run(false, 4);
      run(false, 32);
      CK(cudaFree(tc));
      CK(cudaFree(ts));
    }
  }
  if (want("launch")) {
    for (double us : {0.25, 0.5, 1.0, 2.0, 3.0, 4.0, 6.0, 8.0, 12.0, 16.0, 24.0, 32.0, 64.0}) {
      long long cycles = (long long)(us * clock_mhz);
      spin_kernel<<<sms, 32>>>(cycles);
      CK(cudaDeviceSynchronize());
      const int n = 200;
      float ms = elapsed_ms([&] { for (int r = 0; r < n; ++r) spin_kernel<<<sms, 32>>>(cycles); });
      char b[64];
      snprintf(b, sizeof b, "launch.back_to_back_us_spin_%g", us);
      emit(b, ms * 1000.0 / n, "us", "spin_kernel");
    }
  }
  // CTA dispatch: back-to-back launches of an empty kernel with N CTAs. The slope of the
  // per-launch time over N is how fast the GPU starts (and retires) CTAs; it bounds kernels of
  // many short CTAs. Given per SM (x SMs x clock): whether the limit is per SM or GPU-wide is
  // told apart by a green context holding about half of the SMs.
  if (want("cta")) {
    auto per_launch_us = [&](int ctas, int threads, size_t smem, cudaStream_t st) {
      empty_kernel<<<ctas, threads, smem, st>>>();
      CK(cudaGetLastError());
      CK(cudaStreamSynchronize(st));
      cudaEvent_t e0, e1;
      CK(cudaEventCreate(&e0));
      CK(cudaEventCreate(&e1));
      float best = 1e30f;
      for (int rep = 0; rep < 3; ++rep) {
        CK(cudaEventRecord(e0, st));
        for (int r = 0; r < 10; ++r) empty_kernel<<<ctas, threads, smem, st>>>();
        CK(cudaEventRecord(e1, st));
        CK(cudaEventSynchronize(e1));
        float ms;
        CK(cudaEventElapsedTime(&ms, e0, e1));
        best = std::min(best, ms);
      }
      cudaEventDestroy(e0);
      cudaEventDestroy(e1);
      return best * 1000.0 / 10;
    };
    // Least-squares slope of the per-launch time over the CTA count, in SM cycles per CTA per SM.
    auto slope_cycles = [&](int threads, size_t smem, cudaStream_t st, int sms_used, const char* label) {
      std::vector<double> xs, ys;
      for (int per_sm : {64, 256, 1024, 2048}) {
        int n = sms_used * per_sm;
        double us = per_launch_us(n, threads, smem, st);
        char b[96];
        snprintf(b, sizeof b, "cta.launch_us_%s_n%d", label, n);
        emit(b, us, "us", "empty_kernel");
        xs.push_back(n);
        ys.push_back(us);
      }
      double mx = std::accumulate(xs.begin(), xs.end(), 0.0) / xs.size(), my = std::accumulate(ys.begin(), ys.end(), 0.0) / ys.size();
      double sxy = 0, sxx = 0;
      for (size_t i = 0; i < xs.size(); ++i) { sxy += (xs[i] - mx) * (ys[i] - my); sxx += (xs[i] - mx) * (xs[i] - mx); }
      double cycles = sxy / sxx * clock_mhz * sms_used;
      char b[96];
      snprintf(b, sizeof b, "cta.dispatch_cycles_per_sm_%s", label);
      emit(b, cycles, "cycles", "empty_kernel");
    };
    for (int t : {32, 64, 128, 256, 512, 1024}) {
      char label[32];
      snprintf(label, sizeof label, "t%d", t);
      slope_cycles(t, 0, 0, sms, label);
    }
    // One CTA resident per SM (dynamic shared memory fills it): the next CTA waits for the last
    // to retire, so the slope is the SM's CTA turnaround.
    int max_dyn = 0;
    cudaDeviceGetAttribute(&max_dyn, cudaDevAttrMaxSharedMemoryPerBlockOptin, 0);
    if (max_dyn > 0 && cudaFuncSetAttribute(empty_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, max_dyn) == cudaSuccess)
      slope_cycles(32, (size_t)max_dyn, 0, sms, "t32_one_resident");
    // The same with half of the SMs, in a green context.
    CUdevice dev;
    CKD(cuDeviceGet(&dev, 0));
    CUdevResource all, part, rest;
    unsigned groups_n = 1;
    if (cuDeviceGetDevResource(dev, &all, CU_DEV_RESOURCE_TYPE_SM) == CUDA_SUCCESS &&
        cuDevSmResourceSplitByCount(&part, &groups_n, &all, &rest, 0, (unsigned)sms / 2) == CUDA_SUCCESS && groups_n == 1) {
      CUdevResourceDesc desc;
      CUgreenCtx green;
      CUstream gs;
      if (cuDevResourceGenerateDesc(&desc, &part, 1) == CUDA_SUCCESS && cuGreenCtxCreate(&green, desc, dev, CU_GREEN_CTX_DEFAULT_STREAM) == CUDA_SUCCESS &&
          cuGreenCtxStreamCreate(&gs, green, CU_STREAM_NON_BLOCKING, 0) == CUDA_SUCCESS) {
        int used = (int)part.sm.smCount;
        char label[48];
        snprintf(label, sizeof label, "t32_of_%d_sms", used);
        emit("cta.green_context_sms", used, "SMs", "empty_kernel");
        slope_cycles(32, 0, (cudaStream_t)gs, used, label);
        cuStreamDestroy(gs);
        cuGreenCtxDestroy(green);
      } else {
        fprintf(stderr, "cta: green context unavailable; per-SM vs GPU-wide not separated\n");
      }
    } else {
      fprintf(stderr, "cta: SM resource split unavailable; per-SM vs GPU-wide not separated\n");
    }
  }
  // L1 request rates (lsu_rate): one CTA on one SM gives the SM's own limit in cycles per
  // request (clock64 over the CTA); a CTA on every SM gives the GPU-wide sector rate, with a
  // footprint that stays in L2 and one that does not.
  // Atomic throughput over k lines, one word in each (the L2's slices), for random bins and for
  // one word per warp: updates per ns.
  if (want("atomic_lines")) {
    const unsigned stride = 32, threads = unsigned(sms) * 8 * 256;
    unsigned *bins, *seeds;
    CK(cudaMalloc(&bins, 4ull * stride * 65536));
    CK(cudaMalloc(&seeds, 4ull * threads));
    std::vector<unsigned> h(threads);
    for (unsigned t = 0; t < threads; ++t) h[t] = t * 2654435761u + 12345u;
    CK(cudaMemcpy(seeds, h.data(), 4ull * threads, cudaMemcpyHostToDevice));
    for (int warp_word = 0; warp_word < 2; ++warp_word)
      for (unsigned k : {1u, 8u, 32u, 64u, 128u, 256u, 512u, 1024u, 4096u, 65536u}) {
        CK(cudaMemset(bins, 0, 4ull * stride * k));
        int per_thread = k <= 8 ? 2 : k <= 256 ? 16 : 64;
        auto launch = [&](int n) { atomic_rate_lines<<<sms * 8, 256>>>(bins, seeds, k, stride, n, warp_word); };
        launch(1);
        CK(cudaGetLastError());
        float ms = elapsed_ms([&] { launch(per_thread); });
        char b[80];
        snprintf(b, sizeof b, "atomic_rate.global_u32_%s_lines%u", warp_word ? "warp_word" : "lanes", k);
        emit(b, double(threads) * per_thread / (ms * 1e6), "updates/ns", "atomic_rate_lines");
      }
    // The same kernel over k consecutive words (stride 1: atomic_rate<unsigned>'s pattern, same
    // seeds), filling the consecutive-words curve between its 256- and 4,096-word points.
    for (unsigned k : {512u, 1024u, 2048u}) {
      CK(cudaMemset(bins, 0, 4ull * k));
      auto launch = [&](int n) { atomic_rate_lines<<<sms * 8, 256>>>(bins, seeds, k, 1, n, 0); };
      launch(1);
      CK(cudaGetLastError());
      float ms = elapsed_ms([&] { launch(64); });
      char b[80];
      snprintf(b, sizeof b, "atomic_rate.global_u32_words%u", k);
      emit(b, double(threads) * 64 / (ms * 1e6), "updates/ns", "atomic_rate_lines");
    }
    CK(cudaFree(bins));
    CK(cudaFree(seeds));
  }
  if (want("lsu")) {
    const size_t dram_lines = (size_t)1 << 24;  // 2 GiB
    unsigned* buf;
    long long* cyc;
    unsigned* sink;
    CK(cudaMalloc(&buf, dram_lines * 128));
    CK(cudaMemset(buf, 0, dram_lines * 128));
    CK(cudaMalloc(&cyc, 8 * 4096));
    CK(cudaMalloc(&sink, 8));
    static const char* op_names[] = {"ld_l1", "ld_l2", "st", "red"};
    static const char* kernel_names[] = {"lsu_rate<0>", "lsu_rate<1>", "lsu_rate<2>", "lsu_rate<3>"};
    auto run = [&](int op, int ctas, int threads, unsigned line_mask, unsigned lines, int iters) {
      auto go = [&](int n) {
        switch (op) {
          case 0: lsu_rate<0><<<ctas, threads>>>(buf, line_mask, lines, n, cyc, sink); break;
          case 1: lsu_rate<1><<<ctas, threads>>>(buf, line_mask, lines, n, cyc, sink); break;
          case 2: lsu_rate<2><<<ctas, threads>>>(buf, line_mask, lines, n, cyc, sink); break;
          default: lsu_rate<3><<<ctas, threads>>>(buf, line_mask, lines, n, cyc, sink); break;
        }
      };
      go(std::max(1, iters / 8));  // warm: L1 or L2 holds the footprint where it fits
      CK(cudaGetLastError());
      CK(cudaDeviceSynchronize());
      float ms = elapsed_ms([&] { go(iters); });
      return std::make_pair(ms, slowest_cta(cyc, ctas));
    };
    for (int op = 0; op < 4; ++op)
      for (unsigned lines : {1u, 4u, 8u, 32u})
        for (int threads : {256, 1024}) {
          // ld_l1: 512 lines (64 KiB) stay in L1; the others: 16 MiB stays in L2.
          const unsigned mask = op == 0 ? 511u : (1u << 17) - 1;
          const int iters = 1024;
          auto r = run(op, 1, threads, mask, lines, iters);
          char b[96];
          snprintf(b, sizeof b, "lsu.sm_cycles_per_request_%s_lines%u_w%d", op_names[op], lines, threads / 32);
          emit(b, double(r.second) / (double(threads / 32) * iters * 4), "cycles", kernel_names[op]);
        }
    for (int op = 1; op < 4; ++op)
      for (unsigned lines : {1u, 4u, 8u, 32u})
        for (int dram = 0; dram < 2; ++dram) {
          const unsigned mask = dram ? (unsigned)(dram_lines - 1) : (1u << 17) - 1;
          const int iters = 256;
          auto r = run(op, sms, 1024, mask, lines, iters);
          const double sectors = double(sms) * 32 * iters * 4 * std::max(4u, lines);
          char b[96];
          snprintf(b, sizeof b, "lsu.gpu_sectors_per_cycle_%s_lines%u_%s", op_names[op], lines, dram ? "dram" : "l2");
          emit(b, sectors / (double(r.first) * 1e-3 * clock_mhz * 1e6), "sectors/cycle", kernel_names[op]);
          snprintf(b, sizeof b, "lsu.gpu_sm_cycles_per_request_%s_lines%u_%s", op_names[op], lines, dram ? "dram" : "l2");
          emit(b, double(r.second) / (32.0 * iters * 4), "cycles", kernel_names[op]);
        }
    CK(cudaFree(buf));
    CK(cudaFree(cyc));
    CK(cudaFree(sink));
  }
  // TLB reach and miss cost: L2-hit chase latency vs footprint, one step per 2 MiB page.
  if (want("tlb")) {
    long long* cyc;
    float* fs;
    CK(cudaMalloc(&cyc, 8 * 4096));
    CK(cudaMalloc(&fs, 4 * 1024 * sms));
    bw_shared16<<<sms, 1024>>>(cyc, fs, 4096);
    CK(cudaGetLastError());
    CK(cudaDeviceSynchronize());
    emit("bandwidth.shared16_per_sm", 1024.0 * 16 * 4096 / double(slowest_cta(cyc, sms)), "bytes/cycle", "bw_shared16");
    CK(cudaFree(fs));
    unsigned long long* s64;
    CK(cudaMalloc(&s64, 8));
    const unsigned long long stride = ((2ull << 20) + 128) / 8;
    unsigned* dorder;
    CK(cudaMalloc(&dorder, 4u << 20));
    auto sweep = [&](const char* kind, unsigned long long* t64, size_t cap) {
      for (double gib : {1.0 / 128, 1.0 / 64, 1.0 / 32, 1.0 / 16, 1.0 / 8, 0.25, 0.5, 1.0, 2.0, 4.0, 8.0, 12.0, 16.0, 24.0, 32.0, 48.0, 64.0, 72.0, 80.0, 88.0, 96.0, 104.0, 112.0}) {
        size_t bytes = (size_t)(gib * (1ull << 30));
        if (bytes > cap) break;
        unsigned long long n = bytes / 8;
        unsigned pages = (unsigned)(n / stride);
        // Pages in a random order, so that no next-page prefetch can help.
        std::vector<unsigned> order(pages);
        std::iota(order.begin(), order.end(), 0u);
        std::shuffle(order.begin() + 1, order.end(), std::mt19937(pages));
        CK(cudaMemcpy(dorder, order.data(), 4ull * pages, cudaMemcpyHostToDevice));
        chain_init_pages<<<(pages + 255) / 256, 256>>>(t64, dorder, pages, stride);
        CK(cudaGetLastError());
        // Two passes warm L2 and the TLBs; then at least 8192 timed steps (the chain is a cycle).
        int timed = (int)std::max(pages, 8192u);
        chase64_cg<<<1, 1>>>(t64, cyc, s64, (int)(2 * pages), timed);
        CK(cudaGetLastError());
        CK(cudaDeviceSynchronize());
        long long c;
        CK(cudaMemcpy(&c, cyc, 8, cudaMemcpyDeviceToHost));
        char b[80];
        snprintf(b, sizeof b, "tlb.%s_footprint_gib_%g", kind, gib);
        emit(b, double(c), "cycles", "chase64_cg");
      }
    };
    size_t free_b = 0, total_b = 0;
    CK(cudaMemGetInfo(&free_b, &total_b));
    size_t cap = (size_t)(free_b * 0.85);
    {
      unsigned long long* t64;
      CK(cudaMalloc(&t64, cap));
      sweep("contiguous", t64, cap);
      CK(cudaFree(t64));
    }
    {
      ScatteredRange r(cap);
      sweep("scattered", (unsigned long long*)r.va, r.size);
    }
    CK(cudaFree(s64));
    CK(cudaFree(dorder));
    CK(cudaFree(cyc));
  }
  return 0;
}
