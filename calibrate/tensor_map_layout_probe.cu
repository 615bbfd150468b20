// How the driver lays out a tiled tensor map (CUtensorMap, 128 bytes): encodes maps over a grid
// of parameters with cuTensorMapEncodeTiled and prints each one's parameters and its sixteen
// 64-bit words, so that a tracer can read a bulk copy's box from the map the copy used (maps a
// library builds on the device, as cuBLAS does, are never seen by a host hook). Host only: no
// kernel runs.
//   nvcc -O2 -o tensor_map_layout_probe tensor_map_layout_probe.cu -lcuda && ./tensor_map_layout_probe > layout.tsv
#include <cuda.h>

#include <cstdio>
#include <cstring>

int main() {
  if (cuInit(0) != CUDA_SUCCESS) { std::fprintf(stderr, "cuInit failed\n"); return 1; }
  CUdevice dev;
  CUcontext ctx;
  cuDeviceGet(&dev, 0);
  cuDevicePrimaryCtxRetain(&ctx, dev);
  cuCtxSetCurrent(ctx);
  const CUtensorMapDataType types[] = {CU_TENSOR_MAP_DATA_TYPE_UINT8,   CU_TENSOR_MAP_DATA_TYPE_UINT16,  CU_TENSOR_MAP_DATA_TYPE_UINT32,
                                       CU_TENSOR_MAP_DATA_TYPE_INT32,   CU_TENSOR_MAP_DATA_TYPE_UINT64,  CU_TENSOR_MAP_DATA_TYPE_INT64,
                                       CU_TENSOR_MAP_DATA_TYPE_FLOAT16, CU_TENSOR_MAP_DATA_TYPE_FLOAT32, CU_TENSOR_MAP_DATA_TYPE_FLOAT64,
                                       CU_TENSOR_MAP_DATA_TYPE_BFLOAT16, CU_TENSOR_MAP_DATA_TYPE_FLOAT32_FTZ, CU_TENSOR_MAP_DATA_TYPE_TFLOAT32,
                                       CU_TENSOR_MAP_DATA_TYPE_TFLOAT32_FTZ};
  const int bytes[] = {1, 2, 4, 4, 8, 8, 2, 4, 8, 2, 4, 4, 4};
  std::printf("dtype\trank\tdims\tstrides\tbox\telem_strides\tinterleave\tswizzle\tl2\toob\tresult\twords\n");
  void* base = reinterpret_cast<void*>(0x7f0012340000ull);  // never dereferenced by the encoder
  unsigned long long n = 0;
  auto encode = [&](int ti, int rank, const cuuint64_t* dims, const cuuint64_t* strides, const cuuint32_t* box, const cuuint32_t* es,
                    CUtensorMapInterleave il, CUtensorMapSwizzle sw, CUtensorMapL2promotion l2, CUtensorMapFloatOOBfill oob, void* addr) {
    alignas(64) CUtensorMap map;
    std::memset(&map, 0xAB, sizeof map);
    CUresult r = cuTensorMapEncodeTiled(&map, types[ti], rank, addr, dims, strides, box, es, il, sw, l2, oob);
    std::printf("%d\t%d\t", (int)types[ti], rank);
    for (int d = 0; d < rank; ++d) std::printf("%s%llu", d ? "," : "", (unsigned long long)dims[d]);
    std::printf("\t");
    for (int d = 0; d + 1 < rank; ++d) std::printf("%s%llu", d ? "," : "", (unsigned long long)strides[d]);
    std::printf("\t");
    for (int d = 0; d < rank; ++d) std::printf("%s%u", d ? "," : "", box[d]);
    std::printf("\t");
    for (int d = 0; d < rank; ++d) std::printf("%s%u", d ? "," : "", es[d]);
    std::printf("\t%d\t%d\t%d\t%d\t%d\t", (int)il, (int)sw, (int)l2, (int)oob, (int)r);
    unsigned long long w[16];
    std::memcpy(w, &map, sizeof w);
    for (int i = 0; i < 16; ++i) std::printf("%s%016llx", i ? " " : "", w[i]);
    std::printf("\n");
    ++n;
  };
  // Varied one at a time around a base point, then a few joint changes.
  for (int ti = 0; ti < 13; ++ti)
    for (int rank = 1; rank <= 5; ++rank) {
      cuuint64_t dims[5] = {1024, 300, 7, 5, 3}, strides[4];
      cuuint32_t box[5] = {64, 16, 2, 2, 1}, es[5] = {1, 1, 1, 1, 1};
      if (bytes[ti] * box[0] > 128) box[0] = 128 / bytes[ti];
      cuuint64_t s = dims[0] * bytes[ti];
      s = (s + 15) / 16 * 16;
      for (int d = 0; d + 1 < rank; ++d) { strides[d] = s; s *= dims[d + 1]; s = (s + 15) / 16 * 16; }
      encode(ti, rank, dims, strides, box, es, CU_TENSOR_MAP_INTERLEAVE_NONE, CU_TENSOR_MAP_SWIZZLE_NONE, CU_TENSOR_MAP_L2_PROMOTION_NONE,
             CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE, base);
    }
  // float32, rank 3: every field alone.
  const int f32 = 7;
  for (int v = 0; v < 40; ++v) {
    cuuint64_t dims[3] = {4096, 512, 9}, strides[2] = {4096 * 4, 4096 * 4 * 512};
    cuuint32_t box[3] = {32, 64, 1}, es[3] = {1, 1, 1};
    CUtensorMapSwizzle sw = CU_TENSOR_MAP_SWIZZLE_NONE;
    CUtensorMapL2promotion l2 = CU_TENSOR_MAP_L2_PROMOTION_NONE;
    CUtensorMapFloatOOBfill oob = CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE;
    void* addr = base;
    switch (v % 20) {
      case 1: dims[0] = 4095; break;
      case 2: dims[1] = 1; break;
      case 3: dims[2] = 65536; break;
      case 4: strides[0] = 1 << 20; strides[1] = (1ull << 20) * 512; break;
      case 5: strides[1] = 1ull << 36; break;
      case 6: box[0] = 8; break;
      case 7: box[1] = 256; break;
      case 8: box[2] = 7; break;
      case 9: es[0] = 2; break;
      case 10: es[1] = 8; break;
      case 11: sw = CU_TENSOR_MAP_SWIZZLE_32B; box[0] = 8; break;
      case 12: sw = CU_TENSOR_MAP_SWIZZLE_64B; box[0] = 16; break;
      case 13: sw = CU_TENSOR_MAP_SWIZZLE_128B; break;
      case 14: l2 = CU_TENSOR_MAP_L2_PROMOTION_L2_128B; break;
      case 15: l2 = CU_TENSOR_MAP_L2_PROMOTION_L2_256B; break;
      case 16: oob = CU_TENSOR_MAP_FLOAT_OOB_FILL_NAN_REQUEST_ZERO_FMA; break;
      case 17: addr = reinterpret_cast<void*>(0x7f0012340000ull + 0x10000 * 77); break;
      case 18: addr = reinterpret_cast<void*>(0x12340000ull); break;
      case 19: dims[0] = 100000; strides[0] = 400000; strides[1] = 400000ull * 512; break;
      default: break;
    }
    if (v >= 20) { dims[0] += 16 * v; strides[0] = (dims[0] * 4 + 15) / 16 * 16; strides[1] = strides[0] * 512; box[1] = 1 + v; }
    encode(f32, 3, dims, strides, box, es, CU_TENSOR_MAP_INTERLEAVE_NONE, sw, l2, oob, addr);
  }
  // Random-ish joint samples over every rank.
  unsigned long long x = 88172645463325252ull;
  auto rnd = [&](unsigned long long m) { x ^= x << 13; x ^= x >> 7; x ^= x << 17; return x % m; };
  for (int i = 0; i < 300; ++i) {
    int ti = (int)rnd(13), rank = 1 + (int)rnd(5);
    cuuint64_t dims[5], strides[4];
    cuuint32_t box[5], es[5];
    for (int d = 0; d < rank; ++d) {
      dims[d] = 1 + rnd(d == 0 ? 70000 : 3000);
      box[d] = 1 + (cuuint32_t)rnd(d == 0 ? (unsigned)(128 / bytes[ti]) : 256);
      if (box[d] > dims[d] && dims[d] <= 256) box[d] = (cuuint32_t)dims[d];
      es[d] = 1 + (cuuint32_t)rnd(d == 0 ? 1 : 8);
    }
    if ((box[0] * bytes[ti]) % 16) box[0] = (cuuint32_t)((box[0] * bytes[ti] + 15) / 16 * 16 / bytes[ti]);
    cuuint64_t s = (dims[0] * bytes[ti] + 15) / 16 * 16 + 16 * rnd(8);
    for (int d = 0; d + 1 < rank; ++d) { strides[d] = s; s = s * dims[d + 1] + 16 * rnd(4); }
    void* addr = reinterpret_cast<void*>((0x7f0000000000ull + rnd(1ull << 36)) & ~0xffull);
    CUtensorMapSwizzle sw = (CUtensorMapSwizzle)rnd(4);
    if (sw != CU_TENSOR_MAP_SWIZZLE_NONE) {
      const unsigned span = sw == CU_TENSOR_MAP_SWIZZLE_32B ? 32 : sw == CU_TENSOR_MAP_SWIZZLE_64B ? 64 : 128;
      if (box[0] * bytes[ti] > span) box[0] = span / bytes[ti];
    }
    encode(ti, rank, dims, strides, box, es, CU_TENSOR_MAP_INTERLEAVE_NONE, sw, (CUtensorMapL2promotion)rnd(4),
           (CUtensorMapFloatOOBfill)rnd(2), addr);
  }
  std::fprintf(stderr, "%llu maps\n", n);
  return 0;
}
