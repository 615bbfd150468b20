// Probe (not a table group): what does a store cost when its lines stay in L2? A kernel that
// dirties fewer bytes than the L2 holds leaves most of them there when it ends (Nsight Compute
// counts few DRAM writes), yet the validation corpus' times behave as if its stores cost DRAM
// bandwidth. This probe streams float4s through a grid of 8 CTAs of 256 threads per SM, each
// thread looping over the array (one round of CTAs: no dispatch limit), for footprints of 4 MiB
// to 512 MiB a array, in five kinds: read (sum, nothing stored), write (store a constant), copy
// (load one array, store another), update (load, add, store to the same element) and
// empty (no memory access; the launch's own cost). Cold: before each timed launch a 192 MiB read
// of another buffer leaves the L2 clean and holding nothing of the arrays. Warm: the launches
// run back to back, so a footprint that fits finds the previous launch's lines (clean or dirty)
// in L2. Each point is the best and mean of `launches` CUDA-event timed launches. `ncu` on the
// same binary (`--kernel-name regex:stream` and the dram__bytes metrics) tells what reached DRAM.
// Output: one JSON object per line.
//
//   nvcc -O3 -arch=sm_90 -o store_residency_probe calibrate/store_residency_probe.cu && ./store_residency_probe
#include <cstdio>
#include <cstdlib>

#include "event_timing.cuh"
#include "l2_flush.cuh"

enum Kind { kEmpty = 0, kRead = 1, kWrite = 2, kCopy = 3, kUpdate = 4 };
static const char* kind_name[] = {"empty", "read", "write", "copy", "update"};

__global__ void stream(const float4* __restrict__ in, float4* __restrict__ out, size_t n, int kind, float* sink) {
  const size_t stride = static_cast<size_t>(gridDim.x) * blockDim.x;
  float4 s = make_float4(0, 0, 0, 0);
  if (kind == kEmpty) return;
  for (size_t i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) {
    if (kind == kWrite) {
      out[i] = make_float4(1.0f, 2.0f, 3.0f, 4.0f);
    } else if (kind == kUpdate) {
      float4 v = out[i];
      v.x += 1.0f;
      out[i] = v;
    } else {
      const float4 v = in[i];
      if (kind == kCopy) out[i] = v;
      else { s.x += v.x; s.y += v.y; s.z += v.z; s.w += v.w; }
    }
  }
  if (s.x + s.y + s.z + s.w == 1234.5f) sink[0] = s.x;  // never true: keeps the reads
}

int main(int argc, char** argv) {
  cudaDeviceProp prop;
  cudaGetDeviceProperties(&prop, 0);
  const int launches = argc > 1 ? std::atoi(argv[1]) : 20;
  const size_t max_bytes = static_cast<size_t>(512) << 20;
  float4 *in = nullptr, *out = nullptr;
  float* sink = nullptr;
  cudaMalloc(&in, max_bytes);
  cudaMalloc(&out, max_bytes);
  cudaMalloc(&sink, sizeof(float));
  const L2Flush flush(prop, sink);
  cudaMemset(in, 0, max_bytes);
  cudaMemset(out, 0, max_bytes);
  const int ctas = prop.multiProcessorCount * 8;
  for (int cold = 1; cold >= 0; --cold) {
    for (int kind : {kEmpty, kRead, kWrite, kCopy, kUpdate}) {
      for (int mib : {4, 8, 12, 16, 24, 32, 48, 64, 96, 128, 256, 512}) {
        if (kind == kEmpty && mib != 4) continue;
        const size_t n = (static_cast<size_t>(mib) << 20) / sizeof(float4);
        auto before = [&](int) {
          if (cold) flush();
        };
        // Warm: one untimed launch first, so the first timed one finds its predecessor's lines.
        if (!cold) stream<<<ctas, 256>>>(in, out, n, kind, sink);
        const LaunchTimes t = time_launches(launches, before, [&](int) { stream<<<ctas, 256>>>(in, out, n, kind, sink); });
        std::printf("{\"probe\": \"store_residency\", \"gpu\": \"%s\", \"cold_l2\": %s, \"kind\": \"%s\", \"mib_per_array\": %d, "
                    "\"ctas\": %d, \"best_us\": %.3f, \"mean_us\": %.3f}\n",
                    prop.name, cold ? "true" : "false", kind_name[kind], mib, ctas, t.best_ms * 1e3, t.mean_ms * 1e3);
      }
    }
  }
  const cudaError_t err = cudaGetLastError();
  if (err != cudaSuccess) {
    std::fprintf(stderr, "store_residency_probe: %s\n", cudaGetErrorString(err));
    return 1;
  }
  return 0;
}
