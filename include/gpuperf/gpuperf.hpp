// gpuperf public API: load a trace once, predict for any GPU spec.
//
//   auto tables = gpuperf::Tables::load_default();
//   gpuperf::Session s(gpuperf::load("trace.traceg"));
//   auto gpu = gpuperf::GpuSpec::from_catalog(tables, "a100");
//   gpu.set("sm_clock_mhz", 1200);               // what-if
//   gpuperf::Report r = s.predict(gpu);
//
// Session and Predictor are safe to use from many threads at once (const methods).
#pragma once

#include <algorithm>
#include <cctype>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "gpuperf/arch/gpu_spec.hpp"
#include "gpuperf/arch/instr_desc.hpp"
#include "gpuperf/arch/tables.hpp"
#include "gpuperf/error.hpp"
#include "gpuperf/model/analysis.hpp"
#include "gpuperf/model/occupancy.hpp"
#include "gpuperf/model/predictor.hpp"
#include "gpuperf/parallel.hpp"
#include "gpuperf/report/report.hpp"
#include "gpuperf/report/views.hpp"
#include "gpuperf/trace/load.hpp"
#include "gpuperf/version.hpp"

namespace gpuperf {

// One identity per launch in every view: its 1-based position in the input (as --kernel and
// sweep number it), the id its input gives it and its demangled name.
inline void identify(KernelReport& r, const LaunchConfig& launch, std::size_t position) {
  r.launch_id = static_cast<std::uint32_t>(position);
  r.input_launch_id = launch.id;
  r.name = demangle(launch.name);
}

// The CUDA source line of each per-PC row, from the kernel's program (the model does not read
// them: they label rows only).
inline void attach_source_lines(KernelReport& r, const Kernel& k) {
  if (r.per_pc.empty()) return;
  std::unordered_map<std::uint64_t, const StaticInstr*> by_pc;
  for (const auto& s : k.program)
    if (s.source_line) by_pc.emplace(s.pc, &s);
  if (by_pc.empty()) return;
  for (auto& row : r.per_pc) {
    auto it = by_pc.find(row.pc);
    if (it == by_pc.end()) continue;
    row.source_file = it->second->source_file;
    row.source_line = it->second->source_line;
  }
}

// identify() and the per-PC rows' source lines.
inline void identify(KernelReport& r, const Kernel& k, std::size_t position) {
  identify(r, k.launch, position);
  attach_source_lines(r, k);
}

// An application's kernels analysed once; predict() for any GPU re-uses the analysis.
class Session {
 public:
  explicit Session(Application app) : measurements_(std::move(app.measurements)), memcpys_(std::move(app.memcpys)), device_name_(app.device_name) {
    for (std::size_t i = 0; i < app.kernels.size(); ++i) {
      auto kp = std::make_shared<const Kernel>(std::move(app.kernels[i]));
      kernels_.push_back(kp);
      predictors_.push_back(std::make_shared<const Predictor>(kp));
      launch_ids_.push_back(i < app.launch_ids.size() ? app.launch_ids[i] : static_cast<std::uint32_t>(i + 1));
    }
  }
  std::size_t size() const { return kernels_.size(); }
  const Kernel& kernel(std::size_t i) const { return *kernels_.at(i); }
  const Predictor& predictor(std::size_t i) const { return *predictors_.at(i); }
  // The launch id of kernel i: its 1-based position in the input (a load-time selection keeps it).
  std::uint32_t launch_id(std::size_t i) const { return launch_ids_.at(i); }
  // Measured values of a launch, if the input had them (for validation views only).
  const Measurement& measurement(std::size_t i) const { return measurements_.at(i); }
  const std::string& device_name() const { return device_name_; }

  // Indices of kernels matching a launch id or a name regex (demangled or raw name); all if
  // `selector` is empty.
  std::vector<std::size_t> select(const std::string& selector) const {
    std::vector<std::size_t> out;
    for (std::size_t i = 0; i < kernels_.size(); ++i)
      if (launch_matches(kernels_[i]->launch, launch_ids_[i], selector)) out.push_back(i);
    if (out.empty()) throw UnknownKernelError("no kernel matches '" + selector + "' (" + std::to_string(kernels_.size()) + " kernels in the input)");
    return out;
  }

