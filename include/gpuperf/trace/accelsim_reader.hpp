// Accel-Sim NVBit traces: grouped .traceg and raw interleaved .trace, tracer versions <3
// (CTA/warp ids on every line), 3, 4 (line numbers), 5 (trailing immediate) and 6 extras
// (trailing tokens tolerated), address modes 0/1/2, compressed or not.
// Format reference: shared/reference/trace-formats.md section 1.
#pragma once

#include <bitset>
#include <cstdint>
#include <cstring>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "gpuperf/sass/instruction.hpp"
#include "gpuperf/sass/memory_ops.hpp"
#include "gpuperf/trace/byte_source.hpp"
#include "gpuperf/trace/cta_work.hpp"
#include "gpuperf/trace/poll_retries.hpp"
#include "gpuperf/trace/progress.hpp"
#include "gpuperf/trace/ir.hpp"
#include "gpuperf/trace/text_scan.hpp"

namespace gpuperf {

struct AccelSimHeader {
  std::string kernel_name;
  std::uint32_t kernel_id = 0;
  Dim3 grid, block;
  std::int64_t shmem = -1, nregs = -1, binary_version = -1;
  std::uint64_t stream = 0;
  std::uint64_t shmem_base = 0, local_base = 0;
  int tracer_version = 0;  // 0 = no version line (old, < 3)
  bool lineinfo = false;
  std::string nvbit_version;
  // Sampling recorded by gpuperf's own tracer: "-cta sampling = every 4" / "first 8".
  std::uint64_t traced_ctas = 0;
  // "-truncated at instructions = N": the tracer stopped recording after N instructions.
  std::uint64_t truncated_at = 0;
  // "-async copy addresses = global sources": gpuperf's tracer since 2026-11-29 records an
  // asynchronous copy's (LDGSTS) global sources, whatever their values (a zero-filled copy's
  // may be offsets from a null pointer).
  bool copy_sources_traced = false;
  // "-constant load addresses = bank offsets": gpuperf's tracer since 2026-12-02 records an
  // indexed constant load's (LDC c[bank][R+imm]) lane words as bank << 16 | byte offset.
  bool constant_addresses_traced = false;
  // "-cta warp instructions = ...": every CTA's work (trace/cta_work.hpp), parsed once the grid
  // is known; where it stood, for its errors.
  std::string cta_work;
  TextPlace cta_work_at;
  bool has_grid = false, has_block = false;
};


namespace detail {

inline Dim3 parse_dim3(std::string_view v, const std::string& file, std::uint64_t line) {
  // "(55,1,1)" or "55,1,1"
  Dim3 d;
  std::uint32_t vals[3] = {1, 1, 1};
  int idx = 0;
  std::uint64_t cur = 0;
  bool any = false;
  for (char c : v) {
    if (c >= '0' && c <= '9') { cur = cur * 10 + static_cast<unsigned>(c - '0'); any = true; if (cur > 0xffffffffull) break; }
    else if (c == ',') { if (idx < 3) vals[idx++] = static_cast<std::uint32_t>(cur); cur = 0; any = false; }
    else if (c == '(' || c == ')' || c == ' ') continue;
    else throw ParseError(file, line, 1, "expected a dimension like (x,y,z), found '" + std::string(v) + "'");
  }
  if (any && idx < 3) vals[idx++] = static_cast<std::uint32_t>(cur);
  if (idx != 3 || cur > 0xffffffffull) throw ParseError(file, line, 1, "expected a dimension like (x,y,z), found '" + std::string(v) + "'");
  d.x = vals[0]; d.y = vals[1]; d.z = vals[2];
  return d;
}

inline bool parse_header_line(std::string_view line, AccelSimHeader& h, const std::string& file, std::uint64_t ln) {
  if (line.empty() || line[0] != '-') return false;
  auto eq = line.find('=');
  if (eq == std::string_view::npos) return false;
  auto key = scan::trim(line.substr(1, eq - 1));
  auto val = scan::trim(line.substr(eq + 1));
  const auto val_col = static_cast<std::uint32_t>(std::min<std::size_t>(line.size(), eq + 2) + 1);
  auto to_int = [&](std::string_view v) -> std::int64_t {
    std::int64_t x = 0;
    auto r = std::from_chars(v.data(), v.data() + v.size(), x);
    if (r.ec != std::errc() || r.ptr != v.data() + v.size()) throw ParseError(file, ln, val_col, "expected an integer value for '" + std::string(key) + "'");
    return x;
  };
  // Values stored in narrower fields are range-checked, never truncated.
  auto to_range = [&](std::string_view v, std::int64_t lo, std::int64_t hi) -> std::int64_t {
    std::int64_t x = to_int(v);
    if (x < lo || x > hi)
      throw ParseError(file, ln, val_col, "expected '" + std::string(key) + "' in " + std::to_string(lo) + ".." + std::to_string(hi) + ", found " + std::to_string(x));
    return x;
  };
  auto to_hex = [&](std::string_view v) -> std::uint64_t {
    std::string_view d = v;
    if (scan::starts_with(d, "0x") || scan::starts_with(d, "0X")) d.remove_prefix(2);
    std::uint64_t x = 0;
    auto r = std::from_chars(d.data(), d.data() + d.size(), x, 16);
    if (r.ec != std::errc() || r.ptr != d.data() + d.size())
      throw ParseError(file, ln, val_col, "expected a 64-bit hexadecimal address for '" + std::string(key) + "', found '" + std::string(v) + "'");
    return x;
  };
  if (key == "kernel name") h.kernel_name = std::string(val);
  else if (key == "kernel id") h.kernel_id = static_cast<std::uint32_t>(to_range(val, 0, 0xffffffffll));
  else if (key == "grid dim") {
    h.grid = parse_dim3(val, file, ln);
    h.has_grid = true;
    if (h.grid.x < 1 || h.grid.y < 1 || h.grid.z < 1 || h.grid.x > 0x7fffffffu || h.grid.y > 65535 || h.grid.z > 65535)
      throw ParseError(file, ln, val_col, "expected a grid a GPU can launch (x in 1..2147483647, y and z in 1..65535), found '" + std::string(val) + "'");
  } else if (key == "block dim") {
    h.block = parse_dim3(val, file, ln);
    h.has_block = true;
    if (h.block.x < 1 || h.block.y < 1 || h.block.z < 1 || h.block.x > 1024 || h.block.y > 1024 || h.block.z > 64 || h.block.count() > 1024)
      throw ParseError(file, ln, val_col, "expected a block a GPU can launch (x, y in 1..1024, z in 1..64, at most 1024 threads), found '" + std::string(val) + "'");
  }
  else if (key == "shmem") h.shmem = to_int(val);
  else if (key == "nregs") h.nregs = to_int(val);
  else if (key == "binary version") h.binary_version = to_int(val);
  else if (key == "cuda stream id") {
    // Tracers print the CUstream handle, a 64-bit pointer value (0 for the legacy stream).
    std::uint64_t x = 0;
    auto r = std::from_chars(val.data(), val.data() + val.size(), x, 10);
    if (r.ec != std::errc() || r.ptr != val.data() + val.size())
      throw ParseError(file, ln, val_col, "expected 'cuda stream id' as an unsigned 64-bit number, found '" + std::string(val) + "'");
    h.stream = x;
  }
  else if (key == "shmem base_addr") h.shmem_base = to_hex(val);
  else if (key == "local mem base_addr") h.local_base = to_hex(val);
  else if (key == "nvbit version") h.nvbit_version = std::string(val);
  else if (key == "accelsim tracer version") h.tracer_version = static_cast<int>(to_range(val, 0, 1000));
  else if (key == "enable lineinfo") h.lineinfo = to_int(val) != 0;
  else if (key == "traced ctas") h.traced_ctas = static_cast<std::uint64_t>(to_range(val, 0, INT64_MAX));
  else if (key == "truncated at instructions") h.truncated_at = static_cast<std::uint64_t>(to_range(val, 1, INT64_MAX));
  else if (key == "async copy addresses") {
    if (val != "global sources")
      throw ParseError(file, ln, val_col, "expected 'async copy addresses = global sources', found '" + std::string(val) + "'");
    h.copy_sources_traced = true;
  }
  else if (key == "constant load addresses") {
    if (val != "bank offsets")
      throw ParseError(file, ln, val_col, "expected 'constant load addresses = bank offsets', found '" + std::string(val) + "'");
    h.constant_addresses_traced = true;
  }
  else if (key == "cta warp instructions") {
    h.cta_work = std::string(val);
    h.cta_work_at = TextPlace{file, ln, static_cast<std::uint32_t>(val.data() - line.data()) + 1};
  }
  return true;
}

}  // namespace detail

// Builds a Kernel from an Accel-Sim kernel file. Works for both .traceg (grouped) and raw
// .trace (interleaved, CTA/warp prefix on each line).
class AccelSimKernelReader {
 public:
  struct Options {
    bool keep_addresses = true;
    ProgressFn progress = nullptr;
    void* progress_ctx = nullptr;
    std::size_t kernels_done = 0, kernels_total = 0;  // passed through to progress (the load path sets them)
    // Makes a sink that takes the CTA blocks of a grouped trace as they are read and may drop
    // them (ir.hpp: CtaSink; model/address_profile.hpp: stream_addresses). Null: keep them all.
    std::function<std::shared_ptr<CtaSink>()> cta_sink;
  };

