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
// Nsight Compute's per-instruction counts come from patched code too, and retry as often (the
// probe's page: 548,821 producer polls for 15,856 waits, 17.5M warp instructions where the
// hardware counter smsp__inst_executed.sum counted 15.5M). Taking the retries out of a page's
// poll loops, as far as its sum exceeds that counter, made the count path's predictions of the
// probe worse (mean |log error| 0.10 -> 0.20: its busiest-warp and chain estimates of a
// producer/consumer kernel lean on them) and its test part 0.03 points worse; the page's counts
// are left as counted.
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

// Tallies the CTAs of warps [first_warp, end) of k as traced, none of their instructions
// dropped: a block read before the kernel's first poll (discount_poll_retries must know every
// traced CTA, not only those that lost retries).
inline void tally_traced_ctas(Kernel& k, std::size_t first_warp) {
  for (std::size_t w = first_warp; w < k.warps.size(); ++w) k.poll_retries.dropped.emplace(linear_cta(k.warps[w].cta, k.launch.grid), 0);
}

// Drops the retry iterations of barrier polls from warps [first_warp, end) of k, which hold
// consecutive instructions at the end of k.dyn: when a warp polls at the same PC again after no
// more than kMaxPollLoopInstructions instructions that fit a poll loop, the earlier iteration
// (that poll up to this one) is dropped. Each dropped instruction leaves its PC's counts; each
// warp's CTA is tallied in k.poll_retries (0 where none dropped). Returns the instructions dropped.
inline std::uint64_t drop_poll_retries(Kernel& k, std::size_t first_warp) {
  if (first_warp >= k.warps.size()) return 0;
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
  // The share of the traced CTAs' counted work that is not retries (runs and traced CTAs are
  // both in linear order: one walk, not a lookup of the runs per CTA).
  double traced_counted = 0, lost = 0;
  {
    std::uint64_t first = 0;
    auto traced = pr.dropped.begin();
    for (const auto& run : k.cta_work) {
      for (; traced != pr.dropped.end() && traced->first < first + run.ctas; ++traced) {
        traced_counted += static_cast<double>(run.warp_instructions);
        lost += static_cast<double>(traced->second);
      }
      first += run.ctas;
    }
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

}  // namespace gpuperf
