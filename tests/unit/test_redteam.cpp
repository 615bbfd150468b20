// Red-team reproductions (issue 14): each hostile input, generated small, ends in the exact
// error it should, or in a correct result. Every case failed (crash, hang, silent wrong
// value or lost file) before its fix.
#include <doctest/doctest.h>

#include <lzma.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <sstream>
#include <tuple>

#include "gpuperf/gpuperf.hpp"
#include "gpuperf/report/json_view.hpp"
#include "gpuperf/trace/accelsim_writer.hpp"

// Each test file has its own namespace: the unit tests compile as one unity build.
namespace gpuperf_test_redteam {

using namespace gpuperf;
namespace fs = std::filesystem;

static const std::string kFix = std::string(GPUPERF_TEST_DIR) + "/fixtures";
static const std::string kAs = kFix + "/accelsim";

namespace {

// A fresh directory per test case, removed at the end.
struct TempDir {
  std::string path;
  explicit TempDir(const std::string& name) {
    path = (fs::temp_directory_path() / ("gpuperf_redteam_" + std::to_string(::getpid()) + "_" + name)).string();
    fs::remove_all(path);
    fs::create_directories(path);
  }
  ~TempDir() {
    std::error_code ec;
    fs::remove_all(path, ec);
  }
  std::string operator/(const std::string& f) const { return path + "/" + f; }
};

void write_file(const std::string& p, const std::string& data) {
  std::ofstream out(p, std::ios::binary);
  out << data;
}

std::string slurp(const std::string& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

std::string error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const Error& e) {
    return e.what();
  }
  return "<no error>";
}

// A minimal ncu raw page: header, units row, one launch row, with `override` applied.
std::string ncu_raw(const std::map<std::string, std::string>& override, const std::vector<std::string>& drop = {},
                    std::size_t units_fields = 0) {
  std::vector<std::pair<std::string, std::string>> cols = {
      {"ID", "0"}, {"Kernel Name", "vecadd"}, {"CC", "9.0"},
      {"launch__grid_dim_x", "4096"}, {"launch__grid_dim_y", "1"}, {"launch__grid_dim_z", "1"},
      {"launch__block_dim_x", "256"}, {"launch__block_dim_y", "1"}, {"launch__block_dim_z", "1"},
      {"launch__registers_per_thread", "16"}, {"launch__shared_mem_per_block_static", "0"}};
  std::string h, u, r;
  std::size_t n = 0;
  for (auto& [k, v] : cols) {
    if (std::find(drop.begin(), drop.end(), k) != drop.end()) continue;
    auto it = override.find(k);
    std::string val = it == override.end() ? v : it->second;
    h += (n ? "," : "") + ("\"" + k + "\"");
    if (!units_fields || n < units_fields) u += (n ? "," : "") + std::string(k == "launch__shared_mem_per_block_static" ? "\"byte\"" : "\"\"");
    r += (n ? "," : "") + ("\"" + val + "\"");
    ++n;
  }
  return h + "\n" + u + "\n" + r + "\n";
}

std::string ncu_source(const std::string& executed) {
  return "\"Kernel Name\",\"vecadd\",\n"
         "\"Address\",\"Source\",\"Instructions Executed\",\"Thread Instructions Executed\"\n"
         "\"0x7f0000000000\",\"      LDC R1, c[0x0][0x28]\",\"" + executed + "\",\"1048576\"\n"
         "\"0x7f0000000010\",\"      EXIT\",\"32768\",\"1048576\"\n";
}

const char* kTraceHeader =
    "-kernel name = _Z6kernelPfS_\n-kernel id = 1\n-grid dim = (2,1,1)\n-block dim = (64,1,1)\n-shmem = 0\n-nregs = 16\n"
    "-binary version = 90\n-cuda stream id = 0\n-shmem base_addr = 0x00007f0000000000\n-local mem base_addr = 0x00007e0000000000\n"
    "-nvbit version = 1.7.7.1\n-accelsim tracer version = 5\n-enable lineinfo = 0\n";

}  // namespace

// ---- ncu raw page ---------------------------------------------------------------------

TEST_CASE("redteam: ncu raw units row shorter than its header is an error, not SIGSEGV") {
  TempDir d("units");
  write_file(d / "raw.csv", ncu_raw({}, {}, 3));
  CHECK(error_of([&] { read_ncu_raw(d / "raw.csv"); }) == d / "raw.csv" + ":2:1: expected 11 CSV fields in the units row, found 3");
}

