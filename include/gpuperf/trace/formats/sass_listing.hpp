// cuobjdump -sass / nvdisasm listings: joined to the other inputs by instruction sequence, or
// predicted alone as static programs.
#pragma once

#include <string>
#include <string_view>

#include "gpuperf/trace/input_format.hpp"
#include "gpuperf/trace/sass_listing_reader.hpp"
#include "gpuperf/trace/text_scan.hpp"

namespace gpuperf {
namespace formats {

inline bool sniff_sass_listing(const FileHead& head) {
  std::string_view h = head.text;
  constexpr auto npos = std::string_view::npos;
  return scan::starts_with(h, "code for sm_") || scan::starts_with(h, "Fatbin") || h.find("Function :") != npos || h.find("\n.text.") != npos ||
         scan::starts_with(h, ".target") || scan::starts_with(h, ".headerflags") || h.find("\t.target\tsm_") != npos || h.find("//-----") != npos;
}

inline void read_sass_listing_file(const std::string& path, InputPlan& plan) {
  for (auto& k : read_sass_listing(path)) plan.listing.push_back(std::move(k));
}

inline InputFormat sass_listing() {
  InputFormat f;
  f.id = "sass_listing";
  f.name = "SASS listing";
  f.sniff = sniff_sass_listing;
  f.read = read_sass_listing_file;
  f.read_from_folder = true;
  return f;
}

}  // namespace formats
}  // namespace gpuperf
