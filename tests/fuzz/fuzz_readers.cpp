// libFuzzer targets, one per reader and per page, in one binary (one compile for CI):
// GPUPERF_FUZZ_TARGET selects accelsim, ncu_source, ncu_raw, sass, pptgpu_config, tables or
// kernelslist. Every reader must end bad input in a gpuperf::Error: any other exception, a
// crash, a hang, or undefined behaviour (UBSan with recovery off) is a finding.
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <string>

#include "gpuperf/gpuperf.hpp"

namespace {

enum class FuzzedReader { accelsim, ncu_source, ncu_raw, sass, pptgpu_config, tables, kernelslist };
FuzzedReader g_target = FuzzedReader::accelsim;
std::string g_dir;  // per-process scratch directory

void write(const std::string& path, const uint8_t* data, size_t size) {
  FILE* f = std::fopen(path.c_str(), "wb");
  if (!f) std::abort();
  if (size) std::fwrite(data, 1, size, f);
  std::fclose(f);
}

const std::shared_ptr<const gpuperf::Tables>& shipped() {
  static auto t = gpuperf::Tables::load_default();
  return t;
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  const char* t = std::getenv("GPUPERF_FUZZ_TARGET");
  std::string s = t ? t : "accelsim";
  if (s == "accelsim") g_target = FuzzedReader::accelsim;
  else if (s == "ncu_source") g_target = FuzzedReader::ncu_source;
  else if (s == "ncu_raw") g_target = FuzzedReader::ncu_raw;
  else if (s == "sass") g_target = FuzzedReader::sass;
  else if (s == "pptgpu_config") g_target = FuzzedReader::pptgpu_config;
  else if (s == "tables") g_target = FuzzedReader::tables;
  else if (s == "kernelslist") g_target = FuzzedReader::kernelslist;
  else { std::fprintf(stderr, "unknown GPUPERF_FUZZ_TARGET '%s'\n", s.c_str()); std::abort(); }
  g_dir = (std::filesystem::temp_directory_path() / ("gpuperf_fuzz_" + s + "_" + std::to_string(getpid()))).string();
  std::filesystem::create_directories(g_dir + "/arch");
  shipped();
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace gpuperf;
  const std::string in = g_dir + "/input";
  try {
    switch (g_target) {
      case FuzzedReader::accelsim: {
        write(in, data, size);
        Kernel k = AccelSimKernelReader::read(in);
        Predictor p{std::make_shared<const Kernel>(std::move(k))};
        p.predict(GpuSpec::from_catalog(shipped(), "v100"));
        break;
      }
      case FuzzedReader::ncu_source: write(in, data, size); read_ncu_source(in); break;
      case FuzzedReader::ncu_raw: write(in, data, size); read_ncu_raw(in); break;
      case FuzzedReader::sass: write(in, data, size); read_sass_listing(in); break;
      case FuzzedReader::pptgpu_config: write(in, data, size); read_ppt_app_config(in); break;
      case FuzzedReader::kernelslist: {
        write(in, data, size);
        detect_file(in);
        read_kernelslist(in);
        break;
      }
      case FuzzedReader::tables: {
        // The input overrides one arch table; the rest are the shipped ones.
        write(g_dir + "/arch/sm_86.json", data, size);
        auto t = Tables::load({g_dir, shipped()->search_path().back()});
        if (t->check().empty()) {
          auto k = std::make_shared<const Kernel>(AccelSimKernelReader::read(std::string(GPUPERF_FUZZ_FIXTURES) + "/accelsim/v5_modes.traceg"));
          Predictor(k).predict(GpuSpec::from_catalog(t, "3090"));
        }
        break;
      }
    }
  } catch (const Error&) {
  }
  return 0;
}
