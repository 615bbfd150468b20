// Static stalls: how long each instruction waits after its warp's previous issue, from the
// program alone (register dependencies, or the compiler's stall counts and barriers).
#pragma once

#include <algorithm>
#include <vector>

#include "gpuperf/arch/instr_desc.hpp"
#include "gpuperf/model/assumptions.hpp"
#include "gpuperf/model/analysis.hpp"
#include "gpuperf/model/register_flow.hpp"

namespace gpuperf {

namespace detail {

class StaticStalls {
 public:
  StaticStalls(const KernelAnalysis& an, const std::vector<InstrDesc>& desc, const std::vector<double>& lat, std::vector<double>& stall)
      : an_(an), k_(*an.kernel), desc_(desc), lat_(lat), stall_(stall), loops_(an), ctrl_(k_.has_control_bits()) {}

  // The wait of position i and whether a memory result causes it.
  void wait_of(int i, double& wait, bool& mem) const {
    const auto& s = k_.program[an_.order[i]];
    wait = 0;
    mem = false;
    // With a listing, fixed latencies are already in the previous instruction's stall count
    // (gap()); variable-latency producers signal through barriers.
    if (ctrl_ && s.control.valid) {
      if (s.control.wait_mask) barrier_wait(i, s.control.wait_mask, wait, mem);
    } else {
      for (auto r : s.src) register_wait(i, r, wait, mem);
    }
  }

 private:
  // Cycles from the issue of position j to the next issue of its warp.
  double gap(int j) const {
    const auto& s = k_.program[an_.order[j]];
    if (ctrl_ && s.control.valid) return std::max(1.0, double(s.control.stall)) + stall_[j];
    return 1.0 + stall_[j];
  }
  static bool in_mask(unsigned mask, unsigned barrier) { return barrier < 6 && (mask >> barrier) & 1; }

  // The latest producer that sets a barrier in `mask`: its latency (a read barrier's is
  // assumed) less the cycles issued since.
  void barrier_wait(int i, unsigned mask, double& wait, bool& mem) const {
    double dist = 0;
    loops_.walk_back(i, assume::barrier_walk_limit, [&](int j) {
      const auto& p = k_.program[an_.order[j]];
      dist += gap(j);
      if (in_mask(mask, p.control.write_barrier) || in_mask(mask, p.control.read_barrier)) {
        double l = in_mask(mask, p.control.write_barrier) ? lat_[an_.order[j]] : assume::read_barrier_cycles;
        if (l - dist > wait) { wait = l - dist; mem = desc_[an_.order[j]].space != MemSpace::none; }
      }
      return true;
    });
  }

  // The nearest earlier writer of register r: its latency less the cycles issued since.
  void register_wait(int i, std::uint16_t r, double& wait, bool& mem) const {
    double dist = 0;
    loops_.walk_back(i, assume::register_walk_limit, [&](int j) {
      const auto& p = k_.program[an_.order[j]];
      if (std::find(p.dst.begin(), p.dst.end(), r) != p.dst.end()) {
        double l = lat_[an_.order[j]] - dist - 1;
        if (l > wait) { wait = l; mem = desc_[an_.order[j]].space != MemSpace::none; }
        return false;
      }
      dist += gap(j);
      return true;
    });
  }

  const KernelAnalysis& an_;
  const Kernel& k_;
  const std::vector<InstrDesc>& desc_;
  const std::vector<double>& lat_;
  const std::vector<double>& stall_;  // read by gap() while the passes fill it
  const LoopSpans loops_;
  const bool ctrl_;
};

// One prediction asks for the same static stalls up to three times (the full round, the tail
// round, a simulation's bounds) from the same analysis, descriptors and latencies. While a
// StaticStallsScope is alive on this thread (Predictor::predict holds one), static_stalls
// keeps its last result and returns it again for inputs equal in value; outside a scope it
// always computes. The scope is one prediction, so nothing it saw can change under it.
struct StaticStallsMemo {
  const KernelAnalysis* an = nullptr;
  std::vector<MemSpace> space;
  std::vector<double> lat, stall;
  std::vector<bool> on_memory;
};
inline StaticStallsMemo*& static_stalls_memo() {
  thread_local StaticStallsMemo* memo = nullptr;
  return memo;
}
class StaticStallsScope {
 public:
  StaticStallsScope() : outer_(static_stalls_memo()) { static_stalls_memo() = &memo_; }
  ~StaticStallsScope() { static_stalls_memo() = outer_; }
  StaticStallsScope(const StaticStallsScope&) = delete;
  StaticStallsScope& operator=(const StaticStallsScope&) = delete;

 private:
  StaticStallsMemo memo_;
  StaticStallsMemo* outer_;
};

inline void compute_static_stalls(const KernelAnalysis& an, const std::vector<InstrDesc>& desc, const std::vector<double>& lat,
                                  std::vector<double>& stall, std::vector<bool>& on_memory);

// Cycles instruction `i` (program order index) waits after its warp's previous issue:
// register dependencies against the nearest earlier writer (wrapping around loops), or the
// compiler's stall counts and barrier waits when a listing is joined. Two passes so loop
// bodies see their own stalls.
inline void static_stalls(const KernelAnalysis& an, const std::vector<InstrDesc>& desc, const std::vector<double>& lat,
                          std::vector<double>& stall, std::vector<bool>& on_memory) {
  StaticStallsMemo* memo = static_stalls_memo();
  if (!memo) return compute_static_stalls(an, desc, lat, stall, on_memory);
  // The walk reads the descriptors' memory spaces alone.
  bool same = memo->an == &an && memo->lat == lat && memo->space.size() == desc.size();
  for (std::size_t i = 0; same && i < desc.size(); ++i) same = memo->space[i] == desc[i].space;
  if (!same) {
    compute_static_stalls(an, desc, lat, memo->stall, memo->on_memory);
    memo->an = &an;
    memo->lat = lat;
    memo->space.resize(desc.size());
    for (std::size_t i = 0; i < desc.size(); ++i) memo->space[i] = desc[i].space;
  }
  stall = memo->stall;
  on_memory = memo->on_memory;
}

inline void compute_static_stalls(const KernelAnalysis& an, const std::vector<InstrDesc>& desc, const std::vector<double>& lat,
                                  std::vector<double>& stall, std::vector<bool>& on_memory) {
  const Kernel& k = *an.kernel;
  const int n = static_cast<int>(an.order.size());
  stall.assign(an.order.size(), 0);
  on_memory.assign(an.order.size(), false);
  const StaticStalls walk(an, desc, lat, stall);
  for (int pass = 0; pass < 2; ++pass)
    for (int i = 0; i < n; ++i) {
      double wait;
      bool mem;
      walk.wait_of(i, wait, mem);
      stall[i] = std::max(0.0, wait);
      on_memory[i] = mem;
    }
  // With a listing, the previous instruction's stall count is this one's issue gap.
  if (k.has_control_bits())
    for (int i = n - 1; i > 0; --i) {
      const auto& prev = k.program[an.order[i - 1]];
      if (prev.control.valid) stall[i] += std::max(0.0, double(prev.control.stall) - 1);
    }
}

}  // namespace detail

}  // namespace gpuperf
