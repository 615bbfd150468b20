// Records sent from the instrumented kernel to the tracer's host thread.
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
