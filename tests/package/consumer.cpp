// A downstream project using the installed package: tables from the install prefix,
// occupancy of a known launch, one prediction.
#include <gpuperf/gpuperf.hpp>

#include <cstdio>

int main() {
  auto tables = gpuperf::Tables::load_default();
  auto gpu = gpuperf::GpuSpec::from_catalog(tables, "h200");
  gpuperf::LaunchConfig l;
  l.block.x = 256;
  l.registers_per_thread = 16;
  auto occ = gpuperf::compute_occupancy(l, gpu.arch_table());
  std::printf("consumer: %s, vecadd occupancy %d CTAs/SM\n", gpu.name.c_str(), occ.blocks_per_sm);
  return occ.blocks_per_sm == 8 ? 0 : 1;
}
