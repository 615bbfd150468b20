// Loading inputs into an Application: each file's format is detected by content (never by file
// extension) through the registry in trace/formats.hpp (Accel-Sim kernel files and kernelslists,
// PPT-GPU app folders, ncu source+raw CSVs, SASS listings), launches are selected, and the
// selected Accel-Sim kernel bodies are read, joined to any SASS listing.
#pragma once

#include <cxxabi.h>

#include <algorithm>
#include <cctype>

#include <sys/stat.h>

#include <cstdlib>
#include <filesystem>
#include <map>
#include <memory>
#include <optional>
#include <regex>
#include <string>
#include <vector>

#include "gpuperf/parallel.hpp"
#include "gpuperf/trace/accelsim_reader.hpp"
#include "gpuperf/trace/formats.hpp"
#include "gpuperf/trace/input_format.hpp"

namespace gpuperf {

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

// Which launches to load: a --kernel selector (launch_matches), then ncu's --launch-skip and
// --launch-count over the launches it matched.
struct LaunchSelection {
  std::string kernel;     // launch id (1-based position) or name regex; empty: every launch
  std::size_t skip = 0;   // matching launches to leave out first
  std::size_t count = 0;  // then at most this many; 0: all the rest
  bool all() const { return kernel.empty() && skip == 0 && count == 0; }
};

struct LoadOptions {
  AccelSimKernelReader::Options accelsim;
  // Launches outside the selection are skipped before their trace bodies are read.
  LaunchSelection select;
  // Kernel files read at once (0: every core). Results do not depend on it.
  unsigned jobs = 1;
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

// A folder given as input: the file that makes it one input (a kernelslist, an app_config.py),
// else its files of the formats read from folders, by name.
inline void add_folder(const std::string& dir, std::vector<std::pair<std::string, const InputFormat*>>& files) {
  namespace fs = std::filesystem;
  for (const auto& f : input_formats())
    if (f.folder_input)
      if (auto whole = f.folder_input(dir)) {
        files.emplace_back(*whole, &f);
        return;
      }
  std::vector<std::string> entries;
  for (auto& e : fs::directory_iterator(dir))
    if (e.is_regular_file()) entries.push_back(e.path().string());
  std::sort(entries.begin(), entries.end(), natural_less);
  for (auto& e : entries) {
    const InputFormat* f = nullptr;
    try { f = detect_file(e); } catch (const IoError&) { continue; }
    if (f && f->read_from_folder) files.emplace_back(e, f);
  }
}

inline InputPlan plan_unguarded(const std::vector<std::string>& paths) {
  namespace fs = std::filesystem;
  std::vector<std::pair<std::string, const InputFormat*>> files;
  for (auto& p : paths) {
    if (!fs::exists(p)) throw IoError(p + ": no such file or directory");
    if (fs::is_directory(p)) add_folder(p, files);
    else files.emplace_back(p, detect_file(p));
  }
  InputPlan plan;
  for (auto& [f, format] : files) {
    if (!format) throw FormatError(f + ": unrecognised input (" + kExpectedInputs + ")");
    format->read(f, plan);
  }
  for (const auto& format : input_formats())
    if (format.finish) format.finish(plan);
  // A listing alone becomes one static kernel per function (no counts).
  if (plan.launches.empty() && !plan.listing.empty()) {
    for (auto& k : plan.listing) {
      k.warnings.push_back("static listing only: no execution counts; each instruction is assumed to execute once per warp");
      plan.add_loaded(std::move(k));
    }
    plan.listing.clear();
  }
  if (plan.launches.empty()) throw ModelError(plan.empty_list.empty() ? std::string("no kernels found in the given input") : plan.empty_list + ": lists no kernel files");
  return plan;
}

inline std::string_view trim_blank(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t' || s.front() == '\r')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r')) s.remove_suffix(1);
  return s;
}

