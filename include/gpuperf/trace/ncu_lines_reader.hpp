// Nsight Compute's source page printed as CUDA with SASS (`ncu --import R.ncu-rep --page source
// --print-source cuda,sass --csv`): per source file and function, each CUDA line followed by the
// SASS instructions compiled from it (with -lineinfo). gpuperf reads only the mapping from
// instruction to file and line; the counts come from the SASS page as before. The page lists
// a function once per file its code comes from (an inlined header function's instructions
// under the header), prints each instruction group twice, and separates groups with "..." rows.
#pragma once

#include <algorithm>
#include <charconv>
#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "gpuperf/checked.hpp"
#include "gpuperf/error.hpp"
#include "gpuperf/sass/instruction.hpp"
#include "gpuperf/trace/byte_source.hpp"
#include "gpuperf/trace/ir.hpp"
#include "gpuperf/trace/ncu_reader.hpp"
#include "gpuperf/trace/text_scan.hpp"

namespace gpuperf {

inline bool looks_like_ncu_source_lines(std::string_view head) {
  return scan::starts_with(head, "\"File Path\",") && head.find("\"Function Name\",") != std::string_view::npos;
}

namespace detail {

// One function while its page is read: every (file, line) each address was listed under.
struct PendingFunctionLines {
  std::string name;
  struct Where {
    std::string opcode, file;
    std::uint32_t line = 0;
  };
  std::map<std::uint64_t, std::vector<Where>> by_address;
};

// An address listed under several lines (a header function inlined into a kernel lists some of
// its instructions under the call too) takes the inlined code's line: one outside the file of
// the function's entry, as nvdisasm -gi names the inlined line first, so a listing and this
// page give one instruction the same line.
inline FunctionSourceLines resolve_lines(const PendingFunctionLines& f) {
  FunctionSourceLines out;
  out.name = f.name;
  if (f.by_address.empty()) return out;
  const std::uint64_t entry = f.by_address.begin()->first;
  const std::string& entry_file = f.by_address.begin()->second.front().file;
  for (auto& [addr, wheres] : f.by_address) {
    auto inlined = std::find_if(wheres.begin(), wheres.end(), [&](const PendingFunctionLines::Where& w) { return w.file != entry_file; });
    const auto& w = inlined != wheres.end() ? *inlined : wheres.front();
    out.by_offset[addr - entry] = {w.opcode, w.file, w.line};
  }
  return out;
}

}  // namespace detail

inline std::vector<FunctionSourceLines> read_ncu_source_lines(const std::string& path) {
  LineReader lr(path);
  std::string_view line;
  std::vector<std::string> f;
  std::vector<detail::PendingFunctionLines> functions;
  std::map<std::string, std::size_t> index;  // function name -> position in `functions`
  std::string file;
  detail::PendingFunctionLines* fn = nullptr;
  bool header = false;
  std::uint32_t source_line = 0;
  while (lr.next(line)) {
    if (line.empty()) continue;
    if (scan::has_binary_junk(line)) throw ParseError(path, lr.line_number(), 1, "expected CSV text, found binary data");
    csv::split(line, f, path, lr.line_number());
    if (f.size() >= 2 && f[0] == "File Path") { file = f[1]; fn = nullptr; header = false; continue; }
    if (f.size() >= 2 && f[0] == "Function Name") {
      if (file.empty()) throw ParseError(path, lr.line_number(), 1, "expected a '\"File Path\",...' line before '\"Function Name\"'");
      auto [it, fresh] = index.emplace(f[1], functions.size());
      if (fresh) functions.push_back({f[1], {}});
      fn = &functions[it->second];
      header = false;
      source_line = 0;
      continue;
    }
    if (f.size() >= 4 && f[0] == "Line No" && f[1] == "Source" && f[2] == "Address" && f[3] == "Source") {
      if (!fn) throw ParseError(path, lr.line_number(), 1, "expected a '\"Function Name\",...' line before the column header");
      header = true;
      continue;
    }
    if (!header) throw ParseError(path, lr.line_number(), 1, "expected '\"File Path\"', '\"Function Name\"' and a '\"Line No\",\"Source\",\"Address\",\"Source\",...' header first");
    if (f.size() < 4) throw ParseError(path, lr.line_number(), 1, "expected at least 4 CSV fields (line, CUDA source, address, SASS), found " + std::to_string(f.size()));
    if (!f[0].empty()) {
      auto n = checked_integer<std::uint32_t>(csv::number(f[0]), 1, 1u << 30);
      if (!n) throw ParseError(path, lr.line_number(), 1, "expected a source line number, found '" + f[0] + "'");
      source_line = *n;
    }
    std::string_view a = f[2];
    if (!scan::starts_with(a, "0x")) continue;  // a CUDA line's own row ("-") or a gap ("...")
    a.remove_prefix(2);
    std::uint64_t addr = 0;
    auto r = std::from_chars(a.data(), a.data() + a.size(), addr, 16);
    if (r.ec != std::errc() || r.ptr != a.data() + a.size())
      throw ParseError(path, lr.line_number(), 1, "expected a hexadecimal instruction address, found '" + f[2] + "'");
    if (source_line == 0) throw ParseError(path, lr.line_number(), 1, "expected a CUDA source line row before the instruction at " + f[2]);
    auto& wheres = fn->by_address[addr];
    const bool seen = std::any_of(wheres.begin(), wheres.end(), [&](const auto& w) { return w.file == file && w.line == source_line; });
    if (!seen) wheres.push_back({sass::parse_instruction_text(f[3]).opcode, file, source_line});
  }
  if (functions.empty()) throw ParseError(path, lr.line_number(), 1, "expected at least one '\"Function Name\"' section in the CUDA-with-SASS source page");
  std::vector<FunctionSourceLines> out;
  for (auto& fl : functions) out.push_back(detail::resolve_lines(fl));
  return out;
}

// Sets the CUDA file and line of each instruction of `k` that has none, from the function of
// `pages` with the kernel's name (compared as ncu_base_name of `demangled_name`) whose
// instructions agree with the kernel's (base mnemonics) at 90 % of the offsets both have.
// Offsets count from each side's first instruction, so the page's runtime addresses join a
// trace's offsets as well as the SASS page's addresses. Returns whether a function joined.
inline bool attach_source_lines(Kernel& k, const std::string& demangled_name, const std::vector<FunctionSourceLines>& pages) {
  if (k.program.empty()) return false;
  std::uint64_t first = k.program.front().pc;
  for (auto& s : k.program) first = std::min(first, s.pc);
  const std::string base = ncu_base_name(demangled_name);
  for (const auto& fl : pages) {
    if (ncu_base_name(fl.name) != base) continue;
    std::size_t common = 0, agree = 0;
    for (auto& s : k.program) {
      auto it = fl.by_offset.find(s.pc - first);
      if (it == fl.by_offset.end()) continue;
      ++common;
      agree += sass::tokenize_opcode(it->second.opcode).base == sass::tokenize_opcode(s.opcode).base;
    }
    if (common == 0 || agree * 10 < common * 9) continue;
    for (auto& s : k.program) {
      auto it = fl.by_offset.find(s.pc - first);
      if (it == fl.by_offset.end() || s.source_line) continue;
      s.source_file = it->second.file;
      s.source_line = it->second.line;
    }
    return true;
  }
  return false;
}

}  // namespace gpuperf
