// Loading inputs into an Application: each file's format is detected by content (never by file
// extension) through the registry in trace/formats.hpp (Accel-Sim kernel files and kernelslists,
// PPT-GPU app folders, ncu source+raw CSVs, SASS listings), launches are selected, and the
// selected Accel-Sim kernel bodies are read, joined to any SASS listing. The definitions are in
// load_impl.hpp (inline for gpuperf::header_only, compiled in the gpuperf::gpuperf library).
#pragma once

#include <cstddef>
#include <filesystem>
#include <mutex>
#include <new>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "gpuperf/config.hpp"
#include "gpuperf/parallel.hpp"
#include "gpuperf/trace/accelsim_reader.hpp"
#include "gpuperf/trace/input_format.hpp"

namespace gpuperf {

// The input formats in the order they are asked to claim a file or a folder (trace/formats.hpp).
GPUPERF_FUNC const std::vector<InputFormat>& input_formats();
// The format with this id, or nullptr.
GPUPERF_FUNC const InputFormat* find_input_format(std::string_view id);
// A file's format, by its content (never its name): nullptr when no format claims it.
GPUPERF_FUNC const InputFormat* detect_file(const std::string& path);
// The id of a file's format, "unknown" when none claims it.
GPUPERF_FUNC std::string_view detect_kind(const std::string& path);

GPUPERF_FUNC std::string demangle(const std::string& name);

// Does a launch match a --kernel selector? All digits: the launch id, its 1-based position in the
// input (one numbering for every input, whatever ids a trace carries); otherwise a regular
// expression searched in the demangled and the raw name. Empty matches all.
GPUPERF_FUNC bool launch_matches(const LaunchConfig& L, std::size_t position, const std::string& selector);

// Function identifier without return type, template arguments or parameters:
// "void sgemm_smem_tiled<(int)16>(const float *, ...)" -> "sgemm_smem_tiled".
GPUPERF_FUNC std::string base_function_name(const std::string& name);

// Joins compiler control bits and -lineinfo source lines from a listing into a kernel by
// matching its opcode sequence (PCs in a profile are absolute addresses, listings are offsets).
// Returns true if a function matched.
GPUPERF_FUNC bool join_listing(Kernel& k, const std::vector<Kernel>& listing);

// Which launches to load: a --kernel selector (launch_matches), then ncu's --launch-skip and
// --launch-count over the launches it matched.
struct LaunchSelection {
  std::string kernel;     // launch id (1-based position) or name regex; empty: every launch
  std::size_t skip = 0;   // matching launches to leave out first
  std::size_t count = 0;  // then at most this many; 0: all the rest
  bool all() const { return kernel.empty() && skip == 0 && count == 0; }
};

struct LoadOptions {
  AccelSimKernelReader::Options accelsim;
  // Launches outside the selection are skipped before their trace bodies are read.
  LaunchSelection select;
  // Kernel files read at once (0: every core). Results do not depend on it.
  unsigned jobs = 1;
};

// "kernel-2" before "kernel-10": runs of digits compare by value, the rest byte by byte.
GPUPERF_FUNC bool natural_less(const std::string& a, const std::string& b);

namespace detail {
// std::filesystem and allocation failures surface as gpuperf errors naming the path.
template <class F>
auto io_guard(const std::string& what, F&& f) -> decltype(f()) {
  try {
    return f();
  } catch (const std::filesystem::filesystem_error& e) {
    std::string p = e.path1().empty() ? what : e.path1().string();
    throw IoError(p + ": " + e.code().message());
  } catch (const std::bad_alloc&) {
    throw IoError(what + ": out of memory while reading the input");
  }
}

// What the inputs hold (no Accel-Sim kernel body read yet), by the formats' rules.
GPUPERF_FUNC InputPlan plan_unguarded(const std::vector<std::string>& paths, ProgressFn progress = nullptr, void* progress_ctx = nullptr);
// Indices of the launches a selection keeps, opening as little as it can.
GPUPERF_FUNC std::vector<std::size_t> select_launches(InputPlan& plan, const LoadOptions& opt);
// Reads the chosen launches' kernel files, up to opt.jobs at once, and joins the listing.
// Kernel files read of a selection, for opt.accelsim.progress (shared by the batches of one load).
struct KernelCount {
  std::mutex mu;
  std::size_t done = 0, total = 0;
};
GPUPERF_FUNC void read_launches(InputPlan& plan, const std::vector<std::size_t>& chosen, const LoadOptions& opt, KernelCount* count = nullptr,
                                bool file_bytes = true);
}  // namespace detail

// Loads one or more paths into one Application. Listings join the other inputs; a listing
// alone becomes one static kernel per function (no counts). With opt.select, launches outside
// the selection are left out before their trace bodies are read (Application::launch_ids keeps
// the positions of those kept); opt.jobs kernel files are read at once.
GPUPERF_FUNC Application load(const std::vector<std::string>& paths, const LoadOptions& opt = {});
GPUPERF_FUNC Application load(const std::string& path, const LoadOptions& opt = {});

// Streams the selected launches of an input kernel by kernel, in launch order: Accel-Sim kernel
// files are read opt.jobs at a time, each followed on its own thread by work(Kernel&&, const
// Measurement&, launch_id) (so a trace is dropped as soon as its work is done and at most
// opt.jobs traces are in memory), and emit(result) runs on the calling thread in launch order.
// Other inputs are loaded whole first.
template <class Work, class Emit>
void for_each_kernel(const std::vector<std::string>& paths, const LoadOptions& opt, Work&& work, Emit&& emit) {
  detail::refuse_duplicates(paths, "the command line");
  std::string where = paths.empty() ? std::string("<no input>") : paths.front();
  InputPlan plan = detail::io_guard(where, [&] { return detail::plan_unguarded(paths, opt.accelsim.progress, opt.accelsim.progress_ctx); });
  auto chosen = detail::io_guard(where, [&] { return detail::select_launches(plan, opt); });
  using Result = decltype(work(std::declval<Kernel&&>(), std::declval<const Measurement&>(), std::size_t{}));
  std::size_t batch = opt.jobs == 0 ? hardware_jobs() : opt.jobs;
  detail::KernelCount count;
  count.total = chosen.size();
  for (std::size_t b = 0; b < chosen.size(); b += batch) {
    std::vector<std::size_t> part(chosen.begin() + static_cast<std::ptrdiff_t>(b),
                                  chosen.begin() + static_cast<std::ptrdiff_t>(std::min(chosen.size(), b + batch)));
    std::vector<std::optional<Result>> out(part.size());
    LoadOptions po = opt;
    po.jobs = 1;  // the pool below reads and works in one step per kernel
    const bool file_bytes = !(batch > 1 && chosen.size() > 1);  // several files at once: kernels done only
    detail::io_guard(where, [&] {
      parallel_for(part.size(), static_cast<unsigned>(batch), [&](std::size_t i) {
        detail::read_launches(plan, {part[i]}, po, &count, file_bytes);
        auto& pk = plan.launches[part[i]];
        Kernel k = std::move(*pk.kernel);
        pk.kernel.reset();
        out[i].emplace(work(std::move(k), pk.measured, part[i] + 1));
      });
      return 0;
    });
    for (auto& r : out) emit(std::move(*r));
  }
}

}  // namespace gpuperf

#ifdef GPUPERF_HEADER_ONLY
#include "gpuperf/trace/load_impl.hpp"
#endif
