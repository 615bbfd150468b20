// What the model returns for one kernel on one GPU: numbers, enums and warning codes with
// their arguments. The text for people (bottleneck detail, warnings, hit-rate basis) is
// written by report/explain.hpp; the model never includes report/.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "gpuperf/arch/instr_desc.hpp"
#include "gpuperf/model/memory.hpp"
#include "gpuperf/model/occupancy.hpp"
#include "gpuperf/trace/ir.hpp"

namespace gpuperf {

enum class Mode : std::uint8_t { simulation, bounds };

// What is predicted: the kernel's own duration (what Nsight Compute reports, caches flushed) or
// the time per launch of back-to-back launches (what CUDA events around a loop report).
enum class Target : std::uint8_t { duration, back_to_back };

// What sets the kernel's time. The first five are a round's bounds; occupancy and tail refine
// latency; launch: the launch overhead exceeds the kernel body; imbalance: one warp's dependent
// path, when few warps run most of the work.
enum class Bottleneck : std::uint8_t { issue, functional_unit, latency, shared_memory, l1, l2, dram, atomics, occupancy, tail, launch, imbalance, cta_dispatch };

// What bounds the roofline's attainable rate.
enum class RooflineBound : std::uint8_t { no_flops, dram, compute };

enum class WarningCode : std::uint8_t {
  input,              // a reader's warning: {text}
  other_arch_sass,    // {sm_version, arch, gpu}
  unsupported_class,  // {opcode, class, arch}
  unknown_opcodes,    // {count, comma-separated opcodes}
  registers_assumed,  // {}
  hit_rates_assumed,  // {}
  counts_only_input,  // simulation requested on counts: {}
  ctas_replayed,      // {traced CTAs, resident CTAs}
  atypical_ctas,      // a sampled trace's CTAs unlike the others (CtaSample): {atypical CTAs, traced CTAs, heaviest / median work or empty}
  uneven_ctas,        // a sampled trace's CTAs without a majority near the median: {traced CTAs, heaviest / median work}
  truncated_trace,    // the tracer stopped early: {instructions, basis (detail::TruncationBasis), cut warps, recorded warps}
  drawn_regions,      // a sample's loads drawn from one region, their grid first touches bounded by it: {PCs, MB}
  stored_by_untraced, // a sample's loads' first touches of sectors CTAs left out store earlier: {first touches, load first touches}
  grid_rows_sampled,  // a sample in one row of a grid of several: loads' first touches scaled by their addresses' CTA-index dimensions: {PCs}
  counted_scale_up,   // per-CTA counts give the grid's CTAs more work than the traced ones: {grid's mean / traced mean, one decimal; "loops known" or ""}
  no_control_bits,    // no listing with encodings joined: compiler stall counts and barriers unknown: {}
  busiest_sm_share,   // counts: the profile's busiest sub-partition ran more than an even placement gives: {busiest SM's work / average's, one decimal}
  copy_sources_unknown,  // asynchronous copies traced with their shared destinations, not their global sources: {executions, PCs}
  bulk_traffic_missing,  // bulk tensor copies whose traffic the model lacks: {executions of TMA stores without a box, of traced TMA loads without a box, of TMA reductions}
};

struct Warning {
  WarningCode code = WarningCode::input;
  std::vector<std::string> args;
  bool operator==(const Warning& o) const { return code == o.code && args == o.args; }
};

// Cycles lost by an instruction before it issued, by cause.
struct StallBreakdown {
  double dependency = 0;  // waiting for a register (ALU latency)
  double memory = 0;      // waiting for a memory result
  double pipe = 0;        // functional unit busy (issue interval)
  double mio = 0;         // shared memory / L1 wavefront queue
  double barrier = 0;     // CTA barrier
  double not_selected = 0;// sub-partition issuing another warp
  double control = 0;     // compiler stall counts beyond the dependency (joined listing)
  double total() const { return dependency + memory + pipe + mio + barrier + not_selected + control; }
  StallBreakdown scaled(double f) const {
    StallBreakdown r = *this;
    for (double* v : {&r.dependency, &r.memory, &r.pipe, &r.mio, &r.barrier, &r.not_selected, &r.control}) *v *= f;
    return r;
  }
  StallBreakdown& operator+=(const StallBreakdown& o) {
    dependency += o.dependency; memory += o.memory; pipe += o.pipe; mio += o.mio; barrier += o.barrier; not_selected += o.not_selected; control += o.control;
    return *this;
  }
  std::map<std::string, double> as_map() const {
    return {{"dependency", dependency}, {"memory", memory}, {"pipe", pipe}, {"mio", mio}, {"barrier", barrier}, {"not_selected", not_selected}, {"control", control}};
  }
};

struct PerPcRow {
  std::uint64_t pc = 0;
  std::string text;           // disassembly or opcode
  std::string op_class;
  double warp_executions = 0; // over the whole grid
  double latency = 0;         // cycles (memory: modelled average)
  double issue_interval = 0;
  StallBreakdown stalls;      // per execution, averaged
  double stall_cycles_total = 0;  // stalls x executions, summed over the grid
  bool unknown_opcode = false;
  std::string source_file;    // the CUDA source line, where the input has line info (0: unknown;
  std::uint32_t source_line = 0;  // Accel-Sim traces give the line alone); filled by identify()
};

// Lower bounds on the kernel's time, each in cycles; the largest is the bottleneck.
struct Bounds {
  double issue = 0, functional_unit = 0, latency = 0, shared_memory = 0, l1 = 0, l2 = 0, dram = 0;
  double l2_writes = 0;      // the part of l2 that the line-writes take (stores, and DRAM fills where measured)
  double atomics = 0;        // L2 atomic units: same-word updates serialize (measured rate curves), after the loads they follow in a round
  double atomics_behind_loads = 0;  // the part of atomics that waits for the loads before them (add_memory_bounds)
  double busiest_warp = 0;   // kernel: the busiest warp's dependent path (work imbalance), not per round
  double sm_rounds = 0;      // kernel: the busiest SM's rounds of CTAs (simulated or bounded, floored), not per round
  // kernel: the DRAM and L2 transfers phase by phase (bound::memory_phases; 0 without addresses)
  double memory_phases = 0;
  double sm_and_memory = 0;  // kernel: sm_rounds with the SM's throughput and the memory transfer as they overlap (bound::sm_and_memory)
  // kernel: the grid's CTAs started at the GPU's measured dispatch rate, the last one then
  // running its own dependent path (0: no measured rate), not per round
  double cta_dispatch = 0;
  double cta_dispatch_last_run = 0;  // the part of cta_dispatch that the last CTA's own run takes
  double cta_dispatch_start() const { return cta_dispatch - cta_dispatch_last_run; }  // the part that starts the CTAs
  std::string busiest_unit;  // class of the functional-unit bound
  std::map<std::string, double> as_map() const {
    return {{"issue", issue}, {"functional_unit", functional_unit}, {"latency", latency}, {"shared_memory", shared_memory},
            {"l1", l1}, {"l2", l2}, {"l2_writes", l2_writes}, {"dram", dram}, {"memory_phases", memory_phases}, {"atomics", atomics}, {"atomics_behind_loads", atomics_behind_loads}, {"busiest_warp", busiest_warp}, {"sm_rounds", sm_rounds},
            {"sm_and_memory", sm_and_memory}, {"cta_dispatch", cta_dispatch}, {"cta_dispatch_last_run", cta_dispatch_last_run}};
  }
};

struct Roofline {
  double flops_fp16 = 0, flops_fp32 = 0, flops_fp64 = 0, flops_tensor = 0;
  double bytes_l1 = 0, bytes_l2 = 0, bytes_dram = 0;
  double ai_l1 = 0, ai_l2 = 0, ai_dram = 0;   // FLOP per byte
  double peak_gflops = 0;                     // of the dominant precision
  double dram_gbs = 0, l2_gbs = 0;
  double attainable_gflops = 0;
  double achieved_gflops = 0;                 // predicted FLOPs / predicted time
  RooflineBound bound = RooflineBound::no_flops;
  Precision precision = Precision::none;      // dominant precision
  double total_flops() const { return flops_fp16 + flops_fp32 + flops_fp64 + flops_tensor; }
};

struct MemoryStats {
  double global_load_requests = 0, global_store_requests = 0, atomic_requests = 0;
  double global_load_sectors = 0, global_store_sectors = 0;
  double global_store_lines = 0;  // lines the store requests touch: L2 takes stores one line-write at a time
  // Stores that write their sectors only in part: their sectors and lines (byte-masked writes to L2).
  double global_store_partial_sectors = 0, global_store_partial_lines = 0;
  double shared_requests = 0, shared_wavefronts = 0;
  double l1_hit_rate = 0, l2_hit_rate = 0;
  bool hit_rates_assumed = false;            // no addresses in the input
  std::string rates_profiled_on;             // counts-only input: hit rates from this GPU's profile counters
  double profiled_l2_ratio = 1;              // target L2 / profiled L2 the rates were carried over by
  double dram_read_bytes = 0, dram_write_bytes = 0, l2_bytes = 0;
  // Of the DRAM reads, the sectors the grid's gathers touch first (traced loads of one sector a
  // line), less those a 64 B fill brought with a neighbour: each a DRAM access of its own, which
  // DRAM takes at its random-access rate (bound::dram_random_accesses).
  double dram_gathered_sectors = 0;
  double atomic_l2_miss_share = 0;           // global atomics' updates whose line the L2 no longer holds
  bool atomic_l2_miss_profiled = false;      // that share is from a profile's atomic L2 misses, not from traced lines
  double avg_load_latency = 0;               // cycles
  // Shares of the DRAM and L2 sectors, and of the global atomics' sectors, in each phase of the
  // warps' streams (PcStats::phase_first); all 0 without addresses.
  double dram_phase_share[kTrafficPhases] = {0}, l2_phase_share[kTrafficPhases] = {0};
  double atomic_phase_share[kTrafficPhases] = {0};
};

struct KernelReport {
  std::string name;
  std::uint32_t launch_id = 0;        // 1-based position in the input (what --kernel N selects)
  // The launch's id as its input records it (a trace header's kernel id, an Nsight Compute ID + 1;
  // 0: none). It differs from launch_id where the input leaves launches out, as a kernels list
  // missing a trace the tracer never wrote.
  std::uint32_t input_launch_id = 0;
  SourceFormat input_format = SourceFormat::unknown;
  std::string gpu, arch;
  Mode mode = Mode::bounds;
  double sm_clock_mhz = 0;
  double time_us = 0;           // predicted, launch overhead included
  double cycles = 0;            // SM cycles of the kernel body
  double launch_overhead_us = 0;
  Target target = Target::duration;
  double time_low_us = 0, time_high_us = 0;  // uncertainty range
  bool interval_calibrated = false;          // the range is the calibrated interval (model/interval.hpp)
  bool time_is_lower_bound = false;          // the input holds only part of the work (a cut trace): time_high_us is infinite
  Bottleneck bottleneck = Bottleneck::latency;
  Bottleneck under_launch = Bottleneck::latency;  // what launch hides (bottleneck == launch)
  bool grid_underfills = false;                   // latency-bound with fewer CTAs than SMs
  int sms = 0;                                    // of the GPU predicted on
  double atomic_updates = 0, atomic_words = 0, atomic_lines = 0;  // of the atomics bound (grid-scaled)
  double atomic_busiest_slice_ops = 0;                            // counts-only inputs: the profile's busiest L2 slice
  Bounds bounds;
  Occupancy occupancy;
  double grid_ctas = 0, ctas_per_sm = 0, waves = 0, tail_ctas = 0;
  double simulated_ctas = 0;
  double warp_instructions = 0, thread_instructions = 0;
  double ipc = 0;               // warp instructions per SM cycle, per active SM
  MemoryStats memory;
  Roofline roofline;
  StallBreakdown stalls;        // summed over the grid
  std::vector<PerPcRow> per_pc;
  std::map<std::string, std::uint64_t> unknown_opcodes;  // opcode -> static count
  std::vector<Warning> warnings;
  std::optional<double> measured_time_us;  // attached by views for comparison; never a model input
  std::string measured_on;                 // the device a measurement was taken on, when it is not this GPU
};

}  // namespace gpuperf
