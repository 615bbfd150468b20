// Fits, per GPU, how the SM's time overlaps the memory transfers and, per prediction target,
// the launch term and the calibrated interval, from the training part of the validation
// corpus (driven by fit.py, which gathers the rows).
//
//   gpuperf_fit < rows.tsv > fit.json
//
// Each input row: gpu, target (duration|back-to-back), mode (simulation|bounds), split, suite, and in
// microseconds the kernel's bounds: sm_rounds (the busiest SM's rounds), issue, functional_unit,
// shared_memory, l1, dram, l2, memory_phases (0 where the input has no addresses), floor (the larger of the atomics and busiest-warp bounds) and
// measured. A row of any split other than "train" is an error: nothing is ever fitted on the
// test part.
//
// Overlap exponent p per model mode: the body is gpuperf's bound::sm_and_memory of the row's
// bound::overlap_parts (the SM's throughput and the longer of DRAM and L2 as their p-norm, never
// below the rounds), or the floor where that is longer, the rule the model applies; p is chosen on a grid (with "not fitted", the largest part, among the
// candidates) by the mean |log(measured / predicted)| over the GPU's rows, with each target's
// launch term re-fitted for every candidate. `--same-sm h100,h200`: those GPUs have one SM
// design (the same architecture), so the SM's time overlaps their memory transfers alike: one
// p per mode is chosen over all their rows (each GPU and target keeps its own launch term).
// Launch term L: minimises sum_i w_i ((body_i + L - m_i) / m_i)^2 over 0 <= L <= 50 us, a
// one-column weighted least-squares problem solved with Eigen; the weights are Huber's
// (relative residual beyond 25 %), iterated, so a few kernels the model gets wrong otherwise
// do not set the term for all. The relative error lets short kernels decide it: a long
// kernel's residual barely moves with L. Back to back, the time is max(F, body_i + L): F, the
// period of the launch path (gpuperf::target_time_us), is chosen on a 0.05 us grid over 0..10 us
// by the mean |log error| of the target's rows, with L fitted for each candidate on the rows
// the period does not bound (re-fitted until that set stops changing); F = 0 is no period, and
// the exponents are chosen before it (the period moves only kernels of a few us, whose bodies
// the exponents barely touch). Then the interval of log(m_i / time_i) per model
// mode at gpuperf::kIntervalLevel: the suite-robust one (the union of each train suite's
// split-conformal interval, gpuperf::suite_robust_log_interval, at the level at which every
// train suite left out is held: gpuperf::held_out_suite_level) is stored, since the interval
// is used on kernels of suites the fit never saw; the pooled split-conformal and the Student-t
// (Boost.Math) ones are reported beside it, with each one's coverage of every train suite.
#include <Eigen/Dense>
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <iostream>
#include <map>
#include <sstream>
#include <string>
#include <tuple>
#include <vector>

#include <nlohmann/json.hpp>

#include "gpuperf/model/bounds.hpp"
#include "gpuperf/model/interval.hpp"