TEST_CASE("redteam: ncu launch values are range-checked, never cast (registers -1 was SIGFPE)") {
  TempDir d("launch");
  auto err = [&](const std::map<std::string, std::string>& o, const std::vector<std::string>& drop = {}) {
    write_file(d / "raw.csv", ncu_raw(o, drop));
    return error_of([&] { read_ncu_raw(d / "raw.csv"); });
  };
  std::string f = d / "raw.csv";
  CHECK(err({{"launch__registers_per_thread", "-1"}}) == f + ":3:49: column 'launch__registers_per_thread': expected an integer in 0..255, found '-1'");
  CHECK(err({{"launch__grid_dim_x", "1e30"}}) == f + ":3:20: column 'launch__grid_dim_x': expected an integer in 1..2147483647, found '1e30'");
  CHECK(err({{"launch__grid_dim_y", "nan"}}) == f + ":3:27: column 'launch__grid_dim_y': expected an integer in 1..65535, found 'nan'");
  CHECK(err({{"ID", "inf"}}) == f + ":3:1: column 'ID': expected an integer in 0..4294967294, found 'inf'");
  CHECK(err({{"CC", "1e300"}}) == f + ":3:14: column 'CC': expected a compute capability like 9.0, found '1e300'");
  CHECK(err({{"launch__shared_mem_per_block_static", "1e30"}}) ==
        f + ":3:54: column 'launch__shared_mem_per_block_static': expected a shared-memory size in 0..262144 bytes, found '1e30'");
  CHECK(err({{"launch__block_dim_y", "8"}}) == f + ":3:35: expected at most 1024 threads per block, found 2048");
  // Missing block-size columns used to become a (1,1,1) block.
  CHECK(err({}, {"launch__block_dim_x", "launch__block_dim_y", "launch__block_dim_z"}) ==
        f + ":3:1: expected a value for launch__block_dim_x in the raw export (collect with --section LaunchStats)");
  write_file(f, ncu_raw({}));
  auto rows = read_ncu_raw(f);
  REQUIRE(rows.size() == 1);
  CHECK(rows[0].launch.block.count() == 256);
  CHECK(rows[0].launch.sm_version == 90);
}

TEST_CASE("redteam: ncu counts of inf, nan or negative are rejected, blanks stay 0") {
  TempDir d("counts");
  std::string f = d / "src.csv";
  for (const char* bad : {"inf", "nan", "-1", "1e300"}) {
    write_file(f, ncu_source(bad));
    CHECK(error_of([&] { read_ncu_source(f); }) == f + ":3:47: column 'Instructions Executed': expected a count in 0..2^53, found '" + bad + "'");
  }
  write_file(f, ncu_source("-"));
  auto secs = read_ncu_source(f);
  REQUIRE(secs.size() == 1);
  CHECK(secs[0].program[0].warp_executed == 0);
  CHECK(secs[0].program[1].warp_executed == 32768);
}

// ---- listings and the SASS tokeniser ---------------------------------------------------

TEST_CASE("redteam: a long hex offset in a memory operand does not overflow") {
  auto p = sass::parse_instruction_text("LDG.E R2, [R4.64+0xffffffffffffffffffffffffffff]");
  CHECK(p.mem_offset == 0);  // not an offset any SASS instruction can hold
  auto q = sass::parse_instruction_text("LDG.E R2, [R4.64+0x7fffffffff+0x7fffffffff+0x7fffffffff+0x7fffffffff]");
  CHECK(q.mem_offset == 4 * 0x7fffffffffll);
  auto r = sass::parse_instruction_text("LDG.E R2, [R4.64+0x10]");
  CHECK(r.mem_offset == 0x10);
}

// ---- special files, long lines, decompression bombs --------------------------------------

TEST_CASE("redteam: special files are refused by type before reading") {
  TempDir d("special");
  fs::create_directories(d / "adir.traceg");
  fs::copy_file(kAs + "/v5_modes.traceg", d / "v5_modes.traceg");
  write_file(d / "kernelslist.g", "v5_modes.traceg\nadir.traceg\n");
  // A kernelslist line naming a directory was 'internal error: std::bad_alloc'.
  CHECK(error_of([&] { load(d / "kernelslist.g"); }) == d / "adir.traceg: is a directory; expected a regular file");
  // A link to /dev/zero grew one line buffer without limit.
  fs::create_symlink("/dev/zero", d / "zero.traceg");
  write_file(d / "kernelslist.g", "v5_modes.traceg\nzero.traceg\n");
  CHECK(error_of([&] { load(d / "kernelslist.g"); }) == d / "zero.traceg: is a character device; expected a regular file");
  REQUIRE(::mkfifo((d / "fifo.traceg").c_str(), 0600) == 0);
  CHECK(error_of([&] { AccelSimKernelReader::read(d / "fifo.traceg"); }) == d / "fifo.traceg: is a FIFO; expected a regular file");
}

static std::string xz_compress(const std::function<bool(std::string&)>& next_chunk) {
  lzma_stream s = LZMA_STREAM_INIT;
  REQUIRE(lzma_easy_encoder(&s, 1, LZMA_CHECK_CRC32) == LZMA_OK);
  std::string out, chunk;
  std::vector<uint8_t> buf(1 << 16);
  bool more = true;
  while (more) {
    chunk.clear();
    more = next_chunk(chunk);
    s.next_in = reinterpret_cast<const uint8_t*>(chunk.data());
    s.avail_in = chunk.size();
    lzma_action a = more ? LZMA_RUN : LZMA_FINISH;
    for (;;) {
      s.next_out = buf.data();
      s.avail_out = buf.size();
      lzma_ret r = lzma_code(&s, a);
      out.append(reinterpret_cast<char*>(buf.data()), buf.size() - s.avail_out);
      if (r == LZMA_STREAM_END) break;
      REQUIRE(r == LZMA_OK);
      if (a == LZMA_RUN && s.avail_in == 0) break;
    }
  }
  lzma_end(&s);
  return out;
}

