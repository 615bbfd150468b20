// GpuSpec: the value type what-if studies change. Built from the catalog, then edited
// (clock, SM count, DRAM bandwidth, L2 size, latencies) and passed to predict().
#pragma once

#include <cmath>
#include <cstdio>
#include <limits>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "gpuperf/arch/tables.hpp"

namespace gpuperf {

namespace detail {
// A range bound as people write it: 0, 1, 0.001.
inline std::string knob_number(double x) {
  char b[32];
  std::snprintf(b, sizeof b, "%g", x);
  return b;
}
}  // namespace detail

// Bounds of log(measured / predicted) that hold a stated share of a corpus' launches: the
// calibrated prediction interval of one model mode and target (model/interval.hpp).
struct LogInterval {
  double low = 0, high = 0;
};

// Per model mode (simulation of traces, bounds from counts) and prediction target (the
// kernel's duration, back-to-back launches); empty where the GPU has no fitted interval.
struct CalibratedIntervals {
  std::optional<LogInterval> simulation_duration, bounds_duration, simulation_back_to_back, bounds_back_to_back;
};

struct GpuSpec {
  std::string name;            // catalog name, or a user label
  std::string arch;            // "sm_90"
  std::shared_ptr<const Tables> tables;
  int sms = 0;
  double sm_clock_mhz = 0;     // the clock predictions convert cycles with (default: boost)
  double dram_bandwidth_gbs = 0;
  double dram_efficiency = 0.8;
  double l2_bytes = 0;
  double l2_bandwidth_gbs = 0;
  // Memory latencies in SM cycles at sm_clock_mhz (what-if knobs; defaults from the arch table).
  // L1, L2 and shared memory run in cycles of the SM clock; DRAM latency is a physical time
  // (a pointer chase takes the same ns at another core clock, F0:L1436-1445), so it is
  // converted from the clock it was measured at and rescaled when the clock changes.
  double l1_hit_latency = 0, l2_hit_latency = 0, dram_latency = 0, shared_latency = 0;
  // SM cycles at sm_clock_mhz per cycle of the clock the arch table's DRAM latencies (and
  // their loaded-latency curve) were measured at.
  double dram_cycle_scale = 1.0;
  // Launch terms added to the kernel body, one per prediction target: the kernel's own duration
  // (what a profiler reports) and the time per launch of back-to-back launches (CUDA events).
  double launch_overhead_us = 0;
  double launch_back_to_back_us = 0;
  double launch_period_back_to_back_us = 0;  // shortest time a launch back to back takes (0: none)
  double alu_latency_scale = 1.0;  // scales every ALU class latency (what-if)
  // How the SM's throughput time and the DRAM and L2 transfer times overlap, per model mode:
  // the exponent of their p-norm (bound::sm_and_memory), fitted on a measured corpus; 0: not
  // fitted, perfect overlap (the largest).
  double overlap_exponent_simulation = 0, overlap_exponent_bounds = 0;
  CalibratedIntervals intervals;
  // SM cycles per CTA the GPU takes to start a grid's CTAs, over warps per CTA (the arch
  // table's measured curve), resolved once here rather than by name on every prediction; a
  // copy, so it stays valid in copies of the spec; empty where the table has no measurement.
  std::optional<Curve> cta_dispatch_interval;
  // SM cycles from a CTA's exit to the next one's start on an SM that holds one at a time
  // (memory.cta_turnaround_cycles; 0 where the table has no measurement), resolved alike.
  double cta_turnaround_cycles = 0;
  // SM cycles a CTA slot stands idle between one CTA's exit and the next one's start when every
  // slot of a loaded SM turns over, over warps per CTA (the arch table's measured curve; empty
  // where it has none: CTAs then start at once).
  std::optional<Curve> cta_slot_turnaround;
  // The other measured curves every prediction reads, resolved here the same way: DRAM latency
  // over resident warps per SM (its rise with load), and the L2's global atomic rate over the
  // consecutive words updated (integer; f32 where measured apart) and over the lines updated,
  // one word in each.
  std::optional<Curve> dram_latency_vs_warps, atomic_rate, atomic_rate_f32, atomic_rate_lines;
  // A warp request's DRAM and L2 hit latencies by the lines it spans (absent: as one line's).
  std::optional<Curve> dram_latency_vs_lines, l2_latency_vs_lines;
  // L2 takes at most this fraction of its read rate in sectors (l2_bandwidth_gbs) as store
  // line-writes, whatever part of a line each writes (the arch table's measurement, resolved once
  // here; 0 where it has none: no line limit).
  double l2_store_line_rate_fraction = 0;
  // L2 takes line-writes (the SMs' stores and the fills from DRAM) at this fraction of its read
  // rate, beside its reads (0 where unmeasured: stores at the read rate after the reads, fills
  // free); a kernel started on a cold L2 ends with this share of the L2 still dirty, written
  // back after it (0: every dirtied sector is written back during the kernel).
  double l2_write_rate_fraction = 0, l2_dirty_retained_fraction = 0;
  // Global atomics whose line the L2 no longer holds (a scattered footprint past its usable
  // share, l2_usable_share of l2_bytes) go at this rate, updates per ns over the whole GPU: each
  // fetches its sector from DRAM and evicts a dirty line (0 where unmeasured: at the L2's rate).
  // A physical rate: a clock what-if keeps the ns.
  double atomic_l2_miss_updates_per_ns = 0, l2_usable_share = 1;

