// Memory-side pure functions: coalescing of per-lane addresses into 32 B sectors and 128 B
// lines, shared-memory bank conflicts, L2 atomic passes, streaming reuse distances (O(N log M))
// and the analytic set-associative hit probability (PPT-GPU's formula without its abs() defect).
#pragma once

#include <boost/math/distributions/normal.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <unordered_map>
#include <vector>

#include "gpuperf/model/assumptions.hpp"

namespace gpuperf {

struct Coalesced {
  std::uint32_t sectors = 0;  // distinct 32 B sectors
  std::uint32_t lines = 0;    // distinct 128 B lines
};

// Distinct sectors/lines touched by one warp request. `width` bytes per lane; an access
// that straddles a sector boundary touches both.
inline Coalesced coalesce(const std::uint64_t* addr, unsigned n, unsigned width, std::uint64_t* sector_out = nullptr) {
  std::uint64_t sec[64];
  unsigned ns = 0, raw = 0;  // at most 64 sectors are looked at, repeats included
  for (unsigned i = 0; i < n; ++i) {
    std::uint64_t first = addr[i] >> 5, last = (addr[i] + (width ? width : 1) - 1) >> 5;
    // Neighbouring lanes mostly share a sector: dropping a repeat of the last one here leaves
    // the sorted distinct set below the same and the sort short (often already in order).
    for (std::uint64_t s = first; s <= last && raw < 64; ++s, ++raw)
      if (ns == 0 || sec[ns - 1] != s) sec[ns++] = s;
  }
  if (!std::is_sorted(sec, sec + ns)) std::sort(sec, sec + ns);
  ns = static_cast<unsigned>(std::unique(sec, sec + ns) - sec);
  Coalesced c;
  c.sectors = ns;
  std::uint64_t prev_line = ~0ull;
  for (unsigned i = 0; i < ns; ++i) {
    if ((sec[i] >> 2) != prev_line) { ++c.lines; prev_line = sec[i] >> 2; }
    if (sector_out) sector_out[i] = sec[i];
  }
  return c;
}

// Distinct `width`-byte words among a warp's lane addresses (an indexed constant load's passes:
// the constant unit serves one word at a time, every lane that reads it at once). An address
// not aligned to the width counts by the word it starts in.
inline unsigned distinct_words(const std::uint64_t* addr, unsigned n, unsigned width) {
  std::uint64_t w[32];
  n = std::min(n, 32u);
  const std::uint64_t bytes = width ? width : 1;
  for (unsigned i = 0; i < n; ++i) w[i] = addr[i] / bytes;
  std::sort(w, w + n);
  return static_cast<unsigned>(std::unique(w, w + n) - w);
}

// Whether a store request writes its sectors only in part (fewer bytes than they hold, on
// average over the request): L1 then hands each of its lines to L2 as a byte-masked write.
inline bool partial_store(double sectors, double bytes) { return bytes < 32.0 * sectors; }

// The sectors a store request writes in part (fewer than 32 of their bytes), from its lanes'
// distinct addresses: a coalesced store that starts mid-sector writes its first and last in
// part, a scattered 4 B store every one.
inline unsigned partly_written_sectors(const std::uint64_t* addr, unsigned n, unsigned width) {
  std::uint64_t a[64];
  n = std::min(n, 64u);
  std::copy(addr, addr + n, a);
  std::sort(a, a + n);
  n = static_cast<unsigned>(std::unique(a, a + n) - a);
  const std::uint64_t w = width ? width : 1;
  unsigned partial = 0;
  std::uint64_t sector = ~0ull, bytes = 0;
  for (unsigned i = 0; i < n; ++i)
    for (std::uint64_t b = a[i], end = a[i] + w; b < end;) {
      const std::uint64_t s = b >> 5, upto = std::min(end, (s + 1) << 5);
      if (s != sector) {
        if (sector != ~0ull && bytes < 32) ++partial;
        sector = s;
        bytes = 0;
      }
      bytes += upto - b;
      b = upto;
    }
  if (sector != ~0ull && bytes < 32) ++partial;
  return partial;
}

// The same from counts alone: a request of `sectors` sectors that writes `bytes` lacks
// sectors - bytes / 32 sectors' worth; each lacking sector's bytes fall short in at most two
// sectors (a coalesced store that starts mid-sector), all of them where lanes scatter.
inline double partly_written_sectors_estimate(double sectors, double bytes) {
  if (!partial_store(sectors, bytes)) return 0;
  return std::min(sectors, 2 * std::ceil(sectors - bytes / 32));
}

// L1 wavefronts of a global request: one per 128 B line it touches (calibrate group lsu:
// requests over 1, 4, 8 and 32 lines on one bank take a cycle per line, loads, hits, misses and
// reductions alike; loads on several banks cost less, global_load_wavefronts); a store's partly
// written sectors hold the SM's path to L2 `sector_cost` wavefronts each beyond their lines'
// (calibrate/l1_slot_probe.cu: 32, 16 and 8 lines of 1, 2 and 4 such sectors take 64, 48 and 40
// cycles).
inline double global_l1_wavefronts(double lines, double partial_sectors, double sector_cost) {
  return lines + sector_cost * partial_sectors;
}

// L1 wavefronts of a global load through L1 over `lines` lines with `passes` data-bank passes,
// whose sectors hit L1 at `sector_hit`: the more of its passes and its lines at `hit_lines`
// lines a wavefront where all its lines hit, at `miss_lines` where one misses
// (calibrate/l1_slot_probe.cu: 32 lines on distinct banks take 10.2 cycles on hits, 12.5 on
// misses that fill L1; on one bank 32). Its lines hit or miss independently.
inline double global_load_wavefronts(double lines, double passes, double sector_hit, double hit_lines, double miss_lines) {
  const double all_hit = std::pow(std::clamp(sector_hit, 0.0, 1.0), lines);
  const double on_hit = std::min(lines, std::max(passes, lines / hit_lines));
  const double on_miss = std::min(lines, std::max(passes, lines / miss_lines));
  return all_hit * on_hit + (1 - all_hit) * on_miss;
}

// The largest number of distinct words that map to one bank (1 for no words). Most requests
// are conflict-free (consecutive words, broadcasts): one pass that finds every bank holding at
// most one distinct word answers without sorting; a conflict sorts, as it always did.
inline unsigned bank_ways(std::uint64_t* words, unsigned nw, unsigned banks) {
  if (banks <= 64) {
    std::uint64_t word_in[64];
    std::uint64_t used = 0;
    bool conflict = false;
    for (unsigned i = 0; i < nw && !conflict; ++i) {
      const unsigned b = static_cast<unsigned>(words[i] % banks);
      const std::uint64_t bit = std::uint64_t(1) << b;
      if (!(used & bit)) {
        used |= bit;
        word_in[b] = words[i];
      } else {
        conflict = word_in[b] != words[i];
      }
    }
    if (!conflict) return 1;
  }
  std::sort(words, words + nw);
  nw = static_cast<unsigned>(std::unique(words, words + nw) - words);
  unsigned count[64] = {0};
  unsigned ways = 1;
  for (unsigned i = 0; i < nw; ++i) ways = std::max(ways, ++count[words[i] % banks]);
  return ways;
}

// L1 data-bank passes of a global load over `lines` 128 B lines: for each of the 32 banks of
// 4 B, the distinct lines whose words in it the lanes read; the most of them
// (calibrate/l1_slot_probe.cu: a hit of 32 lines whose lanes share bank 0 takes 32 passes, one
// whose lanes sit on 4, 8 or 16 banks takes 8 or 16). Lanes of one contiguous run of words take
// its length over 32 banks.
inline unsigned global_bank_passes(const std::uint64_t* addr, unsigned n, unsigned width, unsigned lines) {
  if (lines <= 1 || n == 0) return lines;
  const unsigned w = width ? width : 1;
  bool contiguous = true;
  for (unsigned i = 1; i < n && contiguous; ++i) contiguous = addr[i] == addr[i - 1] + w;
  if (contiguous) {
    const std::uint64_t words = (addr[n - 1] + w - 1) / 4 - addr[0] / 4 + 1;
    return static_cast<unsigned>(std::min<std::uint64_t>(lines, (words + 31) / 32));
  }
  std::uint64_t words[128];
  unsigned nw = 0;
  for (unsigned i = 0; i < n; ++i)
    for (std::uint64_t word = addr[i] / 4, last = (addr[i] + w - 1) / 4; word <= last && nw < 128; ++word) words[nw++] = word;
  return std::min(lines, bank_ways(words, nw, assume::l1_data_banks));
}

// The expected largest number of `balls` thrown at random into `bins` (1..64 each) that land
// in one bin: sum over m of P(most > m), with P(most <= m) = balls! / bins^balls [x^balls]
// (sum_{j<=m} x^j / j!)^bins.
inline double expected_most_in_one_bin(unsigned balls, unsigned bins) {
  balls = std::min(balls, 64u);
  bins = std::clamp(bins, 1u, 64u);
  if (balls <= 1 || bins == 1) return balls;
  double log_norm = std::lgamma(balls + 1.0) - balls * std::log(double(bins));
  double expected = 0;
  std::vector<double> term(balls + 1), power(balls + 1), next(balls + 1);
  for (unsigned j = 0; j <= balls; ++j) term[j] = std::exp(-std::lgamma(j + 1.0));  // 1 / j!
  for (unsigned m = 1; m < balls; ++m) {  // P(most > 0) = 1 is the first term
    std::fill(power.begin(), power.end(), 0.0);
    power[0] = 1;
    for (unsigned b = 0; b < bins; ++b) {  // power *= term, truncated at degree balls
      std::fill(next.begin(), next.end(), 0.0);
      for (unsigned d = 0; d <= balls; ++d)
        if (power[d] != 0)
          for (unsigned j = 0; j <= m && d + j <= balls; ++j) next[d + j] += power[d] * term[j];
      power.swap(next);
    }
    const double more = 1 - std::min(1.0, std::exp(log_norm) * power[balls]);
    expected += more;
    if (more < 1e-9) break;  // the later terms are smaller still
  }
  return 1 + expected;
}

// The expected L1 data-bank passes of a gathered global load (count-only inputs, whose lanes'
// addresses are not known): `lines` lines a request, each holding the words of about
// lanes / lines lanes of `width` bytes at a random offset, as a run of banks; the most runs on
// one of the 32 banks (global_bank_passes' measure). A trace's gathers (HeCBench simpleSpmv's
// CSR rows) share passes this way.
inline double gathered_bank_passes(double lines, double lanes, unsigned width) {
  if (!(lines > 1)) return std::max(lines, 0.0);
  const double run_words = std::max(1.0, std::max(1u, width / 4) * std::max(1.0, lanes / lines));
  const unsigned banks = assume::l1_data_banks;
  unsigned run = 1;
  while (run < banks && run < run_words) run *= 2;
  const unsigned balls = static_cast<unsigned>(std::clamp(std::lround(lines), 1L, 64L));
  return std::min(lines, expected_most_in_one_bin(balls, banks / run));
}

// Shared-memory wavefronts for one warp request: 32 banks of `bank_bytes`; accesses wider
// than 4 B are served per half-warp (8 B) or quarter-warp (16 B). Lanes reading the same
// word are broadcast. Returns the number of bank passes (1 = conflict-free).
// Inlined: with the default geometry (32 banks of 4 B) constant, its loops cost half as much.
[[gnu::always_inline]] inline unsigned shared_wavefronts(const std::uint64_t* addr, unsigned n, unsigned width, unsigned banks = 32, unsigned bank_bytes = 4) {
  if (n == 0) return 0;
  unsigned group = width >= 16 ? 8 : width >= 8 ? 16 : 32;
  unsigned total = 0;
  for (unsigned g0 = 0; g0 < n; g0 += group) {
    unsigned g1 = std::min(n, g0 + group);
    // Most requests are one broadcast address or consecutive lanes (stride = width): at most
    // 32 consecutive words, one per bank, without listing them.
    if ((width == 1 || width == 2 || width == 4 || width == 8 || width == 16) && bank_bytes == 4 && banks == 32) {
      const std::uint64_t stride = g1 - g0 > 1 ? addr[g0 + 1] - addr[g0] : 0;
      bool regular = stride == 0 || stride == width;
      for (unsigned i = g0 + 1; i < g1 && regular; ++i) regular = addr[i] - addr[i - 1] == stride;
      if (regular) {
        total += 1;
        continue;
      }
    }
    // For each bank, count distinct words touched.
    std::uint64_t words[128];
    unsigned nw = 0;
    for (unsigned i = g0; i < g1; ++i) {
      unsigned per = std::max(1u, width / bank_bytes);
      for (unsigned k = 0; k < per && nw < 128; ++k) words[nw++] = addr[i] / bank_bytes + k;
    }
    total += bank_ways(words, nw, banks);
  }
  return total;
}

// Shared-memory wavefronts of a request whose lanes each take their own pass in their bank
// (sass::SharedLanePasses::per_lane: an ATOMS.ADD's lanes on one word are served one after the
// other, calibrate/shared_atomic_probe.cu): the most lanes on one bank, per half-warp (8 B) or
// quarter-warp (16 B) group as for loads, times `passes_per_lane`.
inline unsigned shared_lane_wavefronts(const std::uint64_t* addr, unsigned n, unsigned width, unsigned passes_per_lane = 1) {
  if (n == 0) return 0;
  constexpr unsigned banks = 32, bank_bytes = 4;
  const unsigned group = width >= 16 ? 8 : width >= 8 ? 16 : 32;
  const unsigned per = std::max(1u, width / bank_bytes);
  unsigned total = 0;
  for (unsigned g0 = 0; g0 < n; g0 += group) {
    const unsigned g1 = std::min(n, g0 + group);
    unsigned count[banks] = {0}, most = 1;
    for (unsigned i = g0; i < g1; ++i)
      for (unsigned k = 0; k < per; ++k) most = std::max(most, ++count[(addr[i] / bank_bytes + k) % banks]);
    total += most;
  }
  return total * passes_per_lane;
}

// Passes of the L2's atomic unit for one warp's atomic request on 4 B words: lanes on distinct
// words of a 32 B sector share a pass, lanes on the same word take one pass each (measured: a
// warp whose lanes all update one word costs as much as 32 lanes on 32 lines), so a sector
// costs the largest number of lanes on one of its words. `on_line(line, passes)` hears each
// 128 B line's passes, in line order. Sorts `words` in place.
template <class OnLine>
inline unsigned atomic_sector_passes(std::uint64_t* words, unsigned n, OnLine&& on_line) {
  std::sort(words, words + n);
  unsigned passes = 0, line_passes = 0;
  for (unsigned l = 0, run = 0, best = 0; l < n; ++l) {
    run = (l > 0 && words[l] == words[l - 1]) ? run + 1 : 1;
    best = std::max(best, run);
    if (l + 1 == n || (words[l + 1] >> 3) != (words[l] >> 3)) {
      passes += best;
      line_passes += best;
      best = 0;
    }
    if (l + 1 == n || (words[l + 1] >> 5) != (words[l] >> 5)) {
      on_line(words[l] >> 5, line_passes);
      line_passes = 0;
    }
  }
  return passes;
}
inline unsigned atomic_sector_passes(std::uint64_t* words, unsigned n) {
  return atomic_sector_passes(words, n, [](std::uint64_t, unsigned) {});
}

// Sector key -> last access time (never 0), open addressing with linear probing: the reuse
// profiler's lookup is most of its cost, and a node-based map allocates per key.
class LastUseMap {
 public:
  std::size_t size() const { return size_; }
  // The slot for key, with 0 if the key is new (the caller stores a time).
  std::uint64_t& slot(std::uint64_t key) {
    if (2 * (size_ + 1) > keys_.size()) rehash(std::max<std::size_t>(64, keys_.size() * 2));
    std::size_t i = index(key);
    while (vals_[i] != 0 && keys_[i] != key) i = (i + 1) & mask_;
    if (vals_[i] == 0) { keys_[i] = key; ++size_; }
    return vals_[i];
  }
  // The time stored for key, or 0 for a key not in the map.
  std::uint64_t find(std::uint64_t key) const {
    if (keys_.empty()) return 0;
    std::size_t i = index(key);
    while (vals_[i] != 0 && keys_[i] != key) i = (i + 1) & mask_;
    return vals_[i];
  }
  // Replaces every stored time t by f(t) (never 0).
  template <class F>
  void remap(F&& f) {
    for (auto& v : vals_)
      if (v) v = f(v);
  }