TEST_CASE("redteam: a line longer than the limit and an xz bomb end in clear errors") {
  TempDir d("bomb");
  // One 20 MiB line: the buffer used to grow with it (an xz of one endless line, 3 GB).
  int n = 0;
  write_file(d / "long.traceg.xz", xz_compress([&](std::string& c) { c.assign(1 << 20, 'a'); return ++n < 20; }));
  CHECK(error_of([&] { AccelSimKernelReader::read(d / "long.traceg.xz"); }) ==
        d / "long.traceg.xz:1:1: expected a line of at most 16 MiB, found a longer one (binary data or a decompression bomb?)");
  // 300 MiB of empty lines from a few KB of xz.
  n = 0;
  write_file(d / "bomb.traceg.xz", xz_compress([&](std::string& c) { c.assign(1 << 20, '\n'); return ++n < 300; }));
  std::string e = error_of([&] { AccelSimKernelReader::read(d / "bomb.traceg.xz"); });
  CHECK(e.find("decompresses to more than 5000 times its size") != std::string::npos);
  CHECK(e.find("refusing a likely decompression bomb") != std::string::npos);
}

TEST_CASE("redteam: a traced tight loop that compresses over 2000x is read, not refused as a bomb") {
  // A search loop whose every warp reads one address (bench/corpus/latency_kernels.cu's walk,
  // 16 CTAs of 16 warps traced): 514 MiB from 235 KiB of xz was refused at the old 1000x
  // limit. The same shape: the loop's lines, the load's 32 equal addresses moving one sector
  // every 16 iterations, 300 MiB in all.
  TempDir d("loop");
  std::string body;
  for (int pc = 0x1c0; pc < 0x230; pc += 16) body += "0" + std::to_string(pc / 16) + "0 ffffffff 1 R8 IMAD 3 R13 UR10 R6 0 0\n";
  std::uint64_t total = 0;
  std::uint64_t iteration = 0;
  write_file(d / "loop.traceg.xz", xz_compress([&](std::string& c) {
               char addr[32];
               for (int j = 0; j < 4096; ++j, ++iteration) {
                 std::snprintf(addr, sizeof addr, " 0x%llx", 0x7faf3a000000ull + iteration / 16 * 32);
                 c += body;
                 c += "0230 ffffffff 1 R8 LDG.E.64 1 R10 8 0";
                 for (int l = 0; l < 32; ++l) c += addr;
                 c += " 0\n0240 ffffffff 2 P0 P7 DSETP.GE.AND 3 R8 UR8 P7 0 0\n";
               }
               total += c.size();
               return total < (std::uint64_t(300) << 20);
             }));
  ByteSource src(d / "loop.traceg.xz");
  CHECK(total > 2000 * src.file_size());  // as repetitive as the real trace
  std::vector<char> buf(1 << 20);
  std::uint64_t read = 0;
  for (std::size_t n; (n = src.read(buf.data(), buf.size())) > 0;) read += n;
  CHECK(read == total);
}

// ---- PPT-GPU app_config.py ---------------------------------------------------------------

TEST_CASE("redteam: PPT-GPU app_config.py with an unclosed quote or impossible values") {
  TempDir d("ppt");
  fs::create_directories(d / "sass_traces");
  write_file(d / "sass_traces/kernel_1.sass", "0 MOV R1\n0 EXIT\n");
  // An unclosed quote in a value looped forever.
  write_file(d / "app_config.py", "kernel_1 = { \"kernel_name\": 'Kernel }\n");
  CHECK(error_of([&] { load(d.path); }) == d / "app_config.py:1:1: expected a closing quote in the value of 'kernel_name'");
  // stoull took -1 as 2^64-1, which became 4294967295 registers.
  write_file(d / "app_config.py", "kernel_1 = { \"kernel_name\": \"K\", \"num_registers\": -1, \"grid_size\": 8, \"block_size\": 64 }\n");
  CHECK(error_of([&] { load(d.path); }) == d.path + "/app_config.py:1:1: expected an integer in 0..255 for 'num_registers', found '-1'");
  write_file(d / "app_config.py", "kernel_1 = { \"kernel_name\": \"K\", \"grid_size\": 4294967297, \"block_size\": 64 }\n");
  CHECK(error_of([&] { load(d.path); }) == d.path + "/app_config.py:1:1: expected an integer in 1..2147483647 for 'grid_size', found '4294967297'");
  write_file(d / "app_config.py", "kernel_1 = { \"kernel_name\": \"K\", \"block_size\": 64 }\n");
  CHECK(error_of([&] { load(d.path); }) == d.path + "/app_config.py:1:1: expected 'grid_size' in kernel_1");
}

// ---- tables --------------------------------------------------------------------------------

