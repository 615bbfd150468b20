// The analysis phases that read a dynamic trace's addresses: CTAs, coalescing and bank
// conflicts, the atomics' address distribution, and streaming reuse-distance profiles.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <map>
#include <memory>
#include <set>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "gpuperf/model/assumptions.hpp"
#include "gpuperf/model/drawn_regions.hpp"
#include "gpuperf/model/grid_stores.hpp"
#include "gpuperf/model/kernel_analysis.hpp"
#include "gpuperf/model/memory.hpp"
#include "gpuperf/sass/memory_ops.hpp"
#include "gpuperf/trace/ir.hpp"

namespace gpuperf {

namespace detail {

inline std::uint64_t cta_key(const Dim3& c) { return (std::uint64_t(c.z) << 42) | (std::uint64_t(c.y) << 21) | c.x; }

// Walks warps' streams position by position (k-th instruction of every warp, then k+1)
// to approximate concurrent progress, calling fn(warp_index, dyn_index).
template <class F>
void interleave(const Kernel& k, const std::vector<std::uint32_t>& warps, F&& fn) {
  std::uint64_t maxlen = 0;
  for (auto w : warps) maxlen = std::max<std::uint64_t>(maxlen, k.warps[w].end - k.warps[w].begin);
  for (std::uint64_t p = 0; p < maxlen; ++p)
    for (auto w : warps) {
      const auto& ws = k.warps[w];
      if (ws.begin + p < ws.end) fn(w, ws.begin + p);
    }
}

inline bool is_global_atomic(const StaticInstr& s) {
  return (s.mem_op == MemOp::atomic || s.mem_op == MemOp::reduction) &&
         (s.space == MemSpace::global || s.space == MemSpace::generic);
}
// Words a sorted list of distinct words covers: its runs with no gap wider than `gap` words,
// each of n words spanning s taken as a range of s (n + 1) / (n - 1) (n words at random over a
// range span (n - 1) / (n + 1) of it), a lone word as one.
inline double covered_words(const std::vector<std::uint64_t>& sorted, double gap) {
  double covered = 0;
  for (std::size_t i = 0; i < sorted.size();) {
    std::size_t j = i;
    while (j + 1 < sorted.size() && static_cast<double>(sorted[j + 1] - sorted[j]) <= gap) ++j;
    const double n = static_cast<double>(j - i + 1), span = static_cast<double>(sorted[j] - sorted[i] + 1);
    covered += n > 1 ? span * (n + 1) / (n - 1) : 1.0;
    i = j + 1;
  }
  return covered;
}
// Atomic words further apart than this (2 MiB, a large page) and than 8 times their mean
// spacing lie in different arrays (covered_words). Estimated: large allocations are 2 MiB
// aligned, and a gap of 8 mean spacings arises by chance once in e^8 (3,000) gaps.
inline constexpr double kAtomicRangeGapWords = (2.0 * 1024 * 1024) / 4;

// A floating-point atomic (the L2 serves them on one word at the f32 rate).
inline bool is_float_atomic(const StaticInstr& s) {
  return s.opcode.find(".F32") != std::string::npos || s.opcode.find(".F16") != std::string::npos ||
         s.opcode.find(".F64") != std::string::npos || s.opcode.find(".BF16") != std::string::npos;
}

// CTAs of a dynamic trace's warps from `first_warp` on, in trace order, each a list of its warps.
inline std::vector<std::vector<std::uint32_t>> ctas_of(const Kernel& k, std::size_t first_warp = 0) {
  std::vector<std::vector<std::uint32_t>> ctas;
  std::unordered_map<std::uint64_t, std::size_t> index;
  for (auto w = static_cast<std::uint32_t>(first_warp); w < k.warps.size(); ++w) {
    auto [it, fresh] = index.try_emplace(cta_key(k.warps[w].cta), ctas.size());
    if (fresh) ctas.emplace_back();
    ctas[it->second].push_back(w);
  }
  return ctas;
}

inline void group_ctas(const Kernel& k, KernelAnalysis& a) { a.ctas = ctas_of(k); }

// The analyses of a dynamic trace's addresses, fed a window of consecutive CTAs at a time:
// coalescing and bank conflicts per PC and per dynamic instruction, the atomics' address
// distribution, and the reuse-distance profiles (L1 within each CTA; L2 over the interleaved
// warps of each window, one profile across windows). It is given the whole trace of a loaded
// kernel (analyze()), or the CTAs a reader has just finished, which the reader then drops
// (StreamedAddresses, below): what it keeps grows with the kernel's footprint (distinct
// sectors and atomic words), not with the length of the trace.
class AddressProfiler {
 public:
  // CTAs whose warps the L2 profile interleaves as running together: as many as one SM holds
  // at most. A trace sampled at up to that many CTAs (every trace of this project's corpus)
  // is profiled as one concurrent grid, as before windows; a complete trace of a large grid as
  // consecutive groups of CTAs, which is also closer to CTAs running in waves.
  static constexpr std::size_t kWindowCtas = 32;

  explicit AddressProfiler(std::size_t program_size) : pcs_(program_size), sums_(program_size) {}

