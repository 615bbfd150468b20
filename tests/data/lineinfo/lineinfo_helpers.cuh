// A device function in a header: inlined into the kernels of lineinfo_kernels.cu, so their
// SASS carries this file's lines (what "inlined code shows the header's line" means).
#pragma once

__device__ __forceinline__ float axpb(float a, float x, float b) {
  float y = a * x;
  y = y + b;
  return y;
}