  static std::string fmt(double d) {
    char b[32];
    std::snprintf(b, sizeof b, "%.10g", d);
    return b;
  }

  const ArchTable& arch_table() const { return tables->arch(arch); }
  double cycles_to_us(double cycles) const { return cycles / sm_clock_mhz; }

  static GpuSpec from_catalog(std::shared_ptr<const Tables> t, const std::string& name_or_alias) {
    const GpuEntry& g = t->gpu(name_or_alias);
    GpuSpec s;
    s.tables = t;
    s.name = g.name;
    s.arch = g.arch;
    const ArchTable& a = t->arch(g.arch);
    auto sms = checked_integer<int>(g.get("sms"), 1, 65536);
    if (!sms) throw TableError("GPU " + g.name + ": sms must be a whole number in 1..65536 (`gpuperf tables check` lists table problems)");
    s.sms = *sms;
    s.sm_clock_mhz = g.get("boost_clock_mhz");
    s.dram_bandwidth_gbs = g.get("dram_bandwidth_gbs");
    s.dram_efficiency = g.get("dram_efficiency");
    s.l2_bytes = g.get("l2_mib") * 1024.0 * 1024.0;
    s.l2_bandwidth_gbs = g.get("l2_bandwidth_gbs");
    s.l1_hit_latency = a.mem("l1_hit_latency_cycles");
    s.l2_hit_latency = a.mem("l2_hit_latency_cycles");
    if (a.memory.count("dram_latency_clock_mhz")) s.dram_cycle_scale = s.sm_clock_mhz / a.mem("dram_latency_clock_mhz");
    s.dram_latency = a.mem("dram_latency_cycles") * s.dram_cycle_scale;
    s.shared_latency = a.mem("shared_latency_cycles");
    // The arch table's launch_overhead_us was calibrated with back-to-back launches; a GPU's
    // fitted terms (latency_tables/gpus.json) replace it per target.
    s.launch_overhead_us = g.has("launch_duration_us") ? g.get("launch_duration_us") : a.mem("launch_overhead_us");
    s.launch_back_to_back_us = g.has("launch_back_to_back_us") ? g.get("launch_back_to_back_us") : a.mem("launch_overhead_us");
    s.launch_period_back_to_back_us = g.has("launch_period_back_to_back_us") ? g.get("launch_period_back_to_back_us") : 0;
    s.overlap_exponent_simulation = g.has("overlap_exponent_simulation") ? g.get("overlap_exponent_simulation") : 0;
    s.overlap_exponent_bounds = g.has("overlap_exponent_bounds") ? g.get("overlap_exponent_bounds") : 0;
    auto interval = [&](const char* mode, const char* target) -> std::optional<LogInterval> {
      const std::string lo = interval_key(mode, target, "low"), hi = interval_key(mode, target, "high");
      if (!g.has(lo) || !g.has(hi)) return std::nullopt;
      return LogInterval{g.get(lo), g.get(hi)};
    };
    s.intervals = {interval("simulation", "duration"), interval("bounds", "duration"), interval("simulation", "back_to_back"),
                   interval("bounds", "back_to_back")};
    if (const Curve* c = a.curve("cta_dispatch_interval_cycles_vs_warps_per_cta")) s.cta_dispatch_interval = *c;
    s.cta_turnaround_cycles = a.mem("cta_turnaround_cycles");
    if (const Curve* c = a.curve("cta_slot_turnaround_cycles_vs_warps_per_cta"); c && !c->x.empty()) s.cta_slot_turnaround = *c;
    if (const Curve* c = a.curve("dram_line_latency_vs_warps_per_sm"); c && !c->x.empty()) s.dram_latency_vs_warps = *c;
    if (const Curve* c = a.curve("dram_latency_cycles_vs_lines_per_request"); c && !c->x.empty()) s.dram_latency_vs_lines = *c;
    if (const Curve* c = a.curve("l2_hit_latency_cycles_vs_lines_per_request"); c && !c->x.empty()) s.l2_latency_vs_lines = *c;
    if (const Curve* c = a.curve("global_atomic_ops_per_cycle_vs_addresses")) s.atomic_rate = *c;
    if (const Curve* c = a.curve("global_atomic_f32_ops_per_cycle_vs_addresses")) s.atomic_rate_f32 = *c;
    if (const Curve* c = a.curve("global_atomic_ops_per_cycle_vs_lines")) s.atomic_rate_lines = *c;
    s.l2_store_line_rate_fraction = a.mem("l2_store_line_rate_fraction");
    s.l2_write_rate_fraction = a.mem("l2_write_rate_fraction");
    s.l2_dirty_retained_fraction = a.mem("l2_dirty_retained_fraction");
    s.atomic_l2_miss_updates_per_ns = a.mem("global_atomic_l2_miss_updates_per_ns");
    s.l2_usable_share = a.cachev("l2_usable_share");
    return s;
  }