  // One window: `ctas` in trace order, each a list of warp indices into k.warps. The dynamic
  // instructions below `kept_dyn` get their own costs (those of the CTAs a simulation replays).
  void add_window(const Kernel& k, const std::vector<std::vector<std::uint32_t>>& ctas, std::uint64_t kept_dyn) {
    if (k.program.size() > pcs_.size()) {  // a reader meets new PCs as it goes
      pcs_.resize(k.program.size());
      sums_.resize(k.program.size());
    }
    if (kept_dyn > dyn_wavefronts_.size()) dyn_wavefronts_.resize(static_cast<std::size_t>(kept_dyn), 0);
    std::vector<std::uint32_t> warps;
    for (auto& c : ctas) warps.insert(warps.end(), c.begin(), c.end());
    std::sort(warps.begin(), warps.end());  // trace order
    if (warps.empty()) return;
    std::uint64_t first = UINT64_MAX, last = 0;
    for (auto w : warps) {
      if (k.warps[w].end == k.warps[w].begin) continue;
      first = std::min(first, k.warps[w].begin);
      last = std::max(last, k.warps[w].end);
    }
    if (first >= last) return;
    // The window's coalesced sectors, kept for the L1 and L2 passes: begin_[di - first]..begin_[di - first + 1].
    sectors_.clear();
    begin_.assign(static_cast<std::size_t>(last - first) + 1, 0);
    for (auto w : warps)
      for (std::uint64_t di = k.warps[w].begin; di < k.warps[w].end; ++di) count(k, di, kept_dyn, first);
    for (auto& c : ctas) atomics(k, c);
    // L1 per CTA; each CTA's first touch of a sector is marked, and the CTAs touching each
    // sector counted, for the L2 pass to tell the loads that another CTA's fetch may serve.
    first_in_cta_.assign(sectors_.size(), 0);
    sharers_ = LastUseMap();
    for (auto& c : ctas) {
      ReuseProfiler l1;
      profile(k, c, l1, true, first);
    }
    window_sharers_ = ctas.size();
    // The sample's accumulation curve: the distinct sectors of the window's first half of CTAs
    // beside those of all of them. Used for a one-window trace only (a sample of a grid), so
    // followed in the first window only: a long trace pays for no more.
    ++windows_;
    window_ctas_ = ctas.size();
    if (windows_ == 1) first_window_ctas_ = ctas.size();
    first_half_.clear();
    if (windows_ == 1) {
      // Whether the window reaches every dimension the grid extends in: a window inside one row
      // of a grid of rows cannot tell data that move from row to row (a GEMM's A tiles).
      bool y_varies = false, z_varies = false;
      for (auto& c : ctas) {
        y_varies = y_varies || k.warps[c.front()].cta.y != k.warps[ctas.front().front()].cta.y;
        z_varies = z_varies || k.warps[c.front()].cta.z != k.warps[ctas.front().front()].cta.z;
      }
      window_spans_grid_ = (k.launch.grid.y == 1 || y_varies) && (k.launch.grid.z == 1 || z_varies);
      for (std::size_t c = 0; c < ctas.size() / 2; ++c) first_half_.insert(ctas[c].begin(), ctas[c].end());
      for (std::size_t c = 0; c < ctas.size(); ++c)
        for (auto w : ctas[c]) {
          if (cta_of_warp_.size() <= w) cta_of_warp_.resize(w + 1, UINT32_MAX);
          cta_of_warp_[w] = static_cast<std::uint32_t>(c);
        }
    } else {
      std::unordered_set<std::uint64_t>().swap(first_half_touched_);
    }
    // The stores of CTAs the trace has not shown so far, extrapolated from the window's, for
    // the L2 pass to tell the loads that find their sector written already.
    const bool fits = ctas.size() >= GridStores::kMinCtas;  // fewer CTAs tell no stride
    for (auto& c : ctas) grid_stores_.add_cta(k.warps[c.front()].cta, fits ? store_ranges(k, c, first) : std::map<std::uint32_t, CtaStoreRange>());
    grid_stores_.fit(k.launch.grid);
    profile(k, warps, l2_, false, first);
  }

  bool saw_addresses() const { return saw_addresses_; }

