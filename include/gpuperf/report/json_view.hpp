// The JSON view of a Report (schema "gpuperf.report/1", documented in docs/json-schema.md). It
// reads the same struct as the text view (views.hpp) and computes nothing; kept apart so that
// including the public facade does not parse nlohmann/json.
#pragma once

#include <cmath>
#include <cstdint>

#include <nlohmann/json.hpp>

#include "gpuperf/config.hpp"
#include "gpuperf/report/explain.hpp"
#include "gpuperf/report/report.hpp"

namespace gpuperf {

inline constexpr const char* kReportSchema = "gpuperf.report/1";

inline nlohmann::json to_json(const StallBreakdown& s) { return nlohmann::json(s.as_map()); }

namespace detail {
// A count (CTAs, instructions, requests, sectors, executions) as a JSON integer. The model keeps
// counts in doubles because a sampled trace's counts are scaled to the grid; the scaled
// estimate is rounded, as a count cannot be fractional.
inline nlohmann::json json_count(double v) {
  if (!std::isfinite(v) || std::fabs(v) >= 9.0e18) return nlohmann::json(v);
  return nlohmann::json(static_cast<std::int64_t>(std::llround(v)));
}
}  // namespace detail

// One kernel's report, and a whole report with its schema and tool version.
GPUPERF_FUNC nlohmann::json to_json(const KernelReport& k);
GPUPERF_FUNC nlohmann::json to_json(const Report& r);

}  // namespace gpuperf

#ifdef GPUPERF_HEADER_ONLY
#include "gpuperf/report/json_view_impl.hpp"
#endif
