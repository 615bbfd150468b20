// The performance model. predict(analysis, gpu) -> KernelReport.
// Two modes share one report: `simulation` replays the traced warps of one SM's resident
// CTAs on its sub-partitions (scoreboard, unit intervals, MIO queue, barriers, compiler
// stall counts where a listing is joined); `bounds` (count-only inputs, or on request)
// derives the same per-round time from counts with small pure bound functions. Both then
// place rounds of CTAs on SMs (waves and the tail) and bound the kernel by L2 and DRAM
// bandwidth. Nothing here reads a Measurement.
// Predictor::predict is the list of stages, each in its own file: memory_model (per-PC hit
// rates, latency, traffic), stalls, bounds/bounds_round, simulate, waves, roofline, bottleneck.
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
#include "gpuperf/model/assumptions.hpp"
#include "gpuperf/model/analysis.hpp"
#include "gpuperf/model/bottleneck.hpp"
#include "gpuperf/model/bounds.hpp"
#include "gpuperf/model/bounds_round.hpp"
#include "gpuperf/model/interval.hpp"
#include "gpuperf/model/memory.hpp"
#include "gpuperf/model/memory_model.hpp"
#include "gpuperf/model/occupancy.hpp"
#include "gpuperf/model/prediction.hpp"
#include "gpuperf/model/roofline.hpp"
#include "gpuperf/model/round.hpp"
#include "gpuperf/model/simulate.hpp"
#include "gpuperf/model/stalls.hpp"
#include "gpuperf/model/waves.hpp"

namespace gpuperf {

enum class ModelMode { automatic, simulation, bounds };

struct PredictOptions {
  ModelMode mode = ModelMode::automatic;
  bool per_pc = true;
  int shared_carveout_kib = -1;  // -1: the driver's choice
  // The kernel's data are already in L2 when it starts, as when a kernel is timed in a loop
  // (CUDA events); off for profiler-style cold runs (ncu flushes caches before each launch).
  bool warm_l2 = false;
  // The kernel's duration (default) or the time per launch back to back (implies warm L2).
  Target target = Target::duration;
};

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

// Header of the report: what was predicted, on what, with the reader's warnings.
inline KernelReport identify(const Kernel& k, const GpuSpec& g) {
  KernelReport rep;
  rep.name = k.launch.name;
  rep.launch_id = k.launch.id;
  rep.input_format = k.format;
  rep.gpu = g.name;
  rep.arch = g.arch;
  rep.sm_clock_mhz = g.sm_clock_mhz;
  for (auto& w : k.warnings) rep.warnings.push_back({WarningCode::input, {w}});
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
};

// The round and the tail round in the chosen mode; a simulation reports the bounds of counts.
inline Rounds run_rounds(const RoundModel& rm, const GpuSpec& g, const Occupancy& o, const Waves& w, bool sim) {
  auto run = [&](int ctas) { return sim ? simulate_round(rm, g, ctas) : bounds_round(rm, g, o, ctas); };
  Rounds r;
  r.full = run(w.round_ctas());
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
  for (std::size_t i = 0; i < k.program.size(); ++i) {
    StallBreakdown scaled = rounds.full.pc_stalls.empty() ? StallBreakdown{} : rounds.full.pc_stalls[i].scaled(scale);
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
    rep.time_low_us = std::min(rep.time_us, g.cycles_to_us(lo) + g.launch_overhead_us);
    rep.time_high_us = std::max(rep.time_us, g.cycles_to_us(hi) + g.launch_overhead_us);
  }
  if (k.representative_cta || (an.dynamic && k.traced_ctas < rep.grid_ctas)) {
    rep.time_low_us = std::min(rep.time_low_us, rep.time_us * assume::sampled_low);
    rep.time_high_us = std::max(rep.time_high_us, rep.time_us * assume::sampled_high);
  }
  // A truncated trace's last CTA is partial: counting only the complete ones scales by
  // traced / (traced - 1) more (with one CTA there is no upper end to give; the warning says so).
  if (k.truncated_at_instructions && k.traced_ctas > 1)
    rep.time_high_us = std::max(rep.time_high_us, rep.time_us * double(k.traced_ctas) / double(k.traced_ctas - 1));
}

}  // namespace detail

