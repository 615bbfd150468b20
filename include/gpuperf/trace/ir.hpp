// The one in-memory representation every reader produces.
// A Kernel holds (a) a static program: one entry per PC with the tokenised instruction,
// per-PC execution counts and memory statistics, and optional compiler control bits; and
// (b) optionally, per-warp dynamic instruction streams with active masks and per-lane
// addresses. Count-only sources (Nsight Compute) fill (a) alone.
// Measured quantities (time, cycles, stall samples, hit rates) live in Measurement, which is
// kept beside the kernel, never inside it, so the model cannot read them.
#pragma once

#include <array>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "gpuperf/sass/control_bits.hpp"
#include "gpuperf/sass/memory_ops.hpp"
#include "gpuperf/trace/address_pool.hpp"

namespace gpuperf {

struct Dim3 {
  std::uint32_t x = 1, y = 1, z = 1;
  std::uint64_t count() const { return std::uint64_t(x) * y * z; }
  bool operator==(const Dim3& o) const { return x == o.x && y == o.y && z == o.z; }
};

enum class SourceFormat { accelsim_trace, accelsim_traceg, pptgpu, ncu_csv, sass_listing, unknown };

inline const char* to_string(SourceFormat f) {
  switch (f) {
    case SourceFormat::accelsim_trace: return "accelsim-trace";
    case SourceFormat::accelsim_traceg: return "accelsim-traceg";
    case SourceFormat::pptgpu: return "pptgpu";
    case SourceFormat::ncu_csv: return "ncu-csv";
    case SourceFormat::sass_listing: return "sass-listing";
    default: return "unknown";
  }
}

struct LaunchConfig {
  std::string name;             // mangled or demangled kernel name as the source gives it
  std::uint32_t id = 0;         // launch index within the application (1-based where known)
  Dim3 grid, block;
  std::uint32_t registers_per_thread = 0;   // 0 = unknown
  std::uint32_t static_shared_bytes = 0;
  std::uint32_t dynamic_shared_bytes = 0;
  std::uint32_t sm_version = 0;             // 90 for sm_90; 0 = unknown
  std::uint64_t cuda_stream = 0;  // a stream id or a CUstream handle value
  std::uint32_t warps_per_cta() const { return static_cast<std::uint32_t>((block.count() + 31) / 32); }
};

// One static instruction of the kernel, keyed by PC.
struct StaticInstr {
  std::uint64_t pc = 0;
  std::string text;                 // disassembly as the source printed it (may be empty)
  std::string opcode;               // "LDG.E.128"
  std::vector<std::uint16_t> dst, src, mem_base;
  std::int64_t mem_offset = 0;
  bool predicated = false;
  std::optional<std::uint64_t> branch_target;  // static target PC if known
  sass::ControlBits control;        // valid only when joined with a SASS listing
  // The CUDA source line the compiler attributes the instruction to, where the input carries
  // line info (-lineinfo listings, Accel-Sim traces with lineinfo): 0 = unknown. The file is
  // empty where the input gives the line alone (Accel-Sim traces).
  std::string source_file;
  std::uint32_t source_line = 0;

