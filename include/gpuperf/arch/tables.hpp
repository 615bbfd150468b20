// Latency/throughput tables, ISA maps and the GPU catalog, loaded from latency_tables/
// (schema_version 1, see latency_tables/README.md). Three levels: opcode -> op class (per ISA
// family) -> cost (per architecture, with `inherits`). Every value carries a source key.
#pragma once

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <initializer_list>
#include <fstream>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "gpuperf/checked.hpp"
#include "gpuperf/config.hpp"
#include "gpuperf/error.hpp"
#include "gpuperf/arch/param_schema.hpp"

namespace gpuperf {

inline constexpr int kTableSchemaVersion = 1;

struct Sourced {
  double value = 0;
  std::string source;  // key into the file's sources map
  std::string file;    // table file that supplied it (after inheritance)
};

struct ClassCost {
  Sourced latency, issue_interval;
  bool sm_scope = false;  // one unit shared by the SM's sub-partitions (e.g. FP64 on GeForce parts)
  bool unsupported = false;
  bool present = false;
};

// A measured relation y(x), e.g. atomic latency against the number of lanes hitting one address.
// Read piecewise-linearly in log2(x), clamped to the measured range.
struct Curve {
  std::vector<double> x, y;
  std::string source, file;
  double at(double v) const {
    if (x.empty()) return 0;
    if (v <= x.front()) return y.front();
    if (v >= x.back()) return y.back();
    std::size_t i = 1;
    while (x[i] < v) ++i;
    double l0 = std::log2(x[i - 1]), l1 = std::log2(x[i]), t = (std::log2(v) - l0) / (l1 - l0);
    return y[i - 1] + t * (y[i] - y[i - 1]);
  }
};

// A PTX instruction's SASS expansion and the cycles a seed measured for it (F1 Table V rows
// that are sequences): reference data, not a model input; the tests check that every SASS
// opcode named in them has a class.
struct PtxSequence {
  std::vector<std::string> sass;
  double cycles_min = 0, cycles_max = 0;
  std::string source, file;
};

// An architecture after inheritance is resolved.
struct ArchTable {
  std::string arch;       // "sm_80"
  std::string name;       // "Ampere (GA100)"
  std::string isa;        // "volta"
  int sm_version = 0;     // 80
  bool complete = false;
  int sub_partitions = 4;
  std::map<std::string, ClassCost> classes;
  std::map<std::string, Sourced> opcode_latency, opcode_issue_interval;
  std::map<std::string, Sourced> memory, cache, occupancy, tensor;
  std::vector<int> shared_carveouts_kib;
  std::map<std::string, Curve> curves;
  std::map<std::string, PtxSequence> ptx_sequences;
  std::map<std::string, std::string> sources;  // merged source map: key -> its description (JSON text)
  std::string file;                            // the table file that defines this arch
  std::vector<std::string> chain;        // inheritance chain, most specific first

