// What-if sweeps: Predictor::predict_times, the kernel's time for many GPU specs. Each point's
// rounds are interpolated in its loaded DRAM latency between rounds computed at fixed latency
// nodes (round_table.hpp), cached per Predictor; a point where the kernel's time around it is
// not smooth in that latency gets rounds of its own, as predict() computes them.
// A definition file: compiled once in the library (src/lib/model.cpp), or included by
// predictor.hpp when GPUPERF_HEADER_ONLY; never include it beside the compiled library.
#pragma once

#include <algorithm>
#include <array>
#include <cmath>
#include <map>
#include <mutex>
#include <tuple>
#include <utility>
#include <vector>

#include "gpuperf/model/predict.hpp"
#include "gpuperf/model/predict_stages.hpp"
#include "gpuperf/model/predictor.hpp"
#include "gpuperf/model/round_table.hpp"
#include "gpuperf/parallel.hpp"

namespace gpuperf {
namespace detail {

// One block of a sweep's points (at most kBlock, whose setups are held at once), predicted
// in steps: set up each point, index the rounds they need, take the rounds at the nodes
// around each point from the cache or compute them, pick the points that need rounds of
// their own, get those, and write each point's time.
class SweepBlock {
 public:
  static constexpr std::size_t kBlock = 8192;

  SweepBlock(const Predictor& p, const std::vector<GpuSpec>& gpus, std::size_t first, std::size_t n, const PredictOptions& opt, unsigned jobs,
             std::vector<double>& out)
      : p_(p), an_(*p.an_), gpus_(gpus), first_(first), n_(n), opt_(opt), jobs_(jobs), out_(out), pts_(n), own_of_(n, {-1, -1}) {}

  void run() {
    set_up_points();
    index_rounds();
    get_node_rounds();
    choose_own_rounds();
    get_own_rounds();
    write_times();
  }

 private:
  // A point: its setup and, per round (full, tail), its key's index; its DRAM latency's node.
  struct Point {
    Setup s;
    CtaBalance balance;  // the grid's counted work on this point's SMs (once per placement)
    int full = -1, tail = -1, node = 0;
    bool exact = false;  // a DRAM latency no node brackets (not finite, or not above 0)
  };
  // What memory_latencies reads of a point besides D (the descriptors and rates by identity:
  // equal pointers are equal values while the points hold them), and what else the round
  // reads of it apart from its CTAs: points equal in these share a key's latency vectors.
  using Signature = std::tuple<const std::vector<InstrDesc>*, const MemoryRates*, double, double, double, bool, int, double, int>;
  struct Need {
    int key = 0, node = 0;
    std::size_t point = 0;  // a point of this key: its GPU gives the latencies at the node
  };

  const GpuSpec& gpu(std::size_t i) const { return gpus_[first_ + i]; }
  const RoundKey& key(int k) const { return keys_[static_cast<std::size_t>(k)]; }

  // Setups; a point no node brackets gets predict()'s time at once.
  void set_up_points() {
    parallel_for(n_, jobs_, [&](std::size_t i) {
      std::vector<Warning> ignored;
      Point& pt = pts_[i];
      pt.s = p_.setup(gpu(i), opt_, p_.descriptors(gpu(i)), ignored);
      pt.exact = !(pt.s.dram_latency > 0 && std::isfinite(pt.s.dram_latency));
      if (pt.exact) {
        PredictOptions o = opt_;
        o.per_pc = false;
        out_[first_ + i] = p_.predict(gpu(i), o).time_us;
        return;
      }
      pt.node = round_node_below(pt.s.dram_latency);
    });
  }

  // The keys of each point's full and tail rounds, and the nodes around each point.
  void index_rounds() {
    // Points that place the grid alike share its balance (a grid of many uneven CTAs takes
    // a pass over them).
    std::map<std::tuple<int, int, int, double, int>, CtaBalance> balances;
    for (std::size_t i = 0; i < n_; ++i) {
      Point& pt = pts_[i];
      if (pt.exact) continue;
      const Waves& w = pt.s.waves;
      const auto placement = std::make_tuple(gpu(i).sms, w.blocks_per_sm, w.round_ctas(), w.per_sm, gpu(i).arch_table().sub_partitions);
      auto found = balances.find(placement);
      if (found == balances.end()) found = balances.emplace(placement, launch_balance(an_, w, gpu(i))).first;
      pt.balance = found->second;
      const std::size_t base = base_of(i);
      pt.full = key_of(base, pt.s.waves.round_ctas(), i);
      if (pt.s.waves.has_tail()) pt.tail = key_of(base, static_cast<int>(pt.s.waves.tail), i);
    }
    auto order = [](const Need& x, const Need& y) { return std::tie(x.key, x.node, x.point) < std::tie(y.key, y.node, y.point); };
    auto same = [](const Need& x, const Need& y) { return x.key == y.key && x.node == y.node; };
    std::sort(needed_.begin(), needed_.end(), order);
    needed_.erase(std::unique(needed_.begin(), needed_.end(), same), needed_.end());
  }

