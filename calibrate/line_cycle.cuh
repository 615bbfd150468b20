// A random cycle through every 128 B line of a buffer, for pointer chases (atomic_miss_probe,
// gather_loaded_probe, l2_capacity_probe): each line holds the index of the next line at a word
// of its own (word_of), so the lanes' words spread over the banks.
#pragma once

#include <cuda_runtime.h>

#include <algorithm>
#include <cstddef>
#include <numeric>
#include <random>
#include <vector>

__host__ __device__ __forceinline__ unsigned word_of(unsigned line) { return line * 32u + ((line * 13u) & 31u); }

// The lines in the cycle's order (`order`) and the device buffer that holds the cycle (`buf`,
// lines x 128 B; the caller frees it).
struct LineCycle {
  std::vector<unsigned> order;
  unsigned* buf = nullptr;

  // A cycle through `lines` lines in an order `rng` shuffles: CK(cycle.build(lines, rng)).
  cudaError_t build(std::size_t lines, std::mt19937& rng) {
    order.resize(lines);
    std::iota(order.begin(), order.end(), 0u);
    std::shuffle(order.begin(), order.end(), rng);
    std::vector<unsigned> host(lines * 32, 0);
    for (std::size_t i = 0; i < lines; ++i) host[word_of(order[i])] = order[(i + 1) % lines];
    if (cudaError_t e = cudaMalloc(&buf, lines * 128); e != cudaSuccess) return e;
    return cudaMemcpy(buf, host.data(), lines * 128, cudaMemcpyHostToDevice);
  }

  // Copies to `start` (device) a starting line for each of `threads` lanes, at distinct points of
  // the cycle (an odd stride through a power-of-two cycle), so no two lanes walk one chain in step
  // while there are fewer lanes than lines; each call starts from fresh points.
  cudaError_t place_starts(unsigned* start, int threads) {
    std::vector<unsigned> first(threads);
    for (int t = 0; t < threads; ++t) first[t] = order[(static_cast<std::size_t>(t) * 2654435761ull + next_offset) % order.size()];
    next_offset += 1000003ull * 64;
    return cudaMemcpy(start, first.data(), 4ull * threads, cudaMemcpyHostToDevice);
  }

 private:
  std::size_t next_offset = 0;
};
