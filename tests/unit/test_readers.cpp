// Trace readers: formats, compression, quirks, errors with file:line:column.
#include <doctest/doctest.h>

#include <lzma.h>
#include <zlib.h>
#include <zstd.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <set>
#include <sstream>

#include "gpuperf/gpuperf.hpp"
#include "gpuperf/trace/accelsim_writer.hpp"
#include "trace_text.hpp"

// Each test file has its own namespace: the unit tests compile as one unity build.
namespace gpuperf_test_readers {

using namespace gpuperf;

static const std::string kFix = std::string(GPUPERF_TEST_DIR) + "/fixtures";
static const std::string kAs = kFix + "/accelsim";

static std::string slurp(const std::string& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

static std::string tmp_path(const std::string& name) {
  return (std::filesystem::temp_directory_path() / ("gpuperf_test_" + std::to_string(::getpid()) + "_" + name)).string();
}

static void write_file(const std::string& p, const std::string& data) {
  std::ofstream out(p, std::ios::binary);
  out << data;
}

TEST_CASE("Accel-Sim v5 grouped trace: address modes 0, 1 and 2 (popcount-1 deltas)") {
  Kernel k = AccelSimKernelReader::read(kAs + "/v5_modes.traceg");
  CHECK(k.launch.name == "_Z6kernelPfS_");
  CHECK(k.launch.grid == Dim3{2, 1, 1});
  CHECK(k.launch.block.x == 64);
  CHECK(k.launch.registers_per_thread == 16);
  CHECK(k.launch.sm_version == 90);
  REQUIRE(k.warps.size() == 3);
  CHECK(k.traced_ctas == 2);
  CHECK(k.warps[0].end - k.warps[0].begin == 5);
  // Mode 0: mask 0xb has 3 lanes, 3 addresses listed.
  const auto& ld0 = k.dyn[k.warps[0].begin + 2];
  REQUIRE(ld0.addr_count == 3);
  CHECK(k.lane_addresses(ld0)[0] == 0x200);
  CHECK(k.lane_addresses(ld0)[2] == 0x250);
  // Mode 1: base 0x100, stride 4, 2 lanes.
  const auto& st = k.dyn[k.warps[0].begin + 3];
  REQUIRE(st.addr_count == 2);
  CHECK(k.lane_addresses(st)[1] == 0x104);
  // Mode 2: mask 0x5 = 2 lanes: base 0x1000 then ONE delta (64); the trailing -7 is the immediate.
  const auto& ld1 = k.dyn[k.warps[1].begin + 2];
  REQUIRE(ld1.addr_count == 2);
  CHECK(k.lane_addresses(ld1)[0] == 0x1000);
  CHECK(k.lane_addresses(ld1)[1] == 0x1040);
  // Static program keyed by PC with counts.
  std::map<std::uint64_t, const StaticInstr*> by_pc;
  for (auto& s : k.program) by_pc[s.pc] = &s;
  CHECK(by_pc.at(0x0)->warp_executed == 3);
  CHECK(by_pc.at(0x20)->warp_executed == 2);
  CHECK(by_pc.at(0x20)->thread_executed == 3 + 2);
  CHECK(by_pc.at(0x20)->space == MemSpace::global);
  CHECK(by_pc.at(0x50)->src.size() == 3);  // FFMA R1 R1 R1: sources as traced
}

TEST_CASE("Accel-Sim v5 trace: a bulk tensor copy's box (address mode 3) is read, range-checked and written back") {
  const std::string head = slurp(kAs + "/v5_modes.traceg").substr(0, slurp(kAs + "/v5_modes.traceg").find("#BEGIN_TB"));
  auto trace = [&](const std::string& copy) {
    return head + "#BEGIN_TB\nthread block = 0,0,0\nwarp = 0\ninsts = 2\n" + copy + "\n0010 ffffffff 0 EXIT 0 0 0\n#END_TB\n";
  };
  const std::string f = tmp_path("bulk_box.traceg");
  // 64 rows of 256 B, 16 KiB apart, from 0x7f0000000000 (a 64 x 64 fp32 tile of a 4096 x 4096
  // matrix, 64 MiB, whose first address and span end the line before the immediate).
  const std::string copy = "0000 00000001 0 UTMALDG.2D 2 UR8 UR14 256 3 0x7f0000000000 64 16384 1 0 1 0 1 0 0x7f0000000000 67108864 0";
  write_file(f, trace(copy));
  Kernel k = AccelSimKernelReader::read(f);
  REQUIRE(k.program.size() == 2);
  const StaticInstr& s = k.program[0];
  CHECK(s.bulk_box);
  CHECK(s.space == MemSpace::global);
  CHECK(s.mem_op == MemOp::load);
  const auto& d = k.dyn[0];
  REQUIRE(d.addr_count == kBulkBoxWords);
  const LaneAddresses box = k.lane_addresses(d);
  CHECK(box[0] == 0x7f0000000000ull);
  CHECK(box[1] == 256);
  CHECK(box[2] == 64);
  CHECK(box[3] == 16384);
  CHECK(box[10] == 0x7f0000000000ull);
  CHECK(box[11] == 67108864);
  std::uint64_t sectors = 0, first = 0, last = 0;
  const std::uint64_t rows = for_each_box_sector(box.begin(), [&](std::uint64_t sec) { if (!sectors++) first = sec; last = sec; });
  CHECK(rows == 64);
  CHECK(sectors == 64 * 8);
  CHECK(first == 0x7f0000000000ull / 32);
  CHECK(last == (0x7f0000000000ull + 63 * 16384 + 255) / 32);
  // The converter writes the box back as it was read.
  const std::string out = tmp_path("bulk_box_out.traceg");
  write_traceg(k, out);
  CHECK(slurp(out).find("0000 00000001 0 UTMALDG.2D 2 UR8 UR14 256 3 0x7f0000000000 64 16384 1 0 1 0 1 0 0x7f0000000000 67108864") != std::string::npos);
  // Mode 3 belongs to bulk copies, and its rows are the TMA's (1..256 a dim).
  write_file(f, trace("0000 ffffffff 1 R4 LDG.E 1 R2 256 3 0x7f0000000000 64 16384 1 0 1 0 1 0 0x7f0000000000 67108864 0"));
  CHECK_THROWS_WITH_AS(AccelSimKernelReader::read(f),
                       doctest::Contains("expected an address mode 0, 1 or 2 (mode 3 is for bulk tensor copies: UTMALDG, UTMASTG, UTMAREDG)"), ParseError);
  // A store's box is a global store; a reduction's is kept, with no space the model gives traffic.
  for (const char* op : {"UTMASTG.2D", "UTMAREDG.2D.ADD"}) {
    write_file(f, trace(std::string("0000 00000001 0 ") + op + " 2 UR8 UR14 256 3 0x7f0000000000 64 16384 1 0 1 0 1 0 0x7f0000000000 67108864 0"));
    const Kernel b = AccelSimKernelReader::read(f);
    const bool store = std::string(op) == "UTMASTG.2D";
    CHECK(b.program[0].bulk_box);
    CHECK(b.program[0].space == (store ? MemSpace::global : MemSpace::none));
    CHECK(b.program[0].mem_op == (store ? MemOp::store : MemOp::reduction));
    CHECK(b.dyn[0].addr_count == kBulkBoxWords);
    write_traceg(b, out);
    CHECK(slurp(out).find(std::string("0000 00000001 0 ") + op + " 2 UR8 UR14 256 3 0x7f0000000000 64 16384 1 0 1 0 1 0 0x7f0000000000 67108864") !=
          std::string::npos);
  }
  write_file(f, trace("0000 00000001 0 UTMALDG.2D 2 UR8 UR14 256 3 0x7f0000000000 0 16384 1 0 1 0 1 0 0x7f0000000000 67108864 0"));
  CHECK_THROWS_WITH_AS(AccelSimKernelReader::read(f), doctest::Contains("expected a box's rows in 1..256"), ParseError);
  write_file(f, trace("0000 00000001 0 UTMALDG.2D 2 UR8 UR14 4096 3 0x7f0000000000 64 16384 1 0 1 0 1 0 0x7f0000000000 67108864 0"));
  CHECK_THROWS_WITH_AS(AccelSimKernelReader::read(f), doctest::Contains("expected a memory width"), ParseError);
  write_file(f, trace("0000 00000001 0 UTMALDG.2D 2 UR8 UR14 256 3 0x7f0004000000 64 16384 1 0 1 0 1 0 0x7f0000000000 67108864 0"));
  CHECK_THROWS_WITH_AS(AccelSimKernelReader::read(f), doctest::Contains("expected a box that starts inside its tensor"), ParseError);
  std::filesystem::remove(f);
  std::filesystem::remove(out);
}

TEST_CASE("a PC's repeated line text is skipped whole; other spellings of it are read and checked") {
  const std::string head = slurp(kAs + "/v5_modes.traceg").substr(0, slurp(kAs + "/v5_modes.traceg").find("#BEGIN_TB"));
  auto trace = [&](const std::string& warp1) {
    return head + "#BEGIN_TB\nthread block = 0,0,0\nwarp = 0\ninsts = 2\n0000 ffffffff 1 R1 MOV 0 0 0\n"
                  "0020 00000003 1 R4 LDG.E 1 R2 4 1 0x100 4 0\nwarp = 1\ninsts = 2\n" + warp1 + "#END_TB\n";
  };
  const std::string f = tmp_path("static_text.traceg");
  // The second warp's PC 0x20 reads R20: the first line's text "1 R4 LDG.E 1 R2" is a prefix
  // of it, which must not be taken for the whole static part.
  write_file(f, trace("0000 ffffffff 1  R1 MOV 0 0 0\n0020 00000003 1 R4 LDG.E 1 R20 4 0 0x300 0x340 0\n"));
  Kernel k = AccelSimKernelReader::read(f);
  REQUIRE(k.dyn.size() == 4);
  CHECK(k.program.size() == 2);
  CHECK(k.program[0].warp_executed == 2);  // an extra blank: same PC, read by tokens
  const auto& ld = k.dyn[3];
  REQUIRE(ld.addr_count == 2);
  CHECK(k.lane_addresses(ld)[0] == 0x300);
  CHECK(k.lane_addresses(ld)[1] == 0x340);
  CHECK(ld.mem_width == 4);
  // A text that starts like the PC's but names another opcode is still an error.
  write_file(f, trace("0000 ffffffff 1 R1 MOV.U32 0 0 0\n0020 00000003 1 R4 LDG.E 1 R2 4 1 0x100 4 0\n"));
  CHECK_THROWS_WITH_AS(AccelSimKernelReader::read(f), doctest::Contains(":25:20: expected opcode MOV at PC 0x0 (as earlier in the trace), found 'MOV.U32'"),
                       ParseError);
  std::filesystem::remove(f);
}

TEST_CASE("AddressPool: every address list round-trips; regular warps take a few bytes") {
  AddressPool pool;
  std::vector<std::vector<std::uint64_t>> lists;
  std::vector<std::uint64_t> at;
  auto add = [&](std::vector<std::uint64_t> a) {
    at.push_back(pool.append(a.data(), static_cast<unsigned>(a.size())));
    lists.push_back(std::move(a));
  };
  std::vector<std::uint64_t> words, tile, broadcast, random, edges;
  for (std::uint64_t i = 0; i < 32; ++i) words.push_back(0x800 + 4 * i);
  for (std::uint64_t i = 0; i < 32; ++i) tile.push_back(0x7f754a000000ull + (i / 16) * 0x2000 + 4 * (i % 16));
  for (std::uint64_t i = 0; i < 32; ++i) broadcast.push_back(0x400 + (i / 16) * 0x40);
  std::uint64_t x = 0x9E3779B97F4A7C15ull;
  for (int i = 0; i < 32; ++i) random.push_back(x = x * 6364136223846793005ull + 1442695040888963407ull);
  // Steps at each size class's signed limits, both signs, and the 64-bit extremes.
  std::uint64_t v = 0;
  for (std::int64_t step : {INT64_C(127), INT64_C(128), INT64_C(-128), INT64_C(-129), INT64_C(32767), INT64_C(-32769), INT64_C(1) << 40,
                            -(INT64_C(1) << 47), (INT64_C(1) << 47), INT64_MAX, INT64_MIN, INT64_C(-1), INT64_C(0)}) {
    edges.push_back(v);
    v += static_cast<std::uint64_t>(step);
  }
  edges.push_back(~0ull);
  std::vector<std::uint64_t> many(64, 0x1000);  // 64 lanes: runs longer than a control byte holds
  for (std::uint64_t i = 0; i < 64; ++i) many[i] += 8 * i;
  add(words);
  const std::size_t after_words = pool.size_bytes();
  add(tile);
  add(broadcast);
  add(random);
  add(edges);
  add(many);
  add({0xdeadbeef});
  for (std::size_t i = 0; i < lists.size(); ++i) {
    std::uint64_t out[64] = {};
    pool.decode(at[i], static_cast<unsigned>(lists[i].size()), out);
    CHECK(std::vector<std::uint64_t>(out, out + lists[i].size()) == lists[i]);
  }
  // Control byte + value bytes: 0x800 (1 + 2), then one run of 31 steps of 4 (1 + 1).
  CHECK(after_words == 5);
  // 0x7f754a000000 (1 + 6), +4 x15 (1 + 1), +0x1fc4 once (1 + 2), +4 x15 (1 + 1).
  CHECK(at[2] - at[1] == 14);
  AddressPool copy = pool;
  std::uint64_t out[64];
  copy.decode(at[3], 32, out);
  CHECK(std::vector<std::uint64_t>(out, out + 32) == random);
}

TEST_CASE("Accel-Sim old format (< v3): CTA/warp ids on every line, no immediate") {
  Kernel k = AccelSimKernelReader::read(kAs + "/old_v2.traceg");
  CHECK(k.launch.sm_version == 70);
  CHECK(k.launch.registers_per_thread == 166);
  REQUIRE(k.warps.size() == 1);
  CHECK(k.dyn.size() == 3);
  const auto& lds = k.dyn[1];
  CHECK(lds.addr_count == 32);
  CHECK(k.lane_addresses(lds)[1] - k.lane_addresses(lds)[0] == 64);
  CHECK(k.program[1].access_bits == 128);
}

TEST_CASE("Accel-Sim raw .trace v4 with line numbers: interleaved warps are grouped") {
  Kernel k = AccelSimKernelReader::read(kAs + "/v4_lineinfo.trace");
  REQUIRE(k.warps.size() == 2);
  CHECK(k.warps[0].cta.x == 1);  // first seen
  CHECK(k.warps[0].end - k.warps[0].begin == 3);
  CHECK(k.warps[1].end - k.warps[1].begin == 3);
  CHECK(k.program.size() == 3);
  CHECK(k.program[1].opcode == "IADD3");
  // "-enable lineinfo = 1": the field after the warp id is the PC's CUDA source line (no file).
  CHECK(k.program[0].source_line == 12);
  CHECK(k.program[1].source_line == 13);
  CHECK(k.program[2].source_line == 14);
  CHECK(k.program[2].source_file.empty());
}

TEST_CASE("garbage header values get warnings and sane fallbacks") {
  Kernel k = AccelSimKernelReader::read(kAs + "/garbage_header.traceg");
  CHECK(k.launch.registers_per_thread == 0);
  CHECK(k.launch.sm_version == 0);
  std::string all;
  for (auto& w : k.warnings) all += w + "\n";
  CHECK(all.find("-nregs = 21955") != std::string::npos);
  CHECK(all.find("-binary version = 0") != std::string::npos);
  CHECK(all.find("-shmem = 1") != std::string::npos);
}

TEST_CASE("kernelslist.g: kernels in order, MemcpyHtoD commands") {
  Application app = load(kAs + "/kernelslist.g");
  REQUIRE(app.kernels.size() == 2);
  CHECK(app.kernels[0].launch.name == "_Z6kernelPfS_");
  REQUIRE(app.memcpys.size() == 2);
  CHECK(app.memcpys[1].address == 0x00000005020c3600ull);
  CHECK(app.memcpys[1].bytes == 800000);
  // A folder holding a kernelslist works the same.
  CHECK(load(kAs).kernels.size() == 2);
}

TEST_CASE("compressed traces: xz, gzip and zstd, detected by content") {
  std::string text = slurp(kAs + "/v5_modes.traceg");
  // xz
  {
    std::vector<std::uint8_t> out(text.size() + 1024);
    std::size_t pos = 0;
    REQUIRE(lzma_easy_buffer_encode(6, LZMA_CHECK_CRC64, nullptr, reinterpret_cast<const uint8_t*>(text.data()), text.size(), out.data(), &pos, out.size()) == LZMA_OK);
    write_file(tmp_path("a.bin"), std::string(reinterpret_cast<char*>(out.data()), pos));
  }
  // gzip
  {
    std::string p = tmp_path("b.bin");
    gzFile g = gzopen(p.c_str(), "wb");
    gzwrite(g, text.data(), static_cast<unsigned>(text.size()));
    gzclose(g);
  }
  // zstd
  {
    std::vector<char> out(ZSTD_compressBound(text.size()));
    std::size_t n = ZSTD_compress(out.data(), out.size(), text.data(), text.size(), 3);
    write_file(tmp_path("c.bin"), std::string(out.data(), n));
  }
  for (auto name : {"a.bin", "b.bin", "c.bin"}) {
    CHECK(detect_kind(tmp_path(name)) == "accelsim_kernel");
    Kernel k = AccelSimKernelReader::read(tmp_path(name));
    CHECK(k.dyn.size() == 12);
    CHECK(k.warps.size() == 3);
    std::filesystem::remove(tmp_path(name));
  }
}

TEST_CASE("bad input: typed errors naming file, line and column") {
  auto err = [](const std::string& f) -> std::string {
    try {
      AccelSimKernelReader::read(f);
    } catch (const ParseError& e) {
      return e.what();
    }
    return "no error";
  };
  CHECK(err(kAs + "/bad_hex.traceg") == kAs + "/bad_hex.traceg:26:6: expected a hexadecimal number, found '0000zz03 0 STG.E 2 R2 R4'");
  CHECK(err(kAs + "/bad_count.traceg").find("bad_count.traceg:29:1: expected 6 instructions after 'insts = 6', found 5") != std::string::npos);
  CHECK(err(kAs + "/bad_truncated.traceg").find("expected #END_TB before end of file") != std::string::npos);
  CHECK(err(kAs + "/bad_missing_width.traceg").find("bad_missing_width.traceg:27:21: expected an integer, found 'end of line'") != std::string::npos);
  CHECK(err(kAs + "/bad_binary.traceg").find("found binary data") != std::string::npos);
  CHECK(err(kAs + "/empty.traceg").find("the file is empty or not a trace") != std::string::npos);
  CHECK_THROWS_AS(load(kAs + "/does_not_exist.traceg"), IoError);
  // Unknown formats are refused by content, whatever the extension.
  CHECK_THROWS_WITH_AS(load(std::string(GPUPERF_TEST_DIR) + "/data/devkernels.cu"), doctest::Contains("unrecognised input"), FormatError);
  // Truncated compressed stream.
  {
    std::string text = slurp(kAs + "/v5_modes.traceg");
    std::vector<std::uint8_t> out(text.size() + 1024);
    std::size_t pos = 0;
    lzma_easy_buffer_encode(6, LZMA_CHECK_CRC64, nullptr, reinterpret_cast<const uint8_t*>(text.data()), text.size(), out.data(), &pos, out.size());
    write_file(tmp_path("trunc.xz"), std::string(reinterpret_cast<char*>(out.data()), pos / 2));
    CHECK_THROWS_AS(AccelSimKernelReader::read(tmp_path("trunc.xz")), Error);
    std::filesystem::remove(tmp_path("trunc.xz"));
  }
}

TEST_CASE("Nsight Compute exports: 48 launches, counts apart from measurements") {
  Application app = load(std::vector<std::string>{kFix + "/devsample/ncu_source.csv.xz", kFix + "/devsample/ncu_raw.csv.xz"});
  REQUIRE(app.kernels.size() == 48);
  REQUIRE(app.measurements.size() == 48);
  CHECK(app.device_name == "NVIDIA H200");
  const Kernel& v = app.kernels[2];  // vecadd_16M, first launch
  CHECK(v.launch.name == "vecadd(const float *, const float *, float *, int)");
  CHECK(v.launch.grid.x == 65536);
  CHECK(v.launch.block.x == 256);
  CHECK(v.launch.registers_per_thread == 16);
  CHECK(v.launch.sm_version == 90);
  std::uint64_t warp_instr = 0;
  for (auto& s : v.program) warp_instr += s.warp_executed;
  CHECK(warp_instr == 10485760);  // 20 instructions x 524,288 warps (trace-formats.md section 4)
  // Measured time with its unit applied (ms in this export).
  REQUIRE(app.measurements[2].time_us.has_value());
  CHECK(*app.measurements[2].time_us == doctest::Approx(59.68).epsilon(0.01));
  CHECK_FALSE(app.measurements[2].stall_samples_by_pc.empty());
  // Shared-memory conflicts: the strided bank-conflict launch has 32-way LDS.
  const Kernel& bc = app.kernels[40];
  bool found = false;
  for (auto& s : bc.program)
    if (s.opcode == "LDS" && s.warp_executed > 0) { CHECK(s.shared_wavefronts == 32 * s.warp_executed); found = true; }
  CHECK(found);
  // A folder of pages is recognised by content.
  CHECK(load(kFix + "/devsample").kernels.size() == 48);
}

TEST_CASE("ncu + SASS listing: compiler control bits join by instruction sequence") {
  Application app = load(std::vector<std::string>{kFix + "/devsample/ncu_source.csv.xz", kFix + "/devsample/ncu_raw.csv.xz",
                                                  kFix + "/devsample/devkernels_sm90.cuobjdump.sass.xz"});
  for (auto& k : app.kernels) CHECK_MESSAGE(k.has_control_bits(), k.launch.name);
  // The report says when no listing joined (the pages alone), and only then.
  auto tables = Tables::load_default();
  const GpuSpec h100 = GpuSpec::from_catalog(tables, "h100");
  auto no_listing = [&](const Kernel& k) {
    const KernelReport r = Predictor{std::make_shared<const Kernel>(k)}.predict(h100, PredictOptions{});
    return std::count(r.warnings.begin(), r.warnings.end(), Warning{WarningCode::no_control_bits, {}});
  };
  CHECK(no_listing(app.kernels[0]) == 0);
  Application pages = load(std::vector<std::string>{kFix + "/devsample/ncu_source.csv.xz", kFix + "/devsample/ncu_raw.csv.xz"});
  CHECK(no_listing(pages.kernels[0]) == 1);
  CHECK(explain(Warning{WarningCode::no_control_bits, {}}).find("cuobjdump -sass") != std::string::npos);
  // nvdisasm listings (labels instead of addresses) join too.
  Application app2 = load(std::vector<std::string>{kFix + "/devsample/ncu_source.csv.xz", kFix + "/devsample/ncu_raw.csv.xz",
                                                   kFix + "/devsample/devkernels_sm90.nvdisasm.sass.xz"});
  CHECK(app2.kernels[0].program.front().opcode == "LDC");
  // nvdisasm without -hex prints no encodings: the join gives no control bits, and the report says so.
  CHECK_FALSE(app2.kernels[0].has_control_bits());
  CHECK(no_listing(app2.kernels[0]) == 1);
}

TEST_CASE("SASS listings: cuobjdump and nvdisasm agree on functions and opcodes") {
  auto a = read_sass_listing(kFix + "/devsample/devkernels_sm90.cuobjdump.sass.xz");
  auto b = read_sass_listing(kFix + "/devsample/devkernels_sm90.nvdisasm.sass.xz");
  REQUIRE(a.size() == b.size());
  for (std::size_t i = 0; i < a.size(); ++i) {
    CHECK(a[i].launch.name == b[i].launch.name);
    REQUIRE(a[i].program.size() == b[i].program.size());
    for (std::size_t j = 0; j < a[i].program.size(); ++j) CHECK(a[i].program[j].opcode == b[i].program[j].opcode);
    CHECK(a[i].launch.sm_version == 90);
    CHECK(a[i].has_control_bits());
    CHECK_FALSE(b[i].has_control_bits());  // nvdisasm without -hex prints no encodings
  }
  // Branch targets: cuobjdump prints addresses, nvdisasm labels; both resolve to the same PC.
  for (std::size_t j = 0; j < a[0].program.size(); ++j)
    if (a[0].program[j].branch_target) CHECK(b[0].program[j].branch_target == a[0].program[j].branch_target);
}

static const StaticInstr& at_pc(const Kernel& k, std::uint64_t pc) {
  for (auto& s : k.program)
    if (s.pc == pc) return s;
  FAIL("no PC " << pc << " in " << k.launch.name);
  return k.program.front();
}

TEST_CASE("nvdisasm -gi listing of -lineinfo code: each instruction's CUDA file and line") {
  auto fs = read_sass_listing(kFix + "/devsample/devkernels_sm90.lineinfo.nvdisasm.sass.xz");
  REQUIRE(fs.size() == 18);
  const std::string cu = "/tmp/devsample/devkernels.cu";
  const Kernel* vecadd = nullptr;
  const Kernel* hist = nullptr;
  for (auto& f : fs) {
    if (f.launch.name == "_Z6vecaddPKfS0_Pfi") vecadd = &f;
    if (f.launch.name == "_Z21histogram_smem_atomicPKjPji") hist = &f;
    for (auto& s : f.program) CHECK_MESSAGE(s.source_line > 0, f.launch.name << " PC " << s.pc);
  }
  REQUIRE(vecadd);
  REQUIRE(hist);
  // tests/data/devkernels.cu line 8 opens vecadd, line 9 is its body (c[i]=a[i]+b[i]).
  CHECK(at_pc(*vecadd, 0x0).source_file == cu);
  CHECK(at_pc(*vecadd, 0x0).source_line == 8);
  CHECK(at_pc(*vecadd, 0xd0).opcode == "LDG.E");
  CHECK(at_pc(*vecadd, 0xd0).source_line == 9);
  CHECK(at_pc(*vecadd, 0x120).opcode == "STG.E");
  CHECK(at_pc(*vecadd, 0x120).source_line == 9);
  // atomicAdd inlined at line 64: the instruction's own line is the header's, the first of the
  // two '//##' lines; the branch after it is line 64 again, the barrier line 65.
  CHECK(at_pc(*hist, 0x1a0).opcode == "ATOMS.POPC.INC.32");
  CHECK(at_pc(*hist, 0x1a0).source_file == "/usr/local/cuda/bin/../targets/x86_64-linux/include/device_atomic_functions.hpp");
  CHECK(at_pc(*hist, 0x1a0).source_line == 112);
  CHECK(at_pc(*hist, 0x1b0).source_file == cu);
  CHECK(at_pc(*hist, 0x1b0).source_line == 64);
  CHECK(at_pc(*hist, 0x1d0).opcode == "BAR.SYNC.DEFER_BLOCKING");
  CHECK(at_pc(*hist, 0x1d0).source_line == 65);
  CHECK(vecadd->has_control_bits());  // -hex: the encodings still decode
  // Listings without line info leave the lines unknown.
  for (auto& f : read_sass_listing(kFix + "/devsample/devkernels_sm90.nvdisasm.sass.xz"))
    for (auto& s : f.program) CHECK(s.source_line == 0);
}

TEST_CASE("ncu pages + a -lineinfo listing: the profile's instructions get their source lines") {
  Application app = load(std::vector<std::string>{kFix + "/devsample/ncu_source.csv.xz", kFix + "/devsample/ncu_raw.csv.xz",
                                                  kFix + "/devsample/devkernels_sm90.lineinfo.nvdisasm.sass.xz"});
  REQUIRE(app.kernels.size() == 48);
  const Kernel& k = app.kernels[0];  // vecadd, PCs absolute addresses
  CHECK(k.launch.name.find("vecadd") != std::string::npos);
  REQUIRE(k.program.size() > 14);
  CHECK(k.program[0].source_line == 8);
  CHECK(k.program[13].opcode == "LDG.E");
  CHECK(k.program[13].source_file == "/tmp/devsample/devkernels.cu");
  CHECK(k.program[13].source_line == 9);
  for (auto& kk : app.kernels) CHECK_MESSAGE(kk.program.front().source_line > 0, kk.launch.name);
}

TEST_CASE("a malformed nvdisasm line-info comment names its line and column") {
  std::string f = tmp_path("badline.sass");
  write_file(f, "\t.target\tsm_90\n.text._Z1kv:\n\t//## File \"k.cu\", line x\n        /*0000*/    EXIT ;\n");
  CHECK_THROWS_WITH_AS(read_sass_listing(f), (f + ":3:25: expected a line number (1 or more) after ', line '").c_str(), ParseError);
  std::remove(f.c_str());
}

TEST_CASE("PPT-GPU app folder: dicts read as data, representative CTA") {
  std::string dir = tmp_path("ppt");
  std::filesystem::create_directories(dir + "/sass_traces");
  std::filesystem::create_directories(dir + "/memory_traces");
  write_file(dir + "/app_config.py",
             "import os  # never executed\nkernel_1 = { \"kernel_name\": \"Kernel\", \"num_registers\": 18, \"shared_mem_bytes\": 0,\n"
             "  \"grid_size\": 8, \"block_size\": 64, \"cuda_stream_id\": 0 }\n");
  write_file(dir + "/sass_traces/kernel_1.sass", "0 MOV R1\n1 MOV R1\n0 LDG.E R2 R4\n1 LDG.E R2 R4\n0 EXIT\n1 EXIT\n");
  std::string mem = "LDG.E";
  for (int i = 0; i < 32; ++i) mem += " 0x" + std::to_string(1000 + 4 * i);
  write_file(dir + "/memory_traces/kernel_1_block_0.mem", mem + "\n=====\n" + mem + "\n");
  Application app = load(dir);
  REQUIRE(app.kernels.size() == 1);
  const Kernel& k = app.kernels[0];
  CHECK(k.representative_cta);
  CHECK(k.launch.registers_per_thread == 18);
  CHECK(k.launch.grid.x == 8);
  CHECK(k.warps.size() == 2);
  CHECK(k.program.size() == 3);
  CHECK(k.dyn[1].addr_count == 32);
  std::filesystem::remove_all(dir);
}

TEST_CASE("format detection ignores file names") {
  std::string p = tmp_path("looks_like.csv");
  std::filesystem::copy_file(kAs + "/v5_modes.traceg", p, std::filesystem::copy_options::overwrite_existing);
  CHECK(detect_kind(p) == "accelsim_kernel");
  std::filesystem::remove(p);
  CHECK(detect_kind(kFix + "/devsample/ncu_raw.csv.xz") == "ncu_raw");
  CHECK(detect_kind(kFix + "/devsample/devkernels_sm90.nvdisasm.sass.xz") == "sass_listing");
  CHECK(detect_kind(kAs + "/kernelslist.g") == "accelsim_kernelslist");
}

// Found by the public validation corpus: gpuperf's own tracer prints the CUstream handle, a
// 64-bit pointer value, and the reader rejected every trace of a program on a created stream.
TEST_CASE("a 64-bit CUDA stream handle in a trace header is accepted and kept") {
  std::ifstream in(kAs + "/v5_modes.traceg");
  std::stringstream text;
  text << in.rdbuf();
  std::string t = text.str();
  auto at = t.find("-cuda stream id = 0");
  REQUIRE(at != std::string::npos);
  t.replace(at, std::string("-cuda stream id = 0").size(), "-cuda stream id = 94635693211168");
  std::string p = tmp_path("stream64.traceg");
  write_file(p, t);
  Kernel k = AccelSimKernelReader::read(p);
  CHECK(k.launch.cuda_stream == 94635693211168ull);
  std::filesystem::remove(p);
}

// Found by the public validation corpus: the raw page prints "<unnamed>" as "unnamed>", and the
// unbalanced bracket hid the function's name, so PyTorch's kernels in anonymous namespaces
// failed the source/raw join.
// Found by the public validation corpus (H200 HeCBench shuffle, copied here): a program that
// launches each kernel twice gives two identical source sections and two raw rows; the reader
// dropped the second section as a printing repeat and then refused the 14-vs-18 mismatch.
TEST_CASE("ncu: a kernel launched twice keeps both identical source sections") {
  const std::string d = kFix + "/ncu_launched_twice";
  Application app = load(std::vector<std::string>{d + "/ncu_source.csv.xz", d + "/ncu_raw.csv.xz"});
  REQUIRE(app.kernels.size() == 18);
  CHECK(app.kernels[0].launch.name == "bcast_shfl_xor_sg8(int *)");
  CHECK(app.kernels[1].launch.name == app.kernels[0].launch.name);
  CHECK(app.kernels[12].launch.name == app.kernels[17].launch.name);  // transpose_shfl, six launches
  CHECK(drop_repeated_sections(read_ncu_source(d + "/ncu_source.csv.xz")).size() == 14);  // what the reader used to keep
}

// The raw page of ncu_launched_twice, plain, with the first launch's columns named in `set`
// given those values. A name the page lacks is added as a column, blank for the other launches.
static std::string raw_with_first_launch(const std::map<std::string, std::string>& set) {
  namespace fs = std::filesystem;
  LineReader lr(kFix + "/ncu_launched_twice/ncu_raw.csv.xz");
  std::string_view line;
  std::vector<std::string> f, header, added;
  std::ostringstream out;
  int row = 0;
  while (lr.next(line)) {
    csv::split(line, f, "raw", lr.line_number());
    if (header.empty()) {
      header = f;
      for (const auto& [name, value] : set)
        if (std::find(header.begin(), header.end(), name) == header.end()) added.push_back(name);
    }
    if (row == 2)  // header, units, then the first launch
      for (std::size_t i = 0; i < header.size(); ++i)
        if (auto it = set.find(header[i]); it != set.end()) f[i] = it->second;
    for (const auto& name : added) f.push_back(row == 0 ? name : row == 2 ? set.at(name) : "");
    ++row;
    for (std::size_t i = 0; i < f.size(); ++i) out << (i ? "," : "") << '"' << f[i] << '"';
    out << "\n";
  }
  const fs::path file = fs::temp_directory_path() / "gpuperf_test_first_launch_raw.csv";
  std::ofstream(file) << out.str();
  return file.string();
}

static std::string raw_with_slice_counters(const std::string& atom, const std::string& red) {
  return raw_with_first_launch({{"lts__t_sectors_op_atom.max", atom}, {"lts__t_sectors_op_red.max", red}});
}

TEST_CASE("ncu: the busiest L2 slice's atomic and reduction ops are read where the raw page has them, and checked") {
  const std::string source = kFix + "/ncu_launched_twice/ncu_source.csv.xz";
  const std::string raw = raw_with_slice_counters("7", "1,234");
  Application app = load(std::vector<std::string>{source, raw});
  REQUIRE(app.kernels.size() == 18);
  REQUIRE(app.kernels[0].profiled_traffic.present);
  CHECK(app.kernels[0].profiled_traffic.l2_atomic_ops_busiest_slice == 1241);
  CHECK(app.kernels[1].profiled_traffic.l2_atomic_ops_busiest_slice == 0);
  const std::string bad = raw_with_slice_counters("7", "-3");
  CHECK_THROWS_WITH(load(std::vector<std::string>{source, bad}),
                    doctest::Contains("column 'lts__t_sectors_op_red.max': expected a non-negative sector count, found '-3'"));
  std::filesystem::remove(raw);
}

TEST_CASE("ncu: the atomics' and reductions' L2 misses are read where the raw page has both, and checked") {
  const std::string source = kFix + "/ncu_launched_twice/ncu_source.csv.xz";
  const std::string raw = raw_with_first_launch({{"lts__t_sectors_op_atom_lookup_miss.sum", "12"}, {"lts__t_sectors_op_red_lookup_miss.sum", "1,647,426"}});
  Application app = load(std::vector<std::string>{source, raw});
  REQUIRE(app.kernels.size() == 18);
  REQUIRE(app.kernels[0].profiled_traffic.l2_atomic_miss_sectors.has_value());
  CHECK(*app.kernels[0].profiled_traffic.l2_atomic_miss_sectors == 1647438);
  CHECK_FALSE(app.kernels[1].profiled_traffic.l2_atomic_miss_sectors.has_value());  // blank: not counted
  // One kind alone would leave the other's misses out: not taken.
  const std::string one = raw_with_first_launch({{"lts__t_sectors_op_red_lookup_miss.sum", "5"}});
  CHECK_FALSE(load(std::vector<std::string>{source, one}).kernels[0].profiled_traffic.l2_atomic_miss_sectors.has_value());
  const std::string bad = raw_with_first_launch({{"lts__t_sectors_op_atom_lookup_miss.sum", "nan"}, {"lts__t_sectors_op_red_lookup_miss.sum", "5"}});
  CHECK_THROWS_WITH(load(std::vector<std::string>{source, bad}),
                    doctest::Contains("column 'lts__t_sectors_op_atom_lookup_miss.sum': expected a non-negative sector count, found 'nan'"));
  // The reductions' sectors, which the fixture's profile has, are read beside the atomics'.
  CHECK(app.kernels[0].profiled_traffic.l2_reduction_sectors >= 0);
  std::filesystem::remove(raw);
}

TEST_CASE("ncu: the L2's reads from L1 and their hits are read where the raw page has both, and checked") {
  const std::string source = kFix + "/ncu_launched_twice/ncu_source.csv.xz";
  const std::string raw = raw_with_first_launch({{"lts__t_sectors_srcunit_tex_op_read.sum", "67"}, {"lts__t_sectors_srcunit_tex_op_read_lookup_hit.sum", "1"}});
  Application app = load(std::vector<std::string>{source, raw});
  const ProfiledTraffic& t = app.kernels[0].profiled_traffic;
  REQUIRE(t.l2_read_from_l1_sectors.has_value());
  CHECK(*t.l2_read_from_l1_sectors == 67);
  CHECK(*t.l2_read_from_l1_hit_sectors == 1);
  CHECK_FALSE(app.kernels[1].profiled_traffic.l2_read_from_l1_sectors.has_value());
  const std::string one = raw_with_first_launch({{"lts__t_sectors_srcunit_tex_op_read.sum", "67"}});
  CHECK_FALSE(load(std::vector<std::string>{source, one}).kernels[0].profiled_traffic.l2_read_from_l1_sectors.has_value());
  const std::string bad = raw_with_first_launch({{"lts__t_sectors_srcunit_tex_op_read.sum", "-1"}, {"lts__t_sectors_srcunit_tex_op_read_lookup_hit.sum", "1"}});
  CHECK_THROWS_WITH(load(std::vector<std::string>{source, bad}),
                    doctest::Contains("column 'lts__t_sectors_srcunit_tex_op_read.sum': expected a non-negative sector count, found '-1'"));
  std::filesystem::remove(raw);
}

TEST_CASE("ncu: the instructions' spread over the sub-partitions is read where the raw page has it, and checked") {
  const std::string source = kFix + "/ncu_launched_twice/ncu_source.csv.xz";
  const std::string raw = raw_with_first_launch({{"smsp__inst_executed.max", "3,490"}, {"smsp__inst_executed.avg", "1,000"}});
  Application app = load(std::vector<std::string>{source, raw});
  REQUIRE(app.kernels.size() == 18);
  const ProfiledTraffic& t = app.kernels[0].profiled_traffic;
  CHECK(t.busiest_subpartition_instructions == 3490);
  CHECK(t.mean_subpartition_instructions == 1000);
  CHECK(t.sms == 132);
  const std::string bad = raw_with_first_launch({{"smsp__inst_executed.max", "900"}, {"smsp__inst_executed.avg", "1,000"}});
  CHECK_THROWS_WITH(load(std::vector<std::string>{source, bad}),
                    doctest::Contains("column 'smsp__inst_executed.max': expected the busiest sub-partition's instructions, at least their mean (1,000), found '900'"));
  const std::string negative = raw_with_first_launch({{"launch__sm_count", "-1"}});
  CHECK_THROWS_WITH(load(std::vector<std::string>{source, negative}), doctest::Contains("column 'launch__sm_count': expected a non-negative count, found '-1'"));
  std::filesystem::remove(negative);
  std::filesystem::remove(raw);
}

TEST_CASE("ncu base names agree across the pages' spellings of anonymous namespaces") {
  const std::string source = "void at::native::<unnamed>::cunn_SoftMaxForward<(int)4, float, float, float, "
                             "at::native::<unnamed>::LogSoftMaxForwardEpilogue>(T4 *, const T2 *, int)";
  const std::string raw = "void unnamed>::cunn_SoftMaxForward<4, float, float, float, unnamed>::LogSoftMaxForwardEpilogue>(T4 *, const T2 *, int)";
  CHECK(ncu_base_name(source) == "cunn_SoftMaxForward");
  CHECK(ncu_base_name(raw) == "cunn_SoftMaxForward");
  // A template argument from an anonymous namespace: on the raw page "<unnamed>" follows the
  // identifier, the template's '<' and the abbreviation (H200 torchlib/misc failed the join).
  const std::string cat_source = "void at::native::<unnamed>::CatArrayBatchedCopy_vectorized<at::native::<unnamed>::OpaqueType<(unsigned int)4>, "
                                 "unsigned int, (int)2, (int)128, (int)1, (int)16, (int)4>(char *, at::native::<unnamed>::CatArrInputTensorMetadata<T1, T2, T4, T5>, "
                                 "at::native::<unnamed>::TensorSizeStride<T2, (unsigned int)4>, int, T2)";
  const std::string cat_raw = "void unnamed>::CatArrayBatchedCopy_vectorized<unnamed>::OpaqueType<4>, unsigned int, 2, 128, 1, 16, 4>(char *, "
                              "unnamed>::CatArrInputTensorMetadata<T1, T2, T4, T5>, unnamed>::TensorSizeStride<T2, 4>, int, T2)";
  CHECK(ncu_base_name(cat_source) == "CatArrayBatchedCopy_vectorized");
  CHECK(ncu_base_name(cat_raw) == "CatArrayBatchedCopy_vectorized");
}

// The scanners' eight-digits-at-a-time and one-digit fast paths against the plain loops they
// replaced (kept here as the reference): the same value, the same end position, or the same
// error at the same column, on edge cases and on random tokens.
namespace {
struct Scanned {
  std::uint64_t value = 0;
  std::size_t pos = 0;
  std::string error;
  bool operator==(const Scanned& o) const { return value == o.value && pos == o.pos && error == o.error; }
};
const std::string kScanFile = "scan.traceg";
template <class F>
Scanned scan_with(const std::string& line, F f) {
  scan::Cursor c{line, 0, &kScanFile, 7};
  Scanned r;
  try {
    r.value = f(c);
    r.pos = c.pos;
  } catch (const ParseError& e) {
    r.error = e.what();
  }
  return r;
}
std::uint64_t reference_hex(scan::Cursor& c) {
  c.skip_ws();
  std::size_t s = c.pos;
  if (c.pos + 1 < c.line.size() && c.line[c.pos] == '0' && (c.line[c.pos + 1] == 'x' || c.line[c.pos + 1] == 'X')) c.pos += 2;
  std::uint64_t v = 0;
  std::size_t digits = 0;
  while (c.pos < c.line.size()) {
    unsigned d = scan::Cursor::hex_digit(static_cast<unsigned char>(c.line[c.pos]));
    if (d > 15) break;
    v = (v << 4) | d;
    ++c.pos;
    ++digits;
  }
  if (digits == 0 || digits > 16 || (c.pos < c.line.size() && c.line[c.pos] != ' ' && c.line[c.pos] != '\t')) c.fail("a hexadecimal number", s);
  return v;
}
std::uint64_t reference_integer(scan::Cursor& c) {
  c.skip_ws();
  std::size_t s = c.pos;
  if (c.pos + 1 < c.line.size() && c.line[c.pos] == '0' && (c.line[c.pos + 1] == 'x' || c.line[c.pos + 1] == 'X')) return reference_hex(c);
  std::int64_t v = 0;
  auto r = std::from_chars(c.line.data() + c.pos, c.line.data() + c.line.size(), v, 10);
  if (r.ec != std::errc() || (r.ptr < c.line.data() + c.line.size() && *r.ptr != ' ' && *r.ptr != '\t')) c.fail("an integer", s);
  c.pos = static_cast<std::size_t>(r.ptr - c.line.data());
  return static_cast<std::uint64_t>(v);
}
}  // namespace

TEST_CASE("text scanners: hexadecimal and decimal edge cases match the plain loops") {
  auto hex = [](const std::string& l) { return scan_with(l, [](scan::Cursor& c) { return c.hex(); }); };
  auto ref_hex = [](const std::string& l) { return scan_with(l, reference_hex); };
  auto dec = [](const std::string& l) { return scan_with(l, [](scan::Cursor& c) { return static_cast<std::uint64_t>(c.integer()); }); };
  auto ref_dec = [](const std::string& l) { return scan_with(l, reference_integer); };
  // Three numbers by hex_list against three by the plain loop (the values folded into one).
  auto hex3 = [](const std::string& l) {
    return scan_with(l, [](scan::Cursor& c) {
      std::uint64_t v[3];
      c.hex_list(3, v);
      return v[0] * 3 + v[1] * 5 + v[2] * 7;
    });
  };
  auto ref_hex3 = [](const std::string& l) {
    return scan_with(l, [](scan::Cursor& c) {
      std::uint64_t v0 = reference_hex(c), v1 = reference_hex(c), v2 = reference_hex(c);
      return v0 * 3 + v1 * 5 + v2 * 7;
    });
  };
  // Values and where the cursor stops.
  CHECK(hex("0x00007f7600000000 5").value == 0x00007f7600000000ull);
  CHECK(hex("0x00007f7600000000 5").pos == 18);
  CHECK(hex("ffffffffffffffff").value == ~0ull);          // 16 digits: two blocks of eight
  CHECK(hex("0XaBcDeF01").value == 0xabcdef01ull);        // one block, mixed case
  CHECK(hex("  00a0\t1").value == 0xa0);                   // short tail, leading blanks, tab after
  CHECK(hex("123456789").value == 0x123456789ull);        // a block and a one-digit tail
  CHECK(dec("7 R1").value == 7);
  CHECK(dec("7").pos == 1);
  CHECK(dec("-3 x").value == static_cast<std::uint64_t>(-3));
  CHECK(dec("0x10").value == 16);
  // Errors name the file, line and the token's column, as before.
  CHECK(hex("00000000000000000 x").error == "scan.traceg:7:1: expected a hexadecimal number, found '00000000000000000 x'");  // 17 digits
  CHECK(hex("  0x").error == "scan.traceg:7:3: expected a hexadecimal number, found '0x'");
  CHECK(hex("0000zz03 0").error == "scan.traceg:7:1: expected a hexadecimal number, found '0000zz03 0'");
  CHECK(hex("12345678g").error == "scan.traceg:7:1: expected a hexadecimal number, found '12345678g'");  // junk right after a block
  CHECK(hex("").error == "scan.traceg:7:1: expected a hexadecimal number, found 'end of line'");
  CHECK(dec("7x").error == "scan.traceg:7:1: expected an integer, found '7x'");
  CHECK(dec(" 99999999999999999999").error.find("scan.traceg:7:2: expected an integer") == 0);
  // Every line below, and random ones, scan the same way as with the plain loops.
  const std::vector<std::string> edges = {"0", "0x0", "0x", "x", "g", " ", "\t5", "0123456789abcdef", "0123456789abcdef0", "0x0123456789ABCDEF",
                                          "0x0123456789ABCDEF1", "89abcdef 1", "89abcdef\x01", "1234567\x80", "ffffffff", "fffffffff", "-", "-0",
                                          "+1", "9223372036854775807", "9223372036854775808", "12 ", "1\t2", "5\x00",
                                          // Tokens with 16 bytes of line after them (read eight digits at a time).
                                          "0x7f754a00003c 0x7f754a002000 0", "0x8a4 0x8a8 0x8ac 0x8b0 0x8b4", "0XaBcDeF01\t0x0000000000000000",
                                          "0123456789abcdef 0123456789", "0123456789abcdef0 123456789", "12345678 123456789abcdef",
                                          "0x12345678g 0x1234567890", "0x1234\x80 0x12345678901234", "0x1234\x01 0x12345678901234",
                                          "0x 0x1234567890123456789", "0x0000000000000000 00000000000", "fffffffffffffff, 0x0123456789",
                                          "0x123456789abcdefg 0x1234567", "0x0:1 0x12345678901234567890"};
  for (auto& l : edges) {
    CAPTURE(l);
    CHECK(hex(l) == ref_hex(l));
    CHECK(dec(l) == ref_dec(l));
    CHECK(hex3(l) == ref_hex3(l));
  }
  CHECK(hex3("0x7f754a00003c 0x800\t0x8a4 0").value == 0x7f754a00003cull * 3 + 0x800 * 5 + 0x8a4 * 7);
  CHECK(hex3("0x7f754a00003c 0x800\t0x8a4 0").pos == 26);
  CHECK(hex3("0x10 0x20 0x3g0 5").error == "scan.traceg:7:11: expected a hexadecimal number, found '0x3g0 5'");
  std::uint64_t seed = 12345;
  auto rnd = [&]() { return (seed = seed * 6364136223846793005ull + 1442695040888963407ull) >> 33; };
  const std::string alphabet = "0123456789abcdefABCDEFxX -\tgz";
  for (int t = 0; t < 20000; ++t) {
    std::string l;
    for (std::uint64_t n = rnd() % 40; n > 0; --n) l.push_back(alphabet[rnd() % alphabet.size()]);
    CAPTURE(l);
    CHECK(hex(l) == ref_hex(l));
    CHECK(dec(l) == ref_dec(l));
    CHECK(hex3(l) == ref_hex3(l));
  }
}

TEST_CASE("line readers reuse one spare buffer: many files read in turn give the same lines") {
  const std::string a = tmp_path("reuse_a.txt"), b = tmp_path("reuse_b.txt");
  write_file(a, std::string(3 << 20, 'x') + "\nend a\n");  // a long line grows the first reader's buffer
  write_file(b, "one\ntwo");
  for (int round = 0; round < 3; ++round) {
    std::vector<std::string> lines;
    for (auto* p : {&a, &b}) {
      LineReader lr(*p);
      std::string_view l;
      while (lr.next(l)) lines.emplace_back(l);
    }
    REQUIRE(lines.size() == 4);
    CHECK(lines[0].size() == (3u << 20));
    CHECK(lines[1] == "end a");
    CHECK(lines[2] == "one");
    CHECK(lines[3] == "two");
  }
  std::filesystem::remove(a);
  std::filesystem::remove(b);
}

TEST_CASE("input format registry: every format claims its own fixture and no other format does") {
  // One sample per registered format; a format added without one fails here.
  const std::map<std::string, std::string> fixture = {
      {"accelsim_kernel", kAs + "/v5_modes.traceg"},
      {"accelsim_kernelslist", kAs + "/kernelslist.g"},
      {"pptgpu_app_config", kFix + "/formats/pptgpu_app/app_config.py"},
      {"ncu_source", kFix + "/devsample/ncu_source.csv.xz"},
      {"ncu_raw", kFix + "/devsample/ncu_raw.csv.xz"},
      {"ncu_details", kFix + "/formats/ncu_details.csv"},
      {"sass_listing", kFix + "/devsample/devkernels_sm90.cuobjdump.sass.xz"},
      {"ncu_source_lines", kFix + "/lineinfo/ncu_source_cuda_sass.csv.xz"},
      {"cta_counts", kFix + "/formats/cta_counts/cta_counts.tsv"},
  };
  std::set<std::string> ids, names;
  for (const auto& f : input_formats()) {
    CAPTURE(f.id);
    CHECK(ids.insert(std::string(f.id)).second);
    CHECK(names.insert(std::string(f.name)).second);
    REQUIRE((f.sniff != nullptr));
    REQUIRE((f.read != nullptr));
    CHECK(find_input_format(f.id) == &f);
    auto it = fixture.find(std::string(f.id));
    REQUIRE_MESSAGE(it != fixture.end(), "no fixture for input format ", f.id);
    CHECK(detect_file(it->second) == &f);
    std::string bytes = peek_text(it->second, kSniffBytes);
    for (const auto& other : input_formats()) {
      CAPTURE(other.id);
      CHECK(other.sniff(file_head(bytes)) == (&other == &f));
    }
  }
  CHECK(ids.size() == fixture.size());
  CHECK(detect_file(kAs + "/empty.traceg") == nullptr);
  CHECK(detect_kind(kFix + "/devsample/README.md") == "unknown");
}

TEST_CASE("input format registry: a folder is its kernelslist or app_config.py, else its files") {
  CHECK(find_input_format("accelsim_kernelslist")->folder_input(kAs) == kAs + "/kernelslist.g");
  CHECK(find_input_format("pptgpu_app_config")->folder_input(kFix + "/formats/pptgpu_app") == kFix + "/formats/pptgpu_app/app_config.py");
  CHECK(!find_input_format("pptgpu_app_config")->folder_input(kAs));
  Application app = load(kFix + "/formats/pptgpu_app");
  REQUIRE(app.kernels.size() == 1);
  CHECK(app.kernels[0].launch.grid.x == 8);
  CHECK(app.kernels[0].format == SourceFormat::pptgpu);
}

TEST_CASE("compressed input: bytes of the file taken by the decoder, for progress") {
  // The first read of a compressed file (1 MB, all of this 37 kB .xz) went uncounted, so progress
  // showed '0 kB of 38 kB read' throughout.
  const std::string f = std::string(GPUPERF_TEST_DIR) + "/data/h200/devsample/kernel-42.traceg.xz";
  ByteSource src(f);
  CHECK(src.compression() == Compression::xz);
  CHECK(src.compressed_consumed() < src.file_size());  // the decoder has taken nothing yet
  std::vector<char> buf(1 << 20);
  std::uint64_t text = src.read(buf.data(), buf.size());
  CHECK(src.compressed_consumed() > 0);
  while (std::size_t n = src.read(buf.data(), buf.size())) text += n;
  CHECK(src.compressed_consumed() == src.file_size());
  CHECK(src.decompressed() == text);
  CHECK(text == 106943520);  // xz -dc | wc -c
}

// tests/fixtures/pptgpu/bounds_loop (make_fixture.py): a PPT-GPU trace as the tracer writes it.
// The SASS trace is CTA 2's (warp slots 8..11, lines interleaved as the warps issued them);
// every CTA has a memory file. The reader used to read block_0.mem alone and pair its records
// warp after warp, so CTA 0's addresses went to the wrong instructions and stopped matching.
static std::uint64_t ppt_load_addr(std::uint64_t cta, std::uint64_t w, std::uint64_t lane, std::uint64_t it) {
  return 0x7f0000000000ull + 4 * (cta * 128 + w * 32 + lane + it * 512);
}

TEST_CASE("PPT-GPU: every CTA's memory file read, the traced CTA's records paired in issue order") {
  Application app = load(kFix + "/pptgpu/bounds_loop");
  REQUIRE(app.kernels.size() == 1);
  const Kernel& k = app.kernels[0];
  CHECK(k.launch.grid.x == 4);
  CHECK(k.launch.block.x == 128);
  CHECK(k.traced_ctas == 4);  // CTA 2 (traced) and CTAs 0, 1, 3 replayed with their own addresses
  REQUIRE(k.warps.size() == 16);
  CHECK(k.dyn.size() == 16 * 39);
  for (std::uint32_t w = 0; w < 4; ++w) {
    const WarpStream& ws = k.warps[w];
    CHECK(ws.cta.x == 2);
    CHECK(ws.warp_in_cta == w);  // hardware slot 8 + w
    REQUIRE(ws.end - ws.begin == 39);
    for (std::uint64_t it = 0; it < 6; ++it) {
      const DynInstr& d = k.dyn[ws.begin + 7 + 5 * it];
      REQUIRE(k.program[d.static_index].opcode == "LDG.E");
      REQUIRE(d.addr_count == 32);
      CHECK(d.mem_width == 4);
      CHECK(k.lane_addresses(d)[0] == ppt_load_addr(2, w, 0, it));
      CHECK(k.lane_addresses(d)[31] == ppt_load_addr(2, w, 31, it));
    }
    const DynInstr& st = k.dyn[ws.begin + 37];
    REQUIRE(k.program[st.static_index].opcode == "STG.E");
    REQUIRE(st.addr_count == 32);
    CHECK(k.lane_addresses(st)[0] == 0x7f1000000000ull + 4 * (2 * 128 + w * 32));
  }
  // CTA 0, issued in another order: its own addresses, each load once.
  std::vector<std::uint64_t> got, want;
  for (std::uint32_t w = 4; w < 8; ++w) {
    CHECK(k.warps[w].cta.x == 0);
    for (auto i = k.warps[w].begin; i < k.warps[w].end; ++i)
      if (k.program[k.dyn[i].static_index].opcode == "LDG.E") {
        REQUIRE(k.dyn[i].addr_count == 32);
        got.push_back(k.lane_addresses(k.dyn[i])[0]);
      }
  }
  for (std::uint64_t w = 0; w < 4; ++w)
    for (std::uint64_t it = 0; it < 6; ++it) want.push_back(ppt_load_addr(0, w, 0, it));
  std::sort(got.begin(), got.end());
  std::sort(want.begin(), want.end());
  CHECK(got == want);
  for (auto& w : k.warnings) {
    CHECK(w.find("no record") == std::string::npos);
    CHECK(w.find("in order") == std::string::npos);
  }
}

TEST_CASE("PPT-GPU: a predicated EXIT that warps pass does not end them") {
  Application app = load(kFix + "/pptgpu/bounds_loop");
  const Kernel& k = app.kernels[0];
  const WarpStream& ws = k.warps[0];
  const DynInstr& bounds_exit = k.dyn[ws.begin + 4];  // @P0 EXIT: every warp goes on
  REQUIRE(k.program[bounds_exit.static_index].opcode == "EXIT");
  CHECK(bounds_exit.active_mask == 0);
  CHECK(k.program[bounds_exit.static_index].warp_executed == 16);  // 4 warps x 4 CTAs
  CHECK(k.program[bounds_exit.static_index].pred_on_thread_executed == 0);
  const DynInstr& last = k.dyn[ws.end - 1];
  REQUIRE(k.program[last.static_index].opcode == "EXIT");
  CHECK(last.active_mask == 0xffffffffu);
  CHECK(k.program[last.static_index].pred_on_thread_executed == 16 * 32);
  // Warps that retired at the first EXIT issued 5 of their 39 instructions, while the counts
  // gave all 39: on a large grid the kernel came out below its own issue bound (IPC above the
  // four schedulers of an SM).
  std::string dir = tmp_path("ppt_large_grid");
  std::filesystem::remove_all(dir);
  std::filesystem::copy(kFix + "/pptgpu/bounds_loop", dir, std::filesystem::copy_options::recursive);
  std::string cfg = slurp(dir + "/app_config.py");
  cfg.replace(cfg.find(": 4,"), 4, ": 100000,");
  write_file(dir + "/app_config.py", cfg);
  Application big = load(dir);
  std::filesystem::remove_all(dir);
  REQUIRE(big.kernels[0].launch.grid.x == 100000);
  auto tables = Tables::load_default();
  for (const char* gpu : {"a100", "h100"}) {
    Predictor p{std::make_shared<const Kernel>(big.kernels[0])};
    PredictOptions o;
    o.mode = ModelMode::simulation;
    KernelReport r = p.predict(GpuSpec::from_catalog(tables, gpu), o);
    CAPTURE(gpu);
    CHECK(r.warp_instructions == doctest::Approx(100000.0 * 4 * 39));
    CHECK(r.bounds.issue > 0);
    CHECK(r.cycles >= r.bounds.issue);
    CHECK(r.ipc <= 4.0);
  }
}

TEST_CASE("PPT-GPU: an ALU kernel behind a bounds check is not predicted below its issue bound") {
  // 8 warps pass `if (i >= n) return;` and issue 200 independent FFMAs each. With every warp
  // retired at the bounds check, the simulated rounds held 3 instructions a warp while the
  // counts held 203: the prediction fell far below the issue bound.
  std::string dir = tmp_path("ppt_alu");
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir + "/sass_traces");
  write_file(dir + "/app_config.py",
             "kernel_1 = {\n\t\"kernel_name\"\t: \"alu\",\n\t\"num_registers\"\t: 80,\n\t\"shared_mem_bytes\"\t: 0,\n"
             "\t\"grid_size\"\t: 100000,\n\t\"block_size\"\t: 256,\n\t\"cuda_stream_id\"\t: 0\n}\n");
  std::vector<std::string> body{"S2R R0", "ISETP.GE.AND P0 R0 R5", "EXIT"};
  for (int i = 0; i < 200; ++i) body.push_back("FFMA R" + std::to_string(8 + i % 64) + " R1 R2 R3");
  body.push_back("EXIT");
  std::string sass;
  for (auto& b : body)
    for (int w = 0; w < 8; ++w) sass += std::to_string(16 + w) + " " + b + " \n";
  write_file(dir + "/sass_traces/kernel_1.sass", sass);
  Application app = load(dir);
  std::filesystem::remove_all(dir);
  const Kernel& k = app.kernels[0];
  REQUIRE(k.warps.size() == 8);
  CHECK(k.dyn[k.warps[0].begin + 2].active_mask == 0);
  auto tables = Tables::load_default();
  for (const char* gpu : {"a100", "h100"}) {
    Predictor p{std::make_shared<const Kernel>(k)};
    PredictOptions o;
    o.mode = ModelMode::simulation;
    KernelReport r = p.predict(GpuSpec::from_catalog(tables, gpu), o);
    CAPTURE(gpu);
    CHECK(r.warp_instructions == doctest::Approx(100000.0 * 8 * 204));
    CHECK(r.cycles >= r.bounds.issue);
    CHECK(r.ipc <= 4.0);
  }
}

// Nsight Compute 2025.3.1 exports of lineinfo_kernels.cu (tests/data/lineinfo, -lineinfo, sm_90,
// H100): the SASS page and raw page give the counts, the page printed as cuda,sass the lines.
TEST_CASE("ncu CUDA-with-SASS page: each instruction's CUDA file and line, joined by name and instructions") {
  const std::string li = kFix + "/lineinfo/";
  const std::vector<std::string> counts = {li + "ncu_source_sass.csv.xz", li + "ncu_raw.csv.xz"};
  auto with_lines = counts;
  with_lines.push_back(li + "ncu_source_cuda_sass.csv.xz");
  Application plain = load(counts), app = load(with_lines);
  REQUIRE(app.kernels.size() == 2);
  for (auto& s : plain.kernels[0].program) CHECK(s.source_line == 0);  // the SASS page has no lines
  auto at = [](const Kernel& k, const std::string& opcode) -> const StaticInstr& {
    for (auto& s : k.program)
      if (s.opcode.rfind(opcode, 0) == 0 || s.text.find(opcode) != std::string::npos) return s;
    FAIL("no " << opcode);
    return k.program.front();
  };
  auto file_of = [](const StaticInstr& s) { return std::filesystem::path(s.source_file).filename().string(); };
  const Kernel& scale = app.kernels[0];
  CHECK(scale.launch.name == "scale_shift(const float *, float *, int, float, float)");
  CHECK(scale.warnings.empty());
  CHECK((file_of(at(scale, "LDG")) == "lineinfo_kernels.cu" && at(scale, "LDG").source_line == 11));   // float x = in[i];
  CHECK((file_of(at(scale, "STG")) == "lineinfo_kernels.cu" && at(scale, "STG").source_line == 13));   // out[i] = y;
  CHECK((file_of(at(scale, "FFMA")) == "lineinfo_helpers.cuh" && at(scale, "FFMA").source_line == 7));  // inlined y = y + b
  // Listed under the call (line 12) and under the header: the inlined line, as nvdisasm -gi.
  CHECK((file_of(at(scale, "ULDC UR6")) == "lineinfo_helpers.cuh" && at(scale, "ULDC UR6").source_line == 7));
  CHECK(at(scale, "LDC").source_line == 8);   // the entry: the kernel's first line
  const Kernel& sum = app.kernels[1];
  CHECK(at(sum, "STS").source_line == 19);
  CHECK(at(sum, "BAR").source_line == 20);
  for (auto& s : sum.program)
    if (s.opcode != "NOP") CHECK_MESSAGE(s.source_line > 0, s.text);  // every instruction but the padding has a line
  // The same lines as the nvdisasm -gi listing of the same source gives (it names the inlined
  // header line first, as the page does).
  Application listing = load(std::vector<std::string>{li + "lineinfo.nvdisasm.sass.xz"});
  std::size_t compared = 0, same = 0;
  for (const Kernel& l : listing.kernels) {
    const Kernel& k = l.launch.name.find("scale") != std::string::npos ? scale : sum;
    std::map<std::uint64_t, const StaticInstr*> by_offset;
    for (auto& s : k.program) by_offset[s.pc - k.program.front().pc] = &s;
    for (auto& s : l.program) {
      auto it = by_offset.find(s.pc - l.program.front().pc);
      if (it == by_offset.end() || !s.source_line || s.opcode == "NOP") continue;
      ++compared;
      const bool eq = s.source_line == it->second->source_line && file_of(s) == file_of(*it->second);
      CHECK_MESSAGE(eq, s.text << " listing " << file_of(s) << ":" << s.source_line << " page " << file_of(*it->second) << ":" << it->second->source_line);
      same += eq;
    }
  }
  CHECK(compared >= 60);
  CHECK(same == compared);
  // A page of another program joins nothing, with a warning.
  std::vector<FunctionSourceLines> other = read_ncu_source_lines(li + "ncu_source_cuda_sass.csv.xz");
  for (auto& f : other) f.name = "other_kernel(int)";
  Kernel copy = plain.kernels[0];
  CHECK_FALSE(attach_source_lines(copy, copy.launch.name, other));
  auto pages = read_ncu_source_lines(li + "ncu_source_cuda_sass.csv.xz");
  REQUIRE(pages.size() == 2);
  for (auto& [off, line] : pages[0].by_offset) line.opcode = "IMAD";  // the same name, other instructions
  CHECK_FALSE(attach_source_lines(copy, copy.launch.name, {pages[0]}));
}

TEST_CASE("ncu CUDA-with-SASS page: bad input names the file and line") {
  auto bad = [](const std::string& text) {
    std::string p = (std::filesystem::temp_directory_path() / "gpuperf_lines_bad.csv").string();
    std::ofstream(p) << text;
    try {
      read_ncu_source_lines(p);
    } catch (const ParseError& e) {
      std::filesystem::remove(p);
      return std::string(e.what());
    }
    std::filesystem::remove(p);
    return std::string("no error");
  };
  const std::string head = "\"File Path\",\"/a.cu\"\n\"Function Name\",\"k(int)\"\n\"Line No\",\"Source\",\"Address\",\"Source\",\"Instructions Executed\"\n";
  CHECK(bad(head + "\"x\",\"int i;\",\"-\",\"-\",\"1\"\n").find(":4:") != std::string::npos);
  CHECK(bad(head + "\"x\",\"int i;\",\"-\",\"-\",\"1\"\n").find("expected a source line number, found 'x'") != std::string::npos);
  CHECK(bad(head + "\"\",\"\",\"0x10\",\"FFMA R1, R1, R1, R1\",\"1\"\n").find("expected a CUDA source line row before the instruction at 0x10") != std::string::npos);
  CHECK(bad(head + "\"3\",\"int i;\",\"-\",\"-\",\"1\"\n\"\",\"\",\"0xZZ\",\"FFMA\",\"1\"\n").find("expected a hexadecimal instruction address, found '0xZZ'") != std::string::npos);
  CHECK(bad("\"File Path\",\"/a.cu\"\n\"3\",\"int i;\",\"-\",\"-\"\n").find("expected '\"File Path\"', '\"Function Name\"' and a") != std::string::npos);
  CHECK(bad("\"File Path\",\"/a.cu\"\n").find("expected at least one '\"Function Name\"' section") != std::string::npos);
}


// gpuperf's tracer counts every CTA's warp instructions, traced or not.
TEST_CASE("per-CTA counts: a trace header's run-length list, written back as read") {
  const std::string dir = kFix + "/formats/cta_counts";
  std::string text;
  {
    std::ifstream in(dir + "/sampled.traceg");
    std::stringstream ss;
    ss << in.rdbuf();
    text = ss.str();
  }
  const std::string with = std::regex_replace(text, std::regex("-cta sampling = first 2\n"), "-cta sampling = first 2\n-cta warp instructions = 3 5 4 4*1 9 3\n");
  const auto tmp = std::filesystem::temp_directory_path() / "gpuperf_test_cta_work_header.traceg";
  { std::ofstream(tmp) << with; }
  Kernel k = AccelSimKernelReader::read(tmp.string());
  CHECK(k.cta_work == std::vector<CtaWorkRun>{{3, 1}, {5, 1}, {4, 2}, {9, 1}, {3, 1}});  // equal neighbours merge
  CHECK(format_cta_work(k.cta_work) == "3 5 4*2 9 3");
  CHECK(cta_work_of(k.cta_work, 4) == 9);
  CHECK(linear_cta(Dim3{1, 1, 0}, k.launch.grid) == 4);
  const auto back = std::filesystem::temp_directory_path() / "gpuperf_test_cta_work_back.traceg";
  write_traceg(k, back.string());
  CHECK(AccelSimKernelReader::read(back.string()).cta_work == k.cta_work);
  // A list that does not cover the grid, or a token that is no count, names its place.
  for (auto [list, col, what] : {std::tuple<std::string, int, std::string>{"3 5 4*2 9", 26, "expected warp instructions for the grid's 6 CTAs, found 5"},
                                 {"3 5 4*2 9 3 1", 38, "expected warp instructions for the grid's 6 CTAs, found more"},
                                 {"3 5 x 9", 30, "expected a CTA's warp instructions as 'count' or 'count*ctas', found 'x'"},
                                 {"3 5*0 4", 30, "expected a number of CTAs (1 or more) after '*', found '5*0'"}}) {
    CAPTURE(list);
    { std::ofstream(tmp) << std::regex_replace(text, std::regex("-cta sampling = first 2\n"), "-cta sampling = first 2\n-cta warp instructions = " + list + "\n"); }
    try {
      AccelSimKernelReader::read(tmp.string());
      FAIL("accepted a bad per-CTA list");
    } catch (const ParseError& e) {
      CHECK(e.line() == 12);
      CHECK(e.column() == static_cast<std::uint32_t>(col));
      CHECK(std::string(e.what()).find(what) != std::string::npos);
    }
  }
  std::filesystem::remove(tmp);
  std::filesystem::remove(back);
}

TEST_CASE("per-CTA counts: cta_counts.tsv joins the trace of the same launch, and says where it does not") {
  const std::string dir = kFix + "/formats/cta_counts";
  auto runs = read_cta_counts(dir + "/cta_counts.tsv");
  REQUIRE(runs.size() == 2);
  CHECK(runs[0].launch_id == 3);
  CHECK(runs[0].kernel == "_Z4workPi");
  CHECK(runs[0].grid == Dim3{3, 2, 1});
  CHECK(runs[1].runs == std::vector<CtaWorkRun>{{7, 1}});
  Application app = load(std::vector<std::string>{dir + "/sampled.traceg", dir + "/cta_counts.tsv"});
  REQUIRE(app.kernels.size() == 1);
  const Kernel& k = app.kernels[0];
  CHECK(format_cta_work(k.cta_work) == "3 5 4*2 9 3");
  // The traced CTAs' own counts (3 and 5) agree: no note.
  CHECK(std::none_of(k.warnings.begin(), k.warnings.end(), [](const std::string& w) { return w.find("per-CTA") != std::string::npos; }));
  // Counts from another run that disagree with the traced CTAs, of another kernel, or of another
  // grid: used with a note, or not used.
  const auto tmp = std::filesystem::temp_directory_path() / "gpuperf_test_cta_counts.tsv";
  auto note_with = [&](const std::string& line) {
    { std::ofstream(tmp) << "# gpuperf cta warp instructions/1: test\n" << line << "\n"; }
    Application a = load(std::vector<std::string>{dir + "/sampled.traceg", tmp.string()});
    std::string notes;
    for (auto& w : a.kernels.at(0).warnings)
      if (w.find("per-CTA") != std::string::npos) notes += w;
    return std::make_pair(notes, format_cta_work(a.kernels.at(0).cta_work));
  };
  auto [differ, used] = note_with("3\t_Z4workPi\t(3,2,1)\t3 6 4*4");
  CHECK(differ == "per-CTA counts at " + tmp.string() + ":2 differ from the trace for 1 of 2 traced CTAs (by up to 20 %): they come from another run; used as given");
  CHECK(used == "3 6 4*4");
  auto [other, unused] = note_with("3\t_Z5otherPi\t(3,2,1)\t3 5 4*4");
  CHECK(other.find("are of another kernel (_Z5otherPi); not used") != std::string::npos);
  CHECK(unused.empty());
  CHECK(note_with("3\t_Z4workPi\t(6,1,1)\t3 5 4*4").first.find("are of another grid; not used") != std::string::npos);
  CHECK(note_with("9\t_Z4workPi\t(3,2,1)\t3 5 4*4").first == "no per-CTA counts for launch 3 in " + tmp.string());
  // Bad lines name the file, line and what was expected.
  { std::ofstream(tmp) << "# gpuperf cta warp instructions/1: test\n3\t_Z4workPi\t(3,2,1)\n"; }
  CHECK_THROWS_WITH_AS(read_cta_counts(tmp.string()), doctest::Contains(":2:20: expected 4 tab-separated fields"), ParseError);
  { std::ofstream(tmp) << "# gpuperf cta warp instructions/2: test\n"; }
  CHECK_THROWS_WITH_AS(read_cta_counts(tmp.string()), doctest::Contains(":1:33: expected version 1"), ParseError);
  { std::ofstream(tmp) << "# gpuperf cta warp instructions/1: test\n0\tk\t(1,1,1)\t1\n"; }
  CHECK_THROWS_WITH_AS(read_cta_counts(tmp.string()), doctest::Contains(":2:1: expected a launch id"), ParseError);
  std::filesystem::remove(tmp);
}

// calibrate/tma_pipeline_probe.cu: an instrumented run retries an mbarrier wait many times (the
// producer's 46 passes a wait in its trace, 1.0 natively), each retry a pass of a short loop.
TEST_CASE("barrier polls: a trace keeps one pass of a retry loop per wait, and the per-CTA counts lose what it dropped") {
  const std::string head =
      "-kernel name = _Z4pollPi\n-kernel id = 1\n-grid dim = (3,1,1)\n-block dim = (32,1,1)\n-shmem = 0\n-nregs = 16\n-binary version = 90\n"
      "-cuda stream id = 0\n-accelsim tracer version = 5\n-traced ctas = 2\n-cta sampling = first 2\n-cta warp instructions = 12 7 19\n\n"
      "#traces format = [line_num] PC mask dest_num [reg_dests] opcode src_num [reg_srcs] mem_width [adrrescompress?] [mem_addresses] immediate\n\n";
  const std::string retry = "0010 ffffffff 0 YIELD 0 0\n0020 ffffffff 0 SYNCS.PHASECHK.TRANS64.TRYWAIT 3 P0 R2 R3 0 0\n0030 ffffffff 0 BRA 1 P0 0 0\n";
  // CTA 0 waits once, tried three times; CTA 1 waits twice in a loop that arrives on another
  // barrier between its waits: two waits, nothing to drop.
  const std::string text = head + "#BEGIN_TB\n\nthread block = 0,0,0\n\nwarp = 0\ninsts = 12\n0000 ffffffff 1 R2 IADD3 1 R2 0 0\n" + retry + retry + retry +
                           "0040 ffffffff 1 R2 IADD3 1 R2 0 0\n0050 ffffffff 0 EXIT 0 0 0\n#END_TB\n\n"
                           "#BEGIN_TB\n\nthread block = 1,0,0\n\nwarp = 0\ninsts = 7\n0000 ffffffff 1 R2 IADD3 1 R2 0 0\n"
                           "0100 ffffffff 0 SYNCS.PHASECHK.TRANS64.TRYWAIT 3 P0 R2 R3 0 0\n0110 ffffffff 0 BRA 1 P0 0 0\n"
                           "0120 ffffffff 0 SYNCS.ARRIVE.TRANS64.A1T0 2 R2 R3 0 0\n"
                           "0100 ffffffff 0 SYNCS.PHASECHK.TRANS64.TRYWAIT 3 P0 R2 R3 0 0\n0110 ffffffff 0 BRA 1 P0 0 0\n0050 ffffffff 0 EXIT 0 0 0\n#END_TB\n";
  const Application app = load_trace_text(text, "gpuperf_test_poll_retries.traceg");
  REQUIRE(app.kernels.size() == 1);
  const Kernel& k = app.kernels[0];
  REQUIRE(k.warps.size() == 2);
  CHECK(k.warps[0].end - k.warps[0].begin == 6);  // IADD3, one YIELD-poll-branch pass, IADD3, EXIT
  CHECK(k.warps[1].end - k.warps[1].begin == 7);
  std::map<std::uint64_t, std::uint64_t> executed;
  for (const auto& s : k.program) executed[s.pc] = s.warp_executed;
  CHECK(executed[0x10] == 1);
  CHECK(executed[0x20] == 1);
  CHECK(executed[0x30] == 1);
  CHECK(executed[0x100] == 2);
  CHECK(executed[0x0] == 2);
  CHECK(k.poll_retries.dropped_total == 6);
  // The traced CTAs' counts as traced; the untraced one keeps the traced CTAs' share, 13 of 19.
  CHECK(format_cta_work(k.cta_work) == "6 7 13");
  CHECK(std::any_of(k.warnings.begin(), k.warnings.end(), [](const std::string& w) { return w.find("dropped 6 warp instructions of repeated barrier polls") != std::string::npos; }));
  // A traced CTA read before the first poll keeps its own count; the untraced one the traced
  // CTAs' share (5 + 12 counted, 11 kept: 19 -> 12).
  const std::string later = head + "#BEGIN_TB\n\nthread block = 0,0,0\n\nwarp = 0\ninsts = 5\n" +
                            "0000 ffffffff 1 R2 IADD3 1 R2 0 0\n0000 ffffffff 1 R2 IADD3 1 R2 0 0\n0000 ffffffff 1 R2 IADD3 1 R2 0 0\n"
                            "0040 ffffffff 1 R2 IADD3 1 R2 0 0\n0050 ffffffff 0 EXIT 0 0 0\n#END_TB\n\n"
                            "#BEGIN_TB\n\nthread block = 1,0,0\n\nwarp = 0\ninsts = 12\n0000 ffffffff 1 R2 IADD3 1 R2 0 0\n" + retry + retry + retry +
                            "0040 ffffffff 1 R2 IADD3 1 R2 0 0\n0050 ffffffff 0 EXIT 0 0 0\n#END_TB\n";
  const Application app2 = load_trace_text(std::regex_replace(later, std::regex("warp instructions = 12 7 19"), "warp instructions = 5 12 19"),
                                           "gpuperf_test_poll_retries_later.traceg");
  CHECK(format_cta_work(app2.kernels.at(0).cta_work) == "5 6 12");
}

}  // namespace gpuperf_test_readers

namespace gpuperf_test_readers {

// The probe's 4-stage launch on an H200 (tests/data/h200/tma: its trace of 16 CTAs with every
// CTA's counts, from calibrate/tma_pipeline_probe.cu; its Nsight Compute pages beside them).
TEST_CASE("barrier polls: a traced TMA pipeline keeps about the hardware's instruction count") {
  const std::string d = std::string(GPUPERF_TEST_DIR) + "/data/h200/tma";
  const double hardware = 15521820;  // smsp__inst_executed.sum of the profiled launch (ncu_raw.csv.xz)
  const Application traced = load(std::vector<std::string>{d + "/kernel-2.traceg.xz", d + "/cta_counts.tsv"});
  REQUIRE(traced.kernels.size() == 1);
  double grid = 0;
  for (const auto& run : traced.kernels[0].cta_work) grid += static_cast<double>(run.warp_instructions) * static_cast<double>(run.ctas);
  CHECK(grid == doctest::Approx(hardware).epsilon(0.02));  // the instrumented run counted 18.5M
}

}  // namespace gpuperf_test_readers