TEST_CASE("redteam: a table carve-out of 1e30 is a check problem, and refused for predictions") {
  TempDir d("tables");
  auto shipped = Tables::load_default();
  std::string shipped_dir = shipped->search_path().back();
  fs::create_directories(d / "arch");
  json j = json::parse(slurp(shipped_dir + "/arch/sm_86.json"));
  j["cache"]["shared_carveouts_kib"]["value"][0] = 1e30;
  write_file(d / "arch/sm_86.json", j.dump(2));
  auto t = Tables::load({d.path, shipped_dir});  // used to be float-to-int undefined behaviour
  auto issues = t->check();
  REQUIRE(!issues.empty());
  CHECK(issues[0].message == "cache.shared_carveouts_kib: entry 1e+30 is not an integer in [0, 1024]");
  std::string e = error_of([&] { Tables::validated(t); });
  CHECK(e.find("latency tables rejected by `gpuperf tables check` (1 problem(s)):") == 0);
  CHECK(e.find("cache.shared_carveouts_kib: entry 1e+30") != std::string::npos);
  // A JSON type error names the file instead of escaping as an nlohmann exception.
  j = json::parse(slurp(shipped_dir + "/arch/sm_86.json"));
  j["inherits"] = 80;
  write_file(d / "arch/sm_86.json", j.dump(2));
  e = error_of([&] { Tables::load({d.path, shipped_dir}); });
  CHECK(e.find(d / "arch/sm_86.json: unexpected JSON content: ") == 0);
  // A mistyped --tables directory is an error, not silently ignored.
  CHECK(error_of([&] { Tables::load_default({d / "no_such_dir"}); }) == d / "no_such_dir: latency-table directory does not exist or is not a directory");
  // What `tables check` rejects is refused by load_default (used by report).
  CHECK(error_of([&] { Tables::load_default({kFix + "/tables_broken/bad_range"}); }).find("latency tables rejected by `gpuperf tables check`") == 0);
}

TEST_CASE("redteam: --set values out of range are errors (sms=2147483648 became one SM)") {
  auto t = Tables::load_default();
  GpuSpec g = GpuSpec::from_catalog(t, "h200");
  CHECK(error_of([&] { g.set("sms", 2147483648.0); }) == "--set sms=2147483648: value must be in [1, 65536]");
  CHECK(error_of([&] { g.set("sms", 1e12); }) == "--set sms=1e+12: value must be in [1, 65536]");
  CHECK(error_of([&] { g.set("sms", 66.5); }) == "--set sms=66.5: value must be a whole number of SMs");
  CHECK(error_of([&] { g.set("alu_latency_scale", 1e300); }) == "--set alu_latency_scale=1e+300: value must be in [0.001, 1000]");
  CHECK(error_of([&] { g.set("sm_clock_mhz", std::nan("")); }) == "--set sm_clock_mhz=nan: value must be in [1, 100000]");
  g.set("sms", 66);
  CHECK(g.sms == 66);
}

// ---- Accel-Sim traces that lie ----------------------------------------------------------

TEST_CASE("redteam: a trace cut inside its header is an error, not a 2 us prediction") {
  TempDir d("cut");
  std::string h = kTraceHeader;
  write_file(d / "cut.traceg", h.substr(0, h.find("-nvbit")));
  CHECK(error_of([&] { AccelSimKernelReader::read(d / "cut.traceg"); }) ==
        d / "cut.traceg:11:1: expected the '#traces format' line and the trace body after the header; the file ends inside its header (truncated trace?)");
  write_file(d / "nogrid.traceg", "-kernel name = k\n-block dim = (32,1,1)\n-accelsim tracer version = 5\n#BEGIN_TB\n");
  CHECK(error_of([&] { AccelSimKernelReader::read(d / "nogrid.traceg"); }) ==
        d / "nogrid.traceg:4:1: expected a '-grid dim = (x,y,z)' header line before the trace body");
  write_file(d / "zero.traceg", "-kernel name = k\n-grid dim = (0,1,1)\n");
  CHECK(error_of([&] { AccelSimKernelReader::read(d / "zero.traceg"); }) ==
        d / "zero.traceg:2:13: expected a grid a GPU can launch (x in 1..2147483647, y and z in 1..65535), found '(0,1,1)'");
  write_file(d / "id.traceg", "-kernel name = k\n-kernel id = 4294967296\n");
  CHECK(error_of([&] { AccelSimKernelReader::read(d / "id.traceg"); }) == d / "id.traceg:2:14: expected 'kernel id' in 0..4294967295, found 4294967296");
}

