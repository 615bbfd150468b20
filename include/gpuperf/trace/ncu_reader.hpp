// Nsight Compute CSV exports: the source page (SASS + per-instruction counters, one section
// per launch) and the raw page (one row per launch: launch configuration, device
// attributes and run metrics). Work descriptions go into the Kernel; everything measured
// about the run (time, cycles, stall samples, hit rates, DRAM bytes) goes into Measurement.
#pragma once

#include <cctype>
#include <cmath>
#include <map>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "gpuperf/checked.hpp"
#include "gpuperf/sass/instruction.hpp"
#include "gpuperf/sass/memory_ops.hpp"
#include "gpuperf/trace/static_instr.hpp"
#include "gpuperf/trace/byte_source.hpp"
#include "gpuperf/trace/ir.hpp"
#include "gpuperf/trace/text_scan.hpp"

namespace gpuperf {

namespace csv {

// Splits one CSV record (no embedded newlines, as ncu writes them). Quotes are removed.
// `starts`, if given, receives each field's 1-based column for error messages.
inline void split(std::string_view line, std::vector<std::string>& out, const std::string& file, std::uint64_t ln,
                  std::vector<std::uint32_t>* starts = nullptr) {
  out.clear();
  if (starts) { starts->clear(); starts->push_back(1); }
  std::string cur;
  bool inq = false;
  for (std::size_t i = 0; i < line.size(); ++i) {
    char c = line[i];
    if (inq) {
      if (c == '"') {
        if (i + 1 < line.size() && line[i + 1] == '"') { cur.push_back('"'); ++i; }
        else inq = false;
      } else cur.push_back(c);
    } else if (c == '"') inq = true;
    else if (c == ',') {
      out.push_back(std::move(cur));
      cur.clear();
      if (starts) starts->push_back(static_cast<std::uint32_t>(std::min<std::size_t>(i + 2, UINT32_MAX)));
    } else cur.push_back(c);
  }
  if (inq) throw ParseError(file, ln, static_cast<std::uint32_t>(line.size()), "expected a closing '\"' in CSV record");
  out.push_back(std::move(cur));
}

// A cell that holds no value: "", "-" or "n/a" (ncu prints "-" where a counter does not apply).
inline bool blank(const std::string& s) {
  std::string_view t = scan::trim(s);
  return t.empty() || t == "-" || t == "n/a" || t == "N/A";
}

// "1,024" -> 1024; "-" or "" -> nullopt-like NaN.
inline double number(const std::string& s) {
  std::string t;
  t.reserve(s.size());
  for (char c : s) if (c != ',' && c != ' ') t.push_back(c);
  if (t.empty() || t == "-" || t == "n/a" || t == "N/A") return std::nan("");
  char* end = nullptr;
  double v = std::strtod(t.c_str(), &end);
  if (end == t.c_str() || *end != '\0') return std::nan("");
  return v;
}

}  // namespace csv

inline bool looks_like_ncu_source(std::string_view head) { return scan::starts_with(head, "\"Kernel Name\","); }
// The raw page's header row is thousands of characters of metric names; the details page
// has a short one with "Section Name".
inline bool looks_like_ncu_raw(std::string_view head) {
  auto first = head.substr(0, head.find('\n'));
  return scan::starts_with(head, "\"ID\",") && first.find("\"Kernel Name\"") != std::string_view::npos &&
         first.find("\"Section Name\"") == std::string_view::npos;
}

struct NcuSourceSection {
  std::string kernel_name;
  std::vector<StaticInstr> program;
  std::map<std::uint64_t, std::map<std::string, double>> stall_samples;
  std::uint64_t first_line = 0;
  bool same_as(const NcuSourceSection& o) const {
    if (kernel_name != o.kernel_name || program.size() != o.program.size()) return false;
    for (std::size_t i = 0; i < program.size(); ++i) {
      auto &a = program[i], &b = o.program[i];
      if (a.pc != b.pc || a.text != b.text || a.warp_executed != b.warp_executed || a.thread_executed != b.thread_executed) return false;
    }
    return stall_samples == o.stall_samples;
  }
};

inline std::vector<NcuSourceSection> read_ncu_source(const std::string& path) {
  LineReader lr(path);
  std::string_view line;
  std::vector<NcuSourceSection> out;
  std::vector<std::string> f, header;
  std::vector<std::uint32_t> starts;
  std::unordered_map<std::string, int> col;
  auto idx = [&](const char* name) { auto it = col.find(name); return it == col.end() ? -1 : it->second; };
  while (lr.next(line)) {
    if (line.empty()) continue;
    if (scan::has_binary_junk(line)) throw ParseError(path, lr.line_number(), 1, "expected CSV text, found binary data");
    csv::split(line, f, path, lr.line_number(), &starts);
    if (f.size() >= 2 && f[0] == "Kernel Name") {
      out.emplace_back();
      out.back().kernel_name = f[1];
      out.back().first_line = lr.line_number();
      header.clear();
      continue;
    }
    if (f.size() >= 2 && f[0] == "Address" && f[1] == "Source") {
      header = f;
      col.clear();
      for (std::size_t i = 0; i < header.size(); ++i) col[header[i]] = static_cast<int>(i);
      if (idx("Instructions Executed") < 0)
        throw ParseError(path, lr.line_number(), 1, "expected an 'Instructions Executed' column in the source page (export with --section SourceCounters)");
      continue;
    }
    if (out.empty() || header.empty())
      throw ParseError(path, lr.line_number(), 1, "expected a '\"Kernel Name\",...' line then an '\"Address\",\"Source\",...' header");
    if (f.size() != header.size())
      throw ParseError(path, lr.line_number(), 1, "expected " + std::to_string(header.size()) + " CSV fields, found " + std::to_string(f.size()));
    auto& sec = out.back();
    std::uint64_t pc = 0;
    {
      std::string_view a = f[0];
      if (scan::starts_with(a, "0x")) a.remove_prefix(2);
      auto r = std::from_chars(a.data(), a.data() + a.size(), pc, 16);
      if (r.ec != std::errc()) throw ParseError(path, lr.line_number(), 2, "expected a hexadecimal instruction address, found '" + f[0] + "'");
    }
    sass::ParsedInstruction p;
    StaticInstr s = sass::static_instr_from_text(pc, scan::trim(f[1]), &p);
    if (!p.branch_target.empty() && scan::starts_with(p.branch_target, "0x")) {
      std::uint64_t v = 0;
      auto r = std::from_chars(p.branch_target.data() + 2, p.branch_target.data() + p.branch_target.size(), v, 16);
      if (r.ec == std::errc()) s.branch_target = v;
    }
    auto num = [&](const char* name) -> double { int i = idx(name); return i < 0 ? std::nan("") : csv::number(f[static_cast<std::size_t>(i)]); };
    auto bad = [&](int i, const std::string& expected) {
      auto u = static_cast<std::size_t>(i);
      throw ParseError(path, lr.line_number(), starts[u], "column '" + header[u] + "': expected " + expected + ", found '" + f[u] + "'");
    };
    // Counts: a blank cell is a counter that does not apply (0); anything else must be a
    // finite, non-negative number (inf, nan or -1 would become a huge or zero count).
    auto u64 = [&](const char* name) -> std::uint64_t {
      int i = idx(name);
      if (i < 0 || csv::blank(f[static_cast<std::size_t>(i)])) return 0;
      auto v = checked_round<std::uint64_t>(csv::number(f[static_cast<std::size_t>(i)]), 0, std::uint64_t(1) << 53);
      if (!v) bad(i, "a count in 0..2^53");
      return *v;
    };
    s.warp_executed = u64("Instructions Executed");
    s.thread_executed = u64("Thread Instructions Executed");
    s.pred_on_thread_executed = u64("Predicated-On Thread Instructions Executed");
    s.counts_known = true;
    if (int i = idx("Address Space"); i >= 0) {
      auto& v = f[static_cast<std::size_t>(i)];
      if (v == "Global") s.space = MemSpace::global;
      else if (v == "Shared") s.space = MemSpace::shared;
      else if (v == "Local") s.space = MemSpace::local;
    }
    if (int i = idx("Access Operation"); i >= 0) {
      auto& v = f[static_cast<std::size_t>(i)];
      if (v == "Load") s.mem_op = MemOp::load;
      else if (v == "Store") s.mem_op = MemOp::store;
      else if (v == "Atomic") s.mem_op = MemOp::atomic;
      else if (v == "Reduction") s.mem_op = MemOp::reduction;
    }
    if (int i = idx("Access Size"); i >= 0 && !csv::blank(f[static_cast<std::size_t>(i)])) {
      auto v = checked_integer<std::uint32_t>(csv::number(f[static_cast<std::size_t>(i)]), 0, 1024);
      if (!v) bad(i, "an access size in 0..1024 bits");
      if (*v > 0) s.access_bits = *v;
    }
    s.l1_tag_requests = u64("L1 Tag Requests Global");
    s.global_sectors = u64("L2 Theoretical Sectors Global");
    s.global_sectors_ideal = u64("L2 Theoretical Sectors Global Ideal");
    // Shared-memory wavefronts: ncu's "L1 Conflicts Shared N-Way" is the average number of
    // ways (bank passes) per request, so wavefronts = requests x N.
    if (s.space == MemSpace::shared && s.mem_op != MemOp::none) {
      double ways = num("L1 Conflicts Shared N-Way");
      ways = std::isfinite(ways) ? std::clamp(ways, 1.0, 64.0) : 1.0;  // a 32-bank access needs at most 32 passes
      s.shared_wavefronts = static_cast<std::uint64_t>(std::llround(double(s.warp_executed) * ways));
    }
    for (std::size_t i = 0; i < header.size(); ++i) {
      if (scan::starts_with(header[i], "stall_") || header[i].find("Samples") != std::string::npos) {
        double v = csv::number(f[i]);
        if (std::isfinite(v) && v > 0) sec.stall_samples[s.pc][header[i]] = v;
      }
    }
    sec.program.push_back(std::move(s));
  }
  if (out.empty()) throw ParseError(path, lr.line_number(), 1, "expected at least one '\"Kernel Name\"' section in the ncu source export");
  return out;
}

// ncu prints some launches twice in a row on the source page, identically: the sections with
// such a repeat dropped. (A program that launches one kernel twice gives two identical
// sections too, and two raw rows: join_ncu keeps every section when the counts agree.)
inline std::vector<NcuSourceSection> drop_repeated_sections(std::vector<NcuSourceSection> secs) {
  std::vector<NcuSourceSection> kept;
  for (auto& s : secs)
    if (kept.empty() || !kept.back().same_as(s)) kept.push_back(std::move(s));
  return kept;
}

struct NcuRawRow {
  LaunchConfig launch;
  ProfiledTraffic traffic;
  Measurement measured;
  std::map<std::string, double> device_attributes;
  std::string device_name;
};

inline double unit_scale_to_us(const std::string& unit) {
  if (unit == "s" || unit == "second") return 1e6;
  if (unit == "ms" || unit == "msecond") return 1e3;
  if (unit == "us" || unit == "usecond") return 1.0;
  if (unit == "ns" || unit == "nsecond") return 1e-3;
  return std::nan("");
}

inline double unit_scale_bytes(std::string unit) {
  if (auto slash = unit.find('/'); slash != std::string::npos) unit = unit.substr(0, slash);  // "Kbyte/block"
  if (unit == "byte" || unit.empty()) return 1;
  if (unit == "Kbyte") return 1e3;
  if (unit == "Mbyte") return 1e6;
  if (unit == "Gbyte") return 1e9;
  if (unit == "KB" || unit == "KiB" || unit == "Kibyte") return 1024;
  return std::nan("");
}

// The memory-traffic counters of a raw-page row (all of them, or none: a partial set would
// mix measured and assumed reuse). Each is checked where it enters: a sector count is a
// finite non-negative number, bytes come in a known unit.
inline ProfiledTraffic read_traffic(const std::vector<std::string>& header, const std::vector<std::string>& units, const std::vector<std::string>& f,
                                    const std::vector<std::uint32_t>& starts, const std::unordered_map<std::string, int>& col,
                                    const std::string& path, std::size_t line) {
  ProfiledTraffic t;
  struct Field { const char* name; double* to; bool bytes; };
  const Field fields[] = {
      {"l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum", &t.l1_load_sectors, false},
      {"l1tex__t_sectors_pipe_lsu_mem_global_op_ld_lookup_hit.sum", &t.l1_load_hit_sectors, false},
      {"l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum", &t.l1_store_sectors, false},
      {"lts__t_sectors_op_read.sum", &t.l2_read_sectors, false},
      {"lts__t_sectors_op_read_lookup_hit.sum", &t.l2_read_hit_sectors, false},
      {"lts__t_sectors_op_write.sum", &t.l2_write_sectors, false},
      {"lts__t_sectors_op_atom.sum", &t.l2_atomic_sectors, false},
      {"dram__bytes_read.sum", &t.dram_read_bytes, true},
      {"dram__bytes_write.sum", &t.dram_write_bytes, true},
      {"device__attribute_l2_cache_size", &t.l2_bytes, true},
  };
  for (const Field& fd : fields) {
    auto it = col.find(fd.name);
    if (it == col.end() || csv::blank(f[static_cast<std::size_t>(it->second)])) return {};
  }
  // Column i's value, checked: a non-negative count of `what`, or a size in bytes in a known unit.
  auto checked = [&](std::size_t i, bool bytes, const char* what = "sector count") {
    const double v = csv::number(f[i]) * (bytes ? unit_scale_bytes(units[i]) : 1.0);
    if (!std::isfinite(v) || v < 0 || v > 1e18)
      throw ParseError(path, line, starts[i], "column '" + header[i] + "': expected a non-negative " + (bytes ? "size in a known unit" : what) +
                                              ", found '" + f[i] + "'" + (units[i].empty() ? "" : " " + units[i]));
    return v;
  };
  // The index of an optional column where this row has a value in it.
  auto optional_column = [&](const char* name) -> std::optional<std::size_t> {
    auto it = col.find(name);
    if (it == col.end() || csv::blank(f[static_cast<std::size_t>(it->second)])) return std::nullopt;
    return static_cast<std::size_t>(it->second);
  };
  for (const Field& fd : fields) *fd.to = checked(static_cast<std::size_t>(col.at(fd.name)), fd.bytes);
  // The busiest slice's atomics and reductions, where the profile has them (older sets lack them).
  for (const char* name : {"lts__t_sectors_op_atom.max", "lts__t_sectors_op_red.max"})
    if (auto i = optional_column(name)) t.l2_atomic_ops_busiest_slice += checked(*i, false);
  if (auto i = optional_column("lts__t_sectors_op_red.sum")) t.l2_reduction_sectors = checked(*i, false);
  // The atomics' L2 misses where the profile has both columns (one alone would miss a kind).
  const auto atom_miss = optional_column("lts__t_sectors_op_atom_lookup_miss.sum"), red_miss = optional_column("lts__t_sectors_op_red_lookup_miss.sum");
  if (atom_miss && red_miss) t.l2_atomic_miss_sectors = checked(*atom_miss, false) + checked(*red_miss, false);
  // The L2 reads from L1 and their hits, where the profile has both.
  const auto l1_reads = optional_column("lts__t_sectors_srcunit_tex_op_read.sum"), l1_hits = optional_column("lts__t_sectors_srcunit_tex_op_read_lookup_hit.sum");
  if (l1_reads && l1_hits) {
    t.l2_read_from_l1_sectors = checked(*l1_reads, false);
    t.l2_read_from_l1_hit_sectors = checked(*l1_hits, false);
  }
  // The instructions' spread over the sub-partitions and the SMs of the run, where present.
  const std::pair<const char*, double*> spread[] = {{"smsp__inst_executed.max", &t.busiest_subpartition_instructions},
                                                    {"smsp__inst_executed.avg", &t.mean_subpartition_instructions},
                                                    {"launch__sm_count", &t.sms}};
  for (auto [name, to] : spread)
    if (auto i = optional_column(name)) *to = checked(*i, false, "count");
  if (t.busiest_subpartition_instructions > 0 && t.busiest_subpartition_instructions < t.mean_subpartition_instructions) {
    auto i = static_cast<std::size_t>(col.at("smsp__inst_executed.max"));
    throw ParseError(path, line, starts[i], "column '" + header[i] + "': expected the busiest sub-partition's instructions, at least their mean (" +
                                                f[static_cast<std::size_t>(col.at("smsp__inst_executed.avg"))] + "), found '" + f[i] + "'");
  }
  // Hits may exceed lookups by a little: Nsight Compute counts them in different replay passes
  // (55805 hits of 55520 L2 read lookups in a real CUTLASS profile). The model clamps the rates.
  if (t.l2_bytes <= 0) {
    auto i = static_cast<std::size_t>(col.at("device__attribute_l2_cache_size"));
    throw ParseError(path, line, starts[i], "column '" + header[i] + "': expected the L2 size of the profiled GPU in bytes, found '" + f[i] + "'");
  }
  t.present = true;
  return t;
}

inline std::vector<NcuRawRow> read_ncu_raw(const std::string& path) {
  LineReader lr(path);
  std::string_view line;
  std::vector<std::string> header, units, f;
  std::vector<std::uint32_t> starts;
  std::vector<NcuRawRow> rows;
  std::unordered_map<std::string, int> col;
  while (lr.next(line)) {
    if (line.empty()) continue;
    if (scan::has_binary_junk(line)) throw ParseError(path, lr.line_number(), 1, "expected CSV text, found binary data");
    csv::split(line, f, path, lr.line_number(), &starts);
    if (header.empty()) {
      header = f;
      for (std::size_t i = 0; i < header.size(); ++i) col[header[i]] = static_cast<int>(i);
      if (!col.count("Kernel Name")) throw ParseError(path, lr.line_number(), 1, "expected a 'Kernel Name' column in the ncu raw export");
      continue;
    }
    if (units.empty() && !f.empty() && f[0].empty()) {
      if (f.size() != header.size())
        throw ParseError(path, lr.line_number(), 1, "expected " + std::to_string(header.size()) + " CSV fields in the units row, found " + std::to_string(f.size()));
      units = f;
      continue;
    }
    if (f.size() != header.size())
      throw ParseError(path, lr.line_number(), 1, "expected " + std::to_string(header.size()) + " CSV fields, found " + std::to_string(f.size()));
    if (units.empty()) units.assign(header.size(), "");
    NcuRawRow r;
    auto get = [&](const char* name) -> const std::string* { auto it = col.find(name); return it == col.end() ? nullptr : &f[static_cast<std::size_t>(it->second)]; };
    auto num = [&](const char* name) -> double { auto* s = get(name); return s ? csv::number(*s) : std::nan(""); };
    auto unit = [&](const char* name) -> std::string { auto it = col.find(name); return it == col.end() ? "" : units[static_cast<std::size_t>(it->second)]; };
    r.launch.name = *get("Kernel Name");
    // Every launch value is checked where it enters: a NaN, inf, -1 or 1e30 never reaches a
    // cast, and each must be something a GPU can launch.
    auto column = [&](const char* name) { auto it = col.find(name); return it == col.end() ? -1 : it->second; };
    auto bad = [&](int i, const std::string& expected) -> void {
      auto u = static_cast<std::size_t>(i);
      throw ParseError(path, lr.line_number(), starts[u], "column '" + header[u] + "': expected " + expected + ", found '" + f[u] + "'");
    };
    auto integer = [&](const char* name, std::uint32_t lo, std::uint32_t hi, std::uint32_t fallback, bool required, const char* why) -> std::uint32_t {
      int i = column(name);
      if (i < 0 || csv::blank(f[static_cast<std::size_t>(i)])) {
        if (required) throw ParseError(path, lr.line_number(), 1, std::string("expected a value for ") + name + " in the raw export (" + why + ")");
        return fallback;
      }
      auto v = checked_integer<std::uint32_t>(csv::number(f[static_cast<std::size_t>(i)]), lo, hi);
      if (!v) bad(i, "an integer in " + range_text(lo, hi));
      return *v;
    };
    if (column("ID") >= 0) r.launch.id = integer("ID", 0, 0xfffffffeu, 0, false, "") + 1;
    const char* stats = "collect with --section LaunchStats";
    r.launch.grid.x = integer("launch__grid_dim_x", 1, 0x7fffffffu, 1, true, stats);
    r.launch.grid.y = integer("launch__grid_dim_y", 1, 65535, 1, true, stats);
    r.launch.grid.z = integer("launch__grid_dim_z", 1, 65535, 1, true, stats);
    r.launch.block.x = integer("launch__block_dim_x", 1, 1024, 1, true, stats);
    r.launch.block.y = integer("launch__block_dim_y", 1, 1024, 1, true, stats);
    r.launch.block.z = integer("launch__block_dim_z", 1, 64, 1, true, stats);
    if (r.launch.block.count() > 1024)
      throw ParseError(path, lr.line_number(), starts[static_cast<std::size_t>(column("launch__block_dim_x"))],
                       "expected at most 1024 threads per block, found " + std::to_string(r.launch.block.count()));
    r.launch.registers_per_thread = integer("launch__registers_per_thread", 0, 255, 0, false, "");
    auto shared = [&](const char* name) -> std::uint32_t {
      int i = column(name);
      if (i < 0 || csv::blank(f[static_cast<std::size_t>(i)])) return 0;
      double scale = unit_scale_bytes(unit(name));
      if (std::isnan(scale)) bad(i, "a size in a known unit (byte, Kbyte, Mbyte, KiB), unit '" + unit(name) + "'");
      auto v = checked_round<std::uint32_t>(csv::number(f[static_cast<std::size_t>(i)]) * scale, 0, 256u << 10);
      if (!v) bad(i, "a shared-memory size in 0..262144 bytes");
      return *v;
    };
    r.launch.static_shared_bytes = shared("launch__shared_mem_per_block_static");
    r.launch.dynamic_shared_bytes = shared("launch__shared_mem_per_block_dynamic");
    if (int i = column("CC"); i >= 0 && !csv::blank(f[static_cast<std::size_t>(i)])) {
      auto v = checked_round<std::uint32_t>(csv::number(f[static_cast<std::size_t>(i)]) * 10, 10, 200);
      if (!v) bad(i, "a compute capability like 9.0");
      r.launch.sm_version = *v;
    }
    r.launch.cuda_stream = integer("launch__stream_id", 0, 0xffffffffu, 0, false, "");
    if (auto* dn = get("device__attribute_display_name")) r.device_name = *dn;
    // Measured: the run's time and cycles, in the units the export states.
    // Measurements only label reports; an impossible one (inf, nan, negative) is dropped.
    double t = num("gpu__time_duration.sum"), ts = unit_scale_to_us(unit("gpu__time_duration.sum"));
    if (std::isfinite(t * ts) && t >= 0) r.measured.time_us = t * ts;
    double cyc = num("gpc__cycles_elapsed.max");
    if (std::isfinite(cyc) && cyc >= 0) r.measured.cycles = cyc;
    double clk = num("gpc__cycles_elapsed.max.per_second");
    if (std::isfinite(clk) && clk > 0) {
      std::string u = unit("gpc__cycles_elapsed.max.per_second");
      r.measured.sm_clock_ghz = u == "Ghz" || u == "GHz" ? clk : (u == "Mhz" || u == "MHz" ? clk / 1e3 : clk / 1e9);
    }
    r.traffic = read_traffic(header, units, f, starts, col, path, lr.line_number());
    if (r.traffic.present) r.traffic.gpu = r.device_name;
    for (std::size_t i = 0; i < header.size(); ++i) {
      const auto& h = header[i];
      double v = csv::number(f[i]);
      if (!std::isfinite(v)) continue;
      if (scan::starts_with(h, "device__attribute_")) r.device_attributes[h.substr(18)] = v;
      else if (scan::starts_with(h, "launch__occupancy_limit_") || h == "launch__shared_mem_config_size" || scan::starts_with(h, "dram__") || scan::starts_with(h, "lts__") ||
               scan::starts_with(h, "l1tex__") || scan::starts_with(h, "sm__") || scan::starts_with(h, "smsp__") ||
               scan::starts_with(h, "gpu__") || scan::starts_with(h, "gpc__"))
        r.measured.metrics[h] = v;
    }
    rows.push_back(std::move(r));
  }
  if (rows.empty()) throw ParseError(path, lr.line_number(), 1, "expected at least one launch row in the ncu raw export");
  return rows;
}

// The function identifier of a demangled name: template arguments, parameters and lambda
// brackets dropped, then the last namespace component. The two ncu pages print the same
// kernel differently ("<(int)16>" vs "<16>", "at::native::" vs "native::").
inline std::string ncu_base_name(const std::string& demangled) {
  // The raw page abbreviates an anonymous namespace "<unnamed>" to "unnamed>", an unbalanced
  // bracket that would hide the rest of the name: both spellings become "unnamed" first. A
  // "<unnamed>" right after an identifier is a template's bracket and the abbreviation
  // ("Copy<unnamed>::T<4>" on the raw page): its '<' stays.
  std::string name;
  for (std::size_t i = 0; i < demangled.size();) {
    if (demangled.compare(i, 9, "<unnamed>") == 0) {
      const char prev = i ? demangled[i - 1] : ' ';
      const bool after_identifier = std::isalnum(static_cast<unsigned char>(prev)) || prev == '_';
      name += after_identifier ? "<unnamed" : "unnamed";
      i += 9;
    } else if (demangled.compare(i, 8, "unnamed>") == 0) {
      name += "unnamed";
      i += 8;
    } else {
      name += demangled[i++];
    }
  }
  std::string flat;
  int depth = 0;
  for (char c : name) {
    if (c == '<' || c == '(' || c == '[') { ++depth; continue; }
    if (c == '>' || c == ')' || c == ']') { if (depth > 0) --depth; continue; }
    if (depth == 0) flat.push_back(c);
  }
  auto col = flat.rfind("::");
  if (col != std::string::npos) flat = flat.substr(col + 2);
  auto sp = flat.find_last_of(' ');
  if (sp != std::string::npos) flat = flat.substr(sp + 1);
  return flat;
}

// Pairs source sections with raw rows in launch order, checking names agree.
inline Application join_ncu(const std::string& source_path, const std::string& raw_path) {
  auto secs = read_ncu_source(source_path);
  auto rows = read_ncu_raw(raw_path);
  if (secs.size() != rows.size()) secs = drop_repeated_sections(std::move(secs));
  if (secs.size() != rows.size())
    throw FormatError(source_path + ": has " + std::to_string(secs.size()) + " kernel sections (after dropping repeats) but " + raw_path +
                      " has " + std::to_string(rows.size()) + " launch rows; export both pages from the same report");
  Application app;
  for (std::size_t i = 0; i < secs.size(); ++i) {
    // The source page prints template arguments as "<(int)16>", the raw page as "<16>":
    // compare the function identifiers.
    if (secs[i].kernel_name != rows[i].launch.name && ncu_base_name(secs[i].kernel_name) != ncu_base_name(rows[i].launch.name))
      throw FormatError(source_path + ":" + std::to_string(secs[i].first_line) + ": launch " + std::to_string(i + 1) + " is '" + secs[i].kernel_name +
                        "' but the raw page's row " + std::to_string(i + 1) + " is '" + rows[i].launch.name + "'");
    Kernel k;
    k.format = SourceFormat::ncu_csv;
    k.source_path = source_path;
    k.launch = rows[i].launch;
    k.launch.id = static_cast<std::uint32_t>(i + 1);
    k.program = std::move(secs[i].program);
    k.profiled_traffic = rows[i].traffic;
    Measurement m = rows[i].measured;
    m.device = rows[i].device_name;
    m.stall_samples_by_pc = std::move(secs[i].stall_samples);
    for (auto& [key, v] : rows[i].device_attributes) m.metrics["device__attribute_" + key] = v;
    app.kernels.push_back(std::move(k));
    app.measurements.push_back(std::move(m));
    if (app.device_name.empty()) app.device_name = rows[i].device_name;
  }
  return app;
}

}  // namespace gpuperf
