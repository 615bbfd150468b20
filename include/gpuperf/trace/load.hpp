// Input detection by content (never by file extension) and loading into an Application.
// Accepts: an Accel-Sim kernel file, a kernelslist(.g), a folder of either; a PPT-GPU app
// folder; ncu source+raw CSVs (two files or a folder); a SASS listing (joined to the other
// inputs by instruction sequence, or predicted alone as a static program).
#pragma once

#include <cxxabi.h>

#include <algorithm>
#include <cctype>

#include <sys/stat.h>

#include <cstdlib>
#include <filesystem>
#include <map>
#include <memory>
#include <regex>
#include <string>
#include <vector>

#include "gpuperf/trace/accelsim_reader.hpp"
#include "gpuperf/trace/ncu_reader.hpp"
#include "gpuperf/trace/pptgpu_reader.hpp"
#include "gpuperf/trace/sass_listing_reader.hpp"

namespace gpuperf {

enum class InputKind { accelsim_kernel, accelsim_kernelslist, pptgpu_app_config, ncu_source, ncu_raw, ncu_details, sass_listing, unknown };

inline const char* to_string(InputKind k) {
  switch (k) {
    case InputKind::accelsim_kernel: return "Accel-Sim kernel trace";
    case InputKind::accelsim_kernelslist: return "Accel-Sim kernelslist";
    case InputKind::pptgpu_app_config: return "PPT-GPU app_config.py";
    case InputKind::ncu_source: return "Nsight Compute source page CSV";
    case InputKind::ncu_raw: return "Nsight Compute raw page CSV";
    case InputKind::ncu_details: return "Nsight Compute details page CSV";
    case InputKind::sass_listing: return "SASS listing";
    default: return "unknown";
  }
}

inline InputKind detect_file(const std::string& path) {
  std::string head;
  try { head = peek_text(path, 4096); } catch (const IoError&) { throw; }
  std::string_view h = head;
  while (!h.empty() && (h.front() == '\n' || h.front() == '\r' || h.front() == ' ' || h.front() == '\t')) h.remove_prefix(1);
  if (h.empty()) return InputKind::unknown;
  if (scan::starts_with(h, "-kernel name") || scan::starts_with(h, "#BEGIN_TB") || scan::starts_with(h, "-kernel id") ||
      scan::starts_with(h, "-grid dim") || scan::starts_with(h, "-block dim"))
    return InputKind::accelsim_kernel;
  if (looks_like_ncu_source(h)) return InputKind::ncu_source;
  if (looks_like_ncu_raw(h)) return InputKind::ncu_raw;
  if (scan::starts_with(h, "\"ID\",") && h.find("\"Section Name\"") != std::string_view::npos) return InputKind::ncu_details;
  if (scan::starts_with(h, "code for sm_") || scan::starts_with(h, "Fatbin") || h.find("Function :") != std::string_view::npos ||
      h.find("\n.text.") != std::string_view::npos || scan::starts_with(h, ".target") || scan::starts_with(h, ".headerflags") ||
      h.find("\t.target\tsm_") != std::string_view::npos || h.find("//-----") != std::string_view::npos)
    return InputKind::sass_listing;
  if (h.find("= {") != std::string_view::npos && h.find("\"kernel_name\"") != std::string_view::npos) return InputKind::pptgpu_app_config;
  // kernelslist: every non-empty line is a Memcpy command or a file name ending in .trace/.traceg(+compression)
  {
    bool all = true, any = false;
    std::size_t p = 0;
    while (p < h.size()) {
      auto e = h.find('\n', p);
      auto l = scan::trim(h.substr(p, e == std::string_view::npos ? std::string_view::npos : e - p));
      p = e == std::string_view::npos ? h.size() : e + 1;
      if (l.empty()) continue;
      if (e == std::string_view::npos && head.size() == 4096) break;  // partial last line
      any = true;
      bool ok = scan::starts_with(l, "Memcpy") || l.find(".trace") != std::string_view::npos;
      if (!ok) { all = false; break; }
    }
    if (any && all) return InputKind::accelsim_kernelslist;
  }
  return InputKind::unknown;
}

inline std::string demangle(const std::string& name) {
  int status = 0;
  std::unique_ptr<char, void (*)(void*)> d(abi::__cxa_demangle(name.c_str(), nullptr, nullptr, &status), std::free);
  return status == 0 && d ? std::string(d.get()) : name;
}

// Does a launch match a --kernel selector? All digits: the launch id, its 1-based position in the
// input (one numbering for every input, whatever ids a trace carries); otherwise a regular
// expression searched in the demangled and the raw name. Empty matches all.
inline bool launch_matches(const LaunchConfig& L, std::size_t position, const std::string& selector) {
  if (selector.empty()) return true;
  if (std::all_of(selector.begin(), selector.end(), [](unsigned char c) { return std::isdigit(c) != 0; }))
    return std::to_string(position) == selector;
  std::regex re;
  try {
    re = std::regex(selector);
  } catch (const std::regex_error& e) {
    throw ArgumentError("kernel selector '" + selector + "' is neither a launch id nor a valid regular expression (" + e.what() + ")");
  }
  return std::regex_search(demangle(L.name), re) || std::regex_search(L.name, re);
}

// Function identifier without return type, template arguments or parameters:
// "void sgemm_smem_tiled<(int)16>(const float *, ...)" -> "sgemm_smem_tiled".
inline std::string base_function_name(const std::string& name) {
  std::string d = demangle(name);
  std::size_t cut = d.find_first_of("<(");
  std::string s = d.substr(0, cut);
  auto sp = s.find_last_of(' ');
  if (sp != std::string::npos) s = s.substr(sp + 1);
  auto col = s.rfind("::");
  if (col != std::string::npos) s = s.substr(col + 2);
  return s;
}

// Joins compiler control bits from a listing into a kernel by matching its opcode
// sequence (PCs in a profile are absolute addresses, listings are offsets). Returns true if
// a function matched.
inline bool join_listing(Kernel& k, const std::vector<Kernel>& listing) {
  const Kernel* best = nullptr;
  for (auto& f : listing) {
    if (f.program.empty()) continue;
    // Dynamic traces hold only executed PCs: match by offset from the function start.
    std::uint64_t base = k.program.empty() ? 0 : k.program.front().pc;
    for (auto& s : k.program) base = std::min(base, s.pc);
    bool ok = true;
    std::size_t j = 0;
    if (k.format == SourceFormat::ncu_csv) {
      ok = f.program.size() >= k.program.size();
      for (std::size_t i = 0; ok && i < k.program.size(); ++i) ok = f.program[i].opcode == k.program[i].opcode;
    } else {
      std::unordered_map<std::uint64_t, std::size_t> by_pc;
      for (std::size_t i = 0; i < f.program.size(); ++i) by_pc[f.program[i].pc] = i;
      for (auto& s : k.program) {
        auto it = by_pc.find(s.pc - base);
        if (it == by_pc.end() || f.program[it->second].opcode != s.opcode) { ok = false; break; }
        ++j;
      }
    }
    if (!ok) continue;
    bool name_match = base_function_name(f.launch.name) == base_function_name(k.launch.name);
    if (!best || name_match) best = &f;
    if (name_match) break;
  }
  if (!best) return false;
  std::uint64_t base = ~0ull;
  for (auto& s : k.program) base = std::min(base, s.pc);
  std::unordered_map<std::uint64_t, const StaticInstr*> by_pc;
  for (auto& s : best->program) by_pc[s.pc] = &s;
  for (std::size_t i = 0; i < k.program.size(); ++i) {
    const StaticInstr* src = k.format == SourceFormat::ncu_csv ? &best->program[i] : by_pc[k.program[i].pc - base];
    if (!src) continue;
    k.program[i].control = src->control;
    if (k.program[i].text.empty()) k.program[i].text = src->text;
    if (k.program[i].dst.empty() && k.program[i].src.empty()) { k.program[i].dst = src->dst; k.program[i].src = src->src; }
    if (k.program[i].mem_base.empty()) { k.program[i].mem_base = src->mem_base; k.program[i].mem_offset = src->mem_offset; }
    if (!k.program[i].branch_target && src->branch_target) k.program[i].branch_target = *src->branch_target + base;
  }
  if (!k.launch.sm_version) k.launch.sm_version = best->launch.sm_version;
  return true;
}

struct LoadOptions {
  AccelSimKernelReader::Options accelsim;
};

// "kernel-2" before "kernel-10": runs of digits compare by value, the rest byte by byte.
inline bool natural_less(const std::string& a, const std::string& b) {
  std::size_t i = 0, j = 0;
  auto digit = [](char c) { return c >= '0' && c <= '9'; };
  while (i < a.size() && j < b.size()) {
    if (digit(a[i]) && digit(b[j])) {
      std::size_t i0 = i, j0 = j;
      while (i0 < a.size() && a[i0] == '0') ++i0;
      while (j0 < b.size() && b[j0] == '0') ++j0;
      std::size_t i1 = i0, j1 = j0;
      while (i1 < a.size() && digit(a[i1])) ++i1;
      while (j1 < b.size() && digit(b[j1])) ++j1;
      if (i1 - i0 != j1 - j0) return i1 - i0 < j1 - j0;
      int c = a.compare(i0, i1 - i0, b, j0, j1 - j0);
      if (c != 0) return c < 0;
      i = i1;
      j = j1;
      continue;
    }
    if (a[i] != b[j]) return static_cast<unsigned char>(a[i]) < static_cast<unsigned char>(b[j]);
    ++i;
    ++j;
  }
  return a.size() - i < b.size() - j;
}

namespace detail {
// std::filesystem and allocation failures surface as gpuperf errors naming the path.
template <class F>
auto io_guard(const std::string& what, F&& f) -> decltype(f()) {
  try {
    return f();
  } catch (const std::filesystem::filesystem_error& e) {
    std::string p = e.path1().empty() ? what : e.path1().string();
    throw IoError(p + ": " + e.code().message());
  } catch (const std::bad_alloc&) {
    throw IoError(what + ": out of memory while reading the input");
  }
}

// The same file named twice (by any path) would be predicted twice.
inline void refuse_duplicates(const std::vector<std::string>& files, const std::string& where) {
  std::map<std::pair<std::uintmax_t, std::uintmax_t>, std::string> seen;
  for (auto& f : files) {
    struct stat st {};
    if (::stat(f.c_str(), &st) != 0) continue;
    auto [it, fresh] = seen.emplace(std::make_pair(std::uintmax_t(st.st_dev), std::uintmax_t(st.st_ino)), f);
    if (!fresh) throw FormatError(where + ": names " + f + " twice (first as " + it->second + "); each input is read once");
  }
}
}  // namespace detail

// Loads one or more paths into one Application. Listings join the other inputs; a listing
// alone becomes one static kernel per function (no counts).
namespace detail {
inline Application load_unguarded(const std::vector<std::string>& paths, const LoadOptions& opt) {
  namespace fs = std::filesystem;
  std::vector<std::pair<std::string, InputKind>> files;
  for (auto& p : paths) {
    if (!fs::exists(p)) throw IoError(p + ": no such file or directory");
    if (fs::is_directory(p)) {
      std::vector<std::string> entries;
      for (auto& e : fs::directory_iterator(p))
        if (e.is_regular_file()) entries.push_back(e.path().string());
      std::sort(entries.begin(), entries.end(), natural_less);
      bool has_list = false;
      for (auto& e : entries) {
        auto fn = fs::path(e).filename().string();
        if (fn == "kernelslist.g" || (fn == "kernelslist" && !fs::exists(fs::path(p) / "kernelslist.g"))) {
          files.emplace_back(e, InputKind::accelsim_kernelslist);
          has_list = true;
        }
      }
      if (has_list) continue;
      if (fs::exists(fs::path(p) / "app_config.py")) { files.emplace_back((fs::path(p) / "app_config.py").string(), InputKind::pptgpu_app_config); continue; }
      for (auto& e : entries) {
        InputKind k = InputKind::unknown;
        try { k = detect_file(e); } catch (const IoError&) { continue; }
        if (k == InputKind::ncu_source || k == InputKind::ncu_raw || k == InputKind::sass_listing || k == InputKind::accelsim_kernel)
          files.emplace_back(e, k);
      }
      continue;
    }
    files.emplace_back(p, detect_file(p));
  }
  Application app;
  std::string ncu_src, ncu_raw;
  std::vector<Kernel> listing;
  for (auto& [f, kind] : files) {
    switch (kind) {
      case InputKind::accelsim_kernel: app.kernels.push_back(AccelSimKernelReader::read(f, opt.accelsim)); break;
      case InputKind::accelsim_kernelslist: {
        auto kl = read_kernelslist(f);
        detail::refuse_duplicates(kl.kernel_files, f);
        app.memcpys.insert(app.memcpys.end(), kl.memcpys.begin(), kl.memcpys.end());
        for (auto& kf : kl.kernel_files) app.kernels.push_back(AccelSimKernelReader::read(kf, opt.accelsim));
        break;
      }
      case InputKind::pptgpu_app_config: {
        auto a = read_pptgpu_app(fs::path(f).parent_path().string());
        for (auto& k : a.kernels) app.kernels.push_back(std::move(k));
        break;
      }
      case InputKind::ncu_source:
        if (!ncu_src.empty()) throw FormatError(f + ": a second ncu source page (first: " + ncu_src + "); pass one report's pages at a time");
        ncu_src = f;
        break;
      case InputKind::ncu_raw:
        if (!ncu_raw.empty()) throw FormatError(f + ": a second ncu raw page (first: " + ncu_raw + "); pass one report's pages at a time");
        ncu_raw = f;
        break;
      case InputKind::ncu_details: break;  // measured sections only; not needed
      case InputKind::sass_listing: {
        auto l = read_sass_listing(f);
        for (auto& k : l) listing.push_back(std::move(k));
        break;
      }
      default:
        throw FormatError(f + ": unrecognised input (expected an Accel-Sim .trace/.traceg or kernelslist, a PPT-GPU app folder, "
                              "Nsight Compute source/raw CSV pages, or a cuobjdump/nvdisasm SASS listing)");
    }
  }
  if (!ncu_src.empty() || !ncu_raw.empty()) {
    if (ncu_src.empty() || ncu_raw.empty())
      throw FormatError((ncu_src.empty() ? ncu_raw : ncu_src) + ": Nsight Compute input needs both the source page (--page source --print-source sass --csv) and the raw page (--page raw --csv)");
    auto a = join_ncu(ncu_src, ncu_raw);
    for (auto& k : a.kernels) app.kernels.push_back(std::move(k));
    for (auto& m : a.measurements) app.measurements.push_back(std::move(m));
    app.device_name = a.device_name;
  }
  if (!listing.empty()) {
    if (app.kernels.empty()) {
      for (auto& k : listing) {
        k.warnings.push_back("static listing only: no execution counts; each instruction is assumed to execute once per warp");
        app.kernels.push_back(std::move(k));
      }
    } else {
      for (auto& k : app.kernels)
        if (!join_listing(k, listing)) k.warnings.push_back("no function in the SASS listing matches this kernel's instructions; compiler stall counts unavailable");
    }
  }
  if (app.measurements.size() != app.kernels.size()) app.measurements.resize(app.kernels.size());
  if (app.kernels.empty()) throw ModelError("no kernels found in the given input");
  return app;
}

}  // namespace detail

inline Application load(const std::vector<std::string>& paths, const LoadOptions& opt = {}) {
  detail::refuse_duplicates(paths, "the command line");
  return detail::io_guard(paths.empty() ? std::string("<no input>") : paths.front(), [&] { return detail::load_unguarded(paths, opt); });
}

inline Application load(const std::string& path, const LoadOptions& opt = {}) { return load(std::vector<std::string>{path}, opt); }

// Streams an application kernel by kernel: an Accel-Sim kernelslist (or a folder holding one)
// is read one kernel file at a time, so only one kernel's trace is ever in memory; other inputs
// are loaded whole. fn(Kernel&&, const Measurement&) is called in launch order.
template <class F>
void for_each_kernel(const std::vector<std::string>& paths, const LoadOptions& opt, F&& fn) {
  namespace fs = std::filesystem;
  std::string list;
  if (paths.size() == 1) {
    const std::string& p = paths[0];
    std::error_code ec;
    if (fs::is_directory(p, ec)) {
      if (fs::exists(fs::path(p) / "kernelslist.g", ec)) list = (fs::path(p) / "kernelslist.g").string();
      else if (fs::exists(fs::path(p) / "kernelslist", ec)) list = (fs::path(p) / "kernelslist").string();
    } else if (fs::exists(p, ec) && detect_file(p) == InputKind::accelsim_kernelslist) {
      list = p;
    }
  }
  if (!list.empty()) {
    auto kl = read_kernelslist(list);
    if (kl.kernel_files.empty()) throw ModelError(list + ": lists no kernel files");
    detail::refuse_duplicates(kl.kernel_files, list);
    Measurement none;
    for (auto& kf : kl.kernel_files) fn(AccelSimKernelReader::read(kf, opt.accelsim), none);
    return;
  }
  Application app = load(paths, opt);
  for (std::size_t i = 0; i < app.kernels.size(); ++i) fn(std::move(app.kernels[i]), app.measurements[i]);
}

}  // namespace gpuperf