 private:
  std::size_t index(std::uint64_t key) const { return static_cast<std::size_t>((key * 0x9E3779B97F4A7C15ull) >> shift_); }
  void rehash(std::size_t n) {
    std::vector<std::uint64_t> k(n), v(n);
    k.swap(keys_);
    v.swap(vals_);
    mask_ = n - 1;
    shift_ = 64 - __builtin_ctzll(n);
    for (std::size_t j = 0; j < k.size(); ++j)
      if (v[j]) {
        std::size_t i = index(k[j]);
        while (vals_[i] != 0) i = (i + 1) & mask_;
        keys_[i] = k[j];
        vals_[i] = v[j];
      }
  }
  std::vector<std::uint64_t> keys_, vals_;
  std::size_t size_ = 0, mask_ = 0;
  int shift_ = 64;
};

// Parts of each warp's instruction stream over which the kernel's DRAM and L2 traffic is
// placed in time (PcStats::phase_first, Bounds::memory_phases).
inline constexpr int kTrafficPhases = 8;

// Buckets of PcStats::l2_cold_written_later, by how many CTAs after the reader (in linear id)
// the writer comes: bucket b holds [2^b - 1, 2^(b+1) - 1) (an earlier writer counts as 0).
inline constexpr int kWriterBuckets = 32;
inline int writer_bucket(std::uint64_t ctas_after) {
  int b = 0;
  for (std::uint64_t n = ctas_after + 1; n > 1; n >>= 1) ++b;
  return std::min(b, kWriterBuckets - 1);
}
// The share of bucket b's distances below `ctas` (a writer that many CTAs after the reader, or
// fewer, runs beside it: the CTAs of a round).
inline double writer_bucket_share_below(int b, double ctas) {
  const double lo = std::ldexp(1.0, b) - 1, hi = std::ldexp(1.0, b + 1) - 1;
  return std::clamp((ctas - lo) / (hi - lo), 0.0, 1.0);
}

// Streaming LRU stack-distance profiler (distinct keys since the previous use of the same key),
// using a Fenwick tree over access times: O(log N) per access. Only each key's latest time is
// live; when the dead times would make the tree grow, the live ones are numbered again in
// order instead, so its memory follows the distinct keys, not the accesses.
class ReuseProfiler {
 public:
  static constexpr int kBuckets = 64;  // bucket b holds distances in [2^(b/2), 2^((b+1)/2))
  void reserve(std::size_t n) { grow(n + 1); }
  // Returns the stack distance, or -1 for a first (cold) access.
  std::int64_t access(std::uint64_t key) {
    std::uint64_t prev = 0;
    return touch(key, prev);
  }
  // The same for an access made by `owner` (a warp of the CTA): `previous_owner` gets the
  // owner of the key's previous access (left as it is for a cold access).
  std::int64_t access(std::uint64_t key, std::uint32_t owner, std::uint32_t& previous_owner) {
    std::uint64_t prev = 0;
    const std::int64_t d = touch(key, prev);
    if (owners_.size() <= time_) owners_.resize(std::max<std::size_t>(time_ + 1, owners_.size() * 2));
    owners_[time_] = owner;
    if (d >= 0) previous_owner = owners_[prev];
    return d;
  }
  // Distinct keys used since `key`'s latest use (the stack distance an access to it now would
  // have), or -1 for a key never used. Records nothing.
  std::int64_t distance_since(std::uint64_t key) const {
    const std::uint64_t last = last_.find(key);
    if (last == 0) return -1;
    return static_cast<std::int64_t>(sum(time_) - sum(last));
  }
  std::uint64_t accesses() const { return accesses_; }
  std::size_t times_held() const { return tree_.size(); }  // access times the profiler holds (memory)
  std::uint64_t cold() const { return cold_; }
  std::uint64_t distinct() const { return last_.size(); }
  const std::uint64_t* histogram() const { return hist_; }
  static int bucket(std::uint64_t d) {
    if (d == 0) return 0;
    double b = 2.0 * std::log2(double(d) + 1);
    return std::min(kBuckets - 1, static_cast<int>(b));
  }
  // Representative distance of a bucket (geometric middle).
  static double bucket_distance(int b) { return std::pow(2.0, (b + 0.5) / 2.0) - 1; }

