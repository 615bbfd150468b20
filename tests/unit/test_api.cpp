// The C++ API as an autotuner uses it: load once, predict for many GPU specs, from many threads.
#include <doctest/doctest.h>

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>

#include "gpuperf/gpuperf.hpp"
#include "gpuperf/report/json_view.hpp"

// Each test file has its own namespace: the unit tests compile as one unity build.
namespace gpuperf_test_api {

using namespace gpuperf;

static const std::string kFix = std::string(GPUPERF_TEST_DIR) + "/fixtures";

static Session devsample() {
  return Session(load(std::vector<std::string>{kFix + "/devsample/ncu_source.csv.xz", kFix + "/devsample/ncu_raw.csv.xz"}));
}

TEST_CASE("what-if: clock, bandwidth, SM count and L2 move predictions the right way") {
  auto t = Tables::load_default();
  Session s = devsample();
  auto vec = s.select("3");  // vecadd 16M: DRAM-bound
  auto base = GpuSpec::from_catalog(t, "h200");
  double t0 = s.predict(base, {}, vec).kernels[0].time_us;
  // More DRAM bandwidth alone: the L2's line-writes (the fills of the two loads and the store,
  // at 0.63 of its read rate) take about as long as DRAM already, so little is gained.
  auto more_bw = base;
  more_bw.set("dram_bandwidth_gbs", base.dram_bandwidth_gbs * 1.25);
  auto r0 = s.predict(more_bw, {}, vec).kernels[0];
  CHECK(r0.bottleneck == Bottleneck::l2);
  CHECK(r0.time_us <= t0);
  CHECK(r0.time_us > t0 * 0.9);
  // DRAM and L2 both 1.1x: DRAM-bound again, and faster.
  more_bw.set("dram_bandwidth_gbs", base.dram_bandwidth_gbs * 1.1);
  more_bw.set("l2_bandwidth_gbs", base.l2_bandwidth_gbs * 1.1);
  auto r1 = s.predict(more_bw, {}, vec).kernels[0];
  CHECK(r1.bottleneck == Bottleneck::dram);
  CHECK(r1.time_us < t0 * 0.95);
  // Both 1.25x: the GPU cannot start the 65536 CTAs that fast (measured dispatch rate), so the
  // kernel turns dispatch-bound.
  more_bw.set("dram_bandwidth_gbs", base.dram_bandwidth_gbs * 1.25);
  more_bw.set("l2_bandwidth_gbs", base.l2_bandwidth_gbs * 1.25);
  auto r2 = s.predict(more_bw, {}, vec).kernels[0];
  CHECK(r2.bottleneck == Bottleneck::cta_dispatch);
  CHECK(r2.time_us < r1.time_us);
  auto ffma = s.select("7");  // issue-bound FFMA chain
  auto slow = base;
  slow.set("sm_clock_mhz", base.sm_clock_mhz / 2);
  double f0 = s.predict(base, {}, ffma).kernels[0].cycles;
  // Nearly the same cycles: only its few DRAM waits shrink in cycles (DRAM latency is a physical time).
  CHECK(s.predict(slow, {}, ffma).kernels[0].cycles == doctest::Approx(f0).epsilon(1e-3));
  CHECK(s.predict(slow, {}, ffma).kernels[0].cycles <= f0);
  CHECK(s.predict(slow, {}, ffma).kernels[0].time_us > 1.9 * (s.predict(base, {}, ffma).kernels[0].time_us - base.launch_overhead_us));
  auto half_sms = base;
  half_sms.set("sms", 66);
  CHECK(s.predict(half_sms, {}, ffma).kernels[0].cycles > 1.9 * f0);
  CHECK_THROWS_AS(base.set("warp_size", 64), ArgumentError);
  CHECK_THROWS_AS(base.set("sms", 0), ArgumentError);
}

TEST_CASE("predicting from many threads at once gives the same answers") {
  auto t = Tables::load_default();
  Session s = devsample();
  std::vector<std::string> gpus = {"h200", "h100", "a100", "v100", "t4", "p100", "3090", "2080ti"};
  std::vector<double> serial;
  for (auto& g : gpus) serial.push_back(s.predict(GpuSpec::from_catalog(t, g)).total_time_us);
  std::vector<double> parallel(gpus.size());
  std::vector<std::thread> th;
  for (std::size_t i = 0; i < gpus.size(); ++i)
    th.emplace_back([&, i] {
      for (int rep = 0; rep < 3; ++rep) parallel[i] = s.predict(GpuSpec::from_catalog(t, gpus[i])).total_time_us;
    });
  for (auto& x : th) x.join();
  for (std::size_t i = 0; i < gpus.size(); ++i) CHECK(parallel[i] == serial[i]);
}

TEST_CASE("kernel selection by name or launch id") {
  Session s = devsample();
  CHECK(s.select("").size() == 48);
  CHECK(s.select("sgemm_naive").size() == 2);
  CHECK(s.select("12").size() == 1);
  CHECK_THROWS_WITH_AS(s.select("no_such_kernel"), doctest::Contains("no kernel matches 'no_such_kernel'"), ArgumentError);
}

TEST_CASE("one kernel identity: launch id = position in the input, demangled name, regex selection") {
  // The trace says "-kernel id = 3" and "_Z3fooPf"; reports once said "Kernel 3: _Z3fooPf" while
  // selection by position disagreed (issue 15).
  Session s(load(kFix + "/accelsim/v4_lineinfo.trace"));
  auto r = s.predict(GpuSpec::from_catalog(Tables::load_default(), "t4"));
  REQUIRE(r.kernels.size() == 1);
  CHECK(r.kernels[0].launch_id == 1);
  CHECK(r.kernels[0].name == "foo(float*)");
  CHECK(s.select("1").size() == 1);
  CHECK_THROWS_AS(s.select("3"), ArgumentError);
  CHECK(s.select("^foo\\(float").size() == 1);
  CHECK(s.select("_Z3foo").size() == 1);  // the raw name matches too
  CHECK_THROWS_WITH_AS(s.select("foo("), doctest::Contains("neither a launch id nor a valid regular expression"), ArgumentError);
  Session d = devsample();
  CHECK(d.select("sgemm_(naive|smem)").size() == d.select("sgemm_naive").size() + d.select("sgemm_smem").size());
  // The trace's own id is kept beside the position, and shown where the two differ.
  CHECK(r.kernels[0].input_launch_id == 3);
  CHECK(to_json(r)["kernels"][0]["input_launch_id"] == 3);
  CHECK(to_text(r).find("Kernel 1 (launch 3 in the input): foo(float*)") != std::string::npos);
}

TEST_CASE("a kernels list missing a launch: each report keeps its trace's launch id") {
  // The tracer once listed a launch it never wrote (its program was cut off), and the list left
  // it out: the traces after it were numbered one lower by position, and the validation paired
  // each with the measurement of the launch before it (a 5.6x error that was the wrong kernel's).
  namespace fs = std::filesystem;
  fs::path dir = fs::temp_directory_path() / ("gpuperf_api_gap_" + std::to_string(::getpid()));
  fs::create_directories(dir);
  std::ifstream in(kFix + "/accelsim/v5_modes.traceg");
  std::stringstream text;
  text << in.rdbuf();
  std::string body = text.str();
  REQUIRE(body.find("-kernel id = 1\n") != std::string::npos);
  for (int id : {1, 2, 4}) {
    std::string t = body;
    t.replace(t.find("-kernel id = 1\n"), 15, "-kernel id = " + std::to_string(id) + "\n");
    std::ofstream(dir / ("kernel-" + std::to_string(id) + ".traceg")) << t;
  }
  std::ofstream(dir / "kernelslist.g") << "kernel-1.traceg\nkernel-2.traceg\nkernel-4.traceg\n";
  Session s(load((dir / "kernelslist.g").string()));
  auto r = s.predict(GpuSpec::from_catalog(Tables::load_default(), "h100"));
  fs::remove_all(dir);
  REQUIRE(r.kernels.size() == 3);
  CHECK(r.kernels[1].launch_id == 2);
  CHECK(r.kernels[1].input_launch_id == 2);
  CHECK(r.kernels[2].launch_id == 3);        // --kernel 3 selects it, by position
  CHECK(r.kernels[2].input_launch_id == 4);  // the trace's own id, which the validation joins on
  CHECK(to_json(r)["kernels"][2]["input_launch_id"] == 4);
  CHECK(to_text(r).find("Kernel 3 (launch 4 in the input): kernel(float*, float*)") != std::string::npos);
  CHECK(to_text(r).find("Kernel 2: kernel(float*, float*)") != std::string::npos);
}

TEST_CASE("the model never needs the measurement: predictions are identical without it") {
  auto t = Tables::load_default();
  Application a = load(std::vector<std::string>{kFix + "/devsample/ncu_source.csv.xz", kFix + "/devsample/ncu_raw.csv.xz"});
  Application b = a;
  for (auto& m : b.measurements) m = Measurement{};
  auto g = GpuSpec::from_catalog(t, "h200");
  auto ra = Session(std::move(a)).predict(g);
  auto rb = Session(std::move(b)).predict(g);
  for (std::size_t i = 0; i < ra.kernels.size(); ++i) CHECK(ra.kernels[i].time_us == rb.kernels[i].time_us);
}

TEST_CASE("JSON view carries the schema and every section") {
  auto t = Tables::load_default();
  Session s = devsample();
  auto r = s.predict(GpuSpec::from_catalog(t, "a100"), {}, s.select("19"));
  auto j = to_json(r);
  CHECK(j["schema"] == "gpuperf.report/1");
  auto& k = j["kernels"][0];
  for (auto key : {"time_us", "cycles", "bottleneck", "bounds_cycles", "occupancy", "memory", "roofline", "per_pc", "stalls_cycles", "warnings"})
    CHECK_MESSAGE(k.contains(key), key);
  CHECK(k["per_pc"].size() > 10);
  CHECK(k["roofline"]["flops"]["fp32"].get<double>() == doctest::Approx(2.0 * 2048.0 * 2048 * 2048).epsilon(0.01));
  // Counts are JSON integers (they were written as 16384.0); rates and times stay floats.
  CHECK(k["grid"]["ctas"].is_number_integer());
  CHECK(k["grid"]["ctas"] == 16384);
  CHECK(k["instructions"]["warp"].is_number_integer());
  CHECK(k["memory"]["global_load_sectors"].is_number_integer());
  CHECK(k["per_pc"][0]["warp_executions"].is_number_integer());
  CHECK(k["instructions"]["ipc"].is_number_float());
  CHECK(k["time_us"].is_number_float());
  auto text = to_text(r.kernels[0], true);
  CHECK(text.find("bottleneck") != std::string::npos);
  CHECK(text.find("FFMA") != std::string::npos);
}

TEST_CASE("what-if knobs: one registry that set(), knobs() and the README follow") {
  const std::string root = std::string(GPUPERF_TEST_DIR) + "/..";
  auto g = GpuSpec::from_catalog(Tables::load({root + "/latency_tables"}), "a100");
  REQUIRE(GpuSpec::knobs().size() == knob_registry().size());
  g.set("sm_clock_mhz", 1200);
  CHECK(g.sm_clock_mhz == 1200);
  g.set("l2_mib", 10);
  CHECK(g.l2_bytes == 10.0 * 1024 * 1024);
  // The old name meant MiB too: refused with the new name, not read as 10^6 bytes.
  CHECK_THROWS_WITH_AS(g.set("l2_mb", 10), "--set l2_mb was renamed l2_mib: the L2 capacity in MiB (2^20 bytes)", ArgumentError);
  g.set("sms", 7);
  CHECK(g.sms == 7);
  CHECK_THROWS_WITH_AS(g.set("dram_efficiency", 1.5), "--set dram_efficiency must be in (0, 1]", ArgumentError);
  CHECK_THROWS_WITH_AS(g.set("sms", 0), "--set sms=0: value must be in [1, 65536]", ArgumentError);
  CHECK_THROWS_WITH_AS(g.set("nope", 1), doctest::Contains("unknown GPU setting 'nope' (known: sm_clock_mhz, sms, "), ArgumentError);
  std::ifstream in(root + "/README.md");
  std::stringstream readme;
  readme << in.rdbuf();
  for (auto& k : knob_registry()) {
    INFO(k.name);
    CHECK(readme.str().find(std::string("`") + k.name + "`") != std::string::npos);
    CHECK(std::string(k.unit).size() > 0);
    CHECK(std::string(k.help).size() > 0);
  }
}

}  // namespace gpuperf_test_api
