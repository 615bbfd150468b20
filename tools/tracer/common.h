// Records sent from the instrumented kernel to the tracer's host thread, and the per-launch
// arguments the instrumentation reads.
#pragma once
#include <stdint.h>

// One per traced warp instruction. Memory instructions append 32 lane addresses.
struct gp_record_t {
  int32_t cta_x, cta_y, cta_z;  // cta_x == -1 marks the end of a kernel (flush kernel)
  int32_t warp_id;              // warp within the CTA
  uint32_t instr_idx;           // index into the function's instruction table
  uint32_t active_mask;         // __activemask() at the instruction
  uint32_t pred_mask;           // lanes whose guard predicate is true
  uint32_t has_addrs;           // 1: addrs[] follows
};

struct gp_mem_record_t {
  gp_record_t h;
  uint64_t addrs[32];
};

// One per traced bulk tensor copy (UTMALDG, UTMASTG, UTMAREDG), sent right after its
// instruction's record (h.has_addrs == 2): the tensor map's 128 bytes as the copy read them, and
// the box's coordinates (the uniform registers after a load's shared-memory destination and its
// mbarrier, or after a store's shared-memory source).
struct gp_tma_record_t {
  gp_record_t h;
  int32_t coords[5];
  uint32_t pad;
  uint64_t map[16];
};

// Per launch, in device memory (NVBit passes one 64-bit launch value: its address).
// A CTA is traced if its linear id < first_n (first_n > 0), or if id % stride == 0 (stride > 1),
// or always (both 0), and never when trace_none. warp_counts (null: not counted) holds one
// counter per warp of the grid, warps_per_cta per CTA in linear CTA order: every warp
// instruction of every CTA, traced or not, predicated-off ones included (what a trace records).
struct gp_launch_args {
  uint32_t first_n;
  uint32_t stride;
  uint32_t trace_none;
  uint32_t warps_per_cta;
  unsigned long long* warp_counts;
};
