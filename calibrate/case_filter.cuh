// Which of a probe's cases a run selects: every case without a filter, else those whose name
// starts with one of the comma-separated prefixes ("add-,lds-bank4").
#pragma once

#include <algorithm>
#include <string>

inline bool case_selected(const std::string& prefixes, const std::string& name) {
  if (prefixes.empty()) return true;
  for (size_t at = 0; at <= prefixes.size();) {
    const size_t end = std::min(prefixes.find(',', at), prefixes.size());
    if (end > at && name.compare(0, end - at, prefixes, at, end - at) == 0) return true;
    at = end + 1;
  }
  return false;
}
