// What a shared-memory atomic costs the SM, by the lanes' addresses (a probe outside the table
// groups). Histograms and work queues update shared words with ATOMS; when lanes of a warp name
// the same word or words of one bank, the shared pipe serves the request in several passes.
// LDS and STS of the same addresses are timed beside them, so the passes of each form can be
// read against a plain access's.
//
// Forms (SASS, checked with cuobjdump in the results' folder):
//   lds     v += h[a]                          LDS
//   sts     h[a] = v                           STS
//   inc     atomicAdd(&h[a], 1), unused        ATOMS.POPC.INC.32 (lanes on one word: one add of their count)
//   add     atomicAdd(&h[a], v), unused        ATOMS.ADD
//   addret  v += atomicAdd(&h[a], 1)           ATOMS.ADD with a result (a queue's tail)
//   max     atomicMax(&h[a], v), unused        ATOMS.MAX
//   fadd    atomicAdd(&(float)h[a], 1.f)       (whatever sm_90 emits for a shared f32 add)
//   cas     v += atomicCAS(&h[a], v, v + 1)    ATOMS.CAS
//   exch    v += atomicExch(&h[a], v)          ATOMS.EXCH
// Patterns, the word each lane names (offsets of 128 words keep banks and sharing alike):
//   distinct       lane i: word i (32 banks, no sharing)
//   share<k>       k lanes on one word, the words consecutive (k = 2 .. 32; share32: one word)
//   bank<k>        k distinct words in each bank used (32/k banks; k = 2 .. 32)
//   rand256/1024   each lane a word at random among 256 / 1024 (a histogram's bins)
//   few8           only lanes 0-7 active, all on one word (a queue push by some lanes)
//
// Modes:
//   rate    one CTA of `warps` warps on every SM, each warp 8 independent requests an iteration:
//           SM cycles per warp request (clock64 around the loop, median over the CTAs)
//   chain   one warp, each request's address depends on the last one's result: cycles per
//           request (forms with a result only)
//   profile every rate kernel once, small (2 CTAs of 8 warps, 4 iterations), for Nsight
//           Compute's wavefronts and conflicts per form and pattern
//   app     every rate kernel once as a kernel of its own (a CTA of 32 warps on every SM, 16
//           iterations): launches to profile, trace and predict whole
//
//   nvcc -O3 -arch=sm_90 -o shared_atomic_probe shared_atomic_probe.cu
//   ./shared_atomic_probe rate|chain|profile|app [form-pattern prefixes, comma-separated: "add-,lds-bank4"]
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "case_filter.cuh"
#include "cuda_check.cuh"

enum Form { kLds, kSts, kInc, kAdd, kAddRet, kMax, kFadd, kCas, kExch, kForms };
static const char* const kFormNames[kForms] = {"lds", "sts", "inc", "add", "addret", "max", "fadd", "cas", "exch"};
static bool has_result(int f) { return f == kLds || f == kAddRet || f == kCas || f == kExch; }

enum Pattern { kDistinct, kShare2, kShare4, kShare8, kShare16, kShare32, kBank2, kBank4, kBank8, kBank16, kBank32, kRand256, kRand1024, kFew8, kPatterns };
static const char* const kPatternNames[kPatterns] = {"distinct", "share2", "share4", "share8", "share16", "share32", "bank2",
                                                     "bank4",    "bank8",  "bank16", "bank32", "rand256", "rand1024", "few8"};

constexpr int kWords = 4096;  // 16 KiB of shared words
constexpr int kPerIter = 8;   // requests per iteration, 128 words apart

__device__ __forceinline__ unsigned hash32(unsigned x) {
  x ^= x >> 16; x *= 0x7feb352dU; x ^= x >> 15; x *= 0x846ca68bU; x ^= x >> 16;
  return x;
}

