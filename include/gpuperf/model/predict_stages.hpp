// The stages Predictor::predict lists, as functions of what they read: the report's header,
// instruction checks, occupancy, the mode, the rounds, stall attribution, the kernel's time
// from its rounds and the uncertainty range.
#pragma once

#include <algorithm>
#include <limits>
#include <string>
#include <vector>

#include "gpuperf/model/assumptions.hpp"
#include "gpuperf/model/bounds.hpp"
#include "gpuperf/model/bounds_round.hpp"
#include "gpuperf/model/interval.hpp"
#include "gpuperf/model/predictor.hpp"
#include "gpuperf/model/round.hpp"
#include "gpuperf/model/simulate.hpp"
#include "gpuperf/model/stalls.hpp"
#include "gpuperf/model/waves.hpp"

namespace gpuperf {

namespace detail {

// What the recorded part of a truncated trace stands for.
enum class TruncationBasis {
  counted,           // per-CTA counts give each traced CTA's whole work
  whole_ctas,        // every recorded CTA ran to its end: the tracer stopped between CTAs
  last_cta_partial,  // one of several traced CTAs is cut: counting only the others scales further
  lower_bound,       // every traced CTA, or several, is cut: only their recorded part is known
};
inline TruncationBasis truncation_basis(const Kernel& k) {
  if (!k.cta_work.empty()) return TruncationBasis::counted;
  if (!k.cut_warps.recorded) return TruncationBasis::last_cta_partial;  // not tallied (a kernel made in code): as before the tally
  if (k.cut_warps.ctas == 0) return TruncationBasis::whole_ctas;
  if (k.cut_warps.ctas == 1 && k.traced_ctas > 1) return TruncationBasis::last_cta_partial;
  return TruncationBasis::lower_bound;
}
inline const char* to_string(TruncationBasis b) {
  switch (b) {
    case TruncationBasis::counted: return "counted";
    case TruncationBasis::whole_ctas: return "whole_ctas";
    case TruncationBasis::last_cta_partial: return "last_cta_partial";
    case TruncationBasis::lower_bound: return "lower_bound";
  }
  return "";
}

// Header of the report: what was predicted, on what, with the reader's warnings.
inline KernelReport identify(const Kernel& k, const GpuSpec& g) {
  KernelReport rep;
  rep.name = k.launch.name;
  rep.launch_id = k.launch.id;
  rep.input_launch_id = k.launch.id;
  rep.input_format = k.format;
  rep.gpu = g.name;
  rep.arch = g.arch;
  rep.sm_clock_mhz = g.sm_clock_mhz;
  for (auto& w : k.warnings) rep.warnings.push_back({WarningCode::input, {w}});
  // Copies whose traffic the input does not give: asynchronous copies without their sources
  // (StaticInstr::copy_sources_unknown); TMA stores without a box (a profile's, or a trace's
  // from gpuperf's tracer before 2026-12-01); TMA loads without a box in a trace (a profile gives
  // them its L2 reads beyond the loads', memory_model.hpp's bulk_copy_traffic); TMA reductions.
  std::uint64_t unknown_copies = 0, unknown_copy_pcs = 0, boxless_stores = 0, boxless_loads = 0, reductions = 0;
  for (const auto& s : k.program) {
    if (s.copy_sources_unknown) { unknown_copies += s.warp_executed; ++unknown_copy_pcs; }
    switch (sass::bulk_tensor_copy(std::string_view(s.opcode).substr(0, s.opcode.find('.')))) {
      case sass::BulkTensorCopy::store: if (!s.bulk_box) boxless_stores += s.warp_executed; break;
      case sass::BulkTensorCopy::load: if (k.has_dynamic_trace() && !s.bulk_box) boxless_loads += s.warp_executed; break;
      case sass::BulkTensorCopy::reduction: reductions += s.warp_executed; break;
      case sass::BulkTensorCopy::none: break;
    }
  }
  if (unknown_copy_pcs) rep.warnings.push_back({WarningCode::copy_sources_unknown, {std::to_string(unknown_copies), std::to_string(unknown_copy_pcs)}});
  if (boxless_stores + boxless_loads + reductions > 0)
    rep.warnings.push_back({WarningCode::bulk_traffic_missing, {std::to_string(boxless_stores), std::to_string(boxless_loads), std::to_string(reductions)}});
  if (k.truncated_at_instructions)
    rep.warnings.push_back({WarningCode::truncated_trace, {std::to_string(k.truncated_at_instructions), to_string(truncation_basis(k)),
                                                           std::to_string(k.cut_warps.warps), std::to_string(k.cut_warps.recorded)}});
  return rep;
}

// Warnings about the input against this GPU: another architecture's SASS, opcodes of
// unsupported classes, unknown opcodes (counted in rep.unknown_opcodes).
inline void check_instructions(const KernelAnalysis& an, const std::vector<InstrDesc>& desc, const GpuSpec& g, KernelReport& rep) {
  const Kernel& k = *an.kernel;
  const ArchTable& a = g.arch_table();
  if (k.launch.sm_version && static_cast<int>(k.launch.sm_version / 10) != a.sm_version / 10)
    rep.warnings.push_back({WarningCode::other_arch_sass, {std::to_string(k.launch.sm_version), g.arch, g.name}});
  for (std::size_t i = 0; i < desc.size(); ++i) {
    if (desc[i].unknown) rep.unknown_opcodes[k.program[i].opcode]++;
    if (desc[i].unsupported && an.pcs[i].warp_exec > 0)
      rep.warnings.push_back({WarningCode::unsupported_class, {k.program[i].opcode, desc[i].op_class, g.arch}});
  }
  if (!rep.unknown_opcodes.empty()) {
    std::string list;
    for (auto& [op, n] : rep.unknown_opcodes) list += (list.empty() ? "" : ", ") + op;
    rep.warnings.push_back({WarningCode::unknown_opcodes, {std::to_string(rep.unknown_opcodes.size()), list}});
  }
}

// Occupancy of the launch; a launch that cannot fit on an SM is an error.
inline Occupancy launch_occupancy(const Kernel& k, const GpuSpec& g, const PredictOptions& opt, std::vector<Warning>& warnings) {
  Occupancy o = compute_occupancy(k.launch, g.arch_table(), opt.shared_carveout_kib);
  if (o.registers_assumed) warnings.push_back({WarningCode::registers_assumed, {}});
  if (o.blocks_per_sm <= 0)
    throw ModelError("kernel " + k.launch.name + " cannot launch on " + g.name + ": " + std::to_string(k.launch.block.count()) + " threads, " +
                     std::to_string(o.registers_per_thread) + " registers and " +
                     std::to_string(k.launch.static_shared_bytes + k.launch.dynamic_shared_bytes) + " B shared memory per block exceed the SM's limits");
  return o;
}

inline void warn_assumed_hit_rates(const MemoryStats& ms, std::vector<Warning>& warnings) {
  if (ms.hit_rates_assumed && (ms.global_load_requests + ms.global_store_requests) > 0) warnings.push_back({WarningCode::hit_rates_assumed, {}});
}

// Simulation when the input has per-warp streams (or on request, when it can).
inline bool use_simulation(const KernelAnalysis& an, const PredictOptions& opt, std::vector<Warning>& warnings) {
  bool can_sim = an.dynamic && !an.ctas.empty();
  bool sim = opt.mode == ModelMode::simulation || (opt.mode == ModelMode::automatic && can_sim);
  if (opt.mode == ModelMode::simulation && !can_sim) {
    warnings.push_back({WarningCode::counts_only_input, {}});
    sim = false;
  }
  return sim;
}

struct Rounds {
  RoundResult full, tail;  // a full round (or the only one) and the tail round
  RoundResult streamed;    // two full rounds' CTAs streamed (simulate_round_and_streamed); empty if not run
};

// The round and the tail round in the chosen mode; a simulation reports the bounds of counts.
inline Rounds run_rounds(const RoundModel& rm, const GpuSpec& g, const Occupancy& o, const Waves& w, bool sim) {
  auto run = [&](int ctas) { return sim ? simulate_round(rm, g, ctas) : bounds_round(rm, g, o, ctas); };
  Rounds r;
  if (sim && w.full >= 2) {
    RoundAndStreamed both = simulate_round_and_streamed(rm, g, w.round_ctas());
    r.full = std::move(both.round);
    r.streamed = std::move(both.streamed);
    r.full.streamed_cycles = r.streamed.cycles;
  } else {
    r.full = run(w.round_ctas());
  }
  if (sim && rm.an->sample.busiest >= 0) r.full.busiest_cycles = simulate_round(rm, g, w.round_ctas(), true).cycles;
  if (w.has_tail()) r.tail = run(static_cast<int>(w.tail));
  if (sim) r.full.bounds = bounds_round(rm, g, o, w.round_ctas()).bounds;
  return r;
}

// Per-PC table and stall totals, scaled from the simulated or averaged round to the grid.
inline void attribute_stalls(const RoundModel& rm, const Rounds& rounds, const Waves& w, const GpuSpec& g, bool per_pc, KernelReport& rep) {
  const KernelAnalysis& an = *rm.an;
  const Kernel& k = *an.kernel;
  const auto& desc = *rm.desc;
  const double scale = grid_scale(w);
  // Where the CTAs stream (kernel_time), the first of the full rounds starts its CTAs together
  // and the others take the streamed rounds' stalls, half of the two rounds' each.
  const bool streamed = !rounds.streamed.pc_stalls.empty() && rounds_stream(w, rounds.streamed.cycles);
  const double first_share = streamed ? 1.0 / w.full : 1.0;
  for (std::size_t i = 0; i < k.program.size(); ++i) {
    StallBreakdown scaled = rounds.full.pc_stalls.empty() ? StallBreakdown{} : rounds.full.pc_stalls[i].scaled(scale * first_share);
    if (streamed) scaled += rounds.streamed.pc_stalls[i].scaled(0.5 * scale * (1 - first_share));
    if (w.has_tail() && !rounds.tail.pc_stalls.empty()) scaled += rounds.tail.pc_stalls[i].scaled(g.sms);
    rep.stalls += scaled;
    if (!per_pc) continue;
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
}

// Uncertainty: assumed hit rates span all-hit to all-miss; sampled inputs get a fixed range.
inline void time_range(const Kernel& k, const KernelAnalysis& an, const GpuSpec& g, double sm_cycles, double dram_gbs, KernelReport& rep) {
  const auto& ms = rep.memory;
  rep.time_low_us = rep.time_us;
  rep.time_high_us = rep.time_us;
  if (ms.hit_rates_assumed && ms.dram_read_bytes + ms.dram_write_bytes + ms.l2_bytes > 0) {
    double all_miss_bytes = (ms.global_load_sectors + ms.global_store_sectors) * assume::sector_bytes;
    double hi = std::max({sm_cycles, bound::bandwidth(all_miss_bytes, dram_gbs, g.sm_clock_mhz), rep.bounds.l2});
    double lo = std::max(sm_cycles * assume::all_hit_sm_factor, bound::bandwidth(ms.dram_write_bytes, dram_gbs, g.sm_clock_mhz));
    rep.time_low_us = std::min(rep.time_us, target_time_us(g, rep.target, g.cycles_to_us(lo)));
    rep.time_high_us = std::max(rep.time_us, target_time_us(g, rep.target, g.cycles_to_us(hi)));
  }
  if (k.representative_cta || (an.dynamic && k.traced_ctas < rep.grid_ctas)) {
    rep.time_low_us = std::min(rep.time_low_us, rep.time_us * assume::sampled_low);
    rep.time_high_us = std::max(rep.time_high_us, rep.time_us * assume::sampled_high);
  }
}

// A truncated trace's range, over the calibrated interval (which knows whole traces only). Where
// one of several traced CTAs is cut, counting only the complete ones scales by traced /
// (traced - 1) more. Where every traced CTA (or several) is cut, as a tracer that runs its
// sampled CTAs together cuts them all, the time is of the recorded part only: a lower bound with
// no upper end (HeCBench nbody, cut at 2M of its 20M warp instructions, came out 14x fast).
// With the grid's per-CTA counts, or whole CTAs, the recorded part stands for the work as it is.
inline void truncated_range(const Kernel& k, KernelReport& rep) {
  if (!k.truncated_at_instructions) return;
  switch (truncation_basis(k)) {
    case TruncationBasis::last_cta_partial:
      if (k.traced_ctas > 1) rep.time_high_us = std::max(rep.time_high_us, rep.time_us * double(k.traced_ctas) / double(k.traced_ctas - 1));
      break;
    case TruncationBasis::lower_bound:
      rep.time_is_lower_bound = true;
      rep.interval_calibrated = false;
      rep.time_low_us = rep.time_us;
      rep.time_high_us = std::numeric_limits<double>::infinity();
      break;
    case TruncationBasis::counted:
    case TruncationBasis::whole_ctas: break;
  }
}

}  // namespace detail

namespace detail {

// The kernel's time from its rounds: the rounds on the busiest SM, their throughput overlapped
// with the L2 and DRAM transfers, bounded by the L2's atomic units and the busiest warp's own path.
struct KernelTime {
  Bounds bounds;      // on the kernel's scale
  double sm = 0;      // the busiest SM's rounds, floored
  double cycles = 0;  // the kernel body
  double launch_us = 0, time_us = 0;
};

inline KernelTime kernel_time(const Bounds& round_bounds, double full_cycles, double tail_cycles, double busiest_cycles, double streamed_cycles, const Waves& w,
                              const CtaBalance& balance, double warps_per_cta, const MemoryStats& ms, const AtomicProfile& atomics, const GpuSpec& g,
                              bool sim, Target target) {
  KernelTime t;
  const double body = sm_cycles(w, full_cycles, tail_cycles, g.cta_turnaround_cycles);
  // The CTAs stream through the slots (streamed_cycles), and the busiest SM runs the round that
  // holds a sampled trace's busiest CTA (busiest_cycles, 0 where there is none) in place of a
  // typical one.
  const double streamed = streamed_sm_cycles(w, full_cycles, streamed_cycles, tail_cycles, g.cta_turnaround_cycles);
  const double rounds_cycles = balance.rounds * (streamed + std::max(0.0, busiest_cycles - full_cycles));
  const double dram_gbs = g.dram_bandwidth_gbs * g.dram_efficiency;
  // The round's bounds are the average round's (the grid's counts): as many of them as the
  // busiest SM runs, not stretched by the round that holds a sampled trace's busiest CTA, but by
  // the busiest SM's share of the grid's counted work.
  t.bounds = kernel_scale(round_bounds, balance.bounds * body, full_cycles);
  // The last CTA the GPU starts still runs after it: a grid of short CTAs lasts its dispatch
  // and one CTA's run (HeCBench convolution1D and Rodinia gaussian's Fan2 on the train part ran
  // 2-17 % past the dispatch). That run is its warps' dependent path (the round's latency
  // bound), but no longer than a round of the SM's CTAs running together: a simulated round
  // overlaps the independent loads that the bound's path takes one after another.
  const double dispatch = cta_dispatch_cycles(g, w.grid, warps_per_cta);
  if (dispatch > 0) {
    t.bounds.cta_dispatch_last_run = full_cycles > 0 ? std::min(round_bounds.latency, full_cycles) : round_bounds.latency;
    t.bounds.cta_dispatch = dispatch + t.bounds.cta_dispatch_last_run;
  }
  t.sm = physical_floor(rounds_cycles, t.bounds);
  // Bounds mode runs the average CTA's chain; where the busiest SM holds `balance.bounds` times
  // the average SM's work, its warps' dependent paths are as much longer (a simulation replays
  // the busiest CTA's own stream instead).
  if (!sim && balance.bounds > 1) t.sm = std::max(t.sm, t.bounds.latency);
  t.bounds.sm_rounds = t.sm;
  add_memory_bounds(t.bounds, ms, atomics, g, dram_gbs, w.blocks_per_sm > 0 ? w.per_sm / w.blocks_per_sm : 1);
  const double p = sim ? g.overlap_exponent_simulation : g.overlap_exponent_bounds;
  const Bounds& b = t.bounds;
  t.bounds.sm_and_memory =
      bound::sm_and_memory(bound::overlap_parts(t.sm, b.issue, b.functional_unit, b.shared_memory, b.l1, b.dram, b.l2, b.memory_phases), p);
  t.cycles = std::max({t.bounds.sm_and_memory, t.bounds.atomics, t.bounds.busiest_warp});
  const double body_us = g.cycles_to_us(t.cycles), term = launch_term(g, target);
  t.time_us = target_time_us(g, target, body_us);
  t.launch_us = t.time_us > body_us + term ? t.time_us - body_us : term;  // the term, or what the period leaves
  return t;
}

// One round of `ctas` CTAs as the kernel's time reads it (run_rounds' full round).
inline RoundSummary summarize_round(const RoundModel& rm, const GpuSpec& g, const Occupancy& o, int ctas, bool sim) {
  StaticStallsScope stalls_once;
  RoundSummary r;
  if (sim) {
    const RoundAndStreamed both = simulate_round_and_streamed(rm, g, ctas);  // the streamed: what a point of several full rounds reads
    r.cycles = both.round.cycles;
    r.streamed_cycles = both.streamed.cycles;
    if (rm.an->sample.busiest >= 0) r.busiest_cycles = simulate_round(rm, g, ctas, true).cycles;
    r.bounds = bounds_round(rm, g, o, ctas).bounds;
  } else {
    RoundResult b = bounds_round(rm, g, o, ctas);
    r.cycles = b.cycles;
    r.bounds = std::move(b.bounds);
  }
  return r;
}

}  // namespace detail

}  // namespace gpuperf