TEST_CASE("redteam: raw .trace warp keys of large CTA ids do not collide") {
  TempDir d("keys");
  // CTA (4194304,0,0) and CTA (0,1,0) had the same key: (x << 10) == (y << 32).
  std::string t = "-kernel name = k\n-grid dim = (4194305,2,1)\n-block dim = (32,1,1)\n-accelsim tracer version = 4\n-enable lineinfo = 0\n"
                  "#traces format = ...\n"
                  "4194304 0 0 0 0000 ffffffff 1 R1 MOV 0 0\n"
                  "0 1 0 0 0000 ffffffff 1 R1 MOV 0 0\n"
                  "0 1 0 0 0010 ffffffff 0 EXIT 0 0\n";
  write_file(d / "k.trace", t);
  Kernel k = AccelSimKernelReader::read(d / "k.trace");
  REQUIRE(k.warps.size() == 2);
  CHECK(k.warps[0].cta == Dim3{4194304, 0, 0});
  CHECK(k.warps[1].cta == Dim3{0, 1, 0});
  CHECK(k.warps[0].end - k.warps[0].begin == 1);
  CHECK(k.traced_ctas == 2);
}

TEST_CASE("redteam: CTAs outside the grid, warps outside the block and repeated warps are errors") {
  TempDir d("lies");
  std::string h = std::string(kTraceHeader) + "\n#traces format = x\n\n";
  auto tb = [](const char* cta, int warp) {
    return std::string("#BEGIN_TB\nthread block = ") + cta + "\nwarp = " + std::to_string(warp) + "\ninsts = 1\n0000 ffffffff 0 EXIT 0 0\n#END_TB\n";
  };
  write_file(d / "a.traceg", h + tb("5,0,0", 0));
  CHECK(error_of([&] { AccelSimKernelReader::read(d / "a.traceg"); }) == d / "a.traceg:18:1: expected CTAs inside the header's grid (2,1,1), found CTA (5,0,0)");
  write_file(d / "b.traceg", h + tb("0,0,0", 2));
  CHECK(error_of([&] { AccelSimKernelReader::read(d / "b.traceg"); }) ==
        d / "b.traceg:19:1: expected warp ids below 2 for the header's block (64,1,1), found warp 2 in CTA (0,0,0)");
  write_file(d / "c.traceg", h + tb("1,0,0", 0) + tb("1,0,0", 0));
  CHECK(error_of([&] { AccelSimKernelReader::read(d / "c.traceg"); }) == d / "c.traceg:25:1: expected each warp once, found warp 0 of CTA (1,0,0) twice");
}

TEST_CASE("redteam: '-truncated at instructions' is honoured: a warning and a wider range") {
  TempDir d("trunc");
  std::string body = slurp(kAs + "/v5_modes.traceg");
  write_file(d / "t.traceg", "-truncated at instructions = 9\n" + body);
  Kernel k = AccelSimKernelReader::read(d / "t.traceg");
  CHECK(k.truncated_at_instructions == 9);
  auto t = Tables::load_default();
  GpuSpec g = GpuSpec::from_catalog(t, "v100");
  Kernel full = AccelSimKernelReader::read(kAs + "/v5_modes.traceg");
  KernelReport a = Predictor(std::make_shared<const Kernel>(full)).predict(g);
  KernelReport b = Predictor(std::make_shared<const Kernel>(k)).predict(g);
  auto truncation_note = [](const KernelReport& r) {
    for (const auto& w : r.warnings)
      if (w.code == WarningCode::truncated_trace) return explain(w);
    return std::string("(none)");
  };
  CHECK(truncation_note(b) ==
        "the tracer stopped after 9 instructions ('-truncated at instructions'): the last traced CTA is partial, so the prediction is low and its range is wider");
  CHECK(b.time_us == doctest::Approx(a.time_us));
  CHECK(b.time_high_us >= 2 * b.time_us * 0.999);  // 2 traced CTAs: the complete one alone scales twice as far
  CHECK(a.time_high_us < b.time_high_us);
  // With every CTA's counted work the recorded part stands for it: no "low" warning, no widening.
  write_file(d / "c.traceg", "-truncated at instructions = 9\n-cta warp instructions = 9 6\n" + body);
  Kernel kc = AccelSimKernelReader::read(d / "c.traceg");
  REQUIRE(kc.cta_work.size() == 2);
  KernelReport c = Predictor(std::make_shared<const Kernel>(kc)).predict(g);
  CHECK(truncation_note(c) ==
        "the tracer stopped after 9 instructions ('-truncated at instructions'): each traced CTA's recorded part stands for its whole counted work (per-CTA counts)");
  CHECK(c.time_high_us < 2 * c.time_us * 0.999);
}

