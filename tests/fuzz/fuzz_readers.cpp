// libFuzzer targets, one per reader and per page, in one binary (one compile for CI):
// GPUPERF_FUZZ_TARGET selects accelsim, ncu_source, ncu_raw, ncu_lines, sass, pptgpu_config,
// pptgpu, tables or kernelslist. Every reader must end bad input in a gpuperf::Error: any other exception, a
// crash, a hang, or undefined behaviour (UBSan with recovery off) is a finding.
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>

#include <nlohmann/json.hpp>

#include "gpuperf/gpuperf.hpp"

namespace {

enum class FuzzedReader { accelsim, ncu_source, ncu_raw, ncu_lines, sass, pptgpu_config, pptgpu, tables, kernelslist };
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

// The tables target reads one small table set per input: the fuzzed sm_86 table, its parent
// sm_80, their ISA file and the shipped catalogue cut to those two architectures. Loading every
// shipped table per input ran at 25 inputs/s, almost all of it in parsing the untouched files.
void write_tables_fixture() {
  namespace fs = std::filesystem;
  const fs::path shipped_dir = shipped()->search_path().back();
  fs::create_directories(g_dir + "/tables/arch");
  fs::create_directories(g_dir + "/tables/isa");
  fs::copy_file(shipped_dir / "arch" / "sm_80.json", g_dir + "/tables/arch/sm_80.json", fs::copy_options::overwrite_existing);
  fs::copy_file(shipped_dir / "isa" / "volta.json", g_dir + "/tables/isa/volta.json", fs::copy_options::overwrite_existing);
  std::ifstream in(shipped_dir / "gpus.json");
  auto catalogue = nlohmann::json::parse(in);
  auto& gpus = catalogue.at("gpus");
  for (auto it = gpus.begin(); it != gpus.end();)
    it = (it->at("arch") == "sm_80" || it->at("arch") == "sm_86") ? it + 1 : gpus.erase(it);
  std::ofstream(g_dir + "/tables/gpus.json") << catalogue.dump(1);
}

const std::shared_ptr<const gpuperf::Kernel>& tables_probe_kernel() {
  static auto k = std::make_shared<const gpuperf::Kernel>(
      gpuperf::AccelSimKernelReader::read(std::string(GPUPERF_FUZZ_FIXTURES) + "/accelsim/v5_modes.traceg"));
  return k;
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  const char* t = std::getenv("GPUPERF_FUZZ_TARGET");
  std::string s = t ? t : "accelsim";
  if (s == "accelsim") g_target = FuzzedReader::accelsim;
  else if (s == "ncu_source") g_target = FuzzedReader::ncu_source;
  else if (s == "ncu_raw") g_target = FuzzedReader::ncu_raw;
  else if (s == "ncu_lines") g_target = FuzzedReader::ncu_lines;
  else if (s == "sass") g_target = FuzzedReader::sass;
  else if (s == "pptgpu_config") g_target = FuzzedReader::pptgpu_config;
  else if (s == "pptgpu") g_target = FuzzedReader::pptgpu;
  else if (s == "tables") g_target = FuzzedReader::tables;
  else if (s == "kernelslist") g_target = FuzzedReader::kernelslist;
  else { std::fprintf(stderr, "unknown GPUPERF_FUZZ_TARGET '%s'\n", s.c_str()); std::abort(); }
  g_dir = (std::filesystem::temp_directory_path() / ("gpuperf_fuzz_" + s + "_" + std::to_string(getpid()))).string();
  std::filesystem::create_directories(g_dir + "/ppt/sass_traces");
  std::filesystem::create_directories(g_dir + "/ppt/memory_traces");
  shipped();
  if (g_target == FuzzedReader::tables) {
    write_tables_fixture();
    tables_probe_kernel();
  }
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
      case FuzzedReader::ncu_lines: write(in, data, size); read_ncu_source_lines(in); break;
      case FuzzedReader::ncu_raw: write(in, data, size); read_ncu_raw(in); break;
      case FuzzedReader::sass: write(in, data, size); read_sass_listing(in); break;
      case FuzzedReader::pptgpu_config: write(in, data, size); read_ppt_app_config(in); break;
      case FuzzedReader::pptgpu: {
        // A PPT-GPU folder of one kernel (4 CTAs of 128 threads): the input is its SASS trace,
        // then after a line "#MEM" the memory file of CTA 0, after a second "#MEM" CTA 1's.
        std::string all(reinterpret_cast<const char*>(data), size);
        std::string parts[3];
        std::size_t at = 0;
        for (int i = 0; i < 3; ++i) {
          std::size_t sep = i < 2 ? all.find("\n#MEM\n", at) : std::string::npos;
          parts[i] = all.substr(at, sep == std::string::npos ? std::string::npos : sep - at);
          if (sep == std::string::npos) { at = all.size(); break; }
          at = sep + 6;
        }
        const std::string d = g_dir + "/ppt";
        static const char cfg[] = "kernel_1 = {\n\t\"kernel_name\"\t: \"k\",\n\t\"num_registers\"\t: 16,\n\t\"shared_mem_bytes\"\t: 0,\n"
                                  "\t\"grid_size\"\t: 4,\n\t\"block_size\"\t: 128,\n\t\"cuda_stream_id\"\t: 0\n}\n";
        write(d + "/app_config.py", reinterpret_cast<const uint8_t*>(cfg), sizeof cfg - 1);
        write(d + "/sass_traces/kernel_1.sass", reinterpret_cast<const uint8_t*>(parts[0].data()), parts[0].size());
        for (int b = 0; b < 2; ++b) {
          std::string f = d + "/memory_traces/kernel_1_block_" + std::to_string(b) + ".mem";
          write(f, reinterpret_cast<const uint8_t*>(parts[b + 1].data()), parts[b + 1].size());
        }
        Application app = read_pptgpu_app(d);
        for (auto& k : app.kernels) {
          Predictor p{std::make_shared<const Kernel>(std::move(k))};
          p.predict(GpuSpec::from_catalog(shipped(), "v100"));
        }
        break;
      }
      case FuzzedReader::kernelslist: {
        write(in, data, size);
        detect_file(in);
        read_kernelslist(in);
        break;
      }
      case FuzzedReader::tables: {
        // The input is the sm_86 table; its parent and the catalogue are shipped ones.
        write(g_dir + "/tables/arch/sm_86.json", data, size);
        auto t = Tables::load({g_dir + "/tables"});
        if (t->check().empty()) Predictor(tables_probe_kernel()).predict(GpuSpec::from_catalog(t, "3090"));
        break;
      }
    }
  } catch (const Error&) {
  }
  return 0;
}
