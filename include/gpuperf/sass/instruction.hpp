// SASS text tokenising: "@!P0 LDG.E.128.SYS R4, [R2.64+0x10] ;" -> predicate, base mnemonic,
// modifiers and operand registers. Classification later looks up (base, modifiers) exactly;
// nothing here matches substrings.
#pragma once

#include <algorithm>

#include <cctype>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace gpuperf::sass {

// A register reference packed in 16 bits: kind in the top 2 bits, index below.
// Zero registers (RZ, URZ) and true predicates (PT, UPT) are never stored: they carry no
// dependency.
enum class RegKind : std::uint16_t { gpr = 0, uniform = 1, pred = 2, upred = 3 };

constexpr std::uint16_t make_reg(RegKind k, unsigned index) {
  return static_cast<std::uint16_t>((static_cast<unsigned>(k) << 14) | (index & 0x3fffu));
}
constexpr RegKind reg_kind(std::uint16_t r) { return static_cast<RegKind>(r >> 14); }
constexpr unsigned reg_index(std::uint16_t r) { return r & 0x3fffu; }
inline std::string reg_name(std::uint16_t r) {
  static const char* prefix[] = {"R", "UR", "P", "UP"};
  return prefix[r >> 14] + std::to_string(reg_index(r));
}

// Parses "R12", "UR4", "P0", "UP1" (with optional leading '!' or '-' '|' and trailing
// ".reuse"/".64"/".H1" suffixes). Returns false for anything else or for zero registers.
inline bool parse_register(std::string_view tok, std::uint16_t& out, bool* is_zero = nullptr) {
  if (is_zero) *is_zero = false;
  while (!tok.empty() && (tok.front() == '!' || tok.front() == '-' || tok.front() == '|' || tok.front() == '~'))
    tok.remove_prefix(1);
  RegKind kind;
  std::size_t p = 0;
  if (tok.size() >= 2 && tok[0] == 'U' && tok[1] == 'R') { kind = RegKind::uniform; p = 2; }
  else if (tok.size() >= 2 && tok[0] == 'U' && tok[1] == 'P') { kind = RegKind::upred; p = 2; }
  else if (!tok.empty() && tok[0] == 'R') { kind = RegKind::gpr; p = 1; }
  else if (!tok.empty() && tok[0] == 'P') { kind = RegKind::pred; p = 1; }
  else return false;
  if (tok.size() >= p + 1 && tok[p] == 'Z' && (tok.size() == p + 1 || tok[p + 1] == '.' || tok[p + 1] == '|')) {
    if (is_zero) *is_zero = true;
    return false;
  }
  if (tok.size() >= p + 1 && tok[p] == 'T' && (kind == RegKind::pred || kind == RegKind::upred) &&
      (tok.size() == p + 1 || tok[p + 1] == '.' || tok[p + 1] == '|')) {
    if (is_zero) *is_zero = true;
    return false;
  }
  unsigned v = 0;
  std::size_t digits = 0;
  while (p < tok.size() && std::isdigit(static_cast<unsigned char>(tok[p]))) {
    v = v * 10 + static_cast<unsigned>(tok[p] - '0');
    ++p;
    ++digits;
    if (v > 0x3fff) return false;
  }
  if (digits == 0) return false;
  if (p < tok.size() && tok[p] != '.' && tok[p] != '|' && tok[p] != ']' && tok[p] != '+') return false;
  // R255 is RZ, UR63 is URZ, P7 is PT, UP7 is UPT in NVBit/Accel-Sim traces.
  if ((kind == RegKind::gpr && v == 255) || (kind == RegKind::uniform && v == 63) ||
      ((kind == RegKind::pred || kind == RegKind::upred) && v == 7)) {
    if (is_zero) *is_zero = true;
    return false;
  }
  out = make_reg(kind, v);
  return true;
}

// Opcode split into base mnemonic and modifiers: "LDG.E.128.SYS" -> "LDG", {"E","128","SYS"}.
struct OpcodeTokens {
  std::string_view base;
  std::vector<std::string_view> modifiers;
  bool has(std::string_view m) const {
    for (auto x : modifiers) if (x == m) return true;
    return false;
  }
};

