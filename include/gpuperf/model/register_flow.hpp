// Count-only inputs: which values of the static program a kind of source reaches through the
// registers (the thread index, loaded data). Registers are reused, so each use takes the
// definitions that reach it in program order: the nearest one before it, and those later in a
// loop around it (a loop-carried counter). A guard predicate is not a source: the lanes that
// write compute from the same inputs (a branch's condition decides which lanes run, not what
// they compute). A loop whose branches test a reached predicate lets lanes leave at different
// iterations, so what it writes is reached after it. A reach that does not go through control
// follows neither predicates nor such loops: a search's loaded comparisons decide where its
// index goes, but the index is computed from counters, not from the loaded values.
#pragma once

#include <algorithm>
#include <charconv>
#include <optional>
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

// The innermost loop (backward branch) around each program-order position: [begin, end], or -1.
struct LoopSpans {
  std::vector<int> begin, end;
  explicit LoopSpans(const KernelAnalysis& an) : begin(an.order.size(), -1), end(an.order.size(), -1) {
    const int n = static_cast<int>(an.order.size());
    for (int e = 0; e < n; ++e)
      if (an.loop_head_of[e] >= 0)
        for (int j = an.loop_head_of[e]; j <= e; ++j)
          if (end[j] < 0 || e - an.loop_head_of[e] < end[j] - begin[j]) { end[j] = e; begin[j] = an.loop_head_of[e]; }
  }
  // Visits the positions before `i`, nearest first, wrapping once from the top of i's loop to
  // its end; at most `limit` steps (the wrap counts as one). visit(j) returns false to stop.
  template <class Visit>
  void walk_back(int i, int limit, Visit visit) const {
    int j = i - 1, steps = 0;
    bool wrapped = false;
    while (steps++ < limit) {
      if (j < 0 || (begin[i] >= 0 && j < begin[i] && !wrapped)) {
        if (end[i] >= 0 && !wrapped) { j = end[i]; wrapped = true; continue; }
        break;
      }
      if (!visit(j)) break;
      --j;
    }
  }
};

// The program's positions in program order (KernelAnalysis::order) and each register's writers.
struct ProgramDefs {
  std::vector<std::uint32_t> pos_of;                                   // static index -> position
  std::unordered_map<std::uint16_t, std::vector<std::uint32_t>> defs;  // register -> writing positions, ascending
  ProgramDefs(const Kernel& k, const KernelAnalysis& a) : pos_of(k.program.size()) {
    for (std::uint32_t p = 0; p < a.order.size(); ++p) pos_of[a.order[p]] = p;
    for (std::uint32_t p = 0; p < a.order.size(); ++p)
      for (auto r : k.program[a.order[p]].dst) defs[r].push_back(p);
  }
};

inline bool is_predicate_register(std::uint16_t r) {
  const auto kind = sass::reg_kind(r);
  return kind == sass::RegKind::pred || kind == sass::RegKind::upred;
}

