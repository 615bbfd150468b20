// What an input format is to the loader: how it is recognised (by content, never by file name)
// and what reading one file of it adds to the load plan. The formats themselves are listed once,
// in trace/formats.hpp; each lives in its own file under trace/formats/.
#pragma once

#include <sys/stat.h>

#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "gpuperf/error.hpp"
#include "gpuperf/trace/cta_work.hpp"
#include "gpuperf/trace/ir.hpp"

namespace gpuperf {

// The first bytes of a file (decompressed), leading blank lines and spaces removed.
struct FileHead {
  std::string_view text;
  bool cut = false;  // the file goes on past these bytes (the last line may be partial)
};

// The bytes formats are recognised by: a file's first 4 KiB, decompressed.
inline constexpr std::size_t kSniffBytes = 4096;

// The head of `bytes` (peek_text(path, kSniffBytes)) as the sniffers see it.
inline FileHead file_head(std::string_view bytes) {
  FileHead h{bytes, bytes.size() == kSniffBytes};
  while (!h.text.empty() && (h.text.front() == '\n' || h.text.front() == '\r' || h.text.front() == ' ' || h.text.front() == '\t')) h.text.remove_prefix(1);
  return h;
}

namespace detail {
// One launch of the input before its trace body is read: an Accel-Sim kernel file still to be
// parsed, or a kernel that another reader produced whole (with its measurement).
struct PendingKernel {
  std::string file;  // the Accel-Sim kernel file to read when `kernel` is empty
  std::optional<Kernel> kernel;
  Measurement measured;
};

// The same file named twice (by any path) would be predicted twice.
inline void refuse_duplicates(const std::vector<std::string>& files, const std::string& where) {
  std::map<std::pair<std::uintmax_t, std::uintmax_t>, std::string> seen;
  for (auto& f : files) {
    struct stat st {};
    if (::stat(f.c_str(), &st) != 0) continue;
    auto [it, fresh] = seen.emplace(std::make_pair(std::uintmax_t(st.st_dev), std::uintmax_t(st.st_ino)), f);
    if (!fresh) throw FormatError(where + ": names " + f + " twice (first as " + it->second + "); each input is read once");
  }
}
}  // namespace detail

// What the inputs hold, in launch order, with no Accel-Sim kernel body read yet. Each format's
// read() adds to it; formats whose files only make sense together (ncu's two pages) keep their
// paths in `held` and combine them in finish().
struct InputPlan {
  std::vector<detail::PendingKernel> launches;
  std::vector<Kernel> listing;  // SASS listing functions to join into the launches
  std::vector<FunctionSourceLines> source_lines;  // CUDA lines per function, joined into the launches
  std::vector<LaunchCtaWork> cta_work;  // every CTA's warp instructions per launch, joined into the launches
  std::vector<MemcpyCommand> memcpys;
  std::string device_name;
  std::string empty_list;  // an input that names no kernels (for the "no kernels" message)
  std::map<std::string, std::vector<std::string>, std::less<>> held;  // by format id

  // A kernel file whose body is read later (only if the launch is selected).
  void add_pending(const std::string& file) { launches.push_back(detail::PendingKernel{file, std::nullopt, {}}); }
  // A kernel read whole, with what the input measured of it.
  void add_loaded(Kernel&& k, Measurement m = {}) { launches.push_back(detail::PendingKernel{{}, std::move(k), std::move(m)}); }
};

// One input format. Adding a reader: a new file under trace/formats/ that defines its
// InputFormat, plus its line in input_formats() (trace/formats.hpp).
struct InputFormat {
  std::string_view id;    // stable name for code and tests: "accelsim_kernel"
  std::string_view name;  // for people: "Accel-Sim kernel trace"
  // Whether a file with this head is of this format. Formats are asked in registry order and
  // the first that claims a file reads it.
  bool (*sniff)(const FileHead& head) = nullptr;
  // Reads one file of this format into the plan.
  void (*read)(const std::string& path, InputPlan& plan) = nullptr;
  // A folder given as input: the file that makes the whole folder this input (a kernelslist,
  // an app_config.py), if any. Asked in registry order before the folder's files are sniffed.
  std::optional<std::string> (*folder_input)(const std::string& dir) = nullptr;
  // When a folder has no such file, its files of this format are read (sorted by name).
  bool read_from_folder = false;
  // Runs once after every input file was read, in registry order.
  void (*finish)(InputPlan& plan) = nullptr;
};

}  // namespace gpuperf
