// Loading and checking the latency tables: the definitions behind Tables::load and
// Tables::check. Included by tables.hpp for gpuperf::header_only, compiled once in
// src/lib/tables.cpp for gpuperf::gpuperf.
#pragma once

#include <fstream>
#include <iterator>
#include <string>

#include <nlohmann/json.hpp>

#include "gpuperf/arch/tables.hpp"

namespace gpuperf {

using json = nlohmann::json;

// Ranges that catch unit mistakes (ns for cycles, bytes for KiB, ...).
namespace detail {
struct Range { double lo, hi; };
// Known curves: the range of x and of y (units in the names; see latency_tables/README.md).
struct CurveSpec { Range x, y; };
inline const std::map<std::string, CurveSpec>& curve_specs() {
  static const std::map<std::string, CurveSpec> r = {
      {"shared_atomic_latency_vs_contention", {{1, 32}, {1, 10000}}},
      {"global_atomic_latency_vs_contention", {{1, 32}, {1, 10000}}},
      {"global_atomic_ops_per_cycle_vs_addresses", {{1, 1e9}, {0.001, 1000}}},
      {"global_atomic_f32_ops_per_cycle_vs_addresses", {{1, 1e9}, {0.001, 1000}}},
      {"global_atomic_ops_per_cycle_vs_lines", {{1, 1e9}, {0.001, 1000}}},
      {"l2_hit_latency_vs_footprint_gib", {{0.001, 1024}, {10, 10000}}},
      {"add_cpi_vs_timing_window", {{1, 4096}, {0.01, 100}}},
      {"const_latency_vs_footprint_kib", {{0.0625, 64}, {5, 2000}}},
      {"launch_time_us_vs_kernel_us", {{0.01, 1e6}, {0.1, 1e6}}},
      {"dram_latency_vs_utilization", {{1e-4, 1}, {50, 20000}}},
      {"dram_line_latency_vs_warps_per_sm", {{1, 64}, {50, 20000}}},
      {"dram_latency_cycles_vs_lines_per_request", {{1, 64}, {50, 20000}}},
      {"l2_hit_latency_cycles_vs_lines_per_request", {{1, 64}, {10, 10000}}},
      {"cta_dispatch_interval_cycles_vs_warps_per_cta", {{1, 64}, {0.01, 1000}}},
      {"cta_slot_turnaround_cycles_vs_warps_per_cta", {{1, 64}, {0, 10000}}}};
  return r;
}
// The plausible range of a key of `section` (param_schema.hpp), or none for a key it does not
// know. A GPU's calibrated-interval bounds, log(measured / predicted), are one key per model
// mode, target and end.
inline std::optional<Range> param_range(ParamSection section, const std::string& key) {
  if (const ParamSpec* p = find_param(section, key)) return Range{p->lo, p->hi};
  if (section == ParamSection::gpu)
    for (const char* mode : kIntervalModes)
      for (const char* target : kIntervalTargets)
        for (const char* end : {"low", "high"})
          if (key == interval_key(mode, target, end)) return Range{-10, 10};
  return std::nullopt;
}
}  // namespace detail


namespace detail {

// A key that appears twice in one JSON object, and the key of that object ("" at top level).
struct DuplicateKey {
  std::string object, key;
};

// Parses a table file. nlohmann::json objects keep one value per key silently, so the
// parser's events report keys seen twice in one object into `duplicates`.
inline json read_json_file(const std::string& path, std::vector<DuplicateKey>* duplicates = nullptr) {
  std::error_code ec;
  if (!std::filesystem::is_regular_file(path, ec)) throw IoError(path + ": table file is not a regular file");
  std::ifstream in(path, std::ios::binary);
  if (!in) throw IoError(path + ": cannot open table file");
  // Parsed from memory: nlohmann's stream adapter reads a character per virtual call.
  const std::string text{std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
  if (in.bad()) throw IoError(path + ": cannot read table file");
  std::vector<std::pair<std::string, std::set<std::string>>> objects;  // open objects: name, keys seen
  std::vector<std::string> arrays;                                       // open arrays: name
  std::string key;                                                       // the key whose value comes next
  auto name = [&] {  // of the container that starts now: its key, or its array's name + "[]"
    std::string n = !key.empty() ? key : arrays.empty() ? "" : arrays.back() + "[]";
    key.clear();
    return n;
  };
  json::parser_callback_t events = [&](int, json::parse_event_t ev, json& parsed) {
    switch (ev) {
      case json::parse_event_t::object_start: objects.push_back({name(), {}}); break;
      case json::parse_event_t::array_start: arrays.push_back(name()); break;
      case json::parse_event_t::object_end: objects.pop_back(); break;
      case json::parse_event_t::array_end: arrays.pop_back(); break;
      case json::parse_event_t::value: key.clear(); break;
      case json::parse_event_t::key:
        key = parsed.get<std::string>();
        if (!objects.empty() && !objects.back().second.insert(key).second && duplicates) duplicates->push_back({objects.back().first, key});
        break;
    }
    return true;
  };
  try {
    return json::parse(text, events);
  } catch (const json::parse_error& e) {
    throw TableError(path + ": invalid JSON: " + e.what());
  }
}

// Reads the table files along a Tables' search path into it: the JSON stays here, so including
// tables.hpp (and every model header) does not parse nlohmann/json. One loader per load.
class TableLoader {
 public:
  explicit TableLoader(Tables& t) : t_(t) {}
  void load_all();

 private:
  void note(const std::string& file, const std::string& msg) { issues_.push_back({file, msg}); }

  json read_table(const std::string& file) {
    std::vector<detail::DuplicateKey> dups;
    json j = detail::read_json_file(file, &dups);
    for (auto& d : dups)
      note(file, d.object == "opcodes" ? "duplicate opcode '" + d.key + "'"
                 : d.object.empty()     ? "duplicate top-level key '" + d.key + "'"
                                        : "duplicate key '" + d.key + "' in '" + d.object + "'");
    return j;
  }

  void check_header(const json& j, const std::string& file, const char* kind) {
    if (!j.is_object()) throw TableError(file + ": expected a JSON object at top level");
    if (!j.contains("schema_version")) throw TableError(file + ": missing 'schema_version'");
    if (j["schema_version"] != kTableSchemaVersion)
      throw TableError(file + ": schema_version " + j["schema_version"].dump() + " is not supported (this gpuperf reads " +
                       std::to_string(kTableSchemaVersion) + ")");
    if (j.value("kind", "") != kind) throw TableError(file + ": expected \"kind\": \"" + kind + "\"");
  }

  void check_sources(const json& j, const std::string& file) {
    if (!j.contains("sources") || !j["sources"].is_object()) { note(file, "missing 'sources' map"); return; }
    for (auto& item : j["sources"].items()) {
      const std::string key = item.key();
      const json& s = item.value();
      std::string kind = s.value("kind", "");
      auto need = [&](const char* f) { if (!s.contains(f) || !s[f].is_string() || s[f].get<std::string>().empty()) note(file, "source '" + key + "' of kind '" + kind + "' needs '" + f + "'"); };
      if (kind == "seed") { need("file"); need("where"); }
      else if (kind == "vendor") need("doc");
      else if (kind == "measured") { need("gpu"); need("tool"); need("date"); }
      else if (kind == "estimated") need("why");
      // Fitted by a committed program on a declared part of a measured corpus, e.g. "validation
      // train split (hecbench, rodinia)": never on the part the model is judged on.
      else if (kind == "fitted") { need("on"); need("gpu"); need("tool"); need("date"); }
      else note(file, "source '" + key + "' has unknown kind '" + kind + "' (expected seed, vendor, measured, estimated or fitted)");
      if (kind == "seed" && s.contains("file") && s["file"].is_string()) {
        static const std::set<std::string> seeds = {"000_81604b7ea25d1563.txt", "001_0d20ad827ebcd750.txt", "002_026cf5fd219c57c2.txt",
                                                    "003_6a7729b8a1d87d3f.txt", "004_c457eea20bd8e80e.txt"};
        if (!seeds.count(s["file"].get<std::string>())) note(file, "source '" + key + "' names seed file '" + s["file"].get<std::string>() + "', which is not one of the five seeds");
      }
    }
  }

  // The entry's source key, noting one missing from the file's sources and any key not in `keys`.
  std::string entry_source(const json& v, const std::string& file, const std::string& what, const json& sources,
                           std::initializer_list<const char*> keys) {
    std::string src = v["source"].is_string() ? v["source"].get<std::string>() : "";
    if (!sources.contains(src)) note(file, what + ": source '" + src + "' is not in this file's sources");
    for (auto& item : v.items()) {
      const std::string& k = item.key();  // a named variable: clang 14 cannot capture structured bindings
      if (std::none_of(keys.begin(), keys.end(), [&](const char* a) { return k == a; })) note(file, what + ": unknown key '" + k + "'");
    }
    return src;
  }

  Sourced read_value(const json& v, const std::string& file, const std::string& what, const json& sources,
                     double lo, double hi) {
    if (!v.is_object() || !v.contains("value") || !v.contains("source")) {
      note(file, what + ": expected {\"value\": ..., \"source\": ...}");
      return {};
    }
    Sourced s;
    s.file = file;
    s.source = entry_source(v, file, what, sources, {"value", "source", "note", "scope"});
    if (v["value"].is_number()) {
      s.value = v["value"].get<double>();
      if (!(s.value >= lo && s.value <= hi)) note(file, what + ": value " + v["value"].dump() + " outside the plausible range [" + fmt(lo) + ", " + fmt(hi) + "]");
    } else if (!v["value"].is_array()) {
      note(file, what + ": value must be a number");
    }
    return s;
  }
  static std::string fmt(double d) {
    std::string s = std::to_string(d);
    s.erase(s.find_last_not_of('0') + 1);
    if (!s.empty() && s.back() == '.') s.pop_back();
    return s;
  }

  void load_isa(const std::string& file);
  void load_arch_raw(const std::string& file);
  void resolve_arch(const std::string& name, std::vector<std::string>& stack);
  void load_gpus(const std::string& file);

  std::string search_list() const { return t_.search_list(); }
  std::optional<std::string> find_file(const std::string& rel) const { return t_.find_file(rel); }
  std::set<std::string> list_files(const std::string& sub) const { return t_.list_files(sub); }

  Tables& t_;
  // The Tables' members the loader fills, under their own names.
  const std::vector<std::string>& search_path_ = t_.search_path_;
  std::map<std::string, IsaTable>& isa_ = t_.isa_;
  std::map<std::string, ArchTable>& arch_ = t_.arch_;
  std::vector<GpuEntry>& gpus_ = t_.gpus_;
  std::string& default_gpu_ = t_.default_gpu_;
  std::vector<TableIssue>& issues_ = t_.issues_;
  std::vector<std::string>& loaded_files_ = t_.loaded_files_;
  std::map<std::string, std::pair<std::string, json>> arch_raw_;  // name -> (file, json), until resolved
};

}  // namespace detail

GPUPERF_FUNC void Tables::load_all() { detail::TableLoader(*this).load_all(); }

inline void detail::TableLoader::load_all() {
  if (search_path_.empty()) throw TableError("no latency-table directory: pass --tables DIR or set GPUPERF_TABLES");
  bool any_dir = false;
  for (auto& d : search_path_) {
    std::error_code ec;
    any_dir |= std::filesystem::is_directory(d, ec);
  }
  if (!any_dir) throw TableError("none of the latency-table directories exist (searched: " + search_list() + ")");
  // A value of the wrong JSON type (a string where an object or number belongs) is a table
  // error naming the file, not an escaping nlohmann exception.
  auto in_file = [](const std::string& file, auto&& f) {
    try {
      f();
    } catch (const json::exception& e) {
      throw TableError(file + ": unexpected JSON content: " + e.what());
    }
  };
  for (auto& f : list_files("isa")) { auto p = *find_file("isa/" + f); in_file(p, [&] { load_isa(p); }); }
  for (auto& f : list_files("arch")) { auto p = *find_file("arch/" + f); in_file(p, [&] { load_arch_raw(p); }); }
  for (auto& entry : arch_raw_) {  // a named variable: clang 14 cannot capture structured bindings
    const std::string& name = entry.first;
    std::vector<std::string> stack;
    in_file(entry.second.first, [&] { resolve_arch(name, stack); });
  }
  // gpus.json: merge every file along the path, earlier (overrides) first.
  std::set<std::string> seen;
  for (auto& d : search_path_) {
    auto p = std::filesystem::path(d) / "gpus.json";
    std::error_code ec;
    if (std::filesystem::exists(p, ec)) in_file(p.string(), [&] { load_gpus(p.string()); });
  }
  if (gpus_.empty()) throw TableError("no GPU catalog (gpus.json) found (searched: " + search_list() + ")");
}

inline void detail::TableLoader::load_isa(const std::string& file) {
  json j = read_table(file);
  check_header(j, file, "isa");
  loaded_files_.push_back(file);
  IsaTable t;
  t.family = j.value("family", "");
  if (t.family.empty()) throw TableError(file + ": missing 'family'");
  for (auto& [k, v] : j.items())
    if (k != "schema_version" && k != "kind" && k != "family" && k != "description" && k != "classes" && k != "opcodes" && k != "prefix_fallback")
      note(file, "unknown top-level key '" + k + "'");
  if (!j.contains("classes") || !j["classes"].is_object()) throw TableError(file + ": missing 'classes'");
  for (auto& [k, v] : j["classes"].items()) t.classes.insert(k);
  if (!j.contains("opcodes") || !j["opcodes"].is_object()) throw TableError(file + ": missing 'opcodes'");
  for (auto& [op, v] : j["opcodes"].items()) {
    if (op.find('.') != std::string::npos) note(file, "opcode key '" + op + "' has a modifier; keys are base mnemonics, modifiers go in 'modifiers'");
    std::string c = v.value("class", "");
    if (!t.classes.count(c)) note(file, "opcode " + op + ": class '" + c + "' is not declared in 'classes'");
    t.base_class[op] = c;
    if (v.contains("modifiers")) {
      for (auto& [m, mc] : v["modifiers"].items()) {
        if (!t.classes.count(mc.get<std::string>())) note(file, "opcode " + op + "." + m + ": class '" + mc.get<std::string>() + "' is not declared");
        t.modifier_class[op][m] = mc.get<std::string>();
      }
    }
    for (auto& [k, x] : v.items())
      if (k != "class" && k != "modifiers" && k != "note") note(file, "opcode " + op + ": unknown key '" + k + "'");
  }
  if (j.contains("prefix_fallback"))
    for (auto& e : j["prefix_fallback"]) {
      std::string c = e.value("class", "");
      if (!t.classes.count(c)) note(file, "prefix_fallback '" + e.value("prefix", "") + "': class '" + c + "' is not declared");
      t.prefix_fallback.emplace_back(e.value("prefix", ""), c);
    }
  if (t.prefix_fallback.empty() || !t.prefix_fallback.back().first.empty())
    note(file, "prefix_fallback should end with an empty prefix (catch-all), so unknown opcodes always get a class");
  isa_[t.family] = std::move(t);
}

inline void detail::TableLoader::load_arch_raw(const std::string& file) {
  json j = read_table(file);
  check_header(j, file, "arch");
  loaded_files_.push_back(file);
  std::string name = j.value("arch", "");
  if (name.empty()) throw TableError(file + ": missing 'arch'");
  auto stem = std::filesystem::path(file).stem().string();
  if (stem != name) note(file, "file name '" + stem + "' does not match arch '" + name + "'");
  arch_raw_[name] = {file, j};
}

inline void detail::TableLoader::resolve_arch(const std::string& name, std::vector<std::string>& stack) {
  if (arch_.count(name)) return;
  if (std::find(stack.begin(), stack.end(), name) != stack.end()) {
    std::string cyc;
    for (auto& s : stack) cyc += s + " -> ";
    throw TableError(arch_raw_[name].first + ": inheritance cycle: " + cyc + name);
  }
  auto it = arch_raw_.find(name);
  if (it == arch_raw_.end()) throw TableError("architecture '" + name + "' is inherited but has no table file");
  stack.push_back(name);
  const std::string& file = it->second.first;
  const json& j = it->second.second;
  ArchTable t;
  if (j.contains("inherits") && !j["inherits"].is_null()) {
    std::string parent = j["inherits"].get<std::string>();
    if (!arch_raw_.count(parent)) throw TableError(file + ": inherits '" + parent + "', which has no table file");
    resolve_arch(parent, stack);
    t = arch_[parent];
  }
  t.arch = name;
  t.name = j.value("name", name);
  t.isa = j.value("isa", t.isa);
  t.complete = j.value("complete", false);
  t.chain.insert(t.chain.begin(), name);
  try { t.sm_version = std::stoi(name.substr(3)); } catch (...) { throw TableError(file + ": arch '" + name + "' is not of the form sm_NN"); }
  static const std::set<std::string> top = {"schema_version", "kind", "arch", "name", "isa", "inherits", "complete", "sources", "sub_partitions",
                                            "classes", "opcode_latency_cycles", "opcode_issue_interval_cycles", "memory", "cache", "occupancy", "tensor",
                                            "curves", "ptx_sequences"};
  for (auto& [k, v] : j.items()) if (!top.count(k)) note(file, "unknown top-level key '" + k + "'");
  check_sources(j, file);
  json sources = j.value("sources", json::object());
  for (auto& [k, v] : sources.items()) t.sources[k] = v.dump();
  t.file = file;
  if (j.contains("sub_partitions")) {
    // Out of range is noted by read_value; only an in-range value is converted.
    if (auto v = checked_integer<int>(read_value(j["sub_partitions"], file, "sub_partitions", sources, 1, 8).value, 1, 8)) t.sub_partitions = *v;
  }
  if (j.contains("classes")) {
    for (auto& [c, v] : j["classes"].items()) {
      ClassCost cc = t.classes.count(c) ? t.classes[c] : ClassCost{};
      if (v.value("unsupported", false)) { cc = ClassCost{}; cc.unsupported = true; cc.present = true; t.classes[c] = cc; continue; }
      cc.unsupported = false;
      for (auto& [k, x] : v.items()) if (k != "latency_cycles" && k != "issue_interval_cycles" && k != "unsupported") note(file, "class " + c + ": unknown key '" + k + "'");
      if (v.contains("latency_cycles")) cc.latency = read_value(v["latency_cycles"], file, "class " + c + " latency_cycles", sources, 1, 2000);
      if (v.contains("issue_interval_cycles")) {
        const json& ii = v["issue_interval_cycles"];
        cc.issue_interval = read_value(ii, file, "class " + c + " issue_interval_cycles", sources, 0.25, 512);
        std::string scope = ii.is_object() ? ii.value("scope", "subpartition") : "subpartition";
        if (scope != "sm" && scope != "subpartition") note(file, "class " + c + ": scope must be \"sm\" or \"subpartition\"");
        cc.sm_scope = scope == "sm";
      }
      if (!cc.present && (!v.contains("latency_cycles") || !v.contains("issue_interval_cycles")))
        note(file, "class " + c + " needs both latency_cycles and issue_interval_cycles (no inherited values)");
      cc.present = true;
      t.classes[c] = cc;
    }
  }
  // A section of values; with a schema section, every key is checked against its range.
  auto read_map = [&](const char* section, std::map<std::string, Sourced>& dst, std::optional<ParamSection> schema) {
    if (!j.contains(section)) return;
    for (auto& [k, v] : j[section].items()) {
      detail::Range r{-1e18, 1e18};
      if (schema) {
        auto range = detail::param_range(*schema, k);
        if (!range) { note(file, std::string(section) + ": unknown key '" + k + "'"); continue; }
        r = *range;
      }
      dst[k] = read_value(v, file, std::string(section) + "." + k, sources, r.lo, r.hi);
      // The model knows a sector's fill and its aligned pair's, nothing between.
      if (k == "l2_fill_bytes" && dst[k].value != 32 && dst[k].value != 64)
        note(file, "cache.l2_fill_bytes: " + fmt(dst[k].value) + " is not 32 (a sector) or 64 (its aligned pair)");
      if (k == "shared_carveouts_kib" && v.is_object() && v.contains("value") && v["value"].is_array()) {
        t.shared_carveouts_kib.clear();
        for (auto& x : v["value"]) {
          auto c = x.is_number() ? checked_integer<int>(x.get<double>(), static_cast<int>(r.lo), static_cast<int>(r.hi)) : std::nullopt;
          if (!c) { note(file, "cache.shared_carveouts_kib: entry " + x.dump() + " is not an integer in [" + fmt(r.lo) + ", " + fmt(r.hi) + "]"); continue; }
          if (!t.shared_carveouts_kib.empty() && *c <= t.shared_carveouts_kib.back()) note(file, "cache.shared_carveouts_kib: entries must increase");
          t.shared_carveouts_kib.push_back(*c);
        }
      }
    }
  };
  read_map("opcode_latency_cycles", t.opcode_latency, std::nullopt);
  read_map("opcode_issue_interval_cycles", t.opcode_issue_interval, std::nullopt);
  read_map("memory", t.memory, ParamSection::memory);
  read_map("cache", t.cache, ParamSection::cache);
  read_map("occupancy", t.occupancy, ParamSection::occupancy);
  read_map("tensor", t.tensor, std::nullopt);
  if (j.contains("curves")) {
    if (!j["curves"].is_object()) note(file, "curves: expected an object of named curves");
    else for (auto& [k, v] : j["curves"].items()) {
      auto spec = detail::curve_specs().find(k);
      if (spec == detail::curve_specs().end()) { note(file, "curves: unknown curve '" + k + "'"); continue; }
      std::string what = "curves." + k;
      if (!v.is_object() || !v.contains("x") || !v.contains("y") || !v.contains("source") || !v["x"].is_array() || !v["y"].is_array()) {
        note(file, what + ": expected {\"x\": [...], \"y\": [...], \"source\": ...}");
        continue;
      }
      Curve c;
      c.file = file;
      c.source = entry_source(v, file, what, sources, {"x", "y", "source", "note"});
      bool ok = v["x"].size() == v["y"].size() && !v["x"].empty();
      if (!ok) note(file, what + ": x and y need the same, non-zero number of points");
      for (std::size_t i = 0; ok && i < v["x"].size(); ++i) {
        if (!v["x"][i].is_number() || !v["y"][i].is_number()) { note(file, what + ": points must be numbers"); ok = false; break; }
        double x = v["x"][i].get<double>(), y = v["y"][i].get<double>();
        if (x < spec->second.x.lo || x > spec->second.x.hi) note(file, what + ": x " + fmt(x) + " outside [" + fmt(spec->second.x.lo) + ", " + fmt(spec->second.x.hi) + "]");
        if (y < spec->second.y.lo || y > spec->second.y.hi) note(file, what + ": y " + fmt(y) + " outside [" + fmt(spec->second.y.lo) + ", " + fmt(spec->second.y.hi) + "]");
        if (!c.x.empty() && x <= c.x.back()) { note(file, what + ": x must increase"); ok = false; break; }
        c.x.push_back(x);
        c.y.push_back(y);
      }
      if (ok) t.curves[k] = std::move(c);
    }
  }
  if (j.contains("ptx_sequences")) {
    for (auto& [ptx, v] : j["ptx_sequences"].items()) {
      std::string what = "ptx_sequences." + ptx;
      if (!v.is_object() || !v.contains("sass") || !v["sass"].is_array() || !v.contains("cycles") || !v["cycles"].is_array() ||
          v["cycles"].size() != 2 || !v.contains("source")) {
        note(file, what + ": expected {\"sass\": [opcodes], \"cycles\": [min, max], \"source\": ...}");
        continue;
      }
      PtxSequence q;
      q.file = file;
      q.source = entry_source(v, file, what, sources, {"sass", "cycles", "source", "note"});
      for (auto& o : v["sass"]) if (o.is_string()) q.sass.push_back(o.get<std::string>()); else note(file, what + ": sass entries must be strings");
      if (v["cycles"][0].is_number() && v["cycles"][1].is_number()) {
        q.cycles_min = v["cycles"][0].get<double>();
        q.cycles_max = v["cycles"][1].get<double>();
        if (q.cycles_min < 0 || q.cycles_max < q.cycles_min || q.cycles_max > 10000) note(file, what + ": cycles must satisfy 0 <= min <= max <= 10000");
      } else note(file, what + ": cycles must be numbers");
      t.ptx_sequences[ptx] = std::move(q);
    }
  }
  arch_[name] = std::move(t);
  stack.pop_back();
}

inline void detail::TableLoader::load_gpus(const std::string& file) {
  json j = read_table(file);
  check_header(j, file, "gpu_catalog");
  loaded_files_.push_back(file);
  check_sources(j, file);
  json sources = j.value("sources", json::object());
  if (gpus_.empty() && j.contains("default")) default_gpu_ = j["default"].get<std::string>();
  if (!j.contains("gpus") || !j["gpus"].is_array()) throw TableError(file + ": missing 'gpus' array");
  std::set<std::string> names_here;
  for (auto& g : j["gpus"]) {
    GpuEntry e;
    e.name = g.value("name", "");
    if (e.name.empty()) { note(file, "a GPU entry has no name"); continue; }
    if (!names_here.insert(e.name).second) note(file, "duplicate GPU '" + e.name + "'");
    if (g.contains("aliases")) e.aliases = g["aliases"].get<std::vector<std::string>>();
    if (g.contains("device_names")) {
      if (!g["device_names"].is_array()) { note(file, "GPU " + e.name + ": device_names must be a list of strings"); }
      else for (auto& d : g["device_names"]) {
        if (d.is_string()) e.device_names.push_back(d.get<std::string>());
        else note(file, "GPU " + e.name + ": device_names must be a list of strings");
      }
    }
    e.arch = g.value("arch", "");
    for (auto& [k, v] : g.items()) {
      if (k == "name" || k == "aliases" || k == "arch" || k == "device_names") continue;
      auto range = detail::param_range(ParamSection::gpu, k);
      if (!range) { note(file, "GPU " + e.name + ": unknown key '" + k + "'"); continue; }
      e.values[k] = read_value(v, file, "GPU " + e.name + " " + k, sources, range->lo, range->hi);
    }
    for (const ParamSpec& p : param_schema())
      if (p.section == ParamSection::gpu && p.use == ParamUse::required && !e.values.count(p.key)) note(file, "GPU " + e.name + ": missing '" + p.key + "'");
    // Earlier files (overrides) win: skip names already present.
    bool exists = false;
    for (auto& x : gpus_) exists |= x.name == e.name;
    if (!exists) gpus_.push_back(std::move(e));
  }
}

GPUPERF_FUNC std::vector<TableIssue> Tables::check() const {
  std::vector<TableIssue> out = issues_;
  for (auto& [name, a] : arch_) {
    const std::string& file = a.file;
    if (!isa_.count(a.isa)) { out.push_back({file, "isa family '" + a.isa + "' has no isa/ file"}); continue; }
    const auto& isa = isa_.at(a.isa);
    bool all_own = true;
    for (auto& c : isa.classes) {
      auto it = a.classes.find(c);
      if (it == a.classes.end() || !it->second.present) out.push_back({file, "class '" + c + "' of ISA " + a.isa + " has no cost (add it or mark it unsupported)"});
    }
    for (auto& [c, cc] : a.classes) {
      if (!isa.classes.count(c)) out.push_back({file, "class '" + c + "' is not a class of ISA " + a.isa});
      if (cc.latency.file != file && cc.issue_interval.file != file && !cc.unsupported) all_own = false;
    }
    for (auto* m : {&a.opcode_latency, &a.opcode_issue_interval})
      for (auto& [op, v] : *m) {
        auto base = op.substr(0, op.find('.'));
        if (!isa.base_class.count(base))
          out.push_back({file, std::string(m == &a.opcode_latency ? "opcode_latency_cycles" : "opcode_issue_interval_cycles") + ": '" + op +
                                   "' is not an opcode of ISA " + a.isa});
      }
    // Every SASS opcode a seed names in a PTX expansion must have a class of its own (exact
    // base mnemonic), not the prefix fallback.
    for (auto& [ptx, q] : a.ptx_sequences) {
      if (q.file != file) continue;
      for (auto& op : q.sass) {
        auto base = op.substr(0, op.find('.'));
        if (!isa.base_class.count(base)) out.push_back({file, "ptx_sequences." + ptx + ": SASS opcode '" + op + "' is not an opcode of ISA " + a.isa});
      }
    }
    if (a.complete && !all_own) out.push_back({file, "marked complete but some classes only have inherited values"});
    for (const ParamSpec& p : param_schema()) {
      if (p.use != ParamUse::required || p.section == ParamSection::gpu) continue;
      const auto& have = p.section == ParamSection::memory ? a.memory : p.section == ParamSection::cache ? a.cache : a.occupancy;
      if (!have.count(p.key)) out.push_back({file, std::string(to_string(p.section)) + "." + p.key + " missing (after inheritance)"});
    }
    if (a.shared_carveouts_kib.empty()) out.push_back({file, "cache.shared_carveouts_kib missing"});
  }
  for (auto& g : gpus_) {
    if (!arch_.count(g.arch)) out.push_back({"gpus.json", "GPU " + g.name + ": arch '" + g.arch + "' has no table"});
    if (g.values.count("base_clock_mhz") && g.values.count("boost_clock_mhz") && g.get("base_clock_mhz") > g.get("boost_clock_mhz"))
      out.push_back({"gpus.json", "GPU " + g.name + ": base clock above boost clock"});
    // A calibrated interval needs both ends, low below high (otherwise it is silently unused
    // or inverted).
    for (const char* mode : kIntervalModes)
      for (const char* target : kIntervalTargets) {
        const std::string lo = interval_key(mode, target, "low"), hi = interval_key(mode, target, "high");
        if (g.has(lo) != g.has(hi))
          out.push_back({"gpus.json", "GPU " + g.name + ": " + (g.has(lo) ? lo : hi) + " without " + (g.has(lo) ? hi : lo)});
        else if (g.has(lo) && !(g.get(lo) < g.get(hi)))
          out.push_back({"gpus.json", "GPU " + g.name + ": " + lo + " is not below " + hi});
      }
  }
  std::map<std::string, std::string> alias_owner;
  for (auto& g : gpus_)
    for (auto& a : g.aliases) {
      auto [it, fresh] = alias_owner.emplace(a, g.name);
      if (!fresh && it->second != g.name) out.push_back({"gpus.json", "alias '" + a + "' names both " + it->second + " and " + g.name});
    }
  return out;
}

}  // namespace gpuperf
