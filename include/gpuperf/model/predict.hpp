// The performance model. predict(analysis, gpu) -> KernelReport.
// Two modes share one report: `simulation` replays the traced warps of one SM's resident
// CTAs on its sub-partitions (scoreboard, unit intervals, MIO queue, barriers, compiler
// stall counts where a listing is joined); `bounds` (count-only inputs, or on request)
// derives the same per-round time from counts with small pure bound functions. Both then
// place rounds of CTAs on SMs (waves and the tail) and bound the kernel by L2 and DRAM
// bandwidth. Nothing here reads a Measurement.
#pragma once

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <memory>
#include <mutex>
#include <numeric>
#include <string>
#include <vector>

#include "gpuperf/arch/gpu_spec.hpp"
#include "gpuperf/arch/instr_desc.hpp"
#include "gpuperf/model/analysis.hpp"
#include "gpuperf/model/memory.hpp"
#include "gpuperf/model/occupancy.hpp"
#include "gpuperf/report/report.hpp"

namespace gpuperf {

enum class ModelMode { automatic, simulation, bounds };

struct PredictOptions {
  ModelMode mode = ModelMode::automatic;
  bool per_pc = true;
  int shared_carveout_kib = -1;  // -1: the driver's choice
  // The kernel's data are already in L2 when it starts, as when a kernel is timed in a loop
  // (CUDA events); off for profiler-style cold runs (ncu flushes caches before each launch).
  bool warm_l2 = false;
};

// ---------------------------------------------------------------------------------------
// Small pure bound functions (cycles).
namespace bound {

// One sub-partition issues one warp instruction per cycle.
inline double issue(double warps_per_subpartition, double instrs_per_warp) { return warps_per_subpartition * instrs_per_warp; }
// A unit of a class accepts one warp instruction every `interval` cycles.
inline double unit(double warps_per_subpartition, double busy_cycles_per_warp) { return warps_per_subpartition * busy_cycles_per_warp; }
// The SM's L1/shared pipeline serves `rate` wavefronts per cycle.
inline double mio(double wavefronts_per_sm, double rate) { return rate > 0 ? wavefronts_per_sm / rate : 0; }
// Global atomics through the L2's atomic units, in cycles: all ops at the rate measured for a
// spread over as many words, but never faster than the hottest word's serial updates.
inline double atomics(double ops_int, double ops_float, double effective_words, double hot_updates, const Curve& rate_int,
                      const Curve* rate_float) {
  const Curve& rf = rate_float ? *rate_float : rate_int;
  double k = std::max(1.0, effective_words);
  double spread = ops_int / rate_int.at(k) + ops_float / rf.at(k);
  double hot_rate = ops_float > ops_int ? rf.at(1) : rate_int.at(1);
  return std::max(spread, hot_updates / hot_rate);
}
// Cycles a DRAM access takes beyond the idle latency when `warps` warps of the SM each keep
// one request in flight: the measured curve's rise over its lightest load (0 below it).
inline double loaded_latency_excess(const Curve& c, double warps) { return std::max(0.0, c.at(warps) - c.y.front()); }
// Bytes over a bandwidth in GB/s, in cycles of a clock in MHz.
inline double bandwidth(double bytes, double gbs, double clock_mhz) { return gbs > 0 ? bytes / (gbs * 1e3) * clock_mhz : 0; }
// Rounds of resident CTAs on the busiest SM: full rounds and the CTAs of the last one.
inline void rounds(double grid, int sms, int per_sm, double& ctas_on_busiest, double& full, double& tail) {
  ctas_on_busiest = std::ceil(grid / std::max(1, sms));
  full = std::floor(ctas_on_busiest / std::max(1, per_sm));
  tail = ctas_on_busiest - full * per_sm;
}

}  // namespace bound

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

// Everything predict() derives for one GPU before placing rounds.
struct RoundModel {
  const KernelAnalysis* an = nullptr;
  const std::vector<InstrDesc>* desc = nullptr;
  std::vector<PcMemory> mem;
  std::vector<double> latency;  // per static instruction: result latency on this GPU
};

// ---------------------------------------------------------------------------------------
// Bounds mode: per-warp averages from counts.
struct RoundResult {
  double cycles = 0;
  Bounds bounds;
  std::vector<StallBreakdown> pc_stalls;  // per static instruction, summed over the round's warps
  double warp_instructions = 0;
};

namespace detail {

// Cycles instruction `i` (program order index) waits after its warp's previous issue:
// register dependencies against the nearest earlier writer (wrapping around loops), or the
// compiler's stall counts and barrier waits when a listing is joined. Two passes so loop
// bodies see their own stalls.
inline void static_stalls(const KernelAnalysis& an, const std::vector<InstrDesc>& desc, const std::vector<double>& lat,
                          std::vector<double>& stall, std::vector<bool>& on_memory) {
  const Kernel& k = *an.kernel;
  const std::size_t n = an.order.size();
  stall.assign(n, 0);
  on_memory.assign(n, false);
  const bool ctrl = k.has_control_bits();
  // Loop of each position: the innermost backward branch covering it.
  std::vector<int> loop_end(n, -1), loop_begin(n, -1);
  for (int e = 0; e < static_cast<int>(n); ++e)
    if (an.loop_head_of[e] >= 0)
      for (int j = an.loop_head_of[e]; j <= e; ++j)
        if (loop_end[j] < 0 || e - an.loop_head_of[e] < loop_end[j] - loop_begin[j]) { loop_end[j] = e; loop_begin[j] = an.loop_head_of[e]; }
  auto gap = [&](int j) {
    const auto& s = k.program[an.order[j]];
    if (ctrl && s.control.valid) return std::max(1.0, double(s.control.stall)) + stall[j];
    return 1.0 + stall[j];
  };
  for (int pass = 0; pass < 2; ++pass) {
    for (int i = 0; i < static_cast<int>(n); ++i) {
      const auto& s = k.program[an.order[i]];
      double wait = 0;
      bool mem = false;
      if (ctrl && s.control.valid) {
        // Fixed latencies are already in the previous instruction's stall count (gap());
        // variable-latency producers signal through barriers.
        if (s.control.wait_mask) {
          double dist = 0;
          int j = i - 1, steps = 0;
          bool wrapped = false;
          while (steps++ < 256) {
            if (j < 0 || (loop_begin[i] >= 0 && j < loop_begin[i] && !wrapped)) {
              if (loop_end[i] >= 0 && !wrapped) { j = loop_end[i]; wrapped = true; continue; }
              break;
            }
            const auto& p = k.program[an.order[j]];
            dist += gap(j);
            bool sets = (p.control.write_barrier < 6 && (s.control.wait_mask >> p.control.write_barrier) & 1) ||
                        (p.control.read_barrier < 6 && (s.control.wait_mask >> p.control.read_barrier) & 1);
            if (sets) {
              double l = p.control.write_barrier < 6 && (s.control.wait_mask >> p.control.write_barrier) & 1 ? lat[an.order[j]] : 8.0;
              if (l - dist > wait) { wait = l - dist; mem = desc[an.order[j]].space != MemSpace::none; }
            }
            --j;
          }
        }
      } else {
        for (auto r : s.src) {
          double dist = 0;
          int j = i - 1, steps = 0;
          bool wrapped = false;
          while (steps++ < 64) {
            if (j < 0 || (loop_begin[i] >= 0 && j < loop_begin[i] && !wrapped)) {
              if (loop_end[i] >= 0 && !wrapped) { j = loop_end[i]; wrapped = true; continue; }
              break;
            }
            const auto& p = k.program[an.order[j]];
            if (std::find(p.dst.begin(), p.dst.end(), r) != p.dst.end()) {
              double l = lat[an.order[j]] - dist - 1;
              if (l > wait) { wait = l; mem = desc[an.order[j]].space != MemSpace::none; }
              break;
            }
            dist += gap(j);
            --j;
          }
        }
      }
      stall[i] = std::max(0.0, wait);
      on_memory[i] = mem;
    }
  }
  // With a listing, the previous instruction's stall count is this one's issue gap.
  if (ctrl)
    for (int i = static_cast<int>(n) - 1; i > 0; --i) {
      const auto& prev = k.program[an.order[i - 1]];
      if (prev.control.valid) stall[i] += std::max(0.0, double(prev.control.stall) - 1);
    }
}

}  // namespace detail

inline RoundResult bounds_round(const RoundModel& rm, const GpuSpec& g, const Occupancy& o, double ctas) {
  const KernelAnalysis& an = *rm.an;
  const Kernel& k = *an.kernel;
  const auto& desc = *rm.desc;
  const ArchTable& a = g.arch_table();
  RoundResult r;
  const double S = std::max(1, a.sub_partitions);
  const double warps_round = ctas * o.warps_per_block;
  const double per_sp = std::max(1.0, std::ceil(warps_round / S));
  const double tw = std::max(1.0, an.total_warps);
  std::vector<double> stall;
  std::vector<bool> on_mem;
  detail::static_stalls(an, desc, rm.latency, stall, on_mem);
  double instrs_w = 0, chain_w = 0, shared_wf = 0, l1_wf = 0;
  std::map<std::string, double> unit_busy;
  std::map<std::string, bool> unit_sm_scope;
  const bool ctrl = k.has_control_bits();
  for (std::size_t oi = 0; oi < an.order.size(); ++oi) {
    auto i = an.order[oi];
    const auto& d = desc[i];
    double c = an.pcs[i].warp_exec / tw;  // executions per warp
    if (c <= 0) continue;
    instrs_w += c;
    chain_w += c * (1 + stall[oi]);  // one issue cycle plus the wait before it
    unit_busy[d.op_class] += c * d.issue_interval;
    unit_sm_scope[d.op_class] = d.sm_scope;
    const auto& s = k.program[i];
    if (s.space == MemSpace::shared) shared_wf += an.pcs[i].wavefronts / tw;
    else if (s.space == MemSpace::global || s.space == MemSpace::local || s.space == MemSpace::generic) l1_wf += an.pcs[i].wavefronts / tw;
  }
  (void)ctrl;
  r.bounds.issue = bound::issue(per_sp, instrs_w);
  for (auto& [cls, busy] : unit_busy) {
    // An SM-wide unit serves every warp of the SM, a sub-partition's unit only its own.
    double b = unit_sm_scope[cls] ? bound::unit(warps_round, busy) : bound::unit(per_sp, busy);
    if (b > r.bounds.functional_unit) { r.bounds.functional_unit = b; r.bounds.busiest_unit = cls; }
  }
  r.bounds.latency = chain_w;
  double shared_rate = a.memory.count("shared_wavefronts_per_cycle") ? a.mem("shared_wavefronts_per_cycle") : 1;
  double l1_rate = a.memory.count("l1_wavefronts_per_cycle") ? a.mem("l1_wavefronts_per_cycle") : 1;
  r.bounds.shared_memory = bound::mio(warps_round * shared_wf, shared_rate);
  r.bounds.l1 = bound::mio(warps_round * l1_wf, l1_rate);
  r.cycles = std::max({r.bounds.issue, r.bounds.functional_unit, r.bounds.latency, r.bounds.shared_memory + r.bounds.l1});
  r.warp_instructions = instrs_w * warps_round;
  // Stall attribution: the dependency chain's waits, then whatever the binding throughput
  // bound adds beyond the chain, spread over instructions by their share of that resource.
  r.pc_stalls.assign(k.program.size(), StallBreakdown{});
  double extra = std::max(0.0, r.cycles - chain_w);
  double share_total = 0;
  std::string which = r.cycles == r.bounds.functional_unit && r.bounds.functional_unit > r.bounds.issue ? "pipe"
                      : r.cycles == r.bounds.shared_memory + r.bounds.l1 && r.cycles > r.bounds.issue ? "mio" : "not_selected";
  auto share = [&](std::uint32_t i) {
    const auto& d = desc[i];
    double c = an.pcs[i].warp_exec / tw;
    if (which == "pipe") return d.op_class == r.bounds.busiest_unit ? c * d.issue_interval : 0.0;
    if (which == "mio") return k.program[i].space == MemSpace::shared || k.program[i].space == MemSpace::global ? an.pcs[i].wavefronts / tw : 0.0;
    return c;
  };
  for (auto i : an.order) share_total += share(i);
  for (std::size_t oi = 0; oi < an.order.size(); ++oi) {
    auto i = an.order[oi];
    double c = an.pcs[i].warp_exec / tw;
    if (c <= 0) continue;
    auto& st = r.pc_stalls[i];
    double dep = c * stall[oi] * warps_round;
    if (on_mem[oi]) st.memory += dep; else if (ctrl) st.control += dep; else st.dependency += dep;
    if (share_total > 0) {
      double e = extra * warps_round * share(i) / share_total;
      if (which == "pipe") st.pipe += e; else if (which == "mio") st.mio += e; else st.not_selected += e;
    }
  }
  return r;
}

// ---------------------------------------------------------------------------------------
// Simulation mode: one SM, `ctas` resident CTAs replayed from the trace.
namespace detail {

struct SimWarp {
  std::uint64_t pos = 0, end = 0;
  double ready = 0;            // earliest next issue (previous issue + spacing)
  double last_completion = 0;
  int smsp = 0, cta = 0;
  bool done = false, at_barrier = false;
  double barrier_arrival = 0;
  std::vector<float> reg_ready;
  std::vector<std::uint8_t> reg_mem;
  // Cached readiness of the next instruction: registers only change when this warp issues.
  double dep = 0;
  bool dep_mem = false;
  bool dep_valid = false;
};

inline int reg_slot(std::uint16_t r) {
  unsigned kind = r >> 14, idx = r & 0x3fff;
  if (idx > 255) idx = 255;
  return static_cast<int>(kind * 256 + idx);
}

}  // namespace detail

inline RoundResult simulate_round(const RoundModel& rm, const GpuSpec& g, const Occupancy& o, int ctas) {
  const KernelAnalysis& an = *rm.an;
  const Kernel& k = *an.kernel;
  const auto& desc = *rm.desc;
  const ArchTable& a = g.arch_table();
  RoundResult r;
  r.pc_stalls.assign(k.program.size(), StallBreakdown{});
  const int S = std::max(1, a.sub_partitions);
  const bool ctrl = k.has_control_bits();
  std::vector<detail::SimWarp> warps;
  std::vector<int> cta_live, cta_arrived;
  int slot = 0;
  for (int c = 0; c < ctas; ++c) {
    const auto& cta = an.ctas[static_cast<std::size_t>(c) % an.ctas.size()];
    cta_live.push_back(0);
    cta_arrived.push_back(0);
    // Warps the tracer saw; a CTA with fewer traced warps than its launch still issues
    // only those (sampled traces record whole CTAs).
    for (auto w : cta) {
      detail::SimWarp sw;
      sw.pos = k.warps[w].begin;
      sw.end = k.warps[w].end;
      sw.smsp = slot++ % S;
      sw.cta = c;
      sw.reg_ready.assign(1024, 0.f);
      sw.reg_mem.assign(1024, 0);
      warps.push_back(std::move(sw));
      cta_live.back()++;
    }
  }
  std::vector<double> smsp_free(static_cast<std::size_t>(S), 0);
  std::map<std::string, int> class_id;
  for (auto& d : desc) class_id.emplace(d.op_class, static_cast<int>(class_id.size()));
  std::vector<int> cls_of(desc.size());
  for (std::size_t i = 0; i < desc.size(); ++i) cls_of[i] = class_id[desc[i].op_class];
  std::vector<std::vector<double>> unit_free(static_cast<std::size_t>(S), std::vector<double>(class_id.size(), 0));
  std::vector<double> sm_unit_free(class_id.size(), 0);  // units shared by the whole SM
  double mio_free = 0;
  const double mio_rate = a.memory.count("l1_wavefronts_per_cycle") ? a.mem("l1_wavefronts_per_cycle") : 1;
  const double bar_latency = a.classes.count("barrier") && a.classes.at("barrier").present && !a.classes.at("barrier").unsupported
                                 ? a.classes.at("barrier").latency.value : 20;
  double end_time = 0;
  std::size_t live = warps.size();
  double instrs = 0;
  // Per SMSP warp lists.
  std::vector<std::vector<int>> by_sp(static_cast<std::size_t>(S));
  for (int w = 0; w < static_cast<int>(warps.size()); ++w) by_sp[static_cast<std::size_t>(warps[w].smsp)].push_back(w);
  auto finish_warp = [&](detail::SimWarp& w, double t) {
    if (w.done) return;
    w.done = true;
    --live;
    end_time = std::max({end_time, t, w.last_completion});
    cta_live[static_cast<std::size_t>(w.cta)]--;
  };
  auto release_barrier = [&](int c, double t) {
    double rel = t + bar_latency;
    for (auto& w : warps)
      if (w.cta == c && w.at_barrier) {
        w.at_barrier = false;
        std::uint32_t si = k.dyn[w.pos - 1].static_index;
        r.pc_stalls[si].barrier += rel - w.barrier_arrival;
        w.ready = std::max(w.ready, rel);
        w.dep_valid = false;
      }
    cta_arrived[static_cast<std::size_t>(c)] = 0;
  };
  std::size_t guard = 0;
  while (live > 0) {
    // Pick the earliest issue among all sub-partitions' ready warps.
    double best_t = std::numeric_limits<double>::infinity();
    int best_w = -1;
    double best_dep = 0, best_unit = 0;
    bool best_dep_mem = false;
    for (int sp = 0; sp < S; ++sp) {
      for (int wi : by_sp[static_cast<std::size_t>(sp)]) {
        auto& w = warps[static_cast<std::size_t>(wi)];
        if (w.done || w.at_barrier) continue;
        if (w.pos >= w.end) { finish_warp(w, w.ready); continue; }
        const auto& d = k.dyn[w.pos];
        if (!w.dep_valid) {
          const auto& s = k.program[d.static_index];
          w.dep = w.ready;
          w.dep_mem = false;
          for (auto reg : s.src) {
            auto sl = static_cast<std::size_t>(detail::reg_slot(reg));
            if (w.reg_ready[sl] > w.dep) { w.dep = w.reg_ready[sl]; w.dep_mem = w.reg_mem[sl]; }
          }
          w.dep_valid = true;
        }
        double dep = w.dep;
        bool dep_mem = w.dep_mem;
        if (dep >= best_t) continue;  // cannot beat the best candidate
        const auto ci = static_cast<std::size_t>(cls_of[d.static_index]);
        double unit = std::max(dep, desc[d.static_index].sm_scope ? sm_unit_free[ci] : unit_free[static_cast<std::size_t>(sp)][ci]);
        double t = std::max(unit, smsp_free[static_cast<std::size_t>(sp)]);
        if (t < best_t) { best_t = t; best_w = wi; best_dep = dep; best_unit = unit; best_dep_mem = dep_mem; }
      }
    }
    if (best_w < 0) {
      // Everyone left is at a barrier whose CTA cannot complete: release (malformed trace).
      bool any = false;
      for (std::size_t c = 0; c < cta_arrived.size(); ++c)
        if (cta_arrived[c] > 0) { release_barrier(static_cast<int>(c), end_time); any = true; }
      if (!any) break;
      continue;
    }
    if (++guard > 2000000000ull) break;
    auto& w = warps[static_cast<std::size_t>(best_w)];
    const auto& d = k.dyn[w.pos];
    const std::uint32_t si = d.static_index;
    const auto& s = k.program[si];
    const auto& ds = desc[si];
    const double t = best_t;
    auto& st = r.pc_stalls[si];
    double dep_wait = best_dep - w.ready;
    if (dep_wait > 0) { if (best_dep_mem) st.memory += dep_wait; else st.dependency += dep_wait; }
    st.pipe += best_unit - best_dep;
    st.not_selected += t - best_unit;
    const auto sp = static_cast<std::size_t>(w.smsp);
    smsp_free[sp] = t + 1;
    (ds.sm_scope ? sm_unit_free[static_cast<std::size_t>(cls_of[si])] : unit_free[sp][static_cast<std::size_t>(cls_of[si])]) = t + ds.issue_interval;
    double completion = t + rm.latency[si];
    bool is_mem = s.space != MemSpace::none && s.space != MemSpace::constant;
    if (is_mem && d.active_mask) {
      double wf = an.dyn_wavefronts.empty() ? 1 : std::max<double>(1, an.dyn_wavefronts[w.pos]);
      double start = std::max(t, mio_free);
      mio_free = start + wf / mio_rate;
      st.mio += start - t;
      completion = mio_free + rm.latency[si];
    }
    for (auto reg : s.dst) {
      int sl = detail::reg_slot(reg);
      w.reg_ready[static_cast<std::size_t>(sl)] = static_cast<float>(completion);
      w.reg_mem[static_cast<std::size_t>(sl)] = is_mem;
    }
    w.last_completion = std::max(w.last_completion, completion);
    double spacing = 1;
    if (ctrl && s.control.valid) {
      spacing = std::max(1.0, double(s.control.stall));
      st.control += spacing - 1;
    }
    w.ready = t + spacing;
    w.dep_valid = false;
    ++w.pos;
    ++instrs;
    end_time = std::max(end_time, t + 1);
    if (ds.is_barrier && d.active_mask) {
      w.at_barrier = true;
      w.barrier_arrival = t;
      int c = w.cta;
      if (++cta_arrived[static_cast<std::size_t>(c)] >= cta_live[static_cast<std::size_t>(c)]) release_barrier(c, t);
    }
    if ((ds.is_exit && d.active_mask == 0xffffffffu) || w.pos >= w.end) {
      if (w.at_barrier) { w.at_barrier = false; cta_arrived[static_cast<std::size_t>(w.cta)]--; }
      finish_warp(w, t + 1);
      int c = w.cta;
      if (cta_arrived[static_cast<std::size_t>(c)] > 0 && cta_arrived[static_cast<std::size_t>(c)] >= cta_live[static_cast<std::size_t>(c)]) release_barrier(c, t);
    }
  }
  r.cycles = end_time;
  r.warp_instructions = instrs;
  (void)o;
  return r;
}

// ---------------------------------------------------------------------------------------
// Predictor: holds a kernel's analysis; predicts for any GPU spec. const methods are safe to
// call from many threads; descriptors are built once per (arch, latency scale).
class Predictor {
 public:
  explicit Predictor(std::shared_ptr<const Kernel> k) : an_(std::make_shared<KernelAnalysis>(analyze(std::move(k)))) {}
  explicit Predictor(std::shared_ptr<const KernelAnalysis> an) : an_(std::move(an)) {}

