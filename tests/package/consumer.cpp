// A downstream project using the installed package: tables from the install prefix (argv[1]),
// occupancy of a known launch, one prediction.
#include <gpuperf/gpuperf.hpp>

#include <cstdio>
#include <string>

int main(int argc, char** argv) {
  auto tables = gpuperf::Tables::load_default();
  if (argc > 1)
    for (auto& f : tables->loaded_files())
      if (f.rfind(argv[1], 0) != 0) {
        std::fprintf(stderr, "consumer: table %s is not under %s\n", f.c_str(), argv[1]);
        return 1;
      }
  auto gpu = gpuperf::GpuSpec::from_catalog(tables, "h200");
  gpuperf::LaunchConfig l;
  l.block.x = 256;
  l.registers_per_thread = 16;
  auto occ = gpuperf::compute_occupancy(l, gpu.arch_table());
  std::printf("consumer: %s, vecadd occupancy %d CTAs/SM, %zu table files\n", gpu.name.c_str(), occ.blocks_per_sm, tables->loaded_files().size());
  return occ.blocks_per_sm == 8 ? 0 : 1;
}
