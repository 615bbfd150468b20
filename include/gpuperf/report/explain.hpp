// The text for people: names of the model's enums, the bottleneck's explanation, the basis of
// the hit rates and the warnings, written from the typed prediction (model/prediction.hpp).
#pragma once

#include <cmath>

#include <cstdio>
#include <string>
#include <vector>

#include "gpuperf/model/prediction.hpp"

namespace gpuperf {

inline const char* to_string(Mode m) { return m == Mode::simulation ? "simulation" : "bounds"; }
inline const char* to_string(Target t) { return t == Target::duration ? "duration" : "back-to-back"; }

inline const char* to_string(Bottleneck b) {
  switch (b) {
    case Bottleneck::issue: return "issue";
    case Bottleneck::functional_unit: return "functional_unit";
    case Bottleneck::latency: return "latency";
    case Bottleneck::shared_memory: return "shared_memory";
    case Bottleneck::l1: return "l1";
    case Bottleneck::l2: return "l2";
    case Bottleneck::dram: return "dram";
    case Bottleneck::atomics: return "atomics";
    case Bottleneck::occupancy: return "occupancy";
    case Bottleneck::tail: return "tail";
    case Bottleneck::launch: return "launch";
    case Bottleneck::imbalance: return "imbalance";
    case Bottleneck::cta_dispatch: return "cta_dispatch";
  }
  return "unknown";
}

inline const char* to_string(Limiter l) {
  switch (l) {
    case Limiter::warps: return "warps";
    case Limiter::registers: return "registers";
    case Limiter::shared: return "shared";
    case Limiter::blocks: return "blocks";
  }
  return "unknown";
}

// The warning's code as the JSON view names it (`warning_codes`), for tools that act on a kind
// of warning without parsing its prose.
inline const char* to_string(WarningCode c) {
  switch (c) {
    case WarningCode::input: return "input";
    case WarningCode::other_arch_sass: return "other_arch_sass";
    case WarningCode::unsupported_class: return "unsupported_class";
    case WarningCode::unknown_opcodes: return "unknown_opcodes";
    case WarningCode::registers_assumed: return "registers_assumed";
    case WarningCode::hit_rates_assumed: return "hit_rates_assumed";
    case WarningCode::counts_only_input: return "counts_only_input";
    case WarningCode::ctas_replayed: return "ctas_replayed";
    case WarningCode::atypical_ctas: return "atypical_ctas";
    case WarningCode::uneven_ctas: return "uneven_ctas";
    case WarningCode::truncated_trace: return "truncated_trace";
    case WarningCode::drawn_regions: return "drawn_regions";
    case WarningCode::grid_rows_sampled: return "grid_rows_sampled";
    case WarningCode::stored_by_untraced: return "stored_by_untraced";
    case WarningCode::counted_scale_up: return "counted_scale_up";
    case WarningCode::no_control_bits: return "no_control_bits";
    case WarningCode::busiest_sm_share: return "busiest_sm_share";
    case WarningCode::copy_sources_unknown: return "copy_sources_unknown";
    case WarningCode::bulk_traffic_missing: return "bulk_traffic_missing";
  }
  return "input";
}

// The roofline's name of a precision ("none" when the kernel has no floating-point work).
inline const char* precision_name(Precision p) {
  switch (p) {
    case Precision::fp16: return "fp16";
    case Precision::fp32: return "fp32";
    case Precision::fp64: return "fp64";
    case Precision::tensor: return "tensor";
    default: return "none";
  }
}

namespace detail {

inline std::string fmt_pct(double x) {
  char b[32];
  std::snprintf(b, sizeof b, "%.0f%%", 100 * x);
  return b;
}

inline std::string bottleneck_detail(Bottleneck b, const KernelReport& k) {
  const auto& o = k.occupancy;
  switch (b) {
    case Bottleneck::dram:
      return "DRAM bandwidth (" + std::to_string(int((k.memory.dram_read_bytes + k.memory.dram_write_bytes) / 1e6)) + " MB)";
    case Bottleneck::l2:
      return k.bounds.l2_writes >= k.bounds.l2 ? "L2 bandwidth: its line-writes (stores and fills from DRAM)" : "L2 bandwidth";
    case Bottleneck::atomics:
      if (k.atomic_updates == 0)
        return "L2 atomic serialization (" + std::to_string(static_cast<long long>(k.atomic_busiest_slice_ops)) + " ops on the busiest L2 slice, profiled)";
      return "L2 atomic serialization (" + std::to_string(static_cast<long long>(k.atomic_updates)) + " updates over ~" +
             std::to_string(static_cast<long long>(k.atomic_words)) + " words in ~" + std::to_string(static_cast<long long>(k.atomic_lines)) +
             " lines" +
             (k.bounds.atomics_behind_loads > 0 ? ", " + fmt_pct(k.bounds.atomics_behind_loads / k.bounds.atomics) + " of it waiting for the loads before them"
                                                : std::string()) +
             ")";
    case Bottleneck::functional_unit: return "busiest unit: " + k.bounds.busiest_unit;
    case Bottleneck::latency:
      if (k.grid_underfills)
        return "grid of " + std::to_string(int(k.grid_ctas)) + " CTA(s) fills " + std::to_string(int(k.grid_ctas)) + " of " + std::to_string(k.sms) + " SMs";
      return "dependency chains not hidden by " + std::to_string(o.active_warps_per_sm) + " resident warps";
    case Bottleneck::occupancy:
      return "latency-bound at " + fmt_pct(o.occupancy) + " occupancy (limited by " + to_string(o.limiter) + ")";
    case Bottleneck::imbalance:
      return "the busiest warp's dependent path (" + std::to_string(static_cast<long long>(k.bounds.busiest_warp)) + " cycles): few warps run most of the loop iterations";
    case Bottleneck::cta_dispatch: {
      char b[200];
      std::snprintf(b, sizeof b, "the GPU starts one CTA per %.2f cycles: %.0f CTAs of short work, the last one's run (%.0f cycles) after them",
                    k.grid_ctas > 0 ? k.bounds.cta_dispatch_start() / k.grid_ctas : 0.0, k.grid_ctas, k.bounds.cta_dispatch_last_run);
      return b;
    }
    case Bottleneck::tail: return "last partial wave of " + std::to_string(int(k.tail_ctas)) + " CTA(s) per SM";
    case Bottleneck::launch: return std::string(to_string(k.under_launch)) + "; the launch overhead dominates";
    default: return "";
  }
}

}  // namespace detail

inline std::string bottleneck_detail(const KernelReport& k) { return detail::bottleneck_detail(k.bottleneck, k); }

inline std::string hit_rate_basis(const MemoryStats& m) {
  if (!m.rates_profiled_on.empty()) {
    std::string basis = "memory counters of the profile taken on " + m.rates_profiled_on + " (L1 hits of global loads, L2 hits of reads, DRAM write-backs)";
    if (m.profiled_l2_ratio < 1) basis += ", carried over to an L2 " + std::to_string(static_cast<int>(std::lround(100 * m.profiled_l2_ratio))) + "% of its size";
    else if (m.profiled_l2_ratio > 1) basis += "; this GPU's larger L2 is credited with no extra hits";
    return basis;
  }
  return m.hit_rates_assumed ? "assumed: the input has no addresses (every requested sector is fetched once from DRAM, except sectors shared by loads with the same base register)"
                             : "reuse distances of the traced addresses (L1 per CTA with the SM's other CTAs, L2 over the traced grid)";
}

inline std::string roofline_bound(const Roofline& r) {
  switch (r.bound) {
    case RooflineBound::dram: return "DRAM bandwidth";
    case RooflineBound::compute: return std::string("compute (") + precision_name(r.precision) + ")";
    default: return "no floating-point work";
  }
}

inline std::string explain(const Warning& w) {
  auto arg = [&](std::size_t i) { return i < w.args.size() ? w.args[i] : std::string(); };
  switch (w.code) {
    case WarningCode::input: return arg(0);
    case WarningCode::other_arch_sass:
      return "trace was compiled for sm_" + arg(0) + " and is predicted on " + arg(1) + " (" + arg(2) +
             "): SASS of another architecture; costs are looked up by opcode class";
    case WarningCode::unsupported_class:
      return "opcode " + arg(0) + " uses class '" + arg(1) + "', which " + arg(2) + " does not support; a generic cost was used";
    case WarningCode::unknown_opcodes: return arg(0) + " unknown opcode(s) classified by prefix: " + arg(1);
    case WarningCode::registers_assumed: return "register count unknown; 32 registers per thread assumed for occupancy";
    case WarningCode::hit_rates_assumed:
      return "cache hit rates assumed (no addresses in the input); an uncalibrated time range shows all-hit and all-miss extremes";
    case WarningCode::counts_only_input:
      return "simulation needs per-warp instruction streams; this input has counts only, so bounds mode was used";
    case WarningCode::ctas_replayed:
      return "trace holds " + arg(0) + " CTA(s); the simulated SM replays them to fill " + arg(1) + " resident CTAs";
    case WarningCode::atypical_ctas:
      return arg(0) + " of the " + arg(1) + " traced CTAs do work unlike the others; each is counted once, and the others stand for the grid's untraced CTAs" +
             (arg(2).empty() ? std::string() : "; the heaviest (" + arg(2) + "x the median traced CTA) runs in one round of the busiest SM");
    case WarningCode::uneven_ctas:
      return "the " + arg(0) + " traced CTAs' work is uneven (the heaviest " + arg(1) +
             "x the median): counts are scaled by grid / traced CTAs, and the heaviest runs in one round of the busiest SM";
    case WarningCode::truncated_trace: {
      const std::string head = "the tracer stopped after " + arg(0) + " instructions ('-truncated at instructions'): ";
      if (arg(1) == "counted") return head + "each traced CTA's recorded part stands for its whole counted work (per-CTA counts)";
      if (arg(1) == "whole_ctas") return head + "every recorded warp ran to its EXIT, so the trace holds whole CTAs, fewer than the tracer would have sampled";
      if (arg(1) == "lower_bound")
        return head + arg(2) + " of the " + arg(3) +
               " recorded warps stop before their EXIT, so the time is of their recorded part only: a lower bound, how far below unknown "
               "(trace with a larger limit, or give the count-only run's per-CTA counts, cta_counts.tsv, to scale each CTA to its work)";
      return head + "the last traced CTA is partial, so the prediction is low and its range is wider";
    }
    case WarningCode::drawn_regions:
      return "the loads of " + arg(0) + " PC(s) draw from one region across the traced CTAs (a table or a tree): the grid's first touches of them stay within it (" +
             arg(1) + " MB), not the traced CTAs' scaled to the grid";
    case WarningCode::grid_rows_sampled:
      return "the traced CTAs lie in one row of the grid: the first touches of " + arg(0) +
             " load PC(s) are scaled to the grid by the CTA-index dimensions the listing computes their addresses from, not by how they grew along the row";
    case WarningCode::counted_scale_up:
      if (!arg(1).empty())
        return "per the grid's per-CTA counts its CTAs do " + arg(0) +
               "x the traced CTAs' work on average: loops and computation are scaled up with it, loads and stores outside loops run at most as often "
               "per warp as in the traced warps; where the extra work holds memory accesses the traced CTAs skipped, the traffic is under-estimated "
               "(trace other CTAs to check)";
      return "per the grid's per-CTA counts its CTAs do " + arg(0) +
             "x the traced CTAs' work on average: every traced instruction, loads and stores included, is scaled up with it; where the extra work is "
             "computation the traced CTAs skipped, the memory traffic is over-estimated (give the SASS listing, whose loops bound the loads and "
             "stores outside them, or trace other CTAs to check)";
    case WarningCode::no_control_bits:
      return "no compiler control bits: no SASS listing with the instructions' encodings joined the input (traces and Nsight Compute pages record "
             "none; `nvdisasm` prints them with `-hex`), so the compiler's stall counts and barriers are unknown and issue gaps come from the "
             "latency tables alone; give the binary's `cuobjdump -sass` listing with the input";
    case WarningCode::busiest_sm_share:
      return "the profile's busiest sub-partition ran " + arg(0) +
             "x the instructions an even placement of this one-wave grid gives it: the busiest SM's issue, units and warps' chains are taken as "
             "that much longer than the average SM's (work that went to some CTAs only: a persistent kernel's tiles, a search's longer searches)";
    case WarningCode::copy_sources_unknown:
      return arg(0) + " traced warp executions of asynchronous copies (LDGSTS) at " + arg(1) +
             " PC(s) carry shared-memory offsets where their global sources belong (a trace written by gpuperf's tracer before 2026-11-29): "
             "their L1, L2 and DRAM traffic is assumed, each sector fetched once from DRAM; re-trace with the current tracer";
    case WarningCode::bulk_traffic_missing: {
      std::string parts;
      if (arg(0) != "0")
        parts = arg(0) + " warp executions of bulk tensor stores (UTMASTG: TMA epilogues) without their box (a profile, a trace from gpuperf's "
                         "tracer before 2026-12-01, or a map it could not decode), whose writes to L2 and DRAM are not modelled";
      if (arg(1) != "0")
        parts += (parts.empty() ? "" : "; ") + arg(1) +
                 " traced warp executions of bulk tensor loads (UTMALDG) without their box (a trace from gpuperf's tracer before 2026-11-29, or a "
                 "map it could not decode), which carry no traffic";
      if (arg(2) != "" && arg(2) != "0")
        parts += (parts.empty() ? "" : "; ") + arg(2) + " warp executions of bulk tensor reductions (UTMAREDG), whose L2 and DRAM traffic is not modelled";
      return parts + ": the memory traffic is under-counted";
    }
    case WarningCode::stored_by_untraced:
      return arg(0) + " of the traced loads' " + arg(1) + " first touches read sectors that CTAs left out of the trace store earlier in their streams: L2 hits where those CTAs run beside the reader";
  }
  return arg(0);
}

inline std::vector<std::string> explain(const std::vector<Warning>& ws) {
  std::vector<std::string> out;
  for (auto& w : ws) out.push_back(explain(w));
  return out;
}

}  // namespace gpuperf
