// Loads a sampled trace shows drawn from one region (a tree walked from its root, a table
// looked up at random): the grid's first touches of such loads stay within the region, however
// many CTAs the sample stands for (Rodinia b+tree: 8 traced CTAs of 10,000 walk a 4 MB tree,
// which the grid reads once, not 1,250 times).
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <vector>

#include "gpuperf/model/kernel_analysis.hpp"

namespace gpuperf {

// The span of one load PC's sectors over a window of CTAs, and the mean sector each CTA (by its
// place in the window, the first kPlaces) loads.
struct LoadExtent {
  static constexpr std::size_t kPlaces = 64;
  std::uint64_t lo = UINT64_MAX, hi = 0, origin = 0;  // origin: the first sector seen
  std::vector<double> sum, count;  // per CTA place: sectors past the origin, sectors loaded

  // A request's sectors (sorted) from the CTA at `place` (kPlaces or more: the span only).
  void add(std::size_t place, const std::uint64_t* secs, std::size_t n) {
    if (n == 0) return;
    if (lo == UINT64_MAX) origin = secs[0];
    lo = std::min(lo, secs[0]);
    hi = std::max(hi, secs[n - 1]);
    if (place >= kPlaces) return;
    if (count.empty()) { sum.assign(kPlaces, 0); count.assign(kPlaces, 0); }
    double s = 0;
    for (std::size_t j = 0; j < n; ++j) s += static_cast<double>(static_cast<std::int64_t>(secs[j] - origin));
    sum[place] += s;
    count[place] += static_cast<double>(n);
  }
  std::size_t ctas() const { return static_cast<std::size_t>(std::count_if(count.begin(), count.end(), [](double c) { return c > 0; })); }
};

// |Spearman rho| of the CTAs' order against their mean sectors from which the data move with
// the CTA (each CTA its own rows): 8 CTAs drawn at random reach 0.8 with p < 0.02 (the rank
// correlation's null distribution); not fitted.
inline constexpr double kMovingRankCorrelation = 0.8;
// CTAs a PC must run in before its loads count as drawn from one region: fewer leave the rank
// test nothing to tell (3 CTAs reach |rho| = 1 by chance one time in three). Estimated.
inline constexpr std::size_t kMinDrawnCtas = 4;

// Whether the CTAs' mean sectors follow their order (|Spearman rho| >= kMovingRankCorrelation);
// fewer than 3 CTAs cannot tell, and count as moving.
inline bool moves_with_cta(const LoadExtent& e) {
  std::vector<double> mean;  // by place, the CTAs that loaded
  for (std::size_t c = 0; c < e.count.size(); ++c)
    if (e.count[c] > 0) mean.push_back(e.sum[c] / e.count[c]);
  const std::size_t n = mean.size();
  if (n < 3) return true;
  std::vector<std::size_t> by_mean(n);
  for (std::size_t j = 0; j < n; ++j) by_mean[j] = j;
  std::sort(by_mean.begin(), by_mean.end(), [&](std::size_t a, std::size_t b) { return mean[a] < mean[b]; });
  std::vector<double> rank(n);
  for (std::size_t r = 0; r < n;) {  // ties share their mean rank
    std::size_t e2 = r;
    while (e2 + 1 < n && mean[by_mean[e2 + 1]] == mean[by_mean[r]]) ++e2;
    for (std::size_t j = r; j <= e2; ++j) rank[by_mean[j]] = 0.5 * double(r + e2);
    r = e2 + 1;
  }
  double d2 = 0;
  for (std::size_t j = 0; j < n; ++j) d2 += (rank[j] - double(j)) * (rank[j] - double(j));
  const double rho = 1 - 6 * d2 / (double(n) * (double(n) * double(n) - 1));
  return std::abs(rho) >= kMovingRankCorrelation;
}

// Sets PcStats::l2_cold_extent_sectors of the PCs whose loads are drawn from one region
// (extents[i]: PC i's over the profile's only window; `enough[i]`: the PC saw enough first
// touches to tell): the span over n CTAs, widened by (n + 1) / (n - 1) for the region's ends the
// sample missed. PCs whose regions overlap (two walks of one tree) share their union, in
// proportion to their grid first touches. Data that move with the CTA are left unbounded.
inline void bound_drawn_regions(const std::vector<LoadExtent>& extents, const std::vector<bool>& enough, std::vector<PcStats>& pcs) {
  struct Drawn { double lo, hi; std::size_t pc; };
  std::vector<Drawn> drawn;
  for (std::size_t i = 0; i < extents.size() && i < pcs.size() && i < enough.size(); ++i) {
    const auto& e = extents[i];
    const double n = static_cast<double>(e.ctas());
    if (!enough[i] || n < kMinDrawnCtas || e.hi <= e.lo || moves_with_cta(e)) continue;
    const double span = double(e.hi - e.lo + 1), widen = span * (n + 1) / (n - 1) - span;
    drawn.push_back({double(e.lo) - widen / 2, double(e.hi) + widen / 2, i});
  }
  std::sort(drawn.begin(), drawn.end(), [](const Drawn& x, const Drawn& y) { return x.lo < y.lo; });
  for (std::size_t g = 0; g < drawn.size();) {
    std::size_t last = g;
    double hi = drawn[g].hi, cold = 0;
    while (last + 1 < drawn.size() && drawn[last + 1].lo <= hi) hi = std::max(hi, drawn[++last].hi);
    for (std::size_t j = g; j <= last; ++j) cold += static_cast<double>(pcs[drawn[j].pc].l2_cold) * pcs[drawn[j].pc].grid_scale;
    const double region = hi - drawn[g].lo;
    for (std::size_t j = g; j <= last && cold > 0; ++j) {
      auto& p = pcs[drawn[j].pc];
      p.l2_cold_extent_sectors = region * static_cast<double>(p.l2_cold) * p.grid_scale / cold;
    }
    g = last + 1;
  }
}

}  // namespace gpuperf
