// PPT-GPU traces: app_config.py (dict literals read as data, never executed),
// sass_traces/kernel_N.sass (one line per dynamic warp instruction of one CTA, in the order the
// warps issued them: "<hardware warp slot> <OPCODE> <regs...>") and
// memory_traces/kernel_N_block_M.mem for every CTA M ("=====" separated records
// "OPCODE addr addr ..." in that CTA's issue order). No PCs, no active masks.
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

namespace detail {

// One record of a PPT-GPU memory file: "OPCODE 0xaddr 0xaddr ..." (one address per active
// lane whose address is not 0, a second list for two-reference instructions like LDGSTS).
struct PptMemRecord {
  std::string op;
  std::vector<std::uint64_t> addrs;
};

// f(record) for every record of memory file `path`, in the file's order.
template <class F>
void for_each_ppt_mem_record(const std::string& path, F&& f) {
  LineReader ml(path);
  std::string_view line;
  PptMemRecord r;
  while (ml.next(line)) {
    auto t = scan::trim(line);
    if (t.empty() || scan::starts_with(t, "=====")) continue;
    if (scan::has_binary_junk(t)) throw ParseError(ml.path(), ml.line_number(), 1, "expected text, found binary data");
    scan::Cursor c{t, 0, &ml.path(), ml.line_number()};
    r.op = std::string(c.token());
    r.addrs.clear();
    while (!c.at_end()) {
      if (r.addrs.size() == 64) c.fail("at most 64 addresses (two per lane) in a memory record", c.pos);
      r.addrs.push_back(c.hex());
    }
    f(r);
  }
}

// The CTAs a PPT-GPU trace replays: the traced one and, up to this many in all, others whose
// memory files record the same memory instructions (each with its own addresses).
constexpr std::size_t kPptMaxCtas = 16;

// Memory files memory_traces/<var>_block_<cta>.mem: every CTA of the launch has one, its
// records in the order the CTA's warps issued them (no warp ids). The SASS trace is one CTA's,
// in the same arrival order, so the traced CTA's file is the one whose record opcodes are the
// SASS trace's memory instructions in order, and its records pair with them one to one.
// Records pair with instructions per opcode in order, so the other CTAs' files (interleaved
// differently) pair as well; those recording the same instructions are replayed as more CTAs.
inline void attach_ppt_memory(const std::string& dir, const std::string& var, const std::map<std::uint32_t, std::vector<DynInstr>>& per_warp,
                              const std::vector<std::pair<std::uint32_t, std::size_t>>& arrival, Kernel& k) {
  namespace fs = std::filesystem;
  const fs::path memdir = fs::path(dir) / "memory_traces";
  const std::string prefix = var + "_block_";
  std::map<std::uint64_t, std::string> files;  // CTA index -> file
  std::error_code ec;
  if (fs::is_directory(memdir, ec)) {
    fs::directory_iterator it(memdir, ec), end;
    if (ec) throw IoError(memdir.string() + ": " + ec.message());
    for (; it != end; it.increment(ec)) {
      if (ec) throw IoError(memdir.string() + ": " + ec.message());
      std::string name = it->path().filename().string();
      if (name.size() <= prefix.size() + 4 || name.compare(0, prefix.size(), prefix) != 0 || name.compare(name.size() - 4, 4, ".mem") != 0) continue;
      std::string num = name.substr(prefix.size(), name.size() - prefix.size() - 4);
      std::uint64_t cta = 0;
      auto r = std::from_chars(num.data(), num.data() + num.size(), cta);
      if (r.ec != std::errc() || r.ptr != num.data() + num.size()) continue;  // kernel_1_block_2_old.mem and the like
      std::error_code fe;
      if (!it->is_regular_file(fe)) {
        k.warnings.push_back(it->path().string() + ": not a regular file; skipped");
        continue;
      }
      if (cta >= k.launch.grid.count()) {
        k.warnings.push_back(it->path().string() + ": names CTA " + num + ", the grid has " + std::to_string(k.launch.grid.count()) + "; skipped");
        continue;
      }
      auto [at, fresh] = files.emplace(cta, it->path().string());
      if (!fresh) k.warnings.push_back(it->path().string() + ": CTA " + std::to_string(cta) + " already read from " + at->second + "; skipped");
    }
  }
  k.traced_ctas = 1;
  auto add_warps = [&](std::uint64_t cta, std::map<std::uint32_t, std::vector<DynInstr>> streams) {
    std::uint32_t wi = 0;  // hardware warp slots (8..11, say) become warps 0.. of the CTA
    for (auto& [w, v] : streams) {
      WarpStream ws;
      ws.cta = Dim3{static_cast<std::uint32_t>(cta), 0, 0};
      ws.warp_in_cta = wi++;
      ws.begin = k.dyn.size();
      k.dyn.insert(k.dyn.end(), v.begin(), v.end());
      ws.end = k.dyn.size();
      k.warps.push_back(ws);
    }
  };
  if (files.empty()) {
    k.warnings.push_back("no memory trace " + (memdir / (prefix + "<cta>.mem")).string() + "; cache behaviour is assumed");
    add_warps(0, per_warp);
    return;
  }
  // Pass 1: every file's record opcodes (as ids), to find the traced CTA's file.
  std::map<std::string, std::uint16_t> op_id;
  std::map<std::uint64_t, std::vector<std::uint16_t>> seqs;
  for (auto& entry : files) {  // a named variable: clang 14 cannot capture structured bindings
    const std::string& f = entry.second;
    auto& seq = seqs[entry.first];
    for_each_ppt_mem_record(f, [&](const PptMemRecord& r) {
      auto [it, fresh] = op_id.emplace(r.op, static_cast<std::uint16_t>(op_id.size()));
      if (fresh && op_id.size() > 60000) throw ParseError(f, 1, 1, "expected memory records of a kernel's few memory opcodes, found 60000 distinct opcodes");
      seq.push_back(it->second);
    });
  }
  std::vector<std::uint16_t> want;  // the SASS trace's recorded instructions in arrival order
  for (auto& [w, i] : arrival) {
    auto it = op_id.find(k.program[per_warp.at(w)[i].static_index].opcode);
    if (it != op_id.end()) want.push_back(it->second);
  }
  auto counts = [&](const std::vector<std::uint16_t>& v) {
    std::vector<std::uint64_t> c(op_id.size());
    for (auto x : v) ++c[x];
    return c;
  };
  std::uint64_t traced = files.begin()->first;
  std::size_t best = 0;
  bool exact = false;
  for (auto& [cta, seq] : seqs) {
    if (seq == want) { traced = cta; exact = true; break; }
    std::size_t n = 0;
    while (n < seq.size() && n < want.size() && seq[n] == want[n]) ++n;
    if (n > best) { best = n; traced = cta; }
  }
  if (!exact)
    k.warnings.push_back("no memory file of " + var + " records the SASS trace's " + std::to_string(want.size()) + " memory instructions in order (" +
                         files.at(traced) + " matches the first " + std::to_string(best) + "); its records are paired by opcode");
  // The CTAs replayed: the traced one first, then those whose files record the same
  // instructions (same count of each opcode), in CTA order.
  std::vector<std::uint64_t> replay{traced};
  const auto want_counts = counts(seqs.at(traced));
  std::size_t other_paths = 0;
  for (auto& [cta, seq] : seqs) {
    if (cta == traced) continue;
    if (counts(seq) != want_counts) { ++other_paths; continue; }
    if (replay.size() < kPptMaxCtas) replay.push_back(cta);
  }
  seqs.clear();
  if (other_paths)
    k.warnings.push_back(std::to_string(other_paths) + " of " + std::to_string(files.size()) + " memory files of " + var +
                         " record other memory instructions than the traced CTA (another path through the kernel); they are not replayed");
  // Pass 2: the replayed CTAs' records, paired per opcode in order with the traced stream.
  std::size_t unpaired = 0, unused = 0;
  for (auto cta : replay) {
    std::map<std::string, std::vector<PptMemRecord>> by_op;
    for_each_ppt_mem_record(files.at(cta), [&](const PptMemRecord& r) { by_op[r.op].push_back(r); });
    std::map<std::string, std::size_t> next;
    auto streams = per_warp;
    for (auto& [w, i] : arrival) {
      DynInstr& d = streams.at(w)[i];
      const StaticInstr& s = k.program[d.static_index];
      auto it = by_op.find(s.opcode);
      bool cached = l1_line_space(s.space);
      if (it == by_op.end() || next[s.opcode] >= it->second.size()) {
        if (cached && cta == traced) ++unpaired;
        continue;
      }
      const PptMemRecord& r = it->second[next[s.opcode]++];
      if (!cached) continue;
      d.mem_width = static_cast<std::uint8_t>(s.access_bits / 8);
      k.set_lane_addresses(d, r.addrs.data(), static_cast<unsigned>(std::min<std::size_t>(32, r.addrs.size())));
    }
    if (cta == traced)
      for (auto& [op, v] : by_op) unused += v.size() - next[op];
    add_warps(cta, std::move(streams));
  }
  if (unpaired || unused)
    k.warnings.push_back(files.at(traced) + ": " + std::to_string(unpaired) + " memory instruction(s) of the SASS trace have no record and " +
                         std::to_string(unused) + " record(s) no instruction; those accesses have no addresses");
  k.traced_ctas = replay.size();
  for (auto& s : k.program) {  // the per-PC counts were the traced CTA's: now every replayed CTA's
    s.warp_executed *= replay.size();
    s.thread_executed *= replay.size();
    s.pred_on_thread_executed *= replay.size();
  }
}

}  // namespace detail

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
    std::vector<std::pair<std::uint32_t, std::size_t>> arrival;  // (warp, index in per_warp) in file order
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
      arrival.emplace_back(warp, per_warp[warp].size());
      per_warp[warp].push_back(DynInstr{si, 0xffffffffu, 0, 0, 0});
    }
    // No active masks: every EXIT is recorded whether or not its predicate let the warp leave.
    // A warp with instructions after an EXIT passed it (its threads were predicated off), so
    // only a warp's last EXIT ends it; the others get an empty mask and count no thread.
    std::uint64_t passed_exits = 0;
    for (auto& [w, v] : per_warp)
      for (std::size_t i = 0; i + 1 < v.size(); ++i) {
        auto& s = k.program[v[i].static_index];
        if (sass::tokenize_opcode(s.opcode).base != "EXIT") continue;
        v[i].active_mask = 0;
        s.pred_on_thread_executed -= 32;
        ++passed_exits;
      }
    if (passed_exits)
      k.warnings.push_back("PPT-GPU trace: " + std::to_string(passed_exits) + " warp execution(s) of a predicated EXIT continue in the trace; "
                           "those warps are taken to pass it");
    if (per_warp.size() > k.launch.warps_per_cta())
      k.warnings.push_back("PPT-GPU trace: the SASS trace has " + std::to_string(per_warp.size()) + " warps, a CTA of " +
                           std::to_string(k.launch.block.x) + " threads has " + std::to_string(k.launch.warps_per_cta()));
    detail::attach_ppt_memory(dir, kc.var, per_warp, arrival, k);
    k.warnings.push_back("PPT-GPU trace: the instructions of one CTA" +
                         (k.traced_ctas > 1 ? " (replayed for " + std::to_string(k.traced_ctas) + " CTAs with their own addresses)" : std::string()) +
                         ", no active masks; counts are scaled to the full grid");
    app.kernels.push_back(std::move(k));
  }
  return app;
}

}  // namespace gpuperf
