// Probe (not a table group): does DRAM deliver the same bandwidth to a 2D tile walk as to a
// contiguous stream? A CTA of 256 threads covers a tile W floats wide and 256/W rows tall of an
// N x N float matrix, so each warp's request is 32/W row segments of 4W bytes. W = 256 is a
// contiguous stream (one row segment per CTA). Three kinds of kernel: read (sum, nothing stored),
// write (store a constant) and copy (load, store the same element). Each point is the best of 20
// CUDA-event timed launches; before each launch a 192 MiB read of another buffer leaves the L2
// clean and cold. Bandwidth counts the bytes the kernel asks for (N*N*4 a direction); `ncu` on the
// same binary (`--kernel-name regex:` and the dram__bytes metrics) tells whether DRAM moved more.
// Output: one JSON object per line.
//
//   nvcc -O3 -arch=sm_90 -o dram_pattern_probe calibrate/dram_pattern_probe.cu && ./dram_pattern_probe
#include <cstdio>
#include <cstdlib>

#include "event_timing.cuh"
#include "l2_flush.cuh"

enum Kind { kRead = 0, kWrite = 1, kCopy = 2 };
static const char* kind_name[] = {"read", "write", "copy"};

__global__ void tile_walk(const float* __restrict__ in, float* __restrict__ out, int n, int w, int kind) {
  const int h = blockDim.x / w;
  const int tx = threadIdx.x % w, ty = threadIdx.x / w;
  const int tiles_per_row = n / w;
  const int bx = blockIdx.x % tiles_per_row, by = blockIdx.x / tiles_per_row;
  const size_t idx = static_cast<size_t>(by * h + ty) * n + static_cast<size_t>(bx) * w + tx;
  if (kind == kWrite) {
    out[idx] = 1.0f;
  } else {
    const float v = in[idx];
    if (kind == kCopy) out[idx] = v;
    else if (v == 1234.5f) out[idx] = v;  // never true: a read-only kernel
  }
}

int main(int argc, char** argv) {
  cudaDeviceProp prop;
  cudaGetDeviceProperties(&prop, 0);
  const int launches = argc > 1 ? std::atoi(argv[1]) : 20;
  float *in = nullptr, *out = nullptr, *sink = nullptr;
  const int max_n = 8192;
  cudaMalloc(&in, static_cast<size_t>(max_n) * max_n * sizeof(float));
  cudaMalloc(&out, static_cast<size_t>(max_n) * max_n * sizeof(float));
  cudaMalloc(&sink, sizeof(float));
  const L2Flush flush(prop, sink);
  cudaMemset(in, 0, static_cast<size_t>(max_n) * max_n * sizeof(float));
  cudaMemset(out, 0, static_cast<size_t>(max_n) * max_n * sizeof(float));
  for (int n : {4096, 8192}) {
    for (int kind : {kRead, kWrite, kCopy}) {
      for (int w : {8, 16, 32, 64, 256}) {
        const int ctas = (n / w) * (n / (256 / w));
        const LaunchTimes t = time_launches(
            launches,
            [&](int) { flush(); },
            [&](int) { tile_walk<<<ctas, 256>>>(in, out, n, w, kind); });
        const double bytes = static_cast<double>(n) * n * 4 * (kind == kCopy ? 2 : 1);
        std::printf("{\"probe\": \"dram_pattern\", \"gpu\": \"%s\", \"n\": %d, \"kind\": \"%s\", \"tile_width_floats\": %d, "
                    "\"segment_bytes\": %d, \"ctas\": %d, \"bytes\": %.0f, \"best_us\": %.3f, \"mean_us\": %.3f, \"best_gbs\": %.1f}\n",
                    prop.name, n, kind_name[kind], w, 4 * w, ctas, bytes, t.best_ms * 1e3, t.mean_ms * 1e3,
                    bytes / (t.best_ms * 1e-3) / 1e9);
      }
    }
  }
  const cudaError_t err = cudaGetLastError();
  if (err != cudaSuccess) {
    std::fprintf(stderr, "dram_pattern_probe: %s\n", cudaGetErrorString(err));
    return 1;
  }
  return 0;
}