  static Kernel read(const std::string& path) { return read(path, Options{}); }

  static Kernel read(const std::string& path, const Options& opt) {
    AccelSimKernelReader r(path, opt);
    return r.run();
  }

 private:
  AccelSimKernelReader(const std::string& path, const Options& opt) : lr_(path), opt_(opt) {}

  Kernel run() {
    Kernel k;
    k.source_path = lr_.path();
    std::shared_ptr<CtaSink> sink = opt_.cta_sink ? opt_.cta_sink() : nullptr;
    std::size_t block_first_warp = 0;
    std::unordered_set<WarpKey, WarpKeyHash> streamed_ctas;  // CTAs handed to the sink
    // Reserve from the file size so large traces don't pay for repeated reallocation and copying
    // (untouched reserved pages cost nothing). Compressed files grow as usual. With a sink, the
    // kernel holds a window of CTAs at a time: room for at most 1 GB of text, a compressed
    // file's taken as 20 times its size (traces compress 10-100 fold), so that a trace's
    // memory does not depend on its compression.
    if (sink || lr_.source().compression() == Compression::none) {
      std::uint64_t sz = lr_.source().file_size();
      if (sink) sz = std::min<std::uint64_t>(lr_.source().compression() == Compression::none ? sz : 20 * sz, std::uint64_t(1) << 30);
      k.dyn.reserve(static_cast<std::size_t>(sz / 48));
      // Lane addresses take a few bytes per instruction (trace/address_pool.hpp).
      if (opt_.keep_addresses) k.addresses.reserve(static_cast<std::size_t>(sz / 16));
    }
    std::string_view line;
    bool in_body = false;
    bool in_tb = false;
    Dim3 cur_cta;
    std::uint32_t cur_warp = 0;
    std::int64_t expect_insts = -1, got_insts = 0;
    bool grouped = false, saw_any_instr = false;
    WarpStream* cur_stream = nullptr;
    // Raw traces interleave warps: keep per-warp instruction lists and stitch at the end.
    std::unordered_map<WarpKey, std::vector<DynInstr>, WarpKeyHash> raw_warps;
    std::vector<WarpKey> raw_order;
    std::uint64_t last_progress = 0;

    while (lr_.next(line)) {
      std::uint64_t ln = lr_.line_number();
      // Every 16 MB of text (a compressed file's bytes read advance slower than its text).
      if (opt_.progress && lr_.source().decompressed() - last_progress > (16u << 20)) {
        last_progress = lr_.source().decompressed();
        Progress p;
        p.kernels_done = opt_.kernels_done;
        p.kernels_total = opt_.kernels_total;
        p.file_read = lr_.source().compressed_consumed();
        p.file_size = lr_.source().file_size();
        p.file_decompressed = last_progress;
        p.file = lr_.path();
        opt_.progress(p, opt_.progress_ctx);
      }
      if (line.empty()) continue;
      char c0 = line[0];
      // Instruction lines are checked token by token (Cursor::fail names binary data); the
      // other lines are rare enough to scan whole.
      if ((c0 < '0' || c0 > '9') && (c0 < 'a' || c0 > 'f') && scan::has_binary_junk(line))
        throw ParseError(lr_.path(), ln, 1, "expected text trace lines, found binary data");
      if (!in_body) {
        if (c0 == '-') { detail::parse_header_line(line, hdr_, lr_.path(), ln); continue; }
        if (c0 == '#') {
          if (scan::starts_with(line, "#traces format")) { in_body = true; finish_header(k); }
          else if (scan::starts_with(line, "#BEGIN_TB")) { in_body = true; finish_header(k); goto body; }
          continue;
        }
        // Body lines without a "#traces format" line (hand-made fixtures).
        in_body = true;
        finish_header(k);
      }
    body:
      if (c0 == '#') {
        if (scan::starts_with(line, "#BEGIN_TB")) {
          if (in_tb) throw ParseError(lr_.path(), ln, 1, "expected #END_TB before a new #BEGIN_TB");
          in_tb = true; grouped = true; cur_stream = nullptr; expect_insts = -1;
          block_first_warp = k.warps.size();
        } else if (scan::starts_with(line, "#END_TB")) {
          if (!in_tb) throw ParseError(lr_.path(), ln, 1, "expected #BEGIN_TB before #END_TB");
          check_count(expect_insts, got_insts, ln);
          in_tb = false; cur_stream = nullptr;
          if (hdr_.tracer_version >= 3) {
            if (saw_poll_) drop_poll_retries(k, block_first_warp);
            else tally_traced_ctas(k, block_first_warp);
          }
          if (sink && hdr_.tracer_version >= 3) {
            if (!raw_order.empty())
              throw ParseError(lr_.path(), ln, 1, "expected CTA blocks only: this trace also has raw instruction lines outside #BEGIN_TB/#END_TB");
            // The block's warps without instructions go now (as at the end for a whole trace).
            std::size_t kept = block_first_warp;
            for (std::size_t w = block_first_warp; w < k.warps.size(); ++w)
              if (k.warps[w].end > k.warps[w].begin) k.warps[kept++] = k.warps[w];
            k.warps.resize(kept);
            for (std::size_t w = block_first_warp; w < k.warps.size(); ++w)
              streamed_ctas.insert(cta_key(k.warps[w].cta));
            tally_cut_warps(k, block_first_warp);  // before the sink may drop the block's warps
            if (block_first_warp < k.warps.size()) sink->ctas_read(k, block_first_warp);
          }
        }
        continue;
      }
      // Dispatch on the first byte: instruction lines (a hex PC, or a raw line's CTA index)
      // skip the prefix compares of the rare "thread block", "warp" and "insts" lines.
      const bool hex_lead = (c0 >= '0' && c0 <= '9') || (c0 >= 'a' && c0 <= 'f');
      if (!hex_lead && scan::starts_with(line, "thread block")) {
        auto eq = line.find('=');
        if (eq == std::string_view::npos) throw ParseError(lr_.path(), ln, 1, "expected 'thread block = x,y,z'");
        cur_cta = detail::parse_dim3(scan::trim(line.substr(eq + 1)), lr_.path(), ln);
        check_cta(k, cur_cta, ln);
        continue;
      }
      if (!hex_lead && scan::starts_with(line, "warp")) {
        auto eq = line.find('=');
        if (eq == std::string_view::npos) throw ParseError(lr_.path(), ln, 1, "expected 'warp = N'");
        check_count(expect_insts, got_insts, ln);
        scan::Cursor cw{line, eq + 1, &lr_.path(), ln};
        cur_warp = static_cast<std::uint32_t>(cw.uinteger(1u << 20, "a warp id"));
        check_warp(k, cur_cta, cur_warp, ln, true);
        k.warps.push_back(WarpStream{cur_cta, cur_warp, k.dyn.size(), k.dyn.size()});
        cur_stream = &k.warps.back();
        expect_insts = -1; got_insts = 0;
        continue;
      }
      if (!hex_lead && scan::starts_with(line, "insts")) {
        auto eq = line.find('=');
        scan::Cursor ci{line, eq == std::string_view::npos ? line.size() : eq + 1, &lr_.path(), ln};
        if (eq == std::string_view::npos) ci.fail("'insts = N'", 0);
        expect_insts = static_cast<std::int64_t>(ci.uinteger(1ull << 40, "an instruction count"));
        got_insts = 0;
        continue;
      }
      // Instruction line.
      scan::Cursor cur{line, 0, &lr_.path(), ln};
      Dim3 cta = cur_cta;
      std::uint32_t warp = cur_warp;
      // Raw .trace lines (outside #BEGIN_TB groups) and every line of tracer versions < 3
      // start with the CTA index and the warp id.
      if (hdr_.tracer_version < 3 || !in_tb) {
        cta.x = static_cast<std::uint32_t>(cur.uinteger(0xffffffffu, "a CTA x index"));
        cta.y = static_cast<std::uint32_t>(cur.uinteger(0xffffffffu, "a CTA y index"));
        cta.z = static_cast<std::uint32_t>(cur.uinteger(0xffffffffu, "a CTA z index"));
        warp = static_cast<std::uint32_t>(cur.uinteger(1u << 20, "a warp id"));
      }
      // "-enable lineinfo = 1": each line carries the CUDA source line of its PC (0: none).
      std::uint32_t src_line = 0;
      if (hdr_.lineinfo) src_line = static_cast<std::uint32_t>(cur.uinteger(0xffffffffu, "a source line number"));
      DynInstr d{};
      parse_instruction(cur, k, d);
      if (src_line && !k.program[d.static_index].source_line) k.program[d.static_index].source_line = src_line;
      saw_any_instr = true;
      if (grouped && in_tb && cur_stream && hdr_.tracer_version >= 3) {
        k.dyn.push_back(d);
        cur_stream->end = k.dyn.size();
        ++got_insts;
      } else {
        // Raw or old-format lines: key by CTA and warp (all 128 bits: no two warps share a key).
        WarpKey key{std::uint64_t(cta.x) | (std::uint64_t(cta.y) << 32), std::uint64_t(cta.z) | (std::uint64_t(warp) << 32)};
        auto [it, fresh] = raw_warps.try_emplace(key);
        if (fresh) {
          check_cta(k, cta, ln);
          check_warp(k, cta, warp, ln, false);
          raw_order.push_back(key);
        }
        it->second.push_back(d);
        ++got_insts;
      }
    }
    if (in_tb) throw ParseError(lr_.path(), lr_.line_number(), 1, "expected #END_TB before end of file (truncated trace?)");
    if (!in_body && !saw_any_instr) {
      if (hdr_.kernel_name.empty()) throw ParseError(lr_.path(), lr_.line_number(), 1, "expected an Accel-Sim trace header ('-kernel name = ...'); the file is empty or not a trace");
      // A header with no '#traces format' line and no body: the file was cut inside its header.
      throw ParseError(lr_.path(), lr_.line_number() + 1, 1, "expected the '#traces format' line and the trace body after the header; the file ends inside its header (truncated trace?)");
    }
    k.format = grouped ? SourceFormat::accelsim_traceg : SourceFormat::accelsim_trace;  // by content, not file name
    if (!raw_order.empty() && !streamed_ctas.empty())
      throw ParseError(lr_.path(), lr_.line_number(), 1, "expected CTA blocks only: this trace also has raw instruction lines outside #BEGIN_TB/#END_TB");
    if (!raw_order.empty()) {
      // Old-format grouped traces also arrive here: drop the empty streams made by "warp =".
      k.warps.clear();
      std::vector<DynInstr> all;
      for (auto key : raw_order) {
        auto& v = raw_warps[key];
        Dim3 cta{static_cast<std::uint32_t>(key.xy), static_cast<std::uint32_t>(key.xy >> 32), static_cast<std::uint32_t>(key.zw)};
        k.warps.push_back(WarpStream{cta, static_cast<std::uint32_t>(key.zw >> 32), all.size(), all.size() + v.size()});
        all.insert(all.end(), v.begin(), v.end());
      }
      k.dyn.swap(all);
      if (saw_poll_) drop_poll_retries(k, 0);
      else tally_traced_ctas(k, 0);
    } else {
      // Remove warps with no instructions (a "warp =" line followed by insts = 0).
      std::vector<WarpStream> kept;
      for (auto& w : k.warps) if (w.end > w.begin) kept.push_back(w);
      k.warps.swap(kept);
    }
    if (!(sink && !streamed_ctas.empty())) tally_cut_warps(k, 0);  // a streamed trace's blocks were tallied as read
    // Traced CTAs.
    if (sink && !streamed_ctas.empty()) {
      sink->trace_read(k);
      k.streamed = sink;
      k.traced_ctas = streamed_ctas.size();
    } else {
      std::unordered_set<WarpKey, WarpKeyHash> ctas;
      for (auto& w : k.warps) ctas.insert(cta_key(w.cta));
      k.traced_ctas = ctas.size();
    }
    // Reported by the model (WarningCode::truncated_trace), which knows whether per-CTA counts
    // joined later give the CTAs' whole work.
    if (hdr_.truncated_at) k.truncated_at_instructions = hdr_.truncated_at;
    if (hdr_.traced_ctas && hdr_.traced_ctas != k.traced_ctas)
      k.warnings.push_back("header says " + std::to_string(hdr_.traced_ctas) + " traced CTAs, body has " + std::to_string(k.traced_ctas));
    if (k.traced_ctas && k.traced_ctas < k.launch.grid.count())
      k.warnings.push_back("trace holds " + std::to_string(k.traced_ctas) + " of " + std::to_string(k.launch.grid.count()) +
                           " CTAs; counts are scaled to the full grid");
    if (!k.poll_retries.dropped_total) k.poll_retries.dropped.clear();  // the traced CTAs' tally serves the discount alone
    if (k.poll_retries.dropped_total) {
      discount_poll_retries(k);
      k.warnings.push_back("dropped " + std::to_string(k.poll_retries.dropped_total) +
                           " warp instructions of repeated barrier polls (SYNCS.PHASECHK retry loops): an instrumented run retries a wait many times, a native one about once");
    }
    for (auto& s : k.program) s.counts_known = true;
    return k;
  }

