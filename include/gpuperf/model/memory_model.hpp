// Memory model, per static instruction on one GPU: L1 and L2 hit rates (reuse distances of
// the traced addresses, or assumptions when the input has none), the average result latency,
// and the L2 and DRAM sectors it moves.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include "gpuperf/arch/gpu_spec.hpp"
#include "gpuperf/arch/instr_desc.hpp"
#include "gpuperf/model/assumptions.hpp"
#include "gpuperf/model/analysis.hpp"
#include "gpuperf/model/bounds.hpp"
#include "gpuperf/model/memory.hpp"
#include "gpuperf/model/occupancy.hpp"
#include "gpuperf/model/prediction.hpp"
#include "gpuperf/model/profiled_traffic.hpp"
#include "gpuperf/model/waves.hpp"

namespace gpuperf {

// Per-PC memory behaviour for one GPU: hit rates and average latency.
struct PcMemory {
  double h1 = 0, h2 = 0;       // L1 hit, L2 hit given an L1 miss
  double h1_in_flight = 0;     // the part of h1 that finds its sector still being fetched
  double h1_shared = 0;        // the part of h1 that finds a sector another CTA of the SM fetched
  double h1_shared_in_flight = 0;  // ... and the part that finds it still being fetched
  // L1 misses that miss in L2 for traffic but find their sector there for latency: a 64 B
  // fill brought it with its neighbour's miss (calibrate/dram_locality_probe.cu).
  double h2_pair_fill = 0;
  // For a load's wait (pc_latency): h1 and h2 of whole requests, which hit only where all their
  // sectors do. Equal to h1 and h2 where the profile has no requests that miss apart.
  double h1_request = 0, h2_request = 0;
  double atomic_miss = 0;      // global atomics: share of updates whose line the L2 no longer holds (fetched from DRAM)
  double latency = 0;          // average result latency, cycles
  double dram_sectors = 0, l2_sectors = 0;
  double l1_wavefronts = 0;    // global-like: the L1 wavefronts of its requests on this GPU, scaled to the grid
};

// Spaces whose accesses go through L1 and L2 to DRAM.
inline bool global_like(MemSpace s) {
  return l1_line_space(s) || s == MemSpace::texture;
}

namespace detail {

// A PC without a reuse profile of its own takes the input's profiled kernel-wide rates.
inline bool uses_profiled_rates(const PcStats& p, const ProfiledRates& prof) { return !p.has_profile && prof.present; }

// Whether a sampled PC's grid first touches come from its address's CTA-index dimensions
// (PcStats::l2_cold_grid_factor) rather than the sample's growth.
inline bool uses_grid_factor(const PcStats& p) { return p.l2_cold_grid_factor > 0 && p.grid_scale > 1; }

// Of a sampled PC's first touches (scaled by grid_scale), the share that stays first touches in
// the grid: the traced CTAs' own, and each further CTA the marginal share of theirs
// (PcStats::l2_cold_marginal), so (1 + marginal (scale - 1)) / scale, or where the sample lies in
// one row of the grid what the address's CTA-index dimensions give (l2_cold_grid_factor); no
// more than the region its loads are drawn from holds; all of them for a whole-grid trace or
// data each CTA owns.
inline double grid_cold_share(const PcStats& p) {
  double share = p.grid_scale > 1 ? (1 + p.l2_cold_marginal * (p.grid_scale - 1)) / p.grid_scale : 1.0;
  if (uses_grid_factor(p)) share = std::min(1.0, p.l2_cold_grid_factor / p.grid_scale);
  // No more than the region a PC's loads are drawn from holds.
  const double grid_cold = static_cast<double>(p.l2_cold) * p.grid_scale;
  if (p.l2_cold_extent_sectors > 0 && grid_cold > 0) share = std::min(share, p.l2_cold_extent_sectors / grid_cold);
  if (p.l2_cold_tensor_sectors > 0 && grid_cold > 0) share = std::min(share, p.l2_cold_tensor_sectors / grid_cold);
  return share;
}

// The report's notes on what a sampled trace's addresses say about the CTAs it leaves out: loads
// drawn from one region (PcStats::l2_cold_extent_sectors), first touches of sectors untraced
// CTAs store (PcStats::l2_cold_written_later).
inline std::vector<Warning> sampled_memory_warnings(const KernelAnalysis& an) {
  std::vector<Warning> out;
  std::size_t drawn = 0, by_index = 0;
  double region_sectors = 0, written = 0, load_first = 0;
  for (std::size_t i = 0; i < an.pcs.size() && an.kernel && i < an.kernel->program.size(); ++i) {
    const auto& p = an.pcs[i];
    if (p.l2_cold_extent_sectors > 0) { ++drawn; region_sectors += p.l2_cold_extent_sectors; }
    if (uses_grid_factor(p)) ++by_index;
    if (an.kernel->program[i].mem_op == MemOp::load) {
      load_first += static_cast<double>(p.l2_cold);
      for (auto n : p.l2_cold_written_later) written += static_cast<double>(n);
    }
  }
  char mb[32];
  std::snprintf(mb, sizeof mb, "%.1f", region_sectors * assume::sector_bytes / 1e6);
  if (drawn > 0) out.push_back({WarningCode::drawn_regions, {std::to_string(drawn), mb}});
  if (by_index > 0) out.push_back({WarningCode::grid_rows_sampled, {std::to_string(by_index)}});
  if (written > 0)
    out.push_back({WarningCode::stored_by_untraced, {std::to_string(static_cast<long long>(written)), std::to_string(static_cast<long long>(load_first))}});
  return out;
}

// CTAs the GPU runs at once: SMs x the CTAs an SM holds.
inline double round_ctas(const GpuSpec& g, const Occupancy& o) { return static_cast<double>(g.sms) * o.blocks_per_sm; }

inline double l1_capacity_bytes(const ArchTable& a, const Occupancy& o) {
  double combined = a.cachev("l1_shared_combined_kib");
  return std::max(16.0, combined - o.shared_config_kib) * 1024.0;
}

// How the CTAs of an SM share its L1. The reuse profile follows one CTA; the CTAs resident
// beside it interleave their own sectors, which stretches its reuse distances by as many: each
// sees its share of the L1. Sectors every CTA reads (PcStats::l1_shared_hist) are found in L1
// by all but the first CTA on an SM: as L1 hits by those that start after it arrived, in flight
// by those resident with it from the start.
struct L1Sharing {
  double bytes_per_cta = 0;   // the L1 one CTA's reuse profile sees
  // Per access l1_shared_hist counts: the share of an SM's CTAs that find the sector another
  // one fetched, and of those the share that start after the fetch completed (both scaled by
  // KernelAnalysis::l1_shared_scale).
  double after_first = 0, after_fetch = 0;
  bool operator==(const L1Sharing& o) const { return bytes_per_cta == o.bytes_per_cta && after_first == o.after_first && after_fetch == o.after_fetch; }
};

// The CTAs an SM holds (a round's) and runs in turn (per_sm). A window of consecutive CTAs
// within one row of a grid of several rows may share a sector as a row (a tile's row of a
// matrix): the SM holds CTAs about `sms` apart in the grid, of the same row only where the row
// is longer (HeCBench floydwarshall, 64 x 64 CTAs: 26 % of its loads hit L1, not the 49 % a
// grid-wide sharing would give).
inline L1Sharing l1_sharing(const KernelAnalysis& an, const GpuSpec& g, const Occupancy& o) {
  const Dim3& grid = an.kernel->launch.grid;
  const Waves w = place_rounds(static_cast<double>(grid.count()), g.sms, o.blocks_per_sm);
  const double resident = std::max(1, w.round_ctas()), per_sm = std::ceil(w.per_sm);
  L1Sharing l;
  l.bytes_per_cta = l1_capacity_bytes(g.arch_table(), o) / resident;
  if (per_sm > 1) {
    const double row = static_cast<double>(grid.x);
    const bool one_row = static_cast<double>(grid.count()) > row && static_cast<double>(an.profile_window_ctas) <= row;
    const double same_row = one_row ? std::max(0.0, row - g.sms) / row : 1.0;
    const double share = same_row * an.l1_shared_scale;
    l.after_first = share * (per_sm - 1) / per_sm;
    l.after_fetch = share * std::max(0.0, per_sm - resident) / per_sm;
  }
  return l;
}

// The grid-level L2 terms every PC's rates read (memory_rates computes them once per launch).
struct GridL2 {
  double warm_fraction = 0;  // share of first-touch L2 misses that hit because the data are resident
                             // from a previous launch (warm_l2_fraction; 0 for cold runs)
  double hold = 1;           // share of the grid's cross-CTA reuses the L2 still holds (grid_reuse_hold)
  double window_bytes = 0;   // the L2 capacity a profile's own reuse distances are compared with (window_l2_bytes)
  double atomic_miss = 0;    // share of the global atomics' updates whose line the L2 no longer holds (atomic_l2_miss_share)
};

// A traced load's hit rates as whole requests: a warp's load waits for its last sector, so
// where a request's sectors miss apart (a gather over many lines, some of them held) requests
// miss more often than sectors. L1: the miss share is scaled by the profile's request-to-sector
// miss ratio at that capacity. L2: a request hits where its reused sectors do (the profile's
// request hits) and each line of its first touches is found in the grid: `found` of a sample's
// first touches are sectors another CTA reads or writes, each held by the L2 with probability
// l2.hold, the rest stay first touches, which hit only where the previous launch left them
// (l2.warm_fraction). A request reads data other CTAs share or data of its own, so `found` is
// taken per request, but each of its lines is held apart (a table looked up at random loses each line on its own: HeCBench xsbench's
// binary search, 11 lines a request, hit L2 on 92 % of sectors and waited on DRAM in about
// 40 % of its requests, where the sector-proportional rule gave 7 %). h1: the PC's L1 sector
// hit rate (h1_own, of its CTA's own reuses alone); h2all: the share of its accesses found in
// L1 or L2 with the grid's reuses added.
struct RequestHits {
  double h1 = 0, h2 = 0;
};
inline double grid_request_l2_hit(const PcStats& p, double request_hit_own, double found_share, const GridL2& l2) {
  double requests = static_cast<double>(p.l2_request_cold);
  for (auto n : p.l2_request_hist) requests += static_cast<double>(n);
  if (!(requests > 0)) return request_hit_own;
  const double reused = requests - static_cast<double>(p.l2_request_cold);
  // Of the requests without first touches, the share whose reused sectors all hit; taken for
  // the reused sectors of requests with first touches too.
  const double reuse_hit = reused > 0 ? std::clamp(request_hit_own * requests / reused, 0.0, 1.0) : 1.0;
  double found = 0;
  for (std::size_t lines = 1; lines <= PcStats::kMaxColdLines; ++lines)
    found += static_cast<double>(p.l2_request_cold_lines[lines]) *
             (found_share * std::pow(l2.hold, static_cast<double>(lines)) + (1 - found_share) * l2.warm_fraction);
  return std::clamp(request_hit_own + reuse_hit * found / requests, 0.0, 1.0);
}
inline RequestHits whole_request_hits(const PcStats& p, const GpuSpec& g, const GridL2& l2, const L1Sharing& l1, bool through_l1, double h1,
                                      double h1_own, double found_share) {
  const ArchTable& a = g.arch_table();
  const double block = a.cachev("sector_bytes");
  auto request_miss_ratio = [](double sector_hit, double request_hit) { return sector_hit < 1 ? std::max(1.0, (1 - request_hit) / (1 - sector_hit)) : 1.0; };
  // Requests reuse what their CTA used last at the window's share of the L2, what another CTA
  // used at all of it (l2_profile_hit_rate): in the PC's proportion of the two reuses.
  double reuses = 0, shared = 0;
  for (int b = 0; b < ReuseProfiler::kBuckets; ++b) {
    reuses += static_cast<double>(p.l2_hist[b]);
    shared += static_cast<double>(p.l2_cross_cta_hist[b]);
  }
  const double shared_share = reuses > 0 ? std::min(1.0, shared / reuses) : 0.0;
  const double request_l2_own =
      (1 - shared_share) * hit_rate(p.l2_request_hist, p.l2_request_cold, l2.window_bytes, block, a.cachev("l2_assoc")) +
      shared_share * hit_rate(p.l2_request_hist, p.l2_request_cold, g.l2_bytes, block, a.cachev("l2_assoc"));
  const double all_miss = 1 - grid_request_l2_hit(p, request_l2_own, found_share, l2);
  RequestHits r;
  r.h1 = h1;
  if (through_l1 && p.l1_profiled() > 0) {
    const double request = hit_rate(p.l1_request_hist, p.l1_request_cold, l1.bytes_per_cta, block, a.cachev("l1_assoc"));
    r.h1 = 1 - std::min(1.0, (1 - h1) * request_miss_ratio(h1_own, request));
  }
  r.h2 = r.h1 < 1 ? std::clamp(1 - all_miss / (1 - r.h1), 0.0, 1.0) : 1.0;
  return r;
}

// Count-only inputs: the kernel's L1 load hit rate for the loads that do not read a sector their
// warp waited for (own_sector_after_use, which hit): the profile's hits less theirs, over the
// other loads' sectors, so that the kernel's hits and traffic stay the profile's.
inline double l1_hit_beside_own_sectors(const Kernel& k, const KernelAnalysis& an, const ProfiledRates& prof) {
  double all = 0, own = 0;
  for (std::size_t i = 0; i < k.program.size(); ++i) {
    const auto& s = k.program[i];
    const auto& p = an.pcs[i];
    if (!global_like(s.space) || s.mem_op != MemOp::load || !uses_profiled_rates(p, prof) || sass::load_bypasses_l1(sass::tokenize_opcode(s.opcode)))
      continue;
    all += p.sectors;
    if (p.own_sector_after_use) own += p.sectors;
  }
  if (own <= 0 || all <= own) return prof.l1_load_hit;
  return std::clamp((prof.l1_load_hit * all - own) / (all - own), 0.0, 1.0);
}

// Count-only inputs: the L1 hit rate a PC takes from the profile: none past L1, all for a load of
// a sector its warp waited for (own_sector_after_use), else the kernel's (l1_hit_beside_own_sectors).
inline double profiled_l1_hit(bool past_l1, const PcStats& p, const ProfiledRates& prof) {
  return past_l1 ? 0.0 : p.own_sector_after_use ? 1.0 : prof.l1_load_hit;
}

// Count-only inputs: the share of a load's L1 misses that find lines the kernel stored before it
// (PcStats::kernel_stored_sectors): up to the sectors stored, of which the L2 holds at most its
// capacity.
inline double kernel_store_hit_share(const PcStats& p, double h1, double l2_bytes) {
  const double misses = p.sectors * (1 - h1);
  if (!(p.kernel_stored_sectors > 0) || !(misses > 0)) return 0;
  const double held = l2_bytes > 0 ? std::min(1.0, l2_bytes / (p.kernel_stored_sectors * assume::sector_bytes)) : 1.0;
  return std::min(1.0, p.kernel_stored_sectors / misses) * held;
}

// Count-only inputs: the L2 read hit rate of the loads that do not read the kernel's own stores,
// and the part of those loads' hits (kernel_store_hit_share) that the profile allows, so that the
// kernel's L2 read hits stay the profile's (Hopper's profile counts an L2 read that misses once
// per L2 half: l2_read_hit is of the profile's lookups, as the kernel-wide rate always was).
inline void l2_hit_beside_kernel_stores(const Kernel& k, const KernelAnalysis& an, double l2_bytes, ProfiledRates& prof) {
  double all = 0, own = 0;
  for (std::size_t i = 0; i < k.program.size(); ++i) {
    const auto& s = k.program[i];
    const auto& p = an.pcs[i];
    if (!global_like(s.space) || s.mem_op != MemOp::load || !uses_profiled_rates(p, prof)) continue;
    const double h1 = profiled_l1_hit(sass::load_bypasses_l1(sass::tokenize_opcode(s.opcode)), p, prof);
    all += p.sectors * (1 - h1);
    own += p.sectors * (1 - h1) * kernel_store_hit_share(p, h1, l2_bytes);
  }
  if (!(own > 0) || !(all > 0)) return;
  const double hits = prof.l2_read_hit * all;
  prof.kernel_store_hits_kept = std::min(1.0, hits / own);
  const double own_hits = own * prof.kernel_store_hits_kept;
  // Every load's misses beyond those hits take the rest: hits = own_hits + (all - own_hits) x.
  prof.l2_read_hit = all > own_hits ? std::clamp((hits - own_hits) / (all - own_hits), 0.0, 1.0) : prof.l2_read_hit;
}

// The L2 hit rate of a traced PC's profile: its reuses of sectors its own CTA used last at
// `own_bytes` (window_l2_bytes), its reuses of sectors another CTA used last at `shared_bytes`
// (the whole L2: the grid's CTAs that share data reuse it at least as often as the window's).
inline double l2_profile_hit_rate(const PcStats& p, double own_bytes, double shared_bytes, double block, double assoc) {
  std::uint64_t own[ReuseProfiler::kBuckets];
  double total = static_cast<double>(p.l2_cold);
  for (int b = 0; b < ReuseProfiler::kBuckets; ++b) {
    own[b] = p.l2_hist[b] - std::min(p.l2_hist[b], p.l2_cross_cta_hist[b]);
    total += static_cast<double>(p.l2_hist[b]);
  }
  if (!(total > 0)) return 0;
  return (expected_hits(own, own_bytes, block, assoc) + expected_hits(p.l2_cross_cta_hist, shared_bytes, block, assoc)) / total;
}

// DRAM bytes of a global atomic's sectors that miss L2 (share `miss`): each reads its fill
// (l2_fill_bytes) and evicts a dirty sector, written back.
struct AtomicMissBytes {
  double read = 0, written = 0;
};
inline AtomicMissBytes atomic_miss_dram_bytes(double sectors, double miss, const ArchTable& a) {
  return {sectors * miss * a.cachev("l2_fill_bytes"), sectors * miss * assume::sector_bytes};
}

// Hit rates and traffic of one PC (what depends on the cache sizes, never on a latency).
// prof: hit rates from the input's profiled memory counters (counts-only inputs), used where
// the PC has no reuse profile of its own.
// l1: how the SM's CTAs share its L1 (l1_sharing).
inline PcMemory pc_rates(const StaticInstr& s, const PcStats& p, const GpuSpec& g, const Occupancy& o, bool& assumed, const GridL2& l2,
                         const ProfiledRates& prof, const L1Sharing& l1) {
  const ArchTable& a = g.arch_table();
  PcMemory m;
  if (!global_like(s.space)) return m;
  const bool is_store = s.mem_op == MemOp::store;
  const bool is_atomic = s.mem_op == MemOp::atomic || s.mem_op == MemOp::reduction;
  // Stores and atomics hit nothing in L1, nor do loads that read L2 past it (ld.cg, volatile).
  const bool past_l1 = is_store || is_atomic || (s.mem_op == MemOp::load && sass::load_bypasses_l1(sass::tokenize_opcode(s.opcode)));
  if (!p.has_profile && p.requests == 0) return m;  // no access (never run, or no active lane): nothing to assume
  if (p.has_profile) {
    double block = a.cachev("sector_bytes");
    double h1 = 0, h1_own = 0;  // h1_own: the CTA's own reuses alone (the profile's sector hit rate)
    if (!past_l1) {
      // Its own reuses, and its first touches of sectors every CTA reads, by distance per CTA.
      const double accesses = p.l1_profiled();
      const double own = expected_hits(p.l1_hist, l1.bytes_per_cta, block, a.cachev("l1_assoc"));
      const double shared = expected_hits(p.l1_shared_hist, l1.bytes_per_cta, block, a.cachev("l1_assoc"));
      if (accesses > 0) {
        h1_own = own / accesses;
        h1 = std::min(1.0, (own + shared * l1.after_first) / accesses);
        m.h1_shared = std::min(h1, shared * l1.after_fetch / accesses);
        m.h1_shared_in_flight = std::min(h1 - m.h1_shared, shared * (l1.after_first - l1.after_fetch) / accesses);
      }
    }
    // The profile's alone: a CTA's own reuses at the window's share of the L2, reuses of what
    // another CTA used at all of it.
    const double h2_own = l2_profile_hit_rate(p, l2.window_bytes, g.l2_bytes, block, a.cachev("l2_assoc"));
    double h2all = h2_own;
    double total = p.l2_profiled();
    // A sample's first touches of sectors that the grid's untraced CTAs share: of the PC's
    // cold accesses, grid_scale^(growth - 1) stay first touches in the grid, the others find
    // the sector another CTA fetched (which the L2 holds in l2.hold of the cases). Loads only.
    // First touches of sectors a CTA the trace leaves out has written already: found in L2
    // where that CTA runs beside the reader (within a round's CTAs of it).
    double cold = static_cast<double>(p.l2_cold), shared = 0, written = 0;
    if (!is_store && !is_atomic) {
      const double round = round_ctas(g, o);
      for (int b = 0; b < kWriterBuckets; ++b) written += static_cast<double>(p.l2_cold_written_later[b]) * writer_bucket_share_below(b, round);
      written = std::min(written, cold);
      cold -= written;
      shared = cold * (1 - grid_cold_share(p));
      cold -= shared;
    }
    if (total > 0) h2all = std::min(1.0, h2all + ((shared + written) * l2.hold + l2.warm_fraction * cold) / total);
    m.h1 = h1;
    m.h2 = h1 < 1 ? std::clamp((h2all - h1) / (1 - h1), 0.0, 1.0) : 1.0;
    m.h1_request = m.h1;
    m.h2_request = m.h2;
    if (s.mem_op == MemOp::load) {
      const double first = static_cast<double>(p.l2_cold);
      const RequestHits r = whole_request_hits(p, g, l2, l1, !past_l1, h1, h1_own, first > 0 ? (shared + written) / first : 0.0);
      m.h1_request = r.h1;
      m.h2_request = r.h2;
    }
    // First touches that a 64 B fill has brought with their neighbour: as many of them as stay
    // first touches in the grid and are not warm already, with the neighbour still held.
    if (a.cachev("l2_fill_bytes") >= 64 && total > 0 && h1 < 1) {
      const double fills = expected_hits(p.l2_pair_fill_hist, l2.window_bytes, block, a.cachev("l2_assoc")) * grid_cold_share(p) * (1 - l2.warm_fraction);
      m.h2_pair_fill = std::clamp(fills / total / (1 - h1), 0.0, 1.0 - m.h2);
    }
    // In-flight hits: the warps of a CTA run the same code a few issue slots apart, so a sector
    // that a sibling warp's load missed on moments before is found in L1 still on its way (a
    // hit on a pending miss). It counts as a hit for traffic but waits for the fill. Taken as
    // such: a reuse whose previous access came from another warp of the CTA, with fewer
    // distinct sectors in between than the CTA's warps fetch with one request each (about what
    // is in flight during one miss). A warp's reuse of its own sector is a plain hit: its
    // earlier load had to arrive before the warp went on past its use.
    if (!past_l1 && p.requests > 0) {
      const double window = o.warps_per_block * std::max(1.0, p.sectors / p.requests);
      m.h1_in_flight = std::min(h1, near_reuse_share(p.l1_hist, p.l1_sibling_hist, p.l1_cold, window));
    }
  } else if (prof.present) {
    // The profile's kernel-wide rates, for every PC alike (a load of a sector its warp waited
    // for hits; memory_rates gives the others the rest of the kernel's hits); a warm L2 hits
    // on the misses too.
    m.h1 = profiled_l1_hit(past_l1, p, prof);
    // A load of the kernel's own stores finds them in L2 (l2_hit_beside_kernel_stores).
    const double own_stores = is_store || is_atomic ? 0.0 : kernel_store_hit_share(p, m.h1, g.l2_bytes) * prof.kernel_store_hits_kept;
    const double read_hit = own_stores + (1 - own_stores) * prof.l2_read_hit;
    m.h2 = is_atomic ? l2.warm_fraction
           : is_store ? 1 - prof.store_writeback * (1 - l2.warm_fraction)
                      : read_hit + (1 - read_hit) * l2.warm_fraction;
    // A load whose address all the CTA's threads share: the warps walk its sectors in step,
    // so each sector the CTA misses on is found in flight by the other warps' first touches
    // (warps - 1 of them per miss), which wait for the fill like the miss (bench/corpus
    // latency_kernels.cu: 16 warps walking one array take as long per step as one warp). The
    // counts must agree: one address per request is one sector, and more than one lane per
    // execution (a load run by a single thread, a serial loop in thread 0, has no siblings).
    // The loads of one sector a warp issues together (sector_issue_groups) wait for one fetch
    // the same way: each of the group's misses is found in flight by the others. The rates are
    // the kernel's, so a group whose own data hit more than the kernel's other loads (a small
    // vector beside a streamed matrix: HeCBench mv_dense, 1.2x -> 2x slow) is charged their misses.
    double sharing = std::max(1.0, p.sector_issue_group);
    if (p.cta_uniform_address && !is_store && !is_atomic && o.warps_per_block > 1 && p.requests > 0 && p.sectors <= p.requests * 1.001 &&
        p.thread_exec >= 2 * p.warp_exec)
      sharing *= o.warps_per_block;
    if (!past_l1 && sharing > 1) m.h1_in_flight = std::min(m.h1, (sharing - 1) * (1 - m.h1));
  } else {
    assumed = true;
    if (is_store || is_atomic) { m.h1 = 0; m.h2 = l2.warm_fraction; }
    else {
      m.h2 = l2.warm_fraction;  // every requested sector is a first touch: warm data hit
      double h1 = 0;
      if (!past_l1 && p.load_group >= 0 && p.sectors > 0) h1 = std::clamp(1.0 - p.group_footprint_sectors / p.sectors, 0.0, assume::max_assumed_l1_hit);
      m.h1 = h1;
    }
  }
  if (!p.has_profile) {
    m.h1_request = m.h1;
    m.h2_request = m.h2;
  }
  double sectors = p.sectors;
  m.l2_sectors = is_atomic ? p.requests : sectors * (1 - m.h1);
  m.dram_sectors = is_atomic ? 0 : sectors * (1 - m.h1) * (1 - m.h2);
  if (is_atomic) {
    // An update whose line the L2 no longer holds reads its fill (l2_fill_bytes) from DRAM and
    // evicts a dirty sector, written back (calibrate/atomic_miss_probe.cu, 1 GiB: 56 B read and
    // 35 B written a modelled miss).
    m.atomic_miss = l2.atomic_miss;
    const AtomicMissBytes b = atomic_miss_dram_bytes(sectors, m.atomic_miss, a);
    m.dram_sectors = (b.read + b.written) / assume::sector_bytes;
  }
  if (is_store && p.has_profile) {
    // The L2 writes back: a store reaches DRAM once per sector the kernel dirties, whether or
    // not its line was in L2 (a read-modify-write of y in y = a*x + y still writes y back),
    // unless the kernel's data stay resident across launches (l2.warm_fraction).
    double profiled = p.l2_profiled();
    double first_writes = profiled > 0 ? static_cast<double>(p.l2_first_writes) / profiled : 1.0;
    m.dram_sectors = sectors * first_writes * (1 - l2.warm_fraction);
    // A bulk tensor store writes inside the tensors its boxes name, however the sample grows.
    if (p.l2_cold_tensor_sectors > 0) m.dram_sectors = std::min(m.dram_sectors, p.l2_cold_tensor_sectors * (1 - l2.warm_fraction));
  }
  return m;
}

// The L1 wavefronts of a PC's requests before its stores' partly written sectors: a wavefront a
// line, but for loads whose lines share bank passes, at the PC's sector hit rate `h1`.
inline double load_wavefronts(const PcStats& p, double h1, const L1RequestCosts& c) {
  double saved = 0;
  for (const auto& s : p.bank_shared_loads)
    saved += s.requests * (s.lines - global_load_wavefronts(s.lines, s.passes, h1, c.hit_lines_per_wavefront, c.miss_lines_per_wavefront));
  return std::max(0.0, p.wavefronts - saved);
}

// The average result latency of one PC from its hit rates (pc_rates). dram_latency: the DRAM
// latency at the launch's load (g.dram_latency plus the loaded-SM excess); the latency is
// affine in it. Sweeps cache rounds by what this reads of g (Predictor::predict_times'
// Signature: L1, L2 and shared latencies; the arch table through the descriptors' key, which
// covers the lines-per-request curves GpuSpec copies from it): a new read of g here belongs
// there too.
inline double pc_latency(const StaticInstr& s, const PcStats& p, const InstrDesc& d, const ArchTable& a, const GpuSpec& g, const PcMemory& m,
                         double dram_latency, const ProfiledRates& prof) {
  if (s.space == MemSpace::shared) {
    double ways = p.requests > 0 ? p.wavefronts / p.requests : 1;
    double lat = (d.mem_op == MemOp::atomic || d.mem_op == MemOp::reduction) && a.memory.count("shared_atomic_latency_cycles")
                     ? a.mem("shared_atomic_latency_cycles") : g.shared_latency;
    return lat + a.mem("shared_bank_pass_latency_cycles") * std::max(0.0, ways - 1);  // each pass past the first
  }
  if (!global_like(s.space)) return d.latency;
  const bool is_store = s.mem_op == MemOp::store;
  const bool is_atomic = s.mem_op == MemOp::atomic || s.mem_op == MemOp::reduction;
  if (is_atomic) {
    // An update the L2 misses on waits for its sector from DRAM: a dependent chain of such
    // updates takes a DRAM load's latency a step (calibrate/atomic_miss_probe.cu: 711 cycles
    // against 697-712 for ld.cg and 408 for an update the L2 holds).
    const double hit = g.l2_hit_latency + a.mem("global_atomic_latency_cycles");
    return hit + m.atomic_miss * std::max(0.0, dram_latency - hit);
  }
  if (is_store) return g.l1_hit_latency;  // stores complete at L1 from the warp's point of view
  // No lane accessed memory: no wait for data (calibrate/predicated_off_load.cu measured such a
  // load 18 cycles under an L1 hit in a chain); the L1 hit latency is an upper estimate.
  if (!p.has_profile && p.requests == 0) return g.l1_hit_latency;
  // A warp's load completes with its last line: traced PCs' requests hit as whole requests
  // (pc_rates' h1_request). Profiled rates count sectors; a request spread over several lines
  // waits unless all of them hit (taken as independent), but for lanes a line apart that each
  // walk their own line (PcStats::walks_own_line: a thread per row, in step with the others),
  // which hit and miss together (HeCBench simpleSpmv's mv_dense on the train part: 2x slow
  // from counts with independent lines).
  double h1 = m.h1_request, h2 = m.h2_request;
  // The L1 hit parts below are the sectors'; a request keeps them in proportion.
  const double request_share = m.h1 > 0 ? m.h1_request / m.h1 : 0.0;
  const bool in_step = lanes_apart(p) && p.walks_own_line;
  if (prof.present && !p.has_profile && p.requests > 0 && !in_step) {
    const double lines = std::max(1.0, p.sectors / p.requests / assume::sectors_per_line);
    h1 = std::pow(h1, lines);
    h2 = std::pow(h2, lines);
  }
  // A request over many lines waits longer than one over a line: its misses queue in the
  // memory system (calibrate/dram_locality_probe.cu: 32 lines a request take 1.6x a line's DRAM
  // latency and 80 cycles more on L2 hits). The DRAM part scales the loaded latency by the
  // measured ratio, so it keeps its physical time at any clock. Traced PCs only: a profiled
  // rate's request already waits for a miss unless all its lines hit, each line an independent
  // draw of the kernel-wide rate (above), which charges wide requests more than their own
  // misses would (simpleSpmv's kernels on the train part: 1.2x slow from counts, 1.5x with it).
  // A request that misses waits for the lines it misses: its share of the request's lines.
  const double request_lines = p.has_profile && p.requests > 0 && p.lines > p.requests ? p.lines / p.requests : 1.0;
  const double lines = std::clamp(request_lines * (1 - m.h1) / std::max(1e-9, 1 - h1), 1.0, request_lines);
  const double dram_wide = g.dram_latency_vs_lines ? g.dram_latency_vs_lines->at(lines) / g.dram_latency_vs_lines->y.front() : 1.0;
  const double l2_wide = g.l2_latency_vs_lines ? bound::loaded_latency_excess(*g.l2_latency_vs_lines, lines) : 0.0;
  const double l2_found = std::min(1.0, h2 + m.h2_pair_fill);
  const double miss = l2_found * (g.l2_hit_latency + l2_wide) + (1 - l2_found) * dram_latency * dram_wide;
  const double in_flight = std::min(m.h1_in_flight * request_share, h1);
  // An in-flight hit waits for its CTA's first touch of the sector, which another CTA of the
  // SM may have fetched already (h1_shared: an L1 hit).
  const double first_touches = p.has_profile ? static_cast<double>(p.l1_cold) / std::max(1.0, p.l1_profiled()) : 0.0;
  const double fetched = first_touches > 0 ? std::clamp(m.h1_shared / first_touches, 0.0, 1.0) : 0.0;
  const double first_touch = fetched * g.l1_hit_latency + (1 - fetched) * miss;
  const double shared_in_flight = std::min(m.h1_shared_in_flight * request_share, h1 - in_flight);
  return (h1 - in_flight - shared_in_flight) * g.l1_hit_latency + in_flight * std::max(g.l1_hit_latency, first_touch) +
         shared_in_flight * std::max(g.l1_hit_latency, miss) + (1 - h1) * miss;
}

}  // namespace detail

// Distinct bytes the kernel touches: first-touch sectors of the traced stream, scaled to the
// grid as each PC's distinct sectors grow with the CTAs (PcStats::l2_cold_marginal), or every
// requested sector when the input has no addresses (an upper bound that counts each reuse
// again). A profile bounds the latter tighter: on its cold L2 every distinct byte read came from
// DRAM at least once, and the bytes written are at most the sectors stored. A stencil reads
// each word several times: Rodinia hotspot3D (train) requests 63 MB, over the L2, of which its
// cold run read 17 MB from DRAM and stored 8 MB.
inline double l2_footprint_bytes(const KernelAnalysis& an) {
  const Kernel& k = *an.kernel;
  double traced = 0, requested = 0;
  for (std::size_t i = 0; i < k.program.size(); ++i) {
    if (!global_like(k.program[i].space)) continue;
    const auto& p = an.pcs[i];
    if (p.has_profile) traced += assume::sector_bytes * static_cast<double>(p.l2_cold) * p.grid_scale * detail::grid_cold_share(p);
    else requested += assume::sector_bytes * p.sectors;
  }
  if (const ProfiledTraffic& t = k.profiled_traffic; t.present && requested > 0) {
    const double written = std::max(t.l1_store_sectors, t.l2_write_sectors) + t.l2_atomic_sectors;
    requested = std::min(requested, t.dram_read_bytes + written * assume::sector_bytes);
  }
  return traced + requested;
}

// Share of first-touch L2 misses that hit because the previous launch left the data in L2:
// all when the kernel's distinct bytes fit in L2, none otherwise (a footprint larger than L2,
// swept in the same order every launch, evicts itself: LRU on a cyclic stream keeps nothing).
inline double warm_l2_fraction(const KernelAnalysis& an, const GpuSpec& g) { return l2_footprint_bytes(an) <= g.l2_bytes ? 1.0 : 0.0; }

// Share of a sampled grid's cross-CTA reuses (pc_rates) that the L2 still holds: all while the
// grid's footprint fits, else capacity / footprint (reuses spread over the footprint, as a
// table looked up at random).
inline double grid_reuse_hold(const KernelAnalysis& an, const GpuSpec& g) {
  const double footprint = l2_footprint_bytes(an);
  return footprint > g.l2_bytes ? g.l2_bytes / footprint : 1.0;
}

// The L2 capacity a trace's reuse distances are compared with. The L2 profile interleaves the
// warps of a window of consecutive CTAs (at most AddressProfiler::kWindowCtas), while the GPU
// runs min(grid, SMs x CTAs an SM) at once, and the accesses of all of them come between a
// CTA's use of a sector and its reuse: the window holds its share of the L2. HeCBench thomas
// (train; 257 CTAs at once, 7 traced) reads back what each thread wrote in its forward sweep:
// the sample's distances gave 32 % L2 hits, its counters show 0.5 % (1.4 % with the share).
inline double window_l2_bytes(const KernelAnalysis& an, const GpuSpec& g, const Occupancy& o) {
  if (an.profile_window_ctas == 0) return g.l2_bytes;
  const double concurrent = std::min(static_cast<double>(an.kernel->launch.grid.count()), detail::round_ctas(g, o));
  return concurrent > 0 ? g.l2_bytes * std::min(1.0, static_cast<double>(an.profile_window_ctas) / concurrent) : g.l2_bytes;
}

// A loaded SM sees a longer DRAM latency: with each resident warp keeping about one request in
// flight (the measured curve's setup), add what the curve adds over its lightest load (its
// cycles converted to the GPU's clock like the idle latency's).
inline double loaded_dram_latency(const GpuSpec& g, double warps_per_sm) {
  double l = g.dram_latency;
  if (g.dram_latency_vs_warps) l += bound::loaded_latency_excess(*g.dram_latency_vs_warps, warps_per_sm) * g.dram_cycle_scale;
  return l;
}

// The idle DRAM latency over the loaded one (0 where there is none). Both scale with the clock
// alike (dram_cycle_scale), so the ratio does not depend on it; but the quotient's last bits
// do, and it keys a sweep's rounds (RoundKey): unrounded, a clock sweep split each round over
// three keys and simulated it three times. 12 digits keep it exact enough.
inline double idle_dram_ratio(double idle_latency, double loaded_latency) {
  if (!(loaded_latency > 0)) return 0;
  return std::round(std::min(1.0, idle_latency / loaded_latency) * 1e12) / 1e12;
}

// The memory model's part that depends on no latency: per-PC hit rates and traffic, and the
// kernel's memory totals (avg_load_latency aside). A what-if that changes only latencies or
// bandwidths re-uses it.
struct MemoryRates {
  std::vector<PcMemory> mem;  // latency not set
  MemoryStats stats;          // avg_load_latency not set
  ProfiledRates prof;
};

// Bulk copies from global to shared memory (TMA's UTMALDG, cp.async.bulk's UBLKCP): the L2
// serves them a tile at a time, with no lane addresses, and a profile's page counts no sectors
// for them (calibrate/tma_pipeline_probe.cu: 268 MB read from DRAM, none at its UTMALDG).
inline bool is_bulk_copy(const StaticInstr& s) { return s.opcode.rfind("UTMALDG", 0) == 0 || s.opcode.rfind("UBLKCP", 0) == 0; }

// A profiled kernel's bulk copies: their L2 sectors and their share that hits, on the profiled
// GPU. The profile's L2 read lookups count a sector that hits once and one that misses
// `lookups_per_miss` times (Hopper's two L2 halves), so the sectors the L2 served are the hits
// plus the other lookups over that; the bulk copies' are those beyond the L1 misses of the
// loads the page attributes to instructions (`load_l2_sectors`). None where the kernel runs no
// bulk copy (the remainder is then other traffic: instruction and constant fetches).
struct BulkCopyTraffic {
  double sectors = 0, hit = 0;
  double executions = 0;  // the bulk copies' warp executions, over which the sectors are shared
};
inline BulkCopyTraffic bulk_copy_traffic(const Kernel& k, const ProfiledTraffic& t, double load_l2_sectors, double lookups_per_miss) {
  BulkCopyTraffic b;
  if (!t.present || !(t.l2_read_sectors > 0)) return b;
  for (const auto& s : k.program)
    if (is_bulk_copy(s) && !s.bulk_box) b.executions += static_cast<double>(s.warp_executed);  // a traced box carries its own
  if (!(b.executions > 0)) return b;
  const double hits = std::min(t.l2_read_hit_sectors, t.l2_read_sectors);
  const double served = hits + (t.l2_read_sectors - hits) / std::max(1.0, lookups_per_miss);
  b.sectors = std::max(0.0, served - load_l2_sectors);
  b.hit = served > 0 ? hits / served : 0.0;
  return b;
}

// Dirty bytes a kernel started on a cold L2 leaves in it, written back after it ends: none of a
// kernel launched back to back, whose predecessor's dirty lines it evicts and writes back in
// their place (or overwrites, where its data fit: warm_fraction).
inline double dirty_retained_bytes(const GpuSpec& g, bool cold_l2) { return cold_l2 ? g.l2_dirty_retained_fraction * g.l2_bytes : 0.0; }

// Of a grid's global atomic updates, the share whose line the L2 no longer holds: updates
// spread over more lines than the L2's usable share holds find a held line in usable / footprint
// of the cases (uniform reuse over the lines, at random), the rest miss. A footprint that fits
// misses on its first touches only, which cost no more than hits where no dirty line is evicted
// (calibrate/atomic_miss_probe.cu: 4 MiB on a flushed L2 as fast as on a warm one), so those are
// not counted. The footprint is the distinct lines of the grid's updates (footprint_lines);
// count-only inputs have none (0). 0 where the arch table measured no miss rate.
inline double atomic_l2_miss_share(const AtomicProfile& at, const GpuSpec& g) {
  if (!(g.atomic_l2_miss_updates_per_ns > 0) || !(at.footprint_lines > 0)) return 0;
  const double footprint = at.footprint_lines * assume::sector_bytes * assume::sectors_per_line;
  const double usable = g.l2_usable_share * g.l2_bytes;
  return footprint > usable ? 1 - usable / footprint : 0.0;
}

// The same share from a profile's counters, where it counted the atomics' L2 misses (count-only
// inputs have no lines to spread). Each update that misses takes a line: the first misses, as
// many as the target's L2 holds of usable lines, take lines no update dirtied, as cheap as hits
// (the 4 MiB case above); past them each one evicts a dirty line. Of the probe's updates on the
// H200 that gives 0 (4 MiB), 0.40 (64 MiB), 0.80 (256 MiB) and 0.87 (1 GiB), where its rates put
// 0, 0.44, 0.82 and 0.94. A profile of another GPU counted that GPU's misses: its L2's size
// changes them too, which this leaves out (H100 to H200: 50 against 60 MiB).
inline double profiled_atomic_l2_miss_share(const ProfiledTraffic& t, const GpuSpec& g) {
  if (!(g.atomic_l2_miss_updates_per_ns > 0) || !t.present || !t.l2_atomic_miss_sectors) return 0;
  const double updates = t.l2_atomic_sectors + t.l2_reduction_sectors;
  if (!(updates > 0)) return 0;
  const double held_lines = g.l2_usable_share * g.l2_bytes / (assume::sector_bytes * assume::sectors_per_line);
  return std::clamp((*t.l2_atomic_miss_sectors - held_lines) / updates, 0.0, 1.0);
}

// l1: l1_sharing(an, g, o), which the caller also keys its cache by.
inline MemoryRates memory_rates(const KernelAnalysis& an, const GpuSpec& g, const Occupancy& o, const detail::L1Sharing& l1, double warm_fraction,
                                bool cold_l2) {
  const Kernel& k = *an.kernel;
  MemoryRates r;
  r.mem.resize(k.program.size());
  MemoryStats& ms = r.stats;
  bool assumed = false;
  r.prof = profiled_rates(k.profiled_traffic, g.l2_bytes);
  if (r.prof.present) {
    r.prof.l1_load_hit = detail::l1_hit_beside_own_sectors(k, an, r.prof);
    detail::l2_hit_beside_kernel_stores(k, an, g.l2_bytes, r.prof);
  }
  // Traced lines where the input has them, else the profile's misses.
  ms.atomic_l2_miss_profiled = !(an.atomics.footprint_lines > 0) && k.profiled_traffic.l2_atomic_miss_sectors.has_value();
  const double atomic_miss = ms.atomic_l2_miss_profiled ? profiled_atomic_l2_miss_share(k.profiled_traffic, g) : atomic_l2_miss_share(an.atomics, g);
  const detail::GridL2 grid_l2{warm_fraction, grid_reuse_hold(an, g), window_l2_bytes(an, g, o), atomic_miss};
  ms.atomic_l2_miss_share = grid_l2.atomic_miss;
  if (r.prof.present) {
    ms.rates_profiled_on = k.profiled_traffic.gpu.empty() ? "the profiled GPU" : k.profiled_traffic.gpu;
    ms.profiled_l2_ratio = r.prof.l2_ratio;
  }
  const L1RequestCosts l1_costs = l1_request_costs(g.arch_table());
  double dram_phase[kTrafficPhases] = {0}, l2_phase[kTrafficPhases] = {0}, atomic_phase[kTrafficPhases] = {0};
  double l1_hits_w = 0, l2_hits_w = 0, l1_w = 0, l2_w = 0, own_dirty_sectors = 0;
  for (std::size_t i = 0; i < k.program.size(); ++i) {
    const auto& s = k.program[i];
    const auto& p = an.pcs[i];
    PcMemory& m = r.mem[i] = detail::pc_rates(s, p, g, o, assumed, grid_l2, r.prof, l1);
    if (global_like(s.space)) {
      m.l1_wavefronts = global_l1_wavefronts(detail::load_wavefronts(p, m.h1, l1_costs), p.partly_written_sectors, l1_costs.partial_sector_wavefronts);
      if (s.mem_op == MemOp::load) {
        ms.global_load_requests += p.requests;
        ms.global_load_sectors += p.sectors;
        l1_w += p.sectors; l1_hits_w += p.sectors * m.h1;
        l2_w += p.sectors * (1 - m.h1); l2_hits_w += p.sectors * (1 - m.h1) * m.h2;
        ms.dram_read_bytes += m.dram_sectors * assume::sector_bytes;
        // A gather's first touches, each alone in its line: DRAM accesses of their own. Only the
        // grid's first touches (counted from the addresses): the model's re-fetches of data it
        // takes the L2 to lose are too uncertain to bound anything (HeCBench bsearch's tree, train
        // part: 3.7 GB of DRAM reads against 0.53 GB measured).
        if (p.has_profile && lanes_apart(p)) {
          const double first = static_cast<double>(p.l2_cold) * p.grid_scale * detail::grid_cold_share(p) * (1 - warm_fraction);
          const double alone = 1 - m.h2_pair_fill / std::max(1e-9, 1 - m.h2);  // the rest came with a 64 B fill's neighbour
          ms.dram_gathered_sectors += std::min(m.dram_sectors, first) * alone;
        }
      } else if (s.mem_op == MemOp::store) {
        ms.global_store_requests += p.requests;
        ms.global_store_sectors += p.sectors;
        ms.global_store_lines += p.lines;
        ms.global_store_partial_sectors += p.partial_store_sectors;
        ms.global_store_partial_lines += p.partial_store_lines;
        ms.dram_write_bytes += m.dram_sectors * assume::sector_bytes;
        if (!detail::uses_profiled_rates(p, r.prof)) own_dirty_sectors += m.dram_sectors;
      } else {
        ms.atomic_requests += p.requests;
        const detail::AtomicMissBytes b = detail::atomic_miss_dram_bytes(p.sectors, m.atomic_miss, g.arch_table());
        ms.dram_read_bytes += b.read;
        ms.dram_write_bytes += b.written;
      }
      ms.l2_bytes += m.l2_sectors * assume::sector_bytes;
      // When: the DRAM sectors with the PC's first touches, the L2's other sectors with its reuses.
      double first = 0, reuse = 0;
      for (int ph = 0; ph < kTrafficPhases; ++ph) { first += p.phase_first[ph]; reuse += p.phase_reuse[ph]; }
      if (first + reuse > 0)
        for (int ph = 0; ph < kTrafficPhases; ++ph) {
          const double f = first > 0 ? p.phase_first[ph] / first : (p.phase_first[ph] + p.phase_reuse[ph]) / (first + reuse);
          const double r = reuse > 0 ? p.phase_reuse[ph] / reuse : f;
          dram_phase[ph] += m.dram_sectors * f;
          l2_phase[ph] += std::min(m.l2_sectors, m.dram_sectors) * f + std::max(0.0, m.l2_sectors - m.dram_sectors) * r;
          if (s.mem_op == MemOp::atomic || s.mem_op == MemOp::reduction) atomic_phase[ph] += p.phase_first[ph] + p.phase_reuse[ph];
        }
    } else if (s.space == MemSpace::shared) {
      ms.shared_requests += p.requests;
      ms.shared_wavefronts += p.wavefronts;
    }
  }
  // Bulk copies from a profile: their sectors over their PCs by executions, the hit share carried
  // over to the target's L2 as the loads' rate is (profiled_rates), warm for a launch back to back.
  if (const BulkCopyTraffic bulk = bulk_copy_traffic(k, k.profiled_traffic, l2_w, g.arch_table().cachev("l2_read_lookups_per_miss"));
      bulk.sectors > 0) {
    const double kept = r.prof.hits_kept() * bulk.hit;
    const double h2 = kept + (1 - kept) * warm_fraction;
    for (std::size_t i = 0; i < k.program.size(); ++i)
      if (is_bulk_copy(k.program[i]) && !k.program[i].bulk_box) {
        r.mem[i].l2_sectors = bulk.sectors * static_cast<double>(k.program[i].warp_executed) / bulk.executions;
        r.mem[i].dram_sectors = r.mem[i].l2_sectors * (1 - h2);
        r.mem[i].h2 = h2;
      }
    ms.l2_bytes += bulk.sectors * assume::sector_bytes;
    ms.dram_read_bytes += bulk.sectors * (1 - h2) * assume::sector_bytes;
  }
  // The L2 keeps the last of the dirtied sectors when the kernel ends (a cold start): only those
  // past that share are written back during it. Stores whose rates come from a profile are left
  // as they are: the profile's write-back was counted on a cold L2 already.
  const double retained = dirty_retained_bytes(g, cold_l2) / assume::sector_bytes;
  if (retained > 0 && own_dirty_sectors > 0) {
    const double kept = std::min(1.0, retained / own_dirty_sectors);
    for (std::size_t i = 0; i < k.program.size(); ++i)
      if (global_like(k.program[i].space) && k.program[i].mem_op == MemOp::store && !detail::uses_profiled_rates(an.pcs[i], r.prof))
        r.mem[i].dram_sectors *= 1 - kept;
    ms.dram_write_bytes -= own_dirty_sectors * kept * assume::sector_bytes;
  }
  ms.l1_hit_rate = l1_w > 0 ? l1_hits_w / l1_w : 0;
  ms.l2_hit_rate = l2_w > 0 ? l2_hits_w / l2_w : 0;
  ms.hit_rates_assumed = assumed;
  double dram_sum = 0, l2_sum = 0, atomic_sum = 0;
  for (int ph = 0; ph < kTrafficPhases; ++ph) { dram_sum += dram_phase[ph]; l2_sum += l2_phase[ph]; atomic_sum += atomic_phase[ph]; }
  for (int ph = 0; ph < kTrafficPhases; ++ph) {
    ms.dram_phase_share[ph] = dram_sum > 0 ? dram_phase[ph] / dram_sum : 0;
    ms.l2_phase_share[ph] = l2_sum > 0 ? l2_phase[ph] / l2_sum : 0;
    ms.atomic_phase_share[ph] = atomic_sum > 0 ? atomic_phase[ph] / atomic_sum : 0;
  }
  return r;
}

// Every instruction's result latency on one GPU (`latency`; `mem`: the rates with each PC's
// latency) from the rates; returns the average global load latency.
inline double memory_latencies(const KernelAnalysis& an, const std::vector<InstrDesc>& desc, const GpuSpec& g, const MemoryRates& r,
                               double dram_latency, std::vector<double>& latency, std::vector<PcMemory>* mem = nullptr) {
  const Kernel& k = *an.kernel;
  latency.resize(k.program.size());
  if (mem) *mem = r.mem;
  const ArchTable& a = g.arch_table();
  double lat_w = 0, lat_n = 0;
  for (std::size_t i = 0; i < k.program.size(); ++i) {
    const auto& s = k.program[i];
    const auto& p = an.pcs[i];
    const double l = detail::pc_latency(s, p, desc[i], a, g, r.mem[i], dram_latency, r.prof);
    if (mem) (*mem)[i].latency = l;
    latency[i] = s.space == MemSpace::none ? desc[i].latency : l;
    if (global_like(s.space) && s.mem_op == MemOp::load) { lat_w += p.requests * l; lat_n += p.requests; }
  }
  return lat_n > 0 ? lat_w / lat_n : 0;
}

// Whole-kernel bounds from the memory totals: DRAM and L2 bandwidth, and the L2's atomic units.
// `rounds`: of resident CTAs on the busiest SM (at least 1).
inline void add_memory_bounds(Bounds& b, const MemoryStats& ms, const AtomicProfile& at, const GpuSpec& g, double dram_gbs, double rounds = 1) {
  b.dram = std::max(bound::bandwidth(ms.dram_read_bytes + ms.dram_write_bytes, dram_gbs, g.sm_clock_mhz),
                    bound::dram_random_accesses(ms.dram_gathered_sectors, g.arch_table().mem("dram_random_sectors_per_ns"), g.sm_clock_mhz));
  const double fills = ms.dram_read_bytes / assume::sector_bytes;
  b.l2_writes = bound::l2_writes(ms.global_store_sectors, ms.global_store_lines, fills, g.l2_store_line_rate_fraction, g.l2_write_rate_fraction,
                                 g.l2_bandwidth_gbs, g.sm_clock_mhz);
  b.l2 = bound::l2_combined(bound::l2_reads(ms.l2_bytes, ms.global_store_sectors, g.l2_bandwidth_gbs, g.sm_clock_mhz), b.l2_writes,
                            g.l2_write_rate_fraction);
  if (g.atomic_rate && at.present()) {
    const Curve* lines = g.atomic_rate_lines ? &*g.atomic_rate_lines : nullptr;
    const Curve* f32 = g.atomic_rate_f32 ? &*g.atomic_rate_f32 : nullptr;
    const double miss_per_cycle = g.atomic_l2_miss_updates_per_ns * 1000.0 / g.sm_clock_mhz;
    b.atomics = std::max(bound::atomics(at.ops_int, at.ops_float, at.effective_words, at.effective_lines, at.hot_updates, *g.atomic_rate, f32, lines,
                                        ms.atomic_l2_miss_share, miss_per_cycle),
                         bound::atomics_busiest_slice(at.busiest_slice_ops, at.float_share, *g.atomic_rate, f32, lines, ms.atomic_l2_miss_share,
                                                      at.profiled_ops, miss_per_cycle));
  }
  b.memory_phases = bound::memory_phases(b.dram, b.l2, ms.dram_phase_share, ms.l2_phase_share);
  // Atomics that come after the loads in the warps' streams wait for them (bound::memory_phases).
  // Where CTAs run in several rounds, one round's atomics run under the next one's loads: only a
  // round's share of what the phases add stays serial.
  if (b.atomics > 0) {
    const double serial = bound::memory_phases(b.dram, b.l2, ms.dram_phase_share, ms.l2_phase_share, b.atomics, ms.atomic_phase_share);
    const double longest = std::max(b.memory_phases, b.atomics);
    if (serial > longest) {
      const double atomics = longest + (serial - longest) / std::max(1.0, rounds);
      b.atomics_behind_loads = atomics - b.atomics;
      b.atomics = atomics;
    }
  }
}

}  // namespace gpuperf