// The kernel name in an Accel-Sim kernel file's header ('-kernel name = ...', the last one if
// repeated, as the reader keeps it), read from the file's first 64 KiB only; nullopt when the
// header does not end within them or names no kernel (the full read then decides).
inline std::optional<std::string> peek_accelsim_kernel_name(const std::string& path) {
  constexpr std::size_t kPeek = 1 << 16;
  std::string head = peek_text(path, kPeek);
  std::string_view h = head;
  std::optional<std::string> name;
  std::size_t p = 0;
  while (p < h.size()) {
    auto e = h.find('\n', p);
    if (e == std::string_view::npos && head.size() == kPeek) return std::nullopt;  // cut mid-line
    auto line = trim_blank(h.substr(p, e == std::string_view::npos ? std::string_view::npos : e - p));
    p = e == std::string_view::npos ? h.size() : e + 1;
    if (line.empty()) continue;
    if (line.front() != '-') return name;  // the header ends at the first other line
    auto eq = line.find('=');
    if (eq != std::string_view::npos && trim_blank(line.substr(1, eq - 1)) == "kernel name") name = std::string(trim_blank(line.substr(eq + 1)));
  }
  return head.size() < kPeek ? name : std::nullopt;
}

inline bool all_digits(const std::string& s) {
  return !s.empty() && std::all_of(s.begin(), s.end(), [](unsigned char c) { return std::isdigit(c) != 0; });
}

inline std::string no_match_message(const LaunchSelection& sel, std::size_t kernels) {
  std::string what = sel.kernel.empty() ? "no kernel" : "no kernel matches '" + sel.kernel + "'";
  if (sel.skip || sel.count)
    what += " in the launch window (--launch-skip " + std::to_string(sel.skip) + ", --launch-count " + std::to_string(sel.count) + ")";
  return what + " (" + std::to_string(kernels) + " kernels in the input)";
}

// Indices of the launches a selection keeps. A launch id needs no file opened; a name regex
// reads only the header of each Accel-Sim kernel file (the whole file only when its header
// cannot be read on its own, keeping the kernel so it is not read twice).
inline std::vector<std::size_t> select_launches(InputPlan& plan, const LoadOptions& opt) {
  const LaunchSelection& sel = opt.select;
  std::vector<std::size_t> out;
  std::size_t matched = 0;
  bool by_name = !sel.kernel.empty() && !all_digits(sel.kernel);
  for (std::size_t i = 0; i < plan.launches.size(); ++i) {
    auto& pk = plan.launches[i];
    bool m = true;
    if (by_name) {
      LaunchConfig L;
      if (pk.kernel) L.name = pk.kernel->launch.name;
      else if (auto n = peek_accelsim_kernel_name(pk.file)) L.name = *n;
      else {
        pk.kernel = AccelSimKernelReader::read(pk.file, opt.accelsim);
        L.name = pk.kernel->launch.name;
      }
      m = launch_matches(L, i + 1, sel.kernel);
    } else if (!sel.kernel.empty()) {
      m = std::to_string(i + 1) == sel.kernel;
    }
    if (!m) continue;
    ++matched;
    if (matched > sel.skip && (sel.count == 0 || matched <= sel.skip + sel.count)) out.push_back(i);
  }
  if (out.empty()) throw ArgumentError(no_match_message(sel, plan.launches.size()));
  return out;
}

// Reads the chosen launches' kernel files, up to opt.jobs at once, and joins the listing.
inline void read_launches(InputPlan& plan, const std::vector<std::size_t>& chosen, const LoadOptions& opt) {
  AccelSimKernelReader::Options ro = opt.accelsim;
  unsigned jobs = opt.jobs == 0 ? hardware_jobs() : opt.jobs;
  if (jobs > 1 && chosen.size() > 1) ro.progress = nullptr;  // one progress line cannot follow several files
  parallel_for(chosen.size(), jobs, [&](std::size_t i) {
    auto& pk = plan.launches[chosen[i]];
    if (!pk.kernel) pk.kernel = AccelSimKernelReader::read(pk.file, ro);
    if (!plan.listing.empty() && !join_listing(*pk.kernel, plan.listing))
      pk.kernel->warnings.push_back("no function in the SASS listing matches this kernel's instructions; compiler stall counts unavailable");
  });
}

