// The grid's work per CTA as gpuperf's tracer records it: warp instructions of every CTA in
// linear CTA order (x fastest), "v" for one CTA and "v*n" for n CTAs in a row of v each. Read
// from a trace's '-cta warp instructions' header line and from cta_counts.tsv files.
#pragma once

#include <charconv>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "gpuperf/error.hpp"
#include "gpuperf/trace/ir.hpp"

namespace gpuperf {

// Where a list being parsed sits, for its errors.
struct TextPlace {
  std::string file;
  std::uint64_t line = 0;
  std::uint32_t column = 1;  // of the list's first character
};

// One launch's per-CTA work from a cta_counts.tsv line (trace/cta_counts_reader.hpp).
struct LaunchCtaWork {
  std::string file;
  std::uint64_t line = 0;
  std::uint32_t launch_id = 0;
  std::string kernel;
  Dim3 grid;
  std::vector<CtaWorkRun> runs;
};

// Parses a run-length list of `grid_ctas` CTAs' warp instructions. Throws ParseError naming the
// token and what was expected; the runs must cover the grid exactly.
inline std::vector<CtaWorkRun> parse_cta_work(std::string_view text, std::uint64_t grid_ctas, const TextPlace& at) {
  std::vector<CtaWorkRun> runs;
  std::uint64_t covered = 0;
  std::size_t p = 0;
  auto fail = [&](std::size_t pos, const std::string& what) {
    throw ParseError(at.file, at.line, at.column + static_cast<std::uint32_t>(std::min<std::size_t>(pos, 1u << 30)), what);
  };
  while (p < text.size()) {
    while (p < text.size() && (text[p] == ' ' || text[p] == '\t')) ++p;
    if (p >= text.size()) break;
    const std::size_t start = p;
    while (p < text.size() && text[p] != ' ' && text[p] != '\t') ++p;
    const std::string_view tok = text.substr(start, p - start);
    const std::size_t star = tok.find('*');
    const std::string_view value = tok.substr(0, star);
    CtaWorkRun run{0, 1};
    auto number = [&](std::string_view v, std::uint64_t& out) {
      auto r = std::from_chars(v.data(), v.data() + v.size(), out, 10);
      return r.ec == std::errc() && r.ptr == v.data() + v.size() && !v.empty();
    };
    if (!number(value, run.warp_instructions))
      fail(start, "expected a CTA's warp instructions as 'count' or 'count*ctas', found '" + std::string(tok) + "'");
    if (star != std::string_view::npos && (!number(tok.substr(star + 1), run.ctas) || run.ctas == 0))
      fail(start + star + 1, "expected a number of CTAs (1 or more) after '*', found '" + std::string(tok) + "'");
    if (run.ctas > grid_ctas - covered)
      fail(start, "expected warp instructions for the grid's " + std::to_string(grid_ctas) + " CTAs, found more");
    covered += run.ctas;
    if (!runs.empty() && runs.back().warp_instructions == run.warp_instructions) runs.back().ctas += run.ctas;
    else runs.push_back(run);
  }
  if (covered != grid_ctas)
    fail(0, "expected warp instructions for the grid's " + std::to_string(grid_ctas) + " CTAs, found " + std::to_string(covered));
  return runs;
}

// The list as the tracer writes it.
inline std::string format_cta_work(const std::vector<CtaWorkRun>& runs) {
  std::string s;
  for (const auto& r : runs) {
    if (!s.empty()) s += ' ';
    s += std::to_string(r.warp_instructions);
    if (r.ctas > 1) s += "*" + std::to_string(r.ctas);
  }
  return s;
}

// The warp instructions of the CTA with linear id `cta` (runs cover the grid).
inline std::uint64_t cta_work_of(const std::vector<CtaWorkRun>& runs, std::uint64_t cta) {
  for (const auto& r : runs) {
    if (cta < r.ctas) return r.warp_instructions;
    cta -= r.ctas;
  }
  return 0;
}

// The grid's mean warp instructions per CTA (0 for no runs).
inline double mean_cta_work(const std::vector<CtaWorkRun>& runs) {
  double total = 0, ctas = 0;
  for (const auto& r : runs) {
    total += static_cast<double>(r.warp_instructions) * static_cast<double>(r.ctas);
    ctas += static_cast<double>(r.ctas);
  }
  return ctas > 0 ? total / ctas : 0;
}

inline std::uint64_t linear_cta(const Dim3& cta, const Dim3& grid) {
  return cta.x + std::uint64_t(grid.x) * (cta.y + std::uint64_t(grid.y) * cta.z);
}

}  // namespace gpuperf
