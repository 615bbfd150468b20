// One round of resident CTAs on the busiest SM: what both modes read, and what they return.
#pragma once

#include <vector>

#include "gpuperf/arch/instr_desc.hpp"
#include "gpuperf/model/analysis.hpp"
#include "gpuperf/model/memory_model.hpp"
#include "gpuperf/model/prediction.hpp"

namespace gpuperf {

// Everything predict() derives for one GPU before placing rounds.
struct RoundModel {
  const KernelAnalysis* an = nullptr;
  const std::vector<InstrDesc>* desc = nullptr;
  std::vector<PcMemory> mem;
  std::vector<double> latency;  // per static instruction: result latency on this GPU
  // The same with the memory system idle (the idle DRAM latency), for the extra iterations of
  // the busiest warp, which run after the average warp has finished (bounds mode of count
  // inputs; empty otherwise).
  std::vector<double> idle_latency;
  // The DRAM latencies (SM cycles) `latency` and `idle_latency` were taken at: the loaded one
  // holds the curve's excess at the launch's resident warps per SM, which a simulation scales
  // by the lines its SM has in flight.
  double dram_latency = 0, idle_dram_latency = 0;
  int loaded_warps_per_sm = 0;
};

// The round model of `an` at DRAM latency `dram_latency` (SM cycles): per-PC latencies, and with
// idle_dram_ratio > 0 the idle ones, and the DRAM latencies and resident warps they were taken
// at (which the simulation reads). Returns the requests' average load latency.
inline double make_round_model(RoundModel& rm, const KernelAnalysis& an, const std::vector<InstrDesc>& desc, const GpuSpec& g,
                               const MemoryRates& rates, double dram_latency, double idle_dram_ratio, int loaded_warps_per_sm) {
  rm.an = &an;
  rm.desc = &desc;
  const double avg = memory_latencies(an, desc, g, rates, dram_latency, rm.latency, &rm.mem);
  if (idle_dram_ratio > 0) memory_latencies(an, desc, g, rates, idle_dram_ratio * dram_latency, rm.idle_latency);
  rm.dram_latency = dram_latency;
  rm.idle_dram_latency = idle_dram_ratio * dram_latency;
  rm.loaded_warps_per_sm = loaded_warps_per_sm;
  return avg;
}

// What a mode derives for one round.
struct RoundResult {
  double cycles = 0;
  Bounds bounds;
  std::vector<StallBreakdown> pc_stalls;  // per static instruction, summed over the round's warps
  double warp_instructions = 0;
  // A sampled trace's round that holds its busiest CTA (CtaSample::busiest) in place of a
  // typical one, simulated; 0 where there is none.
  double busiest_cycles = 0;
  // A further full round's cycles with the CTAs streamed through the round's slots
  // (simulate_round_and_streamed), for a busiest SM of several full rounds; 0 where not simulated.
  double streamed_cycles = 0;
  // Of a simulation: the mean cycles from a CTA's start to its last warp's exit.
  double mean_cta_life = 0;
};

}  // namespace gpuperf
