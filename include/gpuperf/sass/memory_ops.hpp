// Memory space, operation and per-lane width of a SASS memory opcode, from its tokens.
#pragma once

#include <string_view>

#include "gpuperf/sass/instruction.hpp"
#include "gpuperf/trace/ir.hpp"

namespace gpuperf::sass {

struct MemoryTraits {
  MemSpace space = MemSpace::none;
  MemOp op = MemOp::none;
  unsigned width_bytes = 0;  // per lane; 0 when not a memory instruction
};

inline unsigned width_from_modifiers(const OpcodeTokens& t, unsigned fallback) {
  for (auto m : t.modifiers) {
    if (m == "128") return 16;
    if (m == "64") return 8;
    if (m == "32") return 4;
    if (m == "U16" || m == "S16" || m == "16") return 2;
    if (m == "U8" || m == "S8" || m == "8") return 1;
  }
  return fallback;
}

inline MemoryTraits memory_traits(const OpcodeTokens& t) {
  MemoryTraits m;
  auto b = t.base;
  auto set = [&](MemSpace s, MemOp o) { m.space = s; m.op = o; m.width_bytes = width_from_modifiers(t, 4); };
  if (b == "LDG" || b == "LDGSTS") set(MemSpace::global, MemOp::load);
  else if (b == "STG") set(MemSpace::global, MemOp::store);
  else if (b == "ATOMG") set(MemSpace::global, MemOp::atomic);
  else if (b == "RED" || b == "REDG") set(MemSpace::global, MemOp::reduction);
  else if (b == "LDS" || b == "LDSM") set(MemSpace::shared, MemOp::load);
  else if (b == "STS" || b == "STSM" || b == "STAS") set(MemSpace::shared, MemOp::store);
  else if (b == "ATOMS") set(MemSpace::shared, MemOp::atomic);
  else if (b == "REDS") set(MemSpace::shared, MemOp::reduction);
  else if (b == "LDL") set(MemSpace::local, MemOp::load);
  else if (b == "STL") set(MemSpace::local, MemOp::store);
  else if (b == "LD") set(MemSpace::generic, MemOp::load);
  else if (b == "ST") set(MemSpace::generic, MemOp::store);
  else if (b == "ATOM") set(MemSpace::generic, MemOp::atomic);
  else if (b == "LDC" || b == "ULDC") set(MemSpace::constant, MemOp::load);
  else if (b == "TEX" || b == "TLD" || b == "TLD4" || b == "TXQ" || b == "TEXS" || b == "TLDS" || b == "TLD4S" || b == "SULD")
    set(MemSpace::texture, MemOp::load);
  else if (b == "SUST") set(MemSpace::texture, MemOp::store);
  if (b == "LDGSTS") m.op = MemOp::load;
  return m;
}

// A static instruction from its disassembly: registers by role, address operands, memory
// space/operation/width. Returns the parsed form too (branch target text for the caller).
inline StaticInstr static_instr_from_text(std::uint64_t pc, std::string_view text, ParsedInstruction* parsed = nullptr) {
  StaticInstr s;
  s.pc = pc;
  s.text = std::string(text);
  ParsedInstruction p = parse_instruction_text(text);
  s.opcode = p.opcode;
  s.dst = p.dst;
  s.src = p.src;
  s.mem_base = p.mem_base;
  s.mem_offset = p.mem_offset;
  s.predicated = !p.predicate.empty();
  auto mt = memory_traits(tokenize_opcode(s.opcode));
  s.space = mt.space;
  s.mem_op = mt.op;
  s.access_bits = mt.width_bytes * 8;
  if (parsed) *parsed = std::move(p);
  return s;
}

}  // namespace gpuperf::sass
