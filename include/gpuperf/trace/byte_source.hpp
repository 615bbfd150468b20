// Streaming byte input: plain files, .xz, .gz and .zst, detected by magic bytes, read in
// large chunks so parsers see long contiguous buffers. LineReader yields string_views
// into its buffer without per-line allocation.
#pragma once

#include <lzma.h>
#include <sys/stat.h>
#include <zlib.h>
#include <zstd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "gpuperf/error.hpp"
#include "gpuperf/trace/progress.hpp"

namespace gpuperf {

enum class Compression { none, xz, gzip, zstd };

// Resource limits of every text reader. No real trace, listing or CSV line comes near
// 16 MiB (an ncu raw header of every metric is a few hundred KiB); a longer one is junk or a
// decompression bomb, and buffering it would grow without bound. A compressed input that
// expands more than 5000x beyond 256 MiB is refused the same way: most text traces compress
// 10-50x, but a traced tight loop whose every warp reads one address repeats itself almost
// exactly (bench/corpus/latency_kernels.cu's walk over 16 CTAs: 514 MiB from 235 KiB, 2,240x),
// while xz on one repeated byte reaches 6,850x.
inline constexpr std::size_t kMaxLineBytes = std::size_t(16) << 20;
inline constexpr std::uint64_t kBombFloorBytes = std::uint64_t(256) << 20;
inline constexpr std::uint64_t kMaxExpansion = 5000;

// Refuses anything but a regular file, by type, before a byte is read: a directory, FIFO or
// device (/dev/zero, /dev/stdin) would block, never end, or fail in odd ways inside fread.
inline void require_regular_file(const std::string& path, const struct stat& st) {
  if (S_ISREG(st.st_mode)) return;
  const char* what = S_ISDIR(st.st_mode) ? "a directory" : S_ISFIFO(st.st_mode) ? "a FIFO" : S_ISCHR(st.st_mode) ? "a character device"
                   : S_ISBLK(st.st_mode) ? "a block device" : S_ISSOCK(st.st_mode) ? "a socket" : "not a regular file";
  throw IoError(path + ": is " + std::string(what) + "; expected a regular file");
}

inline Compression sniff_compression(const unsigned char* b, std::size_t n) {
  if (n >= 6 && b[0] == 0xFD && b[1] == '7' && b[2] == 'z' && b[3] == 'X' && b[4] == 'Z' && b[5] == 0) return Compression::xz;
  if (n >= 2 && b[0] == 0x1f && b[1] == 0x8b) return Compression::gzip;
  if (n >= 4 && b[0] == 0x28 && b[1] == 0xB5 && b[2] == 0x2F && b[3] == 0xFD) return Compression::zstd;
  return Compression::none;
}

// Reads decompressed bytes from a file. read() returns 0 at end of stream.
class ByteSource {
 public:
  explicit ByteSource(const std::string& path) : path_(path) {
    struct stat st {};
    if (::stat(path.c_str(), &st) != 0) throw IoError(path + ": cannot open file: " + std::strerror(errno));
    require_regular_file(path, st);
    f_ = std::fopen(path.c_str(), "rb");
    if (!f_) throw IoError(path + ": cannot open file: " + std::strerror(errno));
    // The path may have been replaced between stat and open: check what was opened.
    if (::fstat(fileno(f_), &st) != 0 || !S_ISREG(st.st_mode)) {
      std::fclose(f_);
      f_ = nullptr;
      require_regular_file(path, st);
      throw IoError(path + ": cannot stat the opened file");
    }
    std::setvbuf(f_, nullptr, _IONBF, 0);
    std::fseek(f_, 0, SEEK_END);
    long end = std::ftell(f_);
    std::fseek(f_, 0, SEEK_SET);
    raw_.resize(static_cast<std::size_t>(std::clamp<long>(end + 1, 4096, 1 << 20)));
    raw_len_ = checked_fread(raw_.data(), raw_.size());
    comp_ = sniff_compression(reinterpret_cast<const unsigned char*>(raw_.data()), raw_len_);
    std::fseek(f_, 0, SEEK_END);
    file_size_ = static_cast<std::uint64_t>(std::ftell(f_));
    std::fseek(f_, static_cast<long>(raw_len_), SEEK_SET);
    if (comp_ != Compression::none) consumed_ = raw_len_;  // the first chunk, given to the decoder below
    if (comp_ == Compression::xz) {
      xz_ = LZMA_STREAM_INIT;
      if (lzma_stream_decoder(&xz_, UINT64_MAX, LZMA_CONCATENATED) != LZMA_OK) throw IoError(path + ": cannot initialise xz decoder");
      xz_.next_in = reinterpret_cast<const uint8_t*>(raw_.data());
      xz_.avail_in = raw_len_;
    } else if (comp_ == Compression::gzip) {
      std::memset(&gz_, 0, sizeof gz_);
      if (inflateInit2(&gz_, 15 + 32) != Z_OK) throw IoError(path + ": cannot initialise gzip decoder");
      gz_.next_in = reinterpret_cast<Bytef*>(raw_.data());
      gz_.avail_in = static_cast<uInt>(raw_len_);
    } else if (comp_ == Compression::zstd) {
      zs_ = ZSTD_createDStream();
      ZSTD_initDStream(zs_);
      zin_ = {raw_.data(), raw_len_, 0};
    }
  }
  ~ByteSource() {
    if (comp_ == Compression::xz) lzma_end(&xz_);
    if (comp_ == Compression::gzip) inflateEnd(&gz_);
    if (zs_) ZSTD_freeDStream(zs_);
    if (f_) std::fclose(f_);
  }
  ByteSource(const ByteSource&) = delete;
  ByteSource& operator=(const ByteSource&) = delete;

