// KernelAnalysis: everything about a kernel that does not depend on the GPU, computed once
// per trace and reused by every prediction (what-if studies re-predict from it in
// microseconds): per-PC counts scaled to the grid, memory requests/sectors/wavefronts,
// streaming reuse-distance profiles for L1 (per CTA) and L2 (windows of CTAs), loop
// structure, and the CTAs a simulation replays.
#pragma once

#include <algorithm>
#include <array>
#include <bitset>
#include <climits>
#include <map>
#include <cmath>
#include <memory>
#include <set>
#include <string>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "gpuperf/config.hpp"
#include "gpuperf/model/address_profile.hpp"
#include "gpuperf/model/kernel_analysis.hpp"
#include "gpuperf/model/memory.hpp"
#include "gpuperf/model/register_flow.hpp"
#include "gpuperf/sass/instruction.hpp"
#include "gpuperf/sass/memory_ops.hpp"
#include "gpuperf/trace/ir.hpp"

namespace gpuperf {

namespace detail {

// Whether every loop of the program is known: a listing joined (its control bits, or the branch
// targets a listing without encodings still gives; traces carry neither), every branch has its
// static target, and none is a call or an indirect jump, whose targets may run any number of
// times a warp.
inline bool loops_known(const Kernel& k) {
  bool targets = false;
  for (const auto& s : k.program) {
    const std::string_view base = std::string_view(s.opcode).substr(0, s.opcode.find('.'));
    if (sass::leaves_static_flow(base)) return false;
    if (base == "BRA") {
      if (!s.branch_target) return false;
      targets = true;
    }
  }
  return targets || k.has_control_bits();
}

// Program order (by PC) and loops: each backward branch's target position.
inline void program_order_and_loops(const Kernel& k, KernelAnalysis& a) {
  a.loops_known = loops_known(k);
  a.order.resize(k.program.size());
  for (std::uint32_t i = 0; i < a.order.size(); ++i) a.order[i] = i;
  std::sort(a.order.begin(), a.order.end(), [&](auto x, auto y) { return k.program[x].pc < k.program[y].pc; });
  std::unordered_map<std::uint64_t, int> pos_of_pc;
  for (int i = 0; i < static_cast<int>(a.order.size()); ++i) pos_of_pc[k.program[a.order[i]].pc] = i;
  a.loop_head_of.assign(a.order.size(), -1);
  for (int i = 0; i < static_cast<int>(a.order.size()); ++i) {
    const auto& s = k.program[a.order[i]];
    if (s.branch_target && *s.branch_target <= s.pc) {
      auto it = pos_of_pc.find(*s.branch_target);
      if (it != pos_of_pc.end()) {
        a.loop_head_of[i] = it->second;
        for (int j = it->second; j <= i; ++j) a.pcs[a.order[j]].in_loop = true;
      }
    }
  }
}

// Per-PC executions and memory counts from the input's counts, scaled to the grid (each PC's
// grid_scale: weigh_sampled_ctas runs first).
inline void static_counts(const Kernel& k, KernelAnalysis& a) {
  // Inputs without predicated-on counts have none for any instruction.
  const bool pred_on_counted = std::any_of(k.program.begin(), k.program.end(), [](const StaticInstr& x) { return x.pred_on_thread_executed > 0; });
  for (std::size_t i = 0; i < k.program.size(); ++i) {
    const auto& s = k.program[i];
    auto& p = a.pcs[i];
    p.warp_exec = static_cast<double>(s.warp_executed) * p.grid_scale;
    p.thread_exec = static_cast<double>(s.thread_executed) * p.grid_scale;
    if (pred_on_counted && s.thread_executed > 0)
      p.pred_on_share = std::min(1.0, static_cast<double>(s.pred_on_thread_executed) / static_cast<double>(s.thread_executed));
    if (!a.dynamic && !s.counts_known) {  // static listing alone: once per warp
      p.warp_exec = a.total_warps;
      p.thread_exec = a.total_warps * 32;
    }
    // A traced memory instruction whose every execution had no active lane (all predicated
    // off: the tracer's mask is 0) accesses nothing.
    const bool no_lanes = a.dynamic && s.counts_known && s.warp_executed > 0 && s.thread_executed == 0;
    if (s.space != MemSpace::none && s.space != MemSpace::constant && !no_lanes) {
      p.requests = p.warp_exec;
      // A traced copy without its sources (StaticInstr::copy_sources_unknown) is counted as
      // count-only inputs count a PC without sector counts.
      if (!a.dynamic || s.copy_sources_unknown) {
        if (s.global_sectors) p.sectors = static_cast<double>(s.global_sectors);
        else if (l1_line_space(s.space)) {
          // No sector counts: assume a coalesced access of the active lanes.
          double lanes = p.warp_exec > 0 ? p.thread_exec / p.warp_exec : 32;
          p.sectors = p.warp_exec * std::max(1.0, std::ceil(lanes * std::max(1u, s.access_bits / 8) / 32.0));
        }
        if (s.space == MemSpace::shared) p.wavefronts = s.shared_wavefronts ? static_cast<double>(s.shared_wavefronts) : p.warp_exec;
        else {
          // L1 tag requests are the lines touched (ncu); without them, the fewest the sectors fill.
          p.lines = s.l1_tag_requests ? std::max(p.requests, static_cast<double>(s.l1_tag_requests))
                                      : std::max(p.requests, std::ceil(p.sectors / 4));
          p.wavefronts = p.lines;
          const double bytes = p.thread_exec * std::max(1u, s.access_bits / 8);
          if (s.mem_op == MemOp::store && partial_store(p.sectors, bytes)) {
            p.partial_store_sectors = p.sectors;
            p.partial_store_lines = p.lines;
            if (p.requests > 0) p.partly_written_sectors = p.requests * partly_written_sectors_estimate(p.sectors / p.requests, bytes / p.requests);
          }
        }
      }
    }
  }
}

// The kernel's first executed constant load whose address takes a register (KernelAnalysis::
// indexed_constant_load; calibrate/mio_share_probe.cu: 256 such LDC an SM take 517 cycles alone,
// 658 beside 256 L1-hit LDG that alone take 271). After static_counts, which gives the executions.
inline void indexed_constant_loads(const Kernel& k, KernelAnalysis& a) {
  for (std::size_t i = 0; i < k.program.size(); ++i)
    if (k.program[i].space == MemSpace::constant && a.pcs[i].warp_exec > 0 && sass::constant_index_in_register(k.program[i].text)) {
      a.indexed_constant_load = i;
      return;
    }
}

// Count-only inputs: the atomics' profile has no addresses; the profile's busiest L2 slice
// (its ops counter) and the float share of the executed global atomics stand in for them.
inline void profiled_atomics(const Kernel& k, KernelAnalysis& a) {
  if (!k.profiled_traffic.present || !(k.profiled_traffic.l2_atomic_ops_busiest_slice > 0)) return;
  double all = 0, floats = 0, lanes = 0;
  for (std::size_t i = 0; i < k.program.size(); ++i)
    if (is_global_atomic(k.program[i])) {
      all += a.pcs[i].warp_exec;
      lanes += a.pcs[i].thread_exec;
      if (is_float_atomic(k.program[i])) floats += a.pcs[i].warp_exec;
    }
  a.atomics.busiest_slice_ops = k.profiled_traffic.l2_atomic_ops_busiest_slice;
  a.atomics.float_share = all > 0 ? floats / all : 0;
  // An op is a pass over a sector: lanes on one sector share it, and ncu's sum over the slices
  // counts a forwarded op twice (calibrate/atomic_miss_probe.cu: 3.24 M sectors of 2.16 M
  // updates, each its own sector), so neither count alone is the ops.
  const double sectors = k.profiled_traffic.l2_atomic_sectors + k.profiled_traffic.l2_reduction_sectors;
  a.atomics.profiled_ops = lanes > 0 && sectors > 0 ? std::min(lanes, sectors) : std::max(lanes, sectors);
}

// Count-only inputs: loads that share an address base register read neighbouring data
// (stencils, unrolled loops); their union footprint bounds what reaches L2.
inline void load_groups(const Kernel& k, KernelAnalysis& a) {
  std::map<std::vector<std::uint16_t>, std::vector<std::size_t>> groups;
  for (std::size_t i = 0; i < k.program.size(); ++i) {
    const auto& s = k.program[i];
    if (s.space == MemSpace::global && s.mem_op == MemOp::load && !s.mem_base.empty() && a.pcs[i].requests > 0) groups[s.mem_base].push_back(i);
  }
  int gid = 0;
  for (auto& [base, members] : groups) {
    std::int64_t lo = INT64_MAX, hi = INT64_MIN;
    double max_sectors = 0, reqs = 0;
    for (auto i : members) {
      lo = std::min(lo, k.program[i].mem_offset);
      hi = std::max(hi, k.program[i].mem_offset + std::int64_t(std::max(1u, k.program[i].access_bits / 8)));
      max_sectors = std::max(max_sectors, a.pcs[i].sectors);
      reqs = std::max(reqs, a.pcs[i].requests);
    }
    double span_sectors = reqs * std::max<std::int64_t>(0, (hi - lo) - 32) / 32.0;
    for (auto i : members) {
      a.pcs[i].load_group = gid;
      a.pcs[i].group_footprint_sectors = (max_sectors + span_sectors) / static_cast<double>(members.size());
    }
    ++gid;
  }

}

// Count-only inputs: loads of one sector that a warp issues one after another before it uses
// any of their results (the fields of a struct, an unrolled row of a table: the same base
// register, offsets within 32 bytes, as often executed). They wait for one fetch: where the
// sector misses, the first load misses and the others find it in flight, so a profile's
// kernel-wide hit rate (the others' hits in it) must not give each of them a mostly-hit
// latency. A group ends at a control transfer or a branch target, a write of the base, or a
// use of a member's result. Past that use, a load of the same sector finds it in L1: the warp
// waited for the fetch before issuing it (a serial loop over consecutive elements, its loads
// kept apart by the stores between them: Rodinia particlefilter's CDF); it is marked
// own_sector_after_use.
inline void sector_issue_groups(const Kernel& k, KernelAnalysis& a) {
  const std::size_t n = a.order.size();
  std::unordered_set<std::uint64_t> targets;
  for (const auto& s : k.program)
    if (s.branch_target) targets.insert(*s.branch_target);
  auto is_load = [&](const StaticInstr& s) {
    return s.mem_op == MemOp::load && (s.space == MemSpace::global || s.space == MemSpace::generic) && !s.mem_base.empty();
  };
  // Control leaves (sass::transfers_control), or the warp may wait for other threads or a call
  // between the loads (a CTA barrier, a reconvergence point, a call).
  auto ends_group = [&](const StaticInstr& s) {
    const std::string_view base = std::string_view(s.opcode).substr(0, s.opcode.find('.'));
    return sass::transfers_control(base) || base == "BAR" || base == "BARRIER" || base == "CALL" || base == "BSYNC" || base == "WARPSYNC" ||
           base == "YIELD";
  };
  auto bytes = [](const StaticInstr& s) { return std::int64_t(std::max(1u, s.access_bits / 8)); };
  std::vector<bool> grouped(n, false);
  for (std::size_t p = 0; p < n; ++p) {
    const auto& lead = k.program[a.order[p]];
    if (grouped[p] || !is_load(lead) || a.pcs[a.order[p]].warp_exec <= 0) continue;
    std::vector<std::size_t> members{p};
    std::unordered_set<std::uint16_t> results(lead.dst.begin(), lead.dst.end());
    std::int64_t lo = lead.mem_offset, hi = lead.mem_offset + bytes(lead);
    bool waited = false;  // an instruction since the lead read a member's result
    for (std::size_t q = p + 1; q < n && q < p + 32; ++q) {
      const auto& s = k.program[a.order[q]];
      if (targets.count(s.pc) || ends_group(s)) break;
      if (!waited && std::any_of(s.src.begin(), s.src.end(), [&](std::uint16_t r) { return results.count(r) > 0; })) waited = true;
      if (std::any_of(s.dst.begin(), s.dst.end(), [&](std::uint16_t r) { return std::count(lead.mem_base.begin(), lead.mem_base.end(), r) > 0; })) break;
      const double e = a.pcs[a.order[q]].warp_exec, e0 = a.pcs[a.order[p]].warp_exec;
      if (!grouped[q] && is_load(s) && s.mem_base == lead.mem_base && s.space == lead.space && std::abs(e - e0) <= 1e-3 * e0 &&
          std::max(hi, s.mem_offset + bytes(s)) - std::min(lo, s.mem_offset) <= 32) {
        lo = std::min(lo, s.mem_offset);
        hi = std::max(hi, s.mem_offset + bytes(s));
        if (waited) {
          grouped[q] = true;
          a.pcs[a.order[q]].own_sector_after_use = true;
        } else {
          members.push_back(q);
          results.insert(s.dst.begin(), s.dst.end());
        }
      }
    }
    for (auto m : members) {
      grouped[m] = true;
      a.pcs[a.order[m]].sector_issue_group = static_cast<double>(members.size());
    }
  }
}

// A read of a special register (S2R, S2UR, CS2R): the listing's text names which.
inline bool reads_special_register(const StaticInstr& s) {
  return s.opcode.rfind("S2R", 0) == 0 || s.opcode.rfind("S2UR", 0) == 0 || s.opcode.rfind("CS2R", 0) == 0;
}

// A value read from memory other than constants: loaded data, atomics' old values.
inline bool reads_memory_value(const StaticInstr& s) { return s.mem_op != MemOp::none && s.space != MemSpace::constant; }

// Count-only inputs: which loads read an address that every thread of a CTA shares (a search
// loop's `CDF[x]`, an n-body step's `p[j]`), and which gather (their lanes' addresses differ
// by loaded data). A value varies within the CTA if the instruction that writes it reads the
// thread index (S2R of anything but the CTA's own id and counts), loads it from memory other
// than constants, or reads a varying value (RegisterReach); otherwise it is shared. A value is
// gathered where it derives from what a load of a varying address read (a loaded pointer that
// the CTA shares is not; nor an index a search's loaded comparisons steer: RegisterReach not
// through control). A gathered load over lines apart takes the expected bank passes of its
// lanes' random offsets (gathered_bank_passes). A load whose address advances less than a
// 128 B line per iteration of its loop (LoopStrides) walks its own line.
inline void address_sources(const Kernel& k, KernelAnalysis& a) {
  auto source_of_variation = [](const StaticInstr& s) {
    if (reads_special_register(s)) return s.text.find("SR_CTAID") == std::string::npos && s.text.find("SR_NCTAID") == std::string::npos;
    if (reads_memory_value(s)) return true;
    return s.opcode.rfind("SHFL", 0) == 0 || s.opcode.rfind("VOTE", 0) == 0 || s.opcode.rfind("MATCH", 0) == 0;
  };
  const ProgramDefs program(k, a);
  const RegisterReach varying(k, a, program, source_of_variation);
  // Loads (and atomics' old values) at lane-varying addresses: what a gather's index comes from.
  std::vector<bool> varying_read(k.program.size(), false);
  for (std::size_t i = 0; i < k.program.size(); ++i) {
    const auto& s = k.program[i];
    const bool reads = s.mem_op == MemOp::load || s.mem_op == MemOp::atomic;
    varying_read[i] = reads && s.space != MemSpace::constant && s.space != MemSpace::none && varying.reaches_address(i);
  }
  const RegisterReach gathered(
      k, a, program, [&](const StaticInstr& s) { return bool(varying_read[static_cast<std::size_t>(&s - k.program.data())]); },
      /*through_control=*/false);
  const LoopSpans loops(a);
  const LoopStrides strides(k, a, program, loops);
  for (std::size_t i = 0; i < k.program.size(); ++i) {
    const auto& s = k.program[i];
    if (s.mem_op != MemOp::load || !(s.space == MemSpace::global || s.space == MemSpace::generic)) continue;
    auto& p = a.pcs[i];
    p.cta_uniform_address = !varying.reaches_address(i);
    p.gathered_address = gathered.reaches_address(i);
    if (auto st = strides.address_stride(i)) p.walks_own_line = !p.gathered_address && std::abs(double(*st)) < assume::own_line_stride_bytes;
    if (p.gathered_address && lanes_apart(p)) {
      const double lines = p.lines / p.requests, lanes = p.thread_exec / p.warp_exec;
      const double passes = gathered_bank_passes(lines, lanes, std::max(1u, s.access_bits / 8));
      if (passes < lines) p.bank_shared_loads = {{lines, passes, p.requests}};
    }
  }
}

// Count-only inputs: loads of a buffer the kernel itself stored to before them in program order:
// a kernel parameter's pointer (`c[0x0][offset]`) reaches the load's address and the address of
// an earlier global store. The L2 is write-back, so the stored lines are there when the load
// comes (Rodinia particlefilter's normalize_weights: every thread writes its weight, then one
// thread's CDF loop reads them all, every read an L2 hit, where the profile's kernel-wide rate
// gave it the misses of the first reads). The load keeps the stores' sectors
// (PcStats::kernel_stored_sectors); memory_rates turns them into hits within the profile's.
// Which parameters reach a register is one forward pass over the program (each write takes its
// sources' parameters; a load's result none: a pointer read from memory names another buffer),
// run twice so that values carried around a loop reach its top; the second pass records. Guards
// are ignored (a guarded write adds its parameters). At most 64 parameters are told apart (the
// first in program order; the others reach nothing).
inline void reads_of_kernel_stores(const Kernel& k, KernelAnalysis& a) {
  auto global_access = [](const StaticInstr& s) {
    return (s.space == MemSpace::global || s.space == MemSpace::generic) && !s.mem_base.empty() && !s.text.empty() &&
           (s.mem_op == MemOp::store || s.mem_op == MemOp::load);
  };
  bool stores = false, loads = false;
  for (const auto& s : k.program) {
    if (!global_access(s)) continue;
    stores = stores || s.mem_op == MemOp::store;
    loads = loads || s.mem_op == MemOp::load;
  }
  if (!stores || !loads) return;
  std::unordered_map<std::string, int> param_bit;
  std::vector<std::uint64_t> reads_params(a.order.size(), 0);  // by position: the parameters its text reads
  for (std::size_t p = 0; p < a.order.size(); ++p) {
    const std::string& text = k.program[a.order[p]].text;
    for (std::size_t at = text.find("c[0x0]["); at != std::string::npos; at = text.find("c[0x0][", at + 7)) {
      const std::size_t close = text.find(']', at + 7);
      if (close == std::string::npos) break;
      auto [it, fresh] = param_bit.try_emplace(text.substr(at + 7, close - at - 7), static_cast<int>(param_bit.size()));
      if (it->second < 64) reads_params[p] |= std::uint64_t(1) << it->second;
    }
  }
  std::unordered_map<std::uint16_t, std::uint64_t> reg_params;
  auto params_of = [&](std::uint16_t r) {
    auto it = reg_params.find(r);
    return it == reg_params.end() ? std::uint64_t(0) : it->second;
  };
  std::vector<double> stored(64, 0.0);  // sectors the stores met so far write, by parameter
  for (int pass = 0; pass < 2; ++pass) {
    for (std::size_t p = 0; p < a.order.size(); ++p) {
      const std::size_t i = a.order[p];
      const auto& s = k.program[i];
      if (pass == 1 && global_access(s)) {
        std::uint64_t address = 0;
        for (auto r : s.mem_base) address |= params_of(r);
        for (int b = 0; b < 64 && address; ++b) {
          if (!(address >> b & 1)) continue;
          if (s.mem_op == MemOp::store) stored[b] += a.pcs[i].sectors;
          else if (stored[b] > 0) a.pcs[i].kernel_stored_sectors = std::max(a.pcs[i].kernel_stored_sectors, stored[b]);
        }
      }
      if (s.dst.empty()) continue;
      std::uint64_t value = reads_params[p];
      if (!reads_memory_value(s))
        for (auto r : s.src) value |= params_of(r);
      for (auto r : s.dst)
        if (!is_predicate_register(r)) reg_params[r] = value;
    }
  }
}

// Sampled traces of multi-dimensional grids: the tracer records a launch's first CTAs, which lie
// in one row of a grid of several rows (x fastest), so the sample cannot tell data that every
// row reads alike (a GEMM's B panel of the CTA's column) from data each row reads anew (its A
// panel of the CTA's row): the growth of first touches along the row (l2_cold_marginal) was
// carried to every CTA of the grid. The listing says which CTA-index dimensions each load's
// address is computed from (RegisterReach from S2R SR_CTAID.X/Y/Z): the grid holds as many
// distinct such addresses as the product of its extents in those dimensions, `classes`, of
// which the sample holds `sampled` (distinct projections of its CTAs). A further class adds the
// sampled marginal share of a class's first touches; where the sample holds one class only
// (an unspanned dimension alone), each further one is taken to read data of its own. Left to
// the marginal rule: addresses that also come from loaded data (a work queue's tile, an index
// array), from special registers other than the thread's and CTA's indices, listings without
// the special registers' names, and samples that span every dimension the grid has.
inline void cta_index_classes(const Kernel& k, KernelAnalysis& a) {
  const Dim3& grid = k.launch.grid;
  const std::uint32_t extent[3] = {grid.x, grid.y, grid.z};
  if (a.ctas.empty() || grid.count() <= 1) return;
  for (const auto& cta : a.ctas)
    if (cta.empty()) return;
  // The profile window's CTA indices, the sample the first touches were counted over.
  const std::size_t window = a.profile_window_ctas > 0 ? std::min(a.profile_window_ctas, a.ctas.size()) : a.ctas.size();
  std::vector<std::array<std::uint32_t, 3>> sampled_ids(window);
  for (std::size_t c = 0; c < window; ++c) {
    const Dim3& d = k.warps[a.ctas[c].front()].cta;
    sampled_ids[c] = {d.x, d.y, d.z};
  }
  bool unspanned = false;  // a dimension of the grid in which the sample holds one index
  for (int axis = 0; axis < 3; ++axis)
    if (extent[axis] > 1)
      unspanned = unspanned || std::all_of(sampled_ids.begin(), sampled_ids.end(), [&](const auto& id) { return id[axis] == sampled_ids[0][axis]; });
  if (!unspanned) return;
  for (const auto& s : k.program)
    if (reads_special_register(s) && s.text.find("SR") == std::string::npos) return;  // no listing: the register is not named
  auto reads_cta_index = [&](const StaticInstr& s, const char* name) { return reads_special_register(s) && s.text.find(name) != std::string::npos; };
  // The thread's own indices and counts are the same in every CTA; the CTA's index is the source
  // being followed; anything else may differ between CTAs in ways the listing does not say.
  auto varies_otherwise = [&](const StaticInstr& s) {
    if (reads_memory_value(s)) return true;
    if (!reads_special_register(s)) return false;
    for (const char* same : {"SR_TID", "SR_NTID", "SR_CTAID", "SR_NCTAID", "SR_LANEID", "SRZ", "SR_EQMASK", "SR_LTMASK", "SR_LEMASK",
                             "SR_GTMASK", "SR_GEMASK", "SR_SWINHI", "SR_SWINLO"})
      if (s.text.find(same) != std::string::npos) return false;
    return true;
  };
  const ProgramDefs program(k, a);
  const RegisterReach from_x(k, a, program, [&](const StaticInstr& s) { return reads_cta_index(s, "SR_CTAID.X"); });
  const RegisterReach from_y(k, a, program, [&](const StaticInstr& s) { return reads_cta_index(s, "SR_CTAID.Y"); });
  const RegisterReach from_z(k, a, program, [&](const StaticInstr& s) { return reads_cta_index(s, "SR_CTAID.Z"); });
  const RegisterReach otherwise(k, a, program, varies_otherwise);
  const RegisterReach* from[3] = {&from_x, &from_y, &from_z};
  for (std::size_t i = 0; i < k.program.size(); ++i) {
    const auto& s = k.program[i];
    auto& p = a.pcs[i];
    if (s.mem_op != MemOp::load || !(s.space == MemSpace::global || s.space == MemSpace::generic) || s.mem_base.empty() || !p.has_profile ||
        p.l2_cold == 0 || otherwise.reaches_address(i))
      continue;
    bool uses[3];
    double classes = 1;
    for (int axis = 0; axis < 3; ++axis) {
      uses[axis] = from[axis]->reaches_address(i);
      if (uses[axis]) classes *= extent[axis];
    }
    std::set<std::array<std::uint32_t, 3>> seen;
    for (const auto& id : sampled_ids) seen.insert({uses[0] ? id[0] : 0u, uses[1] ? id[1] : 0u, uses[2] ? id[2] : 0u});
    const double sampled = static_cast<double>(seen.size());
    const double per_class = sampled > 1 ? std::min(1.0, p.l2_cold_marginal * static_cast<double>(window) / sampled) : 1.0;
    p.l2_cold_grid_factor = 1 + per_class * std::max(0.0, classes - sampled) / sampled;
  }
}

}  // namespace detail

// The program-only analysis of a kernel: per-PC counts, loops, CTA groups, coalescing and reuse
// profiles. Compiled once in the library (analyze.hpp) unless GPUPERF_HEADER_ONLY.
GPUPERF_FUNC KernelAnalysis analyze(std::shared_ptr<const Kernel> kp);

}  // namespace gpuperf

#ifdef GPUPERF_HEADER_ONLY
#include "gpuperf/model/analyze.hpp"
#endif
