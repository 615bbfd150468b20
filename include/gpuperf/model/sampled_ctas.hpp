// Sampled traces: which traced CTAs stand for the grid's untraced ones (CtaSample, in
// kernel_analysis.hpp). Scaling every traced CTA by grid / traced repeats the work of a CTA
// that no other CTA does (Rodinia BFS's level 1: CTA 0 holds the source node, the grid's other
// 2047 CTAs only test their nodes) grid / traced times, and a round that replays the traced
// CTAs in order puts it in every round of the busiest SM. Here the CTAs within
// assume::typical_cta_band of the median traced CTA's work stand for the untraced CTAs, and
// the others count once.
#pragma once

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <optional>
#include <string>
#include <vector>

#include "gpuperf/model/address_profile.hpp"
#include "gpuperf/model/assumptions.hpp"
#include "gpuperf/model/kernel_analysis.hpp"
#include "gpuperf/model/prediction.hpp"
#include "gpuperf/trace/ir.hpp"

namespace gpuperf {

namespace detail {

inline double median_work(std::vector<double> work) {
  if (work.empty()) return 0;
  std::sort(work.begin(), work.end());
  return 0.5 * (work[(work.size() - 1) / 2] + work[work.size() / 2]);
}

// The typical CTAs of traced CTAs of these works: those within `band` of the median work,
// where they are at least half of them and not all (empty otherwise: the CTAs stand for the
// grid alike). Fewer than three traced CTAs cannot tell an atypical one from the typical.
inline std::vector<std::uint32_t> typical_ctas(const std::vector<double>& work, double band) {
  const std::size_t n = work.size();
  if (n < 3) return {};
  const double median = median_work(work);
  if (!(median > 0)) return {};
  std::vector<std::uint32_t> typical;
  for (std::uint32_t c = 0; c < n; ++c)
    if (work[c] >= median / band && work[c] <= median * band) typical.push_back(c);
  if (typical.size() == n || 2 * typical.size() < n) return {};
  return typical;
}

// The grid's counts per PC from a sampled trace's CTAs (a.pcs[i].grid_scale, a.atomic_scale)
// and the CTAs rounds replay (a.sample). A trace whose CTAs are alike, or that holds the whole
// grid, keeps grid / traced for every PC. Needs a.ctas (group_ctas) and every traced CTA in it:
// a trace of more CTAs than a streaming reader keeps (StreamedAddresses::kKeptCtas, what a
// simulation replays) scales alike, so that its analysis is the same read whole or streamed.
inline void weigh_sampled_ctas(const Kernel& k, KernelAnalysis& a) {
  for (auto& p : a.pcs) p.grid_scale = a.scale;
  a.atomic_scale = a.scale;
  const double grid = static_cast<double>(k.launch.grid.count());
  const double traced = static_cast<double>(a.ctas.size());
  if (!a.dynamic || k.traced_ctas != a.ctas.size() || a.ctas.size() > StreamedAddresses::kKeptCtas || !(traced < grid)) return;
  CtaSample s;
  s.work.reserve(a.ctas.size());
  for (const auto& cta : a.ctas) {
    double w = 0;
    for (auto wi : cta) w += static_cast<double>(k.warps[wi].end - k.warps[wi].begin);
    s.work.push_back(w);
  }
  s.typical = typical_ctas(s.work, assume::typical_cta_band);
  // The heaviest traced CTA, where above the band, runs in one round of the busiest SM: an
  // atypical CTA of a weighted sample, or, with no majority near the median (a triangular
  // loop's CTAs, whose counts keep grid / traced), the heaviest of an uneven one (with one CTA
  // per SM, the busiest SM's round is the heaviest CTA's, not the first's).
  const double median = median_work(s.work);
  const auto heaviest = static_cast<std::size_t>(std::max_element(s.work.begin(), s.work.end()) - s.work.begin());
  if (s.work.size() >= 3 && median > 0 && s.work[heaviest] > median * assume::typical_cta_band) s.busiest = static_cast<int>(heaviest);
  if (!s.weighted()) {
    if (s.busiest >= 0) a.sample = std::move(s);
    return;
  }
  std::vector<bool> is_typical(a.ctas.size(), false);
  for (auto c : s.typical) is_typical[c] = true;
  const double atypical = traced - static_cast<double>(s.typical.size());
  s.typical_weight = (grid - atypical) / static_cast<double>(s.typical.size());
  // Each PC's executions by the atypical CTAs (counted once) and by the typical ones (weighted).
  std::vector<double> once(k.program.size(), 0.0);
  for (std::uint32_t c = 0; c < a.ctas.size(); ++c)
    if (!is_typical[c])
      for (auto wi : a.ctas[c])
        for (std::uint64_t d = k.warps[wi].begin; d < k.warps[wi].end; ++d) once[k.dyn[d].static_index] += 1;
  double atomics_traced = 0, atomics_grid = 0;
  for (std::size_t i = 0; i < k.program.size(); ++i) {
    const double all = static_cast<double>(k.program[i].warp_executed);
    if (!(all > 0)) continue;
    const double grid_exec = once[i] + (all - once[i]) * s.typical_weight;
    a.pcs[i].grid_scale = grid_exec / all;
    if (is_global_atomic(k.program[i])) {
      atomics_traced += all;
      atomics_grid += grid_exec;
    }
  }
  if (atomics_traced > 0) a.atomic_scale = atomics_grid / atomics_traced;
  a.sample = std::move(s);
}

// The report's note on a sample whose CTAs are not alike: how many traced CTAs are atypical
// (weighted samples), and the heaviest's work over the median traced CTA's (one decimal).
inline std::optional<Warning> sampled_ctas_warning(const CtaSample& s) {
  if (!s.weighted() && s.busiest < 0) return std::nullopt;
  const double median = median_work(s.work);
  std::string heaviest;
  if (s.busiest >= 0 && median > 0) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.1f", s.work[static_cast<std::size_t>(s.busiest)] / median);
    heaviest = buf;
  }
  if (!s.weighted()) return Warning{WarningCode::uneven_ctas, {std::to_string(s.work.size()), heaviest}};
  return Warning{WarningCode::atypical_ctas, {std::to_string(s.work.size() - s.typical.size()), std::to_string(s.work.size()), heaviest}};
}

// The traced CTA that slot `slot` of a simulated round replays: the typical CTAs in turn (every
// traced CTA where none are set apart), after the busiest CTA in slot 0 for the round that holds it.
inline std::size_t round_cta(const KernelAnalysis& a, int slot, bool busiest_round) {
  const CtaSample& s = a.sample;
  if (busiest_round && s.busiest >= 0) {
    if (slot == 0) return static_cast<std::size_t>(s.busiest);
    --slot;
  }
  if (!s.weighted()) return static_cast<std::size_t>(slot) % a.ctas.size();
  return s.typical[static_cast<std::size_t>(slot) % s.typical.size()];
}

}  // namespace detail

}  // namespace gpuperf