  // Of a truncated trace: warps [first_warp, end) that stop before their EXIT, and the CTAs
  // with one of them or with fewer warps recorded than a CTA has (the tracer stopped before the
  // rest began; every warp runs at least its EXIT), into k.cut_warps.
  void tally_cut_warps(Kernel& k, std::size_t first_warp) const {
    if (!hdr_.truncated_at) return;
    struct Tally {
      std::uint64_t recorded = 0;
      bool cut = false;
    };
    std::unordered_map<WarpKey, Tally, WarpKeyHash> ctas;
    for (std::size_t w = first_warp; w < k.warps.size(); ++w) {
      const WarpStream& ws = k.warps[w];
      if (ws.end == ws.begin) continue;
      Tally& t = ctas[cta_key(ws.cta)];
      ++t.recorded;
      ++k.cut_warps.recorded;
      if (sass::tokenize_opcode(k.program[k.dyn[ws.end - 1].static_index].opcode).base == "EXIT") continue;
      ++k.cut_warps.warps;
      t.cut = true;
    }
    for (const auto& [cta, t] : ctas) k.cut_warps.ctas += t.cut || t.recorded < k.launch.warps_per_cta();
  }

  struct WarpKey {
    std::uint64_t xy, zw;
    bool operator==(const WarpKey& o) const { return xy == o.xy && zw == o.zw; }
  };
  static WarpKey cta_key(const Dim3& c) { return WarpKey{std::uint64_t(c.x) | (std::uint64_t(c.y) << 32), c.z}; }  // a CTA's own key
  struct WarpKeyHash {
    std::size_t operator()(const WarpKey& k) const { return std::hash<std::uint64_t>()(k.xy * 0x9E3779B97F4A7C15ull ^ k.zw); }
  };
  // Header/body consistency: every CTA inside the grid, every warp inside its block, no
  // warp traced twice (a repeated block would be counted twice).
  void check_cta(const Kernel& k, const Dim3& c, std::uint64_t ln) const {
    const Dim3& g = k.launch.grid;
    if (hdr_.has_grid && (c.x >= g.x || c.y >= g.y || c.z >= g.z))
      throw ParseError(lr_.path(), ln, 1, "expected CTAs inside the header's grid " + dim_text(g) + ", found CTA " + dim_text(c));
  }
  void check_warp(const Kernel& k, const Dim3& c, std::uint32_t w, std::uint64_t ln, bool once) {
    if (hdr_.has_block && w >= k.launch.warps_per_cta())
      throw ParseError(lr_.path(), ln, 1, "expected warp ids below " + std::to_string(k.launch.warps_per_cta()) + " for the header's block " +
                                              dim_text(k.launch.block) + ", found warp " + std::to_string(w) + " in CTA " + dim_text(c));
    if (once && !seen_warps_.insert(WarpKey{std::uint64_t(c.x) | (std::uint64_t(c.y) << 32), std::uint64_t(c.z) | (std::uint64_t(w) << 32)}).second)
      throw ParseError(lr_.path(), ln, 1, "expected each warp once, found warp " + std::to_string(w) + " of CTA " + dim_text(c) + " twice");
  }
  static std::string dim_text(const Dim3& d) { return "(" + std::to_string(d.x) + "," + std::to_string(d.y) + "," + std::to_string(d.z) + ")"; }

