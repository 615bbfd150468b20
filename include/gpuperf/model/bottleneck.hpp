// Bottleneck classification: which bound sets the kernel's time. Pure; the report explains it.
#pragma once

#include "gpuperf/arch/gpu_spec.hpp"
#include "gpuperf/model/assumptions.hpp"
#include "gpuperf/model/occupancy.hpp"
#include "gpuperf/model/prediction.hpp"
#include "gpuperf/model/waves.hpp"

namespace gpuperf {

// The largest of a round's bounds. Ties go to the name that sorts last (issue after
// functional_unit, ...), as the report has always broken them.
inline Bottleneck round_bottleneck(const Bounds& B) {
  struct Candidate { double cycles; int tie_rank; Bottleneck kind; };
  const Candidate c[] = {{B.functional_unit, 0, Bottleneck::functional_unit}, {B.issue, 1, Bottleneck::issue}, {B.l1, 2, Bottleneck::l1},
                         {B.latency, 3, Bottleneck::latency}, {B.shared_memory, 4, Bottleneck::shared_memory}};
  const Candidate* best = &c[0];
  for (const auto& x : c)
    if (x.cycles > best->cycles || (x.cycles == best->cycles && x.tie_rank > best->tie_rank)) best = &x;
  return best->kind;
}

struct BottleneckCall {
  Bottleneck kind = Bottleneck::latency;
  Bottleneck under_launch = Bottleneck::latency;  // what the launch overhead hides
  bool grid_underfills = false;                   // latency-bound with fewer CTAs than SMs
};

// `cycles`: the kernel's; `sm_cycles`: its rounds on the busiest SM; `tail_cycles`: the tail
// round's; `launch_us`: the prediction target's launch term (the kernel is launch-bound below
// it). Bandwidth and atomics win only when they exceed the SM's own time.
inline BottleneckCall classify_bottleneck(const Bounds& B, double cycles, double sm_cycles, const Occupancy& o, const Waves& w,
                                          double tail_cycles, const GpuSpec& g, double launch_us) {
  BottleneckCall c;
  Bottleneck b;
  // The SM/memory overlap sets the time (or ties): its largest part names it.
  const bool overlap_sets = cycles == B.sm_and_memory;
  if (cycles == B.busiest_warp && B.busiest_warp > sm_cycles) b = Bottleneck::imbalance;
  else if (overlap_sets && std::max({B.dram, B.l2, B.memory_phases}) >= sm_cycles) b = B.dram >= B.l2 ? Bottleneck::dram : Bottleneck::l2;
  else if (cycles == B.atomics && B.atomics >= sm_cycles) b = Bottleneck::atomics;
  // The dispatch floor names the time where starting the CTAs, not the last one's run, is most of it.
  else if (B.cta_dispatch > 0 && B.cta_dispatch >= sm_cycles && B.cta_dispatch_start() >= B.cta_dispatch_last_run) b = Bottleneck::cta_dispatch;
  else {
    b = round_bottleneck(B);
    if (b == Bottleneck::latency && o.occupancy < assume::low_occupancy && w.per_sm >= o.blocks_per_sm) b = Bottleneck::occupancy;
    if (w.full <= 1 && w.tail > 0 && tail_cycles > assume::tail_share * sm_cycles) b = Bottleneck::tail;
    c.grid_underfills = b == Bottleneck::latency && w.per_sm < o.blocks_per_sm && w.grid < g.sms;
  }
  if (g.cycles_to_us(cycles) < launch_us) { c.under_launch = b; b = Bottleneck::launch; }
  c.kind = b;
  return c;
}

}  // namespace gpuperf
