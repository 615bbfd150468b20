// The analysis phases that read a dynamic trace's addresses: CTAs, coalescing and bank
// conflicts, the atomics' address distribution, and streaming reuse-distance profiles.
#pragma once

#include <algorithm>
#include <cstdint>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "gpuperf/model/kernel_analysis.hpp"
#include "gpuperf/model/memory.hpp"
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

// Per-word update counts over the traced CTAs. The traced CTAs stand for the grid: words that
// every CTA shares (a histogram's bins) keep their number, words private to a CTA (per-block
// counters) multiply with the grid; the overlap between CTAs decides between the two.
inline void profile_atomics(const Kernel& k, KernelAnalysis& a) {
  std::unordered_map<std::uint64_t, double> count;
  double per_cta_distinct = 0, ints = 0, floats = 0, updates = 0;
  std::size_t ctas_with_atomics = 0;
  for (const auto& cta : a.ctas) {
    std::unordered_set<std::uint64_t> words_here;
    for (auto w : cta)
      for (std::uint64_t di = k.warps[w].begin; di < k.warps[w].end; ++di) {
        const auto& d = k.dyn[di];
        const auto& s = k.program[d.static_index];
        if (!is_global_atomic(s) || d.addr_count == 0) continue;
        bool is_float = s.opcode.find(".F32") != std::string::npos || s.opcode.find(".F16") != std::string::npos ||
                        s.opcode.find(".F64") != std::string::npos || s.opcode.find(".BF16") != std::string::npos;
        std::uint64_t words[64];
        unsigned n = std::min<unsigned>(d.addr_count, 64);
        k.lane_addresses(d, words);
        for (unsigned l = 0; l < n; ++l) {
          words[l] >>= 2;
          count[words[l]] += 1;
          words_here.insert(words[l]);
        }
        (is_float ? floats : ints) += atomic_sector_passes(words, n);
        updates += n;
      }
    if (!words_here.empty()) {
      per_cta_distinct += static_cast<double>(words_here.size());
      ++ctas_with_atomics;
    }
  }
  if (count.empty()) return;
  double sum_sq = 0, hot = 0;
  for (auto& [wd, c] : count) { sum_sq += c * c; hot = std::max(hot, c); }
  double distinct = static_cast<double>(count.size());
  double mean_cta = per_cta_distinct / static_cast<double>(ctas_with_atomics);
  // 0 when every CTA touches the same words, 1 when CTAs' words are disjoint.
  double disjoint = per_cta_distinct > mean_cta ? std::clamp((distinct - mean_cta) / (per_cta_distinct - mean_cta), 0.0, 1.0) : 0.0;
  double grow = 1 + disjoint * (a.scale - 1);
  a.atomics.ops_int = ints * a.scale;
  a.atomics.ops_float = floats * a.scale;
  a.atomics.updates = updates * a.scale;
  a.atomics.effective_words = updates * updates / sum_sq * grow;
  a.atomics.hot_updates = hot * a.scale / grow;
}

// CTAs of a dynamic trace, in trace order, each a list of its warps.
inline void group_ctas(const Kernel& k, KernelAnalysis& a) {
  a.dyn_wavefronts.assign(k.dyn.size(), 0);
  std::unordered_map<std::uint64_t, std::vector<std::uint32_t>> by_cta;
  std::vector<std::uint64_t> cta_order;
  for (std::uint32_t w = 0; w < k.warps.size(); ++w) {
    auto key = detail::cta_key(k.warps[w].cta);
    auto [it, fresh] = by_cta.try_emplace(key);
    if (fresh) cta_order.push_back(key);
    it->second.push_back(w);
  }
  for (auto key : cta_order) a.ctas.push_back(by_cta[key]);
}

// The sectors of every coalesced dynamic instruction, kept by address_counts so that the
// reuse profiles (L1 and L2 passes) do not coalesce each memory instruction twice more.
// begin[di]..begin[di + 1] index `sectors`; off when the pool would pass 32-bit offsets.
struct SectorCache {
  std::vector<std::uint64_t> sectors;
  std::vector<std::uint32_t> begin;
  bool usable() const { return !begin.empty(); }
};

