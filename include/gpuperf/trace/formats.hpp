// The input formats, in the order they are asked to claim a file or a folder. A new reader is
// one file under trace/formats/ plus its #include and its line here. Part of the loader's
// definitions (see load_impl.hpp): include load.hpp to use them.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "gpuperf/config.hpp"
#include "gpuperf/trace/byte_source.hpp"
#include "gpuperf/trace/formats/accelsim.hpp"
#include "gpuperf/trace/formats/cta_counts.hpp"
#include "gpuperf/trace/formats/ncu.hpp"
#include "gpuperf/trace/formats/ncu_lines.hpp"
#include "gpuperf/trace/formats/pptgpu.hpp"
#include "gpuperf/trace/formats/sass_listing.hpp"
#include "gpuperf/trace/input_format.hpp"

namespace gpuperf {

GPUPERF_FUNC const std::vector<InputFormat>& input_formats() {
  static const std::vector<InputFormat> all = {
      formats::cta_counts(),
      formats::accelsim_kernel(),
      formats::ncu_source(),
      formats::ncu_raw(),
      formats::ncu_details(),
      formats::ncu_source_lines(),
      formats::sass_listing(),
      formats::accelsim_kernelslist(),
      formats::pptgpu_app_config(),
  };
  return all;
}

// What a file that no format claims is told it should have been.
inline constexpr const char* kExpectedInputs =
    "expected an Accel-Sim .trace/.traceg or kernelslist, a PPT-GPU app folder, "
    "Nsight Compute source/raw CSV pages (and the source page printed as cuda,sass for CUDA lines), "
    "a cuobjdump/nvdisasm SASS listing, or the tracer's cta_counts.tsv";

// The format with this id, or nullptr.
GPUPERF_FUNC const InputFormat* find_input_format(std::string_view id) {
  for (const auto& f : input_formats())
    if (f.id == id) return &f;
  return nullptr;
}

// The first format that claims this head, or nullptr.
GPUPERF_FUNC const InputFormat* sniff_input(const FileHead& head) {
  if (head.text.empty()) return nullptr;
  for (const auto& f : input_formats())
    if (f.sniff(head)) return &f;
  return nullptr;
}

// A file's format, by its content (never its name): nullptr when no format claims it.
GPUPERF_FUNC const InputFormat* detect_file(const std::string& path) {
  std::string bytes = peek_text(path, kSniffBytes);
  return sniff_input(file_head(bytes));
}

// The id of a file's format, "unknown" when none claims it.
GPUPERF_FUNC std::string_view detect_kind(const std::string& path) {
  const InputFormat* f = detect_file(path);
  return f ? f->id : std::string_view("unknown");
}

}  // namespace gpuperf
