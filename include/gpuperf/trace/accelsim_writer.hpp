// Writes a Kernel as an Accel-Sim version-5 grouped trace (.traceg), the format every
// Accel-Sim user can read. Used by `gpuperf convert` (raw .trace -> .traceg).
#pragma once

#include <lzma.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <string>
#include <tuple>

#include "gpuperf/error.hpp"
#include "gpuperf/sass/instruction.hpp"
#include "gpuperf/sass/memory_ops.hpp"
#include "gpuperf/trace/cta_work.hpp"
#include "gpuperf/trace/ir.hpp"

namespace gpuperf {

// Refuses an output that is the input itself (same device and inode, through any name or
// link) or that exists and is not a regular file (a device such as /dev/full, a directory).
inline void check_output_path(const std::string& out, const std::string& in) {
  struct stat so {};
  if (::stat(out.c_str(), &so) != 0) return;  // does not exist yet
  if (!S_ISREG(so.st_mode)) throw IoError(out + ": exists and is not a regular file; refusing to replace it");
  struct stat si {};
  if (!in.empty() && ::stat(in.c_str(), &si) == 0 && si.st_dev == so.st_dev && si.st_ino == so.st_ino)
    throw IoError(out + ": is the input file " + in + "; refusing to overwrite the input (write to another path)");
}

// Writes through a temporary file in the target's directory: every write, the flush, fsync
// and the close are checked, and only then is the temporary renamed over the target. On any
// failure the temporary is removed and the target is untouched. OUT ending in .xz is xz.
class TextSink {
 public:
  explicit TextSink(const std::string& path) : path_(path), xz_(path.size() > 3 && path.compare(path.size() - 3, 3, ".xz") == 0) {
    auto slash = path.find_last_of('/');
    std::string dir = slash == std::string::npos ? "." : path.substr(0, slash == 0 ? 1 : slash);
    std::string base = slash == std::string::npos ? path : path.substr(slash + 1);
    tmp_ = (dir == "/" ? std::string("/") : dir + "/") + "." + base + ".tmpXXXXXX";
    int fd = ::mkstemp(tmp_.data());
    if (fd < 0) throw IoError(path + ": cannot create a temporary file in " + dir + ": " + std::strerror(errno));
    struct stat st {};
    ::fchmod(fd, ::stat(path.c_str(), &st) == 0 ? (st.st_mode & 07777) : 0644);
    f_ = ::fdopen(fd, "wb");
    if (!f_) {
      ::close(fd);
      ::unlink(tmp_.c_str());
      throw IoError(path + ": cannot open a temporary file: " + std::strerror(errno));
    }
    if (xz_) {
      strm_ = LZMA_STREAM_INIT;
      if (lzma_easy_encoder(&strm_, 6, LZMA_CHECK_CRC64) != LZMA_OK) { abandon(); throw IoError(path + ": cannot initialise xz encoder"); }
    }
    buf_.reserve(1 << 20);
  }
  ~TextSink() { abandon(); }
  TextSink(const TextSink&) = delete;
  TextSink& operator=(const TextSink&) = delete;
  void write(const std::string& s) { buf_ += s; if (buf_.size() > (1u << 20)) flush(false); }
  // Finishes the file and renames it into place; throws IoError (and leaves the target as
  // it was) if any byte could not be written.
  void close() {
    if (!f_) return;
    try {
      flush(true);
      if (std::fflush(f_) != 0) fail("write failed");
      if (::fsync(fileno(f_)) != 0 && errno != EINVAL && errno != EROFS) fail("write failed");
    } catch (...) {
      abandon();
      throw;
    }
    int rc = std::fclose(f_);
    f_ = nullptr;
    if (xz_) lzma_end(&strm_);
    if (rc != 0) {
      int e = errno;
      ::unlink(tmp_.c_str());
      throw IoError(path_ + ": write failed on close: " + std::strerror(e));
    }
    if (std::rename(tmp_.c_str(), path_.c_str()) != 0) {
      int e = errno;
      ::unlink(tmp_.c_str());
      throw IoError(path_ + ": cannot rename the temporary file into place: " + std::strerror(e));
    }
  }

