// Resident CTAs per SM, computed as the CUDA occupancy calculator (cuda_occupancy.h) does:
// warps, registers (allocated per warp in units, per sub-partition), shared memory
// (allocation unit, per-block reservation, the carve-out the driver picks) and the block limit.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>

#include "gpuperf/arch/tables.hpp"
#include "gpuperf/trace/ir.hpp"

namespace gpuperf {

// The limit that sets the resident CTAs (the first of equals in this order: warps, blocks,
// registers, shared).
enum class Limiter : std::uint8_t { warps, registers, shared, blocks };

struct Occupancy {
  int blocks_per_sm = 0;
  int limit_warps = 0, limit_registers = 0, limit_shared = 0, limit_blocks = 0, limit_barriers = 0;
  Limiter limiter = Limiter::warps;
  int warps_per_block = 0;
  int active_warps_per_sm = 0;
  int max_warps_per_sm = 0;
  double occupancy = 0;         // active / max warps
  int registers_per_thread = 0; // as used (after defaulting unknown)
  int registers_per_warp_allocated = 0;
  int shared_per_block_allocated = 0;  // bytes, with reservation and rounding
  int shared_config_kib = 0;    // carve-out chosen for the launch
  bool registers_assumed = false;
};

inline int ceil_to(int x, int unit) { return unit <= 0 ? x : ((x + unit - 1) / unit) * unit; }

// `shared_config_kib` < 0 lets the driver's choice be modelled: the smallest carve-out that
// does not lower occupancy below the other limits.
inline Occupancy compute_occupancy(const LaunchConfig& L, const ArchTable& a, int shared_config_kib = -1) {
  Occupancy o;
  const int max_warps = static_cast<int>(a.occ("max_warps_per_sm"));
  const int max_blocks = static_cast<int>(a.occ("max_blocks_per_sm"));
  const int regs_sm = static_cast<int>(a.occ("registers_per_sm"));
  const int reg_unit = static_cast<int>(a.occ("register_alloc_unit"));
  const int max_regs_thread = static_cast<int>(a.occ("max_registers_per_thread"));
  const int smem_unit = static_cast<int>(a.occ("shared_alloc_unit_bytes"));
  const int smem_reserved = static_cast<int>(a.occ("reserved_shared_per_block_bytes"));
  const int max_barriers = a.occupancy.count("max_barriers_per_sm") ? static_cast<int>(a.occ("max_barriers_per_sm")) : max_blocks;
  const int subparts = std::max(1, a.sub_partitions);
  o.max_warps_per_sm = max_warps;
  o.warps_per_block = static_cast<int>(L.warps_per_cta());
  if (o.warps_per_block <= 0) return o;
  // Warps.
  o.limit_warps = max_warps / o.warps_per_block;
  o.limit_blocks = max_blocks;
  o.limit_barriers = max_barriers;
  // Registers: per warp allocation rounded to the unit; each sub-partition holds
  // registers_per_sm / sub_partitions, and warps are placed whole in one sub-partition.
  int regs = static_cast<int>(L.registers_per_thread);
  if (regs == 0) { regs = 32; o.registers_assumed = true; }
  o.registers_per_thread = regs;
  if (regs > max_regs_thread) {
    o.limit_registers = 0;
  } else {
    int per_warp = ceil_to(regs * 32, reg_unit);
    o.registers_per_warp_allocated = per_warp;
    int warps_per_sp = (regs_sm / subparts) / per_warp;
    o.limit_registers = (warps_per_sp * subparts) / o.warps_per_block;
  }
  // Shared memory.
  int smem = static_cast<int>(L.static_shared_bytes + L.dynamic_shared_bytes);
  o.shared_per_block_allocated = ceil_to(smem + smem_reserved, smem_unit);
  int others = std::min({o.limit_warps, o.limit_registers, o.limit_blocks, o.limit_barriers});
  const auto& carve = a.shared_carveouts_kib;
  int max_cfg = carve.empty() ? static_cast<int>(a.occ("max_shared_per_sm_kib")) : carve.back();
  max_cfg = std::min(max_cfg, static_cast<int>(a.occ("max_shared_per_sm_kib")));
  int cfg = shared_config_kib >= 0 ? shared_config_kib : max_cfg;
  if (shared_config_kib < 0 && !carve.empty()) {
    // Driver preference: the smallest carve-out that keeps the occupancy the other limits allow.
    long need = static_cast<long>(others) * o.shared_per_block_allocated;
    for (int c : carve) {
      if (c > max_cfg) break;
      if (static_cast<long>(c) * 1024 >= need && (o.shared_per_block_allocated == 0 || c * 1024 >= o.shared_per_block_allocated)) { cfg = c; break; }
    }
  }
  o.shared_config_kib = cfg;
  if (o.shared_per_block_allocated == 0) o.limit_shared = max_blocks;
  else o.limit_shared = (cfg * 1024) / o.shared_per_block_allocated;
  // Result.
  o.blocks_per_sm = std::min({o.limit_warps, o.limit_registers, o.limit_shared, o.limit_blocks, o.limit_barriers});
  o.limiter = Limiter::warps;
  if (o.blocks_per_sm == o.limit_blocks && o.limit_blocks < o.limit_warps) o.limiter = Limiter::blocks;
  if (o.blocks_per_sm == o.limit_registers && o.limit_registers < std::min(o.limit_warps, o.limit_blocks)) o.limiter = Limiter::registers;
  if (o.blocks_per_sm == o.limit_shared && o.limit_shared < std::min({o.limit_warps, o.limit_blocks, o.limit_registers})) o.limiter = Limiter::shared;
  o.active_warps_per_sm = o.blocks_per_sm * o.warps_per_block;
  o.occupancy = max_warps ? double(o.active_warps_per_sm) / max_warps : 0;
  return o;
}

}  // namespace gpuperf
