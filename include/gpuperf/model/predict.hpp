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
#include "gpuperf/model/bounds.hpp"
#include "gpuperf/model/bounds_round.hpp"
#include "gpuperf/model/memory.hpp"
#include "gpuperf/model/memory_model.hpp"
#include "gpuperf/model/occupancy.hpp"
#include "gpuperf/model/prediction.hpp"
#include "gpuperf/model/round.hpp"
#include "gpuperf/model/simulate.hpp"
#include "gpuperf/model/stalls.hpp"

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