  // The per-PC counts and profiles (counts scaled by each PC's grid_scale), the atomics' profile and the
  // per-instruction costs, into `a`.
  void finish(KernelAnalysis& a) const {
    a.dyn_wavefronts = dyn_wavefronts_;
    a.profile_window_ctas = first_window_ctas_;
    a.l1_shared_scale = windows_ == 1 && first_window_ctas_ > 1 ? double(first_window_ctas_) / double(first_window_ctas_ - 1) : 1.0;
    if (!dyn_partial_sectors_.empty()) {
      a.dyn_partial_sectors = dyn_partial_sectors_;
      a.dyn_partial_sectors.resize(a.dyn_wavefronts.size(), 0);
    }
    if (!dyn_bank_passes_.empty()) {
      a.dyn_bank_passes = dyn_bank_passes_;
      a.dyn_bank_passes.resize(a.dyn_wavefronts.size(), 0);
    }
    for (std::size_t i = 0; i < pcs_.size() && i < a.pcs.size(); ++i) {
      auto& p = a.pcs[i];
      const auto& q = pcs_[i];
      std::copy(std::begin(q.l1_hist), std::end(q.l1_hist), std::begin(p.l1_hist));
      std::copy(std::begin(q.l1_sibling_hist), std::end(q.l1_sibling_hist), std::begin(p.l1_sibling_hist));
      std::copy(std::begin(q.l1_shared_hist), std::end(q.l1_shared_hist), std::begin(p.l1_shared_hist));
      std::copy(std::begin(q.phase_first), std::end(q.phase_first), std::begin(p.phase_first));
      std::copy(std::begin(q.phase_reuse), std::end(q.phase_reuse), std::begin(p.phase_reuse));
      std::copy(std::begin(q.l2_hist), std::end(q.l2_hist), std::begin(p.l2_hist));
      std::copy(std::begin(q.l2_cross_cta_hist), std::end(q.l2_cross_cta_hist), std::begin(p.l2_cross_cta_hist));
      std::copy(std::begin(q.l2_pair_fill_hist), std::end(q.l2_pair_fill_hist), std::begin(p.l2_pair_fill_hist));
      std::copy(std::begin(q.l2_cold_written_later), std::end(q.l2_cold_written_later), std::begin(p.l2_cold_written_later));
      std::copy(std::begin(q.l1_request_hist), std::end(q.l1_request_hist), std::begin(p.l1_request_hist));
      std::copy(std::begin(q.l2_request_hist), std::end(q.l2_request_hist), std::begin(p.l2_request_hist));
      p.l1_request_cold = q.l1_request_cold;
      p.l2_request_cold = q.l2_request_cold;
      std::copy(std::begin(q.l2_request_cold_lines), std::end(q.l2_request_cold_lines), std::begin(p.l2_request_cold_lines));
      p.l1_cold = q.l1_cold;
      p.l2_cold = q.l2_cold;
      p.l2_first_writes = q.l2_first_writes;
      p.has_profile = q.has_profile;
      // How the PC's distinct sectors grow with the CTAs: the sectors the window's second half
      // of CTAs first-touched, per CTA, over the mean of all its CTAs (a CTA's own data and its
      // share of a table or halo that every further CTA shares: the growth is affine in the
      // CTAs, not a power of them, which undercounted CTAs that share only their edges: a
      // histogram's rows of 1080 B, 2.08 MB read where n^g gave 1.04). 1 (each CTA its own
      // sectors) unless a one-window sample of at least 4 CTAs saw enough first touches
      // (kMinHalfFirstTouches per half) to tell.
      p.l2_cold_marginal = 1;
      if (windows_ == 1 && window_ctas_ >= 4 && q.l2_cold_first_half >= kMinHalfFirstTouches && q.l2_cold >= q.l2_cold_first_half) {
        const double half = static_cast<double>(window_ctas_ / 2), all = static_cast<double>(window_ctas_);
        const double later = static_cast<double>(q.l2_cold - q.l2_cold_first_half) / (all - half);
        p.l2_cold_marginal = std::clamp(later / (static_cast<double>(q.l2_cold) / all), 0.0, 1.0);
      }
      p.l2_cold_extent_sectors = 0;
      p.l2_cold_tensor_sectors = 0;
      if (auto t = tensors_.find(static_cast<std::uint32_t>(i)); t != tensors_.end()) {
        std::uint64_t end = 0;  // the union of the PC's tensors, in sectors
        for (auto [base, bytes] : t->second) {
          const std::uint64_t lo = std::max(base / 32, end), hi = (base + bytes + 31) / 32;
          if (hi > lo) p.l2_cold_tensor_sectors += static_cast<double>(hi - lo);
          end = std::max(end, hi);
        }
      }
      const auto& c = sums_[i];
      if (c.constant_loads > 0) p.constant_passes = c.constant_words / c.constant_loads;
      if (c.requests == 0) continue;
      p.requests = c.requests * p.grid_scale;
      p.sectors = c.sectors * p.grid_scale;
      p.lines = c.lines * p.grid_scale;
      p.wavefronts = c.wavefronts * p.grid_scale;
      p.partial_store_sectors = c.partial_sectors * p.grid_scale;
      p.partial_store_lines = c.partial_lines * p.grid_scale;
      p.partly_written_sectors = c.partly_written_sectors * p.grid_scale;
      p.bank_shared_loads.clear();
      for (std::size_t sh = 0; sh < c.shapes.size(); ++sh)
        if (c.shapes[sh])
          p.bank_shared_loads.push_back({static_cast<double>(sh / kShapeLines), static_cast<double>(sh % kShapeLines), c.shapes[sh] * p.grid_scale});
    }
    if (windows_ == 1 && window_spans_grid_) {  // a sample's first touches: bounded where drawn from one region
      std::vector<bool> enough(pcs_.size());
      for (std::size_t i = 0; i < pcs_.size(); ++i) enough[i] = pcs_[i].l2_cold_first_half >= kMinHalfFirstTouches;
      gpuperf::bound_drawn_regions(extents_, enough, a.pcs);
    }
    finish_atomics(a);
  }

 private:
  std::map<std::uint32_t, std::set<std::pair<std::uint64_t, std::uint64_t>>> tensors_;  // bulk copy PC -> its tensors (first address, bytes)
  struct Sums {
    double requests = 0, sectors = 0, lines = 0, wavefronts = 0, partial_sectors = 0, partial_lines = 0, partly_written_sectors = 0;
    double constant_loads = 0, constant_words = 0;  // indexed constant loads with lane words, and their distinct words
    std::vector<std::uint32_t> shapes;  // loads with fewer bank passes than lines: [lines * kShapeLines + passes]
  };
  static constexpr unsigned kShapeLines = 65;  // a request covers at most 64 sectors
  // First touches the first half of a window's CTAs must make at a PC before the sample tells
  // how its sectors grow with the CTAs, or whether they are drawn from one region. Estimated.
  static constexpr std::uint64_t kMinHalfFirstTouches = 16;