template <int P>
__device__ __forceinline__ unsigned word_of(unsigned lane, unsigned warp) {
  switch (P) {
    case kDistinct: return lane;
    case kShare2: return lane / 2;
    case kShare4: return lane / 4;
    case kShare8: return lane / 8;
    case kShare16: return lane / 16;
    case kShare32: return 0;
    case kBank2: return lane % 16 + 32 * (lane / 16);
    case kBank4: return lane % 8 + 32 * (lane / 8);
    case kBank8: return lane % 4 + 32 * (lane / 4);
    case kBank16: return lane % 2 + 32 * (lane / 2);
    case kBank32: return 32 * lane;
    case kRand256: return hash32(warp * 32 + lane + 1) % 256;
    case kRand1024: return hash32(warp * 32 + lane + 1) % 1024;
    case kFew8: return 0;
  }
  return 0;
}

// Words 32 x 128 apart would leave the 4096-word array for bank32; its requests step by one
// word's bank-preserving 32 x 32 instead. Every other pattern steps by 128 words.
template <int P>
__device__ __forceinline__ constexpr unsigned step_words() { return P == kBank32 ? 0 : 128; }

template <int F>
__device__ __forceinline__ unsigned request(unsigned* h, unsigned a, unsigned v) {
  volatile unsigned* vh = h;
  switch (F) {
    case kLds: return vh[a];
    case kSts: vh[a] = v; return 0;
    case kInc: atomicAdd(&h[a], 1u); return 0;
    case kAdd: atomicAdd(&h[a], v); return 0;
    case kAddRet: return atomicAdd(&h[a], 1u);
    case kMax: atomicMax(&h[a], v); return 0;
    case kFadd: atomicAdd(reinterpret_cast<float*>(&h[a]), 1.0f); return 0;
    case kCas: return atomicCAS(&h[a], v, v + 1);
    case kExch: return atomicExch(&h[a], v);
  }
  return 0;
}

// rate: every warp of the CTA issues `iters` x 8 independent requests; thread 0 writes the
// CTA's cycles between the two barriers around the loop.
template <int F, int P>
__global__ void rate_kernel(unsigned* out, long long* cycles, int iters) {
  __shared__ unsigned h[kWords];
  for (int i = threadIdx.x; i < kWords; i += blockDim.x) h[i] = 0;
  const unsigned lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  const unsigned w = word_of<P>(lane, warp + blockIdx.x * 32);
  const bool active = P != kFew8 || lane < 8;
  unsigned v = lane + 1, acc = 0;
  __syncthreads();
  const long long t0 = clock64();
  if (active) {
#pragma unroll 1
    for (int i = 0; i < iters; ++i) {
#pragma unroll
      for (int j = 0; j < kPerIter; ++j) acc += request<F>(h, w + j * step_words<P>() + (P == kBank32 ? j : 0), v);
    }
  }
  __syncthreads();
  const long long t1 = clock64();
  if (threadIdx.x == 0) cycles[blockIdx.x] = t1 - t0;
  if (acc == 0x9e3779b9u) out[0] = acc + h[lane];
}

// chain: one warp; the next request's word depends on the last result (`zero` is 0 at run time).
template <int F, int P>
__global__ void chain_kernel(unsigned* out, long long* cycles, int iters, unsigned zero) {
  __shared__ unsigned h[kWords];
  for (int i = threadIdx.x; i < kWords; i += blockDim.x) h[i] = 0;
  const unsigned lane = threadIdx.x & 31;
  const unsigned w = word_of<P>(lane, 0);
  const bool active = P != kFew8 || lane < 8;
  unsigned v = 1;
  __syncwarp();
  long long t0 = 0, t1 = 0;
  if (active) {
    t0 = clock64();
#pragma unroll 1
    for (int i = 0; i < iters; ++i) {
#pragma unroll
      for (int j = 0; j < kPerIter; ++j) v = request<F>(h, w + (v & zero), v);
    }
    t1 = clock64();
  }
  if (lane == 0) cycles[0] = t1 - t0;
  if (v == 0x9e3779b9u) out[0] = v;
}

using Launch = void (*)(int blocks, int threads, unsigned*, long long*, int, unsigned);
struct Kernel {
  int form, pattern;
  Launch rate, chain;
};