  void check_count(std::int64_t expect, std::int64_t got, std::uint64_t ln) {
    if (expect >= 0 && expect != got)
      throw ParseError(lr_.path(), ln, 1, "expected " + std::to_string(expect) + " instructions after 'insts = " +
                                              std::to_string(expect) + "', found " + std::to_string(got));
  }

  void finish_header(Kernel& k) {
    // Without the launch shape, sampled counts would be scaled to a (1,1,1) grid.
    if (!hdr_.kernel_name.empty() && (!hdr_.has_grid || !hdr_.has_block))
      throw ParseError(lr_.path(), lr_.line_number(), 1, std::string("expected a '-") + (hdr_.has_grid ? "block" : "grid") +
                                                             " dim = (x,y,z)' header line before the trace body");
    k.shared_window_base = hdr_.shmem_base;
    k.copy_sources_traced = hdr_.copy_sources_traced;
    k.constant_addresses_traced = hdr_.constant_addresses_traced;
    k.local_window_base = hdr_.local_base;
    auto& L = k.launch;
    L.name = hdr_.kernel_name;
    L.id = hdr_.kernel_id;
    L.grid = hdr_.grid;
    L.block = hdr_.block;
    L.cuda_stream = hdr_.stream;
    if (!hdr_.cta_work.empty()) k.cta_work = parse_cta_work(hdr_.cta_work, L.grid.count(), hdr_.cta_work_at);
    if (hdr_.nregs >= 0 && hdr_.nregs <= 255) L.registers_per_thread = static_cast<std::uint32_t>(hdr_.nregs);
    else if (hdr_.nregs > 255)
      k.warnings.push_back("header '-nregs = " + std::to_string(hdr_.nregs) + "' is not a valid register count (max 255); registers treated as unknown");
    if (hdr_.shmem >= 0 && hdr_.shmem <= (256 << 10)) L.static_shared_bytes = static_cast<std::uint32_t>(hdr_.shmem);
    else if (hdr_.shmem > (256 << 10))
      k.warnings.push_back("header '-shmem = " + std::to_string(hdr_.shmem) + "' exceeds any GPU's shared memory; treated as unknown");
    if (hdr_.binary_version >= 30 && hdr_.binary_version <= 120) L.sm_version = static_cast<std::uint32_t>(hdr_.binary_version);
    else if (hdr_.binary_version >= 0)
      k.warnings.push_back("header '-binary version = " + std::to_string(hdr_.binary_version) + "' is not a compute capability; architecture must come from --arch or the GPU");
    if (hdr_.shmem == 1)
      k.warnings.push_back("header '-shmem = 1' looks like a failed attribute query; shared-memory size may be wrong");
  }