inline OpcodeTokens tokenize_opcode(std::string_view opcode) {
  OpcodeTokens t;
  auto dot = opcode.find('.');
  t.base = opcode.substr(0, dot);
  while (dot != std::string_view::npos) {
    auto next = opcode.find('.', dot + 1);
    t.modifiers.push_back(opcode.substr(dot + 1, next == std::string_view::npos ? next : next - dot - 1));
    dot = next;
  }
  return t;
}

// One disassembled instruction with its register roles. Destination operands are the
// leading register operands up to the count the opcode writes (see dest_count_for).
struct ParsedInstruction {
  std::string predicate;          // "@!P0" or empty
  std::string opcode;             // full opcode with modifiers, e.g. "LDG.E.128"
  std::vector<std::uint16_t> dst; // written registers
  std::vector<std::uint16_t> src; // read registers (incl. address registers, guard predicate)
  std::vector<std::uint16_t> mem_base; // registers inside [...] (address operands)
  std::int64_t mem_offset = 0;    // immediate offset inside [...]
  bool has_mem_operand = false;
  std::string branch_target;      // for BRA-like: hex target or label text
};

inline bool opcode_writes_nothing(std::string_view base) {
  // Stores, branches, barriers and other opcodes whose first operand is a source.
  static constexpr std::string_view kNoDest[] = {
      "ST", "STG", "STS", "STL", "STAS", "RED", "REDG", "REDS", "BRA", "BRX", "JMP", "JMX", "CALL", "RET", "EXIT",
      "BAR", "BSSY", "BSYNC", "WARPSYNC", "MEMBAR", "DEPBAR", "NOP", "YIELD", "KILL", "BPT", "ERRBAR", "CCTL",
      "CCTLL", "FENCE", "SYNCS", "UBLKCP", "UTMALDG", "UTMASTG", "UTMAPF", "UTMACCTL", "UTMACMDFLUSH", "UBLKPF", "UBLKRED",
      "UTMAREDG", "WARPGROUP", "ACQBULK", "BREAK", "BMOV", "RTT", "SSY", "PBK", "SYNC", "CONT", "PCNT", "BRK",
      "STSM", "ARRIVES", "ELECT"};
  for (auto s : kNoDest) if (s == base) return true;
  return false;
}

// Unconditional transfers of control when not predicated: the instruction after one in the
// program is reached only from elsewhere. Narrower than the tables' "branch" class, which also
// holds convergence bookkeeping (BSSY, BSYNC, SSY, SYNC) that falls through.
inline bool transfers_control(std::string_view base) {
  static constexpr std::string_view kTransfers[] = {"BRA", "JMP", "BRX", "JMX", "EXIT", "RET"};
  for (auto s : kTransfers) if (s == base) return true;
  return false;
}

// Calls, returns and jumps whose destination a listing's static branch targets do not give (a
// subroutine runs once per call site; BRX and JMX jump through a register): code they reach may
// run any number of times a warp, inside a loop or not.
inline bool leaves_static_flow(std::string_view base) {
  static constexpr std::string_view kLeaves[] = {"CALL", "RET", "BRX", "JMX", "JMP"};
  for (auto s : kLeaves) if (s == base) return true;
  return false;
}

// How many leading register operands an opcode writes. Compare/setp instructions write
// two predicates; IMAD.WIDE and *.64 writes are register pairs but we track the base
// register and its successor explicitly in the parser.
inline int dest_count_for(const OpcodeTokens& t) {
  if (opcode_writes_nothing(t.base)) return 0;
  if (t.base == "ISETP" || t.base == "FSETP" || t.base == "DSETP" || t.base == "HSETP2" || t.base == "PSETP" ||
      t.base == "UISETP" || t.base == "UPSETP" || t.base == "VSETP")
    return 2;
  if (t.base == "ATOM" || t.base == "ATOMG" || t.base == "ATOMS") return 1;
  return 1;
}

