// The stores of a sampled trace's untraced CTAs, extrapolated from the traced ones: which
// sectors the rest of the grid writes, and when in its warps' streams. A traced CTA's load of a
// sector that an untraced CTA running beside it has already written finds it in L2, where the
// sample alone would count a first touch (a DRAM miss): Rodinia particlefilter's normalize
// kernel has thread 0 sum the weights every CTA has just divided, one load after another.
#pragma once

#include <algorithm>
#include <cstdint>
#include <map>
#include <tuple>
#include <vector>

#include "gpuperf/trace/cta_work.hpp"
#include "gpuperf/trace/ir.hpp"

namespace gpuperf {

// One store PC's byte range in one traced CTA.
struct CtaStoreRange {
  std::uint64_t lo = UINT64_MAX, end = 0;  // lowest address, one past the highest byte written
  std::uint64_t sectors = 0;               // distinct sectors written
  double position_sum = 0, executions = 0;  // where in its warps' streams (instruction index) the PC ran
};

// The per-CTA ranges of a window of traced CTAs' stores, fitted per store PC along each row of
// the grid the window reaches (CTAs of one y and z) as a range that moves by a fixed stride
// from CTA to CTA, and extrapolated to the row's CTAs the trace has not shown so far: those a
// sample leaves out, and those of a whole trace's later windows. Only where the window's CTAs
// agree on it exactly (at least kMinCtas of them, each range at least half written):
// scattered stores, and rows the window does not reach, are left out, so nothing is guessed
// where the trace cannot tell.
class GridStores {
 public:
  // CTAs that must agree on a PC's stride: two define one, a third checks it (not a hardware
  // quantity).
  static constexpr std::size_t kMinCtas = 3;
  // Share of its byte range a CTA must write for the range to count as written: a contiguous
  // block is all written, a matrix column a few percent of its span. Estimated, not fitted.
  static constexpr double kMinWrittenShare = 0.5;
  static constexpr std::size_t kMaxRuns = 64;  // fitted store ranges kept (the queries' cost)

  // A window's CTA and its stores, PC by PC (its ranges, keyed by PC).
  void add_cta(const Dim3& cta, const std::map<std::uint32_t, CtaStoreRange>& ranges) {
    for (const auto& [pc, r] : ranges)
      if (r.end > r.lo) seen_[{pc, cta.y, cta.z}].push_back({cta.x, r});
    auto& xs = traced_[{cta.y, cta.z}];
    xs.insert(std::upper_bound(xs.begin(), xs.end(), cta.x), cta.x);
  }

  // Fits the ranges of the window's CTAs (added since the last fit), for a grid of `grid` CTAs.
  void fit(const Dim3& grid) {
    grid_ = grid;
    runs_.clear();
    for (auto& [key, ctas] : seen_) {
      if (runs_.size() >= kMaxRuns) break;
      if (ctas.size() < kMinCtas) continue;
      std::sort(ctas.begin(), ctas.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
      const auto& [x0, r0] = ctas.front();
      const auto& [x1, r1] = ctas[1];
      if (x1 == x0) continue;
      const std::int64_t dx = std::int64_t(x1) - x0;
      const std::int64_t d = std::int64_t(r1.lo) - std::int64_t(r0.lo);
      if (d == 0 || d % dx != 0) continue;
      const std::int64_t stride = d / dx;
      const std::int64_t width = std::int64_t(r0.end - r0.lo);
      bool agree = true;
      double pos = 0, execs = 0;
      for (const auto& [x, r] : ctas) {
        const std::int64_t shift = (std::int64_t(x) - x0) * stride;
        agree = agree && std::int64_t(r.lo) - std::int64_t(r0.lo) == shift && std::int64_t(r.end - r.lo) == width &&
                double(r.sectors) * 32 >= kMinWrittenShare * double(r.end - r.lo);
        pos += r.position_sum;
        execs += r.executions;
      }
      if (!agree) continue;
      Run run;
      run.y = std::get<1>(key);
      run.z = std::get<2>(key);
      run.x0 = x0;
      run.lo = std::int64_t(r0.lo);
      run.end = std::int64_t(r0.end);
      run.stride = stride;
      run.position = execs > 0 ? pos / execs : 0;
      run.traced = &traced_[{run.y, run.z}];
      runs_.push_back(run);
    }
    seen_.clear();
  }

  bool empty() const { return runs_.empty(); }

  // The lowest linear id of a CTA not traced so far whose extrapolated stores hold `sector`
  // (32 B, by its middle byte) at an earlier point of its warps' streams than `position`; -1
  // if none.
  std::int64_t writer(std::uint64_t sector, double position) const {
    std::int64_t best = -1;
    const std::int64_t c = std::int64_t(sector) * 32 + 16;
    for (const auto& r : runs_) {
      if (r.position >= position) continue;
      // CTAs x with lo + (x - x0) * stride <= c < end + (x - x0) * stride.
      std::int64_t first, last;
      if (r.stride > 0) {
        first = r.x0 + floor_div(c - r.end, r.stride) + 1;
        last = r.x0 + floor_div(c - r.lo, r.stride);
      } else {
        const std::int64_t s = -r.stride;
        first = r.x0 + ceil_div(r.lo - c, s);
        last = r.x0 + ceil_div(r.end - c, s) - 1;
      }
      first = std::max<std::int64_t>(first, 0);
      last = std::min<std::int64_t>(last, std::int64_t(grid_.x) - 1);
      for (std::int64_t x = first, tries = 0; x <= last && tries < 64; ++x, ++tries) {
        if (std::binary_search(r.traced->begin(), r.traced->end(), static_cast<std::uint32_t>(x))) continue;
        const auto id = static_cast<std::int64_t>(linear_cta({static_cast<std::uint32_t>(x), r.y, r.z}, grid_));
        if (best < 0 || id < best) best = id;
        break;
      }
    }
    return best;
  }

 private:
  struct Run {
    std::uint32_t y = 0, z = 0;
    std::int64_t x0 = 0, lo = 0, end = 0, stride = 0;
    double position = 0;
    const std::vector<std::uint32_t>* traced = nullptr;  // the row's x traced so far, sorted (map nodes stay put)
  };
  static std::int64_t floor_div(std::int64_t a, std::int64_t b) { return a / b - ((a % b != 0) && ((a < 0) != (b < 0))); }
  static std::int64_t ceil_div(std::int64_t a, std::int64_t b) { return -floor_div(-a, b); }

  std::map<std::tuple<std::uint32_t, std::uint32_t, std::uint32_t>, std::vector<std::pair<std::uint32_t, CtaStoreRange>>> seen_;  // (pc, y, z): the window's
  std::map<std::pair<std::uint32_t, std::uint32_t>, std::vector<std::uint32_t>> traced_;  // (y, z) -> x of every window so far
  std::vector<Run> runs_;
  Dim3 grid_;
};

}  // namespace gpuperf
