// Bounds mode: the time of one round from per-warp averages of the counts, and the stall
// attribution that goes with it.
#pragma once

#include <algorithm>
#include <cmath>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "gpuperf/arch/gpu_spec.hpp"
#include "gpuperf/model/bounds.hpp"
#include "gpuperf/model/imbalance.hpp"
#include "gpuperf/model/memory.hpp"
#include "gpuperf/model/occupancy.hpp"
#include "gpuperf/model/round.hpp"
#include "gpuperf/model/stalls.hpp"
#include "gpuperf/model/warp_queueing.hpp"

namespace gpuperf {

namespace detail {

// Per-warp averages of one round's counts: what the bounds are computed from.
struct WarpAverages {
  double instrs = 0, chain = 0, shared_wf = 0, l1_wf = 0;  // per warp
  // The shared and L1 wavefronts of one pass through the range: each instruction's counted at
  // most as often as the range's least-executed instruction runs (its entries), so a loop in
  // it counts one iteration.
  double pass_shared_wf = 0, pass_l1_wf = 0;
  double busiest_chain = 0;  // the busiest warp of a CTA (busiest_warp_executions), where given
  // The MIO pipe's cycles of the CTA barriers' releases, a warp's share of its CTA's
  // (barrier_release_mio_cycles, as the simulation's CtaBarriers charges them).
  double barrier_mio = 0;
  std::map<std::string, double> unit_busy;                 // cycles per warp, by class
  std::map<std::string, bool> unit_sm_scope;
};

// The cycles a CTA barrier holds its warps beyond the issue gap the chain already counts after
// it (its stall count, with a listing; one issue cycle without): from the issue by the last of
// `warps_per_block` warps to the release, its latency after the barrier has counted the warps
// that arrived with it one at a time (calibrate/microbench.cu bar_chain), as the simulation
// releases it.
inline double barrier_release_cycles(const Kernel& k, const StaticInstr& s, const InstrDesc& d, const ArchTable& a, double warps_per_block) {
  const double release = d.latency + a.mem("barrier_arrival_cycles") * std::max(0.0, warps_per_block - 1);
  const double gap = k.has_control_bits() && s.control.valid ? std::max(1.0, double(s.control.stall)) : 1.0;
  return std::max(0.0, release - gap);
}

// The averages of the instructions at order indices [first, last). A CTA barrier holds the
// warp until its release (barrier_release_cycles), on the chain like a latency.
inline WarpAverages warp_averages(const KernelAnalysis& an, const std::vector<InstrDesc>& desc, const std::vector<double>& stall, double tw,
                                  const std::vector<PcMemory>& mem, std::size_t first, std::size_t last, const ArchTable& a, double warps_per_block,
                                  const std::vector<double>* busiest = nullptr) {
  const Kernel& k = *an.kernel;
  WarpAverages w;
  // Beside indexed constant loads every global load takes their unit a while too.
  const std::optional<std::size_t>& constant_load = an.indexed_constant_load;
  const double constant_unit_per_load = constant_load ? a.mem("const_unit_global_load_cycles") : 0.0;
  double entries = 0;  // executions per warp of the range's least-executed instruction
  for (std::size_t oi = first; oi < last; ++oi) {
    const double c = an.pcs[an.order[oi]].warp_exec / tw;
    if (c > 0) entries = entries > 0 ? std::min(entries, c) : c;
  }
  for (std::size_t oi = first; oi < last; ++oi) {
    auto i = an.order[oi];
    const auto& d = desc[i];
    double c = an.pcs[i].warp_exec / tw;  // executions per warp
    if (c <= 0) continue;
    w.instrs += c;
    w.chain += c * (1 + stall[oi]);  // one issue cycle plus the wait before it
    const double release = d.is_barrier ? an.pcs[i].pred_on_share * barrier_release_cycles(k, k.program[i], d, a, warps_per_block) : 0.0;
    w.chain += c * release;
    if (d.is_barrier) w.barrier_mio += c * an.pcs[i].pred_on_share * a.mem("barrier_release_mio_cycles") / std::max(1.0, warps_per_block);
    if (busiest) w.busiest_chain += (*busiest)[oi] * (1 + stall[oi] + release);
    // An indexed constant load holds its unit a pass per distinct word (PcStats::constant_passes).
    const double passes = k.program[i].space == MemSpace::constant ? an.pcs[i].constant_passes : 1.0;
    w.unit_busy[d.op_class] += c * d.issue_interval * passes;
    w.unit_sm_scope[d.op_class] = d.sm_scope;
    const auto& s = k.program[i];
    const double pass = std::min(c, entries) / c;  // of this instruction's executions, one pass's
    if (s.space == MemSpace::shared) {
      w.shared_wf += an.pcs[i].wavefronts / tw;
      w.pass_shared_wf += an.pcs[i].wavefronts / tw * pass;
    } else if (d.shared_pipe_wavefronts > 0) {  // a shuffle's passes of the same pipe
      w.shared_wf += c * d.shared_pipe_wavefronts;
      w.pass_shared_wf += c * d.shared_pipe_wavefronts * pass;
    } else if (l1_line_space(s.space)) {
      if (constant_unit_per_load > 0 && s.mem_op == MemOp::load) {
        const InstrDesc& cd = desc[*constant_load];
        w.unit_busy[cd.op_class] += an.pcs[i].requests / tw * constant_unit_per_load;
        w.unit_sm_scope[cd.op_class] = cd.sm_scope;
      }
      w.l1_wf += mem[i].l1_wavefronts / tw;
      w.pass_l1_wf += mem[i].l1_wavefronts / tw * pass;
    }
  }
  return w;
}

// The program split after each executed CTA barrier, in PC order: [first, last) order indices.
// A loop with a barrier in its body splits the body; code before the loop joins its first part.
inline std::vector<std::pair<std::size_t, std::size_t>> barrier_phases(const KernelAnalysis& an, const std::vector<InstrDesc>& desc) {
  std::vector<std::pair<std::size_t, std::size_t>> phases;
  std::size_t first = 0;
  for (std::size_t oi = 0; oi < an.order.size(); ++oi) {
    auto i = an.order[oi];
    if (desc[i].is_barrier && an.pcs[i].warp_exec > 0 && an.pcs[i].pred_on_share > 0) {
      phases.push_back({first, oi + 1});
      first = oi + 1;
    }
  }
  if (first < an.order.size() || phases.empty()) phases.push_back({first, an.order.size()});
  return phases;
}

// The SM's throughput bounds for `warps_per_sp` warps of a sub-partition (`warps_sm` on the SM)
// with averages `w`: issue, the busiest functional unit, and the L1/shared pipeline.
struct ThroughputBounds {
  double issue = 0, functional_unit = 0, shared_memory = 0, l1 = 0;
  std::string busiest_unit;
};
inline ThroughputBounds throughput_bounds(const WarpAverages& w, const ArchTable& a, double warps_per_sp, double warps_sm) {
  ThroughputBounds b;
  b.issue = bound::issue(warps_per_sp, w.instrs);
  for (auto& [cls, busy] : w.unit_busy) {
    // An SM-wide unit serves every warp of the SM, a sub-partition's unit only its own.
    auto it = w.unit_sm_scope.find(cls);
    double u = it != w.unit_sm_scope.end() && it->second ? bound::unit(warps_sm, busy) : bound::unit(warps_per_sp, busy);
    if (u > b.functional_unit) { b.functional_unit = u; b.busiest_unit = cls; }
  }
  b.shared_memory = bound::mio(warps_sm * w.shared_wf, a.mem("shared_wavefronts_per_cycle")) + warps_sm * w.barrier_mio;
  b.l1 = bound::mio(warps_sm * w.l1_wf, a.mem("l1_wavefronts_per_cycle"));
  return b;
}

// A round of CTAs that meet at barriers. Within a phase a CTA's warps run together, so its
// latency and its throughput overlap phase by phase, not over the whole program: one CTA alone
// takes the sum over phases of each phase's queued time. The round's CTAs are independent of
// each other: they share the resources as customers of one closed queue.
inline double phased_round_cycles(const KernelAnalysis& an, const std::vector<InstrDesc>& desc, const std::vector<double>& stall, double tw,
                                  const std::vector<PcMemory>& mem, const ArchTable& a, const std::vector<std::pair<std::size_t, std::size_t>>& phases,
                                  double warps_per_block, double ctas) {
  const double S = std::max(1, a.sub_partitions);
  const double cta_per_sp = std::max(1.0, std::ceil(warps_per_block / S));
  double alone = 0, issue = 0, unit = 0, mio_total = 0;
  const std::vector<double> busiest_execs = busiest_warp_executions(an, desc, warps_per_block);
  for (auto [first, last] : phases) {
    const WarpAverages w = warp_averages(an, desc, stall, tw, mem, first, last, a, warps_per_block, &busiest_execs);
    const ThroughputBounds b = throughput_bounds(w, a, cta_per_sp, warps_per_block);
    // The CTA's warps leave the barrier together and reach the phase's loads and stores
    // together: the last one waits for the others' L1/shared wavefronts of that first pass,
    // which the queueing formula (arrivals spread over the chain) leaves out. A loop in the
    // phase bursts once: queued behind each other the warps come back to the pipe staggered
    // (calibrate/shared_atomic_probe.cu's float adds, a loop of 128 requests between two
    // barriers, were 1.85x slow with a burst for every iteration; Rodinia particlefilter 1.15x).
    const double mio = b.shared_memory + b.l1;
    const double wavefronts = w.shared_wf + w.l1_wf;
    const double burst = wavefronts > 0 ? mio * (w.pass_shared_wf + w.pass_l1_wf) / wavefronts : 0.0;
    const double together = w.busiest_chain + burst * (warps_per_block - 1) / std::max(1.0, warps_per_block);
    alone += std::max(queued_round_cycles(cta_per_sp, w.busiest_chain, std::max({b.issue, b.functional_unit, mio})), together);
    issue += b.issue;
    unit += b.functional_unit;
    mio_total += mio;
  }
  const double busiest = std::max({issue, unit, mio_total});  // one CTA's demand on the busiest resource
  return closed_queue_round_cycles(std::max(1.0, ctas), busiest, alone - busiest);
}

// The resource whose bound exceeds the dependency chain: its stalls go to pipe, mio or
// not_selected.
enum class Binding { pipe, mio, not_selected };

// Stall attribution: the dependency chain's waits; then what the queue for the busiest resource
// adds beyond the chain (the round without barriers, `unphased_cycles`), spread over
// instructions by their share of that resource; then what barriers add, over the barriers.
inline void attribute_round_stalls(const KernelAnalysis& an, const std::vector<InstrDesc>& desc, const std::vector<double>& stall,
                                   const std::vector<bool>& on_mem, double tw, double warps_round, double chain_w, double unphased_cycles,
                                   const std::vector<PcMemory>& mem, const ArchTable& a, double warps_per_block, RoundResult& r) {
  const Kernel& k = *an.kernel;
  const bool ctrl = k.has_control_bits();
  r.pc_stalls.assign(k.program.size(), StallBreakdown{});
  double extra = std::max(0.0, unphased_cycles - chain_w);
  const double barrier_wait = std::max(0.0, r.cycles - std::max(unphased_cycles, chain_w));
  double barriers_executed = 0;
  for (auto i : an.order)
    if (desc[i].is_barrier) barriers_executed += an.pcs[i].warp_exec / tw * an.pcs[i].pred_on_share;
  double share_total = 0;
  // The busiest throughput resource takes the time beyond the chain: its queue.
  const double mio = r.bounds.shared_memory + r.bounds.l1;
  const Binding which = r.bounds.functional_unit > r.bounds.issue && r.bounds.functional_unit >= mio ? Binding::pipe
                        : mio > r.bounds.issue ? Binding::mio : Binding::not_selected;
  auto share = [&](std::uint32_t i) {
    const auto& d = desc[i];
    double c = an.pcs[i].warp_exec / tw;
    if (which == Binding::pipe) return d.op_class == r.bounds.busiest_unit ? c * d.issue_interval : 0.0;
    if (which == Binding::mio) return k.program[i].space == MemSpace::shared ? an.pcs[i].wavefronts / tw
                                        : k.program[i].space == MemSpace::global ? mem[i].l1_wavefronts / tw : 0.0;
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
    if (desc[i].is_barrier)  // on the chain
      st.barrier += c * an.pcs[i].pred_on_share * barrier_release_cycles(k, k.program[i], desc[i], a, warps_per_block) * warps_round;
    if (share_total > 0) {
      double e = extra * warps_round * share(i) / share_total;
      if (which == Binding::pipe) st.pipe += e; else if (which == Binding::mio) st.mio += e; else st.not_selected += e;
    }
    if (desc[i].is_barrier && barriers_executed > 0)
      st.barrier += barrier_wait * warps_round * c * an.pcs[i].pred_on_share / barriers_executed;
  }
}

}  // namespace detail

// The busiest warp's dependent path (imbalance.hpp). Its extra iterations run after the
// average warp has finished, with the memory system idle: their waits come from the idle
// latencies when the round has them (not memoised: the round's own walk keeps the memo).
inline double busiest_warp_path(const KernelAnalysis& an, const std::vector<InstrDesc>& desc, const std::vector<double>& idle_latency,
                                const std::vector<double>& stall, double avg_chain) {
  const double loaded = busiest_warp_cycles(an, desc, stall, avg_chain);
  if (loaded <= 0 || idle_latency.empty()) return loaded;
  std::vector<double> idle_stall;
  std::vector<bool> on_memory;
  detail::compute_static_stalls(an, desc, idle_latency, idle_stall, on_memory);
  return busiest_warp_cycles(an, desc, idle_stall, avg_chain);
}

inline RoundResult bounds_round(const RoundModel& rm, const GpuSpec& g, const Occupancy& o, double ctas) {
  const KernelAnalysis& an = *rm.an;
  const ArchTable& a = g.arch_table();
  RoundResult r;
  const double S = std::max(1, a.sub_partitions);
  const double warps_round = ctas * o.warps_per_block;
  const double per_sp = std::max(1.0, std::ceil(warps_round / S));
  const double tw = std::max(1.0, an.total_warps);
  std::vector<double> stall;
  std::vector<bool> on_mem;
  detail::static_stalls(an, *rm.desc, rm.latency, stall, on_mem);
  detail::WarpAverages w = detail::warp_averages(an, *rm.desc, stall, tw, rm.mem, 0, an.order.size(), a, o.warps_per_block);
  const detail::ThroughputBounds tb = detail::throughput_bounds(w, a, per_sp, warps_round);
  r.bounds.issue = tb.issue;
  r.bounds.functional_unit = tb.functional_unit;
  r.bounds.busiest_unit = tb.busiest_unit;
  r.bounds.shared_memory = tb.shared_memory;
  r.bounds.l1 = tb.l1;
  r.bounds.latency = w.chain;
  // Traces replay each warp's own stream (a simulation sees its busiest traced warp); counts
  // alone need the bound.
  if (!an.dynamic) r.bounds.busiest_warp = busiest_warp_path(an, *rm.desc, rm.idle_latency, stall, w.chain);
  // Warps queue for the busiest resources between their latencies: more than the largest bound
  // where the chain and the throughput meet (warp_queueing.hpp); more again where CTA barriers
  // make the warps of a CTA wait for each other.
  const double unphased = queued_round_cycles(per_sp, r.bounds.latency, std::max({r.bounds.issue, r.bounds.functional_unit, r.bounds.shared_memory + r.bounds.l1}));
  r.cycles = unphased;
  const auto phases = detail::barrier_phases(an, *rm.desc);
  if (phases.size() > 1)
    r.cycles = std::max(r.cycles, detail::phased_round_cycles(an, *rm.desc, stall, tw, rm.mem, a, phases, o.warps_per_block, ctas));
  r.warp_instructions = w.instrs * warps_round;
  detail::attribute_round_stalls(an, *rm.desc, stall, on_mem, tw, warps_round, w.chain, unphased, rm.mem, a, o.warps_per_block, r);
  return r;
}

}  // namespace gpuperf
