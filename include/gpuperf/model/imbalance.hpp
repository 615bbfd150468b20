// Work imbalance from per-PC counts: when a loop is entered by only some warps (a loop done by
// one warp, early-exit threads, triangular loops), those warps run many more iterations than
// the grid's average warp, and the busiest one's dependent path bounds the kernel however
// idle the rest of the GPU is. Pure functions of the analysis and the per-PC waits.
#pragma once

#include <algorithm>
#include <string>
#include <vector>

#include "gpuperf/model/kernel_analysis.hpp"

namespace gpuperf {

namespace detail {

inline bool ends_flow(const std::string& opcode) {
  for (const char* op : {"BRA", "JMP", "BRX", "JMX", "EXIT", "RET"})
    if (opcode.compare(0, std::char_traits<char>::length(op), op) == 0 && (opcode.size() == std::char_traits<char>::length(op) || opcode[std::char_traits<char>::length(op)] == '.'))
      return true;
  return false;
}

// For each program position (order index), the head of the outermost loop containing it, or -1.
inline std::vector<int> outermost_loop_heads(const KernelAnalysis& an) {
  std::vector<int> head(an.order.size(), -1);
  for (int end = 0; end < static_cast<int>(an.loop_head_of.size()); ++end) {
    int h = an.loop_head_of[end];
    if (h < 0) continue;
    for (int j = h; j <= end; ++j)
      if (head[j] < 0 || h < head[j]) head[j] = h;
  }
  return head;
}

}  // namespace detail

// Cycles of the busiest warp's dependent path: the average warp's chain plus, for each loop
// that fewer warps enter than the grid has, the extra iterations its entering warps run.
// The warps entering an outermost loop are at most the executions of the instruction before
// its head (outside every loop each warp runs an instruction once at most); taking that count
// errs towards more warps, i.e. a shorter path. `wait` is each position's wait before issue
// (static_stalls); `avg_chain` the average warp's path (bounds mode's latency bound).
inline double busiest_warp_cycles(const KernelAnalysis& an, const std::vector<double>& wait, double avg_chain) {
  const double warps = an.total_warps;
  if (warps <= 1 || an.order.empty()) return avg_chain;
  const std::vector<int> head = detail::outermost_loop_heads(an);
  double extra = 0;
  for (std::size_t j = 0; j < an.order.size(); ++j) {
    const int h = head[j];
    if (h <= 0) continue;  // not in a loop, or a loop at the kernel's entry (every warp enters)
    // After an unconditional jump the loop is entered from elsewhere: entries unknown.
    const StaticInstr& before = an.kernel->program[an.order[static_cast<std::size_t>(h - 1)]];
    if (!before.predicated && detail::ends_flow(before.opcode)) continue;
    const double entering = an.pcs[an.order[static_cast<std::size_t>(h - 1)]].warp_exec;
    if (entering <= 0 || entering >= warps) continue;
    const double execs = an.pcs[an.order[j]].warp_exec;
    extra += (execs / entering - execs / warps) * (1 + wait[j]);
  }
  return avg_chain + extra;
}

}  // namespace gpuperf
