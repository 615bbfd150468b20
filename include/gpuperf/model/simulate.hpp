// Simulation mode: one SM, `ctas` resident CTAs replayed from the trace. The SM's units are
// small types: each warp's Scoreboard, the UnitTimers of every class, the MioQueue, the
// CtaBarriers; SmSimulator's scheduler picks the earliest issue over all sub-partitions.
#pragma once

#include <algorithm>
#include <cstdint>
#include <functional>
#include <limits>
#include <map>
#include <optional>
#include <queue>
#include <string>
#include <vector>

#include "gpuperf/arch/gpu_spec.hpp"
#include "gpuperf/model/assumptions.hpp"
#include "gpuperf/model/bounds.hpp"
#include "gpuperf/model/memory.hpp"
#include "gpuperf/model/round.hpp"
#include "gpuperf/model/sampled_ctas.hpp"
#include "gpuperf/model/waves.hpp"

namespace gpuperf {

namespace sim {

// A warp's registers: when each value is ready, and whether a memory access produces it.
// Slots: 4 register kinds x 256 indices.
class Scoreboard {
 public:
  static std::size_t slot(std::uint16_t r) {
    unsigned kind = r >> 14, idx = r & 0x3fff;
    if (idx > 255) idx = 255;
    return kind * 256 + idx;
  }
  // Raises `t` to when all registers at `slots` are ready; `mem`: the latest is a memory result.
  void wait(const std::uint16_t* slots, unsigned n, double& t, bool& mem) const {
    for (unsigned i = 0; i < n; ++i)
      if (ready_[slots[i]] > t) { t = ready_[slots[i]]; mem = from_memory_[slots[i]]; }
  }
  // Marks the registers at `slots` ready at `t`, from memory or not.
  void write(const std::uint16_t* slots, unsigned n, double t, bool mem) {
    for (unsigned i = 0; i < n; ++i) {
      ready_[slots[i]] = static_cast<float>(t);
      from_memory_[slots[i]] = mem;
    }
  }

 private:
  std::vector<float> ready_ = std::vector<float>(1024, 0.f);
  std::vector<std::uint8_t> from_memory_ = std::vector<std::uint8_t>(1024, 0);
};

struct Warp {
  std::uint64_t pos = 0, end = 0;  // next and end dynamic instruction
  double ready = 0;                // earliest next issue (previous issue + spacing)
  double last_completion = 0;
  int smsp = 0, cta = 0;
  bool done = false, at_barrier = false;
  double barrier_arrival = 0;
  Scoreboard registers;
  // Readiness of the next instruction, cached: registers change only when this warp issues.
  double dep = 0;
  bool dep_mem = false, dep_valid = false;
};

// When each class's unit accepts the next instruction: one unit per sub-partition, or one for
// the whole SM (sm_scope classes).
class UnitTimers {
 public:
  UnitTimers(const std::vector<InstrDesc>& desc, int sub_partitions) {
    std::map<std::string, int> class_id;
    for (auto& d : desc) class_id.emplace(d.op_class, static_cast<int>(class_id.size()));
    cls_of_.resize(desc.size());
    for (std::size_t i = 0; i < desc.size(); ++i) cls_of_[i] = static_cast<std::size_t>(class_id[desc[i].op_class]);
    sp_free_.assign(static_cast<std::size_t>(sub_partitions), std::vector<double>(class_id.size(), 0));
    sm_free_.assign(class_id.size(), 0);
  }
  // The unit class of static instruction `si`, and that class's timer on sub-partition `sp`
  // (or the SM's, for an sm_scope class).
  std::size_t class_of(std::uint32_t si) const { return cls_of_[si]; }
  double& free_at(bool sm_scope, std::size_t cls, std::size_t sp) { return sm_scope ? sm_free_[cls] : sp_free_[sp][cls]; }

