// Immutable per-(architecture, opcode) descriptor, built once per kernel analysis and
// pointed to by every dynamic instance: op class, latency, issue interval, memory traits,
// FLOPs. Classification is an exact lookup of (base mnemonic, modifier); an opcode the
// ISA map lacks falls back by prefix, flagged `unknown` and counted in the report.
#pragma once

#include <cstdlib>
#include <map>
#include <string>
#include <vector>

#include "gpuperf/arch/tables.hpp"
#include "gpuperf/sass/instruction.hpp"
#include "gpuperf/sass/memory_ops.hpp"

namespace gpuperf {

enum class Precision : std::uint8_t { none, fp16, fp32, fp64, tensor, integer };

struct InstrDesc {
  std::string opcode;
  std::string op_class;
  double latency = 1;          // dependent-issue latency (ALU) or pipeline latency (memory)
  double issue_interval = 1;   // cycles the class's unit is busy per warp instruction
  bool sm_scope = false;       // the unit is shared by all sub-partitions of the SM
  bool unknown = false;        // classified by prefix fallback
  bool unsupported = false;    // class marked unsupported on this arch
  MemSpace space = MemSpace::none;
  MemOp mem_op = MemOp::none;
  unsigned width_bytes = 0;
  bool is_branch = false, is_exit = false, is_barrier = false, is_uniform = false, is_nop = false;
  bool transfers_control = false;  // BRA, JMP, BRX, JMX, EXIT, RET: no fall-through unless predicated
  Precision precision = Precision::none;
  double flops_per_lane = 0;     // FP ops per active thread (FFMA = 2)
  double tensor_flops_per_warp = 0;
  bool variable_latency = false; // result arrives through a scoreboard (memory, SFU, ...)
  // Passes of the SM's shared-memory data pipe an instruction that is not a memory access takes
  // there (a warp shuffle: sass::takes_shared_pipe, the arch's shuffle_pipe_wavefronts).
  double shared_pipe_wavefronts = 0;
};

namespace detail {

// Tensor shape from modifiers: "16816" -> 16x8x16, "884" -> 8x8x4, "1688", "1684", "8832",
// "64x128x16" (warpgroup MMA).
inline bool tensor_shape(const sass::OpcodeTokens& t, double& m, double& n, double& k) {
  for (auto mod : t.modifiers) {
    std::string s(mod);
    if (s.find('x') != std::string::npos) {
      int a = 0, b = 0, c = 0;
      if (std::sscanf(s.c_str(), "%dx%dx%d", &a, &b, &c) == 3) { m = a; n = b; k = c; return true; }
    }
    if (s == "16816") { m = 16; n = 8; k = 16; return true; }
    if (s == "1688") { m = 16; n = 8; k = 8; return true; }
    if (s == "1684") { m = 16; n = 8; k = 4; return true; }
    if (s == "884") { m = 8; n = 8; k = 4; return true; }
    if (s == "8832") { m = 8; n = 8; k = 32; return true; }
    if (s == "16832") { m = 16; n = 8; k = 32; return true; }
    if (s == "16864") { m = 16; n = 8; k = 64; return true; }
    if (s == "168256") { m = 16; n = 8; k = 256; return true; }
  }
  return false;
}

// The arch table's tensor entry with a warpgroup MMA's FMA rate: its input type sets it (tf32
// half and 8-bit floats twice the f16/bf16 rate on Hopper, calibrate/gmma_dtype_probe.cu), so
// an m64nN MMA takes the same cycles whatever its k.
inline std::string gmma_rate_key(const sass::OpcodeTokens& t) {
  if (t.base == "QGMMA" || t.has("E4M3") || t.has("E5M2")) return "fma_per_cycle_per_subpartition_fp8";
  if (t.has("TF32")) return "fma_per_cycle_per_subpartition_tf32";
  return "fma_per_cycle_per_subpartition";
}

}  // namespace detail

inline std::string classify(const IsaTable& isa, const sass::OpcodeTokens& t, bool& unknown) {
  unknown = false;
  std::string base(t.base);
  auto it = isa.base_class.find(base);
  if (it != isa.base_class.end()) {
    auto mit = isa.modifier_class.find(base);
    if (mit != isa.modifier_class.end())
      for (auto m : t.modifiers) {
        auto x = mit->second.find(std::string(m));
        if (x != mit->second.end()) return x->second;
      }
    return it->second;
  }
  unknown = true;
  for (auto& [prefix, cls] : isa.prefix_fallback)
    if (base.compare(0, prefix.size(), prefix) == 0) return cls;
  return "int";
}

inline InstrDesc make_descriptor(const std::string& opcode, const ArchTable& arch, const IsaTable& isa, double alu_latency_scale = 1.0) {
  InstrDesc d;
  d.opcode = opcode;
  auto t = sass::tokenize_opcode(opcode);
  d.op_class = classify(isa, t, d.unknown);
  auto cit = arch.classes.find(d.op_class);
  if (cit == arch.classes.end() || cit->second.unsupported || !cit->second.present) {
    d.unsupported = true;
    d.latency = 4;
    d.issue_interval = 2;
  } else {
    d.latency = cit->second.latency.value;
    d.issue_interval = cit->second.issue_interval.value;
    d.sm_scope = cit->second.sm_scope;
  }
  std::string base(t.base);
  // An opcode-level value overrides its class's value only if it comes from the same or a more
  // specific table in the inheritance chain: a measured sm_90 class value is not undone by an
  // opcode value sm_90 inherits from sm_80.
  auto rank = [&](const std::string& file) {
    std::string stem = file.substr(file.find_last_of('/') + 1);
    stem = stem.substr(0, stem.find('.'));
    for (std::size_t i = 0; i < arch.chain.size(); ++i) if (arch.chain[i] == stem) return i;
    return arch.chain.size();
  };
  const ClassCost* cc = cit != arch.classes.end() ? &cit->second : nullptr;
  auto applies = [&](const Sourced& o, const Sourced& cls) { return !cc || rank(o.file) <= rank(cls.file); };
  // Opcode-specific values: the base mnemonic ("F2I"), then a modifier form ("MUFU.RCP"). A
  // base mnemonic's value is for its own class: where a modifier puts the instruction in
  // another one (IMAD.WIDE is imad_wide, two passes), IMAD's interval does not apply to it.
  auto own = isa.base_class.find(base);
  const bool base_values_apply = own == isa.base_class.end() || own->second == d.op_class;
  if (auto o = arch.opcode_latency.find(base);
      base_values_apply && o != arch.opcode_latency.end() && (!cc || applies(o->second, cc->latency)))
    d.latency = o->second.value;
  for (auto m : t.modifiers) {
    auto o = arch.opcode_latency.find(base + "." + std::string(m));
    if (o != arch.opcode_latency.end() && (!cc || applies(o->second, cc->latency))) d.latency = o->second.value;
  }
  if (auto o = arch.opcode_issue_interval.find(base);
      base_values_apply && o != arch.opcode_issue_interval.end() && (!cc || applies(o->second, cc->issue_interval)))
    d.issue_interval = o->second.value;
  for (auto m : t.modifiers) {
    auto o = arch.opcode_issue_interval.find(base + "." + std::string(m));
    if (o != arch.opcode_issue_interval.end() && (!cc || applies(o->second, cc->issue_interval))) d.issue_interval = o->second.value;
  }
  auto mt = sass::memory_traits(t);
  d.space = mt.space;
  d.mem_op = mt.op;
  d.width_bytes = mt.width_bytes;
  const std::string& c = d.op_class;
  d.is_branch = c == "branch";
  d.is_exit = base == "EXIT";
  d.transfers_control = sass::transfers_control(base);
  d.is_barrier = base == "BAR" || base == "BARRIER";
  d.is_uniform = c == "uniform";
  d.is_nop = c == "nop";
  if (sass::takes_shared_pipe(base)) d.shared_pipe_wavefronts = arch.mem("shuffle_pipe_wavefronts");
  d.variable_latency = mt.space != MemSpace::none || c == "sfu" || c == "conv" || c == "bitcount" || c == "shuffle" ||
                       c == "special_reg" || c == "tensor_hmma" || c == "tensor_imma" || c == "tensor_dmma" || c == "tensor_gmma";
  bool alu = mt.space == MemSpace::none && c != "branch" && c != "barrier" && c != "membar" && c != "nop";
  if (alu) d.latency *= alu_latency_scale;
  // FLOPs per active lane.
  if (c == "fp32" && base != "FSETP" && base != "FSET" && base != "FSEL" && base != "FMNMX" && base != "FCHK" && base != "F2FP") {
    d.precision = Precision::fp32;
    d.flops_per_lane = (base == "FFMA" || base == "FFMA32I" || base == "FFMA2") ? 2 : 1;
    if (base == "FFMA2" || base == "FADD2" || base == "FMUL2") d.flops_per_lane *= 2;
  } else if (c == "fp16" && (base == "HADD2" || base == "HMUL2" || base == "HFMA2")) {
    d.precision = Precision::fp16;
    d.flops_per_lane = base == "HFMA2" ? 4 : 2;
  } else if (c == "fp64" && (base == "DADD" || base == "DMUL" || base == "DFMA")) {
    d.precision = Precision::fp64;
    d.flops_per_lane = base == "DFMA" ? 2 : 1;
  } else if (c == "sfu") {
    d.precision = Precision::fp32;
    d.flops_per_lane = 1;
  } else if (c.rfind("tensor_", 0) == 0) {
    double m = 0, n = 0, k = 0;
    d.precision = Precision::tensor;
    if (detail::tensor_shape(t, m, n, k)) {
      double fma = m * n * k;
      if (c == "tensor_gmma") {
        fma /= 4;  // a warpgroup's MMA: each of its 4 warps issues the instruction
        auto rate = arch.tensor.find(detail::gmma_rate_key(t));
        if (rate == arch.tensor.end()) rate = arch.tensor.find("fma_per_cycle_per_subpartition");
        if (rate != arch.tensor.end() && rate->second.value > 0) d.issue_interval = std::max(1.0, fma / rate->second.value);
      } else if (base == "HMMA" && k == 4 && m == 8) {
        fma /= 4;  // Volta HMMA.884 is issued as four steps per set
      }
      d.tensor_flops_per_warp = 2 * fma;
    }
  } else if (c == "int" || c == "imad" || c == "imad_wide") {
    d.precision = Precision::integer;
  }
  return d;
}

}  // namespace gpuperf
