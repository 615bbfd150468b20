// Work imbalance from per-PC counts: when a loop is entered by only some warps (a loop done by
// one warp, early-exit threads, triangular loops), those warps run many more iterations than
// the grid's average warp, and the busiest one's dependent path bounds the kernel however
// idle the rest of the GPU is. Pure functions of the analysis and the per-PC waits.
#pragma once

#include <algorithm>
#include <vector>

#include "gpuperf/arch/instr_desc.hpp"
#include "gpuperf/model/kernel_analysis.hpp"

namespace gpuperf {

namespace detail {

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
// that fewer warps enter than the grid has, the extra iterations its entering warps run; 0
// when every loop is entered by every warp (the rounds' latency bound covers that path).
// The warps entering an outermost loop are at most the executions of the instruction before
// its head (outside every loop each warp runs an instruction once at most); taking that count
// errs towards more warps, i.e. a shorter path. A span is a loop only if its head runs at least
// as often as anything inside it (the head of a natural loop dominates its body): a backward
// branch from a far block (the BRA.DIV fallbacks at the end of CUB's scan jump back into its
// middle) spans code that other paths enter, and counting its entries by the instruction before
// it (1 warp against 35k running the body) made a path 1000x too long. `wait` is each position's wait before issue
// (static_stalls); `avg_chain` the average warp's path (bounds mode's latency bound).
inline double busiest_warp_cycles(const KernelAnalysis& an, const std::vector<InstrDesc>& desc, const std::vector<double>& wait,
                                  double avg_chain) {
  const double warps = an.total_warps;
  if (warps <= 1 || an.order.empty()) return 0;
  const std::vector<int> head = detail::outermost_loop_heads(an);
  // Warps entering each outermost loop, looked up once per head: -1 where unknown or all.
  std::vector<double> entering(an.order.size(), -1);
  for (std::size_t j = 0; j < an.order.size(); ++j) {
    const int h = head[j];
    if (h <= 0 || h != static_cast<int>(j)) continue;  // not a head, or a loop at the kernel's entry (every warp enters)
    const std::size_t before = an.order[static_cast<std::size_t>(h - 1)];
    // After an unconditional jump the loop is entered from elsewhere: entries unknown.
    if (!an.kernel->program[before].predicated && desc[before].transfers_control) continue;
    const double head_execs = an.pcs[an.order[j]].warp_exec;
    bool natural = true;
    for (std::size_t i = j + 1; i < an.order.size() && head[i] == h && natural; ++i) natural = an.pcs[an.order[i]].warp_exec <= head_execs;
    if (!natural) continue;  // entered from elsewhere too: entries unknown
    const double n = an.pcs[before].warp_exec;
    if (n > 0 && n < warps) entering[j] = n;
  }
  double extra = 0;
  for (std::size_t j = 0; j < an.order.size(); ++j) {
    const int h = head[j];
    if (h <= 0 || entering[static_cast<std::size_t>(h)] < 0) continue;
    const double execs = an.pcs[an.order[j]].warp_exec;
    extra += (execs / entering[static_cast<std::size_t>(h)] - execs / warps) * (1 + wait[j]);
  }
  return extra > 0 ? avg_chain + extra : 0;
}

}  // namespace gpuperf