  Compression compression() const { return comp_; }
  const std::string& path() const { return path_; }
  std::uint64_t file_size() const { return file_size_; }
  // Bytes of the file taken so far: by the decoder for compressed input (not those waiting in
  // its input buffer), handed out for a plain file.
  std::uint64_t compressed_consumed() const {
    switch (comp_) {
      case Compression::xz: return consumed_ - xz_.avail_in;
      case Compression::gzip: return consumed_ - gz_.avail_in;
      case Compression::zstd: return consumed_ - (zin_.size - zin_.pos);
      case Compression::none: break;
    }
    return consumed_;
  }
  std::uint64_t decompressed() const { return produced_; }  // bytes handed out (= consumed for plain files)

  std::size_t read(char* out, std::size_t cap) {
    std::size_t n = read_some(out, cap);
    produced_ += n;
    if (comp_ != Compression::none && produced_ > kBombFloorBytes && produced_ / kMaxExpansion > file_size_)
      throw IoError(path_ + ": decompresses to more than " + std::to_string(kMaxExpansion) + " times its size (" + std::to_string(file_size_) +
                    " bytes); refusing a likely decompression bomb");
    return n;
  }

 private:
  std::size_t checked_fread(void* out, std::size_t cap) {
    std::size_t n = std::fread(out, 1, cap, f_);
    if (n < cap && std::ferror(f_)) throw IoError(path_ + ": read error: " + std::strerror(errno));
    return n;
  }
  std::size_t read_some(char* out, std::size_t cap) {
    switch (comp_) {
      case Compression::none: {
        if (raw_pos_ < raw_len_) {
          std::size_t n = std::min(cap, raw_len_ - raw_pos_);
          std::memcpy(out, raw_.data() + raw_pos_, n);
          raw_pos_ += n;
          consumed_ += n;
          return n;
        }
        std::size_t n = checked_fread(out, cap);
        consumed_ += n;
        return n;
      }
      case Compression::xz: return read_xz(out, cap);
      case Compression::gzip: return read_gz(out, cap);
      case Compression::zstd: return read_zstd(out, cap);
    }
    return 0;
  }
  bool refill() {
    raw_len_ = checked_fread(raw_.data(), raw_.size());
    consumed_ += raw_len_;
    return raw_len_ > 0;
  }
  std::size_t read_xz(char* out, std::size_t cap) {
    xz_.next_out = reinterpret_cast<uint8_t*>(out);
    xz_.avail_out = cap;
    while (xz_.avail_out == cap) {
      lzma_action action = LZMA_RUN;
      if (xz_.avail_in == 0) {
        if (refill()) { xz_.next_in = reinterpret_cast<const uint8_t*>(raw_.data()); xz_.avail_in = raw_len_; }
        else action = LZMA_FINISH;
      }
      lzma_ret r = lzma_code(&xz_, action);
      if (r == LZMA_STREAM_END) break;
      if (r != LZMA_OK) throw IoError(path_ + ": corrupt or truncated xz stream (lzma error " + std::to_string(int(r)) + ")");
    }
    return cap - xz_.avail_out;
  }
  std::size_t read_gz(char* out, std::size_t cap) {
    if (gz_done_) return 0;
    gz_.next_out = reinterpret_cast<Bytef*>(out);
    gz_.avail_out = static_cast<uInt>(cap);
    while (gz_.avail_out == cap) {
      if (gz_.avail_in == 0) {
        if (!refill()) throw IoError(path_ + ": truncated gzip stream");
        gz_.next_in = reinterpret_cast<Bytef*>(raw_.data());
        gz_.avail_in = static_cast<uInt>(raw_len_);
      }
      int r = inflate(&gz_, Z_NO_FLUSH);
      if (r == Z_STREAM_END) {
        // Concatenated gzip members are legal: continue if more input follows.
        if (gz_.avail_in == 0 && !refill()) { gz_done_ = true; break; }
        if (gz_.avail_in == 0) { gz_.next_in = reinterpret_cast<Bytef*>(raw_.data()); gz_.avail_in = static_cast<uInt>(raw_len_); }
        inflateReset(&gz_);
        continue;
      }
      if (r != Z_OK) throw IoError(path_ + ": corrupt gzip stream (zlib error " + std::to_string(r) + ")");
    }
    return cap - gz_.avail_out;
  }
  std::size_t read_zstd(char* out, std::size_t cap) {
    ZSTD_outBuffer ob{out, cap, 0};
    while (ob.pos == 0) {
      if (zin_.pos == zin_.size) {
        if (!refill()) {
          if (zlast_ != 0) throw IoError(path_ + ": truncated zstd stream");
          return 0;
        }
        zin_ = {raw_.data(), raw_len_, 0};
      }
      std::size_t r = ZSTD_decompressStream(zs_, &ob, &zin_);
      if (ZSTD_isError(r)) throw IoError(path_ + ": corrupt zstd stream: " + ZSTD_getErrorName(r));
      zlast_ = r;
    }
    return ob.pos;
  }

