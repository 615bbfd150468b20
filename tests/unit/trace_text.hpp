// Test fixtures: the application of a .traceg text written to a temporary file (removed after
// it is read), for tests that build small traces by hand.
#pragma once

#include <filesystem>
#include <fstream>
#include <string>

#include "gpuperf/gpuperf.hpp"

inline gpuperf::Application load_trace_text(const std::string& text, const char* file_name) {
  namespace fs = std::filesystem;
  const fs::path f = fs::temp_directory_path() / file_name;
  { std::ofstream(f) << text; }
  gpuperf::Application app = gpuperf::load(f.string());
  fs::remove(f);
  return app;
}
