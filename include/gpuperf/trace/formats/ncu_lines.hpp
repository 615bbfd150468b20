// Nsight Compute's source page printed as CUDA with SASS: the CUDA file and line of each
// instruction, joined to the launches of the other inputs by name and instructions (the counts
// still come from the SASS page, or from a trace).
#pragma once

#include <string>

#include "gpuperf/trace/input_format.hpp"
#include "gpuperf/trace/ncu_lines_reader.hpp"

namespace gpuperf {
namespace formats {

inline bool sniff_ncu_source_lines(const FileHead& head) { return looks_like_ncu_source_lines(head.text); }
inline void read_ncu_source_lines_page(const std::string& path, InputPlan& plan) {
  for (auto& f : read_ncu_source_lines(path)) plan.source_lines.push_back(std::move(f));
}

inline InputFormat ncu_source_lines() {
  InputFormat f;
  f.id = "ncu_source_lines";
  f.name = "Nsight Compute source page CSV, CUDA with SASS";
  f.sniff = sniff_ncu_source_lines;
  f.read = read_ncu_source_lines_page;
  f.read_from_folder = true;
  return f;
}

}  // namespace formats
}  // namespace gpuperf
