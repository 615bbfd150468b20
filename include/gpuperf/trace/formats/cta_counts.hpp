// gpuperf's tracer's cta_counts.tsv: every CTA's warp instructions per launch, joined to the
// traces of the other inputs by launch id, kernel and grid (trace/cta_counts_reader.hpp).
#pragma once

#include <string>

#include "gpuperf/trace/cta_counts_reader.hpp"
#include "gpuperf/trace/input_format.hpp"

namespace gpuperf {
namespace formats {

inline bool sniff_cta_counts(const FileHead& head) { return looks_like_cta_counts(head.text); }
inline void read_cta_counts_file(const std::string& path, InputPlan& plan) {
  for (auto& w : read_cta_counts(path)) plan.cta_work.push_back(std::move(w));
}

inline InputFormat cta_counts() {
  InputFormat f;
  f.id = "cta_counts";
  f.name = "gpuperf per-CTA warp instruction counts (cta_counts.tsv)";
  f.sniff = sniff_cta_counts;
  f.read = read_cta_counts_file;
  f.read_from_folder = false;  // a trace folder's kernelslist makes the folder one input; name the file
  return f;
}

}  // namespace formats
}  // namespace gpuperf
