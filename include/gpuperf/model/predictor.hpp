// The Predictor: a kernel's analysis and the values it caches per GPU, and the options of a
// prediction. Its stages are in predict_stages.hpp, predict() in predict.hpp and the what-if
// sweep (predict_times) in sweep.hpp.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "gpuperf/arch/gpu_spec.hpp"
#include "gpuperf/arch/instr_desc.hpp"
#include "gpuperf/model/analysis.hpp"
#include "gpuperf/model/memory_model.hpp"
#include "gpuperf/model/occupancy.hpp"
#include "gpuperf/model/prediction.hpp"
#include "gpuperf/model/round_table.hpp"
#include "gpuperf/model/waves.hpp"

namespace gpuperf {

enum class ModelMode { automatic, simulation, bounds };

struct PredictOptions {
  ModelMode mode = ModelMode::automatic;
  bool per_pc = true;
  int shared_carveout_kib = -1;  // -1: the driver's choice
  // The kernel's data are already in L2 when it starts, as when a kernel is timed in a loop
  // (CUDA events); off for profiler-style cold runs (ncu flushes caches before each launch).
  bool warm_l2 = false;
  // The kernel's duration (default) or the time per launch back to back (implies warm L2).
  Target target = Target::duration;
};

// How a sweep (Predictor::predict_times) gets its rounds: interpolated between rounds
// computed at fixed DRAM-latency nodes (model/round_table.hpp), or computed for every point
// as predict() does.
enum class SweepRounds { interpolated, exact };

namespace detail {

// What a prediction derives for one GPU before its rounds: descriptors, occupancy, memory
// rates, the loaded DRAM latency, the mode and the rounds of CTAs.
struct Setup {
  std::shared_ptr<const std::vector<InstrDesc>> desc;
  std::shared_ptr<const MemoryRates> rates;
  Occupancy occupancy;
  double warm_fraction = 0;
  bool cold_l2 = false;  // the launch starts on an L2 holding none of its data (ncu's flush; not back-to-back)
  double dram_latency = 0;  // at the launch's load, SM cycles
  // The idle DRAM latency over dram_latency (<= 1; the same at any clock), where the busiest
  // warp's extra path needs it (count inputs in bounds mode), else 0.
  double idle_dram_ratio = 0;
  bool sim = false;
  Waves waves;
};

// The memory rates' inputs: arch table (cache geometry), L1 capacity (carve-out), L2 size and
// the warm-L2 share.
struct RatesKey {
  std::uint64_t tables_id = 0;
  std::string arch;
  int shared_config_kib = 0;
  L1Sharing l1;
  double l2_bytes = 0, warm_fraction = 0;
  bool cold_l2 = false;
  double round_ctas = 0;  // SMs x CTAs an SM holds (pc_rates: which writers run beside a reader)
  bool operator==(const RatesKey& o) const {
    return tables_id == o.tables_id && arch == o.arch && shared_config_kib == o.shared_config_kib && l1 == o.l1 &&
           l2_bytes == o.l2_bytes && warm_fraction == o.warm_fraction && cold_l2 == o.cold_l2 && round_ctas == o.round_ctas;
  }
};

class SweepBlock;  // a block of predict_times' points (sweep.hpp)

}  // namespace detail

// ---------------------------------------------------------------------------------------
// Predictor: holds a kernel's analysis; predicts for any GPU spec. const methods are safe to
// call from many threads. Cached per Predictor, each under the key of everything it reads:
// descriptors per (table set, arch, ALU scale), memory rates per (table set, arch, carve-out,
// L2 size, warm share), and for sweeps the rounds at DRAM-latency nodes (model/round_table.hpp).
class Predictor {
 public:
  explicit Predictor(std::shared_ptr<const Kernel> k) : an_(std::make_shared<KernelAnalysis>(analyze(std::move(k)))) {}
  explicit Predictor(std::shared_ptr<const KernelAnalysis> an) : an_(std::move(an)) {}

  const KernelAnalysis& analysis() const { return *an_; }

  static DescKey desc_key(const GpuSpec& g) { return DescKey{g.tables->id(), g.arch, g.alu_latency_scale}; }