// Dynamic traces: coalescing and bank conflicts from addresses, per PC and per dynamic instruction.
inline void address_counts(const Kernel& k, KernelAnalysis& a, SectorCache* cache = nullptr) {
  if (cache) cache->begin.assign(k.dyn.size() + 1, 0);
  std::uint64_t sec[64], lane[64];
  std::vector<double> sectors(k.program.size(), 0), lines(k.program.size(), 0), wavefronts(k.program.size(), 0), reqs(k.program.size(), 0),
      partial_sectors(k.program.size(), 0), partial_lines(k.program.size(), 0);
  for (std::size_t di = 0; di < k.dyn.size(); ++di) {
    if (cache && cache->usable()) {
      if (cache->sectors.size() > 0xffffffffull - 64) cache->begin.clear();
      else cache->begin[di] = static_cast<std::uint32_t>(cache->sectors.size());
    }
    const auto& d = k.dyn[di];
    const auto& s = k.program[d.static_index];
    if (s.space == MemSpace::none || s.space == MemSpace::constant || d.addr_count == 0) {
      if (s.space != MemSpace::none && s.space != MemSpace::constant && d.active_mask) a.dyn_wavefronts[di] = 1;
      continue;
    }
    k.lane_addresses(d, lane);
    const std::uint64_t* ad = lane;
    unsigned w = d.mem_width ? d.mem_width : std::max(1u, s.access_bits / 8);
    reqs[d.static_index] += 1;
    if (s.space == MemSpace::shared) {
      unsigned wf = shared_wavefronts(ad, d.addr_count, w);
      wavefronts[d.static_index] += wf;
      a.dyn_wavefronts[di] = static_cast<std::uint8_t>(std::min(255u, wf));
    } else {
      auto c = coalesce(ad, d.addr_count, w, sec);
      if (cache && cache->usable()) cache->sectors.insert(cache->sectors.end(), sec, sec + c.sectors);
      sectors[d.static_index] += c.sectors;
      lines[d.static_index] += c.lines;
      unsigned wf = std::max(1u, c.lines);
      wavefronts[d.static_index] += wf;
      a.dyn_wavefronts[di] = static_cast<std::uint8_t>(std::min(255u, wf));
      if (s.mem_op == MemOp::store && partial_store(c.sectors, double(d.addr_count) * w)) {
        if (a.dyn_partial_store.empty()) a.dyn_partial_store.assign(k.dyn.size(), false);
        a.dyn_partial_store[di] = true;
        partial_sectors[d.static_index] += c.sectors;
        partial_lines[d.static_index] += c.lines;
      }
    }
  }
  if (cache && cache->usable()) cache->begin[k.dyn.size()] = static_cast<std::uint32_t>(cache->sectors.size());
  if (a.has_addresses) detail::profile_atomics(k, a);
  for (std::size_t i = 0; i < k.program.size(); ++i) {
    auto& p = a.pcs[i];
    if (reqs[i] == 0) continue;
    p.requests = reqs[i] * a.scale;
    p.sectors = sectors[i] * a.scale;
    p.lines = lines[i] * a.scale;
    p.wavefronts = wavefronts[i] * a.scale;
    p.partial_store_sectors = partial_sectors[i] * a.scale;
    p.partial_store_lines = partial_lines[i] * a.scale;
  }
}

// Reuse profiles from addresses: L1 within each CTA; L2 over the traced grid's interleaved stream.
inline void reuse_profiles(const Kernel& k, KernelAnalysis& a, const SectorCache* cache = nullptr) {
  const bool cached = cache && cache->usable();
  std::uint64_t sec[64], lane[64];
  // L1: reuse within each CTA; L2: the traced grid's interleaved stream.
  std::unordered_set<std::uint64_t> written;  // sectors stored to so far (L2 stream only)
  auto profile = [&](const std::vector<std::uint32_t>& warps, ReuseProfiler& rp, bool l1) {
    detail::interleave(k, warps, [&](std::uint32_t warp, std::uint64_t di) {
      const auto& d = k.dyn[di];
      const auto& s = k.program[d.static_index];
      if (d.addr_count == 0 || !(s.space == MemSpace::global || s.space == MemSpace::local || s.space == MemSpace::generic)) return;
      const std::uint64_t* secs = sec;
      unsigned nsec;
      if (cached) {
        secs = cache->sectors.data() + cache->begin[di];
        nsec = cache->begin[di + 1] - cache->begin[di];
      } else {
        unsigned w = d.mem_width ? d.mem_width : std::max(1u, s.access_bits / 8);
        k.lane_addresses(d, lane);
        nsec = coalesce(lane, d.addr_count, w, sec).sectors;
      }
      auto& p = a.pcs[d.static_index];
      p.has_profile = true;
      const bool store = !l1 && s.mem_op == MemOp::store;
      for (unsigned j = 0; j < nsec; ++j) {
        std::uint32_t previous_warp = warp;  // L1: the warp of the sector's previous access
        std::int64_t dist = l1 ? rp.access(secs[j], warp, previous_warp) : rp.access(secs[j]);
        if (dist < 0) (l1 ? p.l1_cold : p.l2_cold)++;
        else (l1 ? p.l1_hist : p.l2_hist)[ReuseProfiler::bucket(static_cast<std::uint64_t>(dist))]++;
        if (dist >= 0 && previous_warp != warp) p.l1_sibling_hist[ReuseProfiler::bucket(static_cast<std::uint64_t>(dist))]++;
        if (store && written.insert(secs[j]).second) ++p.l2_first_writes;
      }
    });
  };
  for (auto& cta : a.ctas) {
    ReuseProfiler rp;
    profile(cta, rp, true);
  }
  std::vector<std::uint32_t> all(k.warps.size());
  for (std::uint32_t w = 0; w < all.size(); ++w) all[w] = w;
  ReuseProfiler rp2;
  rp2.reserve(k.dyn.size());
  profile(all, rp2, false);

}

}  // namespace detail

}  // namespace gpuperf