 private:
  std::vector<std::size_t> cls_of_;
  std::vector<std::vector<double>> sp_free_;
  std::vector<double> sm_free_;
};

// The SM's L1/shared pipeline: `rate` wavefronts per cycle, first come first served.
struct MioQueue {
  double rate = 1;
  double free = 0;  // when the last queued wavefront leaves
  // Start of an access of `wavefronts` offered at `t`.
  double enqueue(double t, double wavefronts) {
    double start = std::max(t, free);
    free = start + wavefronts / rate;
    return start;
  }
};

// Per CTA: warps still running and warps waiting at the barrier. The barrier counts its
// arrivals one at a time, `per_arrival` cycles each, and releases `latency` after the last is
// counted (calibrate/microbench.cu bar_chain: 14 cycles for one warp, 28 for 8, 76 for 32).
// Each release also takes the SM's MIO pipe for `release_mio` cycles: many small CTAs, each
// passing its own barriers, run a shared-memory tree slower than a few large ones with the same
// warps and instructions (calibrate/shared_burst_probe.cu, H200: 16 CTAs of 2 warps 145 cycles
// a level, 4 CTAs of 8 warps 116).
struct CtaBarriers {
  std::vector<int> live, arrived;
  std::vector<double> counted;  // when the last arrival so far is counted
  double latency = 0, per_arrival = 0, release_mio = 0;
  bool complete(int c) const { return arrived[static_cast<std::size_t>(c)] >= live[static_cast<std::size_t>(c)]; }
  void arrive(int c, double t) {
    const auto i = static_cast<std::size_t>(c);
    counted[i] = arrived[i] == 0 ? t : std::max(t, counted[i] + per_arrival);
    ++arrived[i];
  }
};

// The SM's loads that wait on DRAM, until each completes, each weighed in lines of the
// loaded-latency curve (dram_line_latency_vs_warps_per_sm: W warps each waiting on one line).
class DramWaits {
 public:
  void expire(double t) {
    while (!q_.empty() && q_.top().first <= t) { lines_ -= q_.top().second; q_.pop(); }
    if (q_.empty()) lines_ = 0;  // no drift from the sums
  }
  void add(double done, double lines) { q_.push({done, lines}); lines_ += lines; }
  double lines() const { return std::max(0.0, lines_); }

 private:
  std::priority_queue<std::pair<double, double>, std::vector<std::pair<double, double>>, std::greater<>> q_;  // (completes at, lines)
  double lines_ = 0;
};

class SmSimulator {
  // What the scheduler reads of each static instruction, in one small record (StaticInstr and
  // InstrDesc are large: reading them for every issue missed the cache), and the register
  // slots its records index.
  struct Op {
    std::uint32_t src = 0, dst = 0;  // first slot in slots_
    std::uint16_t nsrc = 0, ndst = 0;
    bool memory = false, shared = false, barrier = false, exit = false, sm_scope = false, controlled = false;
    bool queued = false;  // handed to the MIO queue: the warp issues on, its result waits for the unit
    double constant_unit_cycles = 0;  // a global load beside indexed constant loads: its time on their unit
    std::size_t unit = 0;  // UnitTimers class
    double issue_interval = 1, latency = 0, spacing = 1;
    double idle_latency = 0;  // the result latency with the DRAM idle (RoundModel::idle_latency)
    double l1_hit = 0;  // a global load's L1 sector hit rate (a load whose lines share bank passes costs less where they all hit)
    double pipe_wavefronts = 0;  // a shuffle's passes of the shared-memory pipe (InstrDesc::shared_pipe_wavefronts)
    double word_latency = 0;     // a constant load: what each distinct word past its first adds to its result
  };