class RegisterReach {
 public:
  // is_source(s): the value instruction s writes is reached whatever its sources. Iterated to a
  // fixed point: every written value starts unreached and only turns reached.
  template <class IsSource>
  RegisterReach(const Kernel& k, const KernelAnalysis& a, const ProgramDefs& program, IsSource is_source, bool through_control = true)
      : k_(k), a_(a), through_control_(through_control), pos_of_(program.pos_of), defs_(program.defs) {
    const std::size_t n = a.order.size();
    for (std::uint32_t p = 0; p < n; ++p)
      if (a.loop_head_of[p] >= 0) loops_.emplace_back(static_cast<std::uint32_t>(a.loop_head_of[p]), p);
    // Each position's guard predicate register (-1: none), read once with the listing parser.
    guard_.assign(n, -1);
    guard_text_.assign(n, std::string());
    reached_.assign(n, false);
    for (std::uint32_t p = 0; p < n; ++p) {
      const auto& s = k.program[a.order[p]];
      std::uint16_t g = 0;
      if (!s.predicated || s.text.empty()) continue;
      const std::string predicate = sass::parse_instruction_text(s.text).predicate;  // "@!P0"
      if (predicate.size() > 1 && sass::parse_register(std::string_view(predicate).substr(1), g)) {
        guard_[p] = g;
        guard_text_[p] = predicate;
      }
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
          if (!through_control_ && is_predicate_register(r)) continue;
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
  // Whether positions q < use are guarded alike with no write of the guard between them: the
  // lanes that run the use ran q (following data, a guarded write then kills for them).
  bool same_guard(std::uint32_t q, std::uint32_t use) const {
    if (use >= guard_.size() || guard_[q] < 0 || guard_text_[q] != guard_text_[use]) return false;
    auto it = defs_.find(static_cast<std::uint16_t>(guard_[q]));
    if (it == defs_.end()) return true;
    return std::none_of(it->second.begin(), it->second.end(), [&](std::uint32_t w) { return q < w && w < use; });
  }

  bool divergent_loop(std::uint32_t head, std::uint32_t back) const {
    if (!through_control_) return false;
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
      if (guard_[*q] < 0 || (!through_control_ && same_guard(*q, use))) { killed = true; killed_at = *q; break; }
    }
    for (auto [head, back] : loops_)
      if (head <= use && use <= back && !(killed && killed_at >= head))
        for (auto q = after; q != d.end() && *q <= back; ++q)
          if (def_reached(*q)) return true;
    return false;
  }

  const Kernel& k_;
  const KernelAnalysis& a_;
  const bool through_control_;
  const std::vector<std::uint32_t>& pos_of_;
  const std::unordered_map<std::uint16_t, std::vector<std::uint32_t>>& defs_;
  std::vector<std::pair<std::uint32_t, std::uint32_t>> loops_;         // [head, back branch] positions
  std::vector<int> guard_;
  std::vector<std::string> guard_text_;  // "@!P1"
  std::vector<bool> reached_;
};

// Count-only inputs: the bytes a memory instruction's address advances per iteration of its
// innermost loop, where the program says so (induction variables): each address register's one
// write in the loop adds an immediate to itself, or adds, scales or moves registers that do
// (IADD3, IMAD, IMAD.WIDE, LEA, MOV); a register the loop does not write advances 0 bytes.
// None where a write is guarded, loads data, or is of another kind.
class LoopStrides {
 public:
  LoopStrides(const Kernel& k, const KernelAnalysis& a, const ProgramDefs& program, const LoopSpans& loops)
      : k_(k), a_(a), pos_of_(program.pos_of), defs_(program.defs), loops_(loops) {}

  std::optional<std::int64_t> address_stride(std::size_t i) const {
    const std::uint32_t p = pos_of_[i];
    const int head = loops_.begin[p], back = loops_.end[p];  // the innermost loop around p
    if (head < 0 || k_.program[i].mem_base.empty()) return std::nullopt;
    std::int64_t sum = 0;
    for (auto r : k_.program[i].mem_base) {
      auto st = stride(r, static_cast<std::uint32_t>(head), static_cast<std::uint32_t>(back), 0);
      if (!st) return std::nullopt;
      sum += *st;
    }
    return sum;
  }

 private:
  static constexpr int kMaxDepth = 6;

  // An operand as a register (with its sign) or an immediate; RZ is the immediate 0.
  struct Operand {
    bool is_register = false, negated = false;
    std::uint16_t reg = 0;
    std::int64_t value = 0;
  };
  static std::optional<Operand> operand(std::string_view o) {
    Operand x;
    if (!o.empty() && o.front() == '-') { x.negated = true; o.remove_prefix(1); }
    bool zero = false;
    if (sass::parse_register(o, x.reg, &zero)) { x.is_register = true; return x; }
    if (zero) return x;
    const bool hex = o.size() > 2 && o[0] == '0' && (o[1] == 'x' || o[1] == 'X');
    std::int64_t v = 0;
    auto r = std::from_chars(o.data() + (hex ? 2 : 0), o.data() + o.size(), v, hex ? 16 : 10);
    if (r.ec != std::errc() || r.ptr != o.data() + o.size()) return std::nullopt;
    x.value = x.negated ? -v : v;
    return x;
  }