  std::string path_;
  std::FILE* f_ = nullptr;
  std::vector<char> raw_;
  std::size_t raw_len_ = 0, raw_pos_ = 0;
  std::uint64_t file_size_ = 0, consumed_ = 0, produced_ = 0;
  Compression comp_ = Compression::none;
  lzma_stream xz_{};
  z_stream gz_{};
  bool gz_done_ = false;
  ZSTD_DStream* zs_ = nullptr;
  ZSTD_inBuffer zin_{nullptr, 0, 0};
  std::size_t zlast_ = 0;
};

namespace detail {
// The spare line buffer of this thread: a finished LineReader leaves its buffer here and the
// next one takes it, so reading many files (a kernelslist of compressed traces) does not
// zero-fill and first-touch a fresh 8 MiB buffer per file.
inline std::vector<char>& spare_line_buffer() {
  thread_local std::vector<char> spare;
  return spare;
}
}  // namespace detail

// Line iterator over a ByteSource. Lines are views into an internal buffer valid until the
// next call; '\r' before '\n' is stripped. Binary junk (NUL bytes) is reported by the caller.
class LineReader {
 public:
  explicit LineReader(const std::string& path, std::size_t chunk = 4u << 20) : src_(path), chunk_(chunk) {
    // Small plain files get small buffers (the buffer grows when a line or chunk needs it).
    if (src_.compression() == Compression::none) chunk_ = std::min<std::size_t>(chunk_, std::max<std::size_t>(4096, src_.file_size() + 1));
    buf_.swap(detail::spare_line_buffer());
    if (buf_.size() < chunk_ * 2) buf_.resize(chunk_ * 2);
  }
  ~LineReader() {
    auto& spare = detail::spare_line_buffer();
    if (buf_.size() >= spare.size() && buf_.size() <= (std::size_t(16) << 20)) spare.swap(buf_);  // not one grown for a huge line
  }
  LineReader(const LineReader&) = delete;
  LineReader& operator=(const LineReader&) = delete;
  // The next line, without its '\n' (and '\r'); false at the end. The common case, a whole
  // line in the buffer, stays small enough to inline into the readers' loops; refilling the
  // buffer (and reporting progress) is out of line.
  bool next(std::string_view& line) {
    const char* b = buf_.data() + pos_;
    const std::size_t avail = len_ - pos_;
    const void* nl = avail ? std::memchr(b, '\n', avail) : nullptr;
    if (!nl) return next_after_refill(line);
    take_line(b, static_cast<std::size_t>(static_cast<const char*>(nl) - b), line);
    return true;
  }
  std::uint64_t line_number() const { return line_no_; }
  const std::string& path() const { return src_.path(); }
  const ByteSource& source() const { return src_; }