namespace {

struct Row {
  std::string gpu, target, mode, suite;
  gpuperf::bound::OverlapParts parts;
  double floor = 0, measured = 0;
  double body = 0;  // with the chosen overlap exponent
};

// Candidate exponents; 0 is "not fitted": the largest part, as without an exponent.
constexpr double kExponents[] = {0, 1, 1.25, 1.5, 1.75, 2, 2.5, 3, 4, 6, 8};

double body_us(const Row& r, double p) { return std::max(gpuperf::bound::sm_and_memory(r.parts, p), r.floor); }

struct LaunchFit {
  double value = 0, stderr_us = 0;
  int iterations = 0;
  double period = 0;  // back to back: the launch path's period F (0: none)
  double time(const Row& r) const { return std::max(period, r.body + value); }
};

constexpr double kMaxLaunchUs = 50, kHuber = 0.25;

LaunchFit fit_launch(const std::vector<Row>& rows) {
  const Eigen::Index n = static_cast<Eigen::Index>(rows.size());
  Eigen::VectorXd a(n), y(n), w = Eigen::VectorXd::Ones(n);
  for (Eigen::Index i = 0; i < n; ++i) {
    a(i) = 1.0 / rows[i].measured;
    y(i) = (rows[i].measured - rows[i].body) / rows[i].measured;
  }
  LaunchFit f;
  for (f.iterations = 1; f.iterations <= 50; ++f.iterations) {
    Eigen::VectorXd sw = w.cwiseSqrt();
    Eigen::MatrixXd A = (a.cwiseProduct(sw)).eval();
    double L = A.colPivHouseholderQr().solve(y.cwiseProduct(sw))(0);
    L = std::clamp(L, 0.0, kMaxLaunchUs);  // one parameter: projecting is the constrained optimum
    Eigen::VectorXd r = y - a * L;
    Eigen::VectorXd nw = r.cwiseAbs().unaryExpr([](double x) { return x <= kHuber ? 1.0 : kHuber / x; });
    const bool done = std::abs(L - f.value) < 1e-6;
    f.value = L;
    w = nw;
    if (done) break;
  }
  Eigen::VectorXd r = y - a * f.value;
  const double dof = std::max<double>(1, double(n) - 1);
  const double s2 = (w.cwiseProduct(r.cwiseAbs2())).sum() / dof;
  f.stderr_us = std::sqrt(s2 / (w.cwiseProduct(a.cwiseAbs2())).sum());
  return f;
}

double mean_abs_log_error(const std::vector<Row>& rows, const LaunchFit& f) {
  double sum = 0;
  for (auto& r : rows) sum += std::abs(std::log(r.measured / f.time(r)));
  return rows.empty() ? 0 : sum / double(rows.size());
}

constexpr double kMaxPeriodUs = 10, kPeriodStepUs = 0.05;

// The launch term and, back to back, the period (see the top of the file).
LaunchFit fit_launch_and_period(const std::vector<Row>& rows, bool back_to_back) {
  const LaunchFit unbounded = fit_launch(rows);  // no period: every row
  if (!back_to_back) return unbounded;
  LaunchFit best = unbounded;
  double best_score = mean_abs_log_error(rows, best);
  for (int step = 1; step * kPeriodStepUs <= kMaxPeriodUs + 1e-9; ++step) {
    const double F = step * kPeriodStepUs;
    LaunchFit f = unbounded;
    std::size_t last = rows.size() + 1;
    for (int round = 0; round < 20; ++round) {
      std::vector<Row> unbound;  // the rows whose time the period does not set
      for (auto& r : rows)
        if (r.body + f.value >= F) unbound.push_back(r);
      if (unbound.size() < 2 || unbound.size() == last) break;
      last = unbound.size();
      f = fit_launch(unbound);
    }
    f.period = F;
    const double score = mean_abs_log_error(rows, f);
    if (score < best_score - 1e-12) { best_score = score; best = f; }
  }
  return best;
}

// MAPE (%) of the fitted times over the rows, and over those measured below `short_us`.
std::pair<double, double> mape(const std::vector<Row>& rows, const LaunchFit& f, double short_us) {
  double all = 0, small = 0;
  int n_small = 0;
  for (auto& r : rows) {
    double e = std::abs(f.time(r) - r.measured) / r.measured * 100;
    all += e;
    if (r.measured < short_us) { small += e; ++n_small; }
  }
  return {rows.empty() ? 0 : all / double(rows.size()), n_small ? small / n_small : 0};
}

}  // namespace

