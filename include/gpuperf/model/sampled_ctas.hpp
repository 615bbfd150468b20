// Sampled traces: which traced CTAs stand for the grid's untraced ones (CtaSample, in
// kernel_analysis.hpp). Scaling every traced CTA by grid / traced repeats the work of a CTA
// that no other CTA does (Rodinia BFS's level 1: CTA 0 holds the source node, the grid's other
// 2047 CTAs only test their nodes) grid / traced times, and a round that replays the traced
// CTAs in order puts it in every round of the busiest SM. Here the CTAs within
// assume::typical_cta_band of the median traced CTA's work stand for the untraced CTAs, and
// the others count once.
#pragma once

#include <algorithm>
#include <cmath>
#include <iterator>
#include <queue>
#include <utility>
#include <cstdint>
#include <cstdio>
#include <optional>
#include <string>
#include <vector>

#include "gpuperf/model/address_profile.hpp"
#include "gpuperf/model/assumptions.hpp"
#include "gpuperf/model/kernel_analysis.hpp"
#include "gpuperf/model/prediction.hpp"
#include "gpuperf/model/profiled_traffic.hpp"
#include "gpuperf/model/waves.hpp"
#include "gpuperf/trace/cta_work.hpp"
#include "gpuperf/trace/ir.hpp"