inline KernelReport Predictor::predict(const GpuSpec& g, const PredictOptions& opt) const {
  detail::StaticStallsScope stalls_once;  // the rounds below share one static-stall walk
  const KernelAnalysis& an = *an_;
  const Kernel& k = *an.kernel;
  auto desc = descriptors(g);
  KernelReport rep = detail::identify(k, g);
  detail::check_instructions(an, *desc, g, rep);
  rep.occupancy = detail::launch_occupancy(k, g, opt, rep.warnings);
  // Memory per PC, with the latency a loaded SM sees.
  RoundModel rm;
  rm.an = &an;
  rm.desc = desc.get();
  const double warm_fraction = opt.warm_l2 || opt.target == Target::back_to_back ? warm_l2_fraction(an, g) : 0;
  const double dram_latency = loaded_dram_latency(g, rep.occupancy.active_warps_per_sm);
  rep.memory = model_memory(an, *desc, g, rep.occupancy, warm_fraction, dram_latency, rm.mem, rm.latency);
  detail::warn_assumed_hit_rates(rep.memory, rep.warnings);
  // Rounds of CTAs on the busiest SM, simulated or bounded.
  const bool sim = detail::use_simulation(an, opt, rep.warnings);
  rep.mode = sim ? Mode::simulation : Mode::bounds;
  const Waves w = place_rounds(static_cast<double>(k.launch.grid.count()), g.sms, rep.occupancy.blocks_per_sm);
  rep.grid_ctas = w.grid;
  rep.ctas_per_sm = w.per_sm;
  rep.tail_ctas = w.tail;
  rep.waves = w.grid / (double(g.sms) * rep.occupancy.blocks_per_sm);
  const detail::Rounds rounds = detail::run_rounds(rm, g, rep.occupancy, w, sim);
  if (sim) {
    rep.simulated_ctas = w.round_ctas() + (w.has_tail() ? w.tail : 0);
    if (an.ctas.size() < static_cast<std::size_t>(rep.occupancy.blocks_per_sm) && an.ctas.size() < w.per_sm)
      rep.warnings.push_back({WarningCode::ctas_replayed, {std::to_string(an.ctas.size()), std::to_string(rep.occupancy.blocks_per_sm)}});
  }
  // The kernel: rounds on the busiest SM, their throughput overlapped with the L2 and DRAM
  // transfers, bounded by the L2's atomic units and the busiest warp's own path.
  const double rounds_cycles = sm_cycles(w, rounds.full.cycles, rounds.tail.cycles);
  const double dram_gbs = g.dram_bandwidth_gbs * g.dram_efficiency;
  rep.bounds = kernel_scale(rounds.full.bounds, rounds_cycles, rounds.full.cycles);
  rep.bounds.cta_dispatch = cta_dispatch_cycles(g, w.grid, k.launch.warps_per_cta());
  const double sm = physical_floor(rounds_cycles, rep.bounds);
  rep.bounds.sm_rounds = sm;
  add_memory_bounds(rep.bounds, rep.memory, an.atomics, g, dram_gbs);
  const double p = sim ? g.overlap_exponent_simulation : g.overlap_exponent_bounds;
  const double throughput = std::max({rep.bounds.issue, rep.bounds.functional_unit, rep.bounds.shared_memory + rep.bounds.l1});
  rep.bounds.sm_and_memory = bound::sm_and_memory(sm, throughput, rep.bounds.dram, rep.bounds.l2, p);
  rep.cycles = std::max({rep.bounds.sm_and_memory, rep.bounds.atomics, rep.bounds.busiest_warp});
  rep.target = opt.target;
  rep.launch_overhead_us = launch_term(g, opt.target);
  rep.time_us = g.cycles_to_us(rep.cycles) + rep.launch_overhead_us;
  const BottleneckCall why = classify_bottleneck(rep.bounds, rep.cycles, sm, rep.occupancy, w, rounds.tail.cycles, g, rep.launch_overhead_us);
  rep.bottleneck = why.kind;
  rep.under_launch = why.under_launch;
  rep.grid_underfills = why.grid_underfills;
  rep.sms = g.sms;
  rep.atomic_updates = an.atomics.updates;
  rep.atomic_words = an.atomics.effective_words;
  // Instructions, IPC, the roofline, stalls per PC and the uncertainty range.
  for (auto& p : an.pcs) { rep.warp_instructions += p.warp_exec; rep.thread_instructions += p.thread_exec; }
  rep.ipc = rep.cycles > 0 ? rep.warp_instructions / (rep.cycles * std::min<double>(g.sms, w.grid)) : 0;
  rep.roofline = roofline(an, *desc, rep.memory, g, dram_gbs, rep.time_us);
  detail::attribute_stalls(rm, rounds, w, g, opt.per_pc, rep);
  detail::time_range(k, an, g, sm, dram_gbs, rep);
  apply_calibrated_interval(g, rep);
  return rep;
}

}  // namespace gpuperf
