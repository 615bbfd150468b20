// Device function NVBit inserts before every instruction of a traced kernel.
#include <stdint.h>

#include "common.h"
#include "utils/channel.hpp"
#include "utils/utils.h"

// sampling = (stride << 32) | first_n: a CTA is traced if its linear id < first_n (first_n > 0)
// or if id % stride == 0 (stride > 0).
extern "C" __device__ __noinline__ void gp_trace(int pred, uint32_t instr_idx, int is_mem, uint64_t addr,
                                                 uint64_t sampling, uint64_t pchannel_dev) {
  const uint32_t first_n = (uint32_t)(sampling & 0xffffffffu);
  const uint32_t stride = (uint32_t)(sampling >> 32);
  const uint64_t cta = blockIdx.x + (uint64_t)gridDim.x * (blockIdx.y + (uint64_t)gridDim.y * blockIdx.z);
  if (first_n > 0 && cta >= first_n) return;
  if (stride > 1 && cta % stride != 0) return;
  const uint32_t active = __activemask();
  const uint32_t predmask = __ballot_sync(active, pred);
  const int lane = get_laneid();
  const int leader = __ffs(active) - 1;
  gp_mem_record_t r;
  if (is_mem) {
    for (int i = 0; i < 32; i++) r.addrs[i] = __shfl_sync(active, addr, i);
  }
  if (lane != leader) return;
  r.h.cta_x = blockIdx.x;
  r.h.cta_y = blockIdx.y;
  r.h.cta_z = blockIdx.z;
  const uint32_t tid = threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z);
  r.h.warp_id = tid / 32;
  r.h.instr_idx = instr_idx;
  r.h.active_mask = active;
  r.h.pred_mask = predmask;
  r.h.has_addrs = is_mem ? 1 : 0;
  ChannelDev* ch = (ChannelDev*)pchannel_dev;
  ch->push(&r, is_mem ? sizeof(gp_mem_record_t) : sizeof(gp_record_t));
}