  // Coalescing or bank conflicts of dynamic instruction di; its sectors into the window's list.
  [[gnu::always_inline]] void count(const Kernel& k, std::uint64_t di, std::uint64_t kept_dyn, std::uint64_t first) {
    std::uint64_t sec[64], lane[64];
    const std::size_t at = static_cast<std::size_t>(di - first);
    begin_[at] = sectors_.size();
    begin_[at + 1] = sectors_.size();
    const auto& d = k.dyn[di];
    const auto& s = k.program[d.static_index];
    const bool kept = di < kept_dyn;
    if (s.space == MemSpace::constant && d.addr_count > 0 && d.active_mask) {
      // An indexed constant load (LDC c[bank][R+imm]) serves one word a pass, its lanes' distinct
      // words in turn (calibrate/microbench.cu thr_const: 2, 4, 32 words take 2, 4, 32 times a
      // broadcast's time on the H200).
      k.lane_addresses(d, lane);
      const unsigned w = std::max(1u, d.mem_width ? unsigned(d.mem_width) : s.access_bits / 8);
      const unsigned words = distinct_words(lane, d.addr_count, w);
      auto& sum = sums_[d.static_index];
      sum.constant_loads += 1;
      sum.constant_words += words;
      if (kept) dyn_wavefronts_[di] = static_cast<std::uint8_t>(std::min(255u, words));
      return;
    }
    // A copy without its sources keeps none of its lanes' addresses (the count-only estimate,
    // analysis.hpp's static_counts, stands for all of its instances).
    if (s.space == MemSpace::none || s.space == MemSpace::constant || d.addr_count == 0 || s.copy_sources_unknown) {
      if (kept && s.space != MemSpace::none && s.space != MemSpace::constant && d.active_mask) dyn_wavefronts_[di] = 1;
      // A shared-memory instruction whose lanes are all predicated off still takes a wavefront
      // of the SM's data pipe.
      if (s.space == MemSpace::shared && !d.active_mask) {
        sums_[d.static_index].requests += 1;
        sums_[d.static_index].wavefronts += assume::lanes_off_shared_wavefronts;
        if (kept) dyn_wavefronts_[di] = assume::lanes_off_shared_wavefronts;
      }
      return;
    }
    saw_addresses_ = true;
    k.lane_addresses(d, lane);
    auto& sum = sums_[d.static_index];
    if (s.bulk_box) {  // a bulk tensor copy: its box's sectors, one request to L2 (no L1 wavefront)
      if (d.addr_count != kBulkBoxWords) return;  // an instance whose box the tracer could not read
      tensors_[d.static_index].emplace(lane[kBoxTensorFirst], lane[kBoxTensorBytes]);
      std::uint64_t line = ~std::uint64_t(0);
      unsigned lines = 0;
      const std::size_t before = sectors_.size();
      for_each_box_sector(lane, [&](std::uint64_t sector) {
        sectors_.push_back(sector);
        if (sector / 4 != line) { ++lines; line = sector / 4; }
      });
      begin_[at + 1] = sectors_.size();
      sum.requests += 1;
      sum.sectors += static_cast<double>(sectors_.size() - before);
      sum.lines += lines;
      return;
    }
    unsigned w = d.mem_width ? d.mem_width : std::max(1u, s.access_bits / 8);
    sum.requests += 1;
    if (s.space == MemSpace::shared) {
      const unsigned wf = shared_request_wavefronts(s, d.static_index, lane, d.addr_count, w);
      sum.wavefronts += wf;
      if (kept) dyn_wavefronts_[di] = static_cast<std::uint8_t>(std::min(255u, wf));
      return;
    }
    auto c = coalesce(lane, d.addr_count, w, sec);
    sectors_.insert(sectors_.end(), sec, sec + c.sectors);
    begin_[at + 1] = sectors_.size();
    sum.sectors += c.sectors;
    sum.lines += c.lines;
    unsigned wf = std::max(1u, c.lines);
    sum.wavefronts += wf;
    if (kept) dyn_wavefronts_[di] = static_cast<std::uint8_t>(std::min(255u, wf));
    if (s.mem_op == MemOp::load && c.lines > 1 && through_l1(s, d.static_index)) {
      const unsigned passes = global_bank_passes(lane, d.addr_count, w, c.lines);
      if (passes < c.lines) {
        if (sum.shapes.empty()) sum.shapes.assign(kShapeLines * kShapeLines, 0);
        ++sum.shapes[std::min(c.lines, kShapeLines - 1) * kShapeLines + std::min(passes, kShapeLines - 1)];
        if (kept) {
          if (dyn_bank_passes_.size() < dyn_wavefronts_.size()) dyn_bank_passes_.resize(dyn_wavefronts_.size(), 0);
          dyn_bank_passes_[di] = static_cast<std::uint8_t>(std::min(255u, passes));
        }
      }
    }
    if (s.mem_op == MemOp::store && partial_store(c.sectors, double(d.addr_count) * w)) {
      const unsigned partly = partly_written_sectors(lane, d.addr_count, w);
      if (kept) {
        if (dyn_partial_sectors_.size() < dyn_wavefronts_.size()) dyn_partial_sectors_.resize(dyn_wavefronts_.size(), 0);
        dyn_partial_sectors_[di] = static_cast<std::uint8_t>(std::min(255u, partly));
      }
      sum.partly_written_sectors += partly;
      sum.partial_sectors += c.sectors;
      sum.partial_lines += c.lines;
    }
  }