 public:
  // busiest_round: the round holds a sampled trace's busiest CTA (CtaSample) beside typical ones.
  // total_ctas (at least ctas): CTAs streamed through the `ctas` slots, the next one starting in
  // a slot as soon as the CTA before it there has finished, as the GPU's CTA scheduler does.
  SmSimulator(const RoundModel& rm, const GpuSpec& g, int ctas, bool busiest_round = false, int total_ctas = 0)
      : an_(*rm.an), k_(*an_.kernel), desc_(*rm.desc), rm_(rm), S_(std::max(1, g.arch_table().sub_partitions)),
        ctrl_(k_.has_control_bits()), units_(desc_, S_) {
    const ArchTable& a = g.arch_table();
    r_.pc_stalls.assign(k_.program.size(), StallBreakdown{});
    ops_.resize(k_.program.size());
    // Each word past a constant load's first delays its result (measured on sm_90), else by the unit's interval.
    const double constant_word_latency = a.mem("const_pass_latency_cycles");
    // Beside indexed constant loads every global load takes their unit a while too.
    if (const auto c = an_.indexed_constant_load) {
      constant_unit_ = units_.class_of(static_cast<std::uint32_t>(*c));
      constant_unit_sm_scope_ = desc_[*c].sm_scope;
    }
    const double constant_unit_per_load = constant_unit_ ? a.mem("const_unit_global_load_cycles") : 0.0;
    for (std::uint32_t i = 0; i < ops_.size(); ++i) {
      const StaticInstr& s = k_.program[i];
      const InstrDesc& d = desc_[i];
      Op& op = ops_[i];
      op.src = static_cast<std::uint32_t>(slots_.size());
      for (auto r : s.src) slots_.push_back(static_cast<std::uint16_t>(Scoreboard::slot(r)));
      op.nsrc = static_cast<std::uint16_t>(s.src.size());
      op.dst = static_cast<std::uint32_t>(slots_.size());
      for (auto r : s.dst) slots_.push_back(static_cast<std::uint16_t>(Scoreboard::slot(r)));
      op.ndst = static_cast<std::uint16_t>(s.dst.size());
      op.memory = s.space != MemSpace::none && s.space != MemSpace::constant;
      op.shared = s.space == MemSpace::shared;
      op.barrier = d.is_barrier;
      op.exit = d.is_exit;
      op.sm_scope = d.sm_scope;
      op.queued = s.space == MemSpace::constant;
      if (s.mem_op == MemOp::load && l1_line_space(s.space)) op.constant_unit_cycles = constant_unit_per_load;
      op.unit = units_.class_of(i);
      op.issue_interval = d.issue_interval;
      op.latency = rm_.latency[i];
      op.idle_latency = i < rm_.idle_latency.size() ? std::min(op.latency, rm_.idle_latency[i]) : op.latency;
      if (i < rm_.mem.size() && s.mem_op == MemOp::load) op.l1_hit = rm_.mem[i].h1;
      op.pipe_wavefronts = op.memory ? 0.0 : d.shared_pipe_wavefronts;
      if (op.queued) op.word_latency = constant_word_latency > 0 ? constant_word_latency : d.issue_interval;
      op.controlled = ctrl_ && s.control.valid;
      if (op.controlled) op.spacing = std::max(1.0, double(s.control.stall));
    }
    busiest_round_ = busiest_round;
    slot_turnaround_ = slot_turnaround_cycles(g, k_.launch.warps_per_cta());
    total_ctas_ = std::max(ctas, total_ctas);
    place_warps(ctas);
    // DRAM latency grows with the lines the SM waits on (the arch's curve over warps per SM that
    // each wait on one; loaded_latency()). rm.latency holds the excess at the launch's resident
    // warps per SM, which a round of fewer CTAs (a small grid, a tail) does not reach.
    // Read from rm alone (its key in a sweep), not g's clock.
    if (g.dram_latency_vs_warps && !rm_.idle_latency.empty() && rm_.dram_latency > rm_.idle_dram_latency) {
      dram_curve_ = &*g.dram_latency_vs_warps;
      excess_full_ = bound::loaded_latency_excess(*dram_curve_, static_cast<double>(rm_.loaded_warps_per_sm));
      excess_full_cycles_ = rm_.dram_latency - rm_.idle_dram_latency;
      dram_idle_ = rm_.idle_dram_latency;
    }
    smsp_free_.assign(static_cast<std::size_t>(S_), 0);
    mio_.rate = a.mem("l1_wavefronts_per_cycle");
    l1_costs_ = l1_request_costs(a);
    bar_.latency = a.classes.count("barrier") && a.classes.at("barrier").present && !a.classes.at("barrier").unsupported
                       ? a.classes.at("barrier").latency.value : assume::default_barrier_cycles;
    bar_.per_arrival = a.mem("barrier_arrival_cycles");
    bar_.release_mio = a.mem("barrier_release_mio_cycles");
  }

