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
#include <array>
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
#include "gpuperf/parallel.hpp"
#include "gpuperf/model/prediction.hpp"
#include "gpuperf/model/roofline.hpp"
#include "gpuperf/model/round.hpp"
#include "gpuperf/model/round_table.hpp"
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

// How a sweep (Predictor::predict_times) gets its rounds: interpolated between rounds
// computed at fixed DRAM-latency nodes (model/round_table.hpp), or computed for every point
// as predict() does.
enum class SweepRounds { interpolated, exact };

namespace detail {

// What a prediction derives for one GPU before its rounds: descriptors, occupancy, memory
// rates, the loaded DRAM latency, the mode and the rounds of CTAs.
struct Setup {
  std::shared_ptr<const std::vector<InstrDesc>> desc;
  std::shared_ptr<const MemoryRates> rates;
  Occupancy occupancy;
  double warm_fraction = 0;
  double dram_latency = 0;  // at the launch's load, SM cycles
  bool sim = false;
  Waves waves;
};

// The memory rates' inputs: arch table (cache geometry), L1 capacity (carve-out), L2 size and
// the warm-L2 share.
struct RatesKey {
  std::uint64_t tables_id = 0;
  std::string arch;
  int shared_config_kib = 0;
  double l2_bytes = 0, warm_fraction = 0;
  bool operator==(const RatesKey& o) const {
    return tables_id == o.tables_id && arch == o.arch && shared_config_kib == o.shared_config_kib && l2_bytes == o.l2_bytes &&
           warm_fraction == o.warm_fraction;
  }
};

}  // namespace detail

// ---------------------------------------------------------------------------------------
// Predictor: holds a kernel's analysis; predicts for any GPU spec. const methods are safe to
// call from many threads. Cached per Predictor, each under the key of everything it reads:
// descriptors per (table set, arch, ALU scale), memory rates per (table set, arch, carve-out,
// L2 size, warm share), and for sweeps the rounds at DRAM-latency nodes (model/round_table.hpp).
class Predictor {
 public:
  explicit Predictor(std::shared_ptr<const Kernel> k) : an_(std::make_shared<KernelAnalysis>(analyze(std::move(k)))) {}
  explicit Predictor(std::shared_ptr<const KernelAnalysis> an) : an_(std::move(an)) {}

  const KernelAnalysis& analysis() const { return *an_; }

  static DescKey desc_key(const GpuSpec& g) { return DescKey{g.tables->id(), g.arch, g.alu_latency_scale}; }

  std::shared_ptr<const std::vector<InstrDesc>> descriptors(const GpuSpec& g) const {
    DescKey key = desc_key(g);
    {
      std::lock_guard<std::mutex> lock(mu_);
      for (auto& [k, v] : desc_cache_)
        if (k == key) return v;
    }
    const ArchTable& a = g.arch_table();
    const IsaTable& isa = g.tables->isa(a.isa);
    auto v = std::make_shared<std::vector<InstrDesc>>();
    std::map<std::string, InstrDesc> by_opcode;
    for (auto& s : an_->kernel->program) {
      auto f = by_opcode.find(s.opcode);
      if (f == by_opcode.end()) f = by_opcode.emplace(s.opcode, make_descriptor(s.opcode, a, isa, g.alu_latency_scale)).first;
      v->push_back(f->second);
    }
    std::lock_guard<std::mutex> lock(mu_);
    if (desc_cache_.size() >= kSmallCacheEntries) desc_cache_.clear();
    desc_cache_.emplace_back(std::move(key), v);
    return v;
  }