  // A clock change keeps the DRAM latency's physical time: its cycles scale with the clock.
  void set_sm_clock(double mhz) {
    const double r = sm_clock_mhz > 0 ? mhz / sm_clock_mhz : 1.0;
    dram_latency *= r;
    dram_cycle_scale *= r;
    sm_clock_mhz = mhz;
  }

  // Names accepted by set(): the what-if knobs, in the registry's order.
  static const std::vector<std::string>& knobs();
  // Sets a what-if knob (see knob_registry()); throws ArgumentError outside its range.
  void set(const std::string& key, double v);
};

// The what-if knobs: the one list that GpuSpec::set, the CLI's --set, Python's what_if() and
// sweep() and the documentation read. A new knob is one line here.
struct Knob {
  const char* name;
  const char* unit;
  double min;              // smallest accepted value (exclusive when min_exclusive)
  bool min_exclusive;
  double max;              // largest accepted value
  bool whole;              // a count: whole numbers only
  const char* help;
  void (*apply)(GpuSpec&, double);
};

// Each knob has a range a GPU could plausibly have (wide enough for what-if studies): a value
// outside it is an error naming the range, never a wrapped or overflowing number
// (sms=2147483648 used to become one SM, a huge alu_latency_scale made kernels faster).
inline const std::vector<Knob>& knob_registry() {
  static const std::vector<Knob> k = {
      {"sm_clock_mhz", "MHz", 1, false, 100000, false, "SM clock the cycles are converted with (DRAM latency keeps its time in ns)",
       [](GpuSpec& g, double v) { g.set_sm_clock(v); }},
      {"sms", "SMs", 1, false, 65536, true, "number of SMs", [](GpuSpec& g, double v) { g.sms = static_cast<int>(v); }},
      {"dram_bandwidth_gbs", "GB/s", 1e-3, false, 1e7, false, "DRAM bandwidth (theoretical)", [](GpuSpec& g, double v) { g.dram_bandwidth_gbs = v; }},
      {"dram_efficiency", "fraction", 0, true, 1, false, "share of the DRAM bandwidth a streaming kernel reaches", [](GpuSpec& g, double v) { g.dram_efficiency = v; }},
      {"l2_mib", "MiB", 0, false, 1e6, false, "L2 capacity", [](GpuSpec& g, double v) { g.l2_bytes = v * 1024.0 * 1024.0; }},
      {"l2_bandwidth_gbs", "GB/s", 1e-3, false, 1e8, false, "L2 bandwidth", [](GpuSpec& g, double v) { g.l2_bandwidth_gbs = v; }},
      {"l1_hit_latency", "cycles", 1, false, 1e6, false, "L1 hit latency", [](GpuSpec& g, double v) { g.l1_hit_latency = v; }},
      {"l2_hit_latency", "cycles", 1, false, 1e6, false, "L2 hit latency", [](GpuSpec& g, double v) { g.l2_hit_latency = v; }},
      {"dram_latency", "cycles", 1, false, 1e6, false, "DRAM latency of an idle SM at the current clock", [](GpuSpec& g, double v) { g.dram_latency = v; }},
      {"shared_latency", "cycles", 1, false, 1e6, false, "shared-memory load latency", [](GpuSpec& g, double v) { g.shared_latency = v; }},
      {"launch_overhead_us", "us", 0, false, 1e6, false, "time added to every launch (kernel-duration target)", [](GpuSpec& g, double v) { g.launch_overhead_us = v; }},
      {"launch_back_to_back_us", "us", 0, false, 1e6, false, "time added to every launch (back-to-back target)", [](GpuSpec& g, double v) { g.launch_back_to_back_us = v; }},
      {"launch_period_back_to_back_us", "us", 0, false, 1e6, false, "shortest time a launch takes back to back (the launch path's period)",
       [](GpuSpec& g, double v) { g.launch_period_back_to_back_us = v; }},
      {"alu_latency_scale", "factor", 1e-3, false, 1e3, false, "scales every ALU class latency", [](GpuSpec& g, double v) { g.alu_latency_scale = v; }},
  };
  return k;
}

inline const std::vector<std::string>& GpuSpec::knobs() {
  static const std::vector<std::string> names = [] {
    std::vector<std::string> n;
    for (auto& k : knob_registry()) n.push_back(k.name);
    return n;
  }();
  return names;
}

inline void GpuSpec::set(const std::string& key, double v) {
  for (auto& k : knob_registry()) {
    if (key != k.name) continue;
    if (k.min_exclusive) {
      if (!(v > k.min && v <= k.max))
        throw ArgumentError("--set " + key + " must be in (" + detail::knob_number(k.min) + ", " + detail::knob_number(k.max) + "]");
    } else if (!(v >= k.min && v <= k.max)) {
      throw ArgumentError("--set " + key + "=" + fmt(v) + ": value must be in [" + fmt(k.min) + ", " + fmt(k.max) + "]");
    }
    if (k.whole && v != std::floor(v)) throw ArgumentError("--set " + key + "=" + fmt(v) + ": value must be a whole number of " + k.unit);
    k.apply(*this, v);
    return;
  }
  // Renamed knobs get an error that names the new one, never a silent reinterpretation.
  if (key == "l2_mb") throw ArgumentError("--set l2_mb was renamed l2_mib: the L2 capacity in MiB (2^20 bytes)");
  std::string all;
  for (auto& n : knobs()) all += (all.empty() ? "" : ", ") + n;
  throw ArgumentError("unknown GPU setting '" + key + "' (known: " + all + ")");
}

}  // namespace gpuperf
