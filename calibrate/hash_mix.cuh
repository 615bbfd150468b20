// A 32-bit integer hash (two multiply-xorshift rounds) that spreads the probes' updates over
// their arrays (atomic_miss_probe, atomic_request_shape_probe).
#pragma once

__device__ __forceinline__ unsigned mix(unsigned x) {
  x ^= x >> 16;
  x *= 0x7feb352du;
  x ^= x >> 15;
  x *= 0x846ca68bu;
  x ^= x >> 16;
  return x;
}
