// PPT-GPU traces: app_config.py (dict literals read as data, never executed),
// sass_traces/kernel_N.sass (one line per dynamic warp instruction of the modelled CTA:
// "<warp> <OPCODE> <regs...>") and memory_traces/kernel_N_block_M.mem ("=====" separated
// records "OPCODE addr addr ..."). These hold one representative CTA and no active masks.
#pragma once

#include <charconv>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "gpuperf/sass/instruction.hpp"
#include "gpuperf/sass/memory_ops.hpp"
#include "gpuperf/trace/byte_source.hpp"
#include "gpuperf/trace/ir.hpp"
#include "gpuperf/trace/text_scan.hpp"

namespace gpuperf {

struct PptKernelConfig {
  std::string var;  // "kernel_1"
  std::map<std::string, std::string> fields;
  std::uint64_t line = 0;
};

// Reads `name = { "key": value, ... }` assignments; values are numbers or strings.
inline std::vector<PptKernelConfig> read_ppt_app_config(const std::string& path) {
  LineReader lr(path);
  std::string all;
  std::vector<std::uint64_t> line_starts;
  std::string_view line;
  while (lr.next(line)) { line_starts.push_back(all.size()); all.append(line); all.push_back('\n'); }
  auto line_of = [&](std::size_t off) {
    std::uint64_t l = 1;
    for (std::size_t i = 0; i < line_starts.size() && line_starts[i] <= off; ++i) l = i + 1;
    return l;
  };
  std::vector<PptKernelConfig> out;
  std::size_t pos = 0;
  while ((pos = all.find('=', pos)) != std::string::npos) {
    std::size_t name_end = pos;
    while (name_end > 0 && all[name_end - 1] == ' ') --name_end;
    std::size_t name_start = name_end;
    while (name_start > 0 && (std::isalnum(static_cast<unsigned char>(all[name_start - 1])) || all[name_start - 1] == '_')) --name_start;
    std::size_t brace = all.find_first_not_of(" \t", pos + 1);
    if (brace == std::string::npos || all[brace] != '{') { ++pos; continue; }
    std::size_t close = all.find('}', brace);
    if (close == std::string::npos) throw ParseError(path, line_of(brace), 1, "expected '}' closing the dict literal");
    PptKernelConfig kc;
    kc.var = all.substr(name_start, name_end - name_start);
    kc.line = line_of(brace);
    std::string_view body(all.data() + brace + 1, close - brace - 1);
    std::size_t i = 0;
    while (i < body.size()) {
      auto q1 = body.find_first_of("\"'", i);
      if (q1 == std::string_view::npos) break;
      auto q2 = body.find(body[q1], q1 + 1);
      if (q2 == std::string_view::npos) throw ParseError(path, kc.line, 1, "expected a closing quote in a dict key");
      std::string key(body.substr(q1 + 1, q2 - q1 - 1));
      auto colon = body.find(':', q2);
      if (colon == std::string_view::npos) throw ParseError(path, kc.line, 1, "expected ':' after key '" + key + "'");
      auto vs = body.find_first_not_of(" \t\n", colon + 1);
      std::string val;
      if (vs != std::string_view::npos && (body[vs] == '"' || body[vs] == '\'')) {
        auto ve = body.find(body[vs], vs + 1);
        if (ve == std::string_view::npos) throw ParseError(path, kc.line, 1, "expected a closing quote in the value of '" + key + "'");
        val = std::string(body.substr(vs + 1, ve - vs - 1));
        i = ve + 1;
      } else if (vs == std::string_view::npos) {
        throw ParseError(path, kc.line, 1, "expected a value after '" + key + ":'");
      } else {
        auto ve = body.find_first_of(",\n", vs);
        val = std::string(scan::trim(body.substr(vs, ve == std::string_view::npos ? std::string_view::npos : ve - vs)));
        i = ve == std::string_view::npos ? body.size() : ve + 1;
      }
      kc.fields[key] = val;
    }
    out.push_back(std::move(kc));
    pos = close;
  }
  if (out.empty()) throw ParseError(path, 1, 1, "expected 'kernel_N = {...}' dict literals in PPT-GPU app_config.py");
  return out;
}

inline Application read_pptgpu_app(const std::string& dir) {
  namespace fs = std::filesystem;
  auto cfgs = read_ppt_app_config((fs::path(dir) / "app_config.py").string());
  Application app;
  for (auto& kc : cfgs) {
    // Checked: digits only, within what a GPU can launch (stoull would take "-1" as 2^64-1).
    auto num = [&](const char* k, std::uint64_t lo, std::uint64_t hi) -> std::uint32_t {
      auto it = kc.fields.find(k);
      if (it == kc.fields.end()) return 0;
      const std::string& v = it->second;
      std::uint64_t x = 0;
      auto r = std::from_chars(v.data(), v.data() + v.size(), x);
      if (v.empty() || r.ec != std::errc() || r.ptr != v.data() + v.size() || x < lo || x > hi)
        throw ParseError(dir + "/app_config.py", kc.line, 1, "expected an integer in " + std::to_string(lo) + ".." + std::to_string(hi) + " for '" +
                                                               std::string(k) + "', found '" + v + "'");
      return static_cast<std::uint32_t>(x);
    };
    Kernel k;
    k.format = SourceFormat::pptgpu;
    k.representative_cta = true;
    k.launch.name = kc.fields.count("kernel_name") ? kc.fields["kernel_name"] : kc.var;
    k.launch.registers_per_thread = num("num_registers", 0, 255);
    k.launch.static_shared_bytes = num("shared_mem_bytes", 0, 256u << 10);
    for (const char* need : {"grid_size", "block_size"})
      if (!kc.fields.count(need)) throw ParseError(dir + "/app_config.py", kc.line, 1, std::string("expected '") + need + "' in " + kc.var);
    k.launch.grid.x = num("grid_size", 1, 0x7fffffffu);
    k.launch.block.x = num("block_size", 1, 1024);
    k.launch.cuda_stream = num("cuda_stream_id", 0, 0xffffffffu);
    std::string idx = kc.var.substr(kc.var.find('_') == std::string::npos ? 0 : kc.var.find('_') + 1);
    std::uint64_t id = 0;
    auto idr = std::from_chars(idx.data(), idx.data() + idx.size(), id);
    k.launch.id = idr.ec == std::errc() && id <= 0xffffffffu ? static_cast<std::uint32_t>(id) : 0;
    fs::path sass = fs::path(dir) / "sass_traces" / (kc.var + ".sass");
    k.source_path = sass.string();
    if (!fs::exists(sass)) throw IoError(sass.string() + ": missing SASS trace for " + kc.var + " listed in app_config.py");
    // Per-warp streams; PCs are not recorded, so each (warp, position) gets a synthetic PC
    // keyed by opcode sequence: instruction i of the CTA's longest warp gets PC 16*i.
    LineReader lr(sass.string());
    std::string_view line;
    std::map<std::uint32_t, std::vector<DynInstr>> per_warp;
    std::map<std::pair<std::uint32_t, std::uint64_t>, std::uint32_t> static_of;  // (warp-relative position) -> static
    std::map<std::uint32_t, std::uint64_t> pos_in_warp;
    std::map<std::string, std::uint32_t> opcode_at_pos;
    while (lr.next(line)) {
      auto t = scan::trim(line);
      if (t.empty()) continue;
      if (scan::has_binary_junk(t)) throw ParseError(lr.path(), lr.line_number(), 1, "expected text, found binary data");
      scan::Cursor c{t, 0, &lr.path(), lr.line_number()};
      auto warp = static_cast<std::uint32_t>(c.uinteger(1u << 16, "a warp id"));
      std::size_t oc = (c.skip_ws(), c.pos);
      auto opcode = c.token();
      if (opcode.empty()) c.fail("an opcode", oc);
      std::uint64_t p = pos_in_warp[warp]++;
      std::string key = std::to_string(p) + ":" + std::string(opcode);
      auto it = opcode_at_pos.find(key);
      std::uint32_t si;
      if (it == opcode_at_pos.end()) {
        StaticInstr s;
        s.pc = 16 * k.program.size();
        s.opcode = std::string(opcode);
        auto tok = sass::tokenize_opcode(s.opcode);
        int ndst = sass::dest_count_for(tok);
        int seen = 0;
        while (!c.at_end()) {
          auto r = c.token();
          std::uint16_t reg;
          if (sass::parse_register(r, reg)) (seen++ < ndst ? s.dst : s.src).push_back(reg);
          else ++seen;
        }
        auto mt = sass::memory_traits(tok);
        s.space = mt.space;
        s.mem_op = mt.op;
        s.access_bits = mt.width_bytes * 8;
        s.counts_known = true;
        si = static_cast<std::uint32_t>(k.program.size());
        k.program.push_back(std::move(s));
        opcode_at_pos.emplace(key, si);
      } else si = it->second;
      k.program[si].warp_executed++;
      k.program[si].thread_executed += 32;
      k.program[si].pred_on_thread_executed += 32;
      per_warp[warp].push_back(DynInstr{si, 0xffffffffu, 0, 0, 0});
    }
    // Memory trace of block 0, attached in order to the memory instructions of warp order.
    fs::path mem = fs::path(dir) / "memory_traces" / (kc.var + "_block_0.mem");
    std::vector<std::pair<std::string, std::vector<std::uint64_t>>> records;
    if (fs::exists(mem)) {
      LineReader ml(mem.string());
      while (ml.next(line)) {
        auto t = scan::trim(line);
        if (t.empty() || scan::starts_with(t, "=====")) continue;
        scan::Cursor c{t, 0, &ml.path(), ml.line_number()};
        auto op = c.token();
        std::vector<std::uint64_t> a;
        while (!c.at_end()) a.push_back(c.hex());
        records.emplace_back(std::string(op), std::move(a));
      }
    } else {
      k.warnings.push_back("no memory trace " + mem.string() + "; cache behaviour is assumed");
    }
    std::size_t rec = 0;
    bool mismatch = false;
    for (auto& [w, v] : per_warp) {
      WarpStream ws;
      ws.cta = Dim3{0, 1, 1};
      ws.cta.x = 0;
      ws.warp_in_cta = w;
      ws.begin = k.dyn.size();
      for (auto d : v) {
        auto& s = k.program[d.static_index];
        if (s.space == MemSpace::global || s.space == MemSpace::local || s.space == MemSpace::generic) {
          if (rec < records.size() && records[rec].first == s.opcode) {
            d.addr_begin = static_cast<std::uint32_t>(k.addresses.size());
            d.addr_count = static_cast<std::uint8_t>(std::min<std::size_t>(32, records[rec].second.size()));
            d.mem_width = static_cast<std::uint8_t>(s.access_bits / 8);
            k.addresses.insert(k.addresses.end(), records[rec].second.begin(), records[rec].second.begin() + d.addr_count);
            ++rec;
          } else if (!records.empty() && !mismatch) {
            mismatch = true;
            k.warnings.push_back("memory trace records stop matching the SASS trace's memory instructions; remaining accesses have no addresses");
          }
        }
        k.dyn.push_back(d);
      }
      ws.end = k.dyn.size();
      k.warps.push_back(ws);
    }
    k.traced_ctas = 1;
    k.warnings.push_back("PPT-GPU trace: one representative CTA, no active masks; counts are scaled to the full grid");
    app.kernels.push_back(std::move(k));
  }
  return app;
}

}  // namespace gpuperf
