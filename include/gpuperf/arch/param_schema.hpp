// The schema of the machine parameters in the latency tables: every key of an arch table's
// memory, cache and occupancy sections and of a GPU catalog entry, with its unit, the range
// that catches unit mistakes (ns for cycles, bytes for KiB), whether a table must give it,
// and, for an optional key the model reads, the value it takes without one and where that
// value comes from. The loader checks every value against it, `tables check` reports the
// required keys a table lacks, and ArchTable::mem/cachev/occ fall back to its defaults: the
// model code carries no fallback constants of its own. A new parameter is one line here.
#pragma once

#include <string>
#include <vector>

namespace gpuperf {

enum class ParamSection { memory, cache, occupancy, gpu };

inline const char* to_string(ParamSection s) {
  switch (s) {
    case ParamSection::memory: return "memory";
    case ParamSection::cache: return "cache";
    case ParamSection::occupancy: return "occupancy";
    case ParamSection::gpu: return "gpu";
  }
  return "?";
}

enum class ParamUse {
  required,     // every arch table (after inheritance) or GPU entry must give it
  defaulted,    // optional: without it the model uses default_value (default_why says why)
  optional,     // optional: the model reads whether it is there (its absence has a meaning)
  reference     // measured or seed data kept for reference; the model does not read it
};

struct ParamSpec {
  ParamSection section;
  const char* key;
  const char* unit;
  double lo, hi;  // plausible range
  ParamUse use;
  double default_value = 0;
  const char* default_why = "";
};

inline const std::vector<ParamSpec>& param_schema() {
  using S = ParamSection;
  using U = ParamUse;
  static const std::vector<ParamSpec> schema = {
      // Arch table: memory latencies and rates.
      {S::memory, "l1_hit_latency_cycles", "SM cycles", 5, 200, U::required},
      {S::memory, "l2_hit_latency_cycles", "SM cycles", 50, 1000, U::required},
      {S::memory, "dram_latency_cycles", "cycles at dram_latency_clock_mhz", 100, 2000, U::required},
      {S::memory, "dram_latency_clock_mhz", "MHz", 100, 4000, U::optional},  // absent: the cycles hold at any clock
      {S::memory, "shared_latency_cycles", "SM cycles", 5, 100, U::required},
      {S::memory, "launch_overhead_us", "us", 0, 50, U::required},
      {S::memory, "shared_atomic_latency_cycles", "SM cycles", 1, 500, U::optional},  // absent: shared_latency_cycles
      {S::memory, "shuffle_pipe_wavefronts", "shared-memory data-pipe wavefronts per warp shuffle (SHFL)", 0, 8, U::defaulted, 0,
       "not modelled without a measurement: 0 leaves shuffles their own unit only (measured 1.0 on sm_90 only: a shuffle takes a pass of the "
       "pipe shared loads and stores use)"},
      {S::memory, "shared_bank_pass_latency_cycles", "SM cycles per shared-memory pass past a request's first", 0, 50, U::defaulted, 2,
       "estimated: a pass past the first delays the result by two SM cycles, as measured on sm_90 only (probe-shared-atomic-h200)"},
      {S::memory, "global_atomic_latency_cycles", "SM cycles beyond an L2 hit", 0, 2000, U::defaulted, 0,
       "estimated: without a measurement a global atomic costs an L2 hit (its extra latency unknown, not guessed)"},
      {S::memory, "l1_wavefronts_per_cycle", "wavefronts per SM cycle", 0.1, 8, U::defaulted, 1,
       "estimated: one L1 wavefront per SM cycle, as the sm_60/sm_70 tables estimate it (est-mio); sm_90 measured 0.94"},
      {S::memory, "shared_wavefronts_per_cycle", "wavefronts per SM cycle", 0.1, 8, U::defaulted, 1,
       "estimated: one shared-memory wavefront per SM cycle, as the sm_60/sm_70 tables estimate it (est-mio); sm_90 measured 0.98"},
      {S::memory, "l1_lines_per_wavefront", "lines of a global load hitting L1, per wavefront", 1, 32, U::defaulted, 1,
       "estimated: without a measurement every line of a load costs a wavefront, as the lsu group measured with all lanes on one bank (measured 3.15 on sm_90 only)"},
      {S::memory, "l1_miss_lines_per_wavefront", "lines of a global load missing L1 (filling it), per wavefront", 1, 32, U::defaulted, 1,
       "estimated: without a measurement every line of a load costs a wavefront (measured 2.56 on sm_90 only)"},
      {S::memory, "store_partial_sector_wavefronts", "L1 wavefronts per partly written sector, beyond its line's", 0, 8, U::defaulted, 0,
       "estimated: without a measurement a partly written store line costs what a load line costs (measured 1.0 a sector more on sm_90 only)"},
      {S::memory, "const_unit_global_load_cycles", "SM cycles of the constant unit a global load request takes beside indexed constant loads",
       0, 16, U::defaulted, 0,
       "not modelled without a measurement: 0 lets global loads pass beside the constant unit "
       "(0.55 on sm_90 only, from calibrate/mio_share_probe.cu)"},
      {S::memory, "global_atomic_l2_miss_updates_per_ns", "atomic updates per ns, the whole GPU, of updates whose line the L2 no longer holds",
       0, 1000, U::defaulted, 0,
       "not modelled without a measurement: 0 leaves atomics that miss L2 at the rate of those that hit "
       "(16.0 measured on sm_90 only, calibrate/atomic_miss_probe.cu)"},
      {S::memory, "l2_store_line_rate_fraction", "of the L2 read rate in sectors", 0.01, 1, U::defaulted, 0,
       "not modelled without a measurement: 0 leaves store lines at the L2 sector rate (measured 0.28 on sm_90 only)"},
      {S::memory, "barrier_arrival_cycles", "SM cycles per warp reaching a CTA barrier", 0, 100, U::defaulted, 0,
       "not modelled without a measurement: 0 releases a CTA barrier the barrier latency after its last warp arrives, "
       "however many arrive together (measured 2.0 per warp on sm_90 only)"},
      {S::memory, "barrier_release_mio_cycles", "SM cycles of the MIO pipe a CTA barrier's release takes", 0, 100, U::defaulted, 0,
       "not modelled without a measurement: 0 lets a CTA barrier's release pass beside the SM's shared-memory accesses "
       "(3.0 on sm_90 only, from calibrate/shared_burst_probe.cu)"},
      {S::memory, "tlb_miss_penalty_cycles", "SM cycles", 0, 5000, U::reference},
      {S::memory, "const_l1_latency_cycles", "SM cycles", 5, 200, U::reference},
      {S::memory, "const_l15_latency_cycles", "SM cycles", 10, 500, U::reference},
      {S::memory, "const_pass_latency_cycles", "SM cycles each distinct word past a constant load's first adds to its result", 0, 500,
       U::defaulted, 0,
       "estimated: 0 takes the const_mem class's issue interval a word (measured 11.0 on sm_90 only, hits and misses alike: "
       "probe-const-index-h200)"},
      // An indexed constant load's word that misses the constant L1: the unit's cycles and the
      // result's delay a word (measured on sm_90); not modelled: which loads miss depends on the
      // order the warps' loads reach the unit, which the traces' interleaving does not give.
      {S::memory, "const_l15_pass_cycles", "SM cycles the constant unit takes a word that misses the constant L1", 1, 500, U::reference},
      {S::memory, "const_l15_pass_latency_cycles", "SM cycles a missing word past a load's first adds to its result", 1, 500, U::reference},
      {S::memory, "const_l2_latency_cycles", "SM cycles", 50, 1000, U::reference},
      {S::memory, "launch_interval_us", "us", 0, 50, U::reference},
      {S::memory, "launch_latency_us", "us", 0, 50, U::reference},
      {S::memory, "dram_max_utilization", "fraction", 0.1, 1, U::reference},
      {S::memory, "dram_saturated_latency_cycles", "SM cycles", 100, 20000, U::reference},
      {S::memory, "l1_bytes_per_cycle", "bytes per SM cycle", 8, 1024, U::reference},
      {S::memory, "shared_bytes_per_cycle", "bytes per SM cycle", 8, 1024, U::reference},
      {S::memory, "cta_turnaround_cycles", "SM cycles from a CTA's exit to the next CTA's start on an SM that holds one", 0, 10000,
       U::defaulted, 0,
       "not modelled without a measurement: 0 starts an SM's next CTA the moment its only resident one exits (measured 285 on sm_90 only)"},
      {S::memory, "l2_store_sector_rate_fraction", "of the L2 read rate in sectors", 0.05, 1, U::reference},
      {S::memory, "l2_read_line_rate_fraction", "of the L2 read rate in sectors", 0.05, 1, U::reference},
      {S::memory, "l2_write_rate_fraction", "of the L2 read rate in bytes", 0.05, 1, U::defaulted, 0,
       "not modelled without a measurement: 0 takes the stores at the L2 read rate after the reads and the DRAM fills as free "
       "(measured 0.63 on sm_90 only)"},
      {S::memory, "l2_dirty_retained_fraction", "of the L2's capacity", 0, 1, U::defaulted, 0,
       "not modelled without a measurement: 0 writes back during the kernel every sector it dirties (measured 0.41 on sm_90 only)"},
      {S::memory, "dram_random_sectors_per_ns", "sectors per ns", 0, 10000, U::defaulted, 0,
       "not modelled without a measurement: 0 bounds no gather by DRAM's access rate (measured 44.7 on sm_90 only)"},
      // Arch table: cache geometry.
      {S::cache, "sector_bytes", "bytes", 8, 256, U::defaulted, 32,
       "seed: F0 Table 3.1 gives 32-byte sectors for Pascal and Volta (sm_60.json, sm_70.json)"},
      {S::cache, "l2_fill_bytes", "bytes (32: a sector, or 64: its aligned pair)", 32, 64, U::defaulted, 32,
       "estimated: without a measurement an L2 miss brings only the sector missed, 32 B (measured 64 on sm_90 only)"},
      {S::cache, "l1_line_bytes", "bytes", 32, 512, U::reference},
      {S::cache, "l1_assoc", "ways", 1, 1024, U::required},
      {S::cache, "l2_line_bytes", "bytes", 32, 512, U::reference},
      {S::cache, "l2_assoc", "ways", 1, 128, U::required},
      {S::cache, "l2_usable_share", "of the nominal L2 capacity", 0.1, 1, U::defaulted, 1,
       "estimated: without a measurement the whole nominal L2 holds a scattered footprint (measured 0.72 on sm_90 only); read only for "
       "atomics beyond it (global_atomic_l2_miss_updates_per_ns)"},
      {S::cache, "l2_read_lookups_per_miss", "L2 read lookups per sector that misses (one that hits: 1)", 1, 4, U::defaulted, 1,
       "estimated: without a measurement the L2 looks up each sector once (measured 1.5 on sm_90 only, whose two L2 halves both look up half of the misses)"},
      {S::cache, "l1_shared_combined_kib", "KiB", 16, 1024, U::defaulted, 128,
       "seed: F0 Table 3.1, Volta's 128 KiB of unified L1 and shared memory per SM (sm_70.json)"},
      {S::cache, "shared_carveouts_kib", "KiB (a list)", 0, 1024, U::optional},  // check() requires the list itself
      {S::cache, "shared_banks", "banks", 8, 64, U::reference},
      {S::cache, "shared_bank_bytes", "bytes", 4, 8, U::reference},
      {S::cache, "register_banks", "banks", 1, 8, U::reference},
      {S::cache, "register_bank_bits", "bits", 32, 128, U::reference},
      {S::cache, "l1_tlb_coverage_mib", "MiB", 1, 1e6, U::reference},
      {S::cache, "l1_tlb_page_kib", "KiB", 4, 1e6, U::reference},
      {S::cache, "l2_tlb_coverage_mib", "MiB", 1, 1e7, U::reference},
      {S::cache, "l2_tlb_page_kib", "KiB", 4, 1e6, U::reference},
      {S::cache, "l3_tlb_coverage_mib", "MiB", 1, 1e7, U::reference},
      {S::cache, "l3_tlb_page_kib", "KiB", 4, 1e6, U::reference},
      {S::cache, "const_l1_kib", "KiB", 0.5, 1024, U::reference},
      {S::cache, "const_l1_line_bytes", "bytes", 16, 512, U::reference},
      {S::cache, "const_l1_assoc", "ways", 1, 64, U::reference},
      {S::cache, "const_l15_kib", "KiB", 1, 4096, U::reference},
      {S::cache, "const_l15_line_bytes", "bytes", 16, 1024, U::reference},
      // Arch table: occupancy limits.
      {S::occupancy, "max_warps_per_sm", "warps", 8, 128, U::required},
      {S::occupancy, "max_blocks_per_sm", "CTAs", 1, 64, U::required},
      {S::occupancy, "max_threads_per_sm", "threads", 256, 4096, U::reference},
      {S::occupancy, "max_threads_per_block", "threads", 256, 2048, U::reference},
      {S::occupancy, "registers_per_sm", "32-bit registers", 8192, 262144, U::required},
      {S::occupancy, "max_registers_per_thread", "registers", 63, 255, U::required},
      {S::occupancy, "register_alloc_unit", "registers", 64, 1024, U::required},
      {S::occupancy, "warp_alloc_granularity", "warps", 1, 8, U::reference},
      {S::occupancy, "shared_alloc_unit_bytes", "bytes", 32, 1024, U::required},
      {S::occupancy, "reserved_shared_per_block_bytes", "bytes", 0, 4096, U::required},
      {S::occupancy, "max_shared_per_sm_kib", "KiB", 16, 1024, U::required},
      {S::occupancy, "max_shared_per_block_kib", "KiB", 16, 1024, U::reference},
      {S::occupancy, "default_shared_per_block_kib", "KiB", 16, 1024, U::reference},
      {S::occupancy, "max_barriers_per_sm", "barriers", 1, 64, U::optional},  // absent: one per resident CTA
      // GPU catalog entry.
      {S::gpu, "sms", "SMs", 1, 1024, U::required},
      {S::gpu, "base_clock_mhz", "MHz", 100, 4000, U::required},
      {S::gpu, "boost_clock_mhz", "MHz", 100, 4000, U::required},
      {S::gpu, "dram_bandwidth_gbs", "GB/s", 10, 50000, U::required},
      {S::gpu, "dram_gib", "GiB", 0.5, 1024, U::required},
      {S::gpu, "l2_mib", "MiB", 0.25, 1024, U::required},
      {S::gpu, "dram_efficiency", "fraction of the peak", 0.2, 1.0, U::required},
      {S::gpu, "l2_bandwidth_gbs", "GB/s", 50, 100000, U::required},
      // Fitted on a measured corpus; absent: the arch table's launch_overhead_us, the largest
      // part instead of a p-norm, and the uncalibrated range. The interval keys are added by
      // tables_load.hpp from kIntervalModes x kIntervalTargets.
      {S::gpu, "launch_duration_us", "us", 0, 50, U::optional},
      {S::gpu, "launch_back_to_back_us", "us", 0, 50, U::optional},
      {S::gpu, "launch_period_back_to_back_us", "us", 0, 50, U::optional},
      {S::gpu, "overlap_exponent_simulation", "p of a p-norm", 1, 64, U::optional},
      {S::gpu, "overlap_exponent_bounds", "p of a p-norm", 1, 64, U::optional},
  };
  return schema;
}

// The entry of (section, key), or null for a key the schema does not know.
inline const ParamSpec* find_param(ParamSection section, const std::string& key) {
  for (const ParamSpec& p : param_schema())
    if (p.section == section && key == p.key) return &p;
  return nullptr;
}

}  // namespace gpuperf