namespace detail {
inline std::string_view trim(std::string_view s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
  while (!s.empty() && (std::isspace(static_cast<unsigned char>(s.back())) || s.back() == ';')) s.remove_suffix(1);
  return s;
}
inline std::int64_t parse_int_token(std::string_view s, bool& ok) {
  ok = false;
  bool neg = false;
  if (!s.empty() && (s[0] == '-' || s[0] == '+')) { neg = s[0] == '-'; s.remove_prefix(1); }
  int base = 10;
  if (s.size() > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) { base = 16; s.remove_prefix(2); }
  if (s.empty()) return 0;
  std::int64_t v = 0;
  for (char c : s) {
    int d;
    if (c >= '0' && c <= '9') d = c - '0';
    else if (base == 16 && c >= 'a' && c <= 'f') d = c - 'a' + 10;
    else if (base == 16 && c >= 'A' && c <= 'F') d = c - 'A' + 10;
    else return 0;
    // No SASS immediate or address offset reaches 2^40: a longer literal is not one (and
    // accumulating it would overflow).
    if (v > (std::int64_t(1) << 40)) return 0;
    v = v * base + d;
  }
  ok = true;
  return neg ? -v : v;
}
}  // namespace detail

// Double-precision instructions read their register operands as pairs (DFMA R4, R6, R8, R10).
inline bool reads_register_pairs(const OpcodeTokens& t) { return t.base.size() > 1 && t.base[0] == 'D' && t.base != "DEPBAR"; }

// Registers that a 64/128-bit access or a .WIDE multiply covers beyond its base register.
inline int register_span_for(const OpcodeTokens& t, bool is_dest) {
  if (is_dest) {
    if (t.base == "DADD" || t.base == "DMUL" || t.base == "DFMA" || t.base == "DMNMX" || t.base == "F2F" ||
        t.base == "I2F" || t.base == "F2I") {
      if (t.has("F64") || t.base[0] == 'D') return 2;
    }
    if (t.has("WIDE") || t.has("64")) return 2;
    if (t.has("128")) return 4;
  }
  return 1;
}

// An instruction's operand list split on the commas outside brackets ("R6, P2, R6, 0x10, RZ").
inline std::vector<std::string_view> split_operands(std::string_view ops) {
  std::vector<std::string_view> operands;
  int depth = 0;
  std::size_t start = 0;
  for (std::size_t i = 0; i < ops.size(); ++i) {
    char c = ops[i];
    if (c == '[' || c == '{' || c == '(') ++depth;
    else if (c == ']' || c == '}' || c == ')') --depth;
    else if (c == ',' && depth == 0) { operands.push_back(detail::trim(ops.substr(start, i - start))); start = i + 1; }
  }
  if (start < ops.size()) operands.push_back(detail::trim(ops.substr(start)));
  return operands;
}

