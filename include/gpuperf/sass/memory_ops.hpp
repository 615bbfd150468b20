// Memory space, operation and per-lane width of a SASS memory opcode, from its tokens. The ISA
// layer: it includes nothing of trace/.
#pragma once

#include <cstdint>
#include <string_view>

#include "gpuperf/sass/instruction.hpp"

namespace gpuperf {

// ISA vocabulary: where a memory instruction goes and what it does there.
enum class MemSpace : std::uint8_t { none, global, shared, local, constant, generic, texture };
enum class MemOp : std::uint8_t { none, load, store, atomic, reduction };

inline const char* to_string(MemSpace s) {
  switch (s) {
    case MemSpace::global: return "global";
    case MemSpace::shared: return "shared";
    case MemSpace::local: return "local";
    case MemSpace::constant: return "constant";
    case MemSpace::generic: return "generic";
    case MemSpace::texture: return "texture";
    default: return "none";
  }
}

}  // namespace gpuperf

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

}  // namespace gpuperf::sass