  // Wavefronts of a shared-memory request of static instruction i by its form
  // (sass::shared_lane_passes, parsed once per PC): a load's, a store's or ATOMS.POPC.INC's by
  // the distinct words in the busiest bank, another atomic's by its lanes there.
  unsigned shared_request_wavefronts(const StaticInstr& s, std::uint32_t i, const std::uint64_t* lane, unsigned n, unsigned width) {
    using sass::SharedLanePasses;
    if (s.mem_op != MemOp::atomic && s.mem_op != MemOp::reduction) return shared_wavefronts(lane, n, width);
    if (lane_passes_.size() <= i) lane_passes_.resize(pcs_.size(), -1);
    if (lane_passes_[i] < 0) lane_passes_[i] = static_cast<std::int8_t>(sass::shared_lane_passes(sass::tokenize_opcode(s.opcode)));
    switch (static_cast<SharedLanePasses>(lane_passes_[i])) {
      case SharedLanePasses::per_word: return shared_wavefronts(lane, n, width);
      case SharedLanePasses::per_lane: return shared_lane_wavefronts(lane, n, width);
      case SharedLanePasses::two_per_lane: return shared_lane_wavefronts(lane, n, width, 2);
      case SharedLanePasses::two_per_request: return 2;
    }
    return shared_wavefronts(lane, n, width);
  }

  // Whether static instruction i, a load, goes through L1 (sass::load_bypasses_l1), once per PC.
  bool through_l1(const StaticInstr& s, std::uint32_t i) {
    if (through_l1_.size() <= i) through_l1_.resize(pcs_.size(), -1);
    if (through_l1_[i] < 0) through_l1_[i] = sass::load_bypasses_l1(sass::tokenize_opcode(s.opcode)) ? 0 : 1;
    return through_l1_[i] == 1;
  }

  // Each store PC's byte range in one CTA (its warps), by whole sectors, with where in their
  // streams it ran. Distinct sectors are counted only where their number may pass the range's
  // half (GridStores' test): a scatter's wide range is turned down without sorting it.
  std::map<std::uint32_t, CtaStoreRange> store_ranges(const Kernel& k, const std::vector<std::uint32_t>& cta, std::uint64_t first) {
    std::map<std::uint32_t, CtaStoreRange> ranges;
    std::vector<std::pair<CtaStoreRange, std::vector<std::uint64_t>>> found;  // per store PC met
    std::vector<std::uint32_t> pcs;
    if (store_slot_.size() < k.program.size()) store_slot_.resize(k.program.size(), -1);
    for (auto w : cta) {
      const auto& ws = k.warps[w];
      for (std::uint64_t di = ws.begin; di < ws.end; ++di) {
        const auto& d = k.dyn[di];
        const auto& s = k.program[d.static_index];
        if (s.mem_op != MemOp::store || d.addr_count == 0 || !(s.space == MemSpace::global || s.space == MemSpace::generic)) continue;
        const std::size_t at = static_cast<std::size_t>(di - first);
        if (begin_[at + 1] == begin_[at]) continue;
        int& slot = store_slot_[d.static_index];
        if (slot < 0) {
          slot = static_cast<int>(found.size());
          found.emplace_back();
          pcs.push_back(d.static_index);
        }
        auto& [r, v] = found[static_cast<std::size_t>(slot)];
        for (std::size_t j = begin_[at]; j < begin_[at + 1]; ++j) {
          r.lo = std::min(r.lo, sectors_[j] * 32);
          r.end = std::max(r.end, sectors_[j] * 32 + 32);
          v.push_back(sectors_[j]);
        }
        r.position_sum += static_cast<double>(di - ws.begin);
        r.executions += 1;
      }
    }
    for (std::size_t i = 0; i < found.size(); ++i) {
      auto& [r, v] = found[i];
      if (double(v.size()) * 32 >= GridStores::kMinWrittenShare * double(r.end - r.lo)) {
        std::sort(v.begin(), v.end());
        v.erase(std::unique(v.begin(), v.end()), v.end());
      }
      r.sectors = v.size();
      ranges.emplace(pcs[i], r);
      store_slot_[pcs[i]] = -1;
    }
    return ranges;
  }

  // Per-word update counts over the traced CTAs. The traced CTAs stand for the grid: words
  // that every CTA shares (a histogram's bins) keep their number, words private to a CTA
  // (per-block counters) multiply with the grid; the overlap between CTAs decides between the
  // two (finish_atomics).
  void atomics(const Kernel& k, const std::vector<std::uint32_t>& cta) {
    std::unordered_set<std::uint64_t> words_here;
    for (auto w : cta)
      for (std::uint64_t di = k.warps[w].begin; di < k.warps[w].end; ++di) {
        const auto& d = k.dyn[di];
        const auto& s = k.program[d.static_index];
        if (!is_global_atomic(s) || d.addr_count == 0) continue;
        const bool is_float = is_float_atomic(s);
        std::uint64_t words[64];
        unsigned n = std::min<unsigned>(d.addr_count, 64);
        k.lane_addresses(d, words);
        for (unsigned l = 0; l < n; ++l) {
          words[l] >>= 2;
          word_updates_[words[l]] += 1;
          words_here.insert(words[l]);
          lowest_word_ = std::min(lowest_word_, words[l]);
          highest_word_ = std::max(highest_word_, words[l]);
        }
        (is_float ? atomic_floats_ : atomic_ints_) +=
            atomic_sector_passes(words, n, [&](std::uint64_t line, unsigned passes) { line_passes_[line] += passes; });
        atomic_updates_ += n;
      }
    if (!words_here.empty()) {
      per_cta_distinct_ += static_cast<double>(words_here.size());
      cta_words_.emplace_back(words_here.begin(), words_here.end());
      std::sort(cta_words_.back().begin(), cta_words_.back().end());
      ++ctas_with_atomics_;
    }
  }