  // The kernels' predictions on `jobs` threads (1: this thread; 0: every core).
  Report predict(const GpuSpec& g, const PredictOptions& opt = {}, const std::vector<std::size_t>& which = {}, unsigned jobs = 1) const {
    return predict_many({g}, opt, which, jobs).front();
  }

  // One report per GPU spec (a sweep or a comparison), the (spec, kernel) predictions spread
  // over `jobs` threads (0: every core). Equal to calling predict() for each spec in turn.
  std::vector<Report> predict_many(const std::vector<GpuSpec>& gpus, const PredictOptions& opt = {}, const std::vector<std::size_t>& which = {},
                                   unsigned jobs = 0) const {
    std::vector<std::size_t> idx = which;
    if (idx.empty()) for (std::size_t i = 0; i < kernels_.size(); ++i) idx.push_back(i);
    for (auto i : idx) (void)predictors_.at(i);  // an index out of range fails before any work
    std::vector<KernelReport> out(gpus.size() * idx.size());
    parallel_for(out.size(), jobs, [&](std::size_t t) {
      std::size_t g = t / idx.size(), i = idx[t % idx.size()];
      out[t] = predictors_[i]->predict(gpus[g], opt);
      identify(out[t], *kernels_[i], launch_ids_[i]);
    });
    std::vector<Report> reps(gpus.size());
    for (std::size_t g = 0; g < gpus.size(); ++g) {
      Report& r = reps[g];
      r.tool_version = version_string();
      r.gpu = gpus[g].name;
      for (std::size_t k = 0; k < idx.size(); ++k) {
        r.kernels.push_back(std::move(out[g * idx.size() + k]));
        r.total_time_us += r.kernels.back().time_us;  // summed in launch order, as serially
      }
    }
    return reps;
  }

  // Each selected kernel's predicted time per GPU spec, out[spec][kernel in `which`]: a sweep's
  // numbers. Interpolated rounds (Predictor::predict_times), or exact: predict()'s time_us.
  // On `jobs` threads (0: every core); the result does not depend on it.
  std::vector<std::vector<double>> predict_times(const std::vector<GpuSpec>& gpus, const PredictOptions& opt = {},
                                                 const std::vector<std::size_t>& which = {}, unsigned jobs = 0,
                                                 SweepRounds rounds = SweepRounds::interpolated) const {
    std::vector<std::size_t> idx = which;
    if (idx.empty()) for (std::size_t i = 0; i < kernels_.size(); ++i) idx.push_back(i);
    for (auto i : idx) (void)predictors_.at(i);
    std::vector<std::vector<double>> out(gpus.size(), std::vector<double>(idx.size()));
    if (rounds == SweepRounds::exact) {
      PredictOptions o = opt;
      o.per_pc = false;
      parallel_for(gpus.size() * idx.size(), jobs, [&](std::size_t t) {
        out[t / idx.size()][t % idx.size()] = predictors_[idx[t % idx.size()]]->predict(gpus[t / idx.size()], o).time_us;
      });
      return out;
    }
    for (std::size_t k = 0; k < idx.size(); ++k) {
      const std::vector<double> t = predictors_[idx[k]]->predict_times(gpus, opt, jobs, rounds);
      for (std::size_t g = 0; g < gpus.size(); ++g) out[g][k] = t[g];
    }
    return out;
  }

 private:
  std::vector<std::shared_ptr<const Kernel>> kernels_;
  std::vector<std::shared_ptr<const Predictor>> predictors_;
  std::vector<std::uint32_t> launch_ids_;
  std::vector<Measurement> measurements_;
  std::vector<MemcpyCommand> memcpys_;
  std::string device_name_;
};

}  // namespace gpuperf
