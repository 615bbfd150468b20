// Memory model, per static instruction on one GPU: L1 and L2 hit rates (reuse distances of
// the traced addresses, or assumptions when the input has none), the average result latency,
// and the L2 and DRAM sectors it moves.
#pragma once

#include <algorithm>

#include "gpuperf/arch/gpu_spec.hpp"
#include "gpuperf/arch/instr_desc.hpp"
#include "gpuperf/model/analysis.hpp"
#include "gpuperf/model/memory.hpp"
#include "gpuperf/model/occupancy.hpp"

namespace gpuperf {

// Per-PC memory behaviour for one GPU: hit rates and average latency.
struct PcMemory {
  double h1 = 0, h2 = 0;       // L1 hit, L2 hit given an L1 miss
  double latency = 0;          // average result latency, cycles
  double dram_sectors = 0, l2_sectors = 0;
};

namespace detail {

inline double l1_capacity_bytes(const ArchTable& a, const Occupancy& o) {
  double combined = a.cache.count("l1_shared_combined_kib") ? a.cachev("l1_shared_combined_kib") : 128;
  return std::max(16.0, combined - o.shared_config_kib) * 1024.0;
}

// warm_fraction: share of first-touch (cold) L2 misses that hit because the data are
// resident from a previous launch (0 for cold runs). dram_latency: the DRAM latency at the
// launch's load (g.dram_latency plus the loaded-SM excess).
inline PcMemory pc_memory(const StaticInstr& s, const PcStats& p, const InstrDesc& d, const ArchTable& a, const GpuSpec& g,
                          const Occupancy& o, bool& assumed, double warm_fraction, double dram_latency) {
  PcMemory m;
  bool global_like = s.space == MemSpace::global || s.space == MemSpace::local || s.space == MemSpace::generic || s.space == MemSpace::texture;
  if (s.space == MemSpace::shared) {
    double ways = p.requests > 0 ? p.wavefronts / p.requests : 1;
    double lat = (d.mem_op == MemOp::atomic || d.mem_op == MemOp::reduction) && a.memory.count("shared_atomic_latency_cycles")
                     ? a.mem("shared_atomic_latency_cycles") : g.shared_latency;
    m.latency = lat + 2.0 * std::max(0.0, ways - 1);  // each extra bank pass: one more wavefront (estimated 2 cycles)
    return m;
  }
  if (s.space == MemSpace::constant) { m.latency = d.latency; return m; }
  if (!global_like) { m.latency = d.latency; return m; }
  const bool is_store = s.mem_op == MemOp::store;
  const bool is_atomic = s.mem_op == MemOp::atomic || s.mem_op == MemOp::reduction;
  if (p.has_profile) {
    double block = a.cache.count("sector_bytes") ? a.cachev("sector_bytes") : 32;
    double h1 = is_store || is_atomic ? 0 : hit_rate(p.l1_hist, p.l1_cold, l1_capacity_bytes(a, o), block, a.cachev("l1_assoc"));
    double h2all = hit_rate(p.l2_hist, p.l2_cold, g.l2_bytes, block, a.cachev("l2_assoc"));
    double total = p.l2_profiled();
    if (total > 0) h2all += warm_fraction * static_cast<double>(p.l2_cold) / total;
    m.h1 = h1;
    m.h2 = h1 < 1 ? std::clamp((h2all - h1) / (1 - h1), 0.0, 1.0) : 1.0;
  } else {
    assumed = true;
    if (is_store || is_atomic) { m.h1 = 0; m.h2 = warm_fraction; }
    else {
      m.h2 = warm_fraction;  // every requested sector is a first touch: warm data hit
      double h1 = 0;
      if (p.load_group >= 0 && p.sectors > 0) h1 = std::clamp(1.0 - p.group_footprint_sectors / p.sectors, 0.0, 0.95);
      m.h1 = h1;
    }
  }
  if (is_atomic) {
    m.latency = g.l2_hit_latency + (a.memory.count("global_atomic_latency_cycles") ? a.mem("global_atomic_latency_cycles") : 0);
  } else if (is_store) {
    m.latency = g.l1_hit_latency;  // stores complete at L1 from the warp's point of view
  } else {
    m.latency = m.h1 * g.l1_hit_latency + (1 - m.h1) * (m.h2 * g.l2_hit_latency + (1 - m.h2) * dram_latency);
  }
  double sectors = p.sectors;
  m.l2_sectors = is_atomic ? p.requests : sectors * (1 - m.h1);
  m.dram_sectors = is_atomic ? 0 : sectors * (1 - m.h1) * (1 - m.h2);
  if (is_store && p.has_profile) {
    // The L2 writes back: a store reaches DRAM once per sector the kernel dirties, whether or
    // not its line was in L2 (a read-modify-write of y in y = a*x + y still writes y back),
    // unless the kernel's data stay resident across launches (warm_fraction).
    double profiled = p.l2_profiled();
    double first_writes = profiled > 0 ? static_cast<double>(p.l2_first_writes) / profiled : 1.0;
    m.dram_sectors = sectors * first_writes * (1 - warm_fraction);
  }
  return m;
}

}  // namespace detail

}  // namespace gpuperf