  void finish_atomics(KernelAnalysis& a) const {
    if (word_updates_.empty()) return;
    double sum_sq = 0, hot = 0, line_sum = 0, line_sum_sq = 0;
    for (auto& [wd, c] : word_updates_) { sum_sq += c * c; hot = std::max(hot, c); }
    for (auto& [line, c] : line_passes_) { line_sum += c; line_sum_sq += c * c; }
    const double distinct = static_cast<double>(word_updates_.size());
    const double mean_cta = per_cta_distinct_ / static_cast<double>(ctas_with_atomics_);
    // 0 when every CTA touches the same words, 1 when CTAs' words are disjoint.
    const double disjoint =
        per_cta_distinct_ > mean_cta ? std::clamp((distinct - mean_cta) / (per_cta_distinct_ - mean_cta), 0.0, 1.0) : 0.0;
    const double grow = 1 + disjoint * (a.scale - 1);
    a.atomics.ops_int = atomic_ints_ * a.atomic_scale;
    a.atomics.ops_float = atomic_floats_ * a.atomic_scale;
    a.atomics.updates = atomic_updates_ * a.atomic_scale;
    a.atomics.effective_words = atomic_updates_ * atomic_updates_ / sum_sq * grow;
    // The grid's lines grow with it, but no further than the traced words' address extent,
    // grown alike, can hold: 16 traced per-CTA counters side by side share one line, and the
    // grid's 1,056 fill 33 lines, not 66.
    const double traced_lines = line_sum * line_sum / line_sum_sq;
    const double extent_lines = static_cast<double>(highest_word_ - lowest_word_ + 1) * 4 * grow / 128;
    a.atomics.effective_lines = std::min(traced_lines * grow, std::max(traced_lines, extent_lines));
    a.atomics.hot_updates = hot * a.atomic_scale / grow;
    // The lines the grid's updates occupy in L2: the traced distinct lines, grown as the words
    // are, within the extent the grid can reach: the ranges the traced words cover (arrays
    // apart, a counter far from them, count apart, not the span between them), grown from the
    // first half of the traced CTAs to all of them as n^e (CTAs on regions of their own side
    // by side: e = 1; CTAs scattering over one array: e = 0).
    auto covered_by = [&](std::size_t ctas, double gap) {
      std::vector<std::uint64_t> w;
      for (std::size_t c = 0; c < ctas; ++c) w.insert(w.end(), cta_words_[c].begin(), cta_words_[c].end());
      std::sort(w.begin(), w.end());
      w.erase(std::unique(w.begin(), w.end()), w.end());
      return covered_words(w, gap);
    };
    const double gap = std::max(kAtomicRangeGapWords, 8.0 * static_cast<double>(highest_word_ - lowest_word_ + 1) / distinct);
    const double union_extent = covered_by(cta_words_.size(), gap);
    double grid_extent = union_extent;
    if (cta_words_.size() >= 2) {
      const double half = covered_by(cta_words_.size() / 2, gap);
      const double e = std::clamp(std::log(union_extent / half) / std::log(static_cast<double>(cta_words_.size()) / (cta_words_.size() / 2)), 0.0, 1.0);
      grid_extent = union_extent * std::pow(std::max(1.0, a.scale), e);
    }
    const double distinct_lines = static_cast<double>(line_passes_.size());
    a.atomics.footprint_lines = std::min(distinct_lines * grow, std::max(distinct_lines, grid_extent * 4 / 128));
  }