  std::shared_ptr<const std::vector<InstrDesc>> descriptors(const GpuSpec& g) const {
    DescKey key = desc_key(g);
    {
      std::lock_guard<std::mutex> lock(mu_);
      for (auto& [k, v] : desc_cache_)
        if (k == key) return v;
    }
    const ArchTable& a = g.arch_table();
    const IsaTable& isa = g.tables->isa(a.isa);
    auto v = std::make_shared<std::vector<InstrDesc>>();
    std::map<std::string, InstrDesc> by_opcode;
    for (auto& s : an_->kernel->program) {
      auto f = by_opcode.find(s.opcode);
      if (f == by_opcode.end()) f = by_opcode.emplace(s.opcode, make_descriptor(s.opcode, a, isa, g.alu_latency_scale)).first;
      v->push_back(f->second);
    }
    std::lock_guard<std::mutex> lock(mu_);
    if (desc_cache_.size() >= kSmallCacheEntries) desc_cache_.clear();
    desc_cache_.emplace_back(std::move(key), v);
    return v;
  }

  // Per-PC hit rates and traffic on g (model/memory_model.hpp), cached.
  std::shared_ptr<const MemoryRates> memory_rates(const GpuSpec& g, const Occupancy& o, double warm_fraction, bool cold_l2) const {
    const detail::L1Sharing l1 = detail::l1_sharing(*an_, g, o);
    detail::RatesKey key{g.tables->id(), g.arch, o.shared_config_kib, l1, g.l2_bytes, warm_fraction, cold_l2, detail::round_ctas(g, o)};
    {
      std::lock_guard<std::mutex> lock(mu_);
      for (auto& [k, v] : rates_cache_)
        if (k == key) return v;
    }
    auto v = std::make_shared<const MemoryRates>(gpuperf::memory_rates(*an_, g, o, l1, warm_fraction, cold_l2));
    std::lock_guard<std::mutex> lock(mu_);
    if (rates_cache_.size() >= kSmallCacheEntries) rates_cache_.clear();
    rates_cache_.emplace_back(std::move(key), v);
    return v;
  }

  KernelReport predict(const GpuSpec& g, const PredictOptions& opt = {}) const;

  // The kernel's predicted time (predict(g, opt).time_us) for each spec, on `jobs` threads
  // (0: every core). SweepRounds::interpolated takes each round from the rounds at the DRAM
  // latencies around the point's (computed once per key and cached, model/round_table.hpp):
  // within the error bench/what_if_error.py measures of predict(), and equal to it where the
  // point's latency is a node. The result does not depend on `jobs` or on the other specs.
  std::vector<double> predict_times(const std::vector<GpuSpec>& gpus, const PredictOptions& opt = {}, unsigned jobs = 1,
                                    SweepRounds rounds = SweepRounds::interpolated) const;

  struct CacheInfo {
    std::size_t round_keys = 0, round_nodes = 0;  // held now (nodes: and rounds at a point's own latency)
    std::size_t rounds_computed = 0;              // since construction
  };
  CacheInfo cache_info() const {
    std::lock_guard<std::mutex> lock(mu_);
    CacheInfo c;
    c.round_keys = rounds_cache_.size();
    for (auto& [k, nodes] : rounds_cache_) c.round_nodes += nodes.size();
    for (auto& [k, own] : own_cache_) c.round_nodes += own.size();
    c.rounds_computed = rounds_computed_;
    return c;
  }
  // Drops every cached value (benchmarks time sweeps from a cold start with it).
  void clear_cache() const {
    std::lock_guard<std::mutex> lock(mu_);
    desc_cache_.clear();
    rates_cache_.clear();
    rounds_cache_.clear();
    own_cache_.clear();
    round_nodes_ = 0;
  }

 private:
  friend class detail::SweepBlock;
  detail::Setup setup(const GpuSpec& g, const PredictOptions& opt, std::shared_ptr<const std::vector<InstrDesc>> desc,
                      std::vector<Warning>& warnings) const;

  static constexpr std::size_t kSmallCacheEntries = 64;      // descriptor and rate sets
  static constexpr std::size_t kRoundNodesCached = 1 << 16;  // rounds at nodes (about 200 B each)

  std::shared_ptr<const KernelAnalysis> an_;
  mutable std::mutex mu_;
  mutable std::vector<std::pair<DescKey, std::shared_ptr<const std::vector<InstrDesc>>>> desc_cache_;
  mutable std::vector<std::pair<detail::RatesKey, std::shared_ptr<const MemoryRates>>> rates_cache_;
  mutable std::map<RoundKey, std::map<int, RoundSummary>> rounds_cache_;
  mutable std::map<RoundKey, std::map<double, RoundSummary>> own_cache_;  // rounds at a point's own DRAM latency
  mutable std::size_t round_nodes_ = 0, rounds_computed_ = 0;
};
}  // namespace gpuperf

#ifdef GPUPERF_HEADER_ONLY
#include "gpuperf/model/predict.hpp"
#include "gpuperf/model/sweep.hpp"
#endif
