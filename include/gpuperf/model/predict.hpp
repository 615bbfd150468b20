// The performance model. predict(analysis, gpu) -> KernelReport.
// Two modes share one report: `simulation` replays the traced warps of one SM's resident
// CTAs on its sub-partitions (scoreboard, unit intervals, MIO queue, barriers, compiler
// stall counts where a listing is joined); `bounds` (count-only inputs, or on request)
// derives the same per-round time from counts with small pure bound functions. Both then
// place rounds of CTAs on SMs (waves and the tail) and bound the kernel by L2 and DRAM
// bandwidth. Nothing here reads a Measurement.
// Predictor::predict is the list of stages, each in its own file: memory_model (per-PC hit
// rates, latency, traffic), stalls, bounds/bounds_round, simulate, waves, roofline, bottleneck.
// The what-if sweep over many GPU specs, Predictor::predict_times, is in sweep.hpp.
// A definition file: compiled once in the library (src/lib/model.cpp), or included by
// predictor.hpp when GPUPERF_HEADER_ONLY; never include it beside the compiled library.
#pragma once

#include <algorithm>
#include <memory>
#include <vector>

#include "gpuperf/model/bottleneck.hpp"
#include "gpuperf/model/interval.hpp"
#include "gpuperf/model/memory.hpp"
#include "gpuperf/model/predict_stages.hpp"
#include "gpuperf/model/predictor.hpp"
#include "gpuperf/model/roofline.hpp"

namespace gpuperf {

GPUPERF_FUNC detail::Setup Predictor::setup(const GpuSpec& g, const PredictOptions& opt, std::shared_ptr<const std::vector<InstrDesc>> desc,
                                      std::vector<Warning>& warnings) const {
  const KernelAnalysis& an = *an_;
  detail::Setup s;
  s.desc = std::move(desc);
  s.occupancy = detail::launch_occupancy(*an.kernel, g, opt, warnings);
  // Memory per PC, with the latency a loaded SM sees.
  s.cold_l2 = !(opt.warm_l2 || opt.target == Target::back_to_back);
  s.warm_fraction = s.cold_l2 ? 0 : warm_l2_fraction(an, g);
  s.dram_latency = loaded_dram_latency(g, s.occupancy.active_warps_per_sm);
  s.rates = memory_rates(g, s.occupancy, s.warm_fraction, s.cold_l2);
  detail::warn_assumed_hit_rates(s.rates->stats, warnings);
  // Rounds of CTAs on the busiest SM, simulated or bounded.
  s.sim = detail::use_simulation(an, opt, warnings);
  // The memory system idle: for the busiest warp's extra iterations (bounds mode of counts) and
  // for the warps a simulated round still runs as the others exit.
  if (s.sim || !an.dynamic) s.idle_dram_ratio = idle_dram_ratio(g.dram_latency, s.dram_latency);
  s.waves = place_rounds(static_cast<double>(an.kernel->launch.grid.count()), g.sms, s.occupancy.blocks_per_sm);
  return s;
}

GPUPERF_FUNC KernelReport Predictor::predict(const GpuSpec& g, const PredictOptions& opt) const {
  detail::StaticStallsScope stalls_once;  // the rounds below share one static-stall walk
  const KernelAnalysis& an = *an_;
  const Kernel& k = *an.kernel;
  auto desc = descriptors(g);
  KernelReport rep = detail::identify(k, g);
  detail::check_instructions(an, *desc, g, rep);
  if (!k.program.empty() && !k.has_control_bits()) rep.warnings.push_back({WarningCode::no_control_bits, {}});
  const detail::Setup s = setup(g, opt, desc, rep.warnings);
  rep.occupancy = s.occupancy;
  RoundModel rm;
  rep.memory = s.rates->stats;
  rep.memory.avg_load_latency = make_round_model(rm, an, *desc, g, *s.rates, s.dram_latency, s.idle_dram_ratio, s.occupancy.active_warps_per_sm);
  const bool sim = s.sim;
  rep.mode = sim ? Mode::simulation : Mode::bounds;
  const Waves& w = s.waves;
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
  if (auto note = detail::sampled_ctas_warning(an.sample)) rep.warnings.push_back(*note);
  if (auto note = detail::counted_scale_up_warning(an)) rep.warnings.push_back(*note);
  for (auto& note : detail::sampled_memory_warnings(an)) rep.warnings.push_back(note);
  const detail::CtaBalance balance = detail::launch_balance(an, w, g);
  if (auto note = detail::busiest_sm_share_warning(an, balance)) rep.warnings.push_back(*note);
  const detail::KernelTime kt = detail::kernel_time(rounds.full.bounds, rounds.full.cycles, rounds.tail.cycles, rounds.full.busiest_cycles, rounds.full.streamed_cycles, w,
                                                    balance, k.launch.warps_per_cta(), rep.memory, an.atomics, g, sim, opt.target);
  rep.bounds = kt.bounds;
  const double sm = kt.sm;
  const double dram_gbs = g.dram_bandwidth_gbs * g.dram_efficiency;
  rep.cycles = kt.cycles;
  rep.target = opt.target;
  rep.launch_overhead_us = kt.launch_us;
  rep.time_us = kt.time_us;
  const BottleneckCall why = classify_bottleneck(rep.bounds, rep.cycles, sm, rep.occupancy, w, rounds.tail.cycles, g, rep.launch_overhead_us);
  rep.bottleneck = why.kind;
  rep.under_launch = why.under_launch;
  rep.grid_underfills = why.grid_underfills;
  rep.sms = g.sms;
  rep.atomic_updates = an.atomics.updates;
  rep.atomic_words = an.atomics.effective_words;
  rep.atomic_lines = an.atomics.effective_lines;
  rep.atomic_busiest_slice_ops = an.atomics.busiest_slice_ops;
  // Instructions, IPC, the roofline, stalls per PC and the uncertainty range.
  for (auto& p : an.pcs) { rep.warp_instructions += p.warp_exec; rep.thread_instructions += p.thread_exec; }
  rep.ipc = rep.cycles > 0 ? rep.warp_instructions / (rep.cycles * std::min<double>(g.sms, w.grid)) : 0;
  rep.roofline = roofline(an, *desc, rep.memory, g, dram_gbs, rep.time_us);
  detail::attribute_stalls(rm, rounds, w, g, opt.per_pc, rep);
  detail::time_range(k, an, g, sm, dram_gbs, rep);
  apply_calibrated_interval(g, rep);
  detail::truncated_range(k, rep);
  return rep;
}

}  // namespace gpuperf
