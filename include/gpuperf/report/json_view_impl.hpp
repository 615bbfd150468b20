// The JSON view's definitions (json_view.hpp). A definition file: compiled once in the
// library (src/lib/views.cpp), or included by json_view.hpp when GPUPERF_HEADER_ONLY; never
// include it beside the compiled library.
#pragma once

#include <cmath>
#include <cstdint>

#include "gpuperf/report/json_view.hpp"

namespace gpuperf {

GPUPERF_FUNC nlohmann::json to_json(const KernelReport& k) {
  using nlohmann::json;
  json j;
  j["name"] = k.name;
  j["launch_id"] = k.launch_id;
  j["input_launch_id"] = k.input_launch_id;
  j["input_format"] = to_string(k.input_format);
  j["gpu"] = k.gpu;
  j["arch"] = k.arch;
  j["mode"] = to_string(k.mode);
  j["sm_clock_mhz"] = k.sm_clock_mhz;
  j["time_us"] = k.time_us;
  j["target"] = to_string(k.target);
  j["time_range_us"] = {k.time_low_us, k.time_is_lower_bound ? json(nullptr) : json(k.time_high_us)};
  j["time_range_calibrated"] = k.interval_calibrated;
  j["time_is_lower_bound"] = k.time_is_lower_bound;
  j["cycles"] = k.cycles;
  j["launch_overhead_us"] = k.launch_overhead_us;
  j["bottleneck"] = to_string(k.bottleneck);
  j["bottleneck_detail"] = bottleneck_detail(k);
  j["bounds_cycles"] = k.bounds.as_map();
  j["busiest_unit"] = k.bounds.busiest_unit;
  const auto& o = k.occupancy;
  j["occupancy"] = {{"blocks_per_sm", o.blocks_per_sm}, {"active_warps_per_sm", o.active_warps_per_sm}, {"max_warps_per_sm", o.max_warps_per_sm},
                    {"occupancy", o.occupancy}, {"limiter", to_string(o.limiter)},
                    {"limits", {{"warps", o.limit_warps}, {"registers", o.limit_registers}, {"shared", o.limit_shared}, {"blocks", o.limit_blocks}, {"barriers", o.limit_barriers}}},
                    {"registers_per_thread", o.registers_per_thread}, {"registers_per_warp_allocated", o.registers_per_warp_allocated},
                    {"shared_per_block_allocated", o.shared_per_block_allocated}, {"shared_config_kib", o.shared_config_kib}};
  using detail::json_count;
  j["grid"] = {{"ctas", json_count(k.grid_ctas)}, {"ctas_per_sm", json_count(k.ctas_per_sm)}, {"waves", k.waves},
               {"tail_ctas", json_count(k.tail_ctas)}, {"simulated_ctas", json_count(k.simulated_ctas)}};
  j["instructions"] = {{"warp", json_count(k.warp_instructions)}, {"thread", json_count(k.thread_instructions)}, {"ipc", k.ipc}};
  const auto& m = k.memory;
  j["memory"] = {{"global_load_requests", json_count(m.global_load_requests)}, {"global_store_requests", json_count(m.global_store_requests)},
                 {"atomic_requests", json_count(m.atomic_requests)}, {"global_load_sectors", json_count(m.global_load_sectors)},
                 {"global_store_sectors", json_count(m.global_store_sectors)}, {"global_store_lines", json_count(m.global_store_lines)},
                 {"global_store_partial_sectors", json_count(m.global_store_partial_sectors)},
                 {"global_store_partial_lines", json_count(m.global_store_partial_lines)},
                 {"shared_requests", json_count(m.shared_requests)}, {"shared_wavefronts", json_count(m.shared_wavefronts)},
                 {"l1_hit_rate", m.l1_hit_rate}, {"l2_hit_rate", m.l2_hit_rate}, {"hit_rates_assumed", m.hit_rates_assumed},
                 {"hit_rates_profiled_on", m.rates_profiled_on}, {"hit_rate_basis", hit_rate_basis(m)}, {"dram_read_bytes", m.dram_read_bytes}, {"dram_write_bytes", m.dram_write_bytes},
                 {"l2_bytes", m.l2_bytes}, {"atomic_l2_miss_share", m.atomic_l2_miss_share}, {"avg_load_latency_cycles", m.avg_load_latency}};
  const auto& r = k.roofline;
  j["roofline"] = {{"flops", {{"fp16", r.flops_fp16}, {"fp32", r.flops_fp32}, {"fp64", r.flops_fp64}, {"tensor", r.flops_tensor}}},
                   {"bytes", {{"l1", r.bytes_l1}, {"l2", r.bytes_l2}, {"dram", r.bytes_dram}}},
                   {"arithmetic_intensity", {{"l1", r.ai_l1}, {"l2", r.ai_l2}, {"dram", r.ai_dram}}},
                   {"precision", precision_name(r.precision)}, {"peak_gflops", r.peak_gflops}, {"dram_gbs", r.dram_gbs}, {"l2_gbs", r.l2_gbs},
                   {"attainable_gflops", r.attainable_gflops}, {"achieved_gflops", r.achieved_gflops}, {"bound", roofline_bound(r)}};
  j["stalls_cycles"] = to_json(k.stalls);
  j["per_pc"] = json::array();
  for (auto& p : k.per_pc) {
    json row = {{"pc", p.pc}, {"text", p.text}, {"class", p.op_class}, {"warp_executions", detail::json_count(p.warp_executions)},
                {"latency", p.latency}, {"issue_interval", p.issue_interval}, {"stalls_per_execution", to_json(p.stalls)},
                {"stall_cycles_total", p.stall_cycles_total}, {"unknown_opcode", p.unknown_opcode}};
    if (p.source_line) {  // only where the input carries line info
      row["source_line"] = p.source_line;
      if (!p.source_file.empty()) row["source_file"] = p.source_file;
    }
    j["per_pc"].push_back(std::move(row));
  }
  j["unknown_opcodes"] = k.unknown_opcodes;
  j["warnings"] = explain(k.warnings);
  j["warning_codes"] = json::array();  // one per warning, in the same order
  for (const auto& w : k.warnings) j["warning_codes"].push_back(to_string(w.code));
  if (k.measured_time_us) j["measured_time_us"] = *k.measured_time_us;
  if (!k.measured_on.empty()) j["measured_on"] = k.measured_on;
  return j;
}

GPUPERF_FUNC nlohmann::json to_json(const Report& r) {
  nlohmann::json j;
  j["schema"] = kReportSchema;
  j["tool_version"] = r.tool_version;
  j["gpu"] = r.gpu;
  j["total_time_us"] = r.total_time_us;
  j["kernels"] = nlohmann::json::array();
  for (auto& k : r.kernels) j["kernels"].push_back(to_json(k));
  j["warnings"] = r.warnings;
  return j;
}

}  // namespace gpuperf