  // PCs are 16-byte aligned offsets into one function: a direct table beats hashing on the
  // hot path; the hash map covers unusual PCs.
  std::uint32_t static_index_for(Kernel& k, std::uint64_t pc, std::string_view opcode, std::size_t& created) {
    const std::uint64_t slot = pc >> 4;
    if ((pc & 15) == 0 && slot < pc_direct_.size() && pc_direct_[slot] >= 0) return static_cast<std::uint32_t>(pc_direct_[slot]);
    auto it = pc_index_.find(pc);
    if (it != pc_index_.end()) return it->second;
    StaticInstr s;
    s.pc = pc;
    s.opcode = std::string(opcode);
    auto tok = sass::tokenize_opcode(s.opcode);
    auto mt = sass::memory_traits(tok);
    s.space = mt.space;
    s.mem_op = mt.op;
    s.access_bits = mt.width_bytes * 8;
    saw_poll_ = saw_poll_ || is_barrier_poll(s);
    std::uint32_t idx = static_cast<std::uint32_t>(k.program.size());
    k.program.push_back(std::move(s));
    pc_index_.emplace(pc, idx);
    if ((pc & 15) == 0 && slot < (1u << 22)) {
      if (pc_direct_.size() <= slot) pc_direct_.resize(slot + 1, -1);
      pc_direct_[slot] = static_cast<std::int32_t>(idx);
    }
    created = 1;
    return idx;
  }

