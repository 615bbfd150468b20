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

// Global, local and generic accesses: the loads and stores the L1 takes by lines and sectors
// (shared memory, constant loads and texture fetches go their own ways).
inline bool l1_line_space(MemSpace s) { return s == MemSpace::global || s == MemSpace::local || s == MemSpace::generic; }

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

// A load that reads L2 past L1: strong at GPU or system scope (ld.cg, ld.volatile; the
// L1 probe's __ldcg is LDG.E.STRONG.GPU, __ldca LDG.E.STRONG.SM). Its lines take a wavefront
// each whatever its banks (calibrate/l1_slot_probe.cu).
// Bulk tensor copies (UTMALDG) go from L2 to shared memory through the TMA unit, never L1;
// 16-byte asynchronous copies that bypass it (cp.async.cg: LDGSTS.E.BYPASS.128) do too
// (calibrate/gemm_traffic_probe.cu: 83.9M global load sectors, none looked up as a hit in L1).
inline bool load_bypasses_l1(const OpcodeTokens& t) {
  return (t.has("STRONG") && (t.has("GPU") || t.has("SYS"))) || t.base == "UTMALDG" || (t.base == "LDGSTS" && t.has("BYPASS"));
}

// A bulk tensor copy (TMA): which way its box moves. A load (UTMALDG) fills shared memory from
// L2; a store (UTMASTG, the epilogue of Hopper GEMMs) writes the box to L2 as whole lines, which
// reach DRAM as any store's (calibrate/tma_store_probe.cu: 256 MiB stored, 241 MB written to DRAM
// and 27 MB left dirty in L2, 4.33 TB/s); a reduction (UTMAREDG) reads and writes it in L2.
enum class BulkTensorCopy : std::uint8_t { none, load, store, reduction };
inline BulkTensorCopy bulk_tensor_copy(std::string_view base) {
  if (base == "UTMALDG") return BulkTensorCopy::load;
  if (base == "UTMASTG") return BulkTensorCopy::store;
  if (base == "UTMAREDG") return BulkTensorCopy::reduction;
  return BulkTensorCopy::none;
}

// A warp shuffle (SHFL) moves its lanes' words through the SM's shared-memory data pipe: on the
// H200 (calibrate/mio_share_probe.cu) 32 warps of shuffles alone and of conflict-free LDS
// alone each take a cycle a warp instruction per SM, and the two mixed take the sum; MUFU beside
// either keeps its own unit. Other shuffle-class opcodes (VOTE, MATCH, REDUX) were not measured.
inline bool takes_shared_pipe(std::string_view base) { return base == "SHFL"; }

// A constant load whose address takes a register (`LDC R19, c[0x3][R27+0x4]`, a loop over a
// __constant__ array): the SM's constant unit serves it word by word, where a kernel parameter's
// (`c[0x0][0x28]`, `c[0x0][RZ]`) is a fixed word. From the disassembly; false without one.
inline bool constant_index_in_register(std::string_view disassembly) {
  const auto bank = disassembly.find("c[");
  if (bank == std::string_view::npos) return false;
  const auto index = disassembly.find("][", bank);
  if (index == std::string_view::npos || index + 3 >= disassembly.size()) return false;
  return disassembly[index + 2] == 'R' && disassembly[index + 3] != 'Z';
}

