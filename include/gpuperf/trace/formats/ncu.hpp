// Nsight Compute CSV pages: the source page and the raw page of one report, read together; the
// details page is recognised and left out (it holds measured sections only).
#pragma once

#include <string>
#include <string_view>

#include "gpuperf/trace/input_format.hpp"
#include "gpuperf/trace/ncu_reader.hpp"
#include "gpuperf/trace/text_scan.hpp"

namespace gpuperf {
namespace formats {

inline bool sniff_ncu_source(const FileHead& head) { return looks_like_ncu_source(head.text); }
inline bool sniff_ncu_raw(const FileHead& head) { return looks_like_ncu_raw(head.text); }
inline bool sniff_ncu_details(const FileHead& head) {
  return scan::starts_with(head.text, "\"ID\",") && head.text.find("\"Section Name\"") != std::string_view::npos;
}

// One page of each kind per load: the pages are joined in finish().
inline void hold_ncu_page(const char* id, const char* what, const std::string& path, InputPlan& plan) {
  auto& held = plan.held[id];
  if (!held.empty()) throw FormatError(path + ": a second ncu " + what + " page (first: " + held.front() + "); pass one report's pages at a time");
  held.push_back(path);
}
inline void read_ncu_source_page(const std::string& path, InputPlan& plan) { hold_ncu_page("ncu_source", "source", path, plan); }
inline void read_ncu_raw_page(const std::string& path, InputPlan& plan) { hold_ncu_page("ncu_raw", "raw", path, plan); }
inline void read_ncu_details_page(const std::string&, InputPlan&) {}

inline void join_ncu_pages(InputPlan& plan) {
  auto held = [&](const char* id) {
    auto it = plan.held.find(id);
    return it == plan.held.end() || it->second.empty() ? std::string() : it->second.front();
  };
  std::string src = held("ncu_source"), raw = held("ncu_raw");
  if (src.empty() && raw.empty()) return;
  if (src.empty() || raw.empty())
    throw FormatError((src.empty() ? raw : src) + ": Nsight Compute input needs both the source page (--page source --print-source sass --csv) and the raw page (--page raw --csv)");
  auto a = join_ncu(src, raw);
  for (std::size_t i = 0; i < a.kernels.size(); ++i) plan.add_loaded(std::move(a.kernels[i]), i < a.measurements.size() ? a.measurements[i] : Measurement{});
  plan.device_name = a.device_name;
}

inline InputFormat ncu_source() {
  InputFormat f;
  f.id = "ncu_source";
  f.name = "Nsight Compute source page CSV";
  f.sniff = sniff_ncu_source;
  f.read = read_ncu_source_page;
  f.read_from_folder = true;
  f.finish = join_ncu_pages;
  return f;
}

inline InputFormat ncu_raw() {
  InputFormat f;
  f.id = "ncu_raw";
  f.name = "Nsight Compute raw page CSV";
  f.sniff = sniff_ncu_raw;
  f.read = read_ncu_raw_page;
  f.read_from_folder = true;
  return f;
}

inline InputFormat ncu_details() {
  InputFormat f;
  f.id = "ncu_details";
  f.name = "Nsight Compute details page CSV";
  f.sniff = sniff_ncu_details;
  f.read = read_ncu_details_page;
  return f;
}

}  // namespace formats
}  // namespace gpuperf
