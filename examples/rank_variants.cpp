// An autotuner's use of gpuperf: rank variants of one kernel (GEMM tile sizes and register
// blocking) by predicted time on a target GPU, from a profile of the variants taken elsewhere.
//   example_rank_variants [PROFILE_DIR] [GPU]
#include <gpuperf/gpuperf.hpp>

#include <algorithm>
#include <cstdio>

int main(int argc, char** argv) {
  std::string dir = argc > 1 ? argv[1] : std::string(GPUPERF_DATA_DIR) + "/../bench/corpus/h200/corpus";
  std::string gpu = argc > 2 ? argv[2] : "a100";
  try {
    auto tables = gpuperf::Tables::load_default();
    gpuperf::Session s(gpuperf::load(std::vector<std::string>{dir + "/ncu_source.csv.xz", dir + "/ncu_raw.csv.xz", dir + "/sass.cuobjdump.sass.xz"}));
    auto spec = gpuperf::GpuSpec::from_catalog(tables, gpu);
    gpuperf::PredictOptions opt;
    opt.per_pc = false;
    auto variants = s.select("sgemm");
    auto report = s.predict(spec, opt, variants);
    std::vector<std::pair<double, std::string>> ranked;
    for (auto& k : report.kernels)
      ranked.emplace_back(k.time_us, gpuperf::demangle(k.name) + " grid " + std::to_string(static_cast<long>(k.grid_ctas)) + " -> " + gpuperf::to_string(k.bottleneck));
    std::sort(ranked.begin(), ranked.end());
    std::printf("SGEMM variants ranked for %s:\n", spec.name.c_str());
    for (std::size_t i = 0; i < ranked.size(); ++i) std::printf("%2zu. %10.1f us  %s\n", i + 1, ranked[i].first, ranked[i].second.c_str());
  } catch (const gpuperf::Error& e) {
    std::fprintf(stderr, "error: %s\n", e.what());
    return 1;
  }
  return 0;
}
