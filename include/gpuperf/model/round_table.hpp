// What-if sweeps without replaying warps: a round's result as a cached function of the one
// GPU value a clock sweep changes in it, the loaded DRAM latency in SM cycles (D).
//
// A round (simulated or bounded) reads the analysis, the descriptors and arch table (keyed by
// the table set's id, the arch and the ALU latency scale), the CTAs it holds, the warps per
// CTA, the mode, and every instruction's result latency. Those latencies are affine in D (a
// load's average latency is h1 L1 + (1 - h1)(h2 L2 + (1 - h2) D), everything else does not
// read D), so the latency vectors at D = 0 and D = 1 stand for all the other GPU values the
// round reads: hit rates (L2 size, carve-out, warm L2), L1/L2/shared latencies, ALU scale.
// A RoundKey holds all of it; a what-if that changes anything else the round reads changes
// the key and gets rounds of its own, never another key's.
//
// Per key, the round is computed exactly at fixed nodes D_k = 2^(k / kRoundNodesPerOctave)
// and interpolated linearly in D between the two nodes around a point. The nodes do not
// depend on the sweep, so a point's value depends on its own GPU alone (the same in any
// chunking, thread count or order), and a point whose D is a node gets the exact round.
#pragma once

#include <cmath>
#include <cstdint>
#include <cstring>
#include <string>
#include <tuple>
#include <vector>

#include "gpuperf/model/prediction.hpp"
#include "gpuperf/model/round.hpp"

namespace gpuperf {

// Nodes per doubling of D: 2.2 % apart. Chosen with bench/what_if_error.py, which measures
// the interpolated kernel time against a full re-simulation at points half-way between nodes
// over the bundled and corpus traces (results in bench/results/speed.json, "what_if").
inline constexpr int kRoundNodesPerOctave = 32;

inline double round_node_latency(int k) { return std::exp2(static_cast<double>(k) / kRoundNodesPerOctave); }

// The node at or below d (> 0): round_node_latency(k) <= d < round_node_latency(k + 1).
inline int round_node_below(double d) {
  int k = static_cast<int>(std::floor(std::log2(d) * kRoundNodesPerOctave));
  while (round_node_latency(k) > d) --k;
  while (round_node_latency(k + 1) <= d) ++k;
  return k;
}

// What the kernel's time reads of a round.
struct RoundSummary {
  double cycles = 0;
  Bounds bounds;  // the round's own bounds (issue, unit, latency, shared, L1, busiest warp)
  double busiest_cycles = 0;  // RoundResult::busiest_cycles
  double streamed_cycles = 0;  // RoundResult::streamed_cycles
};

// a + (b - a) t for every number of the summary; t = 0 gives a exactly.
inline RoundSummary interpolate(const RoundSummary& a, const RoundSummary& b, double t) {
  auto lerp = [t](double x, double y) { return x + (y - x) * t; };
  RoundSummary r = a;
  r.cycles = lerp(a.cycles, b.cycles);
  r.busiest_cycles = lerp(a.busiest_cycles, b.busiest_cycles);
  r.streamed_cycles = lerp(a.streamed_cycles, b.streamed_cycles);
  r.bounds.issue = lerp(a.bounds.issue, b.bounds.issue);
  r.bounds.functional_unit = lerp(a.bounds.functional_unit, b.bounds.functional_unit);
  r.bounds.latency = lerp(a.bounds.latency, b.bounds.latency);
  r.bounds.shared_memory = lerp(a.bounds.shared_memory, b.bounds.shared_memory);
  r.bounds.l1 = lerp(a.bounds.l1, b.bounds.l1);
  r.bounds.busiest_warp = lerp(a.bounds.busiest_warp, b.bounds.busiest_warp);
  return r;
}

// Whether the kernel's time at four consecutive nodes (k - 1 .. k + 2) is smooth enough in D
// for linear interpolation over [D_k, D_k+1]: nodes k and k + 1 each within kNodeSmoothness
// of the line through their neighbours (a smooth curve deviates by about its curvature times
// the squared spacing, 1e-4 here). Simulated rounds jitter with the scheduling by 1-3 % from
// one node to the next on some kernels (kernel-20, SGEMM); their points get their own rounds.
// The error this leaves is measured by bench/what_if_error.py.
inline constexpr double kNodeSmoothness = 0.004;

inline bool nodes_smooth(double below, double k0, double k1, double above) {
  auto off_line = [](double prev, double mid, double next) {
    const double line = 0.5 * (prev + next);
    return mid > 0 ? std::abs(mid - line) / mid > kNodeSmoothness : line != mid;
  };
  return !off_line(below, k0, k1) && !off_line(k0, k1, above);
}

// The descriptors' inputs: which table set (its id, unique per load), arch and ALU scale.
struct DescKey {
  std::uint64_t tables_id = 0;
  std::string arch;
  double alu_latency_scale = 1;
  bool operator==(const DescKey& o) const { return tables_id == o.tables_id && arch == o.arch && alu_latency_scale == o.alu_latency_scale; }
  bool operator<(const DescKey& o) const {
    return std::tie(tables_id, arch, alu_latency_scale) < std::tie(o.tables_id, o.arch, o.alu_latency_scale);
  }
};

// Everything a round reads except D (see the top of this file).
struct RoundKey {
  DescKey desc;
  bool simulation = false;
  int ctas = 0;
  int warps_per_block = 0;
  double idle_dram_ratio = 0;  // Setup::idle_dram_ratio: the busiest warp's path reads D times it
  int loaded_warps_per_sm = 0;  // RoundModel::loaded_warps_per_sm
  std::vector<double> latency_at_0, latency_at_1;  // per instruction, with D = 0 and D = 1
  std::uint64_t hash = 0;

  void seal() {
    std::uint64_t h = 1469598103934665603ull;
    auto mix = [&h](std::uint64_t v) { h = (h ^ v) * 1099511628211ull; };
    mix(desc.tables_id);
    for (char c : desc.arch) mix(static_cast<unsigned char>(c));
    auto bits = [](double x) { std::uint64_t b; std::memcpy(&b, &x, sizeof b); return b; };
    mix(bits(desc.alu_latency_scale));
    mix(simulation);
    mix(static_cast<std::uint64_t>(ctas));
    mix(static_cast<std::uint64_t>(warps_per_block));
    mix(bits(idle_dram_ratio));
    mix(static_cast<std::uint64_t>(loaded_warps_per_sm));
    for (double x : latency_at_0) mix(bits(x));
    for (double x : latency_at_1) mix(bits(x));
    hash = h;
  }
  bool operator<(const RoundKey& o) const {
    return std::tie(hash, simulation, ctas, warps_per_block, idle_dram_ratio, loaded_warps_per_sm, desc, latency_at_0, latency_at_1) <
           std::tie(o.hash, o.simulation, o.ctas, o.warps_per_block, o.idle_dram_ratio, o.loaded_warps_per_sm, o.desc, o.latency_at_0, o.latency_at_1);
  }
};

}  // namespace gpuperf
