// Count-only inputs: which values of the static program a kind of source reaches through the
// registers (the thread index, loaded data). Registers are reused, so each use takes the
// definitions that reach it in program order: the nearest one before it, and those later in a
// loop around it (a loop-carried counter). A guard predicate is not a source: the lanes that
// write compute from the same inputs (a branch's condition decides which lanes run, not what
// they compute). A loop whose branches test a reached predicate lets lanes leave at different
// iterations, so what it writes is reached after it.
#pragma once

#include <algorithm>
#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "gpuperf/model/kernel_analysis.hpp"
#include "gpuperf/sass/instruction.hpp"
#include "gpuperf/trace/ir.hpp"

namespace gpuperf {

namespace detail {

class RegisterReach {
 public:
  // is_source(s): the value instruction s writes is reached whatever its sources. Iterated to a
  // fixed point: every written value starts unreached and only turns reached.
  template <class IsSource>
  RegisterReach(const Kernel& k, const KernelAnalysis& a, IsSource is_source) : k_(k), a_(a) {
    const std::size_t n = a.order.size();
    pos_of_.resize(k.program.size());
    for (std::uint32_t p = 0; p < n; ++p) pos_of_[a.order[p]] = p;
    for (std::uint32_t p = 0; p < n; ++p)
      for (auto r : k.program[a.order[p]].dst) defs_[r].push_back(p);
    for (std::uint32_t p = 0; p < n; ++p)
      if (a.loop_head_of[p] >= 0) loops_.emplace_back(static_cast<std::uint32_t>(a.loop_head_of[p]), p);
    // Each position's guard predicate register (-1: none), read once with the listing parser.
    guard_.assign(n, -1);
    reached_.assign(n, false);
    for (std::uint32_t p = 0; p < n; ++p) {
      const auto& s = k.program[a.order[p]];
      std::uint16_t g = 0;
      if (!s.predicated || s.text.empty()) continue;
      const std::string predicate = sass::parse_instruction_text(s.text).predicate;  // "@!P0"
      if (predicate.size() > 1 && sass::parse_register(std::string_view(predicate).substr(1), g)) guard_[p] = g;
    }
    for (bool changed = true; changed;) {
      changed = false;
      for (std::uint32_t p = 0; p < n; ++p) {
        if (reached_[p]) continue;
        const auto& s = k.program[a.order[p]];
        bool v = is_source(s);
        bool guard_skipped = false;
        for (auto r : s.src) {
          if (v) break;
          if (!guard_skipped && static_cast<int>(r) == guard_[p]) { guard_skipped = true; continue; }
          v = reaches(r, p);
        }
        if (v) { reached_[p] = true; changed = true; }
      }
    }
  }

  // Whether the source reaches register r where static instruction i reads it.
  bool reaches_at(std::uint16_t r, std::size_t i) const { return reaches(r, pos_of_[i]); }
  // Whether the source reaches any of static instruction i's address registers.
  bool reaches_address(std::size_t i) const {
    const auto& base = k_.program[i].mem_base;
    return std::any_of(base.begin(), base.end(), [&](std::uint16_t r) { return reaches_at(r, i); });
  }

 private:
  bool divergent_loop(std::uint32_t head, std::uint32_t back) const {
    for (std::uint32_t q = head; q <= back; ++q) {
      if (guard_[q] < 0 || !k_.program[a_.order[q]].branch_target) continue;
      auto it = defs_.find(static_cast<std::uint16_t>(guard_[q]));
      if (it != defs_.end())
        for (auto d : it->second)
          if (reached_[d]) return true;
    }
    return false;
  }

  // The definitions of r that reach position `use`: going back from it, each one met until an
  // unguarded one (a guarded write leaves the other lanes' value); and, inside a loop, the
  // loop's later ones where no unguarded one precedes the use within the loop.
  bool reaches(std::uint16_t r, std::uint32_t use) const {
    auto it = defs_.find(r);
    if (it == defs_.end()) return false;  // never written: a launch constant
    const auto& d = it->second;
    auto after = std::lower_bound(d.begin(), d.end(), use);
    auto def_reached = [&](std::uint32_t q) {
      if (reached_[q]) return true;
      for (auto [head, back] : loops_)
        if (head <= q && q <= back && !(head <= use && use <= back) && divergent_loop(head, back)) return true;
      return false;
    };
    // A divergent loop before the use that writes r: lanes may leave it by a branch past any
    // later write (this is program order, not control flow), so its value reaches the use.
    for (auto [head, back] : loops_)
      if (back < use && divergent_loop(head, back))
        for (auto q : d)
          if (head <= q && q <= back) return true;
    std::uint32_t killed_at = 0;
    bool killed = false;
    for (auto q = after; q != d.begin();) {
      --q;
      if (def_reached(*q)) return true;
      if (guard_[*q] < 0) { killed = true; killed_at = *q; break; }
    }
    for (auto [head, back] : loops_)
      if (head <= use && use <= back && !(killed && killed_at >= head))
        for (auto q = after; q != d.end() && *q <= back; ++q)
          if (def_reached(*q)) return true;
    return false;
  }

  const Kernel& k_;
  const KernelAnalysis& a_;
  std::vector<std::uint32_t> pos_of_;
  std::unordered_map<std::uint16_t, std::vector<std::uint32_t>> defs_;  // register -> writing positions, ascending
  std::vector<std::pair<std::uint32_t, std::uint32_t>> loops_;         // [head, back branch] positions
  std::vector<int> guard_;
  std::vector<bool> reached_;
};

}  // namespace detail

}  // namespace gpuperf
