// The calibrated prediction interval, the launch term per prediction target, and the fitted
// per-GPU table entries they are read from (model/interval.hpp, arch/gpu_spec.hpp).
#include <doctest/doctest.h>

#include <algorithm>

#include <boost/math/distributions/normal.hpp>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "gpuperf/arch/gpu_spec.hpp"
#include "gpuperf/model/interval.hpp"

// Each test file has its own namespace: the unit tests compile as one unity build.
namespace gpuperf_test_interval {

using namespace gpuperf;

namespace {
const std::string kShipped = std::string(GPUPERF_TEST_DIR) + "/../latency_tables";

// A gpus.json override: the shipped catalog with `edit` applied to the H100 entry and its sources.
std::shared_ptr<const Tables> catalog_with(const std::string& name, void (*edit)(nlohmann::json& gpu, nlohmann::json& sources)) {
  namespace fs = std::filesystem;
  const fs::path over = fs::temp_directory_path() / ("gpuperf_test_interval_" + name);
  fs::remove_all(over);
  fs::create_directories(over);
  std::ifstream in(kShipped + "/gpus.json");
  auto j = nlohmann::json::parse(in);
  for (auto& g : j["gpus"])
    if (g["name"] == "H100-SXM5-80GB") edit(g, j["sources"]);
  std::ofstream(over / "gpus.json") << j.dump(1);
  return Tables::load({over.string(), kShipped});
}

void fitted_h100(nlohmann::json& g, nlohmann::json& s) {
  for (auto it = g.begin(); it != g.end();) {  // the shipped entry's own fitted values, if any, are replaced
    const std::string k = it.key();
    it = k.rfind("interval_", 0) == 0 || k.rfind("launch_", 0) == 0 ? g.erase(it) : std::next(it);
  }
  s["fit-test"] = {{"kind", "fitted"}, {"on", "validation train split (hecbench, rodinia)"}, {"gpu", "h100"}, {"tool", "bench/validation/fit.py"}, {"date", "2026-11-23"}};
  g["launch_duration_us"] = {{"value", 1.5}, {"source", "fit-test"}};
  g["launch_back_to_back_us"] = {{"value", 3.5}, {"source", "fit-test"}};
  g["interval_bounds_duration_log_low"] = {{"value", -0.4}, {"source", "fit-test"}};
  g["interval_bounds_duration_log_high"] = {{"value", 0.3}, {"source", "fit-test"}};
}
}  // namespace

TEST_CASE("the Student-t interval of log ratios matches the textbook prediction interval") {
  // mean 0, sd 0.1, n 3: t_{0.9, 2} = 1.885618, half width 1.885618 * 0.1 * sqrt(4/3).
  const LogInterval i = fit_log_interval({-0.1, 0.0, 0.1}, 0.8);
  CHECK(i.low == doctest::Approx(-0.217732).epsilon(1e-4));
  CHECK(i.high == doctest::Approx(0.217732).epsilon(1e-4));
  // A biased model (measured 20 % above predicted on average) gets an interval centred there.
  const LogInterval b = fit_log_interval({std::log(1.1), std::log(1.2), std::log(1.3)}, 0.8);
  CHECK((b.low + b.high) / 2 == doctest::Approx((std::log(1.1) + std::log(1.2) + std::log(1.3)) / 3));
  CHECK_THROWS_AS(fit_log_interval({0.1, 0.2}), std::invalid_argument);
  CHECK_THROWS_AS(fit_log_interval({0.1, 0.2, 0.3}, 1.0), std::invalid_argument);
}

TEST_CASE("the conformal interval takes the order statistics of its ranks") {
  // n = 19, level 0.8: ranks floor(20 * 0.1) = 2 and ceil(20 * 0.9) = 18 of the sorted sample.
  std::vector<double> x;
  for (int i = 19; i >= 1; --i) x.push_back(0.1 * i);
  const LogInterval i = conformal_log_interval(x, 0.8);
  CHECK(i.low == doctest::Approx(0.2));
  CHECK(i.high == doctest::Approx(1.8));
  CHECK_THROWS_AS(conformal_log_interval({0.1, 0.2, 0.3}, 0.8), std::invalid_argument);  // rank 0 below the sample
}

TEST_CASE("an interval fitted on one sample holds about its level of another from the same distribution") {
  // Log ratios spread as N(0.1, 0.3): train and test are the normal's quantiles at interleaved points.
  const boost::math::normal d(0.1, 0.3);
  std::vector<double> train, measured;
  std::vector<std::pair<double, double>> ranges;
  for (int i = 0; i < 200; ++i) train.push_back(boost::math::quantile(d, (i + 0.25) / 200));
  for (const LogInterval iv : {fit_log_interval(train), conformal_log_interval(train)}) {
    measured.clear();
    ranges.clear();
    for (int i = 0; i < 200; ++i) {
      const double predicted = 10.0;
      measured.push_back(predicted * std::exp(boost::math::quantile(d, (i + 0.75) / 200)));
      ranges.push_back(interval_us(predicted, iv));
    }
    CHECK(coverage(measured, ranges) == doctest::Approx(0.8).epsilon(0.03));
  }
  CHECK(coverage({}, {}) == 0);
}

TEST_CASE("the calibrated interval replaces the range only for the mode and target it was fitted for") {
  CalibratedIntervals c;
  c.bounds_duration = LogInterval{-0.5, 0.25};
  KernelReport r;
  r.time_us = 10;
  r.time_low_us = r.time_high_us = 10;
  r.mode = Mode::simulation;
  GpuSpec g;
  g.intervals = c;
  apply_calibrated_interval(g, r);
  CHECK_FALSE(r.interval_calibrated);  // no simulation interval: the range stays as the model set it
  CHECK(r.time_low_us == 10);
  r.mode = Mode::bounds;
  r.target = Target::back_to_back;
  apply_calibrated_interval(g, r);
  CHECK_FALSE(r.interval_calibrated);
  r.target = Target::duration;
  apply_calibrated_interval(g, r);
  CHECK(r.interval_calibrated);
  CHECK(r.time_low_us == doctest::Approx(10 * std::exp(-0.5)));
  CHECK(r.time_high_us == doctest::Approx(10 * std::exp(0.25)));
}

TEST_CASE("each prediction target has its own launch term, read from the GPU's fitted entries") {
  auto t = catalog_with("fitted", fitted_h100);
  CHECK(t->check().empty());  // the fitted provenance form is accepted
  const GpuSpec h100 = GpuSpec::from_catalog(t, "h100");
  CHECK(launch_term(h100, Target::duration) == doctest::Approx(1.5));
  CHECK(launch_term(h100, Target::back_to_back) == doctest::Approx(3.5));
  REQUIRE(h100.intervals.bounds_duration);
  CHECK(h100.intervals.bounds_duration->low == doctest::Approx(-0.4));
  CHECK_FALSE(h100.intervals.simulation_duration);
  // A GPU without fitted terms uses the arch table's launch overhead for both.
  const GpuSpec a100 = GpuSpec::from_catalog(t, "a100");
  CHECK(launch_term(a100, Target::duration) == launch_term(a100, Target::back_to_back));
  CHECK(launch_term(a100, Target::duration) == doctest::Approx(a100.arch_table().mem("launch_overhead_us")));
}

TEST_CASE("a fitted source must say what it was fitted on") {
  auto t = catalog_with("fitted_no_on", [](nlohmann::json& g, nlohmann::json& s) {
    fitted_h100(g, s);
    s["fit-test"].erase("on");
  });
  bool named = false;
  for (auto& i : t->check()) named |= i.message.find("source 'fit-test' of kind 'fitted' needs 'on'") != std::string::npos;
  CHECK(named);
}

TEST_CASE("the suite-robust interval is the union of each suite's conformal interval") {
  // Two suites whose errors share different biases: pooled, the interval sits between them.
  std::vector<double> a, b;
  for (int i = 0; i < 19; ++i) a.push_back(-0.1 + 0.01 * i);  // -0.10 .. 0.08
  for (int i = 0; i < 19; ++i) b.push_back(0.3 + 0.02 * i);   // 0.30 .. 0.66
  const LogInterval ia = conformal_log_interval(a, 0.8), ib = conformal_log_interval(b, 0.8);
  const LogInterval u = suite_robust_log_interval({a, b}, 0.8);
  CHECK(u.low == ia.low);
  CHECK(u.high == ib.high);
  CHECK(ia.low == doctest::Approx(-0.09));  // rank 2 of 19
  CHECK(ib.high == doctest::Approx(0.64));  // rank 18 of 19
  // It holds at least 80 % of each suite.
  auto held = [](const std::vector<double>& x, const LogInterval& iv) {
    return double(std::count_if(x.begin(), x.end(), [&](double v) { return v >= iv.low && v <= iv.high; })) / double(x.size());
  };
  CHECK(held(a, u) >= 0.8);
  CHECK(held(b, u) >= 0.8);
  // A suite too small for an interval is skipped; none large enough is an error.
  CHECK(suite_robust_log_interval({a, {5.0, 6.0}}, 0.8).high == ia.high);
  CHECK_THROWS_AS(suite_robust_log_interval({{0.1, 0.2}, {0.3}}, 0.8), std::invalid_argument);
}

TEST_CASE("the held-out-suite level widens the fit until each train suite left out is covered") {
  // Two suites of 40 log ratios each, one unbiased and one biased by +0.3: an 80 % interval of
  // either misses much of the other, so the level rises until both are held.
  std::vector<double> a, b;
  for (int i = 0; i < 40; ++i) {
    a.push_back(-0.2 + 0.4 * i / 39.0);
    b.push_back(0.1 + 0.4 * i / 39.0);
  }
  const std::vector<double> at80 = held_out_suite_coverage({a, b}, 0.8);
  REQUIRE(at80.size() == 2);
  CHECK(at80[0] < 0.8);  // b's interval [0.12, 0.48] holds a's upper quarter only
  CHECK(at80[1] < 0.8);
  const double level = held_out_suite_level({a, b}, 0.8);
  // No level reaches 80 % of the other: the largest at which a suite of 40 still has its own
  // interval (97.5 % needs 79), so the suite-robust interval exists there.
  CHECK(level == doctest::Approx(0.95));
  CHECK_NOTHROW(suite_robust_log_interval({a, b}, level));
  CHECK_THROWS(suite_robust_log_interval({a, b}, 0.975));
  // Two suites alike: each one's 80 % interval holds 34 of the other's 40. Taken at face value
  // (confidence 0.5) the level stays; 34 of 40 is not 90 % sure to be 80 % (the lower bound is
  // under 0.8), so at the default confidence the level rises until it is.
  CHECK(held_out_suite_coverage({a, a}, 0.8)[0] == doctest::Approx(0.85));
  CHECK(held_out_suite_level({a, a}, 0.8, 0.5) == doctest::Approx(0.8));
  CHECK(coverage_lower_bound(0.85, 40) < 0.8);
  CHECK(coverage_lower_bound(0.85, 40, 0.5) > 0.8);
  CHECK(coverage_lower_bound(0.85, 40000) > 0.84);  // the bound closes in with the suite's size
  // Suites of 400 alike: the 80 % interval of one holds about 80 % of the other, not surely 80 %;
  // the level rises to the first at which both are held 90 % sure.
  std::vector<double> big;
  for (int i = 0; i < 400; ++i) big.push_back(-0.2 + 0.4 * i / 399.0);
  const double sure = held_out_suite_level({big, big}, 0.8);
  CHECK(sure > 0.8);
  CHECK(sure < 0.9);
  for (double cov : held_out_suite_coverage({big, big}, sure)) CHECK(coverage_lower_bound(cov, 400) >= 0.8);
  for (double cov : held_out_suite_coverage({big, big}, sure - 0.025)) CHECK(coverage_lower_bound(cov, 400) < 0.8);
  // A milder bias between suites of 40: some level between holds both (at face value).
  std::vector<double> c;
  for (int i = 0; i < 40; ++i) c.push_back(a[i] + 0.06);
  const double mid = held_out_suite_level({a, c}, 0.8, 0.5);
  CHECK(mid > 0.8);
  CHECK(mid < 0.975);
  for (double cov : held_out_suite_coverage({a, c}, mid)) CHECK(cov >= 0.8);
  // One suite: nothing to leave out.
  CHECK(held_out_suite_level({a}, 0.8) == 0.8);
  // Suites too small for an interval of the rest get no coverage entry.
  CHECK(held_out_suite_coverage({a, {0.1, 0.2}}, 0.8)[0] == -1);
}

}  // namespace gpuperf_test_interval
