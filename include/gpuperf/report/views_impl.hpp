// The text view's definitions (views.hpp). A definition file: compiled once in the library
// (src/lib/views.cpp), or included by views.hpp when GPUPERF_HEADER_ONLY; never include it
// beside the compiled library.
#pragma once

#include <algorithm>
#include <cstdio>
#include <sstream>
#include <string>

#include "gpuperf/report/views.hpp"

namespace gpuperf {

GPUPERF_FUNC std::string to_text(const KernelReport& k, bool per_pc, std::size_t per_pc_rows) {
  using detail::fmtd;
  std::ostringstream o;
  auto line = [&](const std::string& key, const std::string& val) {
    o << "  " << key << std::string(key.size() < 22 ? 22 - key.size() : 1, ' ') << val << "\n";
  };
  o << "Kernel " << k.launch_id;
  if (k.input_launch_id && k.input_launch_id != k.launch_id) o << " (launch " << k.input_launch_id << " in the input)";
  o << ": " << k.name << "\n";
  line("GPU", k.gpu + " (" + k.arch + ", " + fmtd("%.0f MHz", k.sm_clock_mhz) + ")");
  line("input", std::string(to_string(k.input_format)) + ", " + to_string(k.mode) + " model");
  std::string t = fmtd("%.2f us", k.time_us) + (k.target == Target::duration ? "  kernel duration" : "  per launch, back to back");
  if (k.time_is_lower_bound) t += " (a lower bound: the trace stops before its warps end)";
  else if (k.interval_calibrated) t += fmtd(" (80 %% interval %.2f", k.time_low_us) + fmtd(" - %.2f us)", k.time_high_us);
  else if (k.time_high_us > k.time_low_us * 1.001) t += fmtd(" (range %.2f", k.time_low_us) + fmtd(" - %.2f us)", k.time_high_us);
  line("predicted time", t);
  if (k.measured_time_us && !k.measured_on.empty())
    line("measured time", fmtd("%.2f us", *k.measured_time_us) + "  (on " + k.measured_on + ", not this GPU: no error given)");
  else if (k.measured_time_us)
    line("measured time", fmtd("%.2f us", *k.measured_time_us) + fmtd("  (error %+.1f%%)", 100 * (k.time_us - *k.measured_time_us) / *k.measured_time_us));
  line("cycles", fmtd("%.0f", k.cycles) + fmtd("  (+ %.2f us launch overhead)", k.launch_overhead_us));
  const std::string why = bottleneck_detail(k);
  line("bottleneck", to_string(k.bottleneck) + (why.empty() ? "" : ": " + why));
  const auto& b = k.bounds;
  line("bounds (cycles)", "issue " + fmtd("%.0f", b.issue) + ", unit " + fmtd("%.0f", b.functional_unit) + (b.busiest_unit.empty() ? "" : " (" + b.busiest_unit + ")") +
                              ", latency " + fmtd("%.0f", b.latency) + ", shared " + fmtd("%.0f", b.shared_memory) + ", L1 " + fmtd("%.0f", b.l1) +
                              ", L2 " + fmtd("%.0f", b.l2) + ", DRAM " + fmtd("%.0f", b.dram) + (b.atomics > 0 ? ", atomics " + fmtd("%.0f", b.atomics) : "") +
                              (b.busiest_warp > b.latency ? ", busiest warp " + fmtd("%.0f", b.busiest_warp) : "") +
                              // shown where starting the CTAs is a tenth of the time or more
                              (b.cta_dispatch >= 0.1 * k.cycles ? ", CTA dispatch " + fmtd("%.0f", b.cta_dispatch) : ""));
  const auto& oc = k.occupancy;
  line("occupancy", fmtd("%.0f%%", 100 * oc.occupancy) + " (" + std::to_string(oc.blocks_per_sm) + " CTAs x " + std::to_string(oc.warps_per_block) +
                        " warps/SM, limited by " + to_string(oc.limiter) + "; limits: warps " + std::to_string(oc.limit_warps) + ", regs " +
                        std::to_string(oc.limit_registers) + ", shared " + std::to_string(oc.limit_shared) + ", blocks " + std::to_string(oc.limit_blocks) + ")");
  line("grid", fmtd("%.0f CTAs", k.grid_ctas) + fmtd(", %.2f waves", k.waves) + fmtd(", %.0f per SM", k.ctas_per_sm) +
                   (k.tail_ctas > 0 ? fmtd(", tail %.0f", k.tail_ctas) : std::string()));
  line("instructions", detail::human_count(k.warp_instructions) + " warp, IPC " + fmtd("%.2f", k.ipc) + " per SM");
  const auto& m = k.memory;
  line("cache hit rates", "L1 " + fmtd("%.1f%%", 100 * m.l1_hit_rate) + ", L2 " + fmtd("%.1f%%", 100 * m.l2_hit_rate) + (m.hit_rates_assumed ? "  (assumed)" : "") +
                              (m.rates_profiled_on.empty() ? "" : "  (from the " + m.rates_profiled_on + " profile's counters)"));
  line("DRAM traffic", detail::human_bytes(m.dram_read_bytes) + " read, " + detail::human_bytes(m.dram_write_bytes) + " written; L2 " + detail::human_bytes(m.l2_bytes));
  if (m.atomic_l2_miss_share > 0)
    line("global atomics", fmtd("%.0f%%", 100 * m.atomic_l2_miss_share) + " of updates miss L2 (" +
                               (m.atomic_l2_miss_profiled ? "the profile's atomic misses past the lines it holds" : "their lines spread past its usable share") +
                               "), each from DRAM");
  if (m.shared_requests > 0) line("shared memory", detail::human_count(m.shared_requests) + " requests, " + fmtd("%.2f", m.shared_wavefronts / m.shared_requests) + " wavefronts each");
  const auto& r = k.roofline;
  if (r.total_flops() > 0)
    line("roofline", detail::human_count(r.total_flops()) + "FLOP (" + precision_name(r.precision) + "), AI " + fmtd("%.2f", r.ai_dram) + " FLOP/B DRAM, " +
                         fmtd("%.0f", r.achieved_gflops) + " of " + fmtd("%.0f", r.attainable_gflops) + " GFLOP/s attainable: " + roofline_bound(r));
  else
    line("roofline", "no floating-point work; AI n/a");
  auto st = k.stalls;
  double tot = st.total();
  if (tot > 0) {
    std::string s;
    for (auto& [kk, v] : st.as_map())
      if (v / tot >= 0.01) s += (s.empty() ? "" : ", ") + kk + " " + fmtd("%.0f%%", 100 * v / tot);
    line("stall breakdown", s);
  }
  if (!k.unknown_opcodes.empty()) {
    std::string s;
    for (auto& [op, n] : k.unknown_opcodes) s += (s.empty() ? "" : ", ") + op + " x" + std::to_string(n);
    line("unknown opcodes", std::to_string(k.unknown_opcodes.size()) + ": " + s);
  }
  for (auto& w : k.warnings) o << "  warning: " << explain(w) << "\n";
  if (per_pc && !k.per_pc.empty()) {
    // A source column only where the input carries line info, as wide as its longest entry.
    std::size_t rows = per_pc_rows ? std::min(per_pc_rows, k.per_pc.size()) : k.per_pc.size(), src_w = 0;
    for (std::size_t i = 0; i < rows; ++i)
      if (k.per_pc[i].source_line) src_w = std::max(src_w, detail::source_label(k.per_pc[i]).size());
    if (src_w) src_w = std::max<std::size_t>(src_w, 6);
    auto src_col = [&](const std::string& v) { return src_w ? v + std::string(src_w - v.size() + 2, ' ') : std::string(); };
    o << "\n  PC      executions   lat  II  stall/exec  top cause       " << src_col("source") << "instruction\n";
    for (std::size_t i = 0; i < rows; ++i) {
      const auto& p = k.per_pc[i];
      std::string cause = "-";
      double best = 0;
      for (auto& [kk, v] : p.stalls.as_map()) if (v > best) { best = v; cause = kk; }
      char buf[512];
      std::snprintf(buf, sizeof buf, "  %06llx  %12s  %4.0f %3.0f  %10.2f  %-14s  ", static_cast<unsigned long long>(p.pc),
                    detail::human_count(p.warp_executions).c_str(), p.latency, p.issue_interval, p.stalls.total(), cause.c_str());
      o << buf << src_col(src_w ? detail::source_label(p) : std::string()) << p.text << (p.unknown_opcode ? "   [unknown opcode]" : "") << "\n";
    }
  }
  return o.str();
}

GPUPERF_FUNC std::string to_text(const Report& r, bool per_pc) {
  std::ostringstream o;
  for (auto& k : r.kernels) o << to_text(k, per_pc) << "\n";
  if (r.kernels.size() > 1) o << "Total predicted time for " << r.kernels.size() << " launches on " << r.gpu << ": " << detail::fmtd("%.2f us", r.total_time_us) << "\n";
  return o.str();
}

}  // namespace gpuperf