  std::optional<std::int64_t> stride(std::uint16_t r, std::uint32_t head, std::uint32_t back, int depth) const {
    auto it = defs_.find(r);
    std::vector<std::uint32_t> in_loop;
    if (it != defs_.end())
      for (auto q : it->second)
        if (head <= q && q <= back) in_loop.push_back(q);
    if (in_loop.empty()) return 0;
    if (in_loop.size() > 1 || depth > kMaxDepth) return std::nullopt;
    const auto& s = k_.program[a_.order[in_loop.front()]];
    if (s.predicated || s.mem_op != MemOp::none || s.text.empty()) return std::nullopt;
    std::string_view text = s.text;
    const auto sp = text.find_first_of(" \t");
    if (sp == std::string_view::npos) return std::nullopt;
    const std::string_view opcode = text.substr(0, sp);
    const std::string_view base = opcode.substr(0, opcode.find('.'));
    std::vector<Operand> src;  // the operands after the destination, carry predicates left out
    const auto ops = sass::split_operands(text.substr(sp + 1));
    for (std::size_t oi = 1; oi < ops.size(); ++oi) {
      auto o = operand(ops[oi]);
      if (!o) return std::nullopt;
      if (o->is_register && is_predicate_register(o->reg)) continue;
      src.push_back(*o);
    }
    auto of = [&](const Operand& o) -> std::optional<std::int64_t> {
      if (!o.is_register) return 0;
      auto st = stride(o.reg, head, back, depth + 1);
      if (st && o.negated) *st = -*st;
      return st;
    };
    const bool wide = opcode.find(".HI") == std::string_view::npos && opcode.find(".X") == std::string_view::npos;
    if (!wide) return std::nullopt;  // the high half of a 64-bit add: its low half carries the stride
    if (base == "IADD3" || base == "UIADD3" || base == "IADD" || base == "VIADD" || base == "IADD32I") {
      int self = 0;
      std::int64_t immediates = 0, others = 0;
      bool other_registers = false;
      for (const auto& o : src) {
        if (o.is_register && o.reg == r) { ++self; continue; }
        if (!o.is_register) { immediates += o.value; continue; }
        auto st = of(o);
        if (!st) return std::nullopt;
        others += *st;
        other_registers = true;
      }
      if (self == 1 && !other_registers) return immediates;  // r += immediate: the induction step
      if (self == 0) return others;
      return std::nullopt;
    }
    if (base == "IMAD" || base == "UIMAD") {  // r = a * b + c
      if (src.size() != 3) return std::nullopt;
      if (std::any_of(src.begin(), src.end(), [&](const Operand& o) { return o.is_register && o.reg == r; })) return std::nullopt;
      auto c = of(src[2]);
      if (!c) return std::nullopt;
      if (!src[1].is_register) {
        auto a = of(src[0]);
        if (!a) return std::nullopt;
        return src[1].value * *a + *c;
      }
      if (!src[0].is_register) {
        auto b = of(src[1]);
        if (!b) return std::nullopt;
        return src[0].value * *b + *c;
      }
      auto a = of(src[0]), b = of(src[1]);
      if (a && b && *a == 0 && *b == 0) return *c;
      return std::nullopt;
    }
    if (base == "LEA" || base == "ULEA") {  // r = (a << shift) + b
      if (src.size() != 3 || src[2].is_register) return std::nullopt;
      auto a = of(src[0]), b = of(src[1]);
      if (!a || !b || src[2].value < 0 || src[2].value > 31) return std::nullopt;
      return *a * (std::int64_t(1) << src[2].value) + *b;
    }
    if (base == "MOV" || base == "UMOV") {
      if (src.size() != 1) return std::nullopt;
      return of(src[0]);
    }
    return std::nullopt;
  }

  const Kernel& k_;
  const KernelAnalysis& a_;
  const std::vector<std::uint32_t>& pos_of_;
  const std::unordered_map<std::uint16_t, std::vector<std::uint32_t>>& defs_;
  const LoopSpans& loops_;
};

}  // namespace detail

}  // namespace gpuperf