// Loads one or more paths into one Application: the selected launches only.
inline Application load_unguarded(const std::vector<std::string>& paths, const LoadOptions& opt) {
  InputPlan plan = plan_unguarded(paths);
  auto chosen = select_launches(plan, opt);
  read_launches(plan, chosen, opt);
  Application app;
  app.memcpys = std::move(plan.memcpys);
  app.device_name = std::move(plan.device_name);
  for (auto i : chosen) {
    app.kernels.push_back(std::move(*plan.launches[i].kernel));
    app.measurements.push_back(std::move(plan.launches[i].measured));
    app.launch_ids.push_back(static_cast<std::uint32_t>(i + 1));
  }
  return app;
}

}  // namespace detail

// Loads one or more paths into one Application. Listings join the other inputs; a listing
// alone becomes one static kernel per function (no counts). With opt.select, launches outside
// the selection are left out before their trace bodies are read (Application::launch_ids keeps
// the positions of those kept); opt.jobs kernel files are read at once.
inline Application load(const std::vector<std::string>& paths, const LoadOptions& opt = {}) {
  detail::refuse_duplicates(paths, "the command line");
  return detail::io_guard(paths.empty() ? std::string("<no input>") : paths.front(), [&] { return detail::load_unguarded(paths, opt); });
}

inline Application load(const std::string& path, const LoadOptions& opt = {}) { return load(std::vector<std::string>{path}, opt); }

// Streams the selected launches of an input kernel by kernel, in launch order: Accel-Sim kernel
// files are read opt.jobs at a time, each followed on its own thread by work(Kernel&&, const
// Measurement&, launch_id) (so a trace is dropped as soon as its work is done and at most
// opt.jobs traces are in memory), and emit(result) runs on the calling thread in launch order.
// Other inputs are loaded whole first.
template <class Work, class Emit>
void for_each_kernel(const std::vector<std::string>& paths, const LoadOptions& opt, Work&& work, Emit&& emit) {
  detail::refuse_duplicates(paths, "the command line");
  std::string where = paths.empty() ? std::string("<no input>") : paths.front();
  InputPlan plan = detail::io_guard(where, [&] { return detail::plan_unguarded(paths); });
  auto chosen = detail::io_guard(where, [&] { return detail::select_launches(plan, opt); });
  using Result = decltype(work(std::declval<Kernel&&>(), std::declval<const Measurement&>(), std::size_t{}));
  std::size_t batch = opt.jobs == 0 ? hardware_jobs() : opt.jobs;
  for (std::size_t b = 0; b < chosen.size(); b += batch) {
    std::vector<std::size_t> part(chosen.begin() + static_cast<std::ptrdiff_t>(b),
                                  chosen.begin() + static_cast<std::ptrdiff_t>(std::min(chosen.size(), b + batch)));
    std::vector<std::optional<Result>> out(part.size());
    LoadOptions po = opt;
    po.jobs = 1;  // the pool below reads and works in one step per kernel
    if (batch > 1 && chosen.size() > 1) po.accelsim.progress = nullptr;
    detail::io_guard(where, [&] {
      parallel_for(part.size(), static_cast<unsigned>(batch), [&](std::size_t i) {
        detail::read_launches(plan, {part[i]}, po);
        auto& pk = plan.launches[part[i]];
        Kernel k = std::move(*pk.kernel);
        pk.kernel.reset();
        out[i].emplace(work(std::move(k), pk.measured, part[i] + 1));
      });
      return 0;
    });
    for (auto& r : out) emit(std::move(*r));
  }
}

}  // namespace gpuperf
