// KernelAnalysis: everything about a kernel that does not depend on the GPU, computed once
// per trace and reused by every prediction (what-if studies re-predict from it in
// microseconds): per-PC counts scaled to the grid, memory requests/sectors/wavefronts,
// streaming reuse-distance profiles for L1 (per CTA) and L2 (whole traced grid), loop
// structure, and the CTAs a simulation replays.
#pragma once

#include <algorithm>
#include <bitset>
#include <climits>
#include <map>
#include <cmath>
#include <memory>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "gpuperf/model/memory.hpp"
#include "gpuperf/trace/ir.hpp"

namespace gpuperf {

struct PcStats {
  double warp_exec = 0;         // scaled to the full grid
  double thread_exec = 0;
  double requests = 0;          // memory requests (= warp executions of a memory op with active lanes)
  double sectors = 0;           // global: 32 B sectors requested
  double lines = 0;
  double wavefronts = 0;        // shared: bank passes; global: L1 wavefronts
  // Reuse profiles (global memory ops with addresses only).
  std::uint64_t l1_hist[ReuseProfiler::kBuckets] = {0};
  std::uint64_t l2_hist[ReuseProfiler::kBuckets] = {0};
  std::uint64_t l1_cold = 0, l2_cold = 0;
  std::uint64_t l2_first_writes = 0;  // stores: sectors this PC is the first in the kernel to write (each is written back once)
  bool has_profile = false;
  // Accesses the L2 reuse profile saw at this PC (first touches and reuses).
  double l2_profiled() const {
    double n = static_cast<double>(l2_cold);
    for (auto h : l2_hist) n += static_cast<double>(h);
    return n;
  }
  bool in_loop = false;         // inside a backward-branch region
  int load_group = -1;          // loads sharing an address base (count-only inputs)
  double group_footprint_sectors = 0;
};

// Global atomics' address distribution (dynamic traces with addresses): what the L2's atomic
// units serialize on. An op is one pass over one 32 B sector: lanes of a request on distinct
// words of a sector share a pass, lanes on the same word take one pass each.
struct AtomicProfile {
  double ops_int = 0, ops_float = 0;  // L2 atomic ops, scaled to the grid
  double updates = 0;                 // lane updates, scaled to the grid
  double hot_updates = 0;             // updates of the most-updated word, scaled to the grid
  double effective_words = 0;         // participation ratio (sum c)^2 / sum c^2, for the grid
  bool present() const { return ops_int + ops_float > 0; }
};

struct KernelAnalysis {
  std::shared_ptr<const Kernel> kernel;
  std::vector<PcStats> pcs;                 // parallel to kernel->program
  std::vector<std::uint32_t> order;         // program indices sorted by PC
  std::vector<int> loop_head_of;            // for a backward branch at order index i: order index of its target, else -1
  double scale = 1;                         // grid CTAs / traced CTAs
  double total_warps = 0;                   // warps in the full grid
  bool has_addresses = false;
  bool dynamic = false;
  std::vector<std::uint8_t> dyn_wavefronts; // per dynamic instruction (simulation MIO cost)
  AtomicProfile atomics;
  // CTAs available for simulation: each a list of warp indices into kernel->warps.
  std::vector<std::vector<std::uint32_t>> ctas;
};

namespace detail {

inline std::uint64_t cta_key(const Dim3& c) { return (std::uint64_t(c.z) << 42) | (std::uint64_t(c.y) << 21) | c.x; }

// Walks warps' streams position by position (k-th instruction of every warp, then k+1)
// to approximate concurrent progress, calling fn(warp_index, dyn_index).
template <class F>
void interleave(const Kernel& k, const std::vector<std::uint32_t>& warps, F&& fn) {
  std::uint64_t maxlen = 0;
  for (auto w : warps) maxlen = std::max<std::uint64_t>(maxlen, k.warps[w].end - k.warps[w].begin);
  for (std::uint64_t p = 0; p < maxlen; ++p)
    for (auto w : warps) {
      const auto& ws = k.warps[w];
      if (ws.begin + p < ws.end) fn(w, ws.begin + p);
    }
}

inline bool is_global_atomic(const StaticInstr& s) {
  return (s.mem_op == MemOp::atomic || s.mem_op == MemOp::reduction) &&
         (s.space == MemSpace::global || s.space == MemSpace::generic);
}

// Per-word update counts over the traced CTAs. The traced CTAs stand for the grid: words that
// every CTA shares (a histogram's bins) keep their number, words private to a CTA (per-block
// counters) multiply with the grid; the overlap between CTAs decides between the two.
inline void profile_atomics(const Kernel& k, KernelAnalysis& a) {
  std::unordered_map<std::uint64_t, double> count;
  double per_cta_distinct = 0, ints = 0, floats = 0, updates = 0;
  std::size_t ctas_with_atomics = 0;
  for (const auto& cta : a.ctas) {
    std::unordered_set<std::uint64_t> words_here;
    for (auto w : cta)
      for (std::uint64_t di = k.warps[w].begin; di < k.warps[w].end; ++di) {
        const auto& d = k.dyn[di];
        const auto& s = k.program[d.static_index];
        if (!is_global_atomic(s) || d.addr_count == 0) continue;
        bool is_float = s.opcode.find(".F32") != std::string::npos || s.opcode.find(".F16") != std::string::npos ||
                        s.opcode.find(".F64") != std::string::npos || s.opcode.find(".BF16") != std::string::npos;
        std::uint64_t words[64];
        unsigned n = std::min<unsigned>(d.addr_count, 64);
        for (unsigned l = 0; l < n; ++l) {
          words[l] = k.addresses[d.addr_begin + l] >> 2;
          count[words[l]] += 1;
          words_here.insert(words[l]);
        }
        (is_float ? floats : ints) += atomic_sector_passes(words, n);
        updates += n;
      }
    if (!words_here.empty()) {
      per_cta_distinct += static_cast<double>(words_here.size());
      ++ctas_with_atomics;
    }
  }
  if (count.empty()) return;
  double sum_sq = 0, hot = 0;
  for (auto& [wd, c] : count) { sum_sq += c * c; hot = std::max(hot, c); }
  double distinct = static_cast<double>(count.size());
  double mean_cta = per_cta_distinct / static_cast<double>(ctas_with_atomics);
  // 0 when every CTA touches the same words, 1 when CTAs' words are disjoint.
  double disjoint = per_cta_distinct > mean_cta ? std::clamp((distinct - mean_cta) / (per_cta_distinct - mean_cta), 0.0, 1.0) : 0.0;
  double grow = 1 + disjoint * (a.scale - 1);
  a.atomics.ops_int = ints * a.scale;
  a.atomics.ops_float = floats * a.scale;
  a.atomics.updates = updates * a.scale;
  a.atomics.effective_words = updates * updates / sum_sq * grow;
  a.atomics.hot_updates = hot * a.scale / grow;
}

}  // namespace detail

inline KernelAnalysis analyze(std::shared_ptr<const Kernel> kp) {
  const Kernel& k = *kp;
  KernelAnalysis a;
  a.kernel = kp;
  a.pcs.resize(k.program.size());
  a.dynamic = k.has_dynamic_trace();
  a.has_addresses = !k.addresses.empty();
  const double grid = static_cast<double>(k.launch.grid.count());
  a.total_warps = grid * k.launch.warps_per_cta();
  a.scale = (a.dynamic || k.representative_cta) && k.traced_ctas ? grid / static_cast<double>(k.traced_ctas) : 1.0;
  // Program order and loops.
  a.order.resize(k.program.size());
  for (std::uint32_t i = 0; i < a.order.size(); ++i) a.order[i] = i;
  std::sort(a.order.begin(), a.order.end(), [&](auto x, auto y) { return k.program[x].pc < k.program[y].pc; });
  std::unordered_map<std::uint64_t, int> pos_of_pc;
  for (int i = 0; i < static_cast<int>(a.order.size()); ++i) pos_of_pc[k.program[a.order[i]].pc] = i;
  a.loop_head_of.assign(a.order.size(), -1);
  for (int i = 0; i < static_cast<int>(a.order.size()); ++i) {
    const auto& s = k.program[a.order[i]];
    if (s.branch_target && *s.branch_target <= s.pc) {
      auto it = pos_of_pc.find(*s.branch_target);
      if (it != pos_of_pc.end()) {
        a.loop_head_of[i] = it->second;
        for (int j = it->second; j <= i; ++j) a.pcs[a.order[j]].in_loop = true;
      }
    }
  }
  // Counts.
  for (std::size_t i = 0; i < k.program.size(); ++i) {
    const auto& s = k.program[i];
    auto& p = a.pcs[i];
    p.warp_exec = static_cast<double>(s.warp_executed) * a.scale;
    p.thread_exec = static_cast<double>(s.thread_executed) * a.scale;
    if (!a.dynamic && !s.counts_known) {  // static listing alone: once per warp
      p.warp_exec = a.total_warps;
      p.thread_exec = a.total_warps * 32;
    }
    if (s.space != MemSpace::none && s.space != MemSpace::constant) {
      p.requests = p.warp_exec;
      if (!a.dynamic) {
        if (s.global_sectors) p.sectors = static_cast<double>(s.global_sectors);
        else if (s.space == MemSpace::global || s.space == MemSpace::local || s.space == MemSpace::generic) {
          // No sector counts: assume a coalesced access of the active lanes.
          double lanes = p.warp_exec > 0 ? p.thread_exec / p.warp_exec : 32;
          p.sectors = p.warp_exec * std::max(1.0, std::ceil(lanes * std::max(1u, s.access_bits / 8) / 32.0));
        }
        if (s.space == MemSpace::shared) p.wavefronts = s.shared_wavefronts ? static_cast<double>(s.shared_wavefronts) : p.warp_exec;
        else p.wavefronts = std::max(p.requests, std::ceil(p.sectors / 4));
      }
    }
  }
  // Dynamic traces: coalescing, bank conflicts and reuse profiles from addresses.
  if (a.dynamic) {
    a.dyn_wavefronts.assign(k.dyn.size(), 0);
    std::unordered_map<std::uint64_t, std::vector<std::uint32_t>> by_cta;
    std::vector<std::uint64_t> cta_order;
    for (std::uint32_t w = 0; w < k.warps.size(); ++w) {
      auto key = detail::cta_key(k.warps[w].cta);
      auto [it, fresh] = by_cta.try_emplace(key);
      if (fresh) cta_order.push_back(key);
      it->second.push_back(w);
    }
    for (auto key : cta_order) a.ctas.push_back(by_cta[key]);
    std::uint64_t sec[64];
    std::vector<double> sectors(k.program.size(), 0), lines(k.program.size(), 0), wavefronts(k.program.size(), 0), reqs(k.program.size(), 0);
    for (std::size_t di = 0; di < k.dyn.size(); ++di) {
      const auto& d = k.dyn[di];
      const auto& s = k.program[d.static_index];
      if (s.space == MemSpace::none || s.space == MemSpace::constant || d.addr_count == 0) {
        if (s.space != MemSpace::none && s.space != MemSpace::constant && d.active_mask) a.dyn_wavefronts[di] = 1;
        continue;
      }
      const std::uint64_t* ad = &k.addresses[d.addr_begin];
      unsigned w = d.mem_width ? d.mem_width : std::max(1u, s.access_bits / 8);
      reqs[d.static_index] += 1;
      if (s.space == MemSpace::shared) {
        unsigned wf = shared_wavefronts(ad, d.addr_count, w);
        wavefronts[d.static_index] += wf;
        a.dyn_wavefronts[di] = static_cast<std::uint8_t>(std::min(255u, wf));
      } else {
        auto c = coalesce(ad, d.addr_count, w, sec);
        sectors[d.static_index] += c.sectors;
        lines[d.static_index] += c.lines;
        unsigned wf = std::max(1u, (c.sectors + 3) / 4);
        wavefronts[d.static_index] += wf;
        a.dyn_wavefronts[di] = static_cast<std::uint8_t>(std::min(255u, wf));
      }
    }
    if (a.has_addresses) detail::profile_atomics(k, a);
    for (std::size_t i = 0; i < k.program.size(); ++i) {
      auto& p = a.pcs[i];
      if (reqs[i] == 0) continue;
      p.requests = reqs[i] * a.scale;
      p.sectors = sectors[i] * a.scale;
      p.lines = lines[i] * a.scale;
      p.wavefronts = wavefronts[i] * a.scale;
    }
    if (a.has_addresses) {
      // L1: reuse within each CTA; L2: the traced grid's interleaved stream.
      std::unordered_set<std::uint64_t> written;  // sectors stored to so far (L2 stream only)
      auto profile = [&](const std::vector<std::uint32_t>& warps, ReuseProfiler& rp, bool l1) {
        detail::interleave(k, warps, [&](std::uint32_t, std::uint64_t di) {
          const auto& d = k.dyn[di];
          const auto& s = k.program[d.static_index];
          if (d.addr_count == 0 || !(s.space == MemSpace::global || s.space == MemSpace::local || s.space == MemSpace::generic)) return;
          unsigned w = d.mem_width ? d.mem_width : std::max(1u, s.access_bits / 8);
          auto c = coalesce(&k.addresses[d.addr_begin], d.addr_count, w, sec);
          auto& p = a.pcs[d.static_index];
          p.has_profile = true;
          const bool store = !l1 && s.mem_op == MemOp::store;
          for (unsigned j = 0; j < c.sectors; ++j) {
            std::int64_t dist = rp.access(sec[j]);
            if (dist < 0) (l1 ? p.l1_cold : p.l2_cold)++;
            else (l1 ? p.l1_hist : p.l2_hist)[ReuseProfiler::bucket(static_cast<std::uint64_t>(dist))]++;
            if (store && written.insert(sec[j]).second) ++p.l2_first_writes;
          }
        });
      };
      for (auto& cta : a.ctas) {
        ReuseProfiler rp;
        profile(cta, rp, true);
      }
      std::vector<std::uint32_t> all(k.warps.size());
      for (std::uint32_t w = 0; w < all.size(); ++w) all[w] = w;
      ReuseProfiler rp2;
      rp2.reserve(k.dyn.size());
      profile(all, rp2, false);
    }
  }
  // Count-only inputs: loads that share an address base register read neighbouring data
  // (stencils, unrolled loops); their union footprint bounds what reaches L2.
  if (!a.dynamic) {
    std::map<std::vector<std::uint16_t>, std::vector<std::size_t>> groups;
    for (std::size_t i = 0; i < k.program.size(); ++i) {
      const auto& s = k.program[i];
      if (s.space == MemSpace::global && s.mem_op == MemOp::load && !s.mem_base.empty() && a.pcs[i].requests > 0) groups[s.mem_base].push_back(i);
    }
    int gid = 0;
    for (auto& [base, members] : groups) {
      std::int64_t lo = INT64_MAX, hi = INT64_MIN;
      double max_sectors = 0, reqs = 0;
      for (auto i : members) {
        lo = std::min(lo, k.program[i].mem_offset);
        hi = std::max(hi, k.program[i].mem_offset + std::int64_t(std::max(1u, k.program[i].access_bits / 8)));
        max_sectors = std::max(max_sectors, a.pcs[i].sectors);
        reqs = std::max(reqs, a.pcs[i].requests);
      }
      double span_sectors = reqs * std::max<std::int64_t>(0, (hi - lo) - 32) / 32.0;
      for (auto i : members) {
        a.pcs[i].load_group = gid;
        a.pcs[i].group_footprint_sectors = (max_sectors + span_sectors) / static_cast<double>(members.size());
      }
      ++gid;
    }
  }
  return a;
}

}  // namespace gpuperf