// Parses the text of one SASS instruction (without address/encoding comments).
inline ParsedInstruction parse_instruction_text(std::string_view text) {
  ParsedInstruction p;
  text = detail::trim(text);
  if (!text.empty() && text.front() == '{') text.remove_prefix(1);  // dual-issue braces
  text = detail::trim(text);
  if (!text.empty() && text.front() == '@') {
    auto sp = text.find_first_of(" \t");
    p.predicate = std::string(text.substr(0, sp));
    std::uint16_t r;
    if (parse_register(std::string_view(p.predicate).substr(1), r)) p.src.push_back(r);
    text = sp == std::string_view::npos ? std::string_view{} : detail::trim(text.substr(sp));
  }
  auto sp = text.find_first_of(" \t");
  p.opcode = std::string(text.substr(0, sp));
  std::string_view ops = sp == std::string_view::npos ? std::string_view{} : detail::trim(text.substr(sp));
  auto tok = tokenize_opcode(p.opcode);
  int ndst = dest_count_for(tok);
  const std::vector<std::string_view> operands = split_operands(ops);
  int seen_dst = 0;
  // Integer adds and LEA write their carry-out predicates right after the destination
  // (IADD3 R6, P2, R6, 0xa0, RZ); a carry-in comes later among the sources (IADD3.X ..., P2, !PT).
  const bool carry_out_op = tok.base == "IADD3" || tok.base == "UIADD3" || tok.base == "LEA" || tok.base == "ULEA" ||
                            tok.base == "IADD" || tok.base == "IMAD" || tok.base == "UIMAD";
  bool carry_outs_next = false;
  // A copy from global into shared memory names its shared destination first and its global
  // source last (LDGSTS [R3+0x800], desc[UR6][R8.64+0x80]): the access that the address
  // operands describe is the global one, so a later memory operand replaces an earlier one.
  const bool global_source_last = tok.base == "LDGSTS";
  for (std::size_t oi = 0; oi < operands.size(); ++oi) {
    std::string_view o = operands[oi];
    if (o.empty()) continue;
    if (o.front() == '[' || o.find('[') != std::string_view::npos) {
      // Memory operand: [R2.64+0x10], [R1+UR4+0x8], c[0x0][0x160], desc[UR4][R2.64]
      bool is_const = o.front() == 'c' && o.size() > 1 && o[1] == '[';
      if (global_source_last && !is_const && p.has_mem_operand) {
        p.mem_base.clear();
        p.mem_offset = 0;
      }
      std::size_t pos = 0;
      while ((pos = o.find('[', pos)) != std::string_view::npos) {
        auto close = o.find(']', pos);
        if (close == std::string_view::npos) break;
        std::string_view inner = o.substr(pos + 1, close - pos - 1);
        // desc[UR4][R2.64]: the uniform register names the global memory descriptor that
        // every access carries; it is read, but it is not part of the address.
        const bool descriptor = pos >= 4 && o.substr(pos - 4, 4) == "desc";
        std::size_t s2 = 0;
        for (std::size_t k = 0; k <= inner.size(); ++k) {
          if (k == inner.size() || inner[k] == '+' || (inner[k] == '-' && k > s2)) {
            auto part = detail::trim(inner.substr(s2, k - s2));
            std::uint16_t r;
            bool ok = false;
            if (parse_register(part, r)) {
              p.src.push_back(r);
              if (!is_const && !descriptor) p.mem_base.push_back(r);
              if (!is_const && tok.has("64") == false && part.find(".64") != std::string_view::npos)
                p.src.push_back(make_reg(reg_kind(r), reg_index(r) + 1));
            } else if (!is_const) {
              auto v = detail::parse_int_token(part, ok);
              // Clamped so that any number of terms cannot overflow.
              if (ok) p.mem_offset = std::clamp<std::int64_t>(p.mem_offset + ((k > 0 && s2 > 0 && inner[s2 - 1] == '-') ? -v : v), -(std::int64_t(1) << 48), std::int64_t(1) << 48);
            }
            s2 = k + 1;
          }
        }
        pos = close + 1;
      }
      if (!is_const) p.has_mem_operand = true;
      continue;
    }
    std::uint16_t r;
    bool zero = false;
    bool is_reg = parse_register(o, r, &zero);
    if (seen_dst < ndst && (is_reg || zero)) {
      ++seen_dst;
      if (is_reg) {
        int span = register_span_for(tok, true);
        for (int k = 0; k < span; ++k) p.dst.push_back(make_reg(reg_kind(r), reg_index(r) + k));
      }
      carry_outs_next = carry_out_op && seen_dst == ndst;
      continue;
    }
    if (carry_outs_next) {
      const bool predicate = (is_reg && (reg_kind(r) == RegKind::pred || reg_kind(r) == RegKind::upred)) ||
                             (zero && (o.front() == 'P' || (o.size() > 1 && o[0] == 'U' && o[1] == 'P')));
      if (predicate) {
        if (is_reg) p.dst.push_back(r);
        continue;
      }
      carry_outs_next = false;
    }
    seen_dst = ndst;  // a non-register first operand ends the destination list
    if (is_reg) {
      p.src.push_back(r);
      if ((reads_register_pairs(tok) && reg_kind(r) == RegKind::gpr) || o.find(".64") != std::string_view::npos)
        p.src.push_back(make_reg(reg_kind(r), reg_index(r) + 1));
    } else if (!zero && (tok.base == "BRA" || tok.base == "BRX" || tok.base == "CALL" || tok.base == "BSSY" ||
                          tok.base == "JMP")) {
      p.branch_target = std::string(o);
    }
  }
  // Stores and atomics: everything is a source; atomics with a destination keep it.
  return p;
}

}  // namespace gpuperf::sass