 private:
  // One access at time ++time_; `prev` gets the key's previous access time (a reuse only).
  std::int64_t touch(std::uint64_t key, std::uint64_t& prev) {
    std::int64_t result = -1;
    if (tree_.size() <= time_ + 1) {
      if (time_ > 2 * last_.size() + kMinCompact) compact();
      if (tree_.size() <= time_ + 1) grow(std::max<std::size_t>(time_ + 2, tree_.size() * 2 + 1));
    }
    std::uint64_t t = ++time_;
    std::uint64_t& last = last_.slot(key);
    if (last == 0) {
      ++cold_;
      last = t;
    } else {
      prev = last;
      std::uint64_t distinct = sum(t - 1) - sum(prev);  // keys whose latest use is after prev
      add(prev, -1);
      live_[prev] = 0;
      last = t;
      ++hist_[bucket(distinct)];
      max_distance_ = std::max(max_distance_, distinct);
      result = static_cast<std::int64_t>(distinct);
    }
    add(t, +1);
    live_[t] = 1;
    ++accesses_;
    return result;
  }
  // Distances count live times between two uses, so numbering the live times 1..n in their
  // order changes none of them (nor an owner's record).
  void compact() {
    std::vector<std::uint64_t> renumbered(static_cast<std::size_t>(time_) + 1, 0);
    std::uint64_t n = 0;
    for (std::uint64_t t = 1; t <= time_; ++t)
      if (live_[t]) {
        renumbered[t] = ++n;
        if (t < owners_.size()) owners_[n] = owners_[t];
      }
    last_.remap([&](std::uint64_t t) { return renumbered[t]; });
    std::fill(live_.begin(), live_.end(), std::uint8_t(0));
    std::fill(live_.begin() + 1, live_.begin() + 1 + static_cast<std::ptrdiff_t>(n), std::uint8_t(1));
    time_ = n;
    rebuild();
  }
  // Fenwick nodes above the old size cover old positions, so growing rebuilds the tree
  // from the per-time liveness flags in O(n).
  void grow(std::size_t n) {
    if (n <= tree_.size()) return;
    live_.resize(n, 0);
    tree_.resize(n);
    rebuild();
  }
  void rebuild() {
    const std::size_t n = tree_.size();
    std::fill(tree_.begin(), tree_.end(), 0);
    for (std::size_t i = 1; i < n; ++i) {
      tree_[i] += live_[i];
      std::size_t j = i + (i & (~i + 1));
      if (j < n) tree_[j] += tree_[i];
    }
  }
  void add(std::uint64_t i, int v) { for (; i < tree_.size(); i += i & (~i + 1)) tree_[i] += v; }
  std::uint64_t sum(std::uint64_t i) const {
    std::int64_t s = 0;
    for (; i > 0; i -= i & (~i + 1)) s += tree_[i];
    return static_cast<std::uint64_t>(s);
  }
  std::vector<std::int32_t> tree_;
  std::vector<std::uint8_t> live_;
  std::vector<std::uint32_t> owners_;  // per access time, its owner (access with an owner only)
  static constexpr std::uint64_t kMinCompact = 1u << 16;  // not for small profiles: growing is cheaper
  LastUseMap last_;
  std::uint64_t time_ = 0, cold_ = 0, accesses_ = 0, max_distance_ = 0;
  std::uint64_t hist_[kBuckets] = {0};
};

// Probability that an access with stack distance D hits in a cache of B blocks and
// associativity A under random set mapping: the number of the D distinct intervening blocks
// that fall in the same set is ~ Normal(mu = D*A/B, sigma^2 = mu*(B-A)/B); the access hits
// if fewer than A of them map there. PPT-GPU used Q(|A-1-mu|/sigma), which is >= 0.5 for
// every finite D; the correct form is Phi((A-1-mu)/sigma).
inline double hit_probability(double distance, double blocks, double assoc) {
  if (blocks <= 0) return 0;
  if (distance <= 0) return 1;
  assoc = std::min(assoc, blocks);
  if (assoc >= blocks) return distance < blocks ? 1.0 : 0.0;  // fully associative LRU
  double mu = distance * assoc / blocks;
  double sigma = std::sqrt(mu * (blocks - assoc) / blocks);
  if (sigma <= 0) return mu <= assoc - 1 ? 1.0 : 0.0;
  static const boost::math::normal_distribution<double> N01(0.0, 1.0);
  return boost::math::cdf(N01, (assoc - 1 + 0.5 - mu) / sigma);  // +0.5: continuity correction
}

// Expected hits of a reuse histogram's accesses in a cache of `capacity_bytes` with
// `block_bytes` blocks.
inline double expected_hits(const std::uint64_t* hist, double capacity_bytes, double block_bytes, double assoc) {
  double hits = 0;
  double blocks = capacity_bytes / block_bytes;
  for (int b = 0; b < ReuseProfiler::kBuckets; ++b)
    if (hist[b]) hits += static_cast<double>(hist[b]) * hit_probability(ReuseProfiler::bucket_distance(b), blocks, assoc);
  return hits;
}

// Hit rate of a reuse profile (`cold` first touches besides the histogram's reuses).
inline double hit_rate(const std::uint64_t* hist, std::uint64_t cold, double capacity_bytes, double block_bytes, double assoc) {
  double total = static_cast<double>(cold);
  for (int b = 0; b < ReuseProfiler::kBuckets; ++b) total += static_cast<double>(hist[b]);
  return total > 0 ? expected_hits(hist, capacity_bytes, block_bytes, assoc) / total : 0;
}

// Share of a reuse profile's accesses (cold ones included, `hist` giving the total) that are
// reuses in `near_hist` with a stack distance below `window` distinct blocks.
inline double near_reuse_share(const std::uint64_t* hist, const std::uint64_t* near_hist, std::uint64_t cold, double window) {
  double total = static_cast<double>(cold), near = 0;
  for (int b = 0; b < ReuseProfiler::kBuckets; ++b) {
    total += static_cast<double>(hist[b]);
    if (near_hist[b] && ReuseProfiler::bucket_distance(b) < window) near += static_cast<double>(near_hist[b]);
  }
  return total > 0 ? near / total : 0;
}

}  // namespace gpuperf
