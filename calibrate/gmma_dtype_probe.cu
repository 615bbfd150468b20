// Warpgroup MMA throughput by input type on Hopper: f16 (HGMMA k16), tf32 (HGMMA k8) and e4m3
// (QGMMA k32), each m64n128 with f32 accumulators from shared-memory descriptors, as
// hgmma_kernels.cuh's pipelined kernel (batches of 8 into the same accumulators, one batch in
// flight; every SM runs 1-4 warpgroups). A row of each type's operands is 32 B in every case,
// so the one descriptor layout serves all three. Prints cycles per wgmma per SM and FMAs per
// cycle per sub-partition.
//   nvcc -O3 -arch=sm_90a -o gmma_dtype_probe gmma_dtype_probe.cu && ./gmma_dtype_probe
#include <cuda_runtime.h>

#include <cstdint>
#include <cstdio>
#include <vector>

#define ACC "{%0,%1,%2,%3,%4,%5,%6,%7,%8,%9,%10,%11,%12,%13,%14,%15,%16,%17,%18,%19,%20,%21,%22,%23,%24,%25,%26,%27,%28,%29,%30,%31,%32,%33,%34,%35,%36,%37,%38,%39,%40,%41,%42,%43,%44,%45,%46,%47,%48,%49,%50,%51,%52,%53,%54,%55,%56,%57,%58,%59,%60,%61,%62,%63}"
#define OUTS                                                                                                                                  \
  "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]), "+f"(d[8]), "+f"(d[9]), "+f"(d[10]),         \
      "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]), "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]),       \
      "+f"(d[21]), "+f"(d[22]), "+f"(d[23]), "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]),       \
      "+f"(d[31]), "+f"(d[32]), "+f"(d[33]), "+f"(d[34]), "+f"(d[35]), "+f"(d[36]), "+f"(d[37]), "+f"(d[38]), "+f"(d[39]), "+f"(d[40]),       \
      "+f"(d[41]), "+f"(d[42]), "+f"(d[43]), "+f"(d[44]), "+f"(d[45]), "+f"(d[46]), "+f"(d[47]), "+f"(d[48]), "+f"(d[49]), "+f"(d[50]),       \
      "+f"(d[51]), "+f"(d[52]), "+f"(d[53]), "+f"(d[54]), "+f"(d[55]), "+f"(d[56]), "+f"(d[57]), "+f"(d[58]), "+f"(d[59]), "+f"(d[60]),       \
      "+f"(d[61]), "+f"(d[62]), "+f"(d[63])

__device__ inline std::uint64_t smem_desc(const void* p) {
  std::uint64_t addr = static_cast<std::uint32_t>(__cvta_generic_to_shared(p));
  std::uint64_t d = (addr >> 4) & 0x3FFF;
  d |= std::uint64_t(128 >> 4) << 16;
  d |= std::uint64_t(256 >> 4) << 32;
  return d;
}

template <int T>
__device__ inline void mma(float* d, std::uint64_t da, std::uint64_t db) {
  if (T == 0)
    asm volatile("wgmma.mma_async.sync.aligned.m64n128k16.f32.f16.f16 " ACC ", %64, %65, 1, 1, 1, 0, 0;\n" : OUTS : "l"(da), "l"(db));
  else if (T == 1)
    asm volatile("wgmma.mma_async.sync.aligned.m64n128k8.f32.tf32.tf32 " ACC ", %64, %65, 1, 1, 1;\n" : OUTS : "l"(da), "l"(db));
  else
    asm volatile("wgmma.mma_async.sync.aligned.m64n128k32.f32.e4m3.e4m3 " ACC ", %64, %65, 1, 1, 1;\n" : OUTS : "l"(da), "l"(db));
}

template <int T>
__global__ void thr(long long* cycles, float* sink, int batches) {
  __shared__ __align__(128) unsigned char a[64 * 32], b[128 * 32];
  for (int i = threadIdx.x; i < 64 * 32; i += blockDim.x) a[i] = 0;
  for (int i = threadIdx.x; i < 128 * 32; i += blockDim.x) b[i] = 0;
  __syncthreads();
  float d[64];
  for (int i = 0; i < 64; ++i) d[i] = 0.f;
  const std::uint64_t da = smem_desc(a), db = smem_desc(b);
  __syncthreads();
  const long long t0 = clock64();
  asm volatile("wgmma.fence.sync.aligned;\n" ::: "memory");
  for (int it = 0; it < batches; ++it) {
#pragma unroll
    for (int j = 0; j < 8; ++j) mma<T>(d, da, db);
    asm volatile("wgmma.commit_group.sync.aligned;\n" ::: "memory");
    asm volatile("wgmma.wait_group.sync.aligned 1;\n" ::: "memory");
  }
  asm volatile("wgmma.wait_group.sync.aligned 0;\n" ::: "memory");
  __syncthreads();
  const long long t1 = clock64();
  if (threadIdx.x == 0) cycles[blockIdx.x] = t1 - t0;
  float s = 0;
  for (int i = 0; i < 64; ++i) s += d[i];
  sink[blockIdx.x * blockDim.x + threadIdx.x] = s;
}

int main() {
  int sms = 0;
  cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0);
  long long* cyc;
  float* sink;
  cudaMalloc(&cyc, 8 * 1024);
  cudaMalloc(&sink, 4 * 1024 * 512);
  const char* names[] = {"f16 HGMMA.64x128x16", "tf32 HGMMA.64x128x8", "e4m3 QGMMA.64x128x32"};
  const int ks[] = {16, 8, 32};
  const int batches = 512;
  for (int t = 0; t < 3; ++t)
    for (int wg : {1, 2, 4}) {
      auto go = [&](int n) {
        if (t == 0) thr<0><<<sms, 128 * wg>>>(cyc, sink, n);
        else if (t == 1) thr<1><<<sms, 128 * wg>>>(cyc, sink, n);
        else thr<2><<<sms, 128 * wg>>>(cyc, sink, n);
      };
      go(8);
      cudaError_t e = cudaDeviceSynchronize();
      if (e != cudaSuccess) { printf("%s: %s\n", names[t], cudaGetErrorString(e)); return 1; }
      go(batches);
      cudaDeviceSynchronize();
      std::vector<long long> c(sms);
      cudaMemcpy(c.data(), cyc, 8 * sms, cudaMemcpyDeviceToHost);
      long long mx = 0;
      for (auto x : c) mx = mx > x ? mx : x;
      const double per_sm = double(wg) * batches * 8;  // wgmmas per SM
      const double cycles_per = double(mx) / per_sm;
      const double fma_per_cycle_sp = 64.0 * 128 * ks[t] / cycles_per / 4;
      printf("%-22s wg %d  cycles per wgmma per SM %7.2f  fma per cycle per sub-partition %7.1f\n", names[t], wg, cycles_per, fma_per_cycle_sp);
    }
  return 0;
}
