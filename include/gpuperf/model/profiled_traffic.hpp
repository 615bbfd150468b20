// Cache behaviour of a counts-only input from the memory counters of its profile (any GPU):
// the L1 hit rate of global loads, the L2 hit rate of reads, and the share of stored sectors
// the L2 wrote back to DRAM while the kernel ran. A profile from another GPU is carried over
// to the target's L2 size. Pure functions; nothing here reads a time.
#pragma once

#include <algorithm>
#include <cmath>

#include "gpuperf/model/assumptions.hpp"
#include "gpuperf/trace/ir.hpp"

namespace gpuperf {

struct ProfiledRates {
  bool present = false;
  double l1_load_hit = 0;     // of global load sectors
  double l2_read_hit = 0;     // of L2 read sectors (L1 misses of every kind)
  double store_writeback = 1; // DRAM write sectors per stored sector
  double l2_ratio = 1;        // target L2 / profiled L2 (1: same size, nothing carried over)
  // Of what loads of the kernel's own stores would hit (kernel_store_hit_share), the part the
  // profile's L2 read hits allow (memory_rates: l2_hit_beside_kernel_stores).
  double kernel_store_hits_kept = 1;
  // The share of the profiled GPU's L2 hits the target's L2 keeps (profiled_rates' rule).
  double hits_kept() const { return std::min(1.0, l2_ratio); }
};

// A smaller L2 keeps that share of the profiled GPU's L2 hits (reuse beyond its capacity
// misses) and writes back the rest of the stores it held dirty; a larger one is credited with
// nothing more (the profile cannot tell which misses were capacity misses). Estimated: a
// linear share of capacity, not measured across L2 sizes.
inline ProfiledRates profiled_rates(const ProfiledTraffic& t, double target_l2_bytes) {
  ProfiledRates r;
  if (!t.present) return r;
  r.present = true;
  r.l2_ratio = t.l2_bytes > 0 && target_l2_bytes > 0 ? target_l2_bytes / t.l2_bytes : 1.0;
  const double keep = r.hits_kept();
  r.l1_load_hit = t.l1_load_sectors > 0 ? std::clamp(t.l1_load_hit_sectors / t.l1_load_sectors, 0.0, 1.0) : 0.0;
  // The L2 counts every client's reads; its reads from L1 alone, where the profile has them, are
  // the loads' (calibrate/small_grid_probe.cu: one CTA's loads 67 reads from L1, 1 hit, where all
  // 2,346 reads hit on 75 %, and the kernel-wide rate had made such grids 0.86-0.93x from counts).
  const bool from_l1 = t.l2_read_from_l1_sectors && t.l2_read_from_l1_hit_sectors && *t.l2_read_from_l1_sectors > 0;
  const double reads = from_l1 ? *t.l2_read_from_l1_sectors : t.l2_read_sectors, hits = from_l1 ? *t.l2_read_from_l1_hit_sectors : t.l2_read_hit_sectors;
  r.l2_read_hit = reads > 0 ? keep * std::clamp(hits / reads, 0.0, 1.0) : 0.0;
  const double stored = t.l1_store_sectors;
  const double written = t.dram_write_bytes / assume::sector_bytes;
  const double writeback = stored > 0 ? std::clamp(written / stored, 0.0, 1.0) : 1.0;
  r.store_writeback = 1.0 - (1.0 - writeback) * keep;
  return r;
}

// The busiest SM's work over what the rounds assume, from how the profiled run's instructions
// fell on the SMs' sub-partitions (count-only inputs): the busiest sub-partition's instructions
// over their mean, against the spread an even placement gives (ceil(grid / SMs) CTAs on the
// busiest SM, their warps dealt over its sub-partitions). A persistent kernel whose tiles go to
// some of its CTAs, or a search whose later CTAs search longer, runs as long as its busiest SM.
// 1 where the profile lacks the columns, or where the grid ran in more than one wave: CTAs then
// go to whichever SM frees first, and an SM that drew more work drew it because it had time.
inline double profiled_sm_excess(const ProfiledTraffic& t, double grid_ctas, double warps_per_cta, double blocks_per_sm, int sub_partitions) {
  if (!t.present || !(t.mean_subpartition_instructions > 0) || !(t.sms >= 1) || !(grid_ctas >= 1) || !(warps_per_cta >= 1)) return 1;
  if (grid_ctas > t.sms * std::max(1.0, blocks_per_sm)) return 1;
  const double S = std::max(1, sub_partitions);
  const double even_busiest = std::ceil(std::ceil(grid_ctas / t.sms) * warps_per_cta / S);
  const double even_mean = grid_ctas * warps_per_cta / (t.sms * S);
  const double measured = t.busiest_subpartition_instructions / t.mean_subpartition_instructions;
  return std::max(1.0, measured / (even_busiest / even_mean));
}

}  // namespace gpuperf
