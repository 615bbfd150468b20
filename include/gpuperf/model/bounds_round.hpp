// Bounds mode: the time of one round from per-warp averages of the counts, and the stall
// attribution that goes with it.
#pragma once

#include <algorithm>
#include <cmath>
#include <map>
#include <string>
#include <vector>

#include "gpuperf/arch/gpu_spec.hpp"
#include "gpuperf/model/bounds.hpp"
#include "gpuperf/model/imbalance.hpp"
#include "gpuperf/model/memory.hpp"
#include "gpuperf/model/occupancy.hpp"
#include "gpuperf/model/round.hpp"
#include "gpuperf/model/stalls.hpp"

namespace gpuperf {

namespace detail {

// Per-warp averages of one round's counts: what the bounds are computed from.
struct WarpAverages {
  double instrs = 0, chain = 0, shared_wf = 0, l1_wf = 0;  // per warp
  std::map<std::string, double> unit_busy;                 // cycles per warp, by class
  std::map<std::string, bool> unit_sm_scope;
};

inline WarpAverages warp_averages(const KernelAnalysis& an, const std::vector<InstrDesc>& desc, const std::vector<double>& stall, double tw,
                                  double partial_cost) {
  const Kernel& k = *an.kernel;
  WarpAverages w;
  for (std::size_t oi = 0; oi < an.order.size(); ++oi) {
    auto i = an.order[oi];
    const auto& d = desc[i];
    double c = an.pcs[i].warp_exec / tw;  // executions per warp
    if (c <= 0) continue;
    w.instrs += c;
    w.chain += c * (1 + stall[oi]);  // one issue cycle plus the wait before it
    w.unit_busy[d.op_class] += c * d.issue_interval;
    w.unit_sm_scope[d.op_class] = d.sm_scope;
    const auto& s = k.program[i];
    if (s.space == MemSpace::shared) w.shared_wf += an.pcs[i].wavefronts / tw;
    else if (s.space == MemSpace::global || s.space == MemSpace::local || s.space == MemSpace::generic)
      w.l1_wf += global_l1_wavefronts(an.pcs[i].wavefronts, an.pcs[i].partial_store_lines, partial_cost) / tw;
  }
  return w;
}

// The resource whose bound exceeds the dependency chain: its stalls go to pipe, mio or
// not_selected.
enum class Binding { pipe, mio, not_selected };

// Stall attribution: the dependency chain's waits, then whatever the binding throughput bound
// adds beyond the chain, spread over instructions by their share of that resource.
inline void attribute_round_stalls(const KernelAnalysis& an, const std::vector<InstrDesc>& desc, const std::vector<double>& stall,
                                   const std::vector<bool>& on_mem, double tw, double warps_round, double chain_w, RoundResult& r) {
  const Kernel& k = *an.kernel;
  const bool ctrl = k.has_control_bits();
  r.pc_stalls.assign(k.program.size(), StallBreakdown{});
  double extra = std::max(0.0, r.cycles - chain_w);
  double share_total = 0;
  const Binding which = r.cycles == r.bounds.functional_unit && r.bounds.functional_unit > r.bounds.issue ? Binding::pipe
                        : r.cycles == r.bounds.shared_memory + r.bounds.l1 && r.cycles > r.bounds.issue ? Binding::mio : Binding::not_selected;
  auto share = [&](std::uint32_t i) {
    const auto& d = desc[i];
    double c = an.pcs[i].warp_exec / tw;
    if (which == Binding::pipe) return d.op_class == r.bounds.busiest_unit ? c * d.issue_interval : 0.0;
    if (which == Binding::mio) return k.program[i].space == MemSpace::shared || k.program[i].space == MemSpace::global ? an.pcs[i].wavefronts / tw : 0.0;
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
      if (which == Binding::pipe) st.pipe += e; else if (which == Binding::mio) st.mio += e; else st.not_selected += e;
    }
  }
}

}  // namespace detail

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
  detail::WarpAverages w = detail::warp_averages(an, *rm.desc, stall, tw, store_partial_line_wavefronts(a));
  r.bounds.issue = bound::issue(per_sp, w.instrs);
  for (auto& [cls, busy] : w.unit_busy) {
    // An SM-wide unit serves every warp of the SM, a sub-partition's unit only its own.
    double b = w.unit_sm_scope[cls] ? bound::unit(warps_round, busy) : bound::unit(per_sp, busy);
    if (b > r.bounds.functional_unit) { r.bounds.functional_unit = b; r.bounds.busiest_unit = cls; }
  }
  r.bounds.latency = w.chain;
  // Traces replay each warp's own stream (a simulation sees its busiest traced warp); counts
  // alone need the bound.
  if (!an.dynamic) r.bounds.busiest_warp = busiest_warp_cycles(an, *rm.desc, stall, w.chain);
  double shared_rate = a.mem("shared_wavefronts_per_cycle");
  double l1_rate = a.mem("l1_wavefronts_per_cycle");
  r.bounds.shared_memory = bound::mio(warps_round * w.shared_wf, shared_rate);
  r.bounds.l1 = bound::mio(warps_round * w.l1_wf, l1_rate);
  r.cycles = std::max({r.bounds.issue, r.bounds.functional_unit, r.bounds.latency, r.bounds.shared_memory + r.bounds.l1});
  r.warp_instructions = w.instrs * warps_round;
  detail::attribute_round_stalls(an, *rm.desc, stall, on_mem, tw, warps_round, w.chain, r);
  return r;
}

}  // namespace gpuperf
