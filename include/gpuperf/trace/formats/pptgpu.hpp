// PPT-GPU application folders: app_config.py with sass_traces/ and memory_traces/ beside it.
#pragma once

#include <filesystem>
#include <string>
#include <string_view>

#include "gpuperf/trace/input_format.hpp"
#include "gpuperf/trace/pptgpu_reader.hpp"

namespace gpuperf {
namespace formats {

inline bool sniff_pptgpu_app_config(const FileHead& head) {
  return head.text.find("= {") != std::string_view::npos && head.text.find("\"kernel_name\"") != std::string_view::npos;
}

inline void read_pptgpu_app_config(const std::string& path, InputPlan& plan) {
  auto a = read_pptgpu_app(std::filesystem::path(path).parent_path().string());
  for (auto& k : a.kernels) plan.add_loaded(std::move(k));
}

inline std::optional<std::string> pptgpu_folder_config(const std::string& dir) {
  auto p = std::filesystem::path(dir) / "app_config.py";
  return std::filesystem::exists(p) ? std::optional<std::string>(p.string()) : std::nullopt;
}

inline InputFormat pptgpu_app_config() {
  InputFormat f;
  f.id = "pptgpu_app_config";
  f.name = "PPT-GPU app_config.py";
  f.sniff = sniff_pptgpu_app_config;
  f.read = read_pptgpu_app_config;
  f.folder_input = pptgpu_folder_config;
  return f;
}

}  // namespace formats
}  // namespace gpuperf
