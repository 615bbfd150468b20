// Small pure bound functions, in cycles: each is one resource's lower bound on the time.
#pragma once

#include <algorithm>
#include <cmath>

#include "gpuperf/arch/tables.hpp"
#include "gpuperf/model/memory.hpp"

namespace gpuperf {

// What the SM's L1 takes for a global request (the arch table's measurements, read once per
// prediction; where none was measured a wavefront a line and nothing more): lines of a load a
// wavefront takes where they all hit and where one misses, and the wavefronts a partly written
// store sector adds to its line's.
struct L1RequestCosts {
  double hit_lines_per_wavefront = 1, miss_lines_per_wavefront = 1, partial_sector_wavefronts = 0;
};
inline L1RequestCosts l1_request_costs(const ArchTable& a) {
  return {a.mem("l1_lines_per_wavefront"), a.mem("l1_miss_lines_per_wavefront"), a.mem("store_partial_sector_wavefronts")};
}

namespace bound {

// One sub-partition issues one warp instruction per cycle.
inline double issue(double warps_per_subpartition, double instrs_per_warp) { return warps_per_subpartition * instrs_per_warp; }
// A unit of a class accepts one warp instruction every `interval` cycles.
inline double unit(double warps_per_subpartition, double busy_cycles_per_warp) { return warps_per_subpartition * busy_cycles_per_warp; }
// The SM's L1/shared pipeline serves `rate` wavefronts per cycle.
inline double mio(double wavefronts_per_sm, double rate) { return rate > 0 ? wavefronts_per_sm / rate : 0; }
// Global atomics through the L2's atomic units, in cycles, never faster than the hottest word's
// serial updates. The ops spread over the L2's slices by the lines they update: at the rate
// measured over as many lines, one word in each (`rate_lines`; 256 words in 256 lines go 17x
// faster than 256 consecutive words in 8), or over as many consecutive words where that
// measurement is faster (words sharing a line's sectors; the two curves agree within 10 % on
// consecutive words), float ops at the f32 / u32 ratio measured over as many words. Without a
// lines curve: the rate measured over as many consecutive words.
// `miss_share` of the ops find their line gone from L2 and go at `miss_rate` ops a cycle instead
// (memory_model.hpp: atomic_l2_miss_share), the others at the L2's rate.
inline double atomics(double ops_int, double ops_float, double effective_words, double effective_lines, double hot_updates,
                      const Curve& rate_int, const Curve* rate_float, const Curve* rate_lines, double miss_share = 0, double miss_rate = 0) {
  const Curve& rf = rate_float ? *rate_float : rate_int;
  const double k = std::max(1.0, effective_words);
  const double int_rate = std::max(rate_int.at(k), rate_lines ? rate_lines->at(std::max(1.0, effective_lines)) : 0.0);
  const double float_rate = int_rate * rf.at(k) / rate_int.at(k);
  const double missed = miss_rate > 0 ? std::clamp(miss_share, 0.0, 1.0) : 0.0;
  const double spread = (1 - missed) * (ops_int / int_rate + ops_float / float_rate) + (missed > 0 ? missed * (ops_int + ops_float) / miss_rate : 0.0);
  const double hot_rate = ops_float > ops_int ? rf.at(1) : rate_int.at(1);
  return std::max(spread, hot_updates / hot_rate);
}
// Counts-only inputs: the profile's busiest L2 slice takes its atomic ops at the rate measured
// with all ops on one line, which one slice serves, float ops (their share of the atomics) at
// the f32 rate on one word. Measured with ncu on the H100: in every pattern of the rate curves
// the busiest slice served 0.66-0.85 ops per cycle (one line: 0.686), so the bound is at most
// 20 % slow where the ops spread over every slice. `miss_share` of the kernel's `ops` find their
// line gone from L2 and go at `miss_rate` ops a cycle over the whole GPU instead.
inline double atomics_busiest_slice(double slice_ops, double float_share, const Curve& rate_int, const Curve* rate_float,
                                    const Curve* rate_lines, double miss_share = 0, double ops = 0, double miss_rate = 0) {
  const double int_rate = rate_lines ? rate_lines->at(1) : rate_int.at(1);
  const double float_rate = int_rate * (rate_float ? rate_float->at(1) : rate_int.at(1)) / rate_int.at(1);
  const double missed = miss_rate > 0 ? std::clamp(miss_share, 0.0, 1.0) : 0.0;
  return (1 - missed) * slice_ops * ((1 - float_share) / int_rate + float_share / float_rate) + (missed > 0 ? missed * ops / miss_rate : 0.0);
}
// Cycles a DRAM access takes beyond the idle latency when `warps` warps of the SM each keep
// one request in flight: the measured curve's rise over its lightest load (0 below it).
inline double loaded_latency_excess(const Curve& c, double warps) { return std::max(0.0, c.at(warps) - c.y.front()); }
// Times of two resources that overlap imperfectly: the p-norm of the two. p = infinity (or 0,
// for "not fitted") is the larger, perfect overlap; p = 1 their sum, none. Never below the
// larger.
inline double overlap(double a, double b, double p) {
  const double m = std::max(a, b);
  if (!(p > 0) || std::isinf(p) || m <= 0) return m;
  return m * std::pow(std::pow(a / m, p) + std::pow(b / m, p), 1.0 / p);
}
// The GPU starts CTAs no faster than one per `interval` cycles over the whole GPU (an empty
// kernel's time grows by that much per CTA, measured); it bounds grids of many short CTAs.
inline double cta_dispatch(double grid_ctas, double interval_cycles) { return grid_ctas * interval_cycles; }

// What the busiest SM's time with the memory transfers is made of (cycles or us alike): the
// SM's throughput (issue, functional units, the MIO pipe that shared and L1 wavefronts share),
// the memory transfer (L2 and DRAM move the same bytes in one pipeline: the longer of the two),
// and the rounds' own time, which already holds the memory waits of the warps' dependent paths
// (a streaming kernel's latency chain is its DRAM transfer) and so bounds from below without
// being combined again. One rule for the model and for the fit of the exponent.
struct OverlapParts {
  double floor = 0, sm_work = 0, transfer = 0;
};
// The memory transfer is the longer of DRAM and L2, or their phase-by-phase sum where the
// trace tells when each moves (memory_phases, never shorter).
inline OverlapParts overlap_parts(double sm_rounds, double issue, double functional_unit, double shared_memory, double l1, double dram,
                                  double l2, double memory_phases = 0) {
  return {sm_rounds, std::max({issue, functional_unit, shared_memory + l1}), std::max({dram, l2, memory_phases})};
}
// DRAM and L2 transfers that happen in different phases of the warps' streams do not overlap: a
// kernel that streams its data from DRAM in a first pass and re-reads it from L2 after (Rodinia
// kmeans' kmeansPoint: 27 MB from DRAM, then 30 MB of L2 hits) takes the DRAM time and then the
// L2 time. So do the L2's atomic units where their shares are given: a reduction that loads its
// data and then adds it into one word takes the loads' time and then the atomics'. Each phase
// takes the longest of its shares; the sum is at least the longest of the totals, and equals it
// where all spread alike. 0 where no share is known.
inline double memory_phases(double dram, double l2, const double* dram_share, const double* l2_share, double atomics = 0,
                            const double* atomic_share = nullptr) {
  double sum = 0;
  for (int ph = 0; ph < kTrafficPhases; ++ph)
    sum += std::max({dram * dram_share[ph], l2 * l2_share[ph], atomic_share ? atomics * atomic_share[ph] : 0.0});
  return sum;
}
// The SM's throughput and the memory transfer overlap imperfectly: their p-norm, never below the
// floor. Without a fitted exponent: the largest of the rounds and the transfer, perfect overlap.
inline double sm_and_memory(const OverlapParts& o, double p) {
  if (!(p > 0) || std::isinf(p)) return std::max(o.floor, o.transfer);
  return std::max(o.floor, overlap(o.sm_work, o.transfer, p));
}
// Bytes over a bandwidth in GB/s, in cycles of a clock in MHz.
inline double bandwidth(double bytes, double gbs, double clock_mhz) { return gbs > 0 ? bytes / (gbs * 1e3) * clock_mhz : 0; }
// DRAM's time for `sectors` it reads each as an access of its own, at `per_ns` such accesses a
// ns (0: not measured, no bound). Random sectors arrive at the same rate on the H100 and the
// H200 (dram_random_sectors_per_ns, 44.7 a ns), though the H200 streams 1.4x faster: the
// accesses, not the bytes, limit them.
inline double dram_random_accesses(double sectors, double per_ns, double clock_mhz) {
  return per_ns > 0 ? sectors / (per_ns * 1e3) * clock_mhz : 0;
}
// The L2's time, in two parts. Stores scattered over many lines: L2 takes the stores'
// `store_sectors` as line-writes, `store_lines` of them, at most `line_fraction` of its read rate
// in sectors (0: no line limit), however few bytes each writes. Where the L2's write rate is
// measured (`write_fraction` of the read rate, > 0), its line-writes, the stores and the
// `fill_sectors` DRAM brings in, go at that rate beside the reads (a copy that fits in L2 is
// bound by them: calibrate/store_residency_probe.cu); without it, the stores follow the reads at
// the read rate and the fills cost nothing.
inline double l2_read_sectors_per_cycle(double gbs, double clock_mhz) { return gbs > 0 && clock_mhz > 0 ? gbs * 1e3 / clock_mhz / 32.0 : 0; }
// The line-writes' part: the cycles of the stores (and fills, where measured).
inline double l2_writes(double store_sectors, double store_lines, double fill_sectors, double line_fraction, double write_fraction,
                        double gbs, double clock_mhz) {
  const double rate = l2_read_sectors_per_cycle(gbs, clock_mhz);
  if (!(rate > 0)) return 0;
  const double scattered = line_fraction > 0 ? store_lines / line_fraction : 0.0;
  if (write_fraction > 0) return std::max((fill_sectors + store_sectors) / write_fraction, scattered) / rate;
  return std::max(store_sectors, scattered) / rate;
}
// The reads' part: every L2 sector that is not a store, at the read rate.
inline double l2_reads(double l2_bytes, double store_sectors, double gbs, double clock_mhz) {
  const double rate = l2_read_sectors_per_cycle(gbs, clock_mhz);
  return rate > 0 ? std::max(0.0, l2_bytes / 32.0 - store_sectors) / rate : 0;
}
// The whole from its two parts: beside each other where the write rate is measured, else one
// after the other.
inline double l2_combined(double reads, double writes, double write_fraction) {
  return write_fraction > 0 ? std::max(reads, writes) : reads + writes;
}
inline double l2_transfer(double l2_bytes, double store_sectors, double store_lines, double fill_sectors, double line_fraction,
                          double write_fraction, double gbs, double clock_mhz) {
  return l2_combined(l2_reads(l2_bytes, store_sectors, gbs, clock_mhz),
                     l2_writes(store_sectors, store_lines, fill_sectors, line_fraction, write_fraction, gbs, clock_mhz), write_fraction);
}
// Rounds of resident CTAs on the busiest SM: full rounds and the CTAs of the last one.
inline void rounds(double grid, int sms, int per_sm, double& ctas_on_busiest, double& full, double& tail) {
  ctas_on_busiest = std::ceil(grid / std::max(1, sms));
  full = std::floor(ctas_on_busiest / std::max(1, per_sm));
  tail = ctas_on_busiest - full * per_sm;
}

}  // namespace bound

}  // namespace gpuperf
