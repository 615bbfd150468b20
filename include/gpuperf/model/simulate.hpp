// Simulation mode: one SM, `ctas` resident CTAs replayed from the trace.
#pragma once

#include <algorithm>
#include <cstdint>
#include <limits>
#include <map>
#include <string>
#include <vector>

#include "gpuperf/arch/gpu_spec.hpp"
#include "gpuperf/model/occupancy.hpp"
#include "gpuperf/model/round.hpp"

namespace gpuperf {

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

}  // namespace gpuperf