int main(int argc, char** argv) {
  using nlohmann::json;
  // GPUs that share one exponent pair (--same-sm); every other GPU has its own.
  std::map<std::string, std::string> exponent_group;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "--same-sm" && i + 1 < argc) {
      const std::string list = argv[++i];
      std::istringstream in(list);
      for (std::string gpu; std::getline(in, gpu, ',');)
        if (!gpu.empty()) exponent_group[gpu] = list;
    } else {
      std::fprintf(stderr, "gpuperf_fit: unknown argument '%s' (usage: gpuperf_fit [--same-sm GPU,GPU...] < rows.tsv)\n", arg.c_str());
      return 2;
    }
  }
  std::map<std::string, std::vector<Row>> by_gpu;
  std::string line;
  int lineno = 0;
  while (std::getline(std::cin, line)) {
    ++lineno;
    if (line.empty() || line[0] == '#') continue;
    std::istringstream in(line);
    std::string gpu, split;
    Row r;
    double sm_rounds = 0, issue = 0, unit = 0, shared = 0, l1 = 0, dram = 0, l2 = 0, phases = 0;
    if (!(in >> gpu >> r.target >> r.mode >> split >> r.suite >> sm_rounds >> issue >> unit >> shared >> l1 >> dram >> l2 >> phases >> r.floor >>
          r.measured)) {
      std::fprintf(stderr,
                   "gpuperf_fit: stdin line %d: expected gpu target mode split suite sm_rounds_us issue_us functional_unit_us "
                   "shared_memory_us l1_us dram_us l2_us memory_phases_us floor_us measured_us\n",
                   lineno);
      return 1;
    }
    if (split != "train") {
      std::fprintf(stderr, "gpuperf_fit: stdin line %d: split '%s': only the train part may be fitted on\n", lineno, split.c_str());
      return 1;
    }
    if ((r.mode != "simulation" && r.mode != "bounds") || (r.target != "duration" && r.target != "back-to-back") || !(r.measured > 0) ||
        !(sm_rounds >= 0) || !(issue >= 0) || !(unit >= 0) || !(shared >= 0) || !(l1 >= 0) || !(dram >= 0) || !(l2 >= 0) || !(phases >= 0) || !(r.floor >= 0)) {
      std::fprintf(stderr, "gpuperf_fit: stdin line %d: bad mode, target or times\n", lineno);
      return 1;
    }
    r.parts = gpuperf::bound::overlap_parts(sm_rounds, issue, unit, shared, l1, dram, l2, phases);
    r.gpu = gpu;
    by_gpu[gpu].push_back(r);
  }
  // Per exponent group (a GPU, or the GPUs of one SM design): the exponents (simulation,
  // bounds) with the smallest mean |log error| over its rows, each GPU's and target's launch
  // term re-fitted for every pair.
  std::map<std::string, std::vector<std::string>> members;  // group -> its GPUs
  for (auto& [gpu, rows] : by_gpu) members[exponent_group.count(gpu) ? exponent_group[gpu] : gpu].push_back(gpu);
  std::map<std::pair<std::string, std::string>, std::vector<Row>> groups;  // (gpu, target)
  json exponents = json::object();
  for (auto& [group, gpus] : members) {
    std::vector<Row> all;
    for (auto& gpu : gpus) all.insert(all.end(), by_gpu[gpu].begin(), by_gpu[gpu].end());
    auto score = [&](double ps, double pb) {
      std::map<std::pair<std::string, std::string>, std::vector<Row>> per_target;  // each GPU's own launch term
      for (Row r : all) {
        r.body = body_us(r, r.mode == "simulation" ? ps : pb);
        per_target[{r.gpu, r.target}].push_back(r);
      }
      double sum = 0;
      std::size_t n = 0;
      for (auto& [t, rows] : per_target) {
        const double L = fit_launch(rows).value;
        for (auto& r : rows) { sum += std::abs(std::log(r.measured / (r.body + L))); ++n; }
      }
      return n ? sum / double(n) : 0.0;
    };
    double best_s = 0, best_b = 0, best = score(0, 0);
    const double without = best;
    for (double ps : kExponents)
      for (double pb : kExponents) {
        const double x = score(ps, pb);
        if (x < best - 1e-9) { best = x; best_s = ps; best_b = pb; }
      }
    for (auto& gpu : gpus)
      exponents[gpu] = {{"simulation", best_s}, {"bounds", best_b}, {"mean_abs_log_error", best}, {"mean_abs_log_error_without", without},
                        {"n", all.size()}, {"chosen_over", gpus}};
    for (Row r : all) {
      r.body = body_us(r, r.mode == "simulation" ? best_s : best_b);
      groups[{r.gpu, r.target}].push_back(r);
    }
  }
  json out = json::object();
  for (auto& [key, rows] : groups) {
    const LaunchFit L = fit_launch_and_period(rows, key.second == "back-to-back");
    const auto [mape_all, mape_short] = mape(rows, L, 10);
    const auto [mape_all0, mape_short0] = mape(rows, LaunchFit{}, 10);
    int n_short = 0;
    for (auto& r : rows) n_short += r.measured < 10;
    json g = {{"launch_us", L.value}, {"launch_stderr_us", L.stderr_us}, {"iterations", L.iterations}, {"n", rows.size()},
              {"launch_period_us", L.period}, {"mean_abs_log_error", mean_abs_log_error(rows, L)},
              {"n_below_10us", n_short}, {"mape", mape_all}, {"mape_below_10us", mape_short}, {"mape_below_10us_without_launch", mape_short0},
              {"mape_without_launch", mape_all0}};
    for (const char* mode : {"simulation", "bounds"}) {
      std::vector<double> lr;
      std::map<std::string, std::vector<double>> by_suite;
      for (auto& r : rows)
        if (r.mode == mode) {
          lr.push_back(std::log(r.measured / L.time(r)));
          by_suite[r.suite].push_back(lr.back());
        }
      if (lr.size() < 3) continue;
      // Share of the mode's rows (of one suite, or all) the interval holds.
      auto train_coverage = [&](const gpuperf::LogInterval& iv, const std::string& suite = "") {
        std::vector<double> m;
        std::vector<std::pair<double, double>> ranges;
        for (auto& r : rows)
          if (r.mode == mode && (suite.empty() || r.suite == suite)) {
            m.push_back(r.measured);
            ranges.push_back(gpuperf::interval_us(L.time(r), iv));
          }
        return gpuperf::coverage(m, ranges);
      };
      auto per_suite = [&](const gpuperf::LogInterval& iv) {
        json c = json::object();
        for (auto& [suite, v] : by_suite) c[suite] = train_coverage(iv, suite);
        return c;
      };
      const gpuperf::LogInterval t = gpuperf::fit_log_interval(lr, gpuperf::kIntervalLevel);
      if (lr.size() < 10) continue;  // too few for the order statistics of an 80 % interval
      const gpuperf::LogInterval pooled = gpuperf::conformal_log_interval(lr, gpuperf::kIntervalLevel);
      std::vector<std::vector<double>> groups;
      for (auto& [suite, v] : by_suite) groups.push_back(v);
      // Fitted at the level whose leave-one-suite-out intervals hold the stated share of each
      // train suite left out (with kHeldOutConfidence), so that it holds about that share of a
      // suite it never saw.
      const double level = gpuperf::held_out_suite_level(groups, gpuperf::kIntervalLevel);
      json held_out = json::object();
      {
        const std::vector<double> cov = gpuperf::held_out_suite_coverage(groups, level), cov80 = gpuperf::held_out_suite_coverage(groups, gpuperf::kIntervalLevel);
        std::size_t i = 0;
        for (auto& [suite, v] : by_suite) {
          held_out[suite] = {{"at_fitted_level", cov[i]},
                             {"lower_bound_at_fitted_level", gpuperf::coverage_lower_bound(cov[i], groups[i].size())},
                             {"at_stated_level", cov80[i]}};
          ++i;
        }
      }
      const gpuperf::LogInterval iv = gpuperf::suite_robust_log_interval(groups, level);
      g["interval"][mode] = {
          {"method", "suite-robust split-conformal"}, {"log_low", iv.low}, {"log_high", iv.high}, {"n", lr.size()},
          {"suites", by_suite.size()}, {"level", gpuperf::kIntervalLevel}, {"fitted_level", level}, {"held_out_confidence", gpuperf::kHeldOutConfidence},
          {"held_out_suite_coverage", held_out}, {"train_coverage", train_coverage(iv)},
          {"train_coverage_per_suite", per_suite(iv)},
          {"pooled_conformal", {{"log_low", pooled.low}, {"log_high", pooled.high}, {"train_coverage", train_coverage(pooled)},
                                {"train_coverage_per_suite", per_suite(pooled)}}},
          {"student_t", {{"log_low", t.low}, {"log_high", t.high}, {"train_coverage", train_coverage(t)}}}};
    }
    out[key.first][key.second] = g;
  }
  for (auto& [gpu, e] : exponents.items()) out[gpu]["overlap_exponent"] = e;
  std::cout << out.dump(1) << "\n";
  return 0;
}