  // The point-free key (no CTAs) of point i's signature, made on first sight.
  std::size_t base_of(std::size_t i) {
    const Point& pt = pts_[i];
    const GpuSpec& g = gpu(i);
    const Signature sig{pt.s.desc.get(), pt.s.rates.get(), g.l1_hit_latency, g.l2_hit_latency, g.shared_latency, pt.s.sim, pt.s.occupancy.warps_per_block,
                        pt.s.idle_dram_ratio, pt.s.occupancy.active_warps_per_sm};
    auto [it, added] = base_index_.emplace(sig, bases_.size());
    if (added) {
      RoundKey k;
      k.desc = Predictor::desc_key(g);
      k.simulation = pt.s.sim;
      k.warps_per_block = pt.s.occupancy.warps_per_block;
      k.idle_dram_ratio = pt.s.idle_dram_ratio;
      k.loaded_warps_per_sm = pt.s.occupancy.active_warps_per_sm;
      memory_latencies(an_, *pt.s.desc, g, *pt.s.rates, 0.0, k.latency_at_0);
      memory_latencies(an_, *pt.s.desc, g, *pt.s.rates, 1.0, k.latency_at_1);
      bases_.push_back(std::move(k));
    }
    return it->second;
  }

  // The key of (base, CTAs), made on first sight; point i needs its four nodes around it.
  int key_of(std::size_t base, int ctas, std::size_t i) {
    auto [it, added] = key_index_.emplace(std::make_pair(base, ctas), static_cast<int>(keys_.size()));
    if (added) {
      keys_.push_back(bases_[base]);
      keys_.back().ctas = ctas;
      keys_.back().seal();
    }
    for (int d = -1; d <= 2; ++d) needed_.push_back({it->second, pts_[i].node + d, i});
    return it->second;
  }

  // The round of key k for point i's GPU at DRAM latency d.
  RoundSummary round_at(std::size_t i, int k, double d) const {
    const Point& pt = pts_[i];
    RoundModel rm;
    make_round_model(rm, an_, *pt.s.desc, gpu(i), *pt.s.rates, d, pt.s.idle_dram_ratio, pt.s.occupancy.active_warps_per_sm);
    return summarize_round(rm, gpu(i), pt.s.occupancy, key(k).ctas, pt.s.sim);
  }

  // The kernel's time at point i from its rounds.
  double time_of(std::size_t i, const RoundSummary& full, double tail_cycles) const {
    const Point& pt = pts_[i];
    return kernel_time(full.bounds, full.cycles, tail_cycles, full.busiest_cycles, full.streamed_cycles, pt.s.waves, pt.balance,
                       an_.kernel->launch.warps_per_cta(), pt.s.rates->stats, an_.atomics, gpu(i), pt.s.sim,
                       opt_.target)
        .time_us;
  }

  // Makes room for `adding` more cached rounds (under the lock): past the limit, both
  // caches start again.
  void make_room(std::size_t adding) const {
    if (p_.round_nodes_ + adding > Predictor::kRoundNodesCached) {
      p_.rounds_cache_.clear();
      p_.own_cache_.clear();
      p_.round_nodes_ = 0;
    }
  }

  // The rounds at the nodes: from the cache, or computed (outside the lock, on `jobs` threads).
  void get_node_rounds() {
    std::vector<Need> todo;
    {
      std::lock_guard<std::mutex> lock(p_.mu_);
      for (const Need& nd : needed_) {
        auto c = p_.rounds_cache_.find(key(nd.key));
        auto f = c == p_.rounds_cache_.end() ? decltype(c->second.end()){} : c->second.find(nd.node);
        if (c != p_.rounds_cache_.end() && f != c->second.end()) nodes_.emplace(std::make_pair(nd.key, nd.node), f->second);
        else todo.push_back(nd);
      }
    }
    std::vector<RoundSummary> computed(todo.size());
    parallel_for(todo.size(), jobs_, [&](std::size_t t) { computed[t] = round_at(todo[t].point, todo[t].key, round_node_latency(todo[t].node)); });
    std::lock_guard<std::mutex> lock(p_.mu_);
    make_room(todo.size());
    for (std::size_t t = 0; t < todo.size(); ++t) {
      nodes_.emplace(std::make_pair(todo[t].key, todo[t].node), computed[t]);
      if (p_.rounds_cache_[key(todo[t].key)].emplace(todo[t].node, computed[t]).second) ++p_.round_nodes_;
    }
    p_.rounds_computed_ += todo.size();
  }