  // Per-PC hit rates and traffic on g (model/memory_model.hpp), cached.
  std::shared_ptr<const MemoryRates> memory_rates(const GpuSpec& g, const Occupancy& o, double warm_fraction) const {
    detail::RatesKey key{g.tables->id(), g.arch, o.shared_config_kib, g.l2_bytes, warm_fraction};
    {
      std::lock_guard<std::mutex> lock(mu_);
      for (auto& [k, v] : rates_cache_)
        if (k == key) return v;
    }
    auto v = std::make_shared<const MemoryRates>(gpuperf::memory_rates(*an_, g, o, warm_fraction));
    std::lock_guard<std::mutex> lock(mu_);
    if (rates_cache_.size() >= kSmallCacheEntries) rates_cache_.clear();
    rates_cache_.emplace_back(std::move(key), v);
    return v;
  }

  KernelReport predict(const GpuSpec& g, const PredictOptions& opt = {}) const;

  // The kernel's predicted time (predict(g, opt).time_us) for each spec, on `jobs` threads
  // (0: every core). SweepRounds::interpolated takes each round from the rounds at the DRAM
  // latencies around the point's (computed once per key and cached, model/round_table.hpp):
  // within the error bench/what_if_error.py measures of predict(), and equal to it where the
  // point's latency is a node. The result does not depend on `jobs` or on the other specs.
  std::vector<double> predict_times(const std::vector<GpuSpec>& gpus, const PredictOptions& opt = {}, unsigned jobs = 1,
                                    SweepRounds rounds = SweepRounds::interpolated) const;

  struct CacheInfo {
    std::size_t round_keys = 0, round_nodes = 0;  // held now (nodes: and rounds at a point's own latency)
    std::size_t rounds_computed = 0;              // since construction
  };
  CacheInfo cache_info() const {
    std::lock_guard<std::mutex> lock(mu_);
    CacheInfo c;
    c.round_keys = rounds_cache_.size();
    for (auto& [k, nodes] : rounds_cache_) c.round_nodes += nodes.size();
    for (auto& [k, own] : own_cache_) c.round_nodes += own.size();
    c.rounds_computed = rounds_computed_;
    return c;
  }
  // Drops every cached value (benchmarks time sweeps from a cold start with it).
  void clear_cache() const {
    std::lock_guard<std::mutex> lock(mu_);
    desc_cache_.clear();
    rates_cache_.clear();
    rounds_cache_.clear();
    own_cache_.clear();
    round_nodes_ = 0;
  }

 private:
  detail::Setup setup(const GpuSpec& g, const PredictOptions& opt, std::shared_ptr<const std::vector<InstrDesc>> desc,
                      std::vector<Warning>& warnings) const;

  static constexpr std::size_t kSmallCacheEntries = 64;      // descriptor and rate sets
  static constexpr std::size_t kRoundNodesCached = 1 << 16;  // rounds at nodes (about 200 B each)