  // Work description (counts, never timings).
  std::uint64_t warp_executed = 0;        // dynamic warp-level executions
  std::uint64_t thread_executed = 0;      // active threads summed over executions
  std::uint64_t pred_on_thread_executed = 0;
  MemSpace space = MemSpace::none;
  MemOp mem_op = MemOp::none;
  std::uint32_t access_bits = 0;          // per-thread access size in bits
  // A bulk tensor copy (UTMALDG, UTMASTG, UTMAREDG) whose trace lines give its box (address
  // mode 3): each dynamic instance's "lane addresses" are the box, kBulkBoxWords of them
  // (for_each_box_sector). A store's box is a global store's sectors; a reduction's has no space.
  bool bulk_box = false;
  // An asynchronous copy (LDGSTS) whose trace lines hold its shared destinations where its
  // global sources belong (gpuperf's tracer before 2026-11-29 recorded the first memory
  // reference): the reader keeps no addresses for it and the model assumes its traffic.
  bool copy_sources_unknown = false;
  std::uint64_t global_sectors = 0;       // 32 B sectors requested (L2 theoretical sectors)
  std::uint64_t global_sectors_ideal = 0;
  std::uint64_t l1_tag_requests = 0;
  std::uint64_t shared_wavefronts = 0;    // shared-memory wavefronts (conflict ways x requests)
  bool counts_known = false;
};

// A bulk copy's box as its dynamic instance stores it in the address pool: the first row's
// address, the bytes of a row, four (rows, byte stride) pairs over the dims above the first, then
// the tensor's first address and span in bytes (what any copy of it can read).
constexpr unsigned kBulkBoxWords = 12;
// Where each part of a box is among its words.
enum BulkBoxWord : unsigned { kBoxFirstRow = 0, kBoxRowBytes = 1, kBoxDims = 2, kBoxTensorFirst = 10, kBoxTensorBytes = 11 };
// Calls f(sector) for each 32 B sector of the box, row by row; returns the rows.
template <class F>
inline std::uint64_t for_each_box_sector(const std::uint64_t* box, F&& f) {
  const std::uint64_t base = box[kBoxFirstRow], row = box[kBoxRowBytes];
  const std::uint64_t* d = box + kBoxDims;  // four (rows, stride) pairs
  std::uint64_t rows = 0;
  if (row == 0) return 0;
  for (std::uint64_t a = 0; a < d[0]; ++a)
    for (std::uint64_t b = 0; b < d[2]; ++b)
      for (std::uint64_t c = 0; c < d[4]; ++c)
        for (std::uint64_t e = 0; e < d[6]; ++e) {
          const std::uint64_t at = base + a * d[1] + b * d[3] + c * d[5] + e * d[7];
          for (std::uint64_t s = at / 32; s <= (at + row - 1) / 32; ++s) f(s);
          ++rows;
        }
  return rows;
}

// One dynamic warp instruction. Addresses live in the kernel's pool.
struct DynInstr {
  std::uint32_t static_index;  // index into Kernel::program
  std::uint32_t active_mask;
  std::uint32_t addr_at_low = 0;  // offset of the lane addresses in Kernel::addresses: low 32 bits,
  std::uint8_t addr_count = 0;    // number of lane addresses (active lanes of a memory op)
  std::uint8_t mem_width = 0;     // bytes per lane
  std::uint16_t addr_at_high = 0;  // and the 16 above them (in padding the struct had anyway)
  std::uint64_t addr_at() const { return addr_at_low | std::uint64_t(addr_at_high) << 32; }
  void set_addr_at(std::uint64_t at) {
    addr_at_low = static_cast<std::uint32_t>(at);
    addr_at_high = static_cast<std::uint16_t>(at >> 32);
  }
};
static_assert(sizeof(DynInstr) == 16, "a trace holds millions of DynInstr");

// The lane addresses of one dynamic instruction, decoded from the kernel's pool.
struct LaneAddresses {
  std::uint64_t v[64];
  unsigned n = 0;
  std::uint64_t operator[](unsigned i) const { return v[i]; }
  const std::uint64_t* begin() const { return v; }
  const std::uint64_t* end() const { return v + n; }
  unsigned size() const { return n; }
};

// Warp instructions of `ctas` CTAs in a row of a grid, each running `warp_instructions`: the
// grid's work per CTA in linear order (x fastest) as run lengths (trace/cta_work.hpp).
struct CtaWorkRun {
  std::uint64_t warp_instructions = 0;
  std::uint64_t ctas = 0;
  bool operator==(const CtaWorkRun& o) const { return warp_instructions == o.warp_instructions && ctas == o.ctas; }
};

struct WarpStream {
  Dim3 cta;                 // CTA index
  std::uint32_t warp_in_cta = 0;
  std::uint64_t begin = 0, end = 0;  // range in Kernel::dyn
};

// The memory traffic a profiler counted for the launch on some GPU: a description of the
// kernel's memory behaviour (like its instruction counts), never a time. Counts-only inputs
// have no addresses to derive cache reuse from; these counters carry it, for the profiled
// GPU's cache sizes. Sectors are 32 B.
struct ProfiledTraffic {
  bool present = false;
  std::string gpu;                          // the profiled device's name
  double l2_bytes = 0;                      // its L2 capacity
  double l1_load_sectors = 0, l1_load_hit_sectors = 0;   // global loads at L1
  double l1_store_sectors = 0;
  double l2_read_sectors = 0, l2_read_hit_sectors = 0;
  double l2_write_sectors = 0, l2_atomic_sectors = 0;    // atomics and reductions
  // Atomic and reduction ops of the L2 slice that took the most (ncu's per-slice maximum; 0
  // where the profile lacks the columns). Ncu's sum over slices counts an op once more where a
  // second slice forwards it (a one-word reduction: 24592 summed, 16384 on its slice), so the
  // busiest slice, not the sum, is what an atomic unit served.
  double l2_atomic_ops_busiest_slice = 0;
  // Reductions' sectors (ncu's op_red; 0 where the profile lacks the column), and the atomics'
  // and reductions' L2 lookup misses together (op_atom and op_red lookup_miss; absent in
  // profiles taken before tools/collect asked for them).
  double l2_reduction_sectors = 0;
  std::optional<double> l2_atomic_miss_sectors;
  // The L2's reads from the SMs' L1 alone and their hits (ncu's srcunit_tex op_read; absent in
  // profiles taken before tools/collect asked for them): the loads' and texture fetches', not
  // those of other clients (instruction and constant fetches, page-table walks).
  std::optional<double> l2_read_from_l1_sectors, l2_read_from_l1_hit_sectors;
  double dram_read_bytes = 0, dram_write_bytes = 0;
  // How the profiled run's warp instructions fell on the SMs' sub-partitions: the busiest one's
  // and the mean over all of them (ncu's smsp__inst_executed max and avg; counts of work, not
  // times), and the SMs it ran on (launch__sm_count). 0 where the profile lacks the columns.
  double busiest_subpartition_instructions = 0, mean_subpartition_instructions = 0;
  double sms = 0;
};

// CUDA source lines of one function's instructions, by offset from its first instruction, as
// a profiler page lists them (Nsight Compute's source page printed as CUDA with SASS). Joined
// to a kernel of the same name whose instructions agree (trace/ncu_lines_reader.hpp).
struct FunctionSourceLines {
  std::string name;  // as the page names it (demangled)
  struct Line {
    std::string opcode;  // the instruction's opcode on the page ("LDG.E"), to check the join
    std::string file;
    std::uint32_t line = 0;
  };
  std::map<std::uint64_t, Line> by_offset;
};

// Retries of polled barrier waits dropped from a trace (trace/poll_retries.hpp), per traced CTA
// by linear id (0 for a traced CTA without any).
struct PollRetries {
  std::map<std::uint64_t, std::uint64_t> dropped;
  std::uint64_t dropped_total = 0;
  bool discounted = false;  // Kernel::cta_work has been discounted for them
};

struct Kernel;

// Takes a grouped trace's CTAs as a reader finishes them, so that the reader need not keep
// them: the model's address analysis (model/address_profile.hpp, StreamedAddresses) keeps per-PC
// counts and reuse profiles and lets all but the CTAs a simulation replays go. The kernel then
// holds those CTAs, and `streamed` what was taken from the others.
class CtaSink {
 public:
  virtual ~CtaSink() = default;
  // After each CTA block: k.warps from `first_new` on are new (none of them empty). The sink
  // may drop warps (Kernel::drop_warps_from).
  virtual void ctas_read(Kernel& k, std::size_t first_new) = 0;
  // At the end of the trace, before the reader's last checks.
  virtual void trace_read(Kernel& k) = 0;
};

struct Kernel {
  LaunchConfig launch;
  SourceFormat format = SourceFormat::unknown;
  std::string source_path;
  std::vector<StaticInstr> program;
  std::vector<DynInstr> dyn;
  AddressPool addresses;  // lane addresses of dyn's memory instructions (DynInstr::addr_at)
  std::vector<WarpStream> warps;
  // CTA sampling: traced CTAs are a subset of the grid (representative CTA inputs, or a
  // tracer's sampling). The model scales counts by grid / traced CTAs.
  std::uint64_t traced_ctas = 0;
  bool representative_cta = false;
  // The tracer stopped recording after this many instructions (0: complete trace).
  std::uint64_t truncated_at_instructions = 0;
  // Of a truncated trace (tallied only there): the recorded warps that stop before their EXIT,
  // the traced CTAs they belong to, and the warps recorded in all. A tracer that runs its
  // sampled CTAs together cuts every one of them, not just the last.
  struct CutWarps {
    std::uint64_t warps = 0, ctas = 0, recorded = 0;
  } cut_warps;
  // Warp instructions of every CTA of the grid, traced or not (gpuperf's tracer counts them all;
  // a trace's '-cta warp instructions' header, or a cta_counts.tsv joined to it), as runs over
  // the CTAs in linear order; they sum to the grid's CTAs. Empty: unknown.
  std::vector<CtaWorkRun> cta_work;
  // Generic-address windows of shared and local memory as the tracer reported them (0:
  // unknown); kept so a converted trace resolves generic accesses as the original did.
  std::uint64_t shared_window_base = 0, local_window_base = 0;
  // The trace's asynchronous copies carry their global sources (its header says so: gpuperf's
  // tracer since 2026-11-29); kept so a converted trace says it too.
  bool copy_sources_traced = false;
  // Its indexed constant loads carry their lanes' words (gpuperf's tracer since 2026-12-02).
  bool constant_addresses_traced = false;
  ProfiledTraffic profiled_traffic;  // Nsight Compute inputs with the memory counters
  PollRetries poll_retries;
  std::vector<std::string> warnings;
  // The sink that took the trace's CTAs as they were read (null: every CTA is in `warps`).
  std::shared_ptr<const CtaSink> streamed;