  const KernelAnalysis& analysis() const { return *an_; }

  std::shared_ptr<const std::vector<InstrDesc>> descriptors(const GpuSpec& g) const {
    std::string key = g.arch + "|" + std::to_string(g.alu_latency_scale) + "|" + std::to_string(g.tables->id());
    std::lock_guard<std::mutex> lock(mu_);
    auto it = desc_cache_.find(key);
    if (it != desc_cache_.end()) return it->second;
    const ArchTable& a = g.arch_table();
    const IsaTable& isa = g.tables->isa(a.isa);
    auto v = std::make_shared<std::vector<InstrDesc>>();
    std::map<std::string, InstrDesc> by_opcode;
    for (auto& s : an_->kernel->program) {
      auto f = by_opcode.find(s.opcode);
      if (f == by_opcode.end()) f = by_opcode.emplace(s.opcode, make_descriptor(s.opcode, a, isa, g.alu_latency_scale)).first;
      v->push_back(f->second);
    }
    desc_cache_[key] = v;
    return v;
  }

  KernelReport predict(const GpuSpec& g, const PredictOptions& opt = {}) const;

 private:
  std::shared_ptr<const KernelAnalysis> an_;
  mutable std::mutex mu_;
  mutable std::map<std::string, std::shared_ptr<const std::vector<InstrDesc>>> desc_cache_;
};

namespace detail {

inline std::string fmt_pct(double x) {
  char b[32];
  std::snprintf(b, sizeof b, "%.0f%%", 100 * x);
  return b;
}

}  // namespace detail

inline KernelReport Predictor::predict(const GpuSpec& g, const PredictOptions& opt) const {
  const KernelAnalysis& an = *an_;
  const Kernel& k = *an.kernel;
  const ArchTable& a = g.arch_table();
  auto descp = descriptors(g);
  const auto& desc = *descp;
  KernelReport rep;
  rep.name = k.launch.name;
  rep.launch_id = k.launch.id;
  rep.input_format = to_string(k.format);
  rep.gpu = g.name;
  rep.arch = g.arch;
  rep.sm_clock_mhz = g.sm_clock_mhz;
  rep.warnings = k.warnings;
  if (k.launch.sm_version && static_cast<int>(k.launch.sm_version / 10) != a.sm_version / 10)
    rep.warnings.push_back("trace was compiled for sm_" + std::to_string(k.launch.sm_version) + " and is predicted on " + g.arch +
                           " (" + g.name + "): SASS of another architecture; costs are looked up by opcode class");
  for (std::size_t i = 0; i < desc.size(); ++i) {
    if (desc[i].unknown) rep.unknown_opcodes[k.program[i].opcode]++;
    if (desc[i].unsupported && an.pcs[i].warp_exec > 0)
      rep.warnings.push_back("opcode " + k.program[i].opcode + " uses class '" + desc[i].op_class + "', which " + g.arch + " does not support; a generic cost was used");
  }
  if (!rep.unknown_opcodes.empty()) {
    std::string list;
    for (auto& [op, n] : rep.unknown_opcodes) list += (list.empty() ? "" : ", ") + op;
    rep.warnings.push_back(std::to_string(rep.unknown_opcodes.size()) + " unknown opcode(s) classified by prefix: " + list);
  }
  // Occupancy.
  rep.occupancy = compute_occupancy(k.launch, a, opt.shared_carveout_kib);
  if (rep.occupancy.registers_assumed) rep.warnings.push_back("register count unknown; 32 registers per thread assumed for occupancy");
  if (rep.occupancy.blocks_per_sm <= 0)
    throw ModelError("kernel " + k.launch.name + " cannot launch on " + g.name + ": " + std::to_string(k.launch.block.count()) + " threads, " +
                     std::to_string(rep.occupancy.registers_per_thread) + " registers and " +
                     std::to_string(k.launch.static_shared_bytes + k.launch.dynamic_shared_bytes) + " B shared memory per block exceed the SM's limits");
  // Memory per PC.
  RoundModel rm;
  rm.an = &an;
  rm.desc = &desc;
  rm.mem.resize(k.program.size());
  rm.latency.resize(k.program.size());
  bool assumed = false;
  auto& ms = rep.memory;
  double warm_fraction = 0;
  if (opt.warm_l2) {
    // Distinct bytes the kernel touches: first-touch sectors of the traced stream (scaled to
    // the grid), or every requested sector when the input has no addresses (an upper bound).
    double footprint = 0;
    for (std::size_t i = 0; i < k.program.size(); ++i) {
      const auto& s = k.program[i];
      if (!(s.space == MemSpace::global || s.space == MemSpace::local || s.space == MemSpace::generic || s.space == MemSpace::texture)) continue;
      footprint += 32.0 * (an.pcs[i].has_profile ? static_cast<double>(an.pcs[i].l2_cold) * an.scale : an.pcs[i].sectors);
    }
    // Data resident from the previous launch hit only if the whole footprint fits: a footprint
    // larger than L2, swept in the same order every launch, evicts itself (LRU on a cyclic
    // stream keeps nothing useful).
    warm_fraction = footprint <= g.l2_bytes ? 1.0 : 0.0;
  }
  // A loaded SM sees a longer DRAM latency: with each resident warp keeping about one request in
  // flight (the measured curve's setup), add what the curve adds over its lightest load.
  double dram_latency = g.dram_latency;
  if (const Curve* c = a.curve("dram_line_latency_vs_warps_per_sm"); c && !c->x.empty())
    dram_latency += bound::loaded_latency_excess(*c, rep.occupancy.active_warps_per_sm);
  double l1_hits_w = 0, l2_hits_w = 0, l1_w = 0, l2_w = 0, lat_w = 0, lat_n = 0;
  for (std::size_t i = 0; i < k.program.size(); ++i) {
    const auto& s = k.program[i];
    const auto& p = an.pcs[i];
    rm.mem[i] = detail::pc_memory(s, p, desc[i], a, g, rep.occupancy, assumed, warm_fraction, dram_latency);
    rm.latency[i] = s.space == MemSpace::none ? desc[i].latency : rm.mem[i].latency;
    bool global_like = s.space == MemSpace::global || s.space == MemSpace::local || s.space == MemSpace::generic || s.space == MemSpace::texture;
    if (global_like) {
      if (s.mem_op == MemOp::load) {
        ms.global_load_requests += p.requests;
        ms.global_load_sectors += p.sectors;
        l1_w += p.sectors; l1_hits_w += p.sectors * rm.mem[i].h1;
        l2_w += p.sectors * (1 - rm.mem[i].h1); l2_hits_w += p.sectors * (1 - rm.mem[i].h1) * rm.mem[i].h2;
        lat_w += p.requests * rm.mem[i].latency; lat_n += p.requests;
        ms.dram_read_bytes += rm.mem[i].dram_sectors * 32;
      } else if (s.mem_op == MemOp::store) {
        ms.global_store_requests += p.requests;
        ms.global_store_sectors += p.sectors;
        ms.dram_write_bytes += rm.mem[i].dram_sectors * 32;
      } else {
        ms.atomic_requests += p.requests;
      }
      ms.l2_bytes += rm.mem[i].l2_sectors * 32;
    } else if (s.space == MemSpace::shared) {
      ms.shared_requests += p.requests;
      ms.shared_wavefronts += p.wavefronts;
    }
  }
  ms.l1_hit_rate = l1_w > 0 ? l1_hits_w / l1_w : 0;
  ms.l2_hit_rate = l2_w > 0 ? l2_hits_w / l2_w : 0;
  ms.avg_load_latency = lat_n > 0 ? lat_w / lat_n : 0;
  ms.hit_rates_assumed = assumed;
  ms.hit_rate_basis = assumed ? "assumed: the input has no addresses (every requested sector is fetched once from DRAM, except sectors shared by loads with the same base register)"
                              : "reuse distances of the traced addresses (L1 per CTA, L2 over the traced grid)";
  if (assumed && (ms.global_load_requests + ms.global_store_requests) > 0)
    rep.warnings.push_back("cache hit rates assumed (no addresses in the input); the time range shows all-hit and all-miss extremes");
  // Mode.
  bool can_sim = an.dynamic && !an.ctas.empty();
  bool sim = opt.mode == ModelMode::simulation || (opt.mode == ModelMode::automatic && can_sim);
  if (opt.mode == ModelMode::simulation && !can_sim) {
    rep.warnings.push_back("simulation needs per-warp instruction streams; this input has counts only, so bounds mode was used");
    sim = false;
  }
  rep.mode = sim ? "simulation" : "bounds";
  // Rounds of CTAs on the busiest SM.
  double grid = static_cast<double>(k.launch.grid.count());
  rep.grid_ctas = grid;
  double per_sm = 0, full = 0, tail = 0;
  bound::rounds(grid, g.sms, rep.occupancy.blocks_per_sm, per_sm, full, tail);
  rep.ctas_per_sm = per_sm;
  rep.tail_ctas = tail;
  rep.waves = grid / (double(g.sms) * rep.occupancy.blocks_per_sm);
  int resident = static_cast<int>(std::min<double>(rep.occupancy.blocks_per_sm, per_sm));
  auto run_round = [&](int ctas) { return sim ? simulate_round(rm, g, rep.occupancy, ctas) : bounds_round(rm, g, rep.occupancy, ctas); };
  RoundResult rf = run_round(full > 0 ? rep.occupancy.blocks_per_sm : resident);
  RoundResult rt;
  if (full > 0 && tail > 0) rt = run_round(static_cast<int>(tail));
  if (sim) {
    rep.simulated_ctas = (full > 0 ? rep.occupancy.blocks_per_sm : resident) + (full > 0 && tail > 0 ? tail : 0);
    if (an.ctas.size() < static_cast<std::size_t>(rep.occupancy.blocks_per_sm) && an.ctas.size() < per_sm)
      rep.warnings.push_back("trace holds " + std::to_string(an.ctas.size()) + " CTA(s); the simulated SM replays them to fill " +
                             std::to_string(rep.occupancy.blocks_per_sm) + " resident CTAs");
    // Simulation bounds for the report, from counts.
    RoundResult b = bounds_round(rm, g, rep.occupancy, full > 0 ? rep.occupancy.blocks_per_sm : resident);
    rf.bounds = b.bounds;
  }
  double sm_cycles = (full > 0 ? full * rf.cycles : rf.cycles) + (full > 0 && tail > 0 ? rt.cycles : 0);
  // Report the per-round bounds on the whole kernel's scale (rounds on the busiest SM).
  double rounds_equiv = rf.cycles > 0 ? sm_cycles / rf.cycles : 1;
  rep.bounds = rf.bounds;
  for (double* b : {&rep.bounds.issue, &rep.bounds.functional_unit, &rep.bounds.latency, &rep.bounds.shared_memory, &rep.bounds.l1}) *b *= rounds_equiv;
  // Whole-kernel bandwidth bounds.
  double dram_gbs = g.dram_bandwidth_gbs * g.dram_efficiency;
  double dram_bytes = ms.dram_read_bytes + ms.dram_write_bytes;
  rep.bounds.dram = bound::bandwidth(dram_bytes, dram_gbs, g.sm_clock_mhz);
  rep.bounds.l2 = bound::bandwidth(ms.l2_bytes, g.l2_bandwidth_gbs, g.sm_clock_mhz);
  if (const Curve* rate = a.curve("global_atomic_ops_per_cycle_vs_addresses"); rate && an.atomics.present())
    rep.bounds.atomics = bound::atomics(an.atomics.ops_int, an.atomics.ops_float, an.atomics.effective_words, an.atomics.hot_updates,
                                        *rate, a.curve("global_atomic_f32_ops_per_cycle_vs_addresses"));
  rep.cycles = std::max({sm_cycles, rep.bounds.dram, rep.bounds.l2, rep.bounds.atomics});
  rep.launch_overhead_us = g.launch_overhead_us;
  rep.time_us = g.cycles_to_us(rep.cycles) + g.launch_overhead_us;
  // Bottleneck.
  auto& B = rep.bounds;
  if (rep.cycles == B.dram && B.dram >= sm_cycles) { rep.bottleneck = "dram"; rep.bottleneck_detail = "DRAM bandwidth (" + std::to_string(int(dram_bytes / 1e6)) + " MB)"; }
  else if (rep.cycles == B.l2 && B.l2 >= sm_cycles) { rep.bottleneck = "l2"; rep.bottleneck_detail = "L2 bandwidth"; }
  else if (rep.cycles == B.atomics && B.atomics >= sm_cycles) {
    rep.bottleneck = "atomics";
    rep.bottleneck_detail = "L2 atomic serialization (" + std::to_string(static_cast<long long>(an.atomics.updates)) +
                            " updates over ~" + std::to_string(static_cast<long long>(an.atomics.effective_words)) + " words)";
  }
  else {
    std::vector<std::pair<double, std::string>> c = {{B.issue, "issue"}, {B.functional_unit, "functional_unit"}, {B.latency, "latency"},
                                                     {B.shared_memory, "shared_memory"}, {B.l1, "l1"}};
    auto top = *std::max_element(c.begin(), c.end());
    rep.bottleneck = top.second;
    if (top.second == "functional_unit") rep.bottleneck_detail = "busiest unit: " + B.busiest_unit;
    else if (top.second == "latency") {
      rep.bottleneck_detail = "dependency chains not hidden by " + std::to_string(rep.occupancy.active_warps_per_sm) + " resident warps";
      if (rep.occupancy.occupancy < 0.5 && per_sm >= rep.occupancy.blocks_per_sm) {
        rep.bottleneck = "occupancy";
        rep.bottleneck_detail = "latency-bound at " + detail::fmt_pct(rep.occupancy.occupancy) + " occupancy (limited by " + rep.occupancy.limiter + ")";
      }
    }
    if (full <= 1 && tail > 0 && rt.cycles > 0.3 * sm_cycles) { rep.bottleneck = "tail"; rep.bottleneck_detail = "last partial wave of " + std::to_string(int(tail)) + " CTA(s) per SM"; }
    if (per_sm < rep.occupancy.blocks_per_sm && grid < g.sms && rep.bottleneck == "latency")
      rep.bottleneck_detail = "grid of " + std::to_string(int(grid)) + " CTA(s) fills " + std::to_string(int(grid)) + " of " + std::to_string(g.sms) + " SMs";
  }
  if (g.cycles_to_us(rep.cycles) < g.launch_overhead_us) { rep.bottleneck_detail = rep.bottleneck + "; the launch overhead dominates"; rep.bottleneck = "launch"; }
  // Instructions, IPC.
  double warp_instr = 0, thread_instr = 0;
  for (auto& p : an.pcs) { warp_instr += p.warp_exec; thread_instr += p.thread_exec; }
  rep.warp_instructions = warp_instr;
  rep.thread_instructions = thread_instr;
  double active_sms = std::min<double>(g.sms, grid);
  rep.ipc = rep.cycles > 0 ? warp_instr / (rep.cycles * active_sms) : 0;
  // Roofline.
  auto& R = rep.roofline;
  for (std::size_t i = 0; i < desc.size(); ++i) {
    const auto& d = desc[i];
    double te = an.pcs[i].thread_exec;
    switch (d.precision) {
      case Precision::fp16: R.flops_fp16 += te * d.flops_per_lane; break;
      case Precision::fp32: R.flops_fp32 += te * d.flops_per_lane; break;
      case Precision::fp64: R.flops_fp64 += te * d.flops_per_lane; break;
      case Precision::tensor: R.flops_tensor += an.pcs[i].warp_exec * d.tensor_flops_per_warp; break;
      default: break;
    }
  }
  R.bytes_l1 = (ms.global_load_sectors + ms.global_store_sectors) * 32 + ms.shared_wavefronts * 128;
  R.bytes_l2 = ms.l2_bytes;
  R.bytes_dram = dram_bytes;
  double F = R.total_flops();
  R.ai_l1 = R.bytes_l1 > 0 ? F / R.bytes_l1 : 0;
  R.ai_l2 = R.bytes_l2 > 0 ? F / R.bytes_l2 : 0;
  R.ai_dram = R.bytes_dram > 0 ? F / R.bytes_dram : 0;
  const double S = std::max(1, a.sub_partitions);
  auto peak = [&](const char* cls, double flops_per_lane) {
    auto it = a.classes.find(cls);
    if (it == a.classes.end() || it->second.unsupported || !it->second.present) return 0.0;
    double units = it->second.sm_scope ? 1.0 : S;
    return g.sms * g.sm_clock_mhz * 1e-3 * units * 32.0 / it->second.issue_interval.value * flops_per_lane;
  };
  std::vector<std::pair<double, std::string>> prec = {{R.flops_fp32, "fp32"}, {R.flops_fp64, "fp64"}, {R.flops_fp16, "fp16"}, {R.flops_tensor, "tensor"}};
  auto dom = *std::max_element(prec.begin(), prec.end());
  R.precision = F > 0 ? dom.second : "none";
  if (R.precision == "fp32") R.peak_gflops = peak("fp32", 2);
  else if (R.precision == "fp64") R.peak_gflops = peak("fp64", 2);
  else if (R.precision == "fp16") R.peak_gflops = peak("fp16", 4);
  else if (R.precision == "tensor") {
    double rate = a.tensor.count("fma_per_cycle_per_subpartition") ? a.tensor.at("fma_per_cycle_per_subpartition").value : 0;
    if (rate <= 0) {
      auto it = a.classes.find("tensor_hmma");
      double m = 16, n = 8, kk = 16;
      if (a.sm_version < 80) kk = a.sm_version < 75 ? 4 : 8;
      if (it != a.classes.end() && it->second.present && !it->second.unsupported) rate = m * n * kk / (a.sm_version < 75 ? 4 : 1) / it->second.issue_interval.value;
    }
    R.peak_gflops = g.sms * g.sm_clock_mhz * 1e-3 * S * rate * 2;
  }
  R.dram_gbs = dram_gbs;
  R.l2_gbs = g.l2_bandwidth_gbs;
  R.achieved_gflops = rep.time_us > 0 ? F / (rep.time_us * 1e3) : 0;
  if (F > 0) {
    double mem_roof = R.ai_dram > 0 ? R.ai_dram * dram_gbs : std::numeric_limits<double>::infinity();
    R.attainable_gflops = std::min(R.peak_gflops, mem_roof);
    R.bound = mem_roof < R.peak_gflops ? "DRAM bandwidth" : "compute (" + R.precision + ")";
  } else {
    R.bound = "no floating-point work";
  }
  // Per-PC table and stall totals, scaled from the simulated/averaged round to the grid; a tail
  // round happens once on every SM.
  double round_ctas = full > 0 ? rep.occupancy.blocks_per_sm : resident;
  double grid_scale = round_ctas > 0 ? grid / round_ctas : 0;
  if (full > 0 && tail > 0) grid_scale = (grid * (full * rep.occupancy.blocks_per_sm) / std::max(1.0, per_sm)) / round_ctas;
  for (std::size_t i = 0; i < k.program.size(); ++i) {
    StallBreakdown scaled = rf.pc_stalls.empty() ? StallBreakdown{} : rf.pc_stalls[i].scaled(grid_scale);
    if (full > 0 && tail > 0 && !rt.pc_stalls.empty()) scaled += rt.pc_stalls[i].scaled(g.sms);
    rep.stalls += scaled;
    if (!opt.per_pc) continue;
    PerPcRow row;
    row.pc = k.program[i].pc;
    row.text = k.program[i].text.empty() ? k.program[i].opcode : k.program[i].text;
    row.op_class = desc[i].op_class;
    row.warp_executions = an.pcs[i].warp_exec;
    row.latency = rm.latency[i];
    row.issue_interval = desc[i].issue_interval;
    row.unknown_opcode = desc[i].unknown;
    row.stall_cycles_total = scaled.total();
    if (row.warp_executions > 0) row.stalls = scaled.scaled(1.0 / row.warp_executions);
    rep.per_pc.push_back(std::move(row));
  }
  std::sort(rep.per_pc.begin(), rep.per_pc.end(), [](const PerPcRow& x, const PerPcRow& y) { return x.pc < y.pc; });
  // Uncertainty: sampled or assumed inputs get a range.
  rep.time_low_us = rep.time_us;
  rep.time_high_us = rep.time_us;
  if (assumed && dram_bytes + ms.l2_bytes > 0) {
    // All-hit: no DRAM traffic; all-miss: every requested sector from DRAM.
    double all_miss_bytes = (ms.global_load_sectors + ms.global_store_sectors) * 32;
    double hi = std::max({sm_cycles, bound::bandwidth(all_miss_bytes, dram_gbs, g.sm_clock_mhz), rep.bounds.l2});
    double lo = std::max(sm_cycles * 0.8, bound::bandwidth(ms.dram_write_bytes, dram_gbs, g.sm_clock_mhz));
    rep.time_low_us = std::min(rep.time_us, g.cycles_to_us(lo) + g.launch_overhead_us);
    rep.time_high_us = std::max(rep.time_us, g.cycles_to_us(hi) + g.launch_overhead_us);
  }
  if (k.representative_cta || (an.dynamic && k.traced_ctas < grid)) {
    rep.time_low_us = std::min(rep.time_low_us, rep.time_us * 0.85);
    rep.time_high_us = std::max(rep.time_high_us, rep.time_us * 1.15);
  }
  return rep;
}

}  // namespace gpuperf
