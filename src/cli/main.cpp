// gpuperf command-line interface: a thin driver over the library. Only main() chooses
// exit statuses: 0 success, 1 input/model error, 2 usage error, 3 table validation failed.
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <cstring>
#include <iostream>
#include <map>
#include <string>
#include <vector>

#include "gpuperf/gpuperf.hpp"
#include "gpuperf/trace/accelsim_writer.hpp"

namespace {

using namespace gpuperf;

constexpr int kExitOk = 0, kExitError = 1, kExitUsage = 2, kExitTables = 3;

struct Args {
  std::string command;
  std::vector<std::string> positional;
  std::vector<std::string> gpus;
  std::vector<std::string> tables;
  std::vector<std::pair<std::string, double>> sets;
  std::string kernel, mode = "auto", output;
  bool json = false, per_pc = false, measured = false, help = false, quiet = false, warm_l2 = false;
  int per_pc_rows = 0;
};

const char* kMainHelp =
    "gpuperf " GPUPERF_VERSION " - analytic performance prediction for CUDA kernels from SASS traces\n"
    "\n"
    "usage: gpuperf <command> [options]\n"
    "\n"
    "commands:\n"
    "  report TRACE...      predict the time of every kernel in TRACE and explain it\n"
    "  compare TRACE...     predict the same trace on several GPUs (--gpu a --gpu b ...)\n"
    "  gpus                 list the GPU catalog\n"
    "  tables check         validate every latency table, ISA map and the catalog\n"
    "  convert IN OUT       rewrite a trace as an Accel-Sim v5 .traceg (OUT.xz compresses)\n"
    "\n"
    "Inputs are recognised by content: Accel-Sim .trace/.traceg (+.xz/.gz/.zst) and kernelslist,\n"
    "PPT-GPU app folders, Nsight Compute source+raw CSV pages (two files or a folder), and\n"
    "cuobjdump/nvdisasm SASS listings (joined to the other inputs for compiler stall counts).\n"
    "\n"
    "`gpuperf <command> --help` describes each command.\n";

const char* kReportHelp =
    "usage: gpuperf report TRACE... [--gpu NAME] [--kernel NAME|ID] [--json] [--per-pc] [--rows N]\n"
    "                      [--set KEY=VALUE ...] [--mode auto|simulation|bounds] [--measured]\n"
    "                      [--warm-l2] [--tables DIR]\n"
    "\n"
    "  --gpu NAME       GPU from the catalog (default: the catalog's default, a100)\n"
    "  --kernel SEL     only kernels whose name contains SEL, or the 1-based launch id SEL\n"
    "  --json           one JSON document (schema gpuperf.report/1, docs/json-schema.md)\n"
    "  --per-pc         add the per-instruction table (issue counts, latency, stalls by cause)\n"
    "  --rows N         at most N per-PC rows in text output\n"
    "  --set K=V        what-if: sm_clock_mhz, sms, dram_bandwidth_gbs, dram_efficiency, l2_mb,\n"
    "                   l2_bandwidth_gbs, l1_hit_latency, l2_hit_latency, dram_latency,\n"
    "                   shared_latency, launch_overhead_us, alu_latency_scale\n"
    "  --mode M         simulation (needs per-warp traces), bounds (counts only), or auto\n"
    "  --measured       show the input's measured time beside the prediction (never used by it)\n"
    "  --warm-l2        the kernel's data are in L2 at launch (timing loops), not flushed (ncu)\n"
    "  --tables DIR     latency tables taking precedence over the shipped ones\n";

const char* kCompareHelp =
    "usage: gpuperf compare TRACE... --gpu A --gpu B [...] [--kernel SEL] [--json] [--set K=V]\n"
    "  Predicts every selected kernel on each GPU and prints one row per kernel.\n";

const char* kGpusHelp = "usage: gpuperf gpus [--json] [--tables DIR]\n  Lists the GPU catalog: names, aliases, architecture, SMs, clocks, DRAM, L2.\n";
const char* kTablesHelp = "usage: gpuperf tables check [--tables DIR]\n  Validates every table file along the search path; exit 3 if any problem is found.\n";
const char* kConvertHelp = "usage: gpuperf convert IN OUT\n  Reads any trace (e.g. a raw Accel-Sim .trace) and writes OUT as an Accel-Sim v5 .traceg;\n  OUT ending in .xz is compressed.\n";

[[noreturn]] void usage_error(const std::string& msg) { throw ArgumentError(msg); }

Args parse(int argc, char** argv) {
  Args a;
  std::vector<std::string> v(argv + 1, argv + argc);
  for (std::size_t i = 0; i < v.size(); ++i) {
    const std::string& s = v[i];
    auto need = [&](const char* opt) -> std::string {
      if (i + 1 >= v.size()) usage_error(std::string(opt) + " needs a value");
      return v[++i];
    };
    if (s == "--help" || s == "-h") a.help = true;
    else if (s == "--gpu") a.gpus.push_back(need("--gpu"));
    else if (s == "--tables") a.tables.push_back(need("--tables"));
    else if (s == "--kernel") a.kernel = need("--kernel");
    else if (s == "--mode") a.mode = need("--mode");
    else if (s == "--json") a.json = true;
    else if (s == "--per-pc") a.per_pc = true;
    else if (s == "--measured") a.measured = true;
    else if (s == "--warm-l2") a.warm_l2 = true;
    else if (s == "--quiet" || s == "-q") a.quiet = true;
    else if (s == "--rows") {
      std::string r = need("--rows");
      try { a.per_pc_rows = std::stoi(r); } catch (...) { usage_error("--rows needs a number, got '" + r + "'"); }
    } else if (s == "--set") {
      std::string kv = need("--set");
      auto eq = kv.find('=');
      if (eq == std::string::npos) usage_error("--set needs KEY=VALUE, got '" + kv + "'");
      double val;
      try {
        std::size_t used = 0;
        val = std::stod(kv.substr(eq + 1), &used);
        if (used != kv.size() - eq - 1) throw std::invalid_argument("trailing");
      } catch (...) { usage_error("--set " + kv + ": value must be a number"); }
      a.sets.emplace_back(kv.substr(0, eq), val);
    } else if (!s.empty() && s[0] == '-' && s.size() > 1) usage_error("unknown option '" + s + "'");
    else if (a.command.empty()) a.command = s;
    else a.positional.push_back(s);
  }
  return a;
}

ModelMode mode_of(const std::string& m) {
  if (m == "auto") return ModelMode::automatic;
  if (m == "simulation" || m == "sim") return ModelMode::simulation;
  if (m == "bounds") return ModelMode::bounds;
  usage_error("--mode must be auto, simulation or bounds, got '" + m + "'");
}

void progress(std::uint64_t done, std::uint64_t total, void*) {
  if (total) std::fprintf(stderr, "\rgpuperf: reading trace %3.0f%%", 100.0 * double(done) / double(total));
}

GpuSpec spec_for(const std::shared_ptr<const Tables>& t, const std::string& name, const Args& a) {
  GpuSpec g = GpuSpec::from_catalog(t, name);
  for (auto& [k, v] : a.sets) g.set(k, v);
  return g;
}

Session load_session(const Args& a) {
  if (a.positional.empty()) usage_error("missing TRACE argument");
  LoadOptions lo;
  if (isatty(STDERR_FILENO) && !a.quiet) lo.accelsim.progress = progress;
  Application app = load(a.positional, lo);
  if (lo.accelsim.progress) std::fprintf(stderr, "\r%40s\r", "");
  return Session(std::move(app));
}

int cmd_report(const Args& a) {
  if (a.help) { std::cout << kReportHelp; return kExitOk; }
  auto tables = Tables::load_default(a.tables);
  std::string gpu = a.gpus.empty() ? tables->default_gpu() : a.gpus.front();
  if (a.gpus.size() > 1) usage_error("report takes one --gpu; use `gpuperf compare` for several");
  GpuSpec g = spec_for(tables, gpu, a);
  if (a.positional.empty()) usage_error("missing TRACE argument");
  PredictOptions opt;
  opt.mode = mode_of(a.mode);
  opt.per_pc = a.per_pc || a.json;
  opt.warm_l2 = a.warm_l2;
  LoadOptions lo;
  if (isatty(STDERR_FILENO) && !a.quiet) lo.accelsim.progress = progress;
  // Kernel by kernel: each trace is analysed, predicted and dropped before the next is read.
  Report r;
  r.tool_version = version_string();
  r.gpu = g.name;
  std::size_t index = 0;
  for_each_kernel(a.positional, lo, [&](Kernel&& k, const Measurement& m) {
    ++index;
    if (lo.accelsim.progress) std::fprintf(stderr, "\r%40s\r", "");
    if (!launch_matches(k.launch, index, a.kernel)) return;
    Predictor p(std::make_shared<const Kernel>(std::move(k)));
    KernelReport kr = p.predict(g, opt);
    if (a.measured && m.time_us) kr.measured_time_us = m.time_us;
    r.total_time_us += kr.time_us;
    if (!a.json) std::cout << to_text(kr, a.per_pc, static_cast<std::size_t>(a.per_pc_rows)) << "\n" << std::flush;
    if (!a.per_pc && !a.json) kr.per_pc.clear();
    r.kernels.push_back(std::move(kr));
  });
  if (r.kernels.empty()) throw ArgumentError("no kernel matches '" + a.kernel + "' (" + std::to_string(index) + " kernels in the input)");
  if (a.json) std::cout << to_json(r).dump(2) << "\n";
  else if (r.kernels.size() > 1) std::printf("Total predicted time for %zu launches on %s: %.2f us\n", r.kernels.size(), r.gpu.c_str(), r.total_time_us);
  return kExitOk;
}

int cmd_compare(const Args& a) {
  if (a.help) { std::cout << kCompareHelp; return kExitOk; }
  if (a.gpus.size() < 1) usage_error("compare needs at least one --gpu");
  auto tables = Tables::load_default(a.tables);
  Session s = load_session(a);
  auto idx = s.select(a.kernel);
  PredictOptions opt;
  opt.mode = mode_of(a.mode);
  opt.per_pc = false;
  opt.warm_l2 = a.warm_l2;
  nlohmann::json j = nlohmann::json::array();
  std::vector<Report> reps;
  for (auto& name : a.gpus) reps.push_back(s.predict(spec_for(tables, name, a), opt, idx));
  if (a.json) {
    nlohmann::json out;
    out["schema"] = "gpuperf.compare/1";
    for (auto& r : reps) out["reports"].push_back(to_json(r));
    std::cout << out.dump(2) << "\n";
    return kExitOk;
  }
  std::printf("%-40s", "kernel");
  for (auto& r : reps) std::printf(" %16.16s", r.gpu.c_str());
  std::printf("\n");
  for (std::size_t k = 0; k < idx.size(); ++k) {
    std::string name = demangle(s.kernel(idx[k]).launch.name);
    if (name.size() > 38) name = name.substr(0, 37) + "~";
    std::printf("%-40s", name.c_str());
    for (auto& r : reps) std::printf(" %11.2f us  ", r.kernels[k].time_us);
    std::printf("\n%-40s", "  bottleneck");
    for (auto& r : reps) std::printf(" %16.16s", to_string(r.kernels[k].bottleneck));
    std::printf("\n");
  }
  std::printf("%-40s", "total");
  for (auto& r : reps) std::printf(" %11.2f us  ", r.total_time_us);
  std::printf("\n");
  return kExitOk;
}

int cmd_gpus(const Args& a) {
  if (a.help) { std::cout << kGpusHelp; return kExitOk; }
  auto t = Tables::load_default(a.tables);
  if (a.json) {
    nlohmann::json j = nlohmann::json::array();
    for (auto& g : t->gpus()) {
      nlohmann::json e{{"name", g.name}, {"aliases", g.aliases}, {"arch", g.arch}};
      for (auto& [k, v] : g.values) e[k] = v.value;
      j.push_back(e);
    }
    std::cout << j.dump(2) << "\n";
    return kExitOk;
  }
  std::printf("%-16s %-28s %-6s %5s %6s %6s %8s %6s %6s\n", "name", "aliases", "arch", "SMs", "base", "boost", "DRAM", "GiB", "L2 MiB");
  for (auto& g : t->gpus()) {
    std::string al;
    for (auto& x : g.aliases) al += (al.empty() ? "" : ",") + x;
    if (al.size() > 28) al = al.substr(0, 27) + "~";
    std::printf("%-16s %-28s %-6s %5.0f %6.0f %6.0f %6.0f G %6.0f %6.1f%s\n", g.name.c_str(), al.c_str(), g.arch.c_str(), g.get("sms"),
                g.get("base_clock_mhz"), g.get("boost_clock_mhz"), g.get("dram_bandwidth_gbs"), g.get("dram_gib"), g.get("l2_mib"),
                (!g.aliases.empty() && g.aliases.front() == t->default_gpu()) ? "  (default)" : "");
  }
  return kExitOk;
}

int cmd_tables(const Args& a) {
  if (a.help || a.positional.empty() || a.positional[0] != "check") { std::cout << kTablesHelp; return a.help ? kExitOk : kExitUsage; }
  std::shared_ptr<const Tables> t;
  try {
    t = Tables::load_default(a.tables);
  } catch (const Error& e) {
    std::fprintf(stderr, "gpuperf tables check: FAILED to load: %s\n", e.what());
    return kExitTables;
  }
  auto issues = t->check();
  for (auto& f : t->loaded_files()) if (!a.quiet) std::printf("checked %s\n", f.c_str());
  for (auto& i : issues) std::printf("%s: %s\n", i.file.c_str(), i.message.c_str());
  if (!issues.empty()) {
    std::printf("gpuperf tables check: %zu problem(s)\n", issues.size());
    return kExitTables;
  }
  std::printf("gpuperf tables check: OK (%zu files, %zu GPUs)\n", t->loaded_files().size(), t->gpus().size());
  return kExitOk;
}

int cmd_convert(const Args& a) {
  if (a.help) { std::cout << kConvertHelp; return kExitOk; }
  if (a.positional.size() != 2) usage_error("convert needs IN and OUT");
  Application app = load(std::vector<std::string>{a.positional[0]});
  if (app.kernels.size() != 1) usage_error("convert takes one kernel trace; the input has " + std::to_string(app.kernels.size()));
  if (!app.kernels[0].has_dynamic_trace()) usage_error("convert needs a per-warp trace (Accel-Sim or PPT-GPU); this input has counts only");
  write_traceg(app.kernels[0], a.positional[1]);
  std::fprintf(stderr, "wrote %s (%zu warps, %zu instructions)\n", a.positional[1].c_str(), app.kernels[0].warps.size(), app.kernels[0].dyn.size());
  return kExitOk;
}

}  // namespace

int main(int argc, char** argv) {
  Args a;
  try {
    a = parse(argc, argv);
    if (a.command.empty() || a.command == "help") { std::cout << kMainHelp; return a.help || a.command == "help" ? kExitOk : kExitUsage; }
    if (a.command == "--version" || a.command == "version") { std::cout << "gpuperf " << version_string() << "\n"; return kExitOk; }
    if (a.command == "report") return cmd_report(a);
    if (a.command == "compare") return cmd_compare(a);
    if (a.command == "gpus") return cmd_gpus(a);
    if (a.command == "tables") return cmd_tables(a);
    if (a.command == "convert") return cmd_convert(a);
    std::fprintf(stderr, "gpuperf: unknown command '%s'\n\n%s", a.command.c_str(), kMainHelp);
    return kExitUsage;
  } catch (const ArgumentError& e) {
    std::fprintf(stderr, "gpuperf %s: %s\n(see `gpuperf %s --help`)\n", a.command.c_str(), e.what(), a.command.c_str());
    return kExitUsage;
  } catch (const Error& e) {
    std::fprintf(stderr, "gpuperf: error: %s\n", e.what());
    return kExitError;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "gpuperf: internal error: %s\n", e.what());
    return kExitError;
  }
}