  bool has_dynamic_trace() const { return !warps.empty(); }
  // d's lane addresses (d.addr_count of them) into out.
  void lane_addresses(const DynInstr& d, std::uint64_t* out) const {
    if (d.addr_count) addresses.decode(d.addr_at(), d.addr_count, out);
  }
  LaneAddresses lane_addresses(const DynInstr& d) const {
    LaneAddresses a;
    a.n = d.addr_count;
    lane_addresses(d, a.v);
    return a;
  }
  // Stores n lane addresses for d.
  void set_lane_addresses(DynInstr& d, const std::uint64_t* a, unsigned n) {
    d.addr_count = static_cast<std::uint8_t>(n);
    if (n) d.set_addr_at(addresses.append(a, n));
  }
  // Drops warps [w, end) with their instructions and lane addresses (a grouped trace's warps
  // hold consecutive instructions, appended in order).
  void drop_warps_from(std::size_t w) {
    if (w >= warps.size()) return;
    const std::uint64_t d0 = warps[w].begin;
    for (std::uint64_t di = d0; di < dyn.size(); ++di)
      if (dyn[di].addr_count) { addresses.truncate(dyn[di].addr_at()); break; }
    dyn.resize(static_cast<std::size_t>(d0));
    warps.resize(w);
  }
  bool has_counts() const {
    for (auto& s : program) if (s.counts_known) return true;
    return false;
  }
  bool has_control_bits() const {
    for (auto& s : program) if (s.control.valid) return true;
    return false;
  }
};

// What a profiler measured about a launch. Never an input to prediction: kept for
// validation and reports only.
struct Measurement {
  std::optional<double> time_us;
  std::optional<double> cycles;
  std::optional<double> sm_clock_ghz;
  std::string device;                               // the device it was measured on, as the profiler names it
  std::map<std::string, double> metrics;            // other run metrics (hit rates, dram bytes)
  std::map<std::uint64_t, std::map<std::string, double>> stall_samples_by_pc;
};

struct MemcpyCommand {
  std::string kind;  // "MemcpyHtoD"
  std::uint64_t address = 0, bytes = 0;
};

// Application: kernels in launch order plus interleaved memcpy commands.
struct Application {
  std::vector<Kernel> kernels;
  std::vector<Measurement> measurements;   // parallel to kernels where a source has them
  std::vector<MemcpyCommand> memcpys;
  std::vector<std::string> warnings;
  std::string device_name;                 // where the source names the device
  // Each kernel's launch id: its 1-based position in the input, which a selection at load time
  // leaves in place (empty: 1..kernels.size()).
  std::vector<std::uint32_t> launch_ids;
};

}  // namespace gpuperf
