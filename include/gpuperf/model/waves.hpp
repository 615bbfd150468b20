// Waves and the tail: rounds of resident CTAs on the busiest SM, and how a round's cycles and
// stalls scale to the whole kernel.
#pragma once

#include <algorithm>
#include <cmath>

#include "gpuperf/arch/gpu_spec.hpp"
#include "gpuperf/model/bounds.hpp"
#include "gpuperf/model/prediction.hpp"

namespace gpuperf {

struct Waves {
  double grid = 0;            // CTAs in the launch
  double per_sm = 0;          // CTAs on the busiest SM
  double full = 0, tail = 0;  // full rounds, and the CTAs of the last partial one
  int blocks_per_sm = 0;      // resident CTAs of a full round
  int resident = 0;           // CTAs resident at once when the grid is smaller than a round
  bool has_tail() const { return full > 0 && tail > 0; }
  // CTAs of the round that is simulated or averaged.
  int round_ctas() const { return full > 0 ? blocks_per_sm : resident; }
};

inline Waves place_rounds(double grid, int sms, int blocks_per_sm) {
  Waves w;
  w.grid = grid;
  w.blocks_per_sm = blocks_per_sm;
  bound::rounds(grid, sms, blocks_per_sm, w.per_sm, w.full, w.tail);
  w.resident = static_cast<int>(std::min<double>(blocks_per_sm, w.per_sm));
  return w;
}

// SM cycles of the kernel body: the full rounds, then the tail round. Where an SM holds one CTA
// at a time, the next starts only `turnaround_cycles` after the last exits (calibration group
// `cta`: 285 cycles on sm_90); with more resident, the others run through the gap.
inline double sm_cycles(const Waves& w, double round_cycles, double tail_cycles, double turnaround_cycles) {
  double body = (w.full > 0 ? w.full * round_cycles : round_cycles) + (w.has_tail() ? tail_cycles : 0);
  const double gaps = w.blocks_per_sm == 1 ? std::max(0.0, std::ceil(w.per_sm) - 1) : 0.0;
  return body + gaps * turnaround_cycles;
}

// Whether the busiest SM's further full rounds run at the streamed rate: a streamed simulation
// was made (streamed_cycles > 0), and there are further full rounds of more than one CTA.
inline bool rounds_stream(const Waves& w, double streamed_cycles) { return streamed_cycles > 0 && w.full >= 2 && w.blocks_per_sm >= 2; }

// The same body where CTAs stream through the slots instead of starting in rounds: the first
// full round as simulated (its CTAs start together), then each further full round at the
// streamed rate (streamed_cycles, simulate_round_and_streamed), then the tail. Without a streamed
// simulation (one full round, one CTA per SM at a time, or bounds mode): sm_cycles.
inline double streamed_sm_cycles(const Waves& w, double round_cycles, double streamed_cycles, double tail_cycles, double turnaround_cycles) {
  if (!rounds_stream(w, streamed_cycles)) return sm_cycles(w, round_cycles, tail_cycles, turnaround_cycles);
  return round_cycles + (w.full - 1) * streamed_cycles + (w.has_tail() ? tail_cycles : 0);
}

// A round's bounds on the kernel's scale: as many rounds as the busiest SM runs.
inline Bounds kernel_scale(Bounds b, double sm_cycles, double round_cycles) {
  double rounds_equiv = round_cycles > 0 ? sm_cycles / round_cycles : 1;
  for (double* v : {&b.issue, &b.functional_unit, &b.latency, &b.shared_memory, &b.l1}) *v *= rounds_equiv;
  return b;
}

// SM cycles a CTA slot stands idle between one CTA's exit and the next one's start when every
// slot turns over (the arch table's measured curve over warps per CTA; 0 where it has none).
inline double slot_turnaround_cycles(const GpuSpec& g, double warps_per_cta) {
  return g.cta_slot_turnaround ? g.cta_slot_turnaround->at(warps_per_cta) : 0;
}

// The grid's CTAs started at the GPU's measured dispatch rate (0 where the architecture's table
// has no measurement of it).
inline double cta_dispatch_cycles(const GpuSpec& g, double grid_ctas, double warps_per_cta) {
  return g.cta_dispatch_interval ? bound::cta_dispatch(grid_ctas, g.cta_dispatch_interval->at(warps_per_cta)) : 0;
}

// The busiest SM's time is never below its own issue and functional-unit bounds, nor below the
// time the GPU takes to start the grid's CTAs. A simulated round replays the traced CTAs' warps,
// which can do less work than the average CTA whose counts set those bounds (sampled traces of
// kernels with data-dependent loops); rounds hold no cost for starting a CTA.
inline double physical_floor(double sm_cycles, const Bounds& kernel_bounds) {
  return std::max({sm_cycles, kernel_bounds.issue, kernel_bounds.functional_unit, kernel_bounds.cta_dispatch});
}

// Factor from a full round's stalls to the grid's; a tail round happens once on every SM and
// is added apart.
inline double grid_scale(const Waves& w) {
  double round_ctas = w.round_ctas();
  double s = round_ctas > 0 ? w.grid / round_ctas : 0;
  if (w.has_tail()) s = (w.grid * (w.full * w.blocks_per_sm) / std::max(1.0, w.per_sm)) / round_ctas;
  return s;
}

}  // namespace gpuperf
