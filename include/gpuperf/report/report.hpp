// The one result struct every view prints (text, JSON, Python): the model's per-kernel
// predictions (model/prediction.hpp) for an application. Views only read it.
#pragma once

#include <string>
#include <vector>

#include "gpuperf/model/prediction.hpp"

namespace gpuperf {

struct Report {
  std::string tool_version;
  std::string gpu;
  std::vector<KernelReport> kernels;
  double total_time_us = 0;
  std::vector<std::string> warnings;
};

}  // namespace gpuperf
