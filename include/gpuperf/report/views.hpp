// The text view of a Report: aligned text for terminals. It reads the same struct as the JSON
// view (json_view.hpp) and computes nothing. The views are compiled once in the library
// (views_impl.hpp, json_view_impl.hpp) unless GPUPERF_HEADER_ONLY.
#pragma once

#include <algorithm>
#include <cstdio>
#include <sstream>
#include <string>

#include "gpuperf/config.hpp"
#include "gpuperf/report/explain.hpp"
#include "gpuperf/report/report.hpp"

namespace gpuperf {

namespace detail {
inline std::string fmtd(const char* f, double v) {
  char b[64];
  std::snprintf(b, sizeof b, f, v);
  return b;
}
inline std::string human_bytes(double b) {
  if (b >= 1e9) return fmtd("%.2f GB", b / 1e9);
  if (b >= 1e6) return fmtd("%.2f MB", b / 1e6);
  if (b >= 1e3) return fmtd("%.1f kB", b / 1e3);
  return fmtd("%.0f B", b);
}
// A per-PC row's source line as the text view shows it: "devkernels.cu:9" (the file's last
// component), "line 9" where the input gives no file, "-" where it gives no line.
inline std::string source_label(const PerPcRow& p) {
  if (!p.source_line) return "-";
  if (p.source_file.empty()) return "line " + std::to_string(p.source_line);
  auto slash = p.source_file.find_last_of('/');
  return (slash == std::string::npos ? p.source_file : p.source_file.substr(slash + 1)) + ":" + std::to_string(p.source_line);
}
inline std::string human_count(double v) {
  if (v >= 1e9) return fmtd("%.2fG", v / 1e9);
  if (v >= 1e6) return fmtd("%.2fM", v / 1e6);
  if (v >= 1e3) return fmtd("%.1fk", v / 1e3);
  return fmtd("%.0f", v);
}
}  // namespace detail

// The text of one kernel's report; with per_pc, its per-PC table (all rows, or the first
// per_pc_rows of them in the order they are in).
GPUPERF_FUNC std::string to_text(const KernelReport& k, bool per_pc = false, std::size_t per_pc_rows = 0);
// Every kernel's text, then the total over several launches.
GPUPERF_FUNC std::string to_text(const Report& r, bool per_pc = false);

}  // namespace gpuperf

#ifdef GPUPERF_HEADER_ONLY
#include "gpuperf/report/views_impl.hpp"
#endif
