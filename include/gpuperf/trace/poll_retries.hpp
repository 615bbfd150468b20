// Retries of a polled barrier wait that an instrumented run adds to a trace. A warp waits on an
// mbarrier (TMA and async-copy pipelines: SASS SYNCS.PHASECHK.TRANS64[.TRYWAIT]) by trying in a
// loop until the barrier's phase completes. Natively a try_wait suspends the warp until then,
// or for a time limit, so a wait takes one or two tries; under instrumentation every warp runs
// many times slower and the tries multiply (calibrate/tma_pipeline_probe.cu on an H200, tries a
// wait counted on the device: the producer's 1.0-2.0 natively, 34-354 under the tracer; the
// consumer warps' 1.0 and 4.4-28; a traced launch's records held 46 and 1.7). Replayed, each
// retry costs issue slots and a dependent chain the native run never spends, so the reader
// keeps one pass per wait and says how many it dropped; the grid's per-CTA counts
// (Kernel::cta_work, which the tracer took in the same instrumented run) are discounted to
// match (discount_poll_retries).
#pragma once

#include <algorithm>
#include <cstdint>
#include <map>
#include <vector>

#include "gpuperf/trace/cta_work.hpp"
#include "gpuperf/trace/ir.hpp"

namespace gpuperf {

// A try or test of an mbarrier's phase, the instruction a polling loop repeats.
inline bool is_barrier_poll(const StaticInstr& s) { return s.opcode.rfind("SYNCS.PHASECHK", 0) == 0; }

// The most instructions a retry iteration holds besides its poll: the loops compilers emit are
// the poll, its branch and a YIELD or a counter (the probe's: 3 more). A longer one is taken for
// a real loop whose body waits once a pass.
constexpr std::uint64_t kMaxPollLoopInstructions = 8;

// Whether the instruction may sit in a retry loop: no memory access and no other barrier
// operation (an arrive between two polls is a wait per pass of a real loop).
inline bool fits_poll_loop(const StaticInstr& s, const DynInstr& d) {
  if (d.addr_count) return false;
  if (s.space != MemSpace::none && s.space != MemSpace::constant) return false;
  return is_barrier_poll(s) || s.opcode.rfind("SYNCS", 0) != 0;
}

// Drops the retry iterations of barrier polls from warps [first_warp, end) of k, which hold
// consecutive instructions at the end of k.dyn: when a warp polls at the same PC again after no
// more than kMaxPollLoopInstructions instructions that fit a poll loop, the earlier iteration
// (that poll up to this one) is dropped. Each dropped instruction leaves its PC's counts; each
// warp's CTA is tallied in k.poll_retries (0 where none dropped). Returns the instructions dropped.
// `polls`: whether the kernel's PCs read so far hold a poll; without, the CTAs are only tallied.
inline std::uint64_t drop_poll_retries(Kernel& k, std::size_t first_warp, bool polls = true) {
  if (first_warp >= k.warps.size()) return 0;
  if (!polls) {
    for (std::size_t w = first_warp; w < k.warps.size(); ++w) k.poll_retries.dropped.emplace(linear_cta(k.warps[w].cta, k.launch.grid), 0);
    return 0;
  }
  std::uint64_t out = k.warps[first_warp].begin, dropped_all = 0;
  for (std::size_t w = first_warp; w < k.warps.size(); ++w) {
    WarpStream& ws = k.warps[w];
    const std::uint64_t begin = out;
    std::uint64_t last_poll = UINT64_MAX;  // output position of the warp's latest kept poll
    bool loop_fits = false;                // everything after it fits a poll loop so far
    std::uint64_t dropped = 0;
    for (std::uint64_t i = ws.begin; i < ws.end; ++i) {
      const DynInstr d = k.dyn[i];
      const StaticInstr& s = k.program[d.static_index];
      if (is_barrier_poll(s)) {
        if (last_poll != UINT64_MAX && loop_fits && k.dyn[last_poll].static_index == d.static_index && out - last_poll <= kMaxPollLoopInstructions + 1) {
          for (std::uint64_t j = last_poll; j < out; ++j) {
            StaticInstr& r = k.program[k.dyn[j].static_index];
            const std::uint64_t lanes = static_cast<std::uint64_t>(__builtin_popcount(k.dyn[j].active_mask));
            r.warp_executed -= 1;
            r.thread_executed -= std::min(r.thread_executed, lanes);
            r.pred_on_thread_executed -= std::min(r.pred_on_thread_executed, lanes);
          }
          dropped += out - last_poll;
          out = last_poll;
        }
        last_poll = out;
        loop_fits = true;
      } else if (loop_fits && !fits_poll_loop(s, d)) {
        loop_fits = false;
      }
      k.dyn[out++] = d;
    }
    ws.begin = begin;
    ws.end = out;
    k.poll_retries.dropped[linear_cta(ws.cta, k.launch.grid)] += dropped;  // every traced CTA, 0 where none
    dropped_all += dropped;
  }
  k.dyn.resize(static_cast<std::size_t>(out));
  k.poll_retries.dropped_total += dropped_all;
  return dropped_all;
}

// The grid's per-CTA counts without the retries the same instrumented run counted: each traced
// CTA's less what was dropped from it, every other CTA's scaled by the traced CTAs' share kept.
// Once per kernel (the counts come from the trace's header or a cta_counts.tsv joined later).
inline void discount_poll_retries(Kernel& k) {
  PollRetries& pr = k.poll_retries;
  if (pr.discounted || pr.dropped_total == 0 || k.cta_work.empty()) return;
  pr.discounted = true;
  // The share of the traced CTAs' counted work that is not retries.
  double traced_counted = 0, lost = 0;
  for (const auto& [cta, n] : pr.dropped) {
    traced_counted += static_cast<double>(cta_work_of(k.cta_work, cta));
    lost += static_cast<double>(n);
  }
  const double keep = traced_counted > lost ? (traced_counted - lost) / traced_counted : 1.0;
  std::vector<CtaWorkRun> out;
  auto push = [&](std::uint64_t work, std::uint64_t ctas) {
    if (!ctas) return;
    if (!out.empty() && out.back().warp_instructions == work) out.back().ctas += ctas;
    else out.push_back({work, ctas});
  };
  std::uint64_t first = 0;
  auto traced = pr.dropped.begin();
  for (const auto& run : k.cta_work) {
    const std::uint64_t scaled = static_cast<std::uint64_t>(static_cast<double>(run.warp_instructions) * keep + 0.5);
    std::uint64_t at = first;
    for (; traced != pr.dropped.end() && traced->first < first + run.ctas; ++traced) {
      push(scaled, traced->first - at);
      push(run.warp_instructions - std::min(run.warp_instructions, traced->second), 1);
      at = traced->first + 1;
    }
    push(scaled, first + run.ctas - at);
    first += run.ctas;
  }
  k.cta_work.swap(out);
}

// Per-instruction counts of a profiler (Nsight Compute's source page) come from patched code
// that retries polls like a traced run: in the probe's profile the producer's poll ran 548,821
// times for 15,856 waits, and the page's counts sum to 17.59M warp instructions where the
// hardware counter of the same launch (smsp__inst_executed.sum, taken without patching) counts
// 15.46M. A poll loop is a poll and a conditional branch back to at most
// kMaxPollLoopInstructions instructions before it (all fitting a poll loop); its retries are its
// passes beyond the executions of the instruction after its branch (the waits that left it).
// The retries are taken out of every instruction of the loop, all of them, or where the
// hardware total is known (`native_total` > 0), as many as the page counts above it. Returns
// the warp instructions taken out.
inline std::uint64_t drop_profiled_poll_retries(std::vector<StaticInstr>& program, double native_total) {
  struct Loop { std::size_t first, last; double retries; };
  std::vector<Loop> loops;
  double retry_instructions = 0;
  for (std::size_t t = 0; t < program.size(); ++t) {
    if (!is_barrier_poll(program[t]) || program[t].warp_executed == 0) continue;
    for (std::size_t b = t + 1; b < program.size() && b <= t + kMaxPollLoopInstructions; ++b) {
      const StaticInstr& br = program[b];
      if (!br.branch_target) {
        if (!fits_poll_loop(br, DynInstr{})) break;
        continue;
      }
      const std::uint64_t target = *br.branch_target;
      std::size_t first = t;
      while (first > 0 && program[first].pc > target && t - first < kMaxPollLoopInstructions) --first;
      if (program[first].pc != target || b + 1 >= program.size()) break;
      bool fits = true;
      for (std::size_t j = first; j <= b && fits; ++j) fits = fits_poll_loop(program[j], DynInstr{});
      const double passes = static_cast<double>(program[t].warp_executed), exits = static_cast<double>(program[b + 1].warp_executed);
      if (fits && passes > exits) {
        loops.push_back({first, b, passes - exits});
        retry_instructions += (passes - exits) * static_cast<double>(b - first + 1);
      }
      break;
    }
  }
  if (loops.empty()) return 0;
  double page_total = 0;
  for (const auto& s : program) page_total += static_cast<double>(s.warp_executed);
  const double share = native_total > 0 ? std::clamp((page_total - native_total) / retry_instructions, 0.0, 1.0) : 1.0;
  std::uint64_t dropped = 0;
  for (const auto& l : loops) {
    const auto retries = static_cast<std::uint64_t>(l.retries * share + 0.5);
    for (std::size_t j = l.first; j <= l.last; ++j) {
      StaticInstr& s = program[j];
      const std::uint64_t cut = std::min(retries, s.warp_executed);
      if (!cut) continue;
      const double keep = static_cast<double>(s.warp_executed - cut) / static_cast<double>(s.warp_executed);
      s.warp_executed -= cut;
      s.thread_executed = static_cast<std::uint64_t>(static_cast<double>(s.thread_executed) * keep + 0.5);
      s.pred_on_thread_executed = static_cast<std::uint64_t>(static_cast<double>(s.pred_on_thread_executed) * keep + 0.5);
      dropped += cut;
    }
  }
  return dropped;
}

}  // namespace gpuperf