namespace gpuperf {

namespace detail {

inline double median_work(std::vector<double> work) {
  if (work.empty()) return 0;
  std::sort(work.begin(), work.end());
  return 0.5 * (work[(work.size() - 1) / 2] + work[work.size() / 2]);
}

// Index of the traced CTA with the most work (the first of equals; 0 for none).
inline std::size_t heaviest_cta(const std::vector<double>& work) {
  return static_cast<std::size_t>(std::max_element(work.begin(), work.end()) - work.begin());
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

// The traced CTAs an untraced CTA of work `w` is like, of traced CTAs sorted by counted work:
// those within `band` of it (each takes an equal share), else the one of the nearest work.
inline std::pair<std::size_t, std::size_t> like_traced(const std::vector<std::pair<double, std::size_t>>& by_work, double w, double band) {
  auto lo = std::lower_bound(by_work.begin(), by_work.end(), std::make_pair(w / band, std::size_t(0)));
  auto hi = std::upper_bound(by_work.begin(), by_work.end(), std::make_pair(w * band, ~std::size_t(0)));
  if (lo < hi) return {static_cast<std::size_t>(lo - by_work.begin()), static_cast<std::size_t>(hi - by_work.begin())};
  auto it = std::lower_bound(by_work.begin(), by_work.end(), std::make_pair(w, std::size_t(0)));
  if (it == by_work.end()) it = std::prev(it);
  else if (it != by_work.begin() && std::log1p(w) - std::log1p(std::prev(it)->first) <= std::log1p(it->first) - std::log1p(w)) it = std::prev(it);
  const auto i = static_cast<std::size_t>(it - by_work.begin());
  return {i, i + 1};
}

// The most times one traced warp ran each PC outside every loop (0 for PCs in loops or never run).
inline std::vector<double> straight_line_per_warp(const Kernel& k, const KernelAnalysis& a) {
  std::vector<double> most(k.program.size(), 0.0), count(k.program.size(), 0.0);
  std::vector<std::size_t> last_warp(k.program.size(), ~std::size_t(0));
  for (std::size_t wi = 0; wi < k.warps.size(); ++wi)
    for (std::uint64_t d = k.warps[wi].begin; d < k.warps[wi].end; ++d) {
      const std::uint32_t i = k.dyn[d].static_index;
      if (a.pcs[i].in_loop) continue;
      if (last_warp[i] != wi) { last_warp[i] = wi; count[i] = 0; }
      most[i] = std::max(most[i], ++count[i]);
    }
  return most;
}

// Where the loops are known, a memory access outside every loop runs no more often in a warp of
// the grid than in the traced warp that ran it most: a sample of light CTAs (boundary CTAs that
// skip the computation) scaled up to the grid's counted work would otherwise repeat their
// straight-line loads and stores with it. The executions this takes off go to the PCs without
// memory access, which stand for the computation the traced CTAs skipped, so the grid's total
// stays the counted one.
inline void bound_straight_line_accesses(const Kernel& k, const KernelAnalysis& a, std::vector<double>& grid_exec) {
  if (!a.loops_known) return;
  const std::vector<double> most = straight_line_per_warp(k, a);
  double removed = 0, compute = 0;
  for (std::size_t i = 0; i < k.program.size(); ++i) {
    if (k.program[i].space == MemSpace::none) {
      compute += grid_exec[i];
    } else if (most[i] > 0 && grid_exec[i] > most[i] * a.total_warps) {
      removed += grid_exec[i] - most[i] * a.total_warps;
      grid_exec[i] = most[i] * a.total_warps;
    }
  }
  if (removed > 0 && compute > 0)
    for (std::size_t i = 0; i < k.program.size(); ++i)
      if (k.program[i].space == MemSpace::none) grid_exec[i] *= 1 + removed / compute;
}

// Each PC's grid executions over its traced ones (a.pcs[i].grid_scale), and the same for the
// global atomics together (a.atomic_scale), from the grid's executions per PC (of a sample
// weighed to the grid's work: bound_straight_line_accesses). PCs the trace never ran keep their
// scale.
inline void scale_to_grid_executions(const Kernel& k, KernelAnalysis& a, std::vector<double> grid_exec) {
  bound_straight_line_accesses(k, a, grid_exec);
  double atomics_traced = 0, atomics_grid = 0;
  for (std::size_t i = 0; i < k.program.size(); ++i) {
    const double all = static_cast<double>(k.program[i].warp_executed);
    if (!(all > 0)) continue;
    a.pcs[i].grid_scale = grid_exec[i] / all;
    if (is_global_atomic(k.program[i])) {
      atomics_traced += all;
      atomics_grid += grid_exec[i];
    }
  }
  if (atomics_traced > 0) a.atomic_scale = atomics_grid / atomics_traced;
}

// A sampled trace with the grid's per-CTA counts (Kernel::cta_work). Each untraced CTA does
// what the traced CTAs of like work do (like_traced), scaled to its own work; a traced CTA the
// tracer stopped early stands for its counted work. So each PC's grid count is the sum over
// traced CTAs of their executions times (own counted work + the work of the CTAs they stand
// for) / recorded work. Typical CTAs (by counted work) are what rounds replay, and the heaviest
// traced CTA, where above the band (of a weighted or an uneven sample), runs in one round as
// without counts (a complete trace only: a truncated one holds part of it); how the grid's work
// falls on the SMs is cta_balance's.
inline void weigh_by_grid_counts(const Kernel& k, KernelAnalysis& a, CtaSample s) {
  const std::size_t n = a.ctas.size();
  s.counted = true;
  s.recorded = s.work;
  s.linear_ids.resize(n);
  for (std::size_t c = 0; c < n; ++c) {
    s.linear_ids[c] = linear_cta(k.warps[a.ctas[c].front()].cta, k.launch.grid);
    s.work[c] = static_cast<double>(cta_work_of(k.cta_work, s.linear_ids[c]));
  }
  std::vector<std::pair<double, std::size_t>> by_work;
  for (std::size_t c = 0; c < n; ++c)
    if (s.recorded[c] > 0) by_work.push_back({s.work[c], c});
  if (by_work.empty()) return;
  std::sort(by_work.begin(), by_work.end());
  std::vector<std::uint64_t> traced_ids = s.linear_ids;
  std::sort(traced_ids.begin(), traced_ids.end());
  // The work each traced CTA stands for: its own, and that of the untraced CTAs nearest it.
  std::vector<double> stands_for(n, 0.0);
  for (std::size_t c = 0; c < n; ++c) stands_for[c] = s.recorded[c] > 0 ? s.work[c] : 0;
  std::uint64_t first = 0;
  for (const auto& run : k.cta_work) {
    const auto lo = std::lower_bound(traced_ids.begin(), traced_ids.end(), first);
    const auto hi = std::lower_bound(traced_ids.begin(), traced_ids.end(), first + run.ctas);
    const double untraced = static_cast<double>(run.ctas) - static_cast<double>(hi - lo);
    const double w = static_cast<double>(run.warp_instructions);
    if (untraced > 0) {
      const auto [b, e] = like_traced(by_work, w, assume::typical_cta_band);
      for (std::size_t i = b; i < e; ++i) stands_for[by_work[i].second] += untraced * w / static_cast<double>(e - b);
    }
    first += run.ctas;
  }
  std::vector<double> weight(n, 0.0);  // per recorded instruction of the traced CTA
  for (std::size_t c = 0; c < n; ++c) weight[c] = s.recorded[c] > 0 ? stands_for[c] / s.recorded[c] : 0;
  std::vector<double> grid_exec(k.program.size(), 0.0);
  for (std::size_t c = 0; c < n; ++c)
    for (auto wi : a.ctas[c])
      for (std::uint64_t d = k.warps[wi].begin; d < k.warps[wi].end; ++d) grid_exec[k.dyn[d].static_index] += weight[c];
  scale_to_grid_executions(k, a, std::move(grid_exec));
  s.typical = typical_ctas(s.work, assume::typical_cta_band);
  const double median = median_work(s.work);
  const std::size_t heaviest = heaviest_cta(s.work);
  if (!k.truncated_at_instructions && n >= 3 && median > 0 && s.work[heaviest] > median * assume::typical_cta_band)
    s.busiest = static_cast<int>(heaviest);
  a.sample = std::move(s);
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
  if (!a.dynamic || k.traced_ctas != a.ctas.size() || a.ctas.size() > StreamedAddresses::kKeptCtas) return;
  CtaSample s;
  s.work.reserve(a.ctas.size());
  for (const auto& cta : a.ctas) {
    double w = 0;
    for (auto wi : cta) w += static_cast<double>(k.warps[wi].end - k.warps[wi].begin);
    s.work.push_back(w);
  }
  // A trace of the whole grid needs no weighing, unless the tracer stopped early and the grid's
  // counts say how much its CTAs did. Its work per CTA is known, not sampled: where the heaviest
  // CTA does more than the first, which a round replays first, the busiest SM's round holds it
  // (a grid of one CTA per SM takes as long as its heaviest CTA, whichever it is).
  const bool truncated_counted = k.truncated_at_instructions && !k.cta_work.empty();
  if (!(traced < grid || truncated_counted)) {
    const std::size_t heaviest = heaviest_cta(s.work);
    if (k.truncated_at_instructions || s.work.empty() || !(s.work[heaviest] > s.work.front())) return;
    s.busiest = static_cast<int>(heaviest);
    s.whole_grid = true;
    a.sample = std::move(s);
    return;
  }
  if (!k.cta_work.empty()) {
    weigh_by_grid_counts(k, a, std::move(s));
    return;
  }
  s.typical = typical_ctas(s.work, assume::typical_cta_band);
  // The heaviest traced CTA, where above the band, runs in one round of the busiest SM: an
  // atypical CTA of a weighted sample, or, with no majority near the median (a triangular
  // loop's CTAs, whose counts keep grid / traced), the heaviest of an uneven one (with one CTA
  // per SM, the busiest SM's round is the heaviest CTA's, not the first's).
  const double median = median_work(s.work);
  const std::size_t heaviest = heaviest_cta(s.work);
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
  std::vector<double> grid_exec(k.program.size(), 0.0);
  for (std::size_t i = 0; i < k.program.size(); ++i) {
    const double all = static_cast<double>(k.program[i].warp_executed);
    if (all > 0) grid_exec[i] = once[i] + (all - once[i]) * s.typical_weight;
  }
  scale_to_grid_executions(k, a, std::move(grid_exec));
  a.sample = std::move(s);
}

// The report's note on a sample whose CTAs are not alike: how many traced CTAs are atypical
// (weighted samples), and the heaviest's work over the median traced CTA's (one decimal).
inline std::optional<Warning> sampled_ctas_warning(const CtaSample& s) {
  if (s.whole_grid || (!s.weighted() && s.busiest < 0)) return std::nullopt;
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

// Where the grid's per-CTA counts give its CTAs on average more work than the traced ones do
// (a sample of boundary CTAs that skip most of the code), the trace's PCs are scaled up with
// that work: without the loops (no listing), its loads and stores outside loops too, and when
// the extra work is computation the traced CTAs skipped, the memory traffic is over-estimated by
// up to that factor. Said where the grid's mean is at least kCountedScaleUpNote times the traced
// CTAs' (an assumption the report should name; below it, the usual spread of a sample).
// Estimated; the report's note only, no effect on the predicted time.
inline constexpr double kCountedScaleUpNote = 1.5;
inline std::optional<Warning> counted_scale_up_warning(const KernelAnalysis& an) {
  const CtaSample& s = an.sample;
  if (!s.counted || s.work.empty() || s.whole_grid) return std::nullopt;
  double traced_work = 0;
  for (double w : s.work) traced_work += w;
  if (!(traced_work > 0)) return std::nullopt;
  const double factor = mean_cta_work(an.kernel->cta_work) / (traced_work / static_cast<double>(s.work.size()));
  if (!(factor >= kCountedScaleUpNote)) return std::nullopt;
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f", factor);
  return Warning{WarningCode::counted_scale_up, {buf, an.loops_known ? "loops known" : ""}};
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

// How the grid's counted work falls on the SMs, against what the rounds assume. The busiest SM
// runs its CTAs' counted work; the simulated rounds replay per_sm traced CTAs of their recorded
// work (one of them the heaviest traced CTA, where a round holds it apart: the rounds' time is
// then the body plus that round's excess), and the average round's counts set the bounds.
// rounds: the busiest SM's work over the replayed CTAs' (a round of lighter or truncated traced
// CTAs, or an SM that drew heavier untraced ones, stretches); bounds: over per_sm average CTAs'.
// 1 and 1 without the grid's counts.
struct CtaBalance {
  double rounds = 1, bounds = 1;
};

// CTAs go, in linear order, to the SM slot that frees first (one CTA per SM before a second on
// any, as the hardware spreads a grid), each holding its slot for its work.
inline CtaBalance cta_balance(const KernelAnalysis& a, const Waves& waves, int sms) {
  const CtaSample& s = a.sample;
  const double per_sm = waves.per_sm;
  const int round_ctas = waves.round_ctas(), blocks_per_sm = waves.blocks_per_sm;
  if (!s.counted || round_ctas <= 0 || !(per_sm > 0) || sms <= 0) return {};
  double replayed = 0;
  for (int slot = 0; slot < round_ctas; ++slot) replayed += s.recorded[round_cta(a, slot, false)];
  replayed /= round_ctas;
  if (!(replayed > 0)) return {};
  const auto& runs = a.kernel->cta_work;
  double busiest_sm;
  if (runs.size() == 1) {
    busiest_sm = per_sm * static_cast<double>(runs.front().warp_instructions);
  } else {
    const int slots = std::max(1, blocks_per_sm);
    using Slot = std::pair<double, std::uint64_t>;  // (frees at, slot-major index: slot * sms + sm)
    std::priority_queue<Slot, std::vector<Slot>, std::greater<Slot>> free_at;
    for (std::uint64_t i = 0; i < std::uint64_t(slots) * std::uint64_t(sms); ++i) free_at.push({0.0, i});
    std::vector<double> sm_work(static_cast<std::size_t>(sms), 0.0);
    for (const auto& r : runs)
      for (std::uint64_t j = 0; j < r.ctas; ++j) {
        const double w = static_cast<double>(r.warp_instructions);
        Slot sl = free_at.top();
        free_at.pop();
        sm_work[static_cast<std::size_t>(sl.second % std::uint64_t(sms))] += w;
        free_at.push({sl.first + w, sl.second});
      }
    busiest_sm = *std::max_element(sm_work.begin(), sm_work.end());
  }
  CtaBalance b;
  // The rounds replay per_sm CTAs of `replayed` work each, one of them the heaviest traced CTA
  // where a round holds it.
  double modelled = per_sm * replayed;
  if (s.busiest >= 0) modelled += s.recorded[static_cast<std::size_t>(s.busiest)] - replayed;
  b.rounds = busiest_sm / modelled;
  const double average = mean_cta_work(runs);
  if (average > 0) b.bounds = busiest_sm / (per_sm * average);
  return b;
}

// Whether a launch's balance comes from its profile's instruction spread: a count-only input
// without the grid's counted work.
inline bool balance_from_profile(const KernelAnalysis& a) { return !a.dynamic && !a.sample.counted; }

// The balance a prediction reads: the grid's counted work where it has it (cta_balance); for a
// count-only input without it, the profiled run's spread of instructions over the sub-partitions
// (profiled_sm_excess: the busiest SM's work over the average's, as `bounds`).
inline CtaBalance launch_balance(const KernelAnalysis& a, const Waves& waves, const GpuSpec& g) {
  CtaBalance b = cta_balance(a, waves, g.sms);
  if (!balance_from_profile(a)) return b;
  const Kernel& k = *a.kernel;
  b.bounds = profiled_sm_excess(k.profiled_traffic, waves.grid, k.launch.warps_per_cta(), waves.blocks_per_sm, g.arch_table().sub_partitions);
  return b;
}

// A count-only input's note where the profiled busiest-SM share stretches the kernel.
inline std::optional<Warning> busiest_sm_share_warning(const KernelAnalysis& a, const CtaBalance& b) {
  constexpr double noted = 1.05;  // not a hardware quantity: below it, a note would mostly report an even spread's rounding
  if (!balance_from_profile(a) || b.bounds < noted) return std::nullopt;
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f", b.bounds);
  return Warning{WarningCode::busiest_sm_share, {buf}};
}

}  // namespace detail

}  // namespace gpuperf
