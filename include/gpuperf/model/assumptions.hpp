// Modelling constants that are not machine parameters, each named with where it comes from.
// None is measured per GPU: a constant that becomes measurable moves into latency_tables/
// with its provenance. "Estimated" means chosen by the model's authors without a measurement.
#pragma once

namespace gpuperf::assume {

// --- Memory model
// Bytes of an L1/L2 sector on every supported architecture (CUDA C++ Best Practices Guide,
// "Coalesced Access to Global Memory": 32-byte segments). Traffic totals count in sectors.
inline constexpr double sector_bytes = 32.0;
// Sectors of a 128-byte L1/L2 line (same guide: a warp's request is served in lines of four
// 32-byte sectors).
inline constexpr double sectors_per_line = 4.0;
// Bytes one shared-memory wavefront moves: 32 banks of 4 bytes (CUDA C++ Programming Guide,
// "Shared Memory"). The roofline's L1 bytes count shared wavefronts at this size.
inline constexpr double shared_wavefront_bytes = 128.0;
// Wavefronts of the SM's L1/shared data pipe that a shared-memory instruction takes when every
// lane is predicated off (a trace records it with an empty mask and no addresses). Measured
// with Nsight Compute on the H100 (train split): l1tex__data_pipe_lsu_wavefronts_mem_shared
// exceeds memory_l1_wavefronts_shared by 1.1-1.5 per such execution in HeCBench scan-blocks and
// Rodinia backprop, srad_v1 reduce, lud_perimeter and dwt2d; the count path's wavefronts
// (executions x conflict ways) include them already.
inline constexpr unsigned lanes_off_shared_wavefronts = 1;
// Count-only inputs: the most sectors a line a request's lines average where its lanes count as
// a line apart (lanes_apart: a thread per row, a gather). Estimated: one sector a line is a lane
// a line; the margin lets a few lanes share lines.
inline constexpr double lanes_apart_sectors_per_line = 1.25;
// Bytes a load's address may advance per iteration of its loop for its lanes to walk their own
// lines: by definition a 128 B line (sectors_per_line x sector_bytes, from the same guide).
inline constexpr double own_line_stride_bytes = 128.0;
// L1 data banks of 4 B that a global load's lanes fall on (a traced load's by its addresses,
// a gathered one's at random) (CUDA C++ Programming Guide, "Shared Memory": 32 banks; the L1
// data array shares them, calibrate/l1_slot_probe.cu).
inline constexpr unsigned l1_data_banks = 32;
// Highest L1 hit rate assumed for a load that shares its base register with others when the
// input has no addresses. Estimated: keeps a first touch of every line.
inline constexpr double max_assumed_l1_hit = 0.95;

// --- Static stalls (joined listings)
// Cycles until a read barrier (sources read) is released. Estimated, not measured.
inline constexpr double read_barrier_cycles = 8.0;
// Instructions the backward walks look at: for a barrier's producer, for a register's writer.
// Bounds the work per instruction; not a hardware quantity.
inline constexpr int barrier_walk_limit = 256;
inline constexpr int register_walk_limit = 64;

// --- Simulation
// CTA barrier latency when an architecture's table has no 'barrier' class (every shipped
// table has one). Estimated.
inline constexpr double default_barrier_cycles = 20.0;

// --- Sampled traces
// A traced CTA whose warp instructions are within this factor of the median traced CTA's is
// typical: it stands for the untraced CTAs, and full rounds replay it. Estimated, not fitted:
// wide enough for a grid's ordinary spread (tail lanes, data-dependent trips of a few percent),
// narrow enough to set apart a CTA that also runs a serial pass or holds a graph's frontier.
inline constexpr double typical_cta_band = 1.25;

// --- Report only (no effect on the predicted time)
// A latency-bound kernel below this occupancy is reported as occupancy-bound. Estimated.
inline constexpr double low_occupancy = 0.5;
// A tail round longer than this share of the SM's time is reported as the bottleneck. Estimated.
inline constexpr double tail_share = 0.3;
// Low end of the range when hit rates are assumed: the SM's time when every access hits may be
// this much shorter. Estimated.
inline constexpr double all_hit_sm_factor = 0.8;
// Range of a prediction from sampled or representative CTAs: -15 % / +15 %. Estimated.
inline constexpr double sampled_low = 0.85, sampled_high = 1.15;

}  // namespace gpuperf::assume
