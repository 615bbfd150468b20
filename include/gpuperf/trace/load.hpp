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
#include <mutex>
#include <optional>
#include <regex>
#include <string>
#include <vector>

#include "gpuperf/parallel.hpp"
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

// Joins compiler control bits and -lineinfo source lines from a listing into a kernel by
// matching its opcode sequence (PCs in a profile are absolute addresses, listings are offsets).
// Returns true if a function matched.
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
    if (k.program[i].source_file.empty() && src->source_line) { k.program[i].source_file = src->source_file; k.program[i].source_line = src->source_line; }
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

namespace detail {
// One launch of the input before its trace body is read: an Accel-Sim kernel file still to be
// parsed, or a kernel that another reader produced whole (with its measurement).
struct PendingKernel {
  std::string file;  // the Accel-Sim kernel file to read when `kernel` is empty
  std::optional<Kernel> kernel;
  Measurement measured;
};

// What the inputs hold, in launch order, with no Accel-Sim kernel body read yet.
struct InputPlan {
  std::vector<PendingKernel> launches;
  std::vector<Kernel> listing;  // SASS listing functions to join into the launches
  std::vector<MemcpyCommand> memcpys;
  std::string device_name;
};

inline InputPlan plan_unguarded(const std::vector<std::string>& paths) {
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
  InputPlan plan;
  std::string ncu_src, ncu_raw, empty_list;
  auto pending_file = [&](const std::string& f) { plan.launches.push_back(PendingKernel{f, std::nullopt, {}}); };
  auto loaded = [&](Kernel&& k, Measurement m = {}) { plan.launches.push_back(PendingKernel{{}, std::move(k), std::move(m)}); };
  for (auto& [f, kind] : files) {
    switch (kind) {
      case InputKind::accelsim_kernel: pending_file(f); break;
      case InputKind::accelsim_kernelslist: {
        auto kl = read_kernelslist(f);
        detail::refuse_duplicates(kl.kernel_files, f);
        if (kl.kernel_files.empty()) empty_list = f;
        plan.memcpys.insert(plan.memcpys.end(), kl.memcpys.begin(), kl.memcpys.end());
        for (auto& kf : kl.kernel_files) pending_file(kf);
        break;
      }
      case InputKind::pptgpu_app_config: {
        auto a = read_pptgpu_app(fs::path(f).parent_path().string());
        for (auto& k : a.kernels) loaded(std::move(k));
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
        for (auto& k : l) plan.listing.push_back(std::move(k));
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
    for (std::size_t i = 0; i < a.kernels.size(); ++i) loaded(std::move(a.kernels[i]), i < a.measurements.size() ? a.measurements[i] : Measurement{});
    plan.device_name = a.device_name;
  }
  // A listing alone becomes one static kernel per function (no counts).
  if (plan.launches.empty() && !plan.listing.empty()) {
    for (auto& k : plan.listing) {
      k.warnings.push_back("static listing only: no execution counts; each instruction is assumed to execute once per warp");
      loaded(std::move(k));
    }
    plan.listing.clear();
  }
  if (plan.launches.empty()) throw ModelError(empty_list.empty() ? std::string("no kernels found in the given input") : empty_list + ": lists no kernel files");
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

// Kernel files read of a selection, for opt.accelsim.progress (shared by the batches of one load).
struct KernelCount {
  std::mutex mu;
  std::size_t done = 0, total = 0;
};

// Reads the chosen launches' kernel files, up to opt.jobs at once, and joins the listing.
inline void read_launches(InputPlan& plan, const std::vector<std::size_t>& chosen, const LoadOptions& opt, KernelCount* count = nullptr,
                          bool file_bytes = true) {
  KernelCount local;
  if (!count) { count = &local; local.total = chosen.size(); }
  AccelSimKernelReader::Options ro = opt.accelsim;
  unsigned jobs = opt.jobs == 0 ? hardware_jobs() : opt.jobs;
  if ((jobs > 1 && chosen.size() > 1) || !file_bytes) ro.progress = nullptr;  // one progress line cannot follow several files' bytes
  parallel_for(chosen.size(), jobs, [&](std::size_t i) {
    auto& pk = plan.launches[chosen[i]];
    AccelSimKernelReader::Options mine = ro;
    mine.kernels_total = count->total;
    {
      std::lock_guard<std::mutex> lock(count->mu);
      mine.kernels_done = count->done;
    }
    if (!pk.kernel) pk.kernel = AccelSimKernelReader::read(pk.file, mine);
    if (!plan.listing.empty() && !join_listing(*pk.kernel, plan.listing))
      pk.kernel->warnings.push_back("no function in the SASS listing matches this kernel's instructions; compiler stall counts unavailable");
    if (opt.accelsim.progress) {
      std::lock_guard<std::mutex> lock(count->mu);
      Progress p;
      p.kernels_done = ++count->done;
      p.kernels_total = count->total;
      opt.accelsim.progress(p, opt.accelsim.progress_ctx);
    }
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
  detail::InputPlan plan = detail::io_guard(where, [&] { return detail::plan_unguarded(paths); });
  auto chosen = detail::io_guard(where, [&] { return detail::select_launches(plan, opt); });
  using Result = decltype(work(std::declval<Kernel&&>(), std::declval<const Measurement&>(), std::size_t{}));
  std::size_t batch = opt.jobs == 0 ? hardware_jobs() : opt.jobs;
  detail::KernelCount count;
  count.total = chosen.size();
  for (std::size_t b = 0; b < chosen.size(); b += batch) {
    std::vector<std::size_t> part(chosen.begin() + static_cast<std::ptrdiff_t>(b),
                                  chosen.begin() + static_cast<std::ptrdiff_t>(std::min(chosen.size(), b + batch)));
    std::vector<std::optional<Result>> out(part.size());
    LoadOptions po = opt;
    po.jobs = 1;  // the pool below reads and works in one step per kernel
    const bool file_bytes = !(batch > 1 && chosen.size() > 1);  // several files at once: kernels done only
    detail::io_guard(where, [&] {
      parallel_for(part.size(), static_cast<unsigned>(batch), [&](std::size_t i) {
        detail::read_launches(plan, {part[i]}, po, &count, file_bytes);
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
