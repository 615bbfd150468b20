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
#include <vector>

#include "gpuperf/arch/gpu_spec.hpp"
#include "gpuperf/arch/instr_desc.hpp"
#include "gpuperf/arch/tables.hpp"
#include "gpuperf/error.hpp"
#include "gpuperf/model/analysis.hpp"
#include "gpuperf/model/occupancy.hpp"
#include "gpuperf/model/predict.hpp"
#include "gpuperf/report/report.hpp"
#include "gpuperf/report/views.hpp"
#include "gpuperf/trace/load.hpp"
#include "gpuperf/version.hpp"

namespace gpuperf {

// One identity per launch in every view: its 1-based position in the input (as --kernel and
// sweep number it) and its demangled name.
inline void identify(KernelReport& r, const LaunchConfig& launch, std::size_t position) {
  r.launch_id = static_cast<std::uint32_t>(position);
  r.name = demangle(launch.name);
}

// An application's kernels analysed once; predict() for any GPU re-uses the analysis.
class Session {
 public:
  explicit Session(Application app) : measurements_(std::move(app.measurements)), memcpys_(std::move(app.memcpys)), device_name_(app.device_name) {
    for (auto& k : app.kernels) {
      auto kp = std::make_shared<const Kernel>(std::move(k));
      kernels_.push_back(kp);
      predictors_.push_back(std::make_shared<const Predictor>(kp));
    }
  }
  std::size_t size() const { return kernels_.size(); }
  const Kernel& kernel(std::size_t i) const { return *kernels_.at(i); }
  const Predictor& predictor(std::size_t i) const { return *predictors_.at(i); }
  // Measured values of a launch, if the input had them (for validation views only).
  const Measurement& measurement(std::size_t i) const { return measurements_.at(i); }
  const std::string& device_name() const { return device_name_; }

  // Indices of kernels matching a 1-based launch id or a name regex (demangled or raw name);
  // all if `selector` is empty.
  std::vector<std::size_t> select(const std::string& selector) const {
    std::vector<std::size_t> out;
    for (std::size_t i = 0; i < kernels_.size(); ++i)
      if (launch_matches(kernels_[i]->launch, i + 1, selector)) out.push_back(i);
    if (out.empty()) throw ArgumentError("no kernel matches '" + selector + "' (" + std::to_string(kernels_.size()) + " kernels in the input)");
    return out;
  }

  Report predict(const GpuSpec& g, const PredictOptions& opt = {}, const std::vector<std::size_t>& which = {}) const {
    Report r;
    r.tool_version = version_string();
    r.gpu = g.name;
    std::vector<std::size_t> idx = which;
    if (idx.empty()) for (std::size_t i = 0; i < kernels_.size(); ++i) idx.push_back(i);
    for (auto i : idx) {
      r.kernels.push_back(predictors_.at(i)->predict(g, opt));
      identify(r.kernels.back(), kernels_.at(i)->launch, i + 1);
      r.total_time_us += r.kernels.back().time_us;
    }
    return r;
  }

 private:
  std::vector<std::shared_ptr<const Kernel>> kernels_;
  std::vector<std::shared_ptr<const Predictor>> predictors_;
  std::vector<Measurement> measurements_;
  std::vector<MemcpyCommand> memcpys_;
  std::string device_name_;
};

}  // namespace gpuperf
