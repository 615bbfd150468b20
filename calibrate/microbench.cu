// gpuperf calibration microbenchmarks, after the seeds' recipes (seed-tables.md appendix B):
// dependent chains timed with clock64 in one warp give the dependent-issue latency; the same
// chains in 8 independent copies across 32 warps per SM give the issue interval; pointer
// chases give memory latencies; streaming kernels give bandwidths.
// Output: one JSON object per line, {"bench": ..., "value": ..., "unit": ..., "kernel": ...}.
// calibrate/run_calibration.py checks each kernel's SASS and writes a table file.
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#define CK(x) do { cudaError_t e = (x); if (e != cudaSuccess) { fprintf(stderr, "CUDA error %s at line %d\n", cudaGetErrorString(e), __LINE__); exit(1); } } while (0)

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
ALU_KERNEL(iadd3, unsigned, "r", "add.u32 %0, %0, %1;", 3u)
ALU_KERNEL(imad, unsigned, "r", "mad.lo.u32 %0, %0, %1, %1;", 3u)
ALU_KERNEL(lop3, unsigned, "r", "lop3.b32 %0, %0, %1, %1, 0x96;", 0x5555u)
ALU_KERNEL(shf, unsigned, "r", "shf.l.wrap.b32 %0, %0, %0, %1;", 3u)
ALU_KERNEL(dfma, double, "d", "fma.rn.f64 %0, %0, %1, %1;", 0.999)
ALU_KERNEL(dadd, double, "d", "add.f64 %0, %0, %1;", 1e-3)
ALU_KERNEL(mufu_ex2, float, "f", "ex2.approx.ftz.f32 %0, %0;", 0.f)
ALU_KERNEL(mufu_rcp, float, "f", "rcp.approx.ftz.f32 %0, %0;", 0.f)
ALU_KERNEL(mufu_sqrt, float, "f", "sqrt.approx.ftz.f32 %0, %0;", 0.f)
ALU_KERNEL(popc, unsigned, "r", "popc.b32 %0, %0;", 0u)
ALU_KERNEL(flo, unsigned, "r", "bfind.u32 %0, %0;", 0u)

// HFMA2: packed half2 in a 32-bit register.
__global__ void lat_hfma2(long long* cycles, unsigned* sink, unsigned seed) {
  unsigned x = seed + threadIdx.x, y = 0x3bff3bffu;
  long long best = 1ll << 62;
  for (int it = 0; it < ITERS; ++it) {
    long long t0 = clock64();
#pragma unroll
    for (int i = 0; i < CHAIN; ++i) asm volatile("fma.rn.f16x2 %0, %0, %1, %1;" : "+r"(x) : "r"(y));
    long long t1 = clock64();
    if (t1 - t0 < best) best = t1 - t0;
  }
  if (threadIdx.x == 0) *cycles = best;
  sink[threadIdx.x] = x;
}

// Conversions: F2I then I2F per step; the pair's latency is reported.
__global__ void lat_cvt_pair(long long* cycles, float* sink, float seed) {
  float x = seed + threadIdx.x;
  long long best = 1ll << 62;
  for (int it = 0; it < ITERS; ++it) {
    long long t0 = clock64();
#pragma unroll
    for (int i = 0; i < CHAIN / 2; ++i) {
      int k;
      asm volatile("cvt.rni.s32.f32 %0, %1;" : "=r"(k) : "f"(x));
      asm volatile("cvt.rn.f32.s32 %0, %1;" : "=f"(x) : "r"(k));
    }
    long long t1 = clock64();
    if (t1 - t0 < best) best = t1 - t0;
  }
  if (threadIdx.x == 0) *cycles = best;
  sink[threadIdx.x] = x;
}

// Warp shuffle chain.
__global__ void lat_shfl(long long* cycles, unsigned* sink, unsigned seed) {
  unsigned x = seed + threadIdx.x;
  long long best = 1ll << 62;
  for (int it = 0; it < ITERS; ++it) {
    long long t0 = clock64();
#pragma unroll
    for (int i = 0; i < CHAIN; ++i) x = __shfl_sync(0xffffffffu, x, (threadIdx.x + 1) & 31);
    long long t1 = clock64();
    if (t1 - t0 < best) best = t1 - t0;
  }
  if (threadIdx.x == 0) *cycles = best;
  sink[threadIdx.x] = x;
}

