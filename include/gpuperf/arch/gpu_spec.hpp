// GpuSpec: the value type what-if studies change. Built from the catalog, then edited
// (clock, SM count, DRAM bandwidth, L2 size, latencies) and passed to predict().
#pragma once

#include <cmath>
#include <cstdio>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "gpuperf/arch/tables.hpp"

namespace gpuperf {

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
  // Memory latencies in SM cycles (what-if knobs; defaults from the arch table).
  double l1_hit_latency = 0, l2_hit_latency = 0, dram_latency = 0, shared_latency = 0;
  double launch_overhead_us = 0;
  double alu_latency_scale = 1.0;  // scales every ALU class latency (what-if)

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
    s.dram_latency = a.mem("dram_latency_cycles");
    s.shared_latency = a.mem("shared_latency_cycles");
    s.launch_overhead_us = a.mem("launch_overhead_us");
    return s;
  }

  // Names accepted by set(): the what-if knobs.
  static const std::vector<std::string>& knobs() {
    static const std::vector<std::string> k = {"sm_clock_mhz", "sms", "dram_bandwidth_gbs", "dram_efficiency", "l2_mb", "l2_bandwidth_gbs",
                                               "l1_hit_latency", "l2_hit_latency", "dram_latency", "shared_latency", "launch_overhead_us",
                                               "alu_latency_scale"};
    return k;
  }

  // Each knob has a range a GPU could plausibly have (wide enough for what-if studies): a
  // value outside it is an error naming the range, never a wrapped or overflowing number
  // (sms=2147483648 used to become one SM, a huge alu_latency_scale made kernels faster).
  void set(const std::string& key, double v) {
    auto in_range = [&](double lo, double hi) {
      if (!(v >= lo && v <= hi))
        throw ArgumentError("--set " + key + "=" + fmt(v) + ": value must be in [" + fmt(lo) + ", " + fmt(hi) + "]");
      return v;
    };
    if (key == "sm_clock_mhz") sm_clock_mhz = in_range(1, 100000);
    else if (key == "sms") {
      in_range(1, 65536);
      if (v != std::floor(v)) throw ArgumentError("--set sms=" + fmt(v) + ": value must be a whole number of SMs");
      sms = static_cast<int>(v);
    }
    else if (key == "dram_bandwidth_gbs") dram_bandwidth_gbs = in_range(1e-3, 1e7);
    else if (key == "dram_efficiency") { if (!(v > 0 && v <= 1)) throw ArgumentError("--set dram_efficiency must be in (0, 1]"); dram_efficiency = v; }
    else if (key == "l2_mb") l2_bytes = in_range(0, 1e6) * 1024.0 * 1024.0;
    else if (key == "l2_bandwidth_gbs") l2_bandwidth_gbs = in_range(1e-3, 1e8);
    else if (key == "l1_hit_latency") l1_hit_latency = in_range(1, 1e6);
    else if (key == "l2_hit_latency") l2_hit_latency = in_range(1, 1e6);
    else if (key == "dram_latency") dram_latency = in_range(1, 1e6);
    else if (key == "shared_latency") shared_latency = in_range(1, 1e6);
    else if (key == "launch_overhead_us") launch_overhead_us = in_range(0, 1e6);
    else if (key == "alu_latency_scale") alu_latency_scale = in_range(1e-3, 1e3);
    else {
      std::string all;
      for (auto& k : knobs()) all += (all.empty() ? "" : ", ") + k;
      throw ArgumentError("unknown GPU setting '" + key + "' (known: " + all + ")");
    }
  }
};

}  // namespace gpuperf
