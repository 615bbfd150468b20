// Writes a Kernel as an Accel-Sim version-5 grouped trace (.traceg), the format every
// Accel-Sim user can read. Used by `gpuperf convert` (raw .trace -> .traceg).
#pragma once

#include <lzma.h>

#include <bitset>
#include <cstdio>
#include <string>

#include "gpuperf/error.hpp"
#include "gpuperf/sass/instruction.hpp"
#include "gpuperf/trace/ir.hpp"

namespace gpuperf {

class TextSink {
 public:
  explicit TextSink(const std::string& path) : path_(path), xz_(path.size() > 3 && path.compare(path.size() - 3, 3, ".xz") == 0) {
    f_ = std::fopen(path.c_str(), "wb");
    if (!f_) throw IoError(path + ": cannot create file");
    if (xz_) {
      strm_ = LZMA_STREAM_INIT;
      if (lzma_easy_encoder(&strm_, 6, LZMA_CHECK_CRC64) != LZMA_OK) throw IoError(path + ": cannot initialise xz encoder");
    }
    buf_.reserve(1 << 20);
  }
  ~TextSink() { try { close(); } catch (...) {} }
  void write(const std::string& s) { buf_ += s; if (buf_.size() > (1u << 20)) flush(false); }
  void close() {
    if (!f_) return;
    flush(true);
    std::fclose(f_);
    f_ = nullptr;
    if (xz_) lzma_end(&strm_);
  }

 private:
  void flush(bool finish) {
    if (!xz_) {
      if (!buf_.empty() && std::fwrite(buf_.data(), 1, buf_.size(), f_) != buf_.size()) throw IoError(path_ + ": write failed");
      buf_.clear();
      return;
    }
    strm_.next_in = reinterpret_cast<const uint8_t*>(buf_.data());
    strm_.avail_in = buf_.size();
    uint8_t out[1 << 16];
    for (;;) {
      strm_.next_out = out;
      strm_.avail_out = sizeof out;
      lzma_ret r = lzma_code(&strm_, finish ? LZMA_FINISH : LZMA_RUN);
      std::size_t n = sizeof out - strm_.avail_out;
      if (n && std::fwrite(out, 1, n, f_) != n) throw IoError(path_ + ": write failed");
      if (r == LZMA_STREAM_END) break;
      if (r != LZMA_OK) throw IoError(path_ + ": xz compression failed");
      if (!finish && strm_.avail_in == 0) break;
    }
    buf_.clear();
  }
  std::string path_;
  std::FILE* f_ = nullptr;
  bool xz_;
  lzma_stream strm_{};
  std::string buf_;
};

inline void write_traceg(const Kernel& k, const std::string& path) {
  TextSink out(path);
  char line[1024];
  auto dim = [](const Dim3& d) { return "(" + std::to_string(d.x) + "," + std::to_string(d.y) + "," + std::to_string(d.z) + ")"; };
  out.write("-kernel name = " + k.launch.name + "\n");
  out.write("-kernel id = " + std::to_string(k.launch.id) + "\n");
  out.write("-grid dim = " + dim(k.launch.grid) + "\n");
  out.write("-block dim = " + dim(k.launch.block) + "\n");
  out.write("-shmem = " + std::to_string(k.launch.static_shared_bytes + k.launch.dynamic_shared_bytes) + "\n");
  out.write("-nregs = " + std::to_string(k.launch.registers_per_thread) + "\n");
  out.write("-binary version = " + std::to_string(k.launch.sm_version) + "\n");
  out.write("-cuda stream id = " + std::to_string(k.launch.cuda_stream) + "\n");
  out.write("-shmem base_addr = 0x0\n-local mem base_addr = 0x0\n");
  out.write("-accelsim tracer version = 5\n-enable lineinfo = 0\n");
  if (k.traced_ctas && k.traced_ctas < k.launch.grid.count()) out.write("-traced ctas = " + std::to_string(k.traced_ctas) + "\n");
  out.write("\n#traces format = [line_num] PC mask dest_num [reg_dests] opcode src_num [reg_srcs] mem_width [adrrescompress?] [mem_addresses] immediate\n\n");
  // Group warps by CTA in first-seen order.
  std::vector<std::size_t> order(k.warps.size());
  for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(), [&](auto a, auto b) {
    const auto &x = k.warps[a].cta, &y = k.warps[b].cta;
    return std::tie(x.z, x.y, x.x) < std::tie(y.z, y.y, y.x);
  });
  const Dim3* cur = nullptr;
  for (auto wi : order) {
    const auto& w = k.warps[wi];
    if (!cur || !(*cur == w.cta)) {
      if (cur) out.write("#END_TB\n\n");
      cur = &w.cta;
      out.write("#BEGIN_TB\n\nthread block = " + std::to_string(w.cta.x) + "," + std::to_string(w.cta.y) + "," + std::to_string(w.cta.z) + "\n\n");
    }
    out.write("warp = " + std::to_string(w.warp_in_cta) + "\ninsts = " + std::to_string(w.end - w.begin) + "\n");
    for (auto di = w.begin; di < w.end; ++di) {
      const auto& d = k.dyn[di];
      const auto& s = k.program[d.static_index];
      std::string l;
      std::snprintf(line, sizeof line, "%04llx %08x %zu", static_cast<unsigned long long>(s.pc), d.active_mask, s.dst.size());
      l = line;
      for (auto r : s.dst) l += " " + sass::reg_name(r);
      l += " " + s.opcode + " " + std::to_string(s.src.size());
      for (auto r : s.src) l += " " + sass::reg_name(r);
      unsigned width = d.mem_width;
      if (width && d.addr_count) {
        l += " " + std::to_string(width) + " 0";
        for (unsigned i = 0; i < d.addr_count; ++i) {
          std::snprintf(line, sizeof line, " 0x%llx", static_cast<unsigned long long>(k.addresses[d.addr_begin + i]));
          l += line;
        }
      } else {
        l += " 0";
      }
      l += "\n";
      out.write(l);
    }
  }
  if (cur) out.write("#END_TB\n");
  out.close();
}

}  // namespace gpuperf
