// The GPU-independent analysis of a kernel (see analysis.hpp): per-PC statistics, the atomics'
// address distribution, program order and loops, and the CTAs a simulation replays.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <vector>

#include "gpuperf/model/memory.hpp"
#include "gpuperf/model/assumptions.hpp"
#include "gpuperf/trace/ir.hpp"

namespace gpuperf {

// Global loads whose lanes share L1 data-bank passes across lines (fewer passes than lines),
// by shape: their requests, scaled to the grid. A PC's other requests take a pass a line.
// Traced shapes count whole lines and passes; a count-only input's gathered loads take the
// expected ones (gathered_bank_passes).
struct LoadShape {
  double lines = 0, passes = 0;
  double requests = 0;
};

struct PcStats {
  // Grid executions per traced execution of this PC: KernelAnalysis::scale, or, where a sampled
  // trace's CTAs are not alike (CtaSample), the weighted count of its traced CTAs over theirs.
  double grid_scale = 1;
  double warp_exec = 0;         // scaled to the full grid
  double thread_exec = 0;
  // The share of its thread executions with the predicate on (`@P0 BAR.SYNC` beside `@!P0 NOP`
  // is a barrier only where P0 holds); 1 where the input has no predicated-on counts.
  double pred_on_share = 1;
  double requests = 0;          // memory requests (= warp executions of a memory op with active lanes)
  double sectors = 0;           // global: 32 B sectors requested
  double lines = 0;
  double wavefronts = 0;        // shared: bank passes; global: L1 wavefronts (lines)
  // An indexed constant load's passes of the SM's constant unit per execution: the distinct
  // words its active lanes read, where the trace gives them (1 without: a broadcast).
  double constant_passes = 1;
  std::vector<LoadShape> bank_shared_loads;  // global loads with addresses (memory_rates prices them per GPU)
  // Stores that write their sectors only in part (byte-masked writes to L2): their sectors and lines.
  double partial_store_sectors = 0, partial_store_lines = 0;
  double partly_written_sectors = 0;  // of those sectors, the ones written in part (each costs L1 a wavefront more)
  // Reuse profiles (global memory ops with addresses only).
  std::uint64_t l1_hist[ReuseProfiler::kBuckets] = {0};
  // The part of l1_hist whose previous access to the sector came from another warp of the CTA.
  std::uint64_t l1_sibling_hist[ReuseProfiler::kBuckets] = {0};
  // Of the L1 first touches (l1_cold), loads of sectors every CTA reads (AddressProfiler), by
  // reuse distance per CTA since another CTA's access: L1 hits where the SM still holds them.
  std::uint64_t l1_shared_hist[ReuseProfiler::kBuckets] = {0};
  // The L2 profile's first touches and reuses by where in its warp's stream they fall (phase p:
  // the p-th of kTrafficPhases equal parts of the warp's instructions): when the kernel's DRAM
  // and L2 traffic happen.
  double phase_first[kTrafficPhases] = {0}, phase_reuse[kTrafficPhases] = {0};
  std::uint64_t l2_hist[ReuseProfiler::kBuckets] = {0};
  // The part of l2_hist whose previous access to the sector came from another CTA: data CTAs
  // share, which the grid's other CTAs reuse too (window_l2_bytes holds for a CTA's own reuses).
  std::uint64_t l2_cross_cta_hist[ReuseProfiler::kBuckets] = {0};
  std::uint64_t l1_cold = 0, l2_cold = 0;
  // Loads, per request: the longest reuse distance among its sectors, or a first touch among
  // them (the request's *_cold), in the L1 and L2 profiles. A warp's load waits for its last
  // sector: a request hits only where all of its sectors do.
  std::uint64_t l1_request_hist[ReuseProfiler::kBuckets] = {0}, l2_request_hist[ReuseProfiler::kBuckets] = {0};
  std::uint64_t l1_request_cold = 0, l2_request_cold = 0;
  // Loads' requests with a first touch in the L2 profile (l2_request_cold), by how many distinct
  // lines hold their first touches (1..kMaxColdLines, more counted as the last): in the grid
  // each such line may be found where another CTA fetched it, and the request waits unless all are.
  static constexpr std::size_t kMaxColdLines = 32;
  std::uint64_t l2_request_cold_lines[kMaxColdLines + 1] = {0};
  // Loads' first touches (counted in l2_cold) whose neighbour in the sector's aligned 64 B pair
  // an earlier request had brought into L2 (a load, not a store), by the neighbour's reuse
  // distance, in requests with no other first touch: where L2 fills 64 B on a miss, these
  // requests find all they lack there.
  std::uint64_t l2_pair_fill_hist[ReuseProfiler::kBuckets] = {0};
  // Loads' first touches (counted in l2_cold) of sectors that a CTA the trace has not shown
  // so far stores at an earlier point of its stream (model/grid_stores.hpp), by how many CTAs
  // after the reader the writer comes (writer_bucket): found in L2 where the writer runs
  // beside the reader.
  std::uint64_t l2_cold_written_later[kWriterBuckets] = {0};
  std::uint64_t l2_first_writes = 0;  // stores: sectors this PC is the first in the kernel to write (each is written back once)
  // The L2 profile's first touches made by the first half of the traced CTAs (the profiler's
  // count), and from the two halves the sectors a further CTA first-touches, as a share of the
  // traced CTAs' mean (1: each CTA touches its own; 0: all share them): what the grid's other
  // CTAs share.
  std::uint64_t l2_cold_first_half = 0;
  double l2_cold_marginal = 1;
  // Loads of a sampled trace whose traced CTAs all lie in one row (or plane) of a grid of several:
  // the grid's first touches of the PC over the sample's, from the CTA-index dimensions its
  // address is computed from (cta_index_classes); 0 where unknown (l2_cold_marginal applies).
  double l2_cold_grid_factor = 0;
  // Loads drawn from one region (AddressProfiler): the PC's part of the region's sectors, which
  // bounds the grid's first touches of the PC (0: not bounded).
  double l2_cold_extent_sectors = 0;
  // Bulk tensor copies: the sectors of the tensors the PC's boxes come from, which bound the
  // grid's first touches of the PC however the sample's growth extrapolates (0: not bounded).
  double l2_cold_tensor_sectors = 0;
  bool has_profile = false;
  // Accesses the L1 reuse profiles saw at this PC (first touches and reuses).
  double l1_profiled() const {
    double n = static_cast<double>(l1_cold);
    for (auto h : l1_hist) n += static_cast<double>(h);
    return n;
  }
  // Accesses the L2 reuse profile saw at this PC (first touches and reuses).
  double l2_profiled() const {
    double n = static_cast<double>(l2_cold);
    for (auto h : l2_hist) n += static_cast<double>(h);
    return n;
  }
  bool in_loop = false;         // inside a backward-branch region
  int load_group = -1;          // loads sharing an address base (count-only inputs)
  double sector_issue_group = 1;  // loads of one sector a warp issues together, this one among them (count-only inputs)
  // Count-only inputs: the load reads a sector its warp's earlier load (same base register,
  // within 32 bytes) brought in, after the warp waited for that load's result: an L1 hit.
  bool own_sector_after_use = false;
  // Count-only inputs: the address is the same for every thread of the CTA (derived from no
  // thread index and no loaded value), so the CTA's warps read the same sectors.
  bool cta_uniform_address = false;
  // Count-only inputs: the address's lanes differ by loaded data (a gather: `x[col[j]]`, a
  // CSR row's `val[j]` from `row_ptr[i]`), not by an affine function of the thread index.
  bool gathered_address = false;
  // Count-only inputs: not gathered, and the address advances less than a line per iteration
  // of the load's innermost loop (LoopStrides): each lane walks its own line.
  bool walks_own_line = false;
  // Count-only inputs: the address comes from a kernel parameter's pointer that the address of
  // a store earlier in program order comes from too (not through loaded data): the load reads a
  // buffer the kernel wrote, whose lines the L2 holds. The sectors those stores write (0: none).
  double kernel_stored_sectors = 0;
  double group_footprint_sectors = 0;
};

// A global request of count-only inputs whose lanes touch lines apart: more than one line, and
// about a sector of each (assume::lanes_apart_sectors_per_line), as a thread per row or a
// gather reads.
inline bool lanes_apart(const PcStats& p) {
  return p.requests > 0 && p.warp_exec > 0 && p.lines > p.requests * 1.001 && p.sectors <= assume::lanes_apart_sectors_per_line * p.lines;
}

// Global atomics' address distribution (dynamic traces with addresses): what the L2's atomic
// units serialize on. An op is one pass over one 32 B sector: lanes of a request on distinct
// words of a sector share a pass, lanes on the same word take one pass each.
struct AtomicProfile {
  double ops_int = 0, ops_float = 0;  // L2 atomic ops, scaled to the grid
  double updates = 0;                 // lane updates, scaled to the grid
  double hot_updates = 0;             // updates of the most-updated word, scaled to the grid
  double effective_words = 0;         // participation ratio (sum c)^2 / sum c^2, for the grid
  double effective_lines = 0;         // the same over 128 B lines, of their passes: what spreads the ops over the L2's slices
  double footprint_lines = 0;         // distinct 128 B lines the grid's updates occupy (traced inputs; 0: unknown)
  double busiest_slice_ops = 0;       // counts-only inputs: the profile's ops on its busiest L2 slice (no addresses)
  double float_share = 0;             // counts-only inputs: float atomics' share of the global atomic executions
  double profiled_ops = 0;            // counts-only inputs: L2 atomic ops, the lesser of the lanes' updates and the profile's sectors
  bool present() const { return ops_int + ops_float + busiest_slice_ops > 0; }
};

// The CTAs of a sampled trace and what each stands for (model/sampled_ctas.hpp). A tracer
// records a launch's first CTAs (or every K-th); some may do work that no other CTA does (CTA
// 0 holding a BFS source node, a block that also runs a serial pass). The traced CTAs near the
// median's work are typical: each stands for `typical_weight` of the grid's CTAs, and full
// rounds replay them. The others are counted once; the heaviest of them, where heavier than
// the typical ones, runs in one round of the busiest SM. Where the traced CTAs have no majority
// near the median, none is set apart (typical is empty), but the heaviest, where outside the
// band, still runs in one round of the busiest SM.
struct CtaSample {
  std::vector<double> work;            // warp instructions of each traced CTA, in KernelAnalysis::ctas order
  std::vector<std::uint32_t> typical;  // indices into KernelAnalysis::ctas; empty: every CTA stands for the grid alike
  int busiest = -1;                    // index of the CTA one round of the busiest SM holds, or -1
  double typical_weight = 1;           // grid CTAs per typical traced CTA
  // With the grid's per-CTA counts (Kernel::cta_work): `work` is each traced CTA's counted work,
  // `recorded` what its trace holds (less where the tracer stopped early), and `replayed` the
  // recorded work a simulated round's CTA averages (model/sampled_ctas.hpp: cta_balance).
  bool counted = false;
  std::vector<double> recorded;
  std::vector<std::uint64_t> linear_ids;  // each traced CTA's linear id in the grid
  double replayed = 0;
  bool whole_grid = false;  // the trace holds every CTA of the launch: nothing is extrapolated
  bool weighted() const { return !typical.empty(); }
};

struct KernelAnalysis {
  std::shared_ptr<const Kernel> kernel;
  std::vector<PcStats> pcs;                 // parallel to kernel->program
  std::vector<std::uint32_t> order;         // program indices sorted by PC
  std::vector<int> loop_head_of;            // for a backward branch at order index i: order index of its target, else -1
  // Every loop is known (PcStats::in_loop): a listing gave each branch's target and no call or
  // indirect jump hides one (program_order_and_loops)
  bool loops_known = false;
  double scale = 1;                         // grid CTAs / traced CTAs
  double atomic_scale = 1;                  // grid atomics per traced atomic (scale, or the CTA-weighted ratio)
  CtaSample sample;                         // dynamic traces: which traced CTAs stand for the grid
  double total_warps = 0;                   // warps in the full grid
  bool has_addresses = false;
  bool dynamic = false;
  std::vector<std::uint8_t> dyn_wavefronts; // per dynamic instruction (simulation MIO cost)
  // per dynamic instruction: a global load's L1 bank passes where fewer than its lines (0
  // elsewhere); empty when there are none
  std::vector<std::uint8_t> dyn_bank_passes;
  // per dynamic instruction: the sectors a store writes in part (0 for any other); empty when there are none
  std::vector<std::uint8_t> dyn_partial_sectors;
  AtomicProfile atomics;
  // CTAs of the first address-profile window: consecutive CTAs whose shared sectors
  // PcStats::l1_shared_hist holds (0: none profiled)
  std::size_t profile_window_ctas = 0;
  // l1_shared_hist's CTAs over those it counts: a one-window profile leaves out the window's
  // first CTA to touch each sector, which in the grid stands for CTAs that find it like the rest
  double l1_shared_scale = 1;
  // CTAs available for simulation: each a list of warp indices into kernel->warps.
  std::vector<std::vector<std::uint32_t>> ctas;
  // The program index of the first executed constant load whose address takes a register
  // (sass::constant_index_in_register), where there is one: beside it every global load also
  // takes the SM's constant unit for `const_unit_global_load_cycles` (indexed_constant_loads).
  std::optional<std::size_t> indexed_constant_load;
};

}  // namespace gpuperf