  // `first_round`: also the result of the round's CTAs alone (no CTA started after the first
  // ones), made on the way. The two runs are one until the first CTA exits: there a copy of
  // this simulator, with no further CTAs to start, runs on to the round's end.
  RoundResult run(RoundResult* first_round = nullptr) {
    std::size_t guard = 0;
    bool forked = false;
    while (true) {
      if (pending_starts_ != started_ctas_) {
        if (first_round && !forked) {
          forked = true;
          SmSimulator alone(*this);
          alone.total_ctas_ = alone.pending_starts_ = alone.started_ctas_;
          alone.start_at_.resize(static_cast<std::size_t>(alone.started_ctas_));
          *first_round = alone.run();
        }
        start_pending();
      }
      if (live_ == 0) break;
      Pick p = pick();
      if (p.warp < 0) {
        if (!release_stuck()) break;
        continue;
      }
      if (++guard > 2000000000ull) break;
      issue(p);
    }
    r_.cycles = end_time_;
    r_.warp_instructions = instrs_;
    double lives = 0;
    for (std::size_t c = 0; c < cta_start_.size(); ++c) lives += cta_end_[c] - cta_start_[c];
    r_.mean_cta_life = cta_start_.empty() ? 0 : lives / static_cast<double>(cta_start_.size());
    if (first_round && !forked) *first_round = r_;  // no CTA ever exited to make room
    return r_;
  }

 private:
  struct Pick {
    int warp = -1;
    double t = std::numeric_limits<double>::infinity();
    double dep = 0, unit = 0;  // when its registers, then its unit, were ready
    bool dep_mem = false;
  };

  // Warps the tracer saw, CTA by CTA (replayed when the trace holds fewer CTAs than resident;
  // a sampled trace's typical CTAs, detail::round_cta), dealt round-robin to the
  // sub-partitions. A CTA with fewer traced warps than its launch still issues only those
  // (sampled traces record whole CTAs). Room is made for every streamed CTA's warps at once:
  // a CTA starts from inside issue(), which holds a reference to a warp.
  void place_warps(int ctas) {
    std::size_t most_warps = 0;
    for (const auto& cta : an_.ctas) most_warps = std::max(most_warps, cta.size());
    warps_.reserve(static_cast<std::size_t>(total_ctas_) * most_warps);
    not_before_.reserve(warps_.capacity());
    by_sp_.assign(static_cast<std::size_t>(S_), {});
    while (pending_starts_ < ctas) queue_start(0);
    start_pending();  // an empty CTA's slot is taken at once
  }

  // A CTA to start at `t` once the current issue is done (start_pending): starting it inside
  // issue() would change the warp list under the warp being issued.
  void queue_start(double t) {
    start_at_.push_back(t);
    ++pending_starts_;
  }
  void start_pending() {
    while (started_ctas_ < pending_starts_) start_cta(start_at_[static_cast<std::size_t>(started_ctas_)]);
  }

  // The next CTA starts at `t`: its warps join the sub-partitions' lists.
  void start_cta(double t) {
    const int c = started_ctas_++;
    const auto& cta = an_.ctas[detail::round_cta(an_, c, busiest_round_)];
    bar_.live.push_back(0);
    bar_.arrived.push_back(0);
    bar_.counted.push_back(0);
    cta_start_.push_back(t);
    cta_end_.push_back(t);
    const std::size_t first = warps_.size();
    for (auto w : cta) {
      Warp sw;
      sw.pos = k_.warps[w].begin;
      sw.end = k_.warps[w].end;
      sw.smsp = next_smsp_++ % S_;
      sw.cta = c;
      sw.ready = t;
      warps_.push_back(std::move(sw));
      not_before_.push_back(-std::numeric_limits<double>::infinity());
      by_sp_[static_cast<std::size_t>(warps_.back().smsp)].push_back(static_cast<int>(warps_.size() - 1));
      bar_.live.back()++;
      ++live_;
    }
    for (std::size_t i = first; i < warps_.size(); ++i)
      if (warps_[i].pos >= warps_[i].end) finish_warp(warps_[i], t);  // a warp with no instructions (issue() finishes the others)
  }

