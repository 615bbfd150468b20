// Static stalls: how long each instruction waits after its warp's previous issue, from the
// program alone (register dependencies, or the compiler's stall counts and barriers).
#pragma once

#include <algorithm>
#include <vector>

#include "gpuperf/arch/instr_desc.hpp"
#include "gpuperf/model/analysis.hpp"

namespace gpuperf {

namespace detail {

// Cycles instruction `i` (program order index) waits after its warp's previous issue:
// register dependencies against the nearest earlier writer (wrapping around loops), or the
// compiler's stall counts and barrier waits when a listing is joined. Two passes so loop
// bodies see their own stalls.
inline void static_stalls(const KernelAnalysis& an, const std::vector<InstrDesc>& desc, const std::vector<double>& lat,
                          std::vector<double>& stall, std::vector<bool>& on_memory) {
  const Kernel& k = *an.kernel;
  const std::size_t n = an.order.size();
  stall.assign(n, 0);
  on_memory.assign(n, false);
  const bool ctrl = k.has_control_bits();
  // Loop of each position: the innermost backward branch covering it.
  std::vector<int> loop_end(n, -1), loop_begin(n, -1);
  for (int e = 0; e < static_cast<int>(n); ++e)
    if (an.loop_head_of[e] >= 0)
      for (int j = an.loop_head_of[e]; j <= e; ++j)
        if (loop_end[j] < 0 || e - an.loop_head_of[e] < loop_end[j] - loop_begin[j]) { loop_end[j] = e; loop_begin[j] = an.loop_head_of[e]; }
  auto gap = [&](int j) {
    const auto& s = k.program[an.order[j]];
    if (ctrl && s.control.valid) return std::max(1.0, double(s.control.stall)) + stall[j];
    return 1.0 + stall[j];
  };
  for (int pass = 0; pass < 2; ++pass) {
    for (int i = 0; i < static_cast<int>(n); ++i) {
      const auto& s = k.program[an.order[i]];
      double wait = 0;
      bool mem = false;
      if (ctrl && s.control.valid) {
        // Fixed latencies are already in the previous instruction's stall count (gap());
        // variable-latency producers signal through barriers.
        if (s.control.wait_mask) {
          double dist = 0;
          int j = i - 1, steps = 0;
          bool wrapped = false;
          while (steps++ < 256) {
            if (j < 0 || (loop_begin[i] >= 0 && j < loop_begin[i] && !wrapped)) {
              if (loop_end[i] >= 0 && !wrapped) { j = loop_end[i]; wrapped = true; continue; }
              break;
            }
            const auto& p = k.program[an.order[j]];
            dist += gap(j);
            bool sets = (p.control.write_barrier < 6 && (s.control.wait_mask >> p.control.write_barrier) & 1) ||
                        (p.control.read_barrier < 6 && (s.control.wait_mask >> p.control.read_barrier) & 1);
            if (sets) {
              double l = p.control.write_barrier < 6 && (s.control.wait_mask >> p.control.write_barrier) & 1 ? lat[an.order[j]] : 8.0;
              if (l - dist > wait) { wait = l - dist; mem = desc[an.order[j]].space != MemSpace::none; }
            }
            --j;
          }
        }
      } else {
        for (auto r : s.src) {
          double dist = 0;
          int j = i - 1, steps = 0;
          bool wrapped = false;
          while (steps++ < 64) {
            if (j < 0 || (loop_begin[i] >= 0 && j < loop_begin[i] && !wrapped)) {
              if (loop_end[i] >= 0 && !wrapped) { j = loop_end[i]; wrapped = true; continue; }
              break;
            }
            const auto& p = k.program[an.order[j]];
            if (std::find(p.dst.begin(), p.dst.end(), r) != p.dst.end()) {
              double l = lat[an.order[j]] - dist - 1;
              if (l > wait) { wait = l; mem = desc[an.order[j]].space != MemSpace::none; }
              break;
            }
            dist += gap(j);
            --j;
          }
        }
      }
      stall[i] = std::max(0.0, wait);
      on_memory[i] = mem;
    }
  }
  // With a listing, the previous instruction's stall count is this one's issue gap.
  if (ctrl)
    for (int i = static_cast<int>(n) - 1; i > 0; --i) {
      const auto& prev = k.program[an.order[i - 1]];
      if (prev.control.valid) stall[i] += std::max(0.0, double(prev.control.stall) - 1);
    }
}

}  // namespace detail

}  // namespace gpuperf
