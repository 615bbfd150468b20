// A tiled tensor-core GEMM as the sm_80 CUTLASS and cuBLAS kernels build it, to check what a
// sampled trace says about a GEMM's DRAM and shared-memory traffic against the counters: C (fp32,
// M x N) = A (bf16, M x K, K contiguous) x B (bf16, N x K, K contiguous). 128 x 128 tiles of C a
// CTA, 8 warps of 64 x 32, K in steps of 32 through a 3-stage cp.async ring (LDGSTS), fragments
// read with ldmatrix (LDSM) into mma.sync m16n8k16 (HMMA).
//
// What decides its DRAM reads is how many CTAs run at once and in which order they take the
// tiles: a CTA reads a 128-row panel of A and a 128-row panel of B, every CTA of a tile row reads
// the same A panel and every CTA of a tile column the same B panel. Launched in row order
// (blockIdx.x along N), the CTAs that run together share A and read a band of B that the next
// rows read again, from L2 while it holds them. Launched in groups of 8 tile rows (the
// "swizzle" of CUTLASS's threadblock rasterization), they share both. The configurations cover
// operands that fit the L2 and operands several times its size, in both orders.
//
// Per configuration it prints the kernel's time (CUDA events, best and mean of 5, the L2
// flushed by a read before each) and a checksum of C checked against a host reference on sampled
// entries. Under Nsight Compute or the tracer run one configuration: `./gemm_traffic_probe CONFIG 1`.
//   nvcc -O3 -arch=sm_90 -o gemm_traffic_probe gemm_traffic_probe.cu && ./gemm_traffic_probe [config [runs]]
#include <cuda_bf16.h>
#include <cuda_runtime.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "cuda_check.cuh"
#include "event_timing.cuh"
#include "l2_flush.cuh"

constexpr int kBM = 128, kBN = 128, kBK = 32, kStages = 3, kThreads = 256;
constexpr int kPad = 8;                 // bf16 elements of padding a shared row (80 B rows: ldmatrix without bank conflicts)
constexpr int kRow = kBK + kPad;        // shared row, elements
constexpr int kTileElems = kBM * kRow;  // one operand's tile in one stage
constexpr int kSmemBytes = 2 * kStages * kTileElems * 2;
constexpr int kGroupRows = 8;           // tile rows a group of the grouped order spans

__device__ __forceinline__ unsigned smem_addr(const void* p) { return static_cast<unsigned>(__cvta_generic_to_shared(p)); }
__device__ __forceinline__ void cp_async16(void* dst, const void* src) {
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16;" ::"r"(smem_addr(dst)), "l"(src));
}
__device__ __forceinline__ void cp_async_commit() { asm volatile("cp.async.commit_group;"); }
template <int N>
__device__ __forceinline__ void cp_async_wait() { asm volatile("cp.async.wait_group %0;" ::"n"(N)); }
__device__ __forceinline__ void ldmatrix_x4(unsigned (&r)[4], const void* p) {
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0,%1,%2,%3}, [%4];"
               : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3]) : "r"(smem_addr(p)));
}
__device__ __forceinline__ void mma_bf16(float (&d)[4], const unsigned (&a)[4], unsigned b0, unsigned b1) {
  asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};"
               : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
               : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1));
}

// The tile (row, column) of C a CTA computes: row order, or groups of kGroupRows tile rows
// walked column by column.
__device__ __forceinline__ void tile_of(int order, int tiles_m, int tiles_n, int& tm, int& tn) {
  const int id = blockIdx.x;
  if (order == 0) { tm = id / tiles_n; tn = id % tiles_n; return; }
  const int first = id / (kGroupRows * tiles_n) * kGroupRows, local = id - first * tiles_n;
  const int rows = min(kGroupRows, tiles_m - first);  // the last group may hold fewer rows
  tm = first + local % rows;
  tn = local / rows;
}