  // The scheduler: the earliest issue among all sub-partitions' ready warps (the first such
  // warp in sub-partition, then list order). A sub-partition whose issue slot is not free
  // before the best time, and a warp that is done, at a barrier, or whose operands come too
  // late (not_before_), cannot win and are passed over without touching the warp.
  Pick pick() {
    Pick best;
    for (int sp = 0; sp < S_; ++sp) {
      if (smsp_free_[static_cast<std::size_t>(sp)] >= best.t) continue;
      for (int wi : by_sp_[static_cast<std::size_t>(sp)]) {
        if (not_before_[static_cast<std::size_t>(wi)] >= best.t) continue;
        auto& w = warps_[static_cast<std::size_t>(wi)];
        const Op& op = ops_[k_.dyn[w.pos].static_index];
        if (!w.dep_valid) {
          w.dep = w.ready;
          w.dep_mem = false;
          w.registers.wait(slots_.data() + op.src, op.nsrc, w.dep, w.dep_mem);
          w.dep_valid = true;
          not_before_[static_cast<std::size_t>(wi)] = w.dep;
        }
        if (w.dep >= best.t) continue;  // cannot beat the best candidate
        double unit = op.queued ? w.dep : std::max(w.dep, units_.free_at(op.sm_scope, op.unit, static_cast<std::size_t>(sp)));
        double t = std::max(unit, smsp_free_[static_cast<std::size_t>(sp)]);
        if (t < best.t) best = Pick{wi, t, w.dep, unit, w.dep_mem};
      }
    }
    return best;
  }

  // Everyone left waits at a barrier whose CTA cannot complete (a malformed trace): release.
  bool release_stuck() {
    bool any = false;
    for (std::size_t c = 0; c < bar_.arrived.size(); ++c)
      if (bar_.arrived[c] > 0) { release_barrier(static_cast<int>(c), end_time_); any = true; }
    return any;
  }

  void issue(const Pick& p) {
    auto& w = warps_[static_cast<std::size_t>(p.warp)];
    const auto& d = k_.dyn[w.pos];
    const std::uint32_t si = d.static_index;
    const Op& op = ops_[si];
    const double t = p.t;
    auto& st = r_.pc_stalls[si];
    double dep_wait = p.dep - w.ready;
    if (dep_wait > 0) { if (p.dep_mem) st.memory += dep_wait; else st.dependency += dep_wait; }
    st.pipe += p.unit - p.dep;
    st.not_selected += t - p.unit;
    const auto sp = static_cast<std::size_t>(w.smsp);
    smsp_free_[sp] = t + 1;
    // A queued instruction (LDC) starts when its unit is free; the warp does not wait for that.
    double& unit_free = units_.free_at(op.sm_scope, op.unit, sp);
    const double start = op.queued ? std::max(t, unit_free) : t;
    // An indexed constant load takes the unit once per distinct word its lanes read (each a hit's
    // interval: calibrate/microbench.cu thr_const); its value comes op.word_latency later a word
    // past the first (calibrate/const_index_probe.cu: 11 cycles on the H200, though the unit is
    // free again after 2).
    const double passes = op.queued && !an_.dyn_wavefronts.empty() ? std::max<double>(1, an_.dyn_wavefronts[w.pos]) : 1.0;
    unit_free = start + op.issue_interval * passes;
    if (op.constant_unit_cycles > 0 && d.active_mask) {
      double& constant_free = units_.free_at(constant_unit_sm_scope_, *constant_unit_, sp);
      constant_free = std::max(constant_free, t) + op.constant_unit_cycles;
    }
    double dram_lines = 0;
    const double latency = loaded_latency(op, t, dram_lines);
    double completion = start + latency + (op.queued ? op.word_latency * (passes - 1) : 0.0);
    const bool is_mem = op.memory;
    // A shared access with every lane off still passes the data pipe (the profile gave it its wavefront).
    if (is_mem && (d.active_mask || op.shared)) {
      double wf = an_.dyn_wavefronts.empty() ? 1 : std::max<double>(1, an_.dyn_wavefronts[w.pos]);
      if (!an_.dyn_bank_passes.empty() && an_.dyn_bank_passes[w.pos])
        wf = global_load_wavefronts(wf, an_.dyn_bank_passes[w.pos], op.l1_hit, l1_costs_.hit_lines_per_wavefront, l1_costs_.miss_lines_per_wavefront);
      if (!an_.dyn_partial_sectors.empty()) wf = global_l1_wavefronts(wf, an_.dyn_partial_sectors[w.pos], l1_costs_.partial_sector_wavefronts);
      st.mio += mio_.enqueue(t, wf) - t;
      completion = mio_.free + latency;
      if (dram_lines > 0) dram_waits_.add(completion, dram_lines);
    } else if (op.pipe_wavefronts > 0 && d.active_mask) {  // a shuffle queues for the same pipe
      st.mio += mio_.enqueue(t, op.pipe_wavefronts) - t;
      completion = mio_.free + latency;
    }
    w.registers.write(slots_.data() + op.dst, op.ndst, completion, is_mem);
    w.last_completion = std::max(w.last_completion, completion);
    if (op.controlled) st.control += op.spacing - 1;
    w.ready = t + op.spacing;
    w.dep_valid = false;
    not_before_[static_cast<std::size_t>(p.warp)] = -std::numeric_limits<double>::infinity();
    ++w.pos;
    ++instrs_;
    end_time_ = std::max(end_time_, t + 1);
    synchronize(w, d, op, t);
  }