TEST_CASE("redteam: a truncated trace whose CTAs the tracer cut together is a lower bound, not a calibrated interval") {
  // The tracer runs its sampled CTAs together, so a limit cuts every one of them (HeCBench nbody
  // on the H100: 64 of 64 warps cut at 2M of 20M instructions, predicted 14x fast inside a
  // calibrated "80 % interval"). The fixture's CTA 1 records one of its two warps; warp 0 of CTA
  // 0 loses its EXIT here, so both traced CTAs are cut.
  TempDir d("cut");
  std::string body = slurp(kAs + "/v5_modes.traceg");
  const std::string cut_warp = "insts = 5\n0000 ffffffff 1 R1 MOV 0 0 0\n0010 ffffffff 1 R2 S2R 0 0 0\n0020 0000000b 1 R4 LDG.E 1 R2 4 0 0x200 0x208 0x250 0\n"
                               "0030 00000003 0 STG.E 2 R2 R4 4 1 0x100 4 0\n0040 ffffffff 0 EXIT 0 0 0\n";
  REQUIRE(body.find(cut_warp) != std::string::npos);
  std::string cut = body;
  cut.replace(cut.find(cut_warp), cut_warp.size(), cut_warp.substr(0, cut_warp.rfind("0040")).replace(0, 9, "insts = 4"));
  write_file(d / "t.traceg", "-truncated at instructions = 11\n" + cut);
  Kernel k = AccelSimKernelReader::read(d / "t.traceg");
  CHECK(k.cut_warps.warps == 1);
  CHECK(k.cut_warps.ctas == 2);
  CHECK(k.cut_warps.recorded == 3);
  // A streaming read tallies the same as it hands the CTAs on.
  AccelSimKernelReader::Options streaming;
  streaming.cta_sink = stream_addresses;
  Kernel ks = AccelSimKernelReader::read(d / "t.traceg", streaming);
  CHECK(ks.cut_warps.warps == 1);
  CHECK(ks.cut_warps.ctas == 2);
  CHECK(ks.cut_warps.recorded == 3);
  auto t = Tables::load_default();
  GpuSpec g = GpuSpec::from_catalog(t, "h100");  // a GPU with a calibrated interval
  KernelReport r = Predictor(std::make_shared<const Kernel>(k)).predict(g);
  CHECK(r.time_is_lower_bound);
  CHECK_FALSE(r.interval_calibrated);
  CHECK(r.time_low_us == r.time_us);
  CHECK(std::isinf(r.time_high_us));
  std::string note;
  for (const auto& w : r.warnings)
    if (w.code == WarningCode::truncated_trace) note = explain(w);
  CHECK(note ==
        "the tracer stopped after 11 instructions ('-truncated at instructions'): 1 of the 3 recorded warps stop before their EXIT, so the time is of "
        "their recorded part only: a lower bound, how far below unknown (trace with a larger limit, or give the count-only run's per-CTA counts, "
        "cta_counts.tsv, to scale each CTA to its work)");
  CHECK(to_text(r, false, 0).find("us  kernel duration (a lower bound: the trace stops before its warps end)") != std::string::npos);
  const nlohmann::json j = to_json(r);
  CHECK(j["time_range_us"][1].is_null());
  CHECK(j["time_is_lower_bound"] == true);
  // The same trace whole: a calibrated interval, no bound.
  write_file(d / "w.traceg", cut);
  KernelReport whole = Predictor(std::make_shared<const Kernel>(AccelSimKernelReader::read(d / "w.traceg"))).predict(g);
  CHECK(whole.interval_calibrated);
  CHECK_FALSE(whole.time_is_lower_bound);
  // A limit that fell between CTAs: every recorded CTA is whole (CTA 1 given its second warp),
  // and the calibrated interval stands as for the untruncated trace.
  std::string complete = body;
  complete.insert(complete.rfind("#END_TB"), "\nwarp = 1\ninsts = 1\n0040 ffffffff 0 EXIT 0 0 0\n");
  write_file(d / "c.traceg", complete);
  write_file(d / "cw.traceg", "-truncated at instructions = 12\n" + complete);
  KernelReport c = Predictor(std::make_shared<const Kernel>(AccelSimKernelReader::read(d / "c.traceg"))).predict(g);
  KernelReport cw = Predictor(std::make_shared<const Kernel>(AccelSimKernelReader::read(d / "cw.traceg"))).predict(g);
  CHECK(cw.interval_calibrated);
  CHECK(cw.time_high_us == c.time_high_us);
  for (const auto& w : cw.warnings)
    if (w.code == WarningCode::truncated_trace) note = explain(w);
  CHECK(note ==
        "the tracer stopped after 12 instructions ('-truncated at instructions'): every recorded warp ran to its EXIT, so the trace holds whole CTAs, "
        "fewer than the tracer would have sampled");
}

// ---- folders and kernelslists -------------------------------------------------------------

TEST_CASE("redteam: kernel files are ordered numerically and duplicates refused") {
  TempDir d("order");
  std::string body = slurp(kAs + "/v5_modes.traceg");
  for (int id : {2, 10, 1}) {
    std::string b = body;
    b.replace(b.find("-kernel id = 1"), 14, "-kernel id = " + std::to_string(id));
    write_file(d / ("kernel-" + std::to_string(id) + ".traceg"), b);
  }
  Application app = load(d.path);
  REQUIRE(app.kernels.size() == 3);
  CHECK(app.kernels[0].launch.id == 1);
  CHECK(app.kernels[1].launch.id == 2);  // was kernel-10, ordered by bytes
  CHECK(app.kernels[2].launch.id == 10);
  CHECK(natural_less("kernel-2.traceg", "kernel-10.traceg"));
  CHECK_FALSE(natural_less("kernel-10.traceg", "kernel-2.traceg"));
  write_file(d / "kernelslist.g", "kernel-1.traceg\nkernel-2.traceg\n./kernel-1.traceg\n");
  CHECK(error_of([&] { load(d / "kernelslist.g"); }) == d / "kernelslist.g: names " + d.path + "/./kernel-1.traceg twice (first as " + d.path +
                                                            "/kernel-1.traceg); each input is read once");
}