  // A value of the memory, cache or occupancy section, or the schema's default for a key
  // the model reads without a table value (param_schema.hpp); else a TableError.
  double mem(const std::string& k) const { return get(memory, k, ParamSection::memory); }
  double cachev(const std::string& k) const { return get(cache, k, ParamSection::cache); }
  double occ(const std::string& k) const { return get(occupancy, k, ParamSection::occupancy); }
  static double get(const std::map<std::string, Sourced>& m, const std::string& k, ParamSection section) {
    auto it = m.find(k);
    if (it != m.end()) return it->second.value;
    const ParamSpec* p = find_param(section, k);
    if (p && p->use == ParamUse::defaulted) return p->default_value;
    throw TableError("table value '" + k + "' is missing (after inheritance)");
  }
  const Curve* curve(const std::string& k) const {
    auto it = curves.find(k);
    return it == curves.end() ? nullptr : &it->second;
  }
  std::string source_of(const std::map<std::string, Sourced>& m, const std::string& k) const {
    auto it = m.find(k);
    return it == m.end() ? "" : it->second.source;
  }
};

struct IsaTable {
  std::string family;
  std::map<std::string, std::string> base_class;                       // "FFMA" -> "fp32"
  std::map<std::string, std::map<std::string, std::string>> modifier_class;  // "IMAD" -> {"WIDE": "imad_wide"}
  std::vector<std::pair<std::string, std::string>> prefix_fallback;
  std::set<std::string> classes;
};

// Keys of a GPU's calibrated-interval bounds in gpus.json, interval_<mode>_<target>_log_<end>:
// one spelling for the schema, the checker and GpuSpec.
inline constexpr const char* kIntervalModes[] = {"simulation", "bounds"};
inline constexpr const char* kIntervalTargets[] = {"duration", "back_to_back"};
inline std::string interval_key(const std::string& mode, const std::string& target, const std::string& end) {
  return "interval_" + mode + "_" + target + "_log_" + end;
}

struct GpuEntry {
  std::string name;
  std::vector<std::string> aliases;
  std::vector<std::string> device_names;  // as profilers name the device ("NVIDIA H200")
  std::string arch;
  std::map<std::string, Sourced> values;  // sms, base_clock_mhz, boost_clock_mhz, dram_bandwidth_gbs, ...
  double get(const std::string& k) const { return ArchTable::get(values, k, ParamSection::gpu); }
  bool has(const std::string& k) const { return values.count(k) > 0; }
};

struct TableIssue {
  std::string file;
  std::string message;
};

namespace detail {

class TableLoader;  // reads the JSON files into a Tables (tables_load.hpp)

inline std::string user_config_tables_dir() {
  if (const char* x = std::getenv("XDG_CONFIG_HOME"); x && *x) return std::string(x) + "/gpuperf/tables";
  if (const char* h = std::getenv("HOME"); h && *h) return std::string(h) + "/.config/gpuperf/tables";
  return {};
}

}  // namespace detail

// The loaded set of tables. Immutable after load; share it freely between threads.
class Tables {
 public:
  // Search order (first wins, file by file): explicit dirs, $GPUPERF_TABLES, the user
  // config dir, then the shipped dir (compiled in as GPUPERF_DATA_DIR, or given).
  static std::vector<std::string> default_search_path(const std::vector<std::string>& explicit_dirs = {},
                                                      const std::string& shipped_dir = {}) {
    std::vector<std::string> p = explicit_dirs;
    if (const char* e = std::getenv("GPUPERF_TABLES"); e && *e) p.push_back(e);
    auto u = detail::user_config_tables_dir();
    std::error_code ec;  // an unreadable $HOME/.config is no user tables, not an error
    if (!u.empty() && std::filesystem::exists(u, ec)) p.push_back(u);
    if (!shipped_dir.empty()) p.push_back(shipped_dir);
#ifdef GPUPERF_DATA_DIR
    p.push_back(GPUPERF_DATA_DIR);
#endif
    if (const char* e = std::getenv("GPUPERF_SHIPPED_TABLES"); e && *e) p.push_back(e);
    return p;
  }

  static std::shared_ptr<const Tables> load(const std::vector<std::string>& search_path) {
    auto t = std::make_shared<Tables>();
    t->id_ = next_id();
    t->search_path_ = search_path;
    t->load_all();
    return t;
  }
  // The tables a prediction uses: every explicit directory must exist, and whatever
  // check() would report is an error here too (a table `tables check` rejects never predicts).
  static std::shared_ptr<const Tables> load_default(const std::vector<std::string>& explicit_dirs = {}) {
    return validated(load_unchecked(explicit_dirs));
  }
  // As load_default without check(): for `tables check`, which lists every problem.
  static std::shared_ptr<const Tables> load_unchecked(const std::vector<std::string>& explicit_dirs = {}) {
    require_directories(explicit_dirs);
    return load(default_search_path(explicit_dirs));
  }
  // A directory the user names must exist: a mistyped --tables path is an error, not ignored.
  static void require_directories(const std::vector<std::string>& dirs) {
    for (auto& d : dirs) {
      std::error_code ec;
      if (!std::filesystem::is_directory(d, ec)) throw TableError(d + ": latency-table directory does not exist or is not a directory");
    }
  }
  static std::shared_ptr<const Tables> validated(std::shared_ptr<const Tables> t) {
    auto issues = t->check();
    if (issues.empty()) return t;
    std::string msg = "latency tables rejected by `gpuperf tables check` (" + std::to_string(issues.size()) + " problem(s)):";
    for (std::size_t i = 0; i < issues.size() && i < 5; ++i) msg += "\n  " + issues[i].file + ": " + issues[i].message;
    if (issues.size() > 5) msg += "\n  ...";
    throw TableError(msg);
  }