  // After an issue: arrival at a CTA barrier, or the warp's exit.
  void synchronize(Warp& w, const DynInstr& d, const Op& op, double t) {
    if (op.barrier && d.active_mask) {
      w.at_barrier = true;
      not_before_[index_of(w)] = std::numeric_limits<double>::infinity();
      w.barrier_arrival = t;
      bar_.arrive(w.cta, t);
      if (bar_.complete(w.cta)) release_barrier(w.cta, t);
    }
    if ((op.exit && d.active_mask == 0xffffffffu) || w.pos >= w.end) {
      if (w.at_barrier) { w.at_barrier = false; bar_.arrived[static_cast<std::size_t>(w.cta)]--; }
      finish_warp(w, t + 1);
      if (bar_.arrived[static_cast<std::size_t>(w.cta)] > 0 && bar_.complete(w.cta)) release_barrier(w.cta, t);
    }
  }

  // A load's latency: of the DRAM wait the PC's latency holds for the launch's resident warps,
  // what the lines the SM waits on now load it with (this load's own among them; a warp with
  // several loads in flight loads it as several warps of the curve's one each, and a round of
  // fewer warps than the launch holds, a small grid's, as the lines it keeps). A warp's loads
  // that miss while others hit (a stencil's halo) or while it computes load DRAM less than a
  // warp that only chases lines: per-warp counts gave them the latency of that chase (train
  // part: stencil1d and b+tree 1.3x slow). dram_lines: this load's weight in lines.
  double loaded_latency(const Op& op, double t, double& dram_lines) {
    const double excess = op.latency - op.idle_latency;
    if (excess <= 0 || excess_full_ <= 0) return op.latency;
    dram_waits_.expire(t);
    // Its chance of a DRAM miss, held for the miss's latency of the whole wait (Little's law).
    dram_lines = std::min(1.0, excess / excess_full_cycles_ * (dram_idle_ + excess_full_cycles_) / op.latency);
    const double lines = dram_waits_.lines() + dram_lines;
    return op.idle_latency + excess * std::min(1.0, bound::loaded_latency_excess(*dram_curve_, lines) / excess_full_);
  }

  void finish_warp(Warp& w, double t) {
    if (w.done) return;
    w.done = true;
    not_before_[index_of(w)] = std::numeric_limits<double>::infinity();
    --live_;
    end_time_ = std::max({end_time_, t, w.last_completion});
    // The slot frees when the CTA's last warp exits; the next streamed CTA takes it.
    if (--bar_.live[static_cast<std::size_t>(w.cta)] == 0) {
      cta_end_[static_cast<std::size_t>(w.cta)] = t;
      if (pending_starts_ < total_ctas_) queue_start(t + slot_turnaround_);
    }
  }