__global__ void __launch_bounds__(kThreads) gemm_bf16(const __nv_bfloat16* __restrict__ A, const __nv_bfloat16* __restrict__ B, float* __restrict__ C,
                                                      int M, int N, int K, int order) {
  extern __shared__ __align__(16) __nv_bfloat16 smem[];
  __nv_bfloat16* As = smem;
  __nv_bfloat16* Bs = smem + kStages * kTileElems;
  int tm, tn;
  tile_of(order, M / kBM, N / kBN, tm, tn);
  const __nv_bfloat16* a_panel = A + static_cast<size_t>(tm) * kBM * K;
  const __nv_bfloat16* b_panel = B + static_cast<size_t>(tn) * kBN * K;
  const int tid = threadIdx.x, warp = tid / 32, lane = tid % 32;
  const int warp_m = warp / 4, warp_n = warp % 4;  // 2 x 4 warps of 64 x 32

  // Each thread copies two 16-byte chunks of each operand's 128 x 32 tile a stage.
  auto load_stage = [&](int stage, int k0) {
    for (int c = tid; c < kBM * kBK / 8; c += kThreads) {
      const int row = c / (kBK / 8), col = (c % (kBK / 8)) * 8;
      cp_async16(As + stage * kTileElems + row * kRow + col, a_panel + static_cast<size_t>(row) * K + k0 + col);
      cp_async16(Bs + stage * kTileElems + row * kRow + col, b_panel + static_cast<size_t>(row) * K + k0 + col);
    }
  };

  float acc[4][4][4] = {};
  const int steps = K / kBK;
  for (int s = 0; s < kStages - 1; ++s) {
    if (s < steps) load_stage(s, s * kBK);
    cp_async_commit();
  }
  for (int step = 0; step < steps; ++step) {
    cp_async_wait<kStages - 2>();
    __syncthreads();
    const int next = step + kStages - 1;
    if (next < steps) load_stage(next % kStages, next * kBK);
    cp_async_commit();
    const __nv_bfloat16* as = As + (step % kStages) * kTileElems;
    const __nv_bfloat16* bs = Bs + (step % kStages) * kTileElems;
    for (int kk = 0; kk < kBK; kk += 16) {
      unsigned a[4][4], b[2][4];
      for (int i = 0; i < 4; ++i)
        ldmatrix_x4(a[i], as + (warp_m * 64 + i * 16 + lane % 16) * kRow + kk + (lane / 16) * 8);
      for (int j = 0; j < 2; ++j)
        ldmatrix_x4(b[j], bs + (warp_n * 32 + j * 16 + lane % 8 + (lane / 16) * 8) * kRow + kk + ((lane / 8) % 2) * 8);
      for (int i = 0; i < 4; ++i)
        for (int j = 0; j < 4; ++j) mma_bf16(acc[i][j], a[i], b[j / 2][(j % 2) * 2], b[j / 2][(j % 2) * 2 + 1]);
    }
  }
  cp_async_wait<0>();
  for (int i = 0; i < 4; ++i)
    for (int j = 0; j < 4; ++j) {
      const int row = tm * kBM + warp_m * 64 + i * 16 + lane / 4;
      const int col = tn * kBN + warp_n * 32 + j * 8 + (lane % 4) * 2;
      *reinterpret_cast<float2*>(C + static_cast<size_t>(row) * N + col) = make_float2(acc[i][j][0], acc[i][j][1]);
      *reinterpret_cast<float2*>(C + static_cast<size_t>(row + 8) * N + col) = make_float2(acc[i][j][2], acc[i][j][3]);
    }
}

struct Config {
  int m, n, k, order;
};
// Operands (A + B) of 16 MiB (fit), 64 MiB and 96 MiB (past the 50 MiB L2), 160 MiB with a
// small B (A streamed once, B reused by every tile row).
constexpr Config kConfigs[] = {
    {2048, 2048, 2048, 0}, {4096, 4096, 4096, 0}, {4096, 4096, 4096, 1},
    {8192, 8192, 2048, 0}, {8192, 8192, 2048, 1}, {16384, 1024, 4096, 0},
};
constexpr int kNumConfigs = sizeof(kConfigs) / sizeof(kConfigs[0]);

