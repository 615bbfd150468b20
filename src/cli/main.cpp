// gpuperf command-line interface: a thin driver over the library, its arguments parsed by CLI11.
// Only main() chooses exit statuses: 0 success, 1 input/model error, 2 usage error, 3 table
// validation failed. Each subcommand owns its options, so an option that does not apply to a
// command is a usage error rather than silently ignored.
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <string>
#include <vector>

#include "gpuperf/gpuperf.hpp"
#include "gpuperf/trace/accelsim_writer.hpp"

namespace {

using namespace gpuperf;

constexpr int kExitOk = 0, kExitError = 1, kExitUsage = 2, kExitTables = 3;

// Every option of every subcommand; a subcommand registers only those it uses.
struct Args {
  std::vector<std::string> positional;
  std::vector<std::string> gpus;
  std::vector<std::string> tables;
  std::vector<std::string> set_args;
  std::vector<std::pair<std::string, double>> sets;
  std::string kernel, mode = "auto", rows, convert_in, convert_out, sort = "stall", launch_skip, launch_count;
  bool json = false, per_pc = false, measured = false, quiet = false, warm_l2 = false;
  std::size_t per_pc_rows = 0, skip = 0, count = 0;  // count 0: all
};

const char* kInputs =
    "Inputs are recognised by content: Accel-Sim .trace/.traceg (+.xz/.gz/.zst) and kernelslist,\n"
    "PPT-GPU app folders, Nsight Compute source+raw CSV pages (two files or a folder), and\n"
    "cuobjdump/nvdisasm SASS listings (joined to the other inputs for compiler stall counts).\n"
    "\n"
    "Exit status: 0 success, 1 bad input, 2 usage error, 3 tables check failed.";

const char* kSetKeys =
    "what-if K=V: sm_clock_mhz, sms, dram_bandwidth_gbs, dram_efficiency, l2_mb, l2_bandwidth_gbs, "
    "l1_hit_latency, l2_hit_latency, dram_latency, shared_latency, launch_overhead_us, alu_latency_scale";

[[noreturn]] void usage_error(const std::string& msg) { throw ArgumentError(msg); }

// A whole decimal number: "2abc", "", "-1", "0x10" are usage errors, not 2, 0, or 16.
std::size_t whole_number(const std::string& opt, const std::string& s) {
  bool ok = !s.empty() && s.size() <= 9 && s.find_first_not_of("0123456789") == std::string::npos;
  if (!ok) usage_error(opt + " needs a whole number, got '" + s + "'");
  return static_cast<std::size_t>(std::stoul(s));
}

// --set KEY=VALUE with the whole value a number.
std::pair<std::string, double> set_value(const std::string& kv) {
  auto eq = kv.find('=');
  if (eq == std::string::npos || eq == 0) usage_error("--set needs KEY=VALUE, got '" + kv + "'");
  std::string v = kv.substr(eq + 1);
  double val = 0;
  try {
    std::size_t used = 0;
    val = std::stod(v, &used);
    if (used != v.size()) throw std::invalid_argument("trailing");
  } catch (...) { usage_error("--set " + kv + ": value must be a number"); }
  return {kv.substr(0, eq), val};
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

// Tables installed beside the executable, so that an installed tree works wherever it is put:
// PREFIX/bin/gpuperf with PREFIX/share/gpuperf/latency_tables (cmake --install --prefix), or
// gpuperf/_bin/gpuperf with gpuperf/latency_tables (the Python wheel). They come after --tables,
// $GPUPERF_TABLES and the user's dir, before the build tree's tables compiled in.
std::string installed_tables_dir() {
  namespace fs = std::filesystem;
  std::error_code ec;
  fs::path exe = fs::read_symlink("/proc/self/exe", ec);
  if (ec) return {};
  for (const char* rel : {"../share/gpuperf/latency_tables", "../latency_tables"}) {
    fs::path d = exe.parent_path() / rel;
    if (!fs::is_directory(d, ec)) continue;
    d = fs::weakly_canonical(d, ec);
#ifdef GPUPERF_DATA_DIR
    if (d == fs::weakly_canonical(GPUPERF_DATA_DIR, ec)) return {};
#endif
    return d.string();
  }
  return {};
}

std::shared_ptr<const Tables> load_tables(const Args& a) {
  std::string installed = installed_tables_dir();
  std::vector<std::string> path = Tables::default_search_path(a.tables, installed);
#ifdef GPUPERF_DATA_DIR
  // Installed, the build tree's tables (if still there) are not this package's: leave them out.
  auto built_in = std::find(path.rbegin(), path.rend(), std::string(GPUPERF_DATA_DIR));
  if (!installed.empty() && built_in != path.rend()) path.erase(std::next(built_in).base());
#endif
  return Tables::load(path);
}

GpuSpec spec_for(const std::shared_ptr<const Tables>& t, const std::string& name, const Args& a) {
  GpuSpec g = GpuSpec::from_catalog(t, name);
  for (auto& [k, v] : a.sets) g.set(k, v);
  return g;
}

Session load_session(const Args& a) {
  LoadOptions lo;
  if (isatty(STDERR_FILENO) && !a.quiet) lo.accelsim.progress = progress;
  Application app = load(a.positional, lo);
  if (lo.accelsim.progress) std::fprintf(stderr, "\r%40s\r", "");
  return Session(std::move(app));
}

// Does the n-th launch that matched --kernel pass --launch-skip/--launch-count (ncu's meaning)?
bool in_launch_window(const Args& a, std::size_t n) { return n > a.skip && (a.count == 0 || n <= a.skip + a.count); }

std::string no_match(const Args& a, std::size_t kernels) {
  std::string what = a.kernel.empty() ? "no kernel" : "no kernel matches '" + a.kernel + "'";
  if (a.skip || a.count) what += " in the launch window (--launch-skip " + std::to_string(a.skip) + ", --launch-count " + std::to_string(a.count) + ")";
  return what + " (" + std::to_string(kernels) + " kernels in the input)";
}

// A kernel's text with its per-PC table sorted by predicted stall cycles (hottest first) or by
// address, cut to --rows, saying how many rows were left out.
std::string kernel_text(const KernelReport& kr, const Args& a) {
  if (!a.per_pc || kr.per_pc.empty()) return to_text(kr, a.per_pc);
  KernelReport v = kr;
  if (a.sort == "stall")
    std::stable_sort(v.per_pc.begin(), v.per_pc.end(), [](const PerPcRow& x, const PerPcRow& y) { return x.stall_cycles_total > y.stall_cycles_total; });
  std::size_t total = v.per_pc.size(), shown = a.per_pc_rows ? std::min(a.per_pc_rows, total) : total;
  v.per_pc.resize(shown);
  std::string order = a.sort == "stall" ? "by predicted stall cycles (--sort pc: by address)" : "by address";
  std::string left = shown < total ? "; " + std::to_string(total - shown) + " left out (--rows)" : "";
  return to_text(v, true) + "  " + std::to_string(shown) + " of " + std::to_string(total) + " instructions, " + order + left + "\n";
}

int cmd_report(const Args& a) {
  auto tables = load_tables(a);
  std::string gpu = a.gpus.empty() ? tables->default_gpu() : a.gpus.front();
  if (a.gpus.size() > 1) usage_error("report takes one --gpu; use `gpuperf compare` for several");
  GpuSpec g = spec_for(tables, gpu, a);
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
  std::size_t index = 0, matched = 0;
  for_each_kernel(a.positional, lo, [&](Kernel&& k, const Measurement& m) {
    ++index;
    if (lo.accelsim.progress) std::fprintf(stderr, "\r%40s\r", "");
    if (!launch_matches(k.launch, index, a.kernel) || !in_launch_window(a, ++matched)) return;
    LaunchConfig launch = k.launch;
    Predictor p(std::make_shared<const Kernel>(std::move(k)));
    KernelReport kr = p.predict(g, opt);
    identify(kr, launch, index);
    if (a.measured && m.time_us) kr.measured_time_us = m.time_us;
    r.total_time_us += kr.time_us;
    if (!a.json) std::cout << kernel_text(kr, a) << "\n" << std::flush;
    if (!a.per_pc && !a.json) kr.per_pc.clear();
    r.kernels.push_back(std::move(kr));
  });
  if (r.kernels.empty()) throw ArgumentError(no_match(a, index));
  if (a.json) std::cout << to_json(r).dump(2) << "\n";
  else if (r.kernels.size() > 1) std::printf("Total predicted time for %zu launches on %s: %.2f us\n", r.kernels.size(), r.gpu.c_str(), r.total_time_us);
  return kExitOk;
}

int cmd_compare(const Args& a) {
  auto tables = load_tables(a);
  Session s = load_session(a);
  auto idx = s.select(a.kernel);
  std::vector<std::size_t> window;
  for (std::size_t n = 0; n < idx.size(); ++n)
    if (in_launch_window(a, n + 1)) window.push_back(idx[n]);
  if (window.empty()) throw ArgumentError(no_match(a, s.size()));
  idx = window;
  PredictOptions opt;
  opt.mode = mode_of(a.mode);
  opt.per_pc = false;
  opt.warm_l2 = a.warm_l2;
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
    std::string name = std::to_string(idx[k] + 1) + ": " + demangle(s.kernel(idx[k]).launch.name);
    if (name.size() > 38) name = name.substr(0, 37) + "~";
    std::printf("%-40s", name.c_str());
    for (auto& r : reps) std::printf(" %11.2f us  ", r.kernels[k].time_us);
    std::printf("\n%-40s", "  bottleneck");
    for (auto& r : reps) std::printf(" %16.16s", r.kernels[k].bottleneck.c_str());
    std::printf("\n");
  }
  std::printf("%-40s", "total");
  for (auto& r : reps) std::printf(" %11.2f us  ", r.total_time_us);
  std::printf("\n");
  return kExitOk;
}

int cmd_gpus(const Args& a) {
  auto t = load_tables(a);
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

int cmd_tables_check(const Args& a) {
  std::shared_ptr<const Tables> t;
  try {
    t = load_tables(a);
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
  // The writer compresses to xz only: a .gz or .zst name over plain text would mislead every reader.
  auto ends_with = [&](const std::string& ext) {
    return a.convert_out.size() > ext.size() && a.convert_out.compare(a.convert_out.size() - ext.size(), ext.size(), ext) == 0;
  };
  for (const char* ext : {".gz", ".zst", ".bz2", ".lz4"})
    if (ends_with(ext)) usage_error("OUT ends in " + std::string(ext) + ", but convert writes plain text or .xz only; name it .traceg or .traceg.xz");
  Application app = load(std::vector<std::string>{a.convert_in});
  if (app.kernels.size() != 1) usage_error("convert takes one kernel trace; the input has " + std::to_string(app.kernels.size()));
  if (!app.kernels[0].has_dynamic_trace()) usage_error("convert needs a per-warp trace (Accel-Sim or PPT-GPU); this input has counts only");
  write_traceg(app.kernels[0], a.convert_out);
  std::fprintf(stderr, "wrote %s (%zu warps, %zu instructions)\n", a.convert_out.c_str(), app.kernels[0].warps.size(), app.kernels[0].dyn.size());
  return kExitOk;
}

// Options shared by the commands that predict.
void add_predict_options(CLI::App* c, Args& a) {
  c->add_option("--kernel", a.kernel, "only the launch with id SEL (1-based position in the input), or kernels whose name matches the regex SEL")
      ->type_name("SEL");
  c->add_option("--launch-skip", a.launch_skip, "skip the first N launches that match --kernel (as ncu --launch-skip)")->type_name("N");
  c->add_option("--launch-count", a.launch_count, "then take at most N launches (as ncu --launch-count)")->type_name("N");
  c->add_option("--set", a.set_args, kSetKeys)->type_name("K=V")->allow_extra_args(false);
  c->add_option("--mode", a.mode, "simulation (needs per-warp traces), bounds (counts only), or auto")->type_name("M");
  c->add_flag("--warm-l2", a.warm_l2, "the kernel's data are in L2 at launch (timing loops), not flushed (ncu)");
  c->add_option("--tables", a.tables, "latency tables taking precedence over the shipped ones")->type_name("DIR")->allow_extra_args(false);
  c->add_flag("-q,--quiet", a.quiet, "no progress on stderr");
}

// The subcommand the user named (the deepest one parsed), for messages.
std::string command_path(const CLI::App& app) {
  std::string path;
  const CLI::App* at = &app;
  for (;;) {
    auto subs = at->get_subcommands();
    if (subs.empty()) break;
    at = subs.front();
    path += (path.empty() ? "" : " ") + at->get_name();
  }
  return path;
}

}  // namespace

int main(int argc, char** argv) {
  Args a;
  CLI::App app{"gpuperf " GPUPERF_VERSION " - analytic performance prediction for CUDA kernels from SASS traces", "gpuperf"};
  app.footer(kInputs);
  app.set_version_flag("--version", std::string("gpuperf ") + version_string());
  app.require_subcommand(0, 1);

  CLI::App* report = app.add_subcommand("report", "predict the time of every kernel in TRACE and explain it");
  report->add_option("TRACE", a.positional, "trace files or folders")->required();
  report->add_option("--gpu", a.gpus, "GPU from the catalog (default: the catalog's default, a100)")->type_name("NAME")->allow_extra_args(false);
  report->add_flag("--json", a.json, "one JSON document (schema gpuperf.report/1, docs/json-schema.md)");
  CLI::Option* per_pc = report->add_flag("--per-pc", a.per_pc, "add the per-instruction table (issue counts, latency, stalls by cause)");
  CLI::Option* rows = report->add_option("--rows", a.rows, "at most N per-PC rows in text output")->type_name("N")->needs(per_pc);
  report->add_option("--sort", a.sort, "per-PC rows by predicted stall cycles (stall, the default) or by address (pc)")
      ->type_name("stall|pc")->check(CLI::IsMember({"stall", "pc"}))->needs(per_pc);
  report->add_flag("--measured", a.measured, "show the input's measured time beside the prediction (never used by it)");
  add_predict_options(report, a);
  report->get_option("--json")->excludes(rows);

  CLI::App* compare = app.add_subcommand("compare", "predict the same trace on several GPUs (--gpu a --gpu b ...)");
  compare->add_option("TRACE", a.positional, "trace files or folders")->required();
  compare->add_option("--gpu", a.gpus, "GPUs from the catalog, one column each")->type_name("NAME")->allow_extra_args(false)->required();
  compare->add_flag("--json", a.json, "one JSON document (schema gpuperf.compare/1)");
  add_predict_options(compare, a);

  CLI::App* gpus = app.add_subcommand("gpus", "list the GPU catalog");
  gpus->add_flag("--json", a.json, "the catalog's values as JSON");
  gpus->add_option("--tables", a.tables, "latency tables taking precedence over the shipped ones")->type_name("DIR")->allow_extra_args(false);

  CLI::App* tables = app.add_subcommand("tables", "validate every latency table, ISA map and the catalog (`tables check`)");
  tables->require_subcommand(1);
  CLI::App* check = tables->add_subcommand("check", "validate every table file along the search path; exit 3 if any problem is found");
  check->add_option("--tables", a.tables, "latency tables taking precedence over the shipped ones")->type_name("DIR")->allow_extra_args(false);
  check->add_flag("-q,--quiet", a.quiet, "print only the verdict and the problems");

  CLI::App* convert = app.add_subcommand("convert", "rewrite a trace as an Accel-Sim v5 .traceg (OUT.xz compresses)");
  convert->add_option("IN", a.convert_in, "one kernel's per-warp trace")->required();
  convert->add_option("OUT", a.convert_out, "the .traceg to write")->required();

  // `gpuperf`, `gpuperf help` and `gpuperf version` as before the parser existed.
  std::string first = argc > 1 ? argv[1] : "";
  if (argc <= 2 && (first.empty() || first == "help")) { std::cout << app.help(); return first.empty() ? kExitUsage : kExitOk; }
  if (argc == 2 && first == "version") { std::cout << "gpuperf " << version_string() << "\n"; return kExitOk; }

  std::string cmd;
  try {
    app.parse(argc, argv);
    cmd = command_path(app);
    if (cmd.empty()) { std::cout << app.help(); return kExitUsage; }
    if (!a.rows.empty()) a.per_pc_rows = whole_number("--rows", a.rows);
    if (!a.launch_skip.empty()) a.skip = whole_number("--launch-skip", a.launch_skip);
    if (!a.launch_count.empty()) a.count = whole_number("--launch-count", a.launch_count);
    for (auto& kv : a.set_args) a.sets.push_back(set_value(kv));
    if (*report) return cmd_report(a);
    if (*compare) return cmd_compare(a);
    if (*gpus) return cmd_gpus(a);
    if (*check) return cmd_tables_check(a);
    if (*convert) return cmd_convert(a);
    return kExitUsage;
  } catch (const CLI::Success& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    cmd = command_path(app);
    std::string see = cmd.empty() ? "gpuperf --help" : "gpuperf " + cmd + " --help";
    std::fprintf(stderr, "gpuperf%s%s: %s\n(see `%s`)\n", cmd.empty() ? "" : " ", cmd.c_str(), e.what(), see.c_str());
    return kExitUsage;
  } catch (const ArgumentError& e) {
    std::fprintf(stderr, "gpuperf %s: %s\n(see `gpuperf %s --help`)\n", cmd.c_str(), e.what(), cmd.c_str());
    return kExitUsage;
  } catch (const Error& e) {
    std::fprintf(stderr, "gpuperf %s: error: %s\n", cmd.c_str(), e.what());
    return kExitError;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "gpuperf %s: internal error: %s\n", cmd.c_str(), e.what());
    return kExitError;
  }
}