// Tensor core: mma.sync m16n8k16 f16 inputs, f32 accumulate; dependent through the accumulator.
__global__ void lat_hmma(long long* cycles, float* sink) {
  unsigned a0 = 0x3c003c00u, a1 = a0, a2 = a0, a3 = a0, b0 = a0, b1 = a0;
  float c0 = threadIdx.x, c1 = 0, c2 = 0, c3 = 0;
  long long best = 1ll << 62;
  for (int it = 0; it < ITERS; ++it) {
    long long t0 = clock64();
#pragma unroll
    for (int i = 0; i < CHAIN / 4; ++i)
      asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};"
                   : "+f"(c0), "+f"(c1), "+f"(c2), "+f"(c3) : "r"(a0), "r"(a1), "r"(a2), "r"(a3), "r"(b0), "r"(b1));
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
        asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0,%1,%2,%3}, {%4,%4,%4,%4}, {%4,%4}, {%0,%1,%2,%3};"
                     : "+f"(c[j][0]), "+f"(c[j][1]), "+f"(c[j][2]), "+f"(c[j][3]) : "r"(a));
  }
  __syncthreads();
  long long t1 = clock64();
  if (threadIdx.x == 0) cycles[blockIdx.x] = t1 - t0;
  float s = 0;
  for (int j = 0; j < 4; ++j) s += c[j][0] + c[j][1] + c[j][2] + c[j][3];
  sink[blockIdx.x * blockDim.x + threadIdx.x] = s;
}

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
__constant__ unsigned cnext[8192];
__global__ void chase_const(long long* cycles, unsigned* sink, int steps) {
  unsigned p = 0;
  for (int i = 0; i < steps; ++i) p = cnext[p];
  long long t0 = clock64();
  for (int i = 0; i < steps; ++i) p = cnext[p];
  long long t1 = clock64();
  *cycles = (t1 - t0) / steps;
  *sink = p;
}
__global__ void atomic_latency(unsigned* g, long long* cycles, int contenders, int shared_space) {
  __shared__ unsigned s[32];
  if (threadIdx.x < 32) s[threadIdx.x] = 0;
  __syncthreads();
  unsigned* target = shared_space ? &s[0] : g;
  unsigned v = 0;
  long long t0 = clock64();
  if ((int)threadIdx.x < contenders)
    for (int i = 0; i < 64; ++i) v += atomicAdd(target + (v & 0), 1u);
  long long t1 = clock64();
  if (threadIdx.x == 0) *cycles = (t1 - t0) / 64;
  if (v == 0xdeadbeef) g[1] = v;
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
__global__ void empty_kernel() {}

// ---------------------------------------------------------------------------------------------
static int sms = 0;
static double clock_mhz = 0;

static void emit(const char* bench, double v, const char* unit, const char* kernel) {
  printf("{\"bench\": \"%s\", \"value\": %.4f, \"unit\": \"%s\", \"kernel\": \"%s\"}\n", bench, v, unit, kernel);
  fflush(stdout);
}

template <class T, class K>
static void alu(const char* name, K lat, K thr, T seed, const char* lat_kernel, const char* thr_kernel) {
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
  emit(b, double(c) / CHAIN, "cycles", lat_kernel);
  if (thr) {
    thr<<<sms, 1024>>>(cyc, sink, seed);
    CK(cudaGetLastError());
    CK(cudaDeviceSynchronize());
    std::vector<long long> cs(sms);
    CK(cudaMemcpy(cs.data(), cyc, sizeof(long long) * sms, cudaMemcpyDeviceToHost));
    long long mx = 0;
    for (auto x : cs) mx = std::max(mx, x);
    // 32 warps per SM = 8 per sub-partition, each CHAIN*ITERS instructions.
    snprintf(b, sizeof b, "issue_interval.%s", name);
    emit(b, double(mx) / (8.0 * CHAIN * ITERS), "cycles", thr_kernel);
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
  auto want = [&](const char* n) { return !*only || strstr(n, only); };
#define ALU(name, T, seed) if (want(#name)) alu<T>(#name, lat_##name, thr_##name, (T)seed, "lat_" #name, "thr_" #name);
  ALU(ffma, float, 1.0f)
  ALU(fadd, float, 1.0f)
  ALU(fmul, float, 1.0f)
  ALU(iadd3, unsigned, 1)
  ALU(imad, unsigned, 1)
  ALU(lop3, unsigned, 1)
  ALU(shf, unsigned, 1)
  ALU(dfma, double, 1.0)
  ALU(dadd, double, 1.0)
  ALU(mufu_ex2, float, 0.5f)
  ALU(mufu_rcp, float, 0.5f)
  ALU(mufu_sqrt, float, 0.5f)
  ALU(popc, unsigned, 7)
  ALU(flo, unsigned, 7)
  if (want("hfma2")) alu<unsigned>("hfma2", lat_hfma2, (void (*)(long long*, unsigned*, unsigned)) nullptr, 1u, "lat_hfma2", "");
  if (want("cvt")) alu<float>("cvt_pair", lat_cvt_pair, (void (*)(long long*, float*, float)) nullptr, 1.f, "lat_cvt_pair", "");
  if (want("shfl")) alu<unsigned>("shfl", lat_shfl, (void (*)(long long*, unsigned*, unsigned)) nullptr, 1u, "lat_shfl", "");
  if (want("hmma")) {
    long long* cyc;
    float* sink;
    CK(cudaMalloc(&cyc, 8 * 4096));
    CK(cudaMalloc(&sink, 4 * 1024 * 4096));
    lat_hmma<<<1, 32>>>(cyc, sink);
    CK(cudaDeviceSynchronize());
    long long c;
    CK(cudaMemcpy(&c, cyc, 8, cudaMemcpyDeviceToHost));
    emit("latency.hmma_16816_f32", double(c) / (CHAIN / 4), "cycles", "lat_hmma");
    CK(cudaMemset(cyc, 0, 8 * 4096));
    thr_hmma<<<sms, 1024>>>(cyc, sink);
    CK(cudaGetLastError());
    CK(cudaDeviceSynchronize());
    std::vector<long long> cs(sms);
    CK(cudaMemcpy(cs.data(), cyc, 8 * sms, cudaMemcpyDeviceToHost));
    long long mx = 0;
    for (auto x : cs) mx = std::max(mx, x);
    emit("issue_interval.hmma_16816_f32", double(mx) / (8.0 * (CHAIN / 16) * 4 * ITERS), "cycles", "thr_hmma");
  }
  if (want("memory")) {
    size_t big = (size_t)1 << 30;  // 1 GiB of unsigned
    unsigned* dnext;
    CK(cudaMalloc(&dnext, big));
    emit("latency.l1_hit", chase(dnext, stride_chain(4096, 32), 128, 0), "cycles", "chase_global_ca");
    emit("latency.l2_hit", chase(dnext, stride_chain((size_t)4 << 20, 64), 2048, 1), "cycles", "chase_global_cg");
    // DRAM: 1 GiB footprint, 64 KiB + 128 B stride: every step misses L2; pages are reused often enough for the TLB.
    emit("latency.dram", chase(dnext, stride_chain(big / 4, (65536 + 128) / 4), 4096, 1, 0), "cycles", "chase_global_cg");
    // TLB miss: 2 MiB + 128 B stride over 1 GiB, cold.
    CK(cudaMemset(dnext, 0, big));
    emit("latency.dram_tlb_miss", chase(dnext, stride_chain(big / 4, ((2 << 20) + 128) / 4), 500, 1, 0), "cycles", "chase_global_cg");
    long long* cyc;
    unsigned* sink;
    CK(cudaMalloc(&cyc, 8 * 4096));
    CK(cudaMalloc(&sink, 4 * 4096));
    chase_shared<<<1, 256>>>(cyc, sink, 4096);
    CK(cudaDeviceSynchronize());
    long long c;
    CK(cudaMemcpy(&c, cyc, 8, cudaMemcpyDeviceToHost));
    emit("latency.shared", double(c), "cycles", "chase_shared");
    std::vector<unsigned> cn(8192);
    for (int i = 0; i < 8192; ++i) cn[i] = (i + 16) % 8192;
    CK(cudaMemcpyToSymbol(cnext, cn.data(), 8192 * 4));
    chase_const<<<1, 1>>>(cyc, sink, 512);
    CK(cudaDeviceSynchronize());
    CK(cudaMemcpy(&c, cyc, 8, cudaMemcpyDeviceToHost));
    emit("latency.const", double(c), "cycles", "chase_const");
    for (int sh = 0; sh < 2; ++sh)
      for (int cont : {1, 32}) {
        atomic_latency<<<1, 32>>>(dnext, cyc, cont, sh);
        CK(cudaDeviceSynchronize());
        CK(cudaMemcpy(&c, cyc, 8, cudaMemcpyDeviceToHost));
        char b[64];
        snprintf(b, sizeof b, "latency.%s_atomic_%d", sh ? "shared" : "global", cont);
        emit(b, double(c), "cycles", "atomic_latency");
      }
    // Bandwidths.
    float4* in = (float4*)dnext;
    float4* out;
    CK(cudaMalloc(&out, (size_t)512 << 20));
    size_t n4 = ((size_t)512 << 20) / 16;
    cudaEvent_t e0, e1;
    cudaEventCreate(&e0);
    cudaEventCreate(&e1);
    bw_copy<<<sms * 8, 512>>>(in, out, n4);
    cudaEventRecord(e0);
    for (int r = 0; r < 5; ++r) bw_copy<<<sms * 8, 512>>>(in, out, n4);
    cudaEventRecord(e1);
    CK(cudaEventSynchronize(e1));
    float ms;
    cudaEventElapsedTime(&ms, e0, e1);
    emit("bandwidth.dram_copy", 5.0 * 2 * ((size_t)512 << 20) / (ms * 1e-3) / 1e9, "GB/s", "bw_copy");
    size_t l2n4 = ((size_t)16 << 20) / 16;
    bw_read_l2<<<sms * 4, 512>>>(in, l2n4, 1, (float*)sink);
    cudaEventRecord(e0);
    bw_read_l2<<<sms * 4, 512>>>(in, l2n4, 20, (float*)sink);
    cudaEventRecord(e1);
    CK(cudaEventSynchronize(e1));
    cudaEventElapsedTime(&ms, e0, e1);
    emit("bandwidth.l2_read", 20.0 * ((size_t)16 << 20) / (ms * 1e-3) / 1e9, "GB/s", "bw_read_l2");
    float* fs;
    CK(cudaMalloc(&fs, 4 * 1024 * sms));
    bw_shared<<<sms, 1024>>>(cyc, fs, 4096);
    CK(cudaDeviceSynchronize());
    std::vector<long long> cs(sms);
    CK(cudaMemcpy(cs.data(), cyc, 8 * sms, cudaMemcpyDeviceToHost));
    long long mx = 0;
    for (auto x : cs) mx = std::max(mx, x);
    emit("bandwidth.shared_per_sm", 1024.0 * 4 * 4096 / double(mx), "bytes/cycle", "bw_shared");
    empty_kernel<<<1, 32>>>();
    CK(cudaDeviceSynchronize());
    cudaEventRecord(e0);
    for (int r = 0; r < 1000; ++r) empty_kernel<<<1, 32>>>();
    cudaEventRecord(e1);
    CK(cudaEventSynchronize(e1));
    cudaEventElapsedTime(&ms, e0, e1);
    emit("launch.empty_kernel_back_to_back", ms * 1000.0 / 1000, "us", "empty_kernel");
  }
  return 0;
}
