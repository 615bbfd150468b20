// libFuzzer target: the sass reader must reject bad input with a gpuperf::Error, never crash.
#include <unistd.h>

#include <cstdio>
#include <string>

#include "gpuperf/gpuperf.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const std::string path = "/tmp/gpuperf_fuzz_sass_" + std::to_string(getpid());
  FILE* f = std::fopen(path.c_str(), "wb");
  if (!f) return 0;
  std::fwrite(data, 1, size, f);
  std::fclose(f);
  try {
    gpuperf::read_sass_listing(path);
  } catch (const gpuperf::Error&) {
  }
  return 0;
}