template <int F, int P>
void launch_rate(int blocks, int threads, unsigned* o, long long* c, int iters, unsigned) { rate_kernel<F, P><<<blocks, threads>>>(o, c, iters); }
template <int F, int P>
void launch_chain(int blocks, int threads, unsigned* o, long long* c, int iters, unsigned zero) {
  chain_kernel<F, P><<<blocks, threads>>>(o, c, iters, zero);
}

template <int F, int P>
void add_kernels(std::vector<Kernel>& ks) {
  ks.push_back({F, P, launch_rate<F, P>, has_result(F) ? launch_chain<F, P> : nullptr});
  if constexpr (P + 1 < kPatterns) add_kernels<F, P + 1>(ks);
}
template <int F>
void add_forms(std::vector<Kernel>& ks) {
  add_kernels<F, 0>(ks);
  if constexpr (F + 1 < kForms) add_forms<F + 1>(ks);
}

int main(int argc, char** argv) {
  const std::string mode = argc > 1 ? argv[1] : "rate";
  const std::string only = argc > 2 ? argv[2] : "";
  if (mode != "rate" && mode != "chain" && mode != "profile" && mode != "app") {
    std::fprintf(stderr, "usage: %s rate|chain|profile|app [form-pattern prefixes, comma-separated]\n", argv[0]);
    return 2;
  }
  auto selected = [&](const std::string& name) { return case_selected(only, name); };
  cudaDeviceProp prop;
  CK(cudaGetDeviceProperties(&prop, 0));
  const int sms = prop.multiProcessorCount;
  unsigned* out;
  long long* cycles;
  CK(cudaMalloc(&out, 64));
  CK(cudaMalloc(&cycles, sizeof(long long) * sms));
  std::vector<long long> host(sms);
  std::vector<Kernel> ks;
  add_forms<0>(ks);

  if (mode == "rate") std::printf("form pattern warps_per_sm cycles_per_request_per_sm min max\n");
  if (mode == "chain") std::printf("form pattern cycles_per_request\n");
  for (const Kernel& k : ks) {
    const std::string name = std::string(kFormNames[k.form]) + "-" + kPatternNames[k.pattern];
    if (!selected(name)) continue;
    if (mode == "profile" || mode == "app") {
      if (mode == "profile") k.rate(2, 256, out, cycles, 4, 0);
      else k.rate(sms, 1024, out, cycles, 16, 0);
      CK(cudaGetLastError());
      CK(cudaDeviceSynchronize());
      continue;
    }
    if (mode == "chain") {
      if (!k.chain) continue;
      long long best = -1;
      for (int r = 0; r < 8; ++r) {
        k.chain(1, 32, out, cycles, 32, 0u);
        CK(cudaGetLastError());
        CK(cudaDeviceSynchronize());
        long long c;
        CK(cudaMemcpy(&c, cycles, sizeof c, cudaMemcpyDeviceToHost));
        if (best < 0 || c < best) best = c;
      }
      std::printf("%s %s %.2f\n", kFormNames[k.form], kPatternNames[k.pattern], double(best) / (32.0 * kPerIter));
      continue;
    }
    for (int warps : {4, 8, 32}) {
      const int iters = 256;
      k.rate(sms, 32 * warps, out, cycles, 8, 0);  // warm-up
      CK(cudaGetLastError());
      double best_median = 1e30, lo = 0, hi = 0;
      for (int r = 0; r < 3; ++r) {
        k.rate(sms, 32 * warps, out, cycles, iters, 0);
        CK(cudaGetLastError());
        CK(cudaDeviceSynchronize());
        CK(cudaMemcpy(host.data(), cycles, sizeof(long long) * sms, cudaMemcpyDeviceToHost));
        std::sort(host.begin(), host.end());
        const double per = 1.0 / (double(warps) * iters * kPerIter);
        const double med = host[sms / 2] * per;
        if (med < best_median) { best_median = med; lo = host.front() * per; hi = host.back() * per; }
      }
      std::printf("%s %s %d %.3f %.3f %.3f\n", kFormNames[k.form], kPatternNames[k.pattern], warps, best_median, lo, hi);
    }
  }
  return 0;
}
