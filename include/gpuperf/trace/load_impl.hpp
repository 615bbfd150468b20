// The loader's definitions: format detection through the registry, folder rules, launch
// selection, reading and joining. Included by load.hpp for gpuperf::header_only, compiled once
// in src/lib/load.cpp for gpuperf::gpuperf (so that only the library includes every reader).
#pragma once

#include <cxxabi.h>
#include <sys/stat.h>

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <mutex>
#include <memory>
#include <optional>
#include <regex>
#include <string>
#include <vector>

#include "gpuperf/trace/formats.hpp"
#include "gpuperf/trace/load.hpp"

namespace gpuperf {

GPUPERF_FUNC std::string demangle(const std::string& name) {
  int status = 0;
  std::unique_ptr<char, void (*)(void*)> d(abi::__cxa_demangle(name.c_str(), nullptr, nullptr, &status), std::free);
  return status == 0 && d ? std::string(d.get()) : name;
}

// Does a launch match a --kernel selector? All digits: the launch id, its 1-based position in the
// input (one numbering for every input, whatever ids a trace carries); otherwise a regular
// expression searched in the demangled and the raw name. Empty matches all.
GPUPERF_FUNC bool launch_matches(const LaunchConfig& L, std::size_t position, const std::string& selector) {
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
GPUPERF_FUNC std::string base_function_name(const std::string& name) {
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
GPUPERF_FUNC bool join_listing(Kernel& k, const std::vector<Kernel>& listing) {
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
    // A trace's records do not say which instructions are guarded; the listing's text does.
    if (src->predicated && k.program[i].text == src->text) k.program[i].predicated = true;
    if (k.program[i].dst.empty() && k.program[i].src.empty()) { k.program[i].dst = src->dst; k.program[i].src = src->src; }
    if (k.program[i].mem_base.empty()) { k.program[i].mem_base = src->mem_base; k.program[i].mem_offset = src->mem_offset; }
    if (!k.program[i].branch_target && src->branch_target) k.program[i].branch_target = *src->branch_target + base;
    if (k.program[i].source_file.empty() && src->source_line) { k.program[i].source_file = src->source_file; k.program[i].source_line = src->source_line; }
  }
  if (!k.launch.sm_version) k.launch.sm_version = best->launch.sm_version;
  return true;
}


// "kernel-2" before "kernel-10": runs of digits compare by value, the rest byte by byte.
GPUPERF_FUNC bool natural_less(const std::string& a, const std::string& b) {
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

// A folder given as input: the file that makes it one input (a kernelslist, an app_config.py),
// else its files of the formats read from folders, by name.
GPUPERF_FUNC void add_folder(const std::string& dir, std::vector<std::pair<std::string, const InputFormat*>>& files) {
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

GPUPERF_FUNC InputPlan plan_unguarded(const std::vector<std::string>& paths, ProgressFn progress, void* progress_ctx) {
  namespace fs = std::filesystem;
  ReadProgressScope show(progress, progress_ctx);  // the readers of whole inputs report through it
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

GPUPERF_FUNC std::string_view trim_blank(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t' || s.front() == '\r')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r')) s.remove_suffix(1);
  return s;
}

// The kernel name in an Accel-Sim kernel file's header ('-kernel name = ...', the last one if
// repeated, as the reader keeps it), read from the file's first 64 KiB only; nullopt when the
// header does not end within them or names no kernel (the full read then decides).
GPUPERF_FUNC std::optional<std::string> peek_accelsim_kernel_name(const std::string& path) {
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

GPUPERF_FUNC bool all_digits(const std::string& s) {
  return !s.empty() && std::all_of(s.begin(), s.end(), [](unsigned char c) { return std::isdigit(c) != 0; });
}

GPUPERF_FUNC std::string no_match_message(const LaunchSelection& sel, std::size_t kernels) {
  std::string what = sel.kernel.empty() ? "no kernel" : "no kernel matches '" + sel.kernel + "'";
  if (sel.skip || sel.count)
    what += " in the launch window (--launch-skip " + std::to_string(sel.skip) + ", --launch-count " + std::to_string(sel.count) + ")";
  return what + " (" + std::to_string(kernels) + " kernels in the input)";
}

// Indices of the launches a selection keeps. A launch id needs no file opened; a name regex
// reads only the header of each Accel-Sim kernel file (the whole file only when its header
// cannot be read on its own, keeping the kernel so it is not read twice).
GPUPERF_FUNC std::vector<std::size_t> select_launches(InputPlan& plan, const LoadOptions& opt) {
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
GPUPERF_FUNC void read_launches(InputPlan& plan, const std::vector<std::size_t>& chosen, const LoadOptions& opt, KernelCount* count,
                                bool file_bytes) {
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
    if (!plan.cta_work.empty()) {
      auto same_name = [](const std::string& a, const std::string& b) { return a == b || demangle(a) == demangle(b); };
      std::string note = join_cta_counts(*pk.kernel, plan.cta_work, same_name);
      if (!note.empty()) pk.kernel->warnings.push_back(std::move(note));
    }
    if (!plan.source_lines.empty() && !attach_source_lines(*pk.kernel, demangle(pk.kernel->launch.name), plan.source_lines))
      pk.kernel->warnings.push_back("no function of the CUDA-with-SASS source page matches this kernel's name and instructions; no CUDA source lines");
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
GPUPERF_FUNC Application load_unguarded(const std::vector<std::string>& paths, const LoadOptions& opt) {
  InputPlan plan = plan_unguarded(paths, opt.accelsim.progress, opt.accelsim.progress_ctx);
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
GPUPERF_FUNC Application load(const std::vector<std::string>& paths, const LoadOptions& opt) {
  detail::refuse_duplicates(paths, "the command line");
  return detail::io_guard(paths.empty() ? std::string("<no input>") : paths.front(), [&] { return detail::load_unguarded(paths, opt); });
}

GPUPERF_FUNC Application load(const std::string& path, const LoadOptions& opt) { return load(std::vector<std::string>{path}, opt); }

}  // namespace gpuperf