  const ArchTable& arch(const std::string& name) const {
    auto it = arch_.find(normalize_arch(name));
    if (it == arch_.end()) {
      std::string have;
      for (auto& [k, v] : arch_) have += (have.empty() ? "" : ", ") + k;
      throw TableError("no latency table for architecture '" + name + "' (have: " + have + "; searched: " + search_list() + ")");
    }
    return it->second;
  }
  bool has_arch(const std::string& name) const { return arch_.count(normalize_arch(name)) != 0; }
  // Closest architecture for a compute capability: exact, else the highest at or below it.
  const ArchTable& arch_for_sm(int sm) const {
    const ArchTable* best = nullptr;
    for (auto& [k, v] : arch_)
      if (v.sm_version <= sm && (!best || v.sm_version > best->sm_version)) best = &v;
    if (!best) throw TableError("no latency table at or below sm_" + std::to_string(sm));
    return *best;
  }
  const IsaTable& isa(const std::string& family) const {
    auto it = isa_.find(family);
    if (it == isa_.end()) throw TableError("no ISA map for family '" + family + "' (searched: " + search_list() + ")");
    return it->second;
  }
  const std::vector<GpuEntry>& gpus() const { return gpus_; }
  const std::string& default_gpu() const { return default_gpu_; }
  const GpuEntry& gpu(const std::string& name_or_alias) const {
    auto lower = [](std::string s) { for (auto& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c))); return s; };
    std::string q = lower(name_or_alias);
    for (auto& g : gpus_) {
      if (lower(g.name) == q) return g;
      for (auto& a : g.aliases) if (lower(a) == q) return g;
    }
    std::string have;
    for (auto& g : gpus_) have += (have.empty() ? "" : ", ") + (g.aliases.empty() ? g.name : g.aliases.front());
    throw UnknownGpuError("unknown GPU '" + name_or_alias + "' (known: " + have + "; `gpuperf gpus` lists them)");
  }
  const std::vector<std::string>& search_path() const { return search_path_; }
  // Identity of this load, unique in the process: caches key by it, never by address (a
  // freed table set's address can be reused by the next one).
  std::uint64_t id() const { return id_; }
  const std::vector<TableIssue>& issues() const { return issues_; }
  const std::vector<std::string>& loaded_files() const { return loaded_files_; }

  static std::string normalize_arch(std::string a) {
    if (a.rfind("sm", 0) != 0) a = "sm_" + a;
    if (a.size() > 2 && a[2] != '_') a.insert(2, "_");
    return a;
  }

  // Validation of everything loaded: returns problems found (empty = all good). Load errors
  // that prevent use are thrown by load(); check() collects the rest.
  std::vector<TableIssue> check() const;

 private:
  static std::uint64_t next_id() {
    static std::atomic<std::uint64_t> n{0};
    return ++n;
  }
  std::string search_list() const {
    std::string s;
    for (auto& p : search_path_) s += (s.empty() ? "" : ", ") + p;
    return s.empty() ? "<none>" : s;
  }
  // First file with this relative path along the search path.
  std::optional<std::string> find_file(const std::string& rel) const {
    for (auto& d : search_path_) {
      auto p = std::filesystem::path(d) / rel;
      std::error_code ec;
      if (std::filesystem::exists(p, ec)) return p.string();
    }
    return std::nullopt;
  }
  std::set<std::string> list_files(const std::string& sub) const {
    std::set<std::string> names;
    for (auto& d : search_path_) {
      auto p = std::filesystem::path(d) / sub;
      std::error_code ec;
      if (!std::filesystem::is_directory(p, ec)) continue;
      std::filesystem::directory_iterator it(p, ec), end;
      if (ec) throw TableError(p.string() + ": cannot list table directory: " + ec.message());
      for (; it != end; it.increment(ec)) {
        if (ec) throw TableError(p.string() + ": cannot list table directory: " + ec.message());
        if (it->path().extension() == ".json") names.insert(it->path().filename().string());
      }
    }
    return names;
  }

  friend class detail::TableLoader;
  void load_all();  // every file along the search path, through detail::TableLoader

  std::uint64_t id_ = 0;
  std::vector<std::string> search_path_;
  std::map<std::string, IsaTable> isa_;
  std::map<std::string, ArchTable> arch_;
  std::vector<GpuEntry> gpus_;
  std::string default_gpu_ = "a100";
  std::vector<TableIssue> issues_;
  std::vector<std::string> loaded_files_;
};

}  // namespace gpuperf

// Loading and checking (the JSON parsing): inline here, or compiled in the library.
#ifdef GPUPERF_HEADER_ONLY
#include "gpuperf/arch/tables_load.hpp"
#endif
