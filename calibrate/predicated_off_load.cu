// What a load whose lanes are all predicated off costs a dependent chain (the tracer records
// such executions with an empty mask and no addresses). One warp runs a chain through a
// guard-predicated LDG (@P0 LDG.E, forced with inline PTX) whose result feeds the next
// address; the guard is off for every lane, or on with every lane hitting L1.
//   nvcc -O3 -arch=sm_90 -o predicated_off_load predicated_off_load.cu && ./predicated_off_load
// Measured on the H100 (2026-11-24, driver 580, nvcc 13.0): 47.0 cycles per iteration off,
// 64.8 on. The load that moves no data does not wait for memory: it costs the chain about 18
// cycles less than an L1 hit. The model gives such a load the L1 hit latency (an upper
// estimate) and no traffic.
#include <cstdio>
__global__ void chain(const int* __restrict__ a, int* out, int m1, int m2, int n, long long* cyc) {
  int v = threadIdx.x;
  long long t0 = clock64();
  for (int i = 0; i < n; ++i) {
    int x = 0;
    int pr = (v & m1) | m2;
    asm volatile("{ .reg .pred p; setp.ne.s32 p, %2, 0; @p ld.global.u32 %0, [%1]; }" : "+r"(x) : "l"(a + v), "r"(pr));
    v = (v + x + 1) & 1023;
  }
  long long t1 = clock64();
  out[threadIdx.x] = v;
  if (threadIdx.x == 0) *cyc = t1 - t0;
}
int main() {
  int *a, *out; long long* cyc;
  cudaMalloc(&a, 4096 * 4); cudaMemset(a, 0, 4096 * 4);
  cudaMalloc(&out, 4096 * 4); cudaMalloc(&cyc, 8);
  for (int mode = 0; mode < 2; ++mode) {
    long long best = 1LL << 60;
    for (int r = 0; r < 5; ++r) {
      chain<<<1, 32>>>(a, out, 0, mode, 4096, cyc);
      long long c; cudaMemcpy(&c, cyc, 8, cudaMemcpyDeviceToHost);
      if (c < best) best = c;
    }
    printf("%s: %.1f cycles per iteration\n", mode ? "load on (all lanes, L1 hit)" : "load off (all lanes predicated off)", best / 4096.0);
  }
  return 0;
}
