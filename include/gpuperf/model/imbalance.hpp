// Work imbalance from per-PC counts: when a loop is entered by only some warps (a loop done by
// one warp, early-exit threads, triangular loops), those warps run many more iterations than
// the grid's average warp, and the busiest one's dependent path bounds the kernel however
// idle the rest of the GPU is. Pure functions of the analysis and the per-PC waits.
#pragma once

#include <algorithm>
#include <vector>

#include "gpuperf/arch/instr_desc.hpp"
#include "gpuperf/model/kernel_analysis.hpp"
#include "gpuperf/model/stalls.hpp"

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

// The warps entering the loop whose positions run from its head `h` while `in_loop(i)` holds:
// the executions of the instruction before the head. 0 where unknown: a loop at the kernel's
// entry, one reached after an unconditional jump, or a span that other paths enter (something
// in it runs more often than its head, which in a natural loop dominates its body).
template <class InLoop>
double loop_entries(const KernelAnalysis& an, const std::vector<InstrDesc>& desc, int h, InLoop in_loop) {
  if (h <= 0) return 0;
  const std::size_t before = an.order[static_cast<std::size_t>(h - 1)];
  if (!an.kernel->program[before].predicated && desc[before].transfers_control) return 0;
  const double head_execs = an.pcs[an.order[static_cast<std::size_t>(h)]].warp_exec;
  for (std::size_t i = static_cast<std::size_t>(h) + 1; i < an.order.size() && in_loop(i); ++i)
    if (an.pcs[an.order[i]].warp_exec > head_execs) return 0;
  return std::max(0.0, an.pcs[before].warp_exec);
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
    const double n = detail::loop_entries(an, desc, h, [&](std::size_t i) { return head[i] == h; });
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

// Executions of each program position (order index) by the busiest warp of a CTA, for the
// chain of a barrier phase: the phase ends when its slowest warp arrives, so code that only
// some warps of each CTA run (the second level of a block reduction, done by warp 0; the loads
// of a row shorter than the block) is on that phase's path in full, not at the average warp's
// share. Counts give no warp identities, so:
// - Outside loops a warp runs an instruction once at most: the busiest warp runs it once when
//   every CTA runs it at least once, else in the share of CTAs that do (a tail CTA's boundary
//   code is not every CTA's path).
// - In a loop that holds a CTA barrier every warp runs each trip, but conditional code in its
//   body may be done by only some warps: at most once a trip, the same way.
// - In a loop without a barrier, its entering warps' trips: the busiest count of the
//   instruction before its head times the executions per entry (a natural loop entered
//   from there; otherwise the average).
// Never below the average warp's executions.
inline std::vector<double> busiest_warp_executions(const KernelAnalysis& an, const std::vector<InstrDesc>& desc, double warps_per_block) {
  const std::size_t n = an.order.size();
  std::vector<double> out(n, 0);
  const double warps = std::max(1.0, an.total_warps);
  const double ctas = std::max(1.0, warps / std::max(1.0, warps_per_block));
  const detail::LoopSpans loops(an);
  // Executed CTA barriers before each position, to tell the loops that hold one.
  std::vector<int> barriers_before(n + 1, 0);
  for (std::size_t i = 0; i < n; ++i) {
    const auto p = an.order[i];
    barriers_before[i + 1] = barriers_before[i] + (desc[p].is_barrier && an.pcs[p].warp_exec > 0 ? 1 : 0);
  }
  // Each barrier-free loop's entries, by the position of its backward branch (-1: not yet known).
  std::vector<double> entries_of(n, -1);
  for (std::size_t j = 0; j < n; ++j) {
    const double e = an.pcs[an.order[j]].warp_exec;
    const double avg = e / warps;
    if (e <= 0) continue;
    const int h = loops.begin[j], end = loops.end[j];
    double busiest = avg;
    if (h < 0) {
      busiest = std::min(1.0, e / ctas);
    } else if (barriers_before[static_cast<std::size_t>(end) + 1] > barriers_before[static_cast<std::size_t>(h)]) {
      const double trips = an.pcs[an.order[static_cast<std::size_t>(h)]].warp_exec / warps;
      busiest = std::min(trips, e / ctas);
    } else if (h > 0) {
      double& entries = entries_of[static_cast<std::size_t>(end)];
      if (entries < 0) entries = detail::loop_entries(an, desc, h, [&](std::size_t i) { return static_cast<int>(i) <= end; });
      if (entries > 0) busiest = out[static_cast<std::size_t>(h - 1)] * e / entries;
    }
    out[j] = std::max(avg, busiest);
  }
  return out;
}

}  // namespace gpuperf