// How a shared-memory request's lanes take the banks' passes, by its form. Measured on the H200
// (calibrate/shared_atomic_probe.cu: cycles a request at 32 warps an SM, and Nsight Compute's
// wavefronts, agree for every form and pattern): loads, stores and ATOMS.POPC.INC (lanes on one
// word add their count once) take a pass per distinct word in the busiest bank; the other
// atomics (ATOMS.ADD, .MIN, .MAX, .EXCH, ...) one per lane in it, lanes on one word each their
// own; ATOMS.CAS two per lane; ATOMS.CAST.SPIN, the compiler's retry loop of a float add, two a
// request, the lanes it cannot serve retrying (the trace records each retry).
enum class SharedLanePasses : std::uint8_t { per_word, per_lane, two_per_lane, two_per_request };
inline SharedLanePasses shared_lane_passes(const OpcodeTokens& t) {
  if (t.base != "ATOMS") return SharedLanePasses::per_word;
  if (t.has("POPC")) return SharedLanePasses::per_word;
  if (t.has("CAST")) return SharedLanePasses::two_per_request;
  if (t.has("CAS")) return SharedLanePasses::two_per_lane;
  return SharedLanePasses::per_lane;
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


// Traces name a register pair or quad by its first register only: IMAD.WIDE R12 writes R12 and
// R13, LDS.128 R8 writes R8-R11, DADD reads and writes pairs, and LDG.E reads its 64-bit address
// from a pair. The listing parser (sass::parse_instruction_text) reads them whole from the text;
// for a trace's lists, `at(list, i, span)` is called for each operand that starts a wider one:
// destinations by register_span_for, double-precision sources, and the address register (the
// first source) of global and generic accesses with a 64-bit address (.E). It returns how many
// entries after i belong to that operand.
template <class At>
void for_each_wide_operand(const OpcodeTokens& t, std::vector<std::uint16_t>& dst, std::vector<std::uint16_t>& src, At&& at) {
  auto is_data_reg = [](std::uint16_t r) { return reg_kind(r) == RegKind::gpr || reg_kind(r) == RegKind::uniform; };
  const int span = register_span_for(t, true);
  if (span > 1)
    for (std::size_t i = 0; i < dst.size(); ++i)
      if (is_data_reg(dst[i])) i += at(dst, i, span);
  if (reads_register_pairs(t))
    for (std::size_t i = 0; i < src.size(); ++i)
      if (reg_kind(src[i]) == RegKind::gpr) i += at(src, i, 2);
  const MemoryTraits m = memory_traits(t);
  if ((m.space == MemSpace::global || m.space == MemSpace::generic) && t.has("E"))
    for (std::size_t i = 0; i < src.size(); ++i)
      if (reg_kind(src[i]) == RegKind::gpr) { at(src, i, 2); break; }
}

// A trace's lists as the listing parser would read the instruction: without it a use of an
// operand's second register waits for nothing.
inline void widen_register_lists(const OpcodeTokens& t, std::vector<std::uint16_t>& dst, std::vector<std::uint16_t>& src) {
  for_each_wide_operand(t, dst, src, [](std::vector<std::uint16_t>& regs, std::size_t i, int span) {
    const std::uint16_t r = regs[i];
    const unsigned last = reg_kind(r) == RegKind::gpr ? 254 : 62;  // R255 and UR63 are the zero registers
    std::size_t added = 0;
    for (int k = 1; k < span && reg_index(r) + unsigned(k) <= last; ++k, ++added)
      regs.insert(regs.begin() + static_cast<std::ptrdiff_t>(i + added) + 1, make_reg(reg_kind(r), reg_index(r) + unsigned(k)));
    return added;
  });
}

// The inverse, for writing a trace: each widened operand back to its first register.
inline void narrow_register_lists(const OpcodeTokens& t, std::vector<std::uint16_t>& dst, std::vector<std::uint16_t>& src) {
  for_each_wide_operand(t, dst, src, [](std::vector<std::uint16_t>& regs, std::size_t i, int span) {
    const std::uint16_t r = regs[i];
    std::size_t n = 0;
    while (n + 1 < static_cast<std::size_t>(span) && i + 1 + n < regs.size() && regs[i + 1 + n] == make_reg(reg_kind(r), reg_index(r) + unsigned(n) + 1)) ++n;
    regs.erase(regs.begin() + static_cast<std::ptrdiff_t>(i) + 1, regs.begin() + static_cast<std::ptrdiff_t>(i + 1 + n));
    return std::size_t{0};
  });
}

}  // namespace gpuperf::sass