  // The reuse profile of `warps` interleaved (L1: one CTA's; L2: the window's, whose stores'
  // first writes are counted too).
  void profile(const Kernel& k, const std::vector<std::uint32_t>& warps, ReuseProfiler& rp, bool l1, std::uint64_t first) {
    // L1: which of the CTA's warps (bit: warp - the CTA's lowest warp) have touched each sector.
    // A sibling's fetch is in flight for a warp only where the warp has not used the sector
    // itself: a warp's own earlier load had arrived before it went on (bench/corpus
    // latency_kernels.cu: 16 warps walking one array in step take as long per step as one warp
    // alone, 4 steps per 32 B sector, one of them a miss).
    LastUseMap touched;
    const std::uint32_t lowest = l1 && !warps.empty() ? *std::min_element(warps.begin(), warps.end()) : 0;
    interleave(k, warps, [&](std::uint32_t warp, std::uint64_t di) {
      const auto& d = k.dyn[di];
      const auto& s = k.program[d.static_index];
      if (d.addr_count == 0 || !l1_line_space(s.space) || (l1 && s.bulk_box)) return;
      const std::size_t at = static_cast<std::size_t>(di - first);
      const std::uint64_t* secs = sectors_.data() + begin_[at];
      const std::size_t nsec = begin_[at + 1] - begin_[at];
      auto& p = pcs_[d.static_index];
      p.has_profile = true;
      const bool store = !l1 && s.mem_op == MemOp::store;
      const bool load = s.mem_op == MemOp::load;
      // The request's first touches that a 64 B fill would find in L2 (their neighbours' reuse
      // buckets), kept only if none of its first touches misses outright: a warp waits for the
      // last of its sectors, so one DRAM miss among them leaves the wait a DRAM latency.
      const auto& ws = k.warps[warp];
      const auto phase = l1 ? 0 : static_cast<std::size_t>((di - ws.begin) * kTrafficPhases / std::max<std::uint64_t>(1, ws.end - ws.begin));
      int fill_buckets[64];
      std::size_t fills = 0;
      bool outright_miss = false;
      std::int64_t request_longest = -1;  // the request's longest reuse distance
      bool request_first_touch = false;
      std::size_t cold_lines = 0;  // L2: distinct lines of the request's first touches
      std::uint64_t last_cold_line = ~0ull;
      for (std::size_t j = 0; j < nsec; ++j) {
        std::uint32_t previous_warp = warp;  // the warp of the sector's previous access
        std::int64_t dist = rp.access(secs[j], warp, previous_warp);
        if (!l1 && dist >= 0 && previous_warp != warp && !(k.warps[previous_warp].cta == ws.cta))
          p.l2_cross_cta_hist[ReuseProfiler::bucket(static_cast<std::uint64_t>(dist))]++;
        if (!l1) (dist < 0 ? p.phase_first : p.phase_reuse)[phase] += 1;
        if (dist < 0) (l1 ? p.l1_cold : p.l2_cold)++;
        else (l1 ? p.l1_hist : p.l2_hist)[ReuseProfiler::bucket(static_cast<std::uint64_t>(dist))]++;
        if (dist < 0) request_first_touch = true;
        else request_longest = std::max(request_longest, dist);
        if (!l1 && dist < 0 && (secs[j] >> 2) != last_cold_line) {  // secs are sorted
          ++cold_lines;
          last_cold_line = secs[j] >> 2;
        }
        if (l1 && dist < 0) {
          first_in_cta_[begin_[at] + j] = 1;
          std::uint64_t& n = sharers_.slot(secs[j]);
          n = (n + 1) | kMark;
        } else if (!l1 && load && dist >= 0 && first_in_cta_[begin_[at] + j] && window_sharers_ >= kMinSharers &&
                   (sharers_.find(secs[j]) & ~kMark) >= window_sharers_) {
          // The CTA's first touch of a sector that every CTA of the window touches (a table, a
          // tree's top, a vector all rows read): in the grid it is data the CTAs resident on an
          // SM, and those before them, all read, found in L1 when it is held that long. Its
          // distance is the window's, which interleaves window_sharers_ CTAs: per CTA, as l1_hist.
          p.l1_shared_hist[ReuseProfiler::bucket(static_cast<std::uint64_t>(dist) / window_sharers_)]++;
        }
        if (!l1 && dist < 0) {
          // A first touch: its 64 B neighbour may be in L2 already, fetched by an earlier
          // request's load (one in this request arrives with it; a store fetches nothing).
          const std::uint64_t mate = secs[j] ^ 1;
          const bool mate_here = (j > 0 && secs[j - 1] == mate) || (j + 1 < nsec && secs[j + 1] == mate);
          if (store) stored_first_.insert(secs[j]);
          else if (load) {
            // A sector a CTA not traced so far stores earlier in its stream (a running neighbour
            // of the reader, or one after it), by how many CTAs after the reader it comes.
            if (!grid_stores_.empty()) {
              const std::int64_t writer = grid_stores_.writer(secs[j], static_cast<double>(di - ws.begin));
              if (writer >= 0) {
                const auto reader = static_cast<std::int64_t>(linear_cta(ws.cta, k.launch.grid));
                p.l2_cold_written_later[writer_bucket(static_cast<std::uint64_t>(std::max<std::int64_t>(0, writer - reader)))]++;
              }
            }
            const std::int64_t mate_dist = mate_here || stored_first_.count(mate) ? -1 : rp.distance_since(mate);
            if (mate_dist < 0) outright_miss = true;
            else if (fills < 64) fill_buckets[fills++] = ReuseProfiler::bucket(static_cast<std::uint64_t>(mate_dist));
          }
        }
        if (l1) {
          const std::uint64_t bit = warp - lowest < 63 ? std::uint64_t(1) << (warp - lowest) : 0;
          std::uint64_t& seen = touched.slot(secs[j]);
          const bool own_before = (seen & bit) != 0;
          seen |= bit | (std::uint64_t(1) << 63);  // never 0: the map's empty mark
          if (dist >= 0 && previous_warp != warp && !own_before) p.l1_sibling_hist[ReuseProfiler::bucket(static_cast<std::uint64_t>(dist))]++;
        }
        if (store && written_.insert(secs[j]).second) ++p.l2_first_writes;
        if (!l1 && !first_half_.empty() && first_half_.count(warp) && first_half_touched_.insert(secs[j]).second) ++p.l2_cold_first_half;
      }
      if (!outright_miss)
        for (std::size_t f = 0; f < fills; ++f) p.l2_pair_fill_hist[fill_buckets[f]]++;
      if (load && nsec > 0) {
        if (request_first_touch) (l1 ? p.l1_request_cold : p.l2_request_cold)++;
        else (l1 ? p.l1_request_hist : p.l2_request_hist)[ReuseProfiler::bucket(static_cast<std::uint64_t>(request_longest))]++;
        if (!l1 && cold_lines > 0) p.l2_request_cold_lines[std::min(cold_lines, PcStats::kMaxColdLines)]++;
      }
      if (!l1 && load && windows_ == 1 && nsec > 0) {
        if (extents_.size() <= d.static_index) extents_.resize(pcs_.size());
        extents_[d.static_index].add(warp < cta_of_warp_.size() ? cta_of_warp_[warp] : LoadExtent::kPlaces, secs, nsec);
      }
    });
  }