  // Per line, so inline: a call to memcmp (and libgcc's popcount without -mpopcnt) cost more
  // than these loops on opcodes of a few characters and one 32-bit mask.
  static bool same_text(const std::string& a, std::string_view b) {
    if (a.size() != b.size()) return false;
    for (std::size_t i = 0; i < b.size(); ++i)
      if (a[i] != b[i]) return false;
    return true;
  }
  static unsigned lanes_of(std::uint32_t m) {
    m = m - ((m >> 1) & 0x55555555u);
    m = (m & 0x33333333u) + ((m >> 2) & 0x33333333u);
    return (((m + (m >> 4)) & 0x0f0f0f0fu) * 0x01010101u) >> 24;
  }

  static bool parse_reg_token(std::string_view t, std::uint16_t& r) { return sass::parse_register(t, r); }

  // The static part of an instruction line (destination count and registers, opcode, source
  // count and registers): the same text every time its PC executes. The first line of a PC is
  // tokenised and checked and its text kept; later lines of the PC that repeat that text byte
  // for byte skip it with one compare (half of a line's tokens), and any other text takes the
  // checking path again.
  std::uint32_t static_part(scan::Cursor& cur, Kernel& k, std::uint64_t pc) {
    const std::size_t seg_begin = cur.pos;
    const std::uint64_t slot = pc >> 4;
    if ((pc & 15) == 0 && slot < pc_direct_.size() && pc_direct_[slot] >= 0) {
      const auto si = static_cast<std::uint32_t>(pc_direct_[slot]);
      const std::string& seg = segment_[si];
      const std::size_t end = seg_begin + seg.size();
      if (!seg.empty() && end <= cur.line.size() && (end == cur.line.size() || cur.line[end] == ' ' || cur.line[end] == '\t') &&
          std::memcmp(cur.line.data() + seg_begin, seg.data(), seg.size()) == 0) {
        cur.pos = end;
        return si;
      }
    }
    std::size_t ndst_col = cur.pos;
    std::int64_t ndst = cur.integer();
    if (ndst < 0 || ndst > 8) cur.fail("a destination count in 0..8", ndst_col);
    // Register lists are skipped here and decoded once per PC (below), when first seen.
    auto skip_registers = [&](std::int64_t n, const char* what) {
      for (std::int64_t i = 0; i < n; ++i) {
        std::size_t col = (cur.skip_ws(), cur.pos);
        if (cur.token().empty()) cur.fail(what, col);
      }
    };
    std::size_t dst_begin = cur.pos;
    skip_registers(ndst, "a destination register");
    std::size_t dst_end = cur.pos;
    std::size_t op_col = (cur.skip_ws(), cur.pos);
    auto opcode = cur.token();
    if (opcode.empty() || !(opcode[0] >= 'A' && opcode[0] <= 'Z')) cur.fail("an opcode", op_col);
    std::size_t created = 0;
    std::uint32_t si = static_index_for(k, pc, opcode, created);
    StaticInstr& s = k.program[si];
    if (!created && !same_text(s.opcode, opcode))
      throw ParseError(lr_.path(), cur.line_no, static_cast<std::uint32_t>(op_col + 1),
                       "expected opcode " + s.opcode + " at PC 0x" + to_hex(pc) + " (as earlier in the trace), found '" + std::string(opcode) + "'");
    std::size_t nsrc_col = (cur.skip_ws(), cur.pos);
    std::int64_t nsrc = cur.integer();
    if (nsrc < 0 || nsrc > 16) cur.fail("a source count in 0..16", nsrc_col);
    std::size_t src_begin = cur.pos;
    skip_registers(nsrc, "a source register");
    if (created) {
      auto decode = [&](std::size_t begin, std::size_t end, std::int64_t n, std::vector<std::uint16_t>& out) {
        scan::Cursor rc{cur.line.substr(0, end), begin, cur.file, cur.line_no};
        for (std::int64_t i = 0; i < n; ++i) {
          std::uint16_t r;
          if (parse_reg_token(rc.token(), r)) out.push_back(r);
        }
      };
      decode(dst_begin, dst_end, ndst, s.dst);
      decode(src_begin, cur.pos, nsrc, s.src);
      sass::widen_register_lists(sass::tokenize_opcode(s.opcode), s.dst, s.src);
      if (segment_.size() <= si) segment_.resize(si + 1);
      segment_[si].assign(cur.line.data() + seg_begin, cur.pos - seg_begin);
    }
    return si;
  }

