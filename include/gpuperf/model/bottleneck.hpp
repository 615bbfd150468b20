// Bottleneck classification: which bound sets the kernel's time.
#pragma once

#include <algorithm>
#include <cstdio>
#include <string>
#include <utility>
#include <vector>

#include "gpuperf/arch/gpu_spec.hpp"
#include "gpuperf/model/analysis.hpp"
#include "gpuperf/model/prediction.hpp"
#include "gpuperf/model/waves.hpp"

namespace gpuperf {

namespace detail {

inline std::string fmt_pct(double x) {
  char b[32];
  std::snprintf(b, sizeof b, "%.0f%%", 100 * x);
  return b;
}

}  // namespace detail

// Fills rep.bottleneck and rep.bottleneck_detail from the bounds, cycles and occupancy already
// in `rep`; `tail_cycles` is the tail round's time.
inline void classify_bottleneck(KernelReport& rep, double sm_cycles, const Waves& w, double tail_cycles, const AtomicProfile& at,
                                const GpuSpec& g) {
  auto& B = rep.bounds;
  const double dram_bytes = rep.memory.dram_read_bytes + rep.memory.dram_write_bytes;
  if (rep.cycles == B.dram && B.dram >= sm_cycles) { rep.bottleneck = "dram"; rep.bottleneck_detail = "DRAM bandwidth (" + std::to_string(int(dram_bytes / 1e6)) + " MB)"; }
  else if (rep.cycles == B.l2 && B.l2 >= sm_cycles) { rep.bottleneck = "l2"; rep.bottleneck_detail = "L2 bandwidth"; }
  else if (rep.cycles == B.atomics && B.atomics >= sm_cycles) {
    rep.bottleneck = "atomics";
    rep.bottleneck_detail = "L2 atomic serialization (" + std::to_string(static_cast<long long>(at.updates)) +
                            " updates over ~" + std::to_string(static_cast<long long>(at.effective_words)) + " words)";
  }
  else {
    std::vector<std::pair<double, std::string>> c = {{B.issue, "issue"}, {B.functional_unit, "functional_unit"}, {B.latency, "latency"},
                                                     {B.shared_memory, "shared_memory"}, {B.l1, "l1"}};
    auto top = *std::max_element(c.begin(), c.end());
    rep.bottleneck = top.second;
    if (top.second == "functional_unit") rep.bottleneck_detail = "busiest unit: " + B.busiest_unit;
    else if (top.second == "latency") {
      rep.bottleneck_detail = "dependency chains not hidden by " + std::to_string(rep.occupancy.active_warps_per_sm) + " resident warps";
      if (rep.occupancy.occupancy < 0.5 && w.per_sm >= rep.occupancy.blocks_per_sm) {
        rep.bottleneck = "occupancy";
        rep.bottleneck_detail = "latency-bound at " + detail::fmt_pct(rep.occupancy.occupancy) + " occupancy (limited by " + rep.occupancy.limiter + ")";
      }
    }
    if (w.full <= 1 && w.tail > 0 && tail_cycles > 0.3 * sm_cycles) { rep.bottleneck = "tail"; rep.bottleneck_detail = "last partial wave of " + std::to_string(int(w.tail)) + " CTA(s) per SM"; }
    if (w.per_sm < rep.occupancy.blocks_per_sm && w.grid < g.sms && rep.bottleneck == "latency")
      rep.bottleneck_detail = "grid of " + std::to_string(int(w.grid)) + " CTA(s) fills " + std::to_string(int(w.grid)) + " of " + std::to_string(g.sms) + " SMs";
  }
  if (g.cycles_to_us(rep.cycles) < g.launch_overhead_us) { rep.bottleneck_detail = rep.bottleneck + "; the launch overhead dominates"; rep.bottleneck = "launch"; }
}

}  // namespace gpuperf
