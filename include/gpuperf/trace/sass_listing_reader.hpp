// Static SASS listings from `cuobjdump -sass` and `nvdisasm` (with or without -hex).
// Each function becomes a Kernel whose program has no counts; where the encoding is printed
// the scheduling control bits are decoded (Volta+: high word of each 128-bit instruction;
// Maxwell/Pascal: a 64-bit control word before every three instructions). Listings of code
// built with -lineinfo and disassembled with `nvdisasm -g` or `-gi` carry the CUDA source line
// of the instructions after each '//## File "PATH", line N' comment.
#pragma once

#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "gpuperf/sass/control_bits.hpp"
#include "gpuperf/sass/instruction.hpp"
#include "gpuperf/sass/memory_ops.hpp"
#include "gpuperf/trace/static_instr.hpp"
#include "gpuperf/trace/byte_source.hpp"
#include "gpuperf/trace/ir.hpp"
#include "gpuperf/trace/text_scan.hpp"

namespace gpuperf {

namespace detail {

// Extracts every "/* 0x... */" hex word on a line (encodings), in order.
inline std::vector<std::uint64_t> hex_comments(std::string_view line) {
  std::vector<std::uint64_t> out;
  std::size_t pos = 0;
  while ((pos = line.find("/* 0x", pos)) != std::string_view::npos) {
    pos += 5;
    std::uint64_t v = 0;
    auto r = std::from_chars(line.data() + pos, line.data() + line.size(), v, 16);
    if (r.ec == std::errc()) out.push_back(v);
    pos = static_cast<std::size_t>(r.ptr - line.data());
  }
  return out;
}

// '//## File "PATH", line N' (nvdisasm -g), optionally followed by ' inlined at "PATH2", line M'
// (-gi): the file and line the instructions after it come from (the innermost, inlined one).
inline void parse_line_info(std::string_view t, const std::string& path, std::uint64_t ln, std::uint32_t col0, std::string& file, std::uint32_t& line) {
  constexpr std::string_view lead = "//## File \"";
  auto close = t.find('"', lead.size());
  if (!scan::starts_with(t, lead) || close == std::string_view::npos)
    throw ParseError(path, ln, col0, "expected '//## File \"PATH\", line N' (nvdisasm line info)");
  std::string_view rest = t.substr(close + 1);
  constexpr std::string_view sep = ", line ";
  if (!scan::starts_with(rest, sep)) throw ParseError(path, ln, col0 + static_cast<std::uint32_t>(close + 1), "expected ', line N' after the file name");
  rest.remove_prefix(sep.size());
  std::uint32_t v = 0;
  auto r = std::from_chars(rest.data(), rest.data() + rest.size(), v);
  if (r.ec != std::errc() || v == 0)
    throw ParseError(path, ln, col0 + static_cast<std::uint32_t>(close + 1 + sep.size()), "expected a line number (1 or more) after ', line '");
  file = std::string(t.substr(lead.size(), close - lead.size()));
  line = v;
}

inline std::uint32_t sm_from_text(std::string_view s) {
  auto p = s.find("sm_");
  if (p == std::string_view::npos) p = s.find("SM");
  if (p == std::string_view::npos) return 0;
  p += (s[p] == 's') ? 3 : 2;
  std::uint32_t v = 0;
  while (p < s.size() && s[p] >= '0' && s[p] <= '9') v = v * 10 + static_cast<std::uint32_t>(s[p++] - '0');
  return v;
}

}  // namespace detail

// Reads a listing; returns one Kernel per function, in listing order.
inline std::vector<Kernel> read_sass_listing(const std::string& path) {
  LineReader lr(path);
  std::vector<Kernel> out;
  std::string_view line;
  std::uint32_t sm = 0;
  Kernel* cur = nullptr;
  std::unordered_map<std::string, std::uint64_t> labels;      // nvdisasm labels -> PC
  std::vector<std::pair<std::size_t, std::string>> pending;   // (instr index, label) per function
  std::string pending_label;
  std::optional<std::uint64_t> maxwell_ctrl;  // control word awaiting its three instructions
  int maxwell_slot = 0;
  StaticInstr* awaiting_high = nullptr;       // Volta+: instruction waiting for its 2nd hex word
  bool any_function = false;
  std::string src_file;             // the source line of the instructions that follow (-lineinfo)
  std::uint32_t src_line = 0;
  bool prev_line_info = false;      // the line before was a '//##' line too

  auto resolve_labels = [&]() {
    if (!cur) return;
    for (auto& [idx, lab] : pending) {
      auto it = labels.find(lab);
      if (it != labels.end()) cur->program[idx].branch_target = it->second;
    }
    pending.clear();
    labels.clear();
  };
  auto start_function = [&](std::string name) {
    resolve_labels();
    out.emplace_back();
    cur = &out.back();
    cur->format = SourceFormat::sass_listing;
    cur->source_path = path;
    cur->launch.name = std::move(name);
    cur->launch.sm_version = sm;
    maxwell_ctrl.reset();
    awaiting_high = nullptr;
    any_function = true;
    src_file.clear();
    src_line = 0;
  };

  while (lr.next(line)) {
    if (scan::has_binary_junk(line)) throw ParseError(path, lr.line_number(), 1, "expected SASS listing text, found binary data");
    auto t = scan::trim(line);
    if (t.empty()) continue;
    const bool after_line_info = prev_line_info;
    prev_line_info = false;
    if (scan::starts_with(t, "//##")) {
      // nvdisasm -gi prints the inlined location, then each location it is inlined at, one
      // line each: the first of a run is the instruction's own source line.
      if (!after_line_info && scan::starts_with(t, "//## File"))
        detail::parse_line_info(t, path, lr.line_number(), static_cast<std::uint32_t>(t.data() - line.data() + 1), src_file, src_line);
      prev_line_info = true;
      continue;
    }
    if (scan::starts_with(t, "code for sm_") || scan::starts_with(t, ".target")) { sm = detail::sm_from_text(t); continue; }
    if (scan::starts_with(t, ".headerflags")) {
      if (!sm) sm = detail::sm_from_text(t);
      if (cur && !cur->launch.sm_version) cur->launch.sm_version = sm;
      continue;
    }
    if (scan::starts_with(t, "Function :")) { start_function(std::string(scan::trim(t.substr(10)))); continue; }
    if (scan::starts_with(t, ".text.") && t.back() == ':') {
      start_function(std::string(t.substr(6, t.size() - 7)));
      continue;
    }
    if (t[0] == '.' && t.back() == ':' && t.find(' ') == std::string_view::npos) {  // label ".L_x_0:"
      pending_label = std::string(t.substr(0, t.size() - 1));
      continue;
    }
    if (scan::starts_with(t, "/*") && t.size() > 2 && t[2] != ' ') {
      // "/*0040*/  OPCODE ... ;  /* 0x... */"
      auto close = t.find("*/");
      if (close == std::string_view::npos) throw ParseError(path, lr.line_number(), 1, "expected '/*ADDR*/' before an instruction");
      std::uint64_t pc = 0;
      auto r = std::from_chars(t.data() + 2, t.data() + close, pc, 16);
      if (r.ec != std::errc() || r.ptr != t.data() + close)
        throw ParseError(path, lr.line_number(), 3, "expected a hexadecimal address inside '/*...*/'");
      if (!cur) start_function("<anonymous>");
      std::string_view rest = t.substr(close + 2);
      auto semi = rest.find(';');
      std::string_view text = scan::trim(semi == std::string_view::npos ? rest.substr(0, rest.find("/*")) : rest.substr(0, semi));
      auto words = detail::hex_comments(semi == std::string_view::npos ? std::string_view{} : rest.substr(semi));
      if (text.empty()) continue;
      sass::ParsedInstruction p;
      StaticInstr s = sass::static_instr_from_text(pc, text, &p);
      if (!p.branch_target.empty()) {
        std::string_view bt = p.branch_target;
        if (scan::starts_with(bt, "0x")) {
          std::uint64_t v = 0;
          std::from_chars(bt.data() + 2, bt.data() + bt.size(), v, 16);
          s.branch_target = v;
        } else {
          auto a = bt.find('(');
          auto b = bt.find(')');
          if (a != std::string_view::npos && b != std::string_view::npos)
            pending.emplace_back(cur->program.size(), std::string(bt.substr(a + 1, b - a - 1)));
        }
      }
      if (!pending_label.empty()) { labels[pending_label] = pc; pending_label.clear(); }
      s.source_file = src_file;
      s.source_line = src_line;
      if (maxwell_ctrl) {
        s.control = sass::decode_control_maxwell(*maxwell_ctrl, maxwell_slot);
        if (++maxwell_slot == 3) maxwell_ctrl.reset();
      }
      cur->program.push_back(std::move(s));
      awaiting_high = (cur->launch.sm_version >= 70 && words.size() == 1) ? &cur->program.back() : nullptr;
      if (words.size() >= 2 && cur->launch.sm_version >= 70) cur->program.back().control = sass::decode_control_volta(words[1]);
      continue;
    }
    if (scan::starts_with(t, "/* 0x")) {
      auto words = detail::hex_comments(t);
      if (words.empty()) continue;
      if (awaiting_high) {
        awaiting_high->control = sass::decode_control_volta(words[0]);
        awaiting_high = nullptr;
      } else if (cur && cur->launch.sm_version > 0 && cur->launch.sm_version < 70) {
        maxwell_ctrl = words[0];  // control word for the next three instructions
        maxwell_slot = 0;
      }
      continue;
    }
  }
  resolve_labels();
  if (!any_function) throw ParseError(path, lr.line_number(), 1, "expected a SASS listing ('Function :' or '.text.<name>:'), found none");
  for (auto& k : out) {
    if (k.program.empty()) k.warnings.push_back("function " + k.launch.name + " has no instructions in the listing");
  }
  return out;
}

}  // namespace gpuperf