// ---- convert --------------------------------------------------------------------------------

namespace {
// Everything the Accel-Sim reader reads, compared by PC and by (CTA, warp) so that a
// regrouped file compares equal to its raw original.
void check_same_ir(const Kernel& a, const Kernel& b) {
  CHECK(a.launch.name == b.launch.name);
  CHECK(a.launch.id == b.launch.id);
  CHECK(a.launch.grid == b.launch.grid);
  CHECK(a.launch.block == b.launch.block);
  CHECK(a.launch.registers_per_thread == b.launch.registers_per_thread);
  CHECK(a.launch.static_shared_bytes + a.launch.dynamic_shared_bytes == b.launch.static_shared_bytes + b.launch.dynamic_shared_bytes);
  CHECK(a.launch.sm_version == b.launch.sm_version);
  CHECK(a.launch.cuda_stream == b.launch.cuda_stream);
  CHECK(a.shared_window_base == b.shared_window_base);
  CHECK(a.local_window_base == b.local_window_base);
  CHECK(a.traced_ctas == b.traced_ctas);
  CHECK(a.truncated_at_instructions == b.truncated_at_instructions);
  REQUIRE(a.program.size() == b.program.size());
  std::map<std::uint64_t, const StaticInstr*> pb;
  for (auto& s : b.program) pb[s.pc] = &s;
  for (auto& s : a.program) {
    REQUIRE(pb.count(s.pc));
    const StaticInstr& t = *pb[s.pc];
    CHECK(s.opcode == t.opcode);
    CHECK(s.dst == t.dst);
    CHECK(s.src == t.src);
    CHECK(s.space == t.space);
    CHECK(s.mem_op == t.mem_op);
    CHECK(s.access_bits == t.access_bits);
    CHECK(s.source_line == t.source_line);  // convert keeps the lines of a -enable lineinfo trace
    CHECK(s.warp_executed == t.warp_executed);
    CHECK(s.thread_executed == t.thread_executed);
  }
  REQUIRE(a.warps.size() == b.warps.size());
  std::map<std::tuple<std::uint32_t, std::uint32_t, std::uint32_t, std::uint32_t>, const WarpStream*> wb;
  for (auto& w : b.warps) wb[{w.cta.x, w.cta.y, w.cta.z, w.warp_in_cta}] = &w;
  for (auto& w : a.warps) {
    auto it = wb.find({w.cta.x, w.cta.y, w.cta.z, w.warp_in_cta});
    REQUIRE(it != wb.end());
    const WarpStream& v = *it->second;
    REQUIRE(w.end - w.begin == v.end - v.begin);
    for (std::uint64_t i = 0; i < w.end - w.begin; ++i) {
      const DynInstr &x = a.dyn[w.begin + i], &y = b.dyn[v.begin + i];
      CHECK(a.program[x.static_index].pc == b.program[y.static_index].pc);
      CHECK(x.active_mask == y.active_mask);
      CHECK(x.mem_width == y.mem_width);
      REQUIRE(x.addr_count == y.addr_count);
      const LaneAddresses ax = a.lane_addresses(x), by = b.lane_addresses(y);
      for (unsigned j = 0; j < x.addr_count; ++j) CHECK(ax[j] == by[j]);
    }
  }
}
}  // namespace

TEST_CASE("redteam: convert is a lossless round trip (read, convert, read again: same IR)") {
  TempDir d("roundtrip");
  // Shared/local window bases were written as 0, after which generic accesses to shared
  // memory became global; a masked-off access lost its width.
  std::string t = std::string(kTraceHeader) + "\n#traces format = x\n\n#BEGIN_TB\nthread block = 1,0,0\nwarp = 1\ninsts = 3\n"
                  "0000 00000003 1 R1 LD.E 1 R2 4 0 0x00007f0000000010 0x00007f0000000014\n"
                  "0010 00000000 1 R3 LDG.E 1 R2 4 0\n"
                  "0020 ffffffff 0 EXIT 0 0\n#END_TB\n";
  write_file(d / "in.traceg", t);
  for (std::string in : {kAs + "/v4_lineinfo.trace", kAs + "/v5_modes.traceg", kAs + "/old_v2.traceg", d / "in.traceg"}) {
    CAPTURE(in);
    Kernel a = AccelSimKernelReader::read(in);
    write_traceg(a, d / "out.traceg.xz");
    Kernel b = AccelSimKernelReader::read(d / "out.traceg.xz");
    check_same_ir(a, b);
  }
  Kernel g = AccelSimKernelReader::read(d / "in.traceg");
  CHECK(g.program[0].space == MemSpace::shared);
  CHECK(g.program[1].access_bits == 32);
}