  std::vector<PcStats> pcs_;  // the profile parts, per PC
  std::vector<Sums> sums_;     // the counts, per PC (unscaled)
  std::vector<std::uint8_t> dyn_wavefronts_;
  std::vector<std::uint8_t> dyn_partial_sectors_;
  std::vector<std::uint8_t> dyn_bank_passes_;
  std::vector<std::int8_t> through_l1_;  // per PC: -1 not yet known
  std::vector<std::int8_t> lane_passes_;  // per shared atomic PC: its sass::SharedLanePasses, -1 not yet known
  std::vector<std::uint64_t> sectors_;  // the window's coalesced sectors
  std::vector<std::size_t> begin_;
  // Sectors shared by the whole window: only where it holds enough CTAs to tell data every CTA
  // reads from data neighbours share (a window is consecutive CTAs, which run on different SMs).
  static constexpr std::size_t kMinSharers = 4;
  static constexpr std::uint64_t kMark = std::uint64_t(1) << 63;  // LastUseMap's slots are never 0
  std::vector<std::uint8_t> first_in_cta_;  // per window sector: the CTA's first touch (L1 pass)
  LastUseMap sharers_;                     // sector -> the window's CTAs that touched it (| kMark)
  std::size_t window_sharers_ = 0;         // the window's CTAs, once the L1 passes counted them
  ReuseProfiler l2_;
  GridStores grid_stores_;  // the stores of CTAs not traced so far, from the window's
  std::vector<int> store_slot_;  // store_ranges' scratch: per PC, its place among the CTA's store PCs (-1: none)
  std::unordered_set<std::uint64_t> written_;  // sectors stored to so far (L2 profile)
  std::unordered_set<std::uint64_t> stored_first_;  // sectors a store touched first (L2 profile): not fetched
  std::unordered_set<std::uint32_t> first_half_;  // warps of the window's first half of CTAs
  std::unordered_set<std::uint64_t> first_half_touched_;  // sectors those warps touched
  std::vector<std::uint32_t> cta_of_warp_;  // first window: warp -> its CTA's place (UINT32_MAX: none)
  std::vector<LoadExtent> extents_;  // per load PC, over the first window
  bool window_spans_grid_ = false;     // the first window reaches every dimension the grid extends in
  std::size_t windows_ = 0, window_ctas_ = 0, first_window_ctas_ = 0;
  std::unordered_map<std::uint64_t, double> word_updates_, line_passes_;
  double per_cta_distinct_ = 0, atomic_ints_ = 0, atomic_floats_ = 0, atomic_updates_ = 0;
  std::vector<std::vector<std::uint64_t>> cta_words_;  // each traced CTA's distinct atomic words, sorted
  std::uint64_t lowest_word_ = UINT64_MAX, highest_word_ = 0;  // the traced atomics' address extent, in words
  std::size_t ctas_with_atomics_ = 0;
  bool saw_addresses_ = false;
};

// A CtaSink that profiles a trace's CTAs as they are read, window by window, and lets the
// reader drop all but the first kKeptCtas: those a simulation replays (an SM holds no more).
// The results are the same as AddressProfiler's over the whole loaded trace, but for a CTA
// whose warps come in more than one block (batch analysis joins them).
class StreamedAddresses : public CtaSink {
 public:
  static constexpr std::size_t kKeptCtas = AddressProfiler::kWindowCtas;

  void ctas_read(Kernel& k, std::size_t first_new) override {
    for (auto& cta : ctas_of(k, first_new)) pending_.push_back(std::move(cta));
    if (pending_.size() >= AddressProfiler::kWindowCtas) flush(k);
  }
  void trace_read(Kernel& k) override { flush(k); }

  const AddressProfiler& profiler() const { return profiler_; }

 private:
  void flush(Kernel& k) {
    if (pending_.empty()) return;
    for (auto& cta : pending_)
      if (ctas_++ < kKeptCtas) kept_warps_ = std::max<std::size_t>(kept_warps_, cta.back() + 1);
    const std::uint64_t kept_dyn = kept_warps_ ? k.warps[kept_warps_ - 1].end : 0;
    profiler_.add_window(k, pending_, kept_dyn);
    pending_.clear();
    k.drop_warps_from(kept_warps_);
  }

  AddressProfiler profiler_{0};
  std::vector<std::vector<std::uint32_t>> pending_;  // CTAs read since the last window
  std::size_t ctas_ = 0, kept_warps_ = 0;
};

// The analysis of a loaded trace: that of its streamed CTAs, or windows of
// AddressProfiler::kWindowCtas CTAs of the whole trace.
inline void profile_addresses(const Kernel& k, KernelAnalysis& a) {
  if (const auto* streamed = dynamic_cast<const StreamedAddresses*>(k.streamed.get())) {
    streamed->profiler().finish(a);
    a.has_addresses = streamed->profiler().saw_addresses();
    return;
  }
  AddressProfiler p(k.program.size());
  const std::size_t W = AddressProfiler::kWindowCtas;
  for (std::size_t c0 = 0; c0 < a.ctas.size(); c0 += W) {
    std::vector<std::vector<std::uint32_t>> window(a.ctas.begin() + static_cast<std::ptrdiff_t>(c0),
                                                   a.ctas.begin() + static_cast<std::ptrdiff_t>(std::min(a.ctas.size(), c0 + W)));
    p.add_window(k, window, k.dyn.size());
  }
  p.finish(a);
  a.has_addresses = p.saw_addresses();
}

}  // namespace detail

// A sink for AccelSimKernelReader::Options::cta_sink: the reader keeps only the CTAs a
// simulation replays, and analyze() takes the rest from the sink.
inline std::shared_ptr<CtaSink> stream_addresses() { return std::make_shared<detail::StreamedAddresses>(); }

}  // namespace gpuperf
