// cta_counts.tsv, written by gpuperf's tracer beside its traces (and alone by its count-only run,
// GPUPERF_TRACE_CTAS=none): per launch, the warp instructions of every CTA of the grid. Joined
// to a trace of the same launch, it tells a sampled trace what its untraced CTAs do.
//   # gpuperf cta warp instructions/1: ...
//   <launch id> TAB <kernel name> TAB (x,y,z) TAB <run-length list, trace/cta_work.hpp>
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "gpuperf/error.hpp"
#include "gpuperf/trace/accelsim_reader.hpp"
#include "gpuperf/trace/byte_source.hpp"
#include "gpuperf/trace/cta_work.hpp"
#include "gpuperf/trace/poll_retries.hpp"
#include "gpuperf/trace/ir.hpp"

namespace gpuperf {

inline constexpr std::string_view kCtaCountsMagic = "# gpuperf cta warp instructions/";

inline bool looks_like_cta_counts(std::string_view head) { return head.substr(0, kCtaCountsMagic.size()) == kCtaCountsMagic; }

inline std::vector<LaunchCtaWork> read_cta_counts(const std::string& path) {
  LineReader lr(path);
  std::string_view line;
  std::vector<LaunchCtaWork> out;
  bool header = false;
  while (lr.next(line)) {
    const std::uint64_t ln = lr.line_number();
    if (!header) {
      if (!looks_like_cta_counts(line)) throw ParseError(path, ln, 1, "expected the header '" + std::string(kCtaCountsMagic) + "1: ...'");
      if (line.substr(kCtaCountsMagic.size(), 2) != "1:")
        throw ParseError(path, ln, static_cast<std::uint32_t>(kCtaCountsMagic.size()) + 1, "expected version 1 of the per-CTA counts format");
      header = true;
      continue;
    }
    if (line.empty() || line[0] == '#') continue;
    std::string_view f[4];
    std::size_t at[4] = {0, 0, 0, 0};
    std::size_t p = 0;
    for (int i = 0; i < 4; ++i) {
      const std::size_t tab = i < 3 ? line.find('\t', p) : std::string_view::npos;
      if (i < 3 && tab == std::string_view::npos)
        throw ParseError(path, ln, static_cast<std::uint32_t>(line.size()) + 1,
                         "expected 4 tab-separated fields (launch id, kernel name, grid, per-CTA warp instructions), found " + std::to_string(i + 1));
      at[i] = p;
      f[i] = line.substr(p, tab == std::string_view::npos ? std::string_view::npos : tab - p);
      p = tab + 1;
    }
    LaunchCtaWork w;
    w.file = path;
    w.line = ln;
    std::uint64_t id = 0;
    auto r = std::from_chars(f[0].data(), f[0].data() + f[0].size(), id, 10);
    if (r.ec != std::errc() || r.ptr != f[0].data() + f[0].size() || id == 0 || id > 0xffffffffull)
      throw ParseError(path, ln, 1, "expected a launch id (1..4294967295), found '" + std::string(f[0]) + "'");
    w.launch_id = static_cast<std::uint32_t>(id);
    if (f[1].empty()) throw ParseError(path, ln, static_cast<std::uint32_t>(at[1]) + 1, "expected a kernel name");
    w.kernel = std::string(f[1]);
    w.grid = detail::parse_dim3(f[2], path, ln);
    if (w.grid.x < 1 || w.grid.y < 1 || w.grid.z < 1)
      throw ParseError(path, ln, static_cast<std::uint32_t>(at[2]) + 1, "expected a grid of at least one CTA, found '" + std::string(f[2]) + "'");
    w.runs = parse_cta_work(f[3], w.grid.count(), TextPlace{path, ln, static_cast<std::uint32_t>(at[3]) + 1});
    out.push_back(std::move(w));
  }
  if (!header) throw ParseError(path, 1, 1, "expected the header '" + std::string(kCtaCountsMagic) + "1: ...'; the file is empty");
  return out;
}

// Joins the per-CTA work of the same launch (id, kernel and grid) into k, where k has none of its
// own (a trace's header wins). Returns what a user should know of it: no entry for the launch,
// an entry that does not match, or counts that disagree with the traced CTAs' own (another run
// of a kernel whose work depends on timing). `same_name` compares kernel names.
template <typename SameName>
std::string join_cta_counts(Kernel& k, const std::vector<LaunchCtaWork>& all, SameName same_name) {
  if (!k.cta_work.empty() || all.empty()) return {};
  const LaunchCtaWork* found = nullptr;
  for (const auto& w : all)
    if (w.launch_id == k.launch.id) { found = &w; break; }
  if (!found) return "no per-CTA counts for launch " + std::to_string(k.launch.id) + " in " + all.front().file;
  const std::string where = found->file + ":" + std::to_string(found->line);
  if (!same_name(found->kernel, k.launch.name)) return "per-CTA counts of launch " + std::to_string(k.launch.id) + " at " + where + " are of another kernel (" + found->kernel + "); not used";
  if (!(found->grid == k.launch.grid)) return "per-CTA counts at " + where + " are of another grid; not used";
  k.cta_work = found->runs;
  discount_poll_retries(k);  // the counts come from the run that added the trace's retries
  // The traced CTAs' own counts, where the trace holds them whole.
  if (k.truncated_at_instructions || k.warps.empty()) return {};
  std::map<std::uint64_t, std::uint64_t> traced;  // linear CTA -> its warp instructions
  for (const auto& ws : k.warps) traced[linear_cta(ws.cta, k.launch.grid)] += ws.end - ws.begin;
  std::size_t differ = 0;
  double worst = 0;
  for (const auto& [c, n] : traced) {
    const double counted = static_cast<double>(cta_work_of(k.cta_work, c));
    if (counted == static_cast<double>(n)) continue;
    ++differ;
    worst = std::max(worst, std::abs(counted - static_cast<double>(n)) / std::max(1.0, static_cast<double>(n)));
  }
  if (!differ) return {};
  return "per-CTA counts at " + where + " differ from the trace for " + std::to_string(differ) + " of " + std::to_string(traced.size()) +
         " traced CTAs (by up to " + std::to_string(static_cast<int>(100 * worst + 0.5)) + " %): they come from another run; used as given";
}

}  // namespace gpuperf