 private:
  [[noreturn]] void fail(const char* what) { throw IoError(path_ + ": " + what + ": " + std::strerror(errno)); }
  void abandon() noexcept {
    if (!f_) return;
    std::fclose(f_);
    f_ = nullptr;
    if (xz_) lzma_end(&strm_);
    ::unlink(tmp_.c_str());
  }
  void put(const void* p, std::size_t n) {
    if (n && std::fwrite(p, 1, n, f_) != n) {
      int e = errno;
      abandon();
      errno = e;
      fail("write failed");
    }
  }
  void flush(bool finish) {
    if (!xz_) {
      put(buf_.data(), buf_.size());
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
      put(out, sizeof out - strm_.avail_out);
      if (r == LZMA_STREAM_END) break;
      if (r != LZMA_OK) { abandon(); throw IoError(path_ + ": xz compression failed"); }
      if (!finish && strm_.avail_in == 0) break;
    }
    buf_.clear();
  }
  std::string path_, tmp_;
  std::FILE* f_ = nullptr;
  bool xz_;
  lzma_stream strm_{};
  std::string buf_;
};

// Every field the Accel-Sim reader reads survives: read(write(k)) holds the same launch,
// windows, sampling, program and per-warp streams (warps grouped by CTA in first-seen order).
// A kernel that cannot be written losslessly (addresses dropped, or fewer than its active
// lanes) is refused rather than written as a trace the reader would reject.
inline void write_traceg(const Kernel& k, const std::string& path) {
  check_output_path(path, k.source_path);
  for (auto& w : k.warps)
    for (auto di = w.begin; di < w.end; ++di) {
      const auto& d = k.dyn[di];
      if (k.program[d.static_index].copy_sources_unknown)
        throw FormatError(path + ": cannot write PC " + std::to_string(k.program[d.static_index].pc) +
                          ": its asynchronous copies carry shared-memory offsets, not their global sources (a trace from gpuperf's tracer "
                          "before 2026-11-29); re-trace the program to convert it");
      if (d.mem_width && !k.program[d.static_index].bulk_box && d.addr_count != static_cast<unsigned>(__builtin_popcount(d.active_mask)))
        throw FormatError(path + ": cannot write PC " + std::to_string(k.program[d.static_index].pc) + " of warp " + std::to_string(w.warp_in_cta) +
                          " as Accel-Sim: it has " + std::to_string(d.addr_count) + " addresses for " +
                          std::to_string(__builtin_popcount(d.active_mask)) + " active lanes");
    }
  TextSink out(path);
  char line[1024];
  auto dim = [](const Dim3& d) { return "(" + std::to_string(d.x) + "," + std::to_string(d.y) + "," + std::to_string(d.z) + ")"; };
  auto hex = [&](std::uint64_t v) { std::snprintf(line, sizeof line, "0x%016llx", static_cast<unsigned long long>(v)); return std::string(line); };
  out.write("-kernel name = " + k.launch.name + "\n");
  out.write("-kernel id = " + std::to_string(k.launch.id) + "\n");
  out.write("-grid dim = " + dim(k.launch.grid) + "\n");
  out.write("-block dim = " + dim(k.launch.block) + "\n");
  out.write("-shmem = " + std::to_string(std::uint64_t(k.launch.static_shared_bytes) + k.launch.dynamic_shared_bytes) + "\n");
  out.write("-nregs = " + std::to_string(k.launch.registers_per_thread) + "\n");
  if (k.launch.sm_version) out.write("-binary version = " + std::to_string(k.launch.sm_version) + "\n");
  out.write("-cuda stream id = " + std::to_string(k.launch.cuda_stream) + "\n");
  out.write("-shmem base_addr = " + hex(k.shared_window_base) + "\n-local mem base_addr = " + hex(k.local_window_base) + "\n");
  // Source lines survive a conversion: with any known, every line leads with its own (0: none).
  const bool lineinfo = std::any_of(k.program.begin(), k.program.end(), [](const StaticInstr& s) { return s.source_line != 0; });
  out.write(std::string("-accelsim tracer version = 5\n-enable lineinfo = ") + (lineinfo ? "1" : "0") + "\n");
  if (k.traced_ctas && k.traced_ctas < k.launch.grid.count()) out.write("-traced ctas = " + std::to_string(k.traced_ctas) + "\n");
  if (k.copy_sources_traced) out.write("-async copy addresses = global sources\n");
  if (k.constant_addresses_traced) out.write("-constant load addresses = bank offsets\n");
  if (k.truncated_at_instructions) out.write("-truncated at instructions = " + std::to_string(k.truncated_at_instructions) + "\n");
  if (!k.cta_work.empty()) out.write("-cta warp instructions = " + format_cta_work(k.cta_work) + "\n");
  out.write("\n#traces format = [line_num] PC mask dest_num [reg_dests] opcode src_num [reg_srcs] mem_width [adrrescompress?] [mem_addresses] immediate\n\n");
  // Group warps by CTA in first-seen order (stable within a CTA), so a grouped input keeps
  // its order and the reader rebuilds the same program.
  std::map<std::tuple<std::uint32_t, std::uint32_t, std::uint32_t>, std::size_t> cta_rank;
  for (auto& w : k.warps) cta_rank.emplace(std::make_tuple(w.cta.x, w.cta.y, w.cta.z), cta_rank.size());
  std::vector<std::size_t> order(k.warps.size());
  for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(), [&](auto a, auto b) {
    const auto &x = k.warps[a].cta, &y = k.warps[b].cta;
    return cta_rank[std::make_tuple(x.x, x.y, x.z)] < cta_rank[std::make_tuple(y.x, y.y, y.z)];
  });
  // The trace format names a register pair or quad by its first register: the lists as read
  // (sass::widen_register_lists) go back to that form, so reading the output widens them alike.
  std::vector<std::string> regs_text(k.program.size());
  for (std::size_t i = 0; i < k.program.size(); ++i) {
    const auto& s = k.program[i];
    std::vector<std::uint16_t> dst = s.dst, src = s.src;
    sass::narrow_register_lists(sass::tokenize_opcode(s.opcode), dst, src);
    std::string t = std::to_string(dst.size());
    for (auto r : dst) t += " " + sass::reg_name(r);
    t += " " + s.opcode + " " + std::to_string(src.size());
    for (auto r : src) t += " " + sass::reg_name(r);
    regs_text[i] = std::move(t);
  }
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
      std::string l = lineinfo ? std::to_string(s.source_line) + " " : std::string();
      std::snprintf(line, sizeof line, "%04llx %08x ", static_cast<unsigned long long>(s.pc), d.active_mask);
      l += line;
      l += regs_text[d.static_index];
      if (s.bulk_box && d.addr_count == kBulkBoxWords) {
        // A bulk copy's box: row bytes, mode 3, the first row, four (rows, stride) pairs, the tensor.
        const LaneAddresses box = k.lane_addresses(d);
        std::snprintf(line, sizeof line, " %llu 3 0x%llx", static_cast<unsigned long long>(box[kBoxRowBytes]), static_cast<unsigned long long>(box[kBoxFirstRow]));
        l += line;
        for (unsigned i = kBoxDims; i < kBoxTensorFirst; ++i) l += " " + std::to_string(box[i]);
        std::snprintf(line, sizeof line, " 0x%llx %llu", static_cast<unsigned long long>(box[kBoxTensorFirst]), static_cast<unsigned long long>(box[kBoxTensorBytes]));
        l += line;
      } else if (d.mem_width) {
        // Width and mode 0 even with no active lane, so the width survives.
        l += " " + std::to_string(d.mem_width) + " 0";
        const LaneAddresses lanes = k.lane_addresses(d);
        for (std::uint64_t a : lanes) {
          std::snprintf(line, sizeof line, " 0x%llx", static_cast<unsigned long long>(a));
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