  // An asynchronous copy's lane addresses that are offsets in the shared window (all below
  // kSharedOffsetLimit, where no global allocation lies) rather than its global sources: what the
  // tracer before 2026-11-29 recorded for LDGSTS (its first memory reference, the destination).
  // Asked only of traces whose header does not say their copies carry their sources.
  static constexpr std::uint64_t kSharedOffsetLimit = std::uint64_t(16) << 20;
  static bool shared_offsets_of_copy(const StaticInstr& s, const std::uint64_t* addrs, unsigned n) {
    if (addrs[0] >= kSharedOffsetLimit || s.opcode.compare(0, 6, "LDGSTS") != 0) return false;
    for (unsigned i = 1; i < n; ++i)
      if (addrs[i] >= kSharedOffsetLimit) return false;
    return true;
  }

  void parse_instruction(scan::Cursor& cur, Kernel& k, DynInstr& d) {
    std::uint64_t pc = cur.hex();
    std::size_t mask_col = (cur.skip_ws(), cur.pos);
    std::uint64_t mask = cur.hex();
    if (mask > 0xffffffffull) cur.fail("a 32-bit active mask", mask_col);
    d.active_mask = static_cast<std::uint32_t>(mask);
    cur.skip_ws();
    const std::uint32_t si = static_part(cur, k, pc);
    StaticInstr& s = k.program[si];
    d.static_index = si;
    s.warp_executed += 1;
    unsigned active = lanes_of(d.active_mask);
    s.thread_executed += active;
    s.pred_on_thread_executed += active;
    std::size_t w_col = (cur.skip_ws(), cur.pos);
    if (cur.at_end()) {
      if (hdr_.tracer_version >= 3 || hdr_.tracer_version == 0) cur.fail("a memory width", w_col);
      return;
    }
    std::int64_t width = cur.integer();
    if (width < 0 || width > kMaxBoxRowBytes) cur.fail("a memory width in 0..256 bytes (a bulk copy's box row: up to 2048)", w_col);
    if (width > 0) {
      std::size_t m_col = (cur.skip_ws(), cur.pos);
      std::int64_t mode = cur.integer();
      if (mode == 3) {
        parse_bulk_box(cur, k, s, d, static_cast<std::uint64_t>(width), m_col);
        return;
      }
      if (width > 256) cur.fail("a memory width in 0..256 bytes", w_col);
      d.mem_width = static_cast<std::uint8_t>(std::min<std::int64_t>(width, 255));
      if (mode < 0 || mode > 2) cur.fail("an address mode 0, 1 or 2 (3: a bulk tensor copy's box)", m_col);
      unsigned lanes = active;
      std::uint64_t addrs[32];
      unsigned na = 0;
      if (lanes > 0 || mode == 1) {
        std::uint64_t base = cur.hex();
        if (mode == 0) {
          addrs[0] = base;
          cur.hex_list(lanes - 1, addrs + 1);
          na = lanes;
        } else if (mode == 1) {
          std::int64_t stride = cur.integer();
          for (unsigned i = 0; i < lanes; ++i) addrs[na++] = base + static_cast<std::uint64_t>(stride) * i;
        } else {
          // Mode 2: base, then popcount(mask)-1 deltas, each relative to the previous lane.
          std::uint64_t a = base;
          addrs[na++] = a;
          for (unsigned i = 1; i < lanes; ++i) {
            a += static_cast<std::uint64_t>(cur.integer());
            addrs[na++] = a;
          }
        }
      }
      if (na && !hdr_.copy_sources_traced && shared_offsets_of_copy(s, addrs, na)) {
        s.copy_sources_unknown = true;
        na = 0;
      }
      if (opt_.keep_addresses && na) k.set_lane_addresses(d, addrs, na);
      // Generic accesses resolve to shared or local by the windows in the header.
      if (s.space == MemSpace::generic && na && hdr_.shmem_base) {
        if (addrs[0] >= hdr_.shmem_base && addrs[0] < hdr_.shmem_base + (1ull << 32)) s.space = MemSpace::shared;
        else if (hdr_.local_base && addrs[0] >= hdr_.local_base && addrs[0] < hdr_.local_base + (1ull << 32)) s.space = MemSpace::local;
        else s.space = MemSpace::global;
      }
      s.access_bits = static_cast<std::uint32_t>(width) * 8;
    }
    // Trailing immediate(s) (v5, v6) are not needed by the model.
  }