 private:
  void take_line(const char* b, std::size_t n, std::string_view& line) {
    line = std::string_view(b, n);
    if (n && line.back() == '\r') line.remove_suffix(1);
    pos_ += n + 1;
    ++line_no_;
  }
  [[gnu::noinline]] bool next_after_refill(std::string_view& line) {
    for (;;) {
      const char* b = buf_.data() + pos_;
      std::size_t avail = len_ - pos_;
      const void* nl = avail ? std::memchr(b, '\n', avail) : nullptr;
      if (nl) {
        take_line(b, static_cast<std::size_t>(static_cast<const char*>(nl) - b), line);
        return true;
      }
      if (eof_) {
        if (avail == 0) return false;
        line = std::string_view(b, avail);
        if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
        pos_ = len_;
        ++line_no_;
        return true;
      }
      if (avail > kMaxLineBytes)
        throw ParseError(src_.path(), line_no_ + 1, 1, "expected a line of at most " + std::to_string(kMaxLineBytes >> 20) +
                                                           " MiB, found a longer one (binary data or a decompression bomb?)");
      // Move the partial line to the front and read more.
      if (pos_ > 0) { std::memmove(buf_.data(), b, avail); len_ = avail; pos_ = 0; }
      if (buf_.size() - len_ < chunk_) buf_.resize(buf_.size() * 2);
      std::size_t got = src_.read(buf_.data() + len_, buf_.size() - len_);
      len_ += got;
      if (got == 0) eof_ = true;
      // Every kReportBytes of text, and the end of a file of more than kEndReportBytes.
      if (src_.decompressed() - reported_ >= detail::ReadProgressScope::kReportBytes ||
          (eof_ && src_.decompressed() >= detail::ReadProgressScope::kEndReportBytes && src_.decompressed() != reported_))
        report_progress();
    }
  }
  void report_progress() {
    reported_ = src_.decompressed();
    if (const auto* scope = detail::ReadProgressScope::current()) scope->report(src_.path(), src_.compressed_consumed(), src_.file_size(), reported_);
  }

  ByteSource src_;
  std::size_t chunk_;
  std::vector<char> buf_;
  std::size_t pos_ = 0, len_ = 0;
  bool eof_ = false;
  std::uint64_t line_no_ = 0;
  std::uint64_t reported_ = 0;  // text handed out at the last progress report
};

// First bytes of a (possibly compressed) file, decompressed, for format detection.
inline std::string peek_text(const std::string& path, std::size_t n = 8192) {
  ByteSource s(path);
  std::string out(n, '\0');
  std::size_t got = 0;
  while (got < n) {
    std::size_t r = s.read(out.data() + got, n - got);
    if (r == 0) break;
    got += r;
  }
  out.resize(got);
  return out;
}

}  // namespace gpuperf
