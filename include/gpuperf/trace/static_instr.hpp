// A static instruction of the IR from its disassembly text (readers of listings and ncu).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "gpuperf/sass/instruction.hpp"
#include "gpuperf/sass/memory_ops.hpp"
#include "gpuperf/trace/ir.hpp"

namespace gpuperf::sass {

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
