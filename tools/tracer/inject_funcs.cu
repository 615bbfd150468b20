// Device function NVBit inserts before every instruction of a traced kernel.
#include <stdint.h>

#include "common.h"
#include "utils/channel.hpp"
#include "utils/utils.h"

// The CTA's linear id (x fastest), as the sampling and the per-CTA counters number CTAs.
__device__ __forceinline__ uint64_t linear_cta() { return blockIdx.x + (uint64_t)gridDim.x * (blockIdx.y + (uint64_t)gridDim.y * blockIdx.z); }

// Whether the launch records this CTA's instructions (gp_launch_args' sampling).
__device__ __forceinline__ bool cta_traced(const gp_launch_args* args, uint64_t cta) {
  return !args->trace_none && !(args->first_n > 0 && cta >= args->first_n) && !(args->stride > 1 && cta % args->stride != 0);
}

// A record's header for the calling warp.
__device__ __forceinline__ void fill_header(gp_record_t& h, uint32_t instr_idx, uint32_t active, uint32_t pred_mask, uint32_t has_addrs) {
  h.cta_x = blockIdx.x;
  h.cta_y = blockIdx.y;
  h.cta_z = blockIdx.z;
  h.warp_id = (threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z)) / 32;
  h.instr_idx = instr_idx;
  h.active_mask = active;
  h.pred_mask = pred_mask;
  h.has_addrs = has_addrs;
}

// One warp instruction: counted for its CTA, and recorded, with each lane's `addr` where
// `is_mem`, if its CTA is traced. pargs: the launch's gp_launch_args (common.h), in device memory.
__device__ __forceinline__ void trace_instruction(int pred, uint32_t instr_idx, int is_mem, uint64_t addr, uint64_t pargs,
                                                  uint64_t pchannel_dev) {
  const gp_launch_args* args = (const gp_launch_args*)pargs;
  const uint64_t cta = linear_cta();
  const uint32_t active = __activemask();
  const int lane = get_laneid();
  const int leader = __ffs(active) - 1;
  const uint32_t tid = threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z);
  // Every CTA's warp instructions are counted, sampled or not: the grid's distribution of work.
  // Atomic: under independent thread scheduling, divergent paths of one warp interleave.
  if (args->warp_counts && lane == leader) atomicAdd(&args->warp_counts[cta * args->warps_per_cta + tid / 32], 1ull);
  if (!cta_traced(args, cta)) return;
  const uint32_t predmask = __ballot_sync(active, pred);
  gp_mem_record_t r;
  if (is_mem) {
    for (int i = 0; i < 32; i++) r.addrs[i] = __shfl_sync(active, addr, i);
  }
  if (lane != leader) return;
  fill_header(r.h, instr_idx, active, predmask, is_mem ? 1 : 0);
  ChannelDev* ch = (ChannelDev*)pchannel_dev;
  ch->push(&r, is_mem ? sizeof(gp_mem_record_t) : sizeof(gp_record_t));
}

extern "C" __device__ __noinline__ void gp_trace(int pred, uint32_t instr_idx, int is_mem, uint64_t addr,
                                                 uint64_t pargs, uint64_t pchannel_dev) {
  trace_instruction(pred, instr_idx, is_mem, addr, pargs, pchannel_dev);
}

// gp_trace for an indexed constant load (LDC R, c[bank][Ri+imm]): each lane's word of the bank,
// `bank_imm` (bank << 16 | imm) plus its index register, as the lane's address.
extern "C" __device__ __noinline__ void gp_trace_const(int pred, uint32_t instr_idx, int32_t index, uint32_t bank_imm, uint64_t pargs,
                                                       uint64_t pchannel_dev) {
  const uint64_t addr = (uint64_t)(bank_imm & 0xffff0000u) + (uint64_t)((bank_imm + (uint32_t)index) & 0xffffu);
  trace_instruction(pred, instr_idx, 1, addr, pargs, pchannel_dev);
}

// Inserted after gp_trace before a bulk tensor copy (UTMALDG, UTMASTG, UTMAREDG): the copy's tensor map (generic
// address in two uniform registers) and coordinates, for the host to decode into the box's
// global byte ranges.
extern "C" __device__ __noinline__ void gp_tma(int pred, uint32_t instr_idx, uint32_t map_lo, uint32_t map_hi, int32_t c0, int32_t c1,
                                               int32_t c2, int32_t c3, int32_t c4, uint64_t pargs, uint64_t pchannel_dev) {
  const gp_launch_args* args = (const gp_launch_args*)pargs;
  if (!pred || !cta_traced(args, linear_cta())) return;
  const uint32_t active = __activemask();
  if (get_laneid() != __ffs(active) - 1) return;
  gp_tma_record_t r;
  fill_header(r.h, instr_idx, active, active, 2);
  r.coords[0] = c0; r.coords[1] = c1; r.coords[2] = c2; r.coords[3] = c3; r.coords[4] = c4;
  r.pad = 0;
  const uint64_t* map = (const uint64_t*)(((uint64_t)map_hi << 32) | map_lo);
  for (int i = 0; i < 16; ++i) r.map[i] = map[i];
  ChannelDev* ch = (ChannelDev*)pchannel_dev;
  ch->push(&r, sizeof r);
}
