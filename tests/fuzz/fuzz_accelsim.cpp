// libFuzzer target: the accelsim reader must reject bad input with a gpuperf::Error, never crash.
#include <unistd.h>

#include <cstdio>
#include <string>

#include "gpuperf/gpuperf.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const std::string path = "/tmp/gpuperf_fuzz_accelsim_" + std::to_string(getpid());
  FILE* f = std::fopen(path.c_str(), "wb");
  if (!f) return 0;
  std::fwrite(data, 1, size, f);
  std::fclose(f);
  try {
    gpuperf::Kernel k = gpuperf::AccelSimKernelReader::read(path);
    gpuperf::Predictor p{std::make_shared<const gpuperf::Kernel>(std::move(k))};
    static auto t = gpuperf::Tables::load_default();
    p.predict(gpuperf::GpuSpec::from_catalog(t, "v100"));
  } catch (const gpuperf::Error&) {
  }
  return 0;
}
