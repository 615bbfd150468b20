// What-if sweeps: rounds interpolated between DRAM-latency nodes (model/round_table.hpp) against
// a full prediction of every point, what the round cache is keyed by, and threads.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>

#include "gpuperf/gpuperf.hpp"

// Each test file has its own namespace: the unit tests compile as one unity build.
namespace gpuperf_test_what_if {

using namespace gpuperf;

static const std::string kData = std::string(GPUPERF_TEST_DIR) + "/data";

static std::shared_ptr<const Tables> tables() {
  static auto t = Tables::load_default();
  return t;
}

static std::shared_ptr<const Predictor> traced(const std::string& rel) {
  Session s(load(std::vector<std::string>{kData + "/" + rel}));
  REQUIRE(s.size() == 1);
  return std::make_shared<const Predictor>(std::make_shared<const KernelAnalysis>(s.predictor(0).analysis()));
}

static double exact_time(const Predictor& p, const GpuSpec& g, const PredictOptions& o = {}) { return p.predict(g, o).time_us; }

TEST_CASE("node positions: 2^(k/K), the node at or below a latency, and interpolation at a node is the node") {
  CHECK(round_node_latency(0) == 1.0);
  CHECK(round_node_latency(kRoundNodesPerOctave) == 2.0);
  for (double d : {1.0, 1.5, 37.0, 512.0, 513.7, 900.25, 1e6}) {
    const int k = round_node_below(d);
    CHECK(round_node_latency(k) <= d);
    CHECK(round_node_latency(k + 1) > d);
  }
  RoundSummary a, b;
  a.cycles = 1000.125;
  a.bounds.latency = 7.3;
  b.cycles = 2000;
  b.bounds.latency = 9;
  CHECK(interpolate(a, b, 0.0).cycles == a.cycles);
  CHECK(interpolate(a, b, 0.0).bounds.latency == a.bounds.latency);
  CHECK(interpolate(a, b, 0.5).cycles == doctest::Approx(1500.0625));
}

TEST_CASE("interpolated rounds are within 1 % of a full re-simulation on bundled traces, and a sweep replays few rounds") {
  auto g = GpuSpec::from_catalog(tables(), "h200");
  for (const char* rel : {"h200/devsample/kernel-4.traceg.xz", "h200/corpus/kernel-21.traceg.xz", "h100/devsample/kernel-5.traceg.xz"}) {
    CAPTURE(rel);
    auto p = traced(rel);
    std::vector<GpuSpec> specs;
    for (double mhz : {905.0, 1133.0, 1391.0, 1667.0, 1979.0})
      for (double gbs : {2000.0, 3350.0, 4800.0}) {
        GpuSpec w = g;
        w.set("sm_clock_mhz", mhz);
        w.set("dram_bandwidth_gbs", gbs);
        specs.push_back(w);
      }
    const auto times = p->predict_times(specs);
    REQUIRE(times.size() == specs.size());
    for (std::size_t i = 0; i < specs.size(); ++i) CHECK(times[i] == doctest::Approx(exact_time(*p, specs[i])).epsilon(0.01));
    // Four nodes around each of the 5 clocks for the full round and the tail, and at most one
    // round of its own per clock and round where the nodes are not smooth: the bandwidths add none.
    CHECK(p->cache_info().rounds_computed <= 5 * 4 * 2 + 5 * 2);
    // A bandwidth sweep at one clock replays no more rounds than the nodes around it.
    std::vector<GpuSpec> bw;
    for (int i = 0; i < 40; ++i) {
      GpuSpec w = g;
      w.set("dram_bandwidth_gbs", 1000 + 100.0 * i);
      bw.push_back(w);
    }
    p->clear_cache();
    const auto before = p->cache_info().rounds_computed;
    (void)p->predict_times(bw);
    CHECK(p->cache_info().rounds_computed - before <= 4 * 2 + 2);
  }
}

TEST_CASE("a clock sweep keeps each round under one key: the idle DRAM ratio is the same at every clock, to the bit") {
  // The ratio of the idle to the loaded DRAM latency keys the rounds; both scale with the clock,
  // but their quotient's last bits did not stay put, and a clock sweep (the what-if benchmark's)
  // held each round under three keys and simulated it three times (238 rounds for 82).
  auto g = GpuSpec::from_catalog(tables(), "h200");
  auto p = traced("h200/devsample/kernel-20.traceg.xz");
  (void)p->predict_times({g});
  const auto one_clock = p->cache_info().round_keys;
  REQUIRE(one_clock > 0);
  std::vector<GpuSpec> clocks;
  for (int i = 0; i < 200; ++i) {
    GpuSpec w = g;
    w.set("sm_clock_mhz", 900 + 1080.0 * i / 200);
    clocks.push_back(w);
  }
  p->clear_cache();
  (void)p->predict_times(clocks);
  CHECK(p->cache_info().round_keys == one_clock);
}

TEST_CASE("every GPU value and option a round reads is in its key: a what-if never reuses another GPU's rounds") {
  // Each knob and option changed after a sweep of the unchanged GPU has filled the cache: the
  // interpolated time follows predict() (within 1 %), so a value missing from the key (which
  // would return the unchanged GPU's rounds) fails where predict() moves by more than that.
  auto g = GpuSpec::from_catalog(tables(), "h200");
  for (const char* rel : {"h200/corpus/kernel-21.traceg.xz", "h200/devsample/kernel-4.traceg.xz"}) {
    CAPTURE(rel);
    auto p = traced(rel);
    for (int variant = 0; variant < 4; ++variant) {
      PredictOptions o;
      if (variant == 1) o.warm_l2 = true;
      if (variant == 2) o.target = Target::back_to_back;
      if (variant == 3) o.mode = ModelMode::bounds;
      CAPTURE(variant);
      const double base = p->predict_times({g}, o).front();
      CHECK(base == doctest::Approx(exact_time(*p, g, o)).epsilon(0.01));
      for (const Knob& k : knob_registry()) {
        CAPTURE(k.name);
        GpuSpec w = g;
        const double was = std::string(k.name) == "l2_mib" ? g.l2_bytes / 1048576.0 : std::string(k.name) == "sms" ? g.sms : 0;
        if (std::string(k.name) == "sms") w.set(k.name, std::floor(was / 3));
        else if (std::string(k.name) == "l2_mib") w.set(k.name, was / 64);
        else if (std::string(k.name) == "dram_efficiency") w.set(k.name, 0.3);
        else if (std::string(k.name) == "sm_clock_mhz") w.set(k.name, 700);
        else if (std::string(k.name) == "alu_latency_scale") w.set(k.name, 3);
        else if (std::string(k.name) == "dram_bandwidth_gbs" || std::string(k.name) == "l2_bandwidth_gbs") w.set(k.name, 300);
        else w.set(k.name, std::string(k.name).find("us") != std::string::npos ? 40 : 1500);  // launch terms, latencies
        const double want = exact_time(*p, w, o);
        const double got = p->predict_times({w}, o).front();
        CHECK(got == doctest::Approx(want).epsilon(0.01));
        if (std::abs(want / base - 1) > 0.03) CHECK(std::abs(got / base - 1) > 0.02);
      }
    }
    // The carve-out changes the L1 capacity (rates) and can change the CTAs per SM.
    PredictOptions carve;
    carve.shared_carveout_kib = 100;
    CHECK(p->predict_times({g}, carve).front() == doctest::Approx(exact_time(*p, g, carve)).epsilon(0.01));
  }
}

TEST_CASE("a sweep on a Predictor that outlives a Tables object never returns that table set's rounds") {
  // Interpolated sweeps cache rounds per table set (its id, unique per load, not its address).
  namespace fs = std::filesystem;
  const std::string shipped = std::string(GPUPERF_TEST_DIR) + "/../latency_tables";
  const fs::path over = fs::temp_directory_path() / "gpuperf_test_stale_rounds";
  fs::remove_all(over);
  fs::create_directories(over / "arch");
  {
    std::ifstream in(shipped + "/arch/sm_90.json");
    auto j = nlohmann::json::parse(in);
    j["classes"]["fp32"]["latency_cycles"]["value"] = 40;
    std::ofstream(over / "arch" / "sm_90.json") << j.dump(1);
  }
  auto p = traced("h200/corpus/kernel-21.traceg.xz");
  for (int attempt = 0; attempt < 4; ++attempt) {
    auto a = Tables::load({over.string(), shipped});
    const auto ga = GpuSpec::from_catalog(a, "h200");
    CHECK(p->predict_times({ga}).front() == doctest::Approx(exact_time(*p, ga)).epsilon(0.01));
    a.reset();
    auto b = Tables::load({shipped});
    const auto gb = GpuSpec::from_catalog(b, "h200");
    CHECK(p->predict_times({gb}).front() == doctest::Approx(exact_time(*p, gb)).epsilon(0.01));
  }
  fs::remove_all(over);
}

TEST_CASE("sweep times do not depend on the number of threads, the other points or their order") {
  auto p = traced("h200/corpus/kernel-21.traceg.xz");
  auto g = GpuSpec::from_catalog(tables(), "h200");
  std::vector<GpuSpec> specs;
  for (int i = 0; i < 60; ++i) {
    GpuSpec w = g;
    w.set("sm_clock_mhz", 800 + 20.0 * i);
    w.set("sms", 40 + (i % 5) * 23);
    specs.push_back(w);
  }
  const auto one = p->predict_times(specs, {}, 1);
  p->clear_cache();
  CHECK(p->predict_times(specs, {}, 2) == one);
  p->clear_cache();
  CHECK(p->predict_times(specs, {}, 0) == one);
  std::vector<GpuSpec> reversed(specs.rbegin(), specs.rend());
  auto back = p->predict_times(reversed, {}, 2);
  std::reverse(back.begin(), back.end());
  CHECK(back == one);
  CHECK(p->predict_times({specs[17]}, {}, 1).front() == one[17]);
  // Exact rounds: predict()'s time, on any number of threads.
  const auto exact = p->predict_times(specs, {}, 2, SweepRounds::exact);
  for (std::size_t i = 0; i < specs.size(); ++i) CHECK(exact[i] == exact_time(*p, specs[i]));
  // Through a Session, kernel by kernel.
  Session s(load(std::vector<std::string>{kData + "/h200/corpus/kernel-21.traceg.xz"}));
  const auto st = s.predict_times(specs, {}, {}, 2);
  for (std::size_t i = 0; i < specs.size(); ++i) CHECK(st[i][0] == one[i]);
}

}  // namespace gpuperf_test_what_if
