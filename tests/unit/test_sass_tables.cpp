// SASS tokenising, control-bit decoding and the latency tables.
#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>
#include <set>

#include "gpuperf/gpuperf.hpp"

// Each test file has its own namespace: the unit tests compile as one unity build.
namespace gpuperf_test_sass_tables {

using namespace gpuperf;

static const std::string kFix = std::string(GPUPERF_TEST_DIR) + "/fixtures";

TEST_CASE("control bits: the Volta worked decode from the seeds (seed-tables.md O18)") {
  // FFMA R140, R11, R4, R142 ;  /* 0x000000040b8c7223 */ /* 0x000fc4000000008e */
  auto c = sass::decode_control_volta(0x000fc4000000008eull);
  CHECK(c.stall == 2);
  CHECK(c.yield == false);
  CHECK(c.write_barrier == 7);
  CHECK(c.read_barrier == 7);
  CHECK(c.wait_mask == 0);
  CHECK(c.reuse == 0);
  CHECK((0x000000040b8c7223ull & 0xfff) == 0x223);  // FFMA's Volta opcode bits
}

TEST_CASE("control bits: real sm_90 encodings from the devsample listing") {
  // LDC R1, c[0x0][0x28] ; /* 0x000fe20000000800 */ : stall 1, yield 1, no barriers
  auto a = sass::decode_control_volta(0x000fe20000000800ull);
  CHECK(a.stall == 1);
  CHECK(a.yield);
  CHECK(a.write_barrier == 7);
  // S2R R3, SR_CTAID.Y ; /* 0x000e2e0000002600 */ : stall 7, write barrier 0
  auto b = sass::decode_control_volta(0x000e2e0000002600ull);
  CHECK(b.stall == 7);
  CHECK(b.write_barrier == 0);
  CHECK(b.read_barrier == 7);
  // ISETP.GE.AND P0, PT, R0, 0x1, PT ; /* 0x002fc40003f06270 */ : waits on barrier 1
  auto c = sass::decode_control_volta(0x002fc40003f06270ull);
  CHECK(c.wait_mask == 0x02);
  CHECK(c.stall == 2);
}

TEST_CASE("control bits: Maxwell/Pascal 64-bit control word slots") {
  // seed-tables.md 3.4: 0x000f8800fe2007f1 -> sections 0x7f1, 0x7f1, 0x3e2 from the LSB
  auto s0 = sass::decode_control_maxwell(0x000f8800fe2007f1ull, 0);
  auto s2 = sass::decode_control_maxwell(0x000f8800fe2007f1ull, 2);
  CHECK(s0.stall == 1);
  CHECK(s0.yield);
  CHECK(s0.write_barrier == 7);
  CHECK(s2.stall == 2);
  CHECK_FALSE(s2.yield);
  CHECK(s2.read_barrier == 3);
}

TEST_CASE("instruction text: predicates, registers, memory operands") {
  auto p = sass::parse_instruction_text("@!P0 LDG.E.128 R4, desc[UR6][R2.64+0x10] ;");
  CHECK(p.opcode == "LDG.E.128");
  CHECK(p.predicate == "@!P0");
  REQUIRE(p.dst.size() == 4);  // 128-bit load writes R4..R7
  CHECK(sass::reg_name(p.dst[0]) == "R4");
  CHECK(sass::reg_name(p.dst[3]) == "R7");
  CHECK(p.has_mem_operand);
  CHECK(p.mem_offset == 16);
  std::set<std::string> srcs;
  for (auto r : p.src) srcs.insert(sass::reg_name(r));
  CHECK(srcs.count("P0"));
  CHECK(srcs.count("R2"));
  CHECK(srcs.count("R3"));
  CHECK(srcs.count("UR6"));
  // The descriptor register is read (a dependency) but is not part of the address: it used to
  // land in mem_base, so same-base grouping and address reach rules saw UR6 as an address term.
  std::set<std::string> load_bases;
  for (auto r : p.mem_base) load_bases.insert(sass::reg_name(r));
  CHECK(load_bases == std::set<std::string>{"R2"});
  // An asynchronous copy's address operands are its global source; its shared destination's
  // register is read, but neither it nor that operand's offset is part of the global address.
  auto c = sass::parse_instruction_text("LDGSTS.E.BYPASS.LTC128B.128 [R3+0x800], desc[UR6][R8.64+0x80] ;");
  std::set<std::string> bases, reads;
  for (auto r : c.mem_base) bases.insert(sass::reg_name(r));
  for (auto r : c.src) reads.insert(sass::reg_name(r));
  CHECK(bases == std::set<std::string>{"R8"});
  CHECK(reads.count("UR6"));
  CHECK(c.mem_offset == 0x80);
  CHECK(reads.count("R3"));
  CHECK(reads.count("R9"));
  auto s = sass::parse_instruction_text("ISETP.GE.AND P0, PT, R0, 0x1, PT");
  REQUIRE(s.dst.size() == 1);  // PT is not a register dependency
  CHECK(sass::reg_name(s.dst[0]) == "P0");
  auto st = sass::parse_instruction_text("STG.E desc[UR4][R2.64], R5");
  CHECK(st.dst.empty());
  auto br = sass::parse_instruction_text("@!P0 BRA 0x750");
  CHECK(br.branch_target == "0x750");
  std::uint16_t r;
  CHECK_FALSE(sass::parse_register("RZ", r));
  CHECK_FALSE(sass::parse_register("R255", r));  // RZ in NVBit traces
  CHECK(sass::parse_register("UR12", r));
  CHECK(sass::reg_kind(r) == sass::RegKind::uniform);
}

TEST_CASE("instruction text: an integer add's carry-out predicate is a destination, its carry-in a source") {
  // The carry-out was read as a source: IADD3 then waited on the FSETP that last wrote P2.
  auto names = [](const std::vector<std::uint16_t>& v) {
    std::vector<std::string> n;
    for (auto r : v) n.push_back(sass::reg_name(r));
    return n;
  };
  auto add = sass::parse_instruction_text("IADD3 R6, P2, R6, 0xa0, RZ");
  CHECK(names(add.dst) == std::vector<std::string>{"R6", "P2"});
  CHECK(names(add.src) == std::vector<std::string>{"R6"});
  auto two = sass::parse_instruction_text("IADD3 R8, P0, P1, R2, R4, RZ");
  CHECK(names(two.dst) == std::vector<std::string>{"R8", "P0", "P1"});
  auto lea = sass::parse_instruction_text("LEA R10, P0, R8, UR6, 0x3");
  CHECK(names(lea.dst) == std::vector<std::string>{"R10", "P0"});
  auto placeholder = sass::parse_instruction_text("IADD3 R6, PT, R6, 0x1, RZ");
  CHECK(names(placeholder.dst) == std::vector<std::string>{"R6"});
  CHECK(names(placeholder.src) == std::vector<std::string>{"R6"});
  auto carry_in = sass::parse_instruction_text("IADD3.X R7, RZ, R7, RZ, P2, !PT");
  CHECK(names(carry_in.dst) == std::vector<std::string>{"R7"});
  CHECK(names(carry_in.src) == std::vector<std::string>{"R7", "P2"});
  auto hi = sass::parse_instruction_text("LEA.HI.X R11, R8, UR7, R9, 0x3, P0");
  CHECK(names(hi.dst) == std::vector<std::string>{"R11"});
  auto fsetp = sass::parse_instruction_text("FSETP.GEU.AND P1, PT, |R23|, 1.1e-38, PT");
  CHECK(names(fsetp.dst) == std::vector<std::string>{"P1"});
}

TEST_CASE("opcode tokenising is exact, not substring matching") {
  auto t = sass::tokenize_opcode("MEMBAR.SC.GPU");
  CHECK(t.base == "MEMBAR");
  REQUIRE(t.modifiers.size() == 2);
  auto tables = Tables::load_default();
  const auto& isa = tables->isa("volta");
  bool unknown = true;
  CHECK(classify(isa, sass::tokenize_opcode("MEMBAR.SC.GPU"), unknown) == "membar");  // PPT-GPU matched BAR first
  CHECK_FALSE(unknown);
  CHECK(classify(isa, sass::tokenize_opcode("BAR.SYNC.DEFER_BLOCKING"), unknown) == "barrier");
  CHECK(classify(isa, sass::tokenize_opcode("IMAD.WIDE.U32"), unknown) == "imad_wide");
  // IMAD's moves, adds and shifts issue to the FMA pipe as IMAD does (H200,
  // calibrate/alu_pipe_probe.cu: IMAD.IADD and IMAD.SHL.U32 beside LOP3s, none on the ALU).
  CHECK(classify(isa, sass::tokenize_opcode("IMAD.MOV.U32"), unknown) == "imad");
  CHECK(classify(isa, sass::tokenize_opcode("IMAD.IADD"), unknown) == "imad");
  CHECK(classify(isa, sass::tokenize_opcode("IMAD.SHL.U32"), unknown) == "imad");
  // Float compares, selects and min/max are the ALU's, not the FMA pipe's (the same probe).
  CHECK(classify(isa, sass::tokenize_opcode("FSETP.GEU.AND"), unknown) == "int");
  CHECK(classify(isa, sass::tokenize_opcode("FSEL"), unknown) == "int");
  CHECK(classify(isa, sass::tokenize_opcode("FMNMX"), unknown) == "int");
  CHECK(classify(isa, sass::tokenize_opcode("I2FP.F32.S32"), unknown) == "int");
  CHECK(classify(isa, sass::tokenize_opcode("F2FP.BF16.F32.PACK_AB"), unknown) == "int");
  CHECK(classify(isa, sass::tokenize_opcode("HFMA2.MMA"), unknown) == "fp32");
  CHECK(classify(isa, sass::tokenize_opcode("ST.E.SYS"), unknown) == "global_mem");  // PPT-GPU issue #1 aborted here
  CHECK_FALSE(unknown);
  CHECK(classify(isa, sass::tokenize_opcode("FROBNICATE.X"), unknown) == "fp32");  // prefix fallback F -> fp32
  CHECK(unknown);
}

TEST_CASE("shipped tables load and pass the checker") {
  auto t = Tables::load_default();
  auto issues = t->check();
  for (auto& i : issues) MESSAGE(i.file << ": " << i.message);
  CHECK(issues.empty());
  for (auto a : {"sm_60", "sm_61", "sm_70", "sm_75", "sm_80", "sm_86", "sm_89", "sm_90"}) CHECK(t->has_arch(a));
  // Seed values survive inheritance with their provenance.
  const auto& v = t->arch("sm_70");
  CHECK(v.classes.at("fp32").latency.value == 4);
  CHECK(v.classes.at("fp32").latency.source == "F0-T4.1");
  const auto& tu = t->arch("sm_75");
  CHECK(tu.classes.at("fp64").latency.value == 54);         // F3 Table 6 DFMA
  CHECK(tu.opcode_latency.at("DADD").value == 48);
  CHECK(tu.classes.at("fp32").latency.value == 4);          // inherited from sm_70
  CHECK(tu.classes.at("fp32").latency.file.find("sm_70.json") != std::string::npos);
  const auto& am = t->arch("sm_80");
  CHECK(am.mem("l2_hit_latency_cycles") == 200);            // F1 Table IV
  CHECK(am.mem("dram_latency_cycles") == 290);
  CHECK(am.classes.at("tensor_hmma").issue_interval.value == 8);  // F1 Table III
  CHECK(t->arch("sm_60").classes.at("imad").latency.value == 86);  // Pascal emulated IMAD
  CHECK(t->arch("sm_61").mem("l2_hit_latency_cycles") == 216);
  CHECK(t->arch("sm_90").occupancy.at("max_shared_per_sm_kib").value == 228);
  // Every source a value names is declared, with the fields its kind needs.
  for (auto a : {"sm_60", "sm_70", "sm_75", "sm_80", "sm_86", "sm_90"}) {
    const auto& at = t->arch(a);
    for (auto& [c, cc] : at.classes) {
      if (cc.unsupported) continue;
      CHECK_MESSAGE(at.sources.count(cc.latency.source), a << " " << c);
    }
  }
}

TEST_CASE("arch tables: optional measurements fall back to the schema's default only where the table lacks them") {
  auto t = Tables::load_default();
  const ArchTable& hopper = t->arch("sm_90");
  const ArchTable& volta = t->arch("sm_70");
  CHECK(hopper.mem("l2_store_line_rate_fraction") == doctest::Approx(0.28));  // measured on H100 and H200
  CHECK(volta.mem("l2_store_line_rate_fraction") == 0);                       // never measured: the schema's "not modelled"
  CHECK(hopper.mem("store_partial_sector_wavefronts") == doctest::Approx(1.01).epsilon(0.01));
  CHECK(volta.mem("store_partial_sector_wavefronts") == 0);  // the schema's default
  // A table without a defaulted key gets the default; without a required one, an error naming it.
  ArchTable bare;
  CHECK(bare.cachev("sector_bytes") == 32);
  CHECK(bare.mem("l1_wavefronts_per_cycle") == 1);
  CHECK_THROWS_WITH_AS(bare.mem("l1_hit_latency_cycles"), "table value 'l1_hit_latency_cycles' is missing (after inheritance)", TableError);
  CHECK_THROWS_AS(bare.mem("dram_latency_clock_mhz"), TableError);  // optional without a default: its absence means something
}

TEST_CASE("parameter schema: one entry per key, each with a unit, a range, and a source for its default") {
  std::set<std::pair<int, std::string>> seen;
  for (const ParamSpec& p : param_schema()) {
    CHECK_MESSAGE(seen.insert({static_cast<int>(p.section), p.key}).second, "twice: " << p.key);
    CHECK_MESSAGE(std::string(p.unit).size() > 0, p.key);
    CHECK_MESSAGE(p.lo < p.hi, p.key);
    if (p.use == ParamUse::defaulted) {
      // The why names its kind as the tables' sources do (seed, vendor, measured, estimated), or
      // says the effect is not modelled without a measurement (default 0).
      const std::string why = p.default_why;
      const bool sourced = why.rfind("seed:", 0) == 0 || why.rfind("vendor:", 0) == 0 || why.rfind("estimated:", 0) == 0 || why.rfind("measured:", 0) == 0;
      CHECK_MESSAGE((sourced || (p.default_value == 0 && why.rfind("not modelled", 0) == 0)), p.key);
      CHECK_MESSAGE((p.default_value == 0 || (p.default_value >= p.lo && p.default_value <= p.hi)), p.key);
    } else {
      CHECK_MESSAGE(std::string(p.default_why).empty(), p.key);
    }
  }
  CHECK(find_param(ParamSection::memory, "l1_hit_latency_cycles")->use == ParamUse::required);
  CHECK(find_param(ParamSection::gpu, "sms")->use == ParamUse::required);
  CHECK(find_param(ParamSection::memory, "no_such_key") == nullptr);
  // Every key the shipped tables give is in the schema (tables check would name it otherwise),
  // and every required key is given by every shipped arch table after inheritance.
  auto t = Tables::load_default();
  CHECK(t->check().empty());
}

TEST_CASE("catalog: names, aliases, required GPUs") {
  auto t = Tables::load_default();
  for (auto n : {"p100", "v100", "t4", "2080ti", "a100", "a100-80gb", "a100-pcie", "3090", "h100", "h100-pcie", "h200"}) CHECK_NOTHROW(t->gpu(n));
  CHECK(t->gpu("A100").name == "A100-SXM4-40GB");
  CHECK(t->gpu("h200").get("sms") == 132);
  CHECK(t->default_gpu() == "a100");
  CHECK_THROWS_AS(t->gpu("rtx9999"), UnknownGpuError);
  try {
    t->gpu("rtx9999");
  } catch (const UnknownGpuError& e) {
    CHECK(std::string(e.what()).find("unknown GPU 'rtx9999'") == 0);
  }
}

TEST_CASE("every opcode in the devsample listings (sm_75..sm_90) maps to a known class") {
  auto t = Tables::load_default();
  for (auto sm : {"75", "80", "86", "89", "90"}) {
    auto fns = read_sass_listing(kFix + "/devsample/devkernels_sm" + sm + ".cuobjdump.sass.xz");
    CHECK(fns.size() == 18);  // devkernels.cu: 17 kernels, one template twice
    const auto& isa = t->isa(t->arch(std::string("sm_") + sm).isa);
    std::size_t n = 0;
    for (auto& f : fns)
      for (auto& s : f.program) {
        bool unknown = false;
        classify(isa, sass::tokenize_opcode(s.opcode), unknown);
        CHECK_MESSAGE(!unknown, "sm_" << sm << ": " << s.opcode);
        ++n;
      }
    CHECK(n > 500);
  }
}

TEST_CASE("table overrides: a user directory takes precedence file by file") {
  auto shipped = Tables::load_default();
  auto t = Tables::load({kFix + "/tables_broken/bad_range", shipped->search_path().back()});
  CHECK(t->arch("sm_75").mem("l2_hit_latency_cycles") == 188000);  // the override's (broken) value
  CHECK(t->arch("sm_80").mem("l2_hit_latency_cycles") == 200);     // untouched file from the shipped dir
  CHECK_FALSE(t->check().empty());
  CHECK_THROWS_AS(Tables::load({kFix + "/tables_broken/cycle", shipped->search_path().back()}), TableError);
  CHECK_THROWS_WITH_AS(Tables::load({"/nonexistent/dir"}), doctest::Contains("none of the latency-table directories exist"), TableError);
}

TEST_CASE("tables check: a calibrated interval needs both ends, low below high") {
  namespace fs = std::filesystem;
  auto shipped = Tables::load_default();
  const std::string dir = shipped->search_path().back();
  nlohmann::json cat = nlohmann::json::parse(std::ifstream(dir + "/gpus.json"));
  auto write_with = [&](const char* sub, auto edit) {
    nlohmann::json c = cat;
    for (auto& g : c["gpus"])
      if (g["name"] == "H100-SXM5-80GB") edit(g);
    const fs::path d = fs::temp_directory_path() / sub;
    fs::create_directories(d);
    std::ofstream(d / "gpus.json") << c.dump(1);
    return d.string();
  };
  auto messages = [&](const std::string& d) {
    std::string all;
    for (auto& i : Tables::load({d, dir})->check()) all += i.message + "\n";
    fs::remove_all(d);
    return all;
  };
  REQUIRE(cat["gpus"].dump().find("interval_bounds_duration_log_high") != std::string::npos);
  const auto swapped = write_with("gpuperf_test_interval_swapped", [](nlohmann::json& g) {
    std::swap(g["interval_bounds_duration_log_low"]["value"], g["interval_bounds_duration_log_high"]["value"]);
  });
  CHECK(messages(swapped).find("H100-SXM5-80GB: interval_bounds_duration_log_low is not below interval_bounds_duration_log_high") !=
        std::string::npos);
  const auto half = write_with("gpuperf_test_interval_half", [](nlohmann::json& g) { g.erase("interval_bounds_duration_log_high"); });
  CHECK(messages(half).find("H100-SXM5-80GB: interval_bounds_duration_log_low without interval_bounds_duration_log_high") != std::string::npos);
}

TEST_CASE("tables check: an L2 fill is a sector or its aligned pair, nothing between") {
  namespace fs = std::filesystem;
  auto shipped = Tables::load_default();
  const std::string dir = shipped->search_path().back();
  CHECK(shipped->arch("sm_90").cachev("l2_fill_bytes") == 64);
  nlohmann::json a = nlohmann::json::parse(std::ifstream(dir + "/arch/sm_90.json"));
  a["cache"]["l2_fill_bytes"]["value"] = 48;  // inside the schema's range, yet no fill the model knows
  const fs::path d = fs::temp_directory_path() / "gpuperf_test_l2_fill";
  fs::create_directories(d / "arch");
  std::ofstream(d / "arch" / "sm_90.json") << a.dump(1);
  std::string all;
  for (auto& i : Tables::load({d.string(), dir})->check()) all += i.message + "\n";
  fs::remove_all(d);
  CHECK(all.find("cache.l2_fill_bytes: 48 is not 32 (a sector) or 64 (its aligned pair)") != std::string::npos);
}

TEST_CASE("opcode-level values: F1 Table V on sm_80, never over a more specific class value") {
  auto t = Tables::load_default();
  const auto& a80 = t->arch("sm_80");
  const auto& a90 = t->arch("sm_90");
  const auto& isa = t->isa("volta");
  CHECK(make_descriptor("F2I.TRUNC.NTZ", a80, isa).issue_interval == 6);   // F1 Table V: cvt.rzi.s32.f32
  CHECK(make_descriptor("MUFU.TANH", a80, isa).issue_interval == 6);       // F1 Table V: tanh.approx.f32
  CHECK(make_descriptor("MUFU.SIN", a80, isa).issue_interval == 8);        // class value (PG)
  CHECK(make_descriptor("FFMA", a80, isa).issue_interval == 2);
  // sm_90 inherits sm_80's FFMA 2 but measured the fp32 class at 1.02: the measurement wins.
  CHECK(make_descriptor("FFMA", a90, isa).issue_interval == doctest::Approx(1.02));
  CHECK(make_descriptor("MUFU.EX2", a90, isa).issue_interval == doctest::Approx(8.0).epsilon(0.01));
}

TEST_CASE("opcode-level values: a base mnemonic's value is not its modifier class's (IMAD.WIDE)") {
  auto t = Tables::load_default();
  const auto& a80 = t->arch("sm_80");
  const auto& a90 = t->arch("sm_90");
  const auto& isa = t->isa("volta");
  // F1 Table V gives IMAD an interval of 2 on sm_80; IMAD.WIDE is the imad_wide class (two
  // passes, interval 4), which IMAD's value used to overwrite.
  CHECK(make_descriptor("IMAD", a80, isa).issue_interval == 2);
  CHECK(make_descriptor("IMAD.WIDE.U32", a80, isa).op_class == "imad_wide");
  CHECK(make_descriptor("IMAD.WIDE.U32", a80, isa).issue_interval == 4);
  CHECK(make_descriptor("IMAD.WIDE", a80, isa).latency == 7);
  // IMAD.MOV takes its modifier's class (imad, as IMAD), not IMAD's opcode-level values.
  CHECK(make_descriptor("IMAD.MOV.U32", a80, isa).op_class == "imad");
  CHECK(make_descriptor("IMAD.MOV.U32", a80, isa).issue_interval == 2);
  // sm_90 measured IMAD.WIDE.U32 (calibrate/microbench.cu imad_wide_iadd3): 8 cycles, 5.08.
  CHECK(make_descriptor("IMAD.WIDE.U32", a90, isa).latency == doctest::Approx(8.0));
  CHECK(make_descriptor("IMAD.WIDE.U32", a90, isa).issue_interval == doctest::Approx(5.08));
  CHECK(make_descriptor("IMAD.WIDE", a90, isa).issue_interval == doctest::Approx(5.08));
  CHECK(make_descriptor("IMAD", a90, isa).issue_interval == doctest::Approx(1.97));
}

TEST_CASE("seed tables: F1 Tables I and V, atomic contention, TLB geometry") {
  auto t = Tables::load_default();
  const auto& a80 = t->arch("sm_80");
  // F1 Table I: CPI of add.u32 against the timed window (1..4 instructions: 5, 3, 2, 2).
  const Curve* window = a80.curve("add_cpi_vs_timing_window");
  REQUIRE(window);
  CHECK(window->y == std::vector<double>{5, 3, 2, 2});
  // F1 Table V's multi-instruction rows: reference sequences whose SASS opcodes all have a class.
  CHECK(a80.ptx_sequences.size() == 68);
  const auto& ex2 = a80.ptx_sequences.at("ex2.approx.f32");
  CHECK(ex2.sass == std::vector<std::string>{"FSETP.GEU.AND", "FMUL", "MUFU.EX2"});
  CHECK(ex2.cycles_min == 18);
  CHECK(a80.ptx_sequences.at("sqrt.rn.f32").cycles_max == 235);
  const auto& isa = t->isa("volta");
  for (auto& [ptx, q] : a80.ptx_sequences)
    for (auto& op : q.sass) {
      bool unknown = false;
      classify(isa, sass::tokenize_opcode(op), unknown);
      CHECK_MESSAGE(!unknown, ptx << ": " << op);
    }
  // F0 Table 4.2 (V100) and F3 Table 7 (T4): atomic latency against same-address contention.
  const Curve* v100 = t->arch("sm_70").curve("shared_atomic_latency_vs_contention");
  REQUIRE(v100);
  CHECK(v100->at(1) == 6);
  CHECK(v100->at(32) == 66);
  CHECK(v100->at(12) == doctest::Approx(18 + (24 - 18) * (std::log2(12.0) - 3)));  // log2 interpolation
  CHECK(t->arch("sm_75").curve("global_atomic_latency_vs_contention")->at(32) == 116);
  CHECK(t->arch("sm_61").curve("global_atomic_latency_vs_contention")->at(2) == 50);  // P4 column
  // F0 Table 3.1 TLB geometry.
  CHECK(t->arch("sm_70").cachev("l2_tlb_coverage_mib") == 8192);
  CHECK(t->arch("sm_60").cachev("l2_tlb_coverage_mib") == 2048);
}

TEST_CASE("calibrated Hopper table: measured values replace the estimates") {
  auto t = Tables::load_default();
  const auto& a = t->arch("sm_90");
  const auto& isa = t->isa("volta");
  CHECK(a.classes.at("tensor_hmma").issue_interval.value == doctest::Approx(6.01));   // mma.sync m16n8k16, runtime operands
  CHECK(a.classes.at("tensor_hmma").issue_interval.source.rfind("measured-", 0) == 0);
  CHECK(a.tensor.at("fma_per_cycle_per_subpartition").value == doctest::Approx(511.6).epsilon(0.01));  // HGMMA 64x128x16
  CHECK(make_descriptor("HGMMA.64x128x16.F32", a, isa).issue_interval == doctest::Approx(64.05).epsilon(0.01));
  CHECK(make_descriptor("HGMMA.64x256x16.F32", a, isa).issue_interval == doctest::Approx(128.1).epsilon(0.01));
  // An m64nN warpgroup MMA takes the same cycles for every input type (calibrate/gmma_dtype_probe.cu,
  // H200): tf32's k8 at half the f16 FMA rate, e4m3's k32 at twice it; the f16 rate alone made
  // the first 2x fast and the second 2x slow.
  CHECK(make_descriptor("HGMMA.64x128x8.F32.TF32", a, isa).issue_interval == doctest::Approx(64.05).epsilon(0.01));
  CHECK(make_descriptor("QGMMA.64x128x32.F32.E4M3.E4M3", a, isa).issue_interval == doctest::Approx(64.05).epsilon(0.01));
  CHECK(make_descriptor("QGMMA.64x256x32.F32.E5M2.E4M3", a, isa).issue_interval == doctest::Approx(128.1).epsilon(0.01));
  CHECK(make_descriptor("HGMMA.64x128x16.F32.BF16", a, isa).issue_interval == doctest::Approx(64.05).epsilon(0.01));
  CHECK(make_descriptor("MUFU.RCP", a, isa).latency == doctest::Approx(19).epsilon(0.02));  // a modifier-level opcode latency
  CHECK(make_descriptor("MUFU.EX2", a, isa).latency == doctest::Approx(17).epsilon(0.02));
  CHECK(make_descriptor("I2FP.F32.S32", a, isa).latency == doctest::Approx(4));           // Hopper's ALU-pipe int->float
  CHECK(make_descriptor("IADD3", a, isa).latency == doctest::Approx(4));
  CHECK(make_descriptor("F2I.NTZ", a, isa).latency == doctest::Approx(17).epsilon(0.02));
  const Curve* ops = a.curve("global_atomic_ops_per_cycle_vs_addresses");
  REQUIRE(ops);
  CHECK(ops->x.front() == 1);
  CHECK(ops->at(1) < ops->at(1 << 20) / 20);  // one hot word is far slower than a spread
}

}  // namespace gpuperf_test_sass_tables