  // Address mode 3 (gpuperf's tracer, bulk tensor copies): the width is the bytes of a row, then
  // the first row's address, four (rows, byte stride) pairs over the box's other dims, and the
  // tensor's first address and span in bytes. A load's box is read from global memory, a store's
  // written there; a reduction's is kept (convert writes it back) but carries no traffic, as the
  // model has none for it (sass::BulkTensorCopy).
  static constexpr std::int64_t kMaxBoxRowBytes = 2048;  // a box's first dim: 256 elements of 8 bytes at most (the TMA's limits)
  void parse_bulk_box(scan::Cursor& cur, Kernel& k, StaticInstr& s, DynInstr& d, std::uint64_t row_bytes, std::size_t m_col) {
    const auto copy = sass::bulk_tensor_copy(std::string_view(s.opcode).substr(0, s.opcode.find('.')));
    if (copy == sass::BulkTensorCopy::none)
      cur.fail("an address mode 0, 1 or 2 (mode 3 is for bulk tensor copies: UTMALDG, UTMASTG, UTMAREDG)", m_col);
    std::uint64_t box[kBulkBoxWords];
    box[kBoxFirstRow] = cur.hex();
    box[kBoxRowBytes] = row_bytes;
    for (unsigned i = 0; i < 4; ++i) {
      const std::size_t rc = (cur.skip_ws(), cur.pos);
      const std::int64_t rows = cur.integer();
      if (rows < 1 || rows > 256) cur.fail("a box's rows in 1..256", rc);
      const std::size_t sc = (cur.skip_ws(), cur.pos);
      const std::int64_t stride = cur.integer();
      if (stride < 0 || stride > (std::int64_t(1) << 40)) cur.fail("a box's row stride in 0..2^40 bytes", sc);
      box[kBoxDims + 2 * i] = static_cast<std::uint64_t>(rows);
      box[kBoxDims + 2 * i + 1] = static_cast<std::uint64_t>(stride);
    }
    box[kBoxTensorFirst] = cur.hex();
    const std::size_t tc = (cur.skip_ws(), cur.pos);
    const std::int64_t tensor_bytes = cur.integer();
    if (tensor_bytes < 1 || tensor_bytes > (std::int64_t(1) << 48)) cur.fail("a tensor's span in 1..2^48 bytes", tc);
    box[kBoxTensorBytes] = static_cast<std::uint64_t>(tensor_bytes);
    if (box[kBoxFirstRow] < box[kBoxTensorFirst] || box[kBoxFirstRow] - box[kBoxTensorFirst] >= box[kBoxTensorBytes])
      cur.fail("a box that starts inside its tensor", tc);
    s.space = copy == sass::BulkTensorCopy::reduction ? MemSpace::none : MemSpace::global;
    s.mem_op = copy == sass::BulkTensorCopy::store ? MemOp::store : copy == sass::BulkTensorCopy::load ? MemOp::load : MemOp::reduction;
    s.bulk_box = true;
    s.access_bits = static_cast<std::uint32_t>(row_bytes) * 8;
    if (opt_.keep_addresses && d.active_mask) k.set_lane_addresses(d, box, kBulkBoxWords);
  }

  static std::string to_hex(std::uint64_t v) {
    char b[24];
    auto r = std::to_chars(b, b + sizeof b, v, 16);
    return std::string(b, r.ptr);
  }

  LineReader lr_;
  Options opt_;
  AccelSimHeader hdr_;
  std::unordered_map<std::uint64_t, std::uint32_t> pc_index_;
  std::vector<std::int32_t> pc_direct_;
  bool saw_poll_ = false;  // a barrier poll is among the PCs read so far (drop_poll_retries has work)
  std::vector<std::string> segment_;  // per static index: its line's static part as first read (static_part)
  std::unordered_set<WarpKey, WarpKeyHash> seen_warps_;
};

// kernelslist / kernelslist.g: kernel file names and MemcpyHtoD commands, in order.
struct KernelList {
  std::vector<std::string> kernel_files;  // resolved paths
  std::vector<MemcpyCommand> memcpys;
};

inline KernelList read_kernelslist(const std::string& path) {
  KernelList kl;
  LineReader lr(path);
  std::string dir = path.substr(0, path.find_last_of('/') == std::string::npos ? 0 : path.find_last_of('/') + 1);
  std::string_view line;
  while (lr.next(line)) {
    line = scan::trim(line);
    if (line.empty() || line[0] == '#') continue;
    if (scan::has_binary_junk(line)) throw ParseError(path, lr.line_number(), 1, "expected a kernel file name or Memcpy line, found binary data");
    if (scan::starts_with(line, "Memcpy")) {
      MemcpyCommand m;
      auto c1 = line.find(',');
      auto c2 = c1 == std::string_view::npos ? c1 : line.find(',', c1 + 1);
      if (c2 == std::string_view::npos) throw ParseError(path, lr.line_number(), 1, "expected 'MemcpyHtoD,<address>,<bytes>'");
      m.kind = std::string(line.substr(0, c1));
      scan::Cursor ca{line.substr(c1 + 1, c2 - c1 - 1), 0, &path, lr.line_number()};
      m.address = ca.hex();
      scan::Cursor cb{line.substr(c2 + 1), 0, &path, lr.line_number()};
      m.bytes = static_cast<std::uint64_t>(cb.integer());
      kl.memcpys.push_back(m);
      continue;
    }
    kl.kernel_files.push_back(dir + std::string(line));
  }
  return kl;
}

}  // namespace gpuperf