TEST_CASE("redteam: convert refuses to overwrite its input and to write to a device") {
  TempDir d("inplace");
  fs::copy_file(kAs + "/v4_lineinfo.trace", d / "in.trace");
  std::string before = slurp(d / "in.trace");
  Kernel k = AccelSimKernelReader::read(d / "in.trace");
  CHECK(error_of([&] { write_traceg(k, d / "in.trace"); }) ==
        d / "in.trace: is the input file " + d / "in.trace" + "; refusing to overwrite the input (write to another path)");
  fs::create_symlink(d / "in.trace", d / "link.trace");
  CHECK(error_of([&] { write_traceg(k, d / "link.trace"); }).find("refusing to overwrite the input") != std::string::npos);
  CHECK(slurp(d / "in.trace") == before);
  // /dev/full accepted every write and reported success with nothing written.
  CHECK(error_of([&] { write_traceg(k, "/dev/full"); }) == "/dev/full: exists and is not a regular file; refusing to replace it");
  CHECK(error_of([&] { write_traceg(k, d / "no_dir/out.traceg"); }).find(d / "no_dir/out.traceg: cannot create a temporary file in " + d / "no_dir") == 0);
}

TEST_CASE("redteam: convert checks every write: a full disk leaves the old file and no temporary") {
  TempDir d("full");
  Kernel k = AccelSimKernelReader::read(kAs + "/v5_modes.traceg");
  write_file(d / "out.traceg", "previous contents\n");
  // A file-size limit makes writes fail with EFBIG, as a full disk fails them with ENOSPC.
  struct rlimit old {};
  REQUIRE(::getrlimit(RLIMIT_FSIZE, &old) == 0);
  auto prev = ::signal(SIGXFSZ, SIG_IGN);
  struct rlimit small = old;
  small.rlim_cur = 100;
  REQUIRE(::setrlimit(RLIMIT_FSIZE, &small) == 0);
  std::string e = error_of([&] { write_traceg(k, d / "out.traceg"); });
  ::setrlimit(RLIMIT_FSIZE, &old);
  ::signal(SIGXFSZ, prev);
  CHECK(e.find(d / "out.traceg: write failed") == 0);
  CHECK(slurp(d / "out.traceg") == "previous contents\n");
  std::size_t files = 0;
  for (auto& x : fs::directory_iterator(d.path)) { (void)x; ++files; }
  CHECK(files == 1);  // the temporary is gone
}

TEST_CASE("redteam: ncu memory counters are checked where they enter; a partial set is not used") {
  TempDir d("traffic");
  std::string f = d / "raw.csv";
  const std::vector<std::pair<std::string, std::string>> traffic = {
      {"device__attribute_l2_cache_size", "52,428,800"},
      {"dram__bytes_read.sum", "37.75"}, {"dram__bytes_write.sum", "15.9"},
      {"l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum", "1638400"},
      {"l1tex__t_sectors_pipe_lsu_mem_global_op_ld_lookup_hit.sum", "393228"},
      {"l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum", "1572288"},
      {"lts__t_sectors_op_atom.sum", "0"},
      {"lts__t_sectors_op_read.sum", "1856032"}, {"lts__t_sectors_op_read_lookup_hit.sum", "153647"},
      {"lts__t_sectors_op_write.sum", "1892911"}};
  auto page = [&](const std::map<std::string, std::string>& o, const std::string& drop = "") {
    std::string base = ncu_raw({});
    std::istringstream in(base);
    std::string h, u, r;
    std::getline(in, h);
    std::getline(in, u);
    std::getline(in, r);
    for (auto& [k, v] : traffic) {
      if (k == drop) continue;
      auto it = o.find(k);
      h += ",\"" + k + "\"";
      u += k.rfind("dram__bytes", 0) == 0 ? ",\"Mbyte\"" : ",\"\"";
      r += ",\"" + (it == o.end() ? v : it->second) + "\"";
    }
    return h + "\n" + u + "\n" + r + "\n";
  };
  write_file(f, page({}));
  auto rows = read_ncu_raw(f);
  REQUIRE(rows.size() == 1);
  CHECK(rows[0].traffic.present);
  CHECK(rows[0].traffic.l2_bytes == 52428800);
  CHECK(rows[0].traffic.dram_read_bytes == doctest::Approx(37.75e6));  // Mbyte
  CHECK(rows[0].traffic.l2_read_hit_sectors == 153647);
  // Hits above lookups (separate replay passes) are kept as measured; the model clamps them.
  write_file(f, page({{"lts__t_sectors_op_read_lookup_hit.sum", "1860000"}}));
  CHECK(read_ncu_raw(f).at(0).traffic.l2_read_hit_sectors == 1860000);
  write_file(f, page({{"dram__bytes_write.sum", "-3"}}));
  CHECK(error_of([&] { read_ncu_raw(f); }).find("column 'dram__bytes_write.sum': expected a non-negative size in a known unit, found '-3' Mbyte") != std::string::npos);
  write_file(f, page({}, "lts__t_sectors_op_atom.sum"));
  CHECK_FALSE(read_ncu_raw(f).at(0).traffic.present);
}

}  // namespace gpuperf_test_redteam
