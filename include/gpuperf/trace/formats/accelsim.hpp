// Accel-Sim inputs: one kernel trace (.trace/.traceg, any compression) and a kernelslist(.g).
#pragma once

#include <filesystem>
#include <string>
#include <string_view>

#include "gpuperf/trace/accelsim_reader.hpp"
#include "gpuperf/trace/input_format.hpp"
#include "gpuperf/trace/text_scan.hpp"

namespace gpuperf {

namespace formats {

inline bool sniff_accelsim_kernel(const FileHead& head) {
  std::string_view h = head.text;
  return scan::starts_with(h, "-kernel name") || scan::starts_with(h, "#BEGIN_TB") || scan::starts_with(h, "-kernel id") ||
         scan::starts_with(h, "-grid dim") || scan::starts_with(h, "-block dim");
}

inline void read_accelsim_kernel(const std::string& path, InputPlan& plan) { plan.add_pending(path); }

inline InputFormat accelsim_kernel() {
  InputFormat f;
  f.id = "accelsim_kernel";
  f.name = "Accel-Sim kernel trace";
  f.sniff = sniff_accelsim_kernel;
  f.read = read_accelsim_kernel;
  f.read_from_folder = true;
  return f;
}

// Every non-empty line is a Memcpy command or a file name ending in .trace/.traceg (+compression).
// A file that assigns a dict with a "kernel_name" is PPT-GPU's app_config.py, not a kernelslist.
inline bool sniff_accelsim_kernelslist(const FileHead& head) {
  std::string_view h = head.text;
  if (h.find("= {") != std::string_view::npos && h.find("\"kernel_name\"") != std::string_view::npos) return false;
  bool all = true, any = false;
  std::size_t p = 0;
  while (p < h.size()) {
    auto e = h.find('\n', p);
    auto l = scan::trim(h.substr(p, e == std::string_view::npos ? std::string_view::npos : e - p));
    p = e == std::string_view::npos ? h.size() : e + 1;
    if (l.empty()) continue;
    if (e == std::string_view::npos && head.cut) break;  // partial last line
    any = true;
    bool ok = scan::starts_with(l, "Memcpy") || l.find(".trace") != std::string_view::npos;
    if (!ok) { all = false; break; }
  }
  return any && all;
}

inline void read_accelsim_kernelslist(const std::string& path, InputPlan& plan) {
  auto kl = read_kernelslist(path);
  detail::refuse_duplicates(kl.kernel_files, path);
  if (kl.kernel_files.empty()) plan.empty_list = path;
  plan.memcpys.insert(plan.memcpys.end(), kl.memcpys.begin(), kl.memcpys.end());
  for (auto& kf : kl.kernel_files) plan.add_pending(kf);
}

// A folder with a kernelslist.g (or, without one, a kernelslist) is that list's application.
inline std::optional<std::string> accelsim_folder_list(const std::string& dir) {
  namespace fs = std::filesystem;
  fs::path g = fs::path(dir) / "kernelslist.g", plain = fs::path(dir) / "kernelslist";
  if (fs::is_regular_file(g)) return g.string();
  if (!fs::exists(g) && fs::is_regular_file(plain)) return plain.string();
  return std::nullopt;
}

inline InputFormat accelsim_kernelslist() {
  InputFormat f;
  f.id = "accelsim_kernelslist";
  f.name = "Accel-Sim kernelslist";
  f.sniff = sniff_accelsim_kernelslist;
  f.read = read_accelsim_kernelslist;
  f.folder_input = accelsim_folder_list;
  return f;
}

}  // namespace formats
}  // namespace gpuperf
