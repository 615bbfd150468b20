// Every core: the thread pool, parallel reading and prediction (identical to serial), and
// launch selection that skips kernel files before their bodies are read.
#include <doctest/doctest.h>

#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <filesystem>
#include <fstream>
#include <stdexcept>

#include "gpuperf/gpuperf.hpp"
#include "gpuperf/report/json_view.hpp"

// Each test file has its own namespace: the unit tests compile as one unity build.
namespace gpuperf_test_parallel {

using namespace gpuperf;
namespace fs = std::filesystem;

static const std::string kFix = std::string(GPUPERF_TEST_DIR) + "/fixtures";
static const std::string kData = std::string(GPUPERF_TEST_DIR) + "/data/h200/devsample";

// A fresh folder per test case, removed at the end.
struct TempDir {
  fs::path dir;
  explicit TempDir(const std::string& name) : dir(fs::temp_directory_path() / ("gpuperf_par_" + std::to_string(::getpid()) + "_" + name)) {
    fs::remove_all(dir);
    fs::create_directories(dir);
  }
  ~TempDir() { std::error_code ec; fs::remove_all(dir, ec); }
  std::string put(const std::string& name, const std::string& text) const {
    std::ofstream(dir / name, std::ios::binary) << text;
    return (dir / name).string();
  }
  std::string copy(const std::string& from, const std::string& name) const {
    fs::copy_file(from, dir / name, fs::copy_options::overwrite_existing);
    return (dir / name).string();
  }
};

static std::string report_json(const Report& r) { return to_json(r).dump(); }

TEST_CASE("parallel_for fills every slot once, for any number of threads") {
  for (unsigned jobs : {0u, 1u, 2u, 3u, 16u}) {
    std::vector<int> out(1000, -1);
    std::atomic<int> calls{0};
    parallel_for(out.size(), jobs, [&](std::size_t i) { out[i] = static_cast<int>(i * i % 97); ++calls; });
    CHECK(calls.load() == 1000);
    for (std::size_t i = 0; i < out.size(); ++i) REQUIRE(out[i] == static_cast<int>(i * i % 97));
  }
  parallel_for(0, 4, [](std::size_t) { FAIL("called for an empty range"); });
}

TEST_CASE("parallel_for rethrows the lowest-numbered failure, as a serial loop would") {
  for (unsigned jobs : {1u, 2u, 4u}) {
    auto run = [&] {
      parallel_for(64, jobs, [&](std::size_t i) {
        if (i == 40 || i == 7) throw std::runtime_error("item " + std::to_string(i));
      });
    };
    CHECK_THROWS_WITH_AS(run(), "item 7", std::runtime_error);
  }
}

TEST_CASE("Session::predict_many over GPU specs equals predict() one spec at a time") {
  auto t = Tables::load_default();
  Session s(load(std::vector<std::string>{kFix + "/devsample/ncu_source.csv.xz", kFix + "/devsample/ncu_raw.csv.xz"}));
  std::vector<GpuSpec> specs;
  for (auto name : {"h200", "a100", "t4", "v100"}) specs.push_back(GpuSpec::from_catalog(t, name));
  for (double clock : {900.0, 1400.0}) {
    specs.push_back(GpuSpec::from_catalog(t, "h100"));
    specs.back().set("sm_clock_mhz", clock);
  }
  PredictOptions o;
  std::vector<std::size_t> which = {0, 2, 11, 47};
  for (unsigned jobs : {0u, 1u, 2u, 5u}) {
    auto many = s.predict_many(specs, o, which, jobs);
    REQUIRE(many.size() == specs.size());
    for (std::size_t g = 0; g < specs.size(); ++g) {
      CHECK(report_json(many[g]) == report_json(s.predict(specs[g], o, which)));
      CHECK(many[g].kernels.size() == 4);
      CHECK(many[g].kernels[2].launch_id == 12);
    }
  }
  CHECK(report_json(s.predict(specs[0], o, {}, 3)) == report_json(s.predict(specs[0], o)));
  CHECK(s.predict_many({}, o).empty());
}

TEST_CASE("kernel files read on several threads give the same application as one thread") {
  TempDir d("jobs");
  std::string list = "MemcpyHtoD,0x0000000502000000,800000\n";
  // Small kernels, so the test stays quick under the sanitizers.
  d.copy(kData + "/kernel-42.traceg.xz", "k42.traceg.xz");
  d.copy(kFix + "/accelsim/v5_modes.traceg", "v5.traceg");
  d.copy(kFix + "/accelsim/old_v2.traceg", "v2.traceg");
  d.copy(kFix + "/accelsim/v4_lineinfo.trace", "v4.trace");
  list += "k42.traceg.xz\nv5.traceg\nv2.traceg\nv4.trace\n";
  std::string kl = d.put("kernelslist.g", list);
  auto g = GpuSpec::from_catalog(Tables::load_default(), "h200");
  LoadOptions one;
  std::string serial = report_json(Session(load(kl, one)).predict(g));
  for (unsigned jobs : {0u, 3u}) {
    LoadOptions lo;
    lo.jobs = jobs;
    Application app = load(kl, lo);
    CHECK(app.kernels.size() == 4);
    CHECK(app.memcpys.size() == 1);
    CHECK(report_json(Session(std::move(app)).predict(g, {}, {}, jobs)) == serial);
    // Streamed kernel by kernel, jobs at a time: the same reports, in launch order.
    std::vector<std::string> streamed;
    for_each_kernel({kl}, lo, [&](Kernel&& k, const Measurement&, std::size_t id) {
      Predictor p(std::make_shared<const Kernel>(std::move(k)));
      KernelReport kr = p.predict(g, {});
      identify(kr, *p.analysis().kernel, id);  // as gpuperf report does: the name, id and source lines
      return kr;
    }, [&](KernelReport&& kr) { streamed.push_back(to_json(kr).dump()); });
    REQUIRE(streamed.size() == 4);
    auto whole = nlohmann::json::parse(serial);
    for (std::size_t i = 0; i < 4; ++i) CHECK(streamed[i] == whole["kernels"][i].dump());
  }
}

TEST_CASE("selection skips kernels before their bodies are read: a broken unselected trace does no harm") {
  // Launch 2's body is corrupt (bad hex on an instruction line) and launch 4's file is missing.
  TempDir d("select");
  d.copy(kFix + "/accelsim/v5_modes.traceg", "k1.traceg");
  d.copy(kFix + "/accelsim/bad_hex.traceg", "k2.traceg");
  d.copy(kFix + "/accelsim/v4_lineinfo.trace", "k3.trace");
  std::string kl = d.put("kernelslist.g", "k1.traceg\nk2.traceg\nk3.trace\nk4_missing.traceg\n");
  auto pick = [&](const std::string& kernel, std::size_t skip = 0, std::size_t count = 0, unsigned jobs = 1) {
    LoadOptions lo;
    lo.select = LaunchSelection{kernel, skip, count};
    lo.jobs = jobs;
    return load(kl, lo);
  };
  // Everything read: the corrupt body and the missing file are errors naming them.
  CHECK_THROWS_WITH_AS(load(kl), doctest::Contains("k2.traceg:"), ParseError);
  for (unsigned jobs : {1u, 2u}) {
    Application a1 = pick("1", 0, 0, jobs);
    REQUIRE(a1.kernels.size() == 1);
    CHECK(a1.launch_ids == std::vector<std::uint32_t>{1});
    CHECK(a1.kernels[0].launch.name == "_Z6kernelPfS_");
    Application a3 = pick("3", 0, 0, jobs);
    REQUIRE(a3.kernels.size() == 1);
    CHECK(a3.launch_ids == std::vector<std::uint32_t>{3});
    CHECK(a3.kernels[0].launch.name == "_Z3fooPf");
    // A launch window with no selector counts positions only: no file outside it is opened.
    Application w = pick("", 2, 1, jobs);
    CHECK(w.launch_ids == std::vector<std::uint32_t>{3});
  }
  // The launch id survives into reports and Session::select.
  Session s(pick("3"));
  auto r = s.predict(GpuSpec::from_catalog(Tables::load_default(), "t4"));
  CHECK(r.kernels.at(0).launch_id == 3);
  CHECK(s.select("3").size() == 1);
  CHECK_THROWS_AS(s.select("1"), ArgumentError);
  // Selecting the broken launch reads it, and its error is the reader's.
  CHECK_THROWS_WITH_AS(pick("2"), doctest::Contains("k2.traceg:"), ParseError);
  CHECK_THROWS_WITH_AS(pick("4"), doctest::Contains("k4_missing.traceg"), IoError);
  CHECK_THROWS_WITH_AS(pick("9"), "no kernel matches '9' (4 kernels in the input)", ArgumentError);
  CHECK_THROWS_WITH_AS(pick("", 4, 1), "no kernel in the launch window (--launch-skip 4, --launch-count 1) (4 kernels in the input)", ArgumentError);
}

TEST_CASE("a name selector reads only the headers of unselected kernel files") {
  TempDir d("byname");
  d.copy(kFix + "/accelsim/v5_modes.traceg", "k1.traceg");
  d.copy(kFix + "/accelsim/bad_hex.traceg", "k2.traceg");  // same kernel name as k1, corrupt body
  d.copy(kFix + "/accelsim/v4_lineinfo.trace", "k3.trace");
  d.copy(kFix + "/accelsim/old_v2.traceg", "k4.traceg");
  std::string kl = d.put("kernelslist.g", "k1.traceg\nk2.traceg\nk3.trace\nk4.traceg\n");
  LoadOptions lo;
  lo.select.kernel = "foo|lud_perimeter";
  Application a = load(kl, lo);
  CHECK(a.launch_ids == std::vector<std::uint32_t>{3, 4});
  lo.select.kernel = "^foo\\(float";  // the demangled name, from the header alone
  CHECK(load(kl, lo).launch_ids == std::vector<std::uint32_t>{3});
  lo.select.kernel = "kernel";  // k1 and k2: k2's body is read, and it is corrupt
  CHECK_THROWS_WITH_AS(load(kl, lo), doctest::Contains("k2.traceg:"), ParseError);
  lo.select.count = 1;  // only the first match is kept, so k2 is never read
  CHECK(load(kl, lo).launch_ids == std::vector<std::uint32_t>{1});
  // The header peek agrees with the full reader on every fixture that has a name.
  for (auto f : {"v5_modes.traceg", "v4_lineinfo.trace", "old_v2.traceg"})
    CHECK(detail::peek_accelsim_kernel_name(kFix + "/accelsim/" + f).value() == AccelSimKernelReader::read(kFix + "/accelsim/" + f).launch.name);
  CHECK(detail::peek_accelsim_kernel_name(kData + "/kernel-42.traceg.xz").value() == AccelSimKernelReader::read(kData + "/kernel-42.traceg.xz").launch.name);
}

namespace {
struct SeenProgress {
  std::vector<Progress> calls;
  std::vector<std::size_t> kernels_done() const {
    std::vector<std::size_t> v;
    for (auto& p : calls)
      if (p.file.empty()) v.push_back(p.kernels_done);
    return v;
  }
  std::size_t file_calls() const {
    std::size_t n = 0;
    for (auto& p : calls) n += !p.file.empty();
    return n;
  }
};
void record_progress(const Progress& p, void* ctx) { static_cast<SeenProgress*>(ctx)->calls.push_back(p); }
}  // namespace

TEST_CASE("progress: inputs other than Accel-Sim kernel files report their file's bytes and text too") {
  // The Nsight Compute pages of the devsample: the source page is 3.8 MB of text in 58 kB of
  // xz, so its end is reported; the raw page (0.38 MB of text) is below the 1 MiB floor.
  const std::string src = kFix + "/devsample/ncu_source.csv.xz", raw = kFix + "/devsample/ncu_raw.csv.xz";
  LoadOptions lo;
  SeenProgress seen;
  lo.accelsim.progress = record_progress;
  lo.accelsim.progress_ctx = &seen;
  load(std::vector<std::string>{src, raw}, lo);
  REQUIRE(seen.file_calls() == 1);
  auto file_call = std::find_if(seen.calls.begin(), seen.calls.end(), [](const Progress& p) { return !p.file.empty(); });
  CHECK(file_call->file == src);
  CHECK(file_call->file_decompressed == 3774972);
  CHECK(file_call->file_read == fs::file_size(src));  // the whole compressed file consumed
  CHECK(file_call->file_size == fs::file_size(src));
  // Then the 48 launches as kernels done, as for Accel-Sim inputs.
  CHECK(seen.kernels_done().size() == 48);
  // Nothing is reported without a callback, and none after the load (the scope is gone).
  SeenProgress none;
  { detail::ReadProgressScope off(nullptr, &none); CHECK(detail::ReadProgressScope::current() == nullptr); }
  load(std::vector<std::string>{src, raw});
  CHECK(detail::ReadProgressScope::current() == nullptr);
}

TEST_CASE("progress: kernel files read of the selection, and the bytes and text of a compressed file") {
  TempDir d("progress");
  d.copy(kData + "/kernel-42.traceg.xz", "k42.traceg.xz");  // 37 kB of xz, 102 MiB of text
  d.copy(kFix + "/accelsim/v5_modes.traceg", "v5.traceg");
  d.copy(kFix + "/accelsim/v4_lineinfo.trace", "v4.trace");
  d.copy(kFix + "/accelsim/old_v2.traceg", "v2.traceg");
  // One big compressed file read once (quick under the sanitizers), small ones for -j 2.
  std::string big = d.put("big.g", "k42.traceg.xz\nv5.traceg\nv4.trace\n");
  std::string small = d.put("small.g", "v5.traceg\nv4.trace\nv2.traceg\n");
  LoadOptions lo;
  SeenProgress seen;
  lo.accelsim.progress = record_progress;
  lo.accelsim.progress_ctx = &seen;
  load(big, lo);
  CHECK(seen.kernels_done() == std::vector<std::size_t>{1, 2, 3});
  // Every 16 MB of text or more (the line reader reads ahead): several calls inside k42's
  // 102 MiB, its compressed bytes far behind its text.
  CHECK(seen.file_calls() >= 3);
  for (auto& p : seen.calls) {
    CHECK(p.kernels_total == 3);
    if (p.file.empty()) continue;
    CHECK(p.file.find("k42.traceg.xz") != std::string::npos);
    CHECK(p.kernels_done == 0);
    CHECK(p.file_size == fs::file_size(d.dir / "k42.traceg.xz"));
    CHECK(p.file_read <= p.file_size);
    CHECK(p.file_decompressed > 100 * p.file_read);
  }
  // Several files at once: kernels only, counted across for_each_kernel's batches too.
  lo.jobs = 2;
  SeenProgress par, streamed;
  lo.accelsim.progress_ctx = &par;
  load(small, lo);
  CHECK(par.kernels_done() == std::vector<std::size_t>{1, 2, 3});
  CHECK(par.file_calls() == 0);
  lo.accelsim.progress_ctx = &streamed;
  for_each_kernel({small}, lo, [](Kernel&&, const Measurement&, std::size_t id) { return id; }, [](std::size_t) {});
  CHECK(streamed.kernels_done() == std::vector<std::size_t>{1, 2, 3});
  for (auto& p : streamed.calls) CHECK(p.kernels_total == 3);
}

}  // namespace gpuperf_test_parallel