  std::shared_ptr<const KernelAnalysis> an_;
  mutable std::mutex mu_;
  mutable std::vector<std::pair<DescKey, std::shared_ptr<const std::vector<InstrDesc>>>> desc_cache_;
  mutable std::vector<std::pair<detail::RatesKey, std::shared_ptr<const MemoryRates>>> rates_cache_;
  mutable std::map<RoundKey, std::map<int, RoundSummary>> rounds_cache_;
  mutable std::map<RoundKey, std::map<double, RoundSummary>> own_cache_;  // rounds at a point's own DRAM latency
  mutable std::size_t round_nodes_ = 0, rounds_computed_ = 0;
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

namespace detail {

// The kernel's time from its rounds: the rounds on the busiest SM, their throughput overlapped
// with the L2 and DRAM transfers, bounded by the L2's atomic units and the busiest warp's own path.
struct KernelTime {
  Bounds bounds;      // on the kernel's scale
  double sm = 0;      // the busiest SM's rounds, floored
  double cycles = 0;  // the kernel body
  double launch_us = 0, time_us = 0;
};

inline KernelTime kernel_time(const Bounds& round_bounds, double full_cycles, double tail_cycles, const Waves& w, double warps_per_cta,
                              const MemoryStats& ms, const AtomicProfile& atomics, const GpuSpec& g, bool sim, Target target) {
  KernelTime t;
  const double rounds_cycles = sm_cycles(w, full_cycles, tail_cycles);
  const double dram_gbs = g.dram_bandwidth_gbs * g.dram_efficiency;
  t.bounds = kernel_scale(round_bounds, rounds_cycles, full_cycles);
  t.bounds.cta_dispatch = cta_dispatch_cycles(g, w.grid, warps_per_cta);
  t.sm = physical_floor(rounds_cycles, t.bounds);
  t.bounds.sm_rounds = t.sm;
  add_memory_bounds(t.bounds, ms, atomics, g, dram_gbs);
  const double p = sim ? g.overlap_exponent_simulation : g.overlap_exponent_bounds;
  const double throughput = std::max({t.bounds.issue, t.bounds.functional_unit, t.bounds.shared_memory + t.bounds.l1});
  t.bounds.sm_and_memory = bound::sm_and_memory(t.sm, throughput, t.bounds.dram, t.bounds.l2, p);
  t.cycles = std::max({t.bounds.sm_and_memory, t.bounds.atomics, t.bounds.busiest_warp});
  t.launch_us = launch_term(g, target);
  t.time_us = g.cycles_to_us(t.cycles) + t.launch_us;
  return t;
}

// One round of `ctas` CTAs as the kernel's time reads it (run_rounds' full round).
inline RoundSummary summarize_round(const RoundModel& rm, const GpuSpec& g, const Occupancy& o, int ctas, bool sim) {
  StaticStallsScope stalls_once;
  RoundSummary r;
  if (sim) {
    r.cycles = simulate_round(rm, g, ctas).cycles;
    r.bounds = bounds_round(rm, g, o, ctas).bounds;
  } else {
    RoundResult b = bounds_round(rm, g, o, ctas);
    r.cycles = b.cycles;
    r.bounds = std::move(b.bounds);
  }
  return r;
}

}  // namespace detail

inline detail::Setup Predictor::setup(const GpuSpec& g, const PredictOptions& opt, std::shared_ptr<const std::vector<InstrDesc>> desc,
                                      std::vector<Warning>& warnings) const {
  const KernelAnalysis& an = *an_;
  detail::Setup s;
  s.desc = std::move(desc);
  s.occupancy = detail::launch_occupancy(*an.kernel, g, opt, warnings);
  // Memory per PC, with the latency a loaded SM sees.
  s.warm_fraction = opt.warm_l2 || opt.target == Target::back_to_back ? warm_l2_fraction(an, g) : 0;
  s.dram_latency = loaded_dram_latency(g, s.occupancy.active_warps_per_sm);
  s.rates = memory_rates(g, s.occupancy, s.warm_fraction);
  detail::warn_assumed_hit_rates(s.rates->stats, warnings);
  // Rounds of CTAs on the busiest SM, simulated or bounded.
  s.sim = detail::use_simulation(an, opt, warnings);
  s.waves = place_rounds(static_cast<double>(an.kernel->launch.grid.count()), g.sms, s.occupancy.blocks_per_sm);
  return s;
}

inline KernelReport Predictor::predict(const GpuSpec& g, const PredictOptions& opt) const {
  detail::StaticStallsScope stalls_once;  // the rounds below share one static-stall walk
  const KernelAnalysis& an = *an_;
  const Kernel& k = *an.kernel;
  auto desc = descriptors(g);
  KernelReport rep = detail::identify(k, g);
  detail::check_instructions(an, *desc, g, rep);
  const detail::Setup s = setup(g, opt, desc, rep.warnings);
  rep.occupancy = s.occupancy;
  RoundModel rm;
  rm.an = &an;
  rm.desc = desc.get();
  rep.memory = s.rates->stats;
  rep.memory.avg_load_latency = memory_latencies(an, *desc, g, *s.rates, s.dram_latency, rm.latency, &rm.mem);
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
  const detail::KernelTime kt = detail::kernel_time(rounds.full.bounds, rounds.full.cycles, rounds.tail.cycles, w, k.launch.warps_per_cta(), rep.memory, an.atomics, g, sim, opt.target);
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
  // Instructions, IPC, the roofline, stalls per PC and the uncertainty range.
  for (auto& p : an.pcs) { rep.warp_instructions += p.warp_exec; rep.thread_instructions += p.thread_exec; }
  rep.ipc = rep.cycles > 0 ? rep.warp_instructions / (rep.cycles * std::min<double>(g.sms, w.grid)) : 0;
  rep.roofline = roofline(an, *desc, rep.memory, g, dram_gbs, rep.time_us);
  detail::attribute_stalls(rm, rounds, w, g, opt.per_pc, rep);
  detail::time_range(k, an, g, sm, dram_gbs, rep);
  apply_calibrated_interval(g, rep);
  return rep;
}

inline std::vector<double> Predictor::predict_times(const std::vector<GpuSpec>& gpus, const PredictOptions& opt, unsigned jobs,
                                                    SweepRounds how) const {
  std::vector<double> out(gpus.size());
  if (how == SweepRounds::exact) {
    PredictOptions o = opt;
    o.per_pc = false;
    parallel_for(gpus.size(), jobs, [&](std::size_t i) { out[i] = predict(gpus[i], o).time_us; });
    return out;
  }
  const KernelAnalysis& an = *an_;
  // A point: its setup and, per round (full, tail), its key's index; its DRAM latency's node.
  struct Point {
    detail::Setup s;
    int full = -1, tail = -1, node = 0;
    bool exact = false;  // a DRAM latency no node brackets (not finite, or not above 0)
  };
  // What memory_latencies reads of a point besides D (the descriptors and rates by identity:
  // equal pointers are equal values while the points hold them), and what else the round
  // reads of it apart from its CTAs: points equal in these share a key's latency vectors.
  using Signature = std::tuple<const std::vector<InstrDesc>*, const MemoryRates*, double, double, double, bool, int>;
  struct Need {
    int key = 0, node = 0;
    std::size_t point = 0;  // a point of this key: its GPU gives the latencies at the node
  };
  constexpr std::size_t kBlock = 8192;  // points whose setups are held at once
  for (std::size_t b0 = 0; b0 < gpus.size(); b0 += kBlock) {
    const std::size_t n = std::min(kBlock, gpus.size() - b0);
    std::vector<Point> pts(n);
    parallel_for(n, jobs, [&](std::size_t i) {
      const GpuSpec& g = gpus[b0 + i];
      std::vector<Warning> ignored;
      Point& p = pts[i];
      p.s = setup(g, opt, descriptors(g), ignored);
      p.exact = !(p.s.dram_latency > 0 && std::isfinite(p.s.dram_latency));
      if (p.exact) {
        PredictOptions o = opt;
        o.per_pc = false;
        out[b0 + i] = predict(g, o).time_us;
        return;
      }
      p.node = round_node_below(p.s.dram_latency);
    });
    // Index the keys of the full and tail rounds; list the nodes around each point.
    std::map<Signature, std::size_t> base_of;   // signature -> its point-free key (no CTAs)
    std::vector<RoundKey> bases;
    std::map<std::pair<std::size_t, int>, int> key_of;  // (base, CTAs) -> key
    std::vector<RoundKey> keys;
    std::vector<Need> needed;
    auto index = [&](std::size_t base, int ctas, std::size_t i) {
      auto [it, added] = key_of.emplace(std::make_pair(base, ctas), static_cast<int>(keys.size()));
      if (added) {
        keys.push_back(bases[base]);
        keys.back().ctas = ctas;
        keys.back().seal();
      }
      for (int d = -1; d <= 2; ++d) needed.push_back({it->second, pts[i].node + d, i});
      return it->second;
    };
    for (std::size_t i = 0; i < n; ++i) {
      Point& p = pts[i];
      if (p.exact) continue;
      const GpuSpec& g = gpus[b0 + i];
      const Signature sig{p.s.desc.get(), p.s.rates.get(), g.l1_hit_latency, g.l2_hit_latency, g.shared_latency, p.s.sim, p.s.occupancy.warps_per_block};
      auto [it, added] = base_of.emplace(sig, bases.size());
      if (added) {
        RoundKey k;
        k.desc = desc_key(g);
        k.simulation = p.s.sim;
        k.warps_per_block = p.s.occupancy.warps_per_block;
        memory_latencies(an, *p.s.desc, g, *p.s.rates, 0.0, k.latency_at_0);
        memory_latencies(an, *p.s.desc, g, *p.s.rates, 1.0, k.latency_at_1);
        bases.push_back(std::move(k));
      }
      p.full = index(it->second, p.s.waves.round_ctas(), i);
      if (p.s.waves.has_tail()) p.tail = index(it->second, static_cast<int>(p.s.waves.tail), i);
    }
    std::sort(needed.begin(), needed.end(), [](const Need& x, const Need& y) { return std::tie(x.key, x.node, x.point) < std::tie(y.key, y.node, y.point); });
    needed.erase(std::unique(needed.begin(), needed.end(), [](const Need& x, const Need& y) { return x.key == y.key && x.node == y.node; }), needed.end());
    // The nodes: from the cache, or computed (outside the lock, on `jobs` threads).
    std::map<std::pair<int, int>, RoundSummary> nodes;
    std::vector<Need> todo;
    {
      std::lock_guard<std::mutex> lock(mu_);
      for (const Need& nd : needed) {
        auto c = rounds_cache_.find(keys[static_cast<std::size_t>(nd.key)]);
        if (c != rounds_cache_.end()) {
          auto f = c->second.find(nd.node);
          if (f != c->second.end()) { nodes.emplace(std::make_pair(nd.key, nd.node), f->second); continue; }
        }
        todo.push_back(nd);
      }
    }
    std::vector<RoundSummary> computed(todo.size());
    parallel_for(todo.size(), jobs, [&](std::size_t t) {
      const Need& nd = todo[t];
      const Point& p = pts[nd.point];
      const GpuSpec& g = gpus[b0 + nd.point];
      RoundModel rm;
      rm.an = &an;
      rm.desc = p.s.desc.get();
      memory_latencies(an, *p.s.desc, g, *p.s.rates, round_node_latency(nd.node), rm.latency);
      computed[t] = detail::summarize_round(rm, g, p.s.occupancy, keys[static_cast<std::size_t>(nd.key)].ctas, p.s.sim);
    });
    {
      std::lock_guard<std::mutex> lock(mu_);
      if (round_nodes_ + todo.size() > kRoundNodesCached) { rounds_cache_.clear(); own_cache_.clear(); round_nodes_ = 0; }
      for (std::size_t t = 0; t < todo.size(); ++t) {
        nodes.emplace(std::make_pair(todo[t].key, todo[t].node), computed[t]);
        if (rounds_cache_[keys[static_cast<std::size_t>(todo[t].key)]].emplace(todo[t].node, computed[t]).second) ++round_nodes_;
      }
      rounds_computed_ += todo.size();
    }
    // Each point: its rounds interpolated in D between the two nodes around it, unless the
    // kernel's time at the four nodes around it is not on a smooth curve (simulated rounds
    // jitter with the scheduling); those points get their own rounds, as predict() computes
    // them (kept for later sweeps).
    // Own rounds: one per (key, DRAM latency), e.g. once for a whole bandwidth sweep.
    std::map<std::pair<int, double>, std::size_t> own_index;
    std::vector<std::size_t> own_point;  // the first point of each own round
    std::vector<int> own_key;
    std::vector<std::array<int, 2>> own_of(n, {-1, -1});  // a point's own full and tail rounds
    for (std::size_t i = 0; i < n; ++i) {
      const Point& p = pts[i];
      if (p.exact) continue;
      // The kernel's time at the four nodes around the point (all else the point's).
      double at[4];
      for (int d = -1; d <= 2; ++d) {
        const RoundSummary& f = nodes.at({p.full, p.node + d});
        const double tail = p.tail >= 0 ? nodes.at({p.tail, p.node + d}).cycles : 0;
        at[d + 1] = detail::kernel_time(f.bounds, f.cycles, tail, p.s.waves, an.kernel->launch.warps_per_cta(), p.s.rates->stats, an.atomics, gpus[b0 + i], p.s.sim, opt.target).time_us;
      }
      if (nodes_smooth(at[0], at[1], at[2], at[3])) continue;
      for (int r = 0; r < 2; ++r) {
        const int key = r == 0 ? p.full : p.tail;
        if (key < 0) continue;
        auto [it, added] = own_index.emplace(std::make_pair(key, p.s.dram_latency), own_point.size());
        if (added) { own_point.push_back(i); own_key.push_back(key); }
        own_of[i][static_cast<std::size_t>(r)] = static_cast<int>(it->second);
      }
    }
    std::vector<RoundSummary> own(own_point.size());
    std::vector<std::size_t> own_todo;
    {
      std::lock_guard<std::mutex> lock(mu_);
      for (std::size_t t = 0; t < own.size(); ++t) {
        auto c = own_cache_.find(keys[static_cast<std::size_t>(own_key[t])]);
        auto f = c == own_cache_.end() ? decltype(c->second.end()){} : c->second.find(pts[own_point[t]].s.dram_latency);
        if (c != own_cache_.end() && f != c->second.end()) own[t] = f->second;
        else own_todo.push_back(t);
      }
    }
    parallel_for(own_todo.size(), jobs, [&](std::size_t u) {
      const std::size_t t = own_todo[u];
      const Point& p = pts[own_point[t]];
      const GpuSpec& g = gpus[b0 + own_point[t]];
      RoundModel rm;
      rm.an = &an;
      rm.desc = p.s.desc.get();
      memory_latencies(an, *p.s.desc, g, *p.s.rates, p.s.dram_latency, rm.latency);
      own[t] = detail::summarize_round(rm, g, p.s.occupancy, keys[static_cast<std::size_t>(own_key[t])].ctas, p.s.sim);
    });
    {
      std::lock_guard<std::mutex> lock(mu_);
      if (round_nodes_ + own_todo.size() > kRoundNodesCached) { rounds_cache_.clear(); own_cache_.clear(); round_nodes_ = 0; }
      for (std::size_t t : own_todo)
        if (own_cache_[keys[static_cast<std::size_t>(own_key[t])]].emplace(pts[own_point[t]].s.dram_latency, own[t]).second) ++round_nodes_;
      rounds_computed_ += own_todo.size();
    }
    parallel_for(n, jobs, [&](std::size_t i) {
      const Point& p = pts[i];
      if (p.exact) return;
      RoundSummary full;
      double tail_cycles = 0;
      if (own_of[i][0] >= 0) {
        full = own[static_cast<std::size_t>(own_of[i][0])];
        tail_cycles = own_of[i][1] >= 0 ? own[static_cast<std::size_t>(own_of[i][1])].cycles : 0;
      } else {
        const double d0 = round_node_latency(p.node), d1 = round_node_latency(p.node + 1);
        const double t = (p.s.dram_latency - d0) / (d1 - d0);
        auto round = [&](int key) { return interpolate(nodes.at({key, p.node}), nodes.at({key, p.node + 1}), t); };
        full = round(p.full);
        if (p.tail >= 0) tail_cycles = round(p.tail).cycles;
      }
      out[b0 + i] = detail::kernel_time(full.bounds, full.cycles, tail_cycles, p.s.waves, an.kernel->launch.warps_per_cta(), p.s.rates->stats, an.atomics, gpus[b0 + i], p.s.sim,
                                        opt.target).time_us;
    });
  }
  return out;
}

}  // namespace gpuperf