  void release_barrier(int c, double t) {
    const double last_counted = std::max(t, bar_.counted[static_cast<std::size_t>(c)]);
    const double rel = last_counted + bar_.latency;
    if (bar_.release_mio > 0) mio_.enqueue(last_counted, bar_.release_mio * mio_.rate);
    for (auto& w : warps_)
      if (w.cta == c && w.at_barrier) {
        w.at_barrier = false;
        not_before_[index_of(w)] = -std::numeric_limits<double>::infinity();
        r_.pc_stalls[k_.dyn[w.pos - 1].static_index].barrier += rel - w.barrier_arrival;
        w.ready = std::max(w.ready, rel);
        w.dep_valid = false;
      }
    bar_.arrived[static_cast<std::size_t>(c)] = 0;
  }

  const KernelAnalysis& an_;
  const Kernel& k_;
  const std::vector<InstrDesc>& desc_;
  const RoundModel& rm_;
  const int S_;
  const bool ctrl_;
  std::vector<Warp> warps_;
  std::vector<std::vector<int>> by_sp_;  // warps of each sub-partition
  std::vector<double> smsp_free_;        // each sub-partition issues one instruction per cycle
  std::vector<Op> ops_;
  std::vector<std::uint16_t> slots_;
  // Per warp, the earliest it could issue as far as known: its operands' time, +inf when done
  // or at a barrier, -inf when to be worked out (after it issues or a barrier releases it).
  std::vector<double> not_before_;
  std::size_t index_of(const Warp& w) const { return static_cast<std::size_t>(&w - warps_.data()); }
  UnitTimers units_;
  MioQueue mio_;
  std::optional<std::size_t> constant_unit_;  // the UnitTimers class of the indexed constant loads, where there are any
  bool constant_unit_sm_scope_ = false;
  L1RequestCosts l1_costs_;
  CtaBarriers bar_;
  bool busiest_round_ = false;
  int total_ctas_ = 0, started_ctas_ = 0, next_smsp_ = 0;
  int pending_starts_ = 0;          // CTAs given a start time, started or not (start_at_)
  std::vector<double> start_at_;    // per CTA given one, its start time
  double slot_turnaround_ = 0;  // from a CTA's exit to the next one's start in its slot
  std::vector<double> cta_start_, cta_end_;  // per started CTA: when it started, when its last warp exited
  std::size_t live_ = 0;
  const Curve* dram_curve_ = nullptr;         // DRAM latency over warps per SM (none: the loaded latency throughout)
  double excess_full_ = 0, excess_full_cycles_ = 0;  // its excess at the round's warps (curve cycles; this GPU's clock)
  DramWaits dram_waits_;
  double dram_idle_ = 0;  // the idle DRAM latency, cycles
  double end_time_ = 0, instrs_ = 0;
  RoundResult r_;
};

}  // namespace sim

inline RoundResult simulate_round(const RoundModel& rm, const GpuSpec& g, int ctas, bool busiest_round = false) {
  return sim::SmSimulator(rm, g, ctas, busiest_round).run();
}

// Two rounds' CTAs streamed through a round's `ctas` slots: a CTA starts in a slot the measured
// turnaround after the last one there exits, so one CTA's wait on memory runs under another's
// work. Its `cycles` are what a further full round costs the busiest SM: each slot takes a CTA's
// mean life plus the turnaround per CTA (Little's law: the SM completes `ctas` CTAs per mean
// life); the mean, not the last exit, because a round's longest CTA holds only its own slot
// while the others turn over. Its stalls are the two rounds'. Nothing below two slots: one CTA
// at a time has nothing to overlap (cycles 0).
struct RoundAndStreamed {
  RoundResult round;     // simulate_round(rm, g, ctas)
  RoundResult streamed;  // the streamed rounds; empty below two slots
};
inline RoundAndStreamed simulate_round_and_streamed(const RoundModel& rm, const GpuSpec& g, int ctas) {
  RoundAndStreamed r;
  if (ctas < 2) {
    r.round = simulate_round(rm, g, ctas);
    return r;
  }
  r.streamed = sim::SmSimulator(rm, g, ctas, false, 2 * ctas).run(&r.round);
  r.streamed.cycles = r.streamed.mean_cta_life + slot_turnaround_cycles(g, rm.an->kernel->launch.warps_per_cta());
  return r;
}
}  // namespace gpuperf