  // Points whose kernel time at the four nodes around them is not on a smooth curve
  // (simulated rounds jitter with the scheduling) get their own rounds: one per (key, DRAM
  // latency), e.g. once for a whole bandwidth sweep.
  void choose_own_rounds() {
    std::map<std::pair<int, double>, std::size_t> own_index;
    for (std::size_t i = 0; i < n_; ++i) {
      const Point& pt = pts_[i];
      if (pt.exact) continue;
      double at[4];
      for (int d = -1; d <= 2; ++d) {
        const double tail = pt.tail >= 0 ? nodes_.at({pt.tail, pt.node + d}).cycles : 0;
        at[d + 1] = time_of(i, nodes_.at({pt.full, pt.node + d}), tail);
      }
      if (nodes_smooth(at[0], at[1], at[2], at[3])) continue;
      for (int r = 0; r < 2; ++r) {
        const int k = r == 0 ? pt.full : pt.tail;
        if (k < 0) continue;
        auto [it, added] = own_index.emplace(std::make_pair(k, pt.s.dram_latency), own_point_.size());
        if (added) { own_point_.push_back(i); own_key_.push_back(k); }
        own_of_[i][static_cast<std::size_t>(r)] = static_cast<int>(it->second);
      }
    }
  }

  // The own rounds: from the cache, or computed (kept for later sweeps).
  void get_own_rounds() {
    own_.resize(own_point_.size());
    std::vector<std::size_t> todo;
    {
      std::lock_guard<std::mutex> lock(p_.mu_);
      for (std::size_t t = 0; t < own_.size(); ++t) {
        auto c = p_.own_cache_.find(key(own_key_[t]));
        auto f = c == p_.own_cache_.end() ? decltype(c->second.end()){} : c->second.find(pts_[own_point_[t]].s.dram_latency);
        if (c != p_.own_cache_.end() && f != c->second.end()) own_[t] = f->second;
        else todo.push_back(t);
      }
    }
    parallel_for(todo.size(), jobs_, [&](std::size_t u) {
      const std::size_t t = todo[u];
      own_[t] = round_at(own_point_[t], own_key_[t], pts_[own_point_[t]].s.dram_latency);
    });
    std::lock_guard<std::mutex> lock(p_.mu_);
    make_room(todo.size());
    for (std::size_t t : todo)
      if (p_.own_cache_[key(own_key_[t])].emplace(pts_[own_point_[t]].s.dram_latency, own_[t]).second) ++p_.round_nodes_;
    p_.rounds_computed_ += todo.size();
  }

  // Each point's time: from its own rounds, or its rounds interpolated in D between the two
  // nodes around it.
  void write_times() {
    parallel_for(n_, jobs_, [&](std::size_t i) {
      const Point& pt = pts_[i];
      if (pt.exact) return;
      RoundSummary full;
      double tail_cycles = 0;
      if (own_of_[i][0] >= 0) {
        full = own_[static_cast<std::size_t>(own_of_[i][0])];
        tail_cycles = own_of_[i][1] >= 0 ? own_[static_cast<std::size_t>(own_of_[i][1])].cycles : 0;
      } else {
        const double d0 = round_node_latency(pt.node), d1 = round_node_latency(pt.node + 1);
        const double t = (pt.s.dram_latency - d0) / (d1 - d0);
        auto round = [&](int k) { return interpolate(nodes_.at({k, pt.node}), nodes_.at({k, pt.node + 1}), t); };
        full = round(pt.full);
        if (pt.tail >= 0) tail_cycles = round(pt.tail).cycles;
      }
      out_[first_ + i] = time_of(i, full, tail_cycles);
    });
  }

  const Predictor& p_;
  const KernelAnalysis& an_;
  const std::vector<GpuSpec>& gpus_;
  const std::size_t first_, n_;
  const PredictOptions& opt_;
  const unsigned jobs_;
  std::vector<double>& out_;
  std::vector<Point> pts_;
  std::map<Signature, std::size_t> base_index_;  // signature -> its point-free key (no CTAs)
  std::vector<RoundKey> bases_;
  std::map<std::pair<std::size_t, int>, int> key_index_;  // (base, CTAs) -> key
  std::vector<RoundKey> keys_;
  std::vector<Need> needed_;
  std::map<std::pair<int, int>, RoundSummary> nodes_;  // (key, node) -> round
  std::vector<std::size_t> own_point_;                 // the first point of each own round
  std::vector<int> own_key_;
  std::vector<RoundSummary> own_;
  std::vector<std::array<int, 2>> own_of_;  // a point's own full and tail rounds
};

}  // namespace detail

GPUPERF_FUNC std::vector<double> Predictor::predict_times(const std::vector<GpuSpec>& gpus, const PredictOptions& opt, unsigned jobs,
                                                    SweepRounds how) const {
  std::vector<double> out(gpus.size());
  if (how == SweepRounds::exact) {
    PredictOptions o = opt;
    o.per_pc = false;
    parallel_for(gpus.size(), jobs, [&](std::size_t i) { out[i] = predict(gpus[i], o).time_us; });
    return out;
  }
  for (std::size_t first = 0; first < gpus.size(); first += detail::SweepBlock::kBlock)
    detail::SweepBlock(*this, gpus, first, std::min(detail::SweepBlock::kBlock, gpus.size() - first), opt, jobs, out).run();
  return out;
}

}  // namespace gpuperf
