// Progress of a long load, for a display; the library itself never prints it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

namespace gpuperf {

// How far a long load has got.
struct Progress {
  std::size_t kernels_done = 0, kernels_total = 0;  // kernel files of the selection read so far
  std::uint64_t file_read = 0, file_size = 0;       // the file being read: bytes of it read (compressed bytes for .xz/.gz/.zst), its size
  std::uint64_t file_decompressed = 0;              // the text it gave so far (= file_read for a plain file)
  std::string file;                                 // its path ("" after a kernel is done)
};
// Progress callback: called every few MB of a file and after each kernel file, on one thread at
// a time (maybe not the caller's). ctx is the Options' progress_ctx.
using ProgressFn = void (*)(const Progress&, void* ctx);

namespace detail {

// While one is installed on a thread, every LineReader on that thread reports its file's
// progress every kReportBytes of text, and its end when it held over kEndReportBytes: the
// readers without a progress of their own (Nsight Compute pages, PPT-GPU traces, listings) get
// one without each carrying a callback. The loader installs one around the reading of its
// inputs (Accel-Sim kernel files report their own).
class ReadProgressScope {
 public:
  static constexpr std::uint64_t kReportBytes = std::uint64_t(16) << 20;
  static constexpr std::uint64_t kEndReportBytes = std::uint64_t(1) << 20;
  ReadProgressScope(ProgressFn fn, void* ctx) : fn_(fn), ctx_(ctx), prev_(current()) {
    if (fn_) current() = this;
  }
  ~ReadProgressScope() {
    if (fn_) current() = prev_;
  }
  ReadProgressScope(const ReadProgressScope&) = delete;
  ReadProgressScope& operator=(const ReadProgressScope&) = delete;
  // The scope installed on this thread, or null.
  static ReadProgressScope*& current() {
    static thread_local ReadProgressScope* scope = nullptr;
    return scope;
  }
  void report(const std::string& file, std::uint64_t read, std::uint64_t size, std::uint64_t decompressed) const {
    Progress p;
    p.file = file;
    p.file_read = read;
    p.file_size = size;
    p.file_decompressed = decompressed;
    fn_(p, ctx_);
  }

 private:
  ProgressFn fn_;
  void* ctx_;
  ReadProgressScope* prev_;
};

}  // namespace detail
}  // namespace gpuperf