__global__ void fill_bf16(__nv_bfloat16* p, size_t n, unsigned seed) {
  for (size_t i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += static_cast<size_t>(gridDim.x) * blockDim.x) {
    const unsigned h = (static_cast<unsigned>(i) * 2654435761u) ^ seed;
    p[i] = __float2bfloat16(static_cast<float>(h % 17) / 8.0f - 1.0f);
  }
}

static float host_bf16(__nv_bfloat16 v) { return __bfloat162float(v); }

int main(int argc, char** argv) {
  const int only = argc > 1 ? std::atoi(argv[1]) : -1;
  const int runs = argc > 2 ? std::atoi(argv[2]) : 5;
  cudaDeviceProp prop;
  CK(cudaGetDeviceProperties(&prop, 0));
  CK(cudaFuncSetAttribute(gemm_bf16, cudaFuncAttributeMaxDynamicSharedMemorySize, kSmemBytes));
  float* sink;
  CK(cudaMalloc(&sink, sizeof(float)));
  L2Flush flush(prop, sink);
  std::printf("# %s, %d SMs; bf16 GEMM, 128 x 128 tiles, %d B shared a CTA\n", prop.name, prop.multiProcessorCount, kSmemBytes);
  std::printf("# config M N K order operand_MiB best_us mean_us TFLOPS check\n");
  for (int c = 0; c < kNumConfigs; ++c) {
    if (only >= 0 && c != only) continue;
    const Config cf = kConfigs[c];
    const size_t na = static_cast<size_t>(cf.m) * cf.k, nb = static_cast<size_t>(cf.n) * cf.k, nc = static_cast<size_t>(cf.m) * cf.n;
    __nv_bfloat16 *A, *B;
    float* C;
    CK(cudaMalloc(&A, na * 2));
    CK(cudaMalloc(&B, nb * 2));
    CK(cudaMalloc(&C, nc * 4));
    fill_bf16<<<1024, 256>>>(A, na, 1u);
    fill_bf16<<<1024, 256>>>(B, nb, 2u);
    const int ctas = (cf.m / kBM) * (cf.n / kBN);
    const LaunchTimes t = time_launches(runs, [&](int) { flush(); },
                                        [&](int) { gemm_bf16<<<ctas, kThreads, kSmemBytes>>>(A, B, C, cf.m, cf.n, cf.k, cf.order); });
    CK(cudaGetLastError());
    CK(cudaDeviceSynchronize());
    // Sampled entries of C against the host's sum (the products are exact in fp32; the sums of
    // up to 4096 of them agree to rounding).
    std::vector<__nv_bfloat16> ha(na), hb(nb);
    std::vector<float> hc(nc);
    CK(cudaMemcpy(ha.data(), A, na * 2, cudaMemcpyDeviceToHost));
    CK(cudaMemcpy(hb.data(), B, nb * 2, cudaMemcpyDeviceToHost));
    CK(cudaMemcpy(hc.data(), C, nc * 4, cudaMemcpyDeviceToHost));
    double worst = 0;
    for (int s = 0; s < 64; ++s) {
      const size_t i = (static_cast<size_t>(s) * 7919u) % cf.m, j = (static_cast<size_t>(s) * 104729u) % cf.n;
      double ref = 0;
      for (int k = 0; k < cf.k; ++k) ref += double(host_bf16(ha[i * cf.k + k])) * double(host_bf16(hb[j * cf.k + k]));
      worst = std::fmax(worst, std::fabs(ref - hc[i * cf.n + j]) / (1 + std::fabs(ref)));
    }
    const double flops = 2.0 * cf.m * cf.n * cf.k;
    std::printf("%d %d %d %d %d %.0f %.1f %.1f %.1f %s\n", c, cf.m, cf.n, cf.k, cf.order, (na + nb) * 2.0 / (1 << 20), t.best_ms * 1e3,
                t.mean_ms * 1e3, flops / (t.best_ms * 1e-3) / 1e12, worst < 1e-3 ? "ok" : "WRONG");
    CK(cudaFree(A));
    CK(cudaFree(B));
    CK(cudaFree(C));
  }
  return 0;
}
