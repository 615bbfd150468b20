// A cold, clean L2 for the probes that time memory (dram_pattern, store_residency): a read of
// 192 MiB of another buffer, untimed, before each timed launch evicts the probe's lines without
// leaving any dirty ones to write back during the next launch (a write would).
#pragma once

#include <cstddef>

__global__ void flush_read(const float4* __restrict__ a, size_t n, float* sink) {
  float4 s = make_float4(0, 0, 0, 0);
  for (size_t i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += static_cast<size_t>(gridDim.x) * blockDim.x) {
    const float4 v = a[i];
    s.x += v.x; s.y += v.y; s.z += v.z; s.w += v.w;
  }
  if (s.x + s.y + s.z + s.w == 1234.5f) sink[0] = s.x;
}

struct L2Flush {
  static constexpr size_t bytes = static_cast<size_t>(192) << 20;
  float4* buffer = nullptr;
  float* sink = nullptr;
  int ctas = 0;
  // `sink`: a device float the kernel never writes (it keeps the reads); 4 CTAs of 512 per SM.
  L2Flush(const cudaDeviceProp& prop, float* sink_) : sink(sink_), ctas(prop.multiProcessorCount * 4) {
    cudaMalloc(&buffer, bytes);
    cudaMemset(buffer, 0, bytes);
  }
  void operator()() const { flush_read<<<ctas, 512>>>(buffer, bytes / 16, sink); }
};
