// gpuperf speed benchmarks: trace parsing (text and xz), end-to-end time and peak memory on a
// large trace, predictions per second and what-if re-predictions per second.
//   gpuperf_bench [--size-mb N] [--trace T.traceg(.xz)] [--ncu DIR] [--json]
//   gpuperf_bench --what-if   (re-predictions/s of a traced and a count-only kernel, one at a time and in a sweep, JSON)
//   gpuperf_bench --parse-file BIG.traceg [--repeat N]
//     parse speed of BIG against a memchr line scan of the same file, best of N runs each,
//     interleaved (JSON; bench/speed.sh runs it beside wc -l, cat and gpuperf report)
// The large trace is made by replicating the CTAs of a real traced kernel (renumbered) until
// it reaches the requested size, written to $TMPDIR.
#include <fcntl.h>
#include <sys/resource.h>
#include <unistd.h>

#include <cstring>

#include <chrono>
#include <ctime>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>

#include <nlohmann/json.hpp>

#include "gpuperf/gpuperf.hpp"

using namespace gpuperf;
using clk = std::chrono::steady_clock;

static double secs(clk::time_point a) { return std::chrono::duration<double>(clk::now() - a).count(); }
static double peak_rss_mb() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  return u.ru_maxrss / 1024.0;
}

// Replicates the body (#BEGIN_TB..#END_TB blocks) of `src` with new CTA ids until `target` bytes.
static std::string make_large(const std::string& src, std::uint64_t target, std::uint64_t& ctas_out) {
  std::string header, body;
  {
    LineReader lr(src);
    std::string_view l;
    bool in_body = false;
    while (lr.next(l)) {
      if (!in_body && scan::starts_with(l, "#BEGIN_TB")) in_body = true;
      if (!in_body) {
        if (scan::starts_with(l, "-grid dim") || scan::starts_with(l, "-traced ctas") || scan::starts_with(l, "-cta sampling")) continue;
        header.append(l).push_back('\n');
      } else {
        body.append(l).push_back('\n');
      }
    }
  }
  std::string out = (std::filesystem::temp_directory_path() / "gpuperf_bench_large.traceg").string();
  std::ofstream f(out, std::ios::binary);
  std::uint64_t written = 0, cta = 0;
  std::vector<std::string> blocks;
  std::size_t p = 0;
  while ((p = body.find("#BEGIN_TB", p)) != std::string::npos) {
    auto e = body.find("#END_TB", p);
    blocks.push_back(body.substr(p, e + 8 - p));
    p = e + 1;
  }
  std::uint64_t per_pass = 0;
  for (auto& b : blocks) per_pass += b.size();
  std::uint64_t passes = std::max<std::uint64_t>(1, target / std::max<std::uint64_t>(1, per_pass));
  std::uint64_t total_ctas = passes * blocks.size();
  f << "-grid dim = (" << total_ctas << ",1,1)\n" << header;
  for (std::uint64_t r = 0; r < passes; ++r)
    for (auto& b : blocks) {
      auto tb = b.find("thread block = ");
      auto eol = b.find('\n', tb);
      f << b.substr(0, tb) << "thread block = " << cta++ << ",0,0" << b.substr(eol) << "\n";
      written += b.size();
    }
  ctas_out = total_ctas;
  return out;
}

// Lines of a file by memchr over large reads into one reused buffer: the floor a line parser
// that reads the same bytes could reach.
static std::uint64_t memchr_lines(const std::string& path) {
  int fd = ::open(path.c_str(), O_RDONLY);
  if (fd < 0) throw IoError(path + ": cannot open");
  static std::vector<char> buf(4u << 20);
  std::uint64_t lines = 0;
  ssize_t n;
  while ((n = ::read(fd, buf.data(), buf.size())) > 0) {
    const char* p = buf.data();
    const char* e = p + n;
    while ((p = static_cast<const char*>(std::memchr(p, '\n', static_cast<std::size_t>(e - p))))) { ++lines; ++p; }
  }
  ::close(fd);
  return lines;
}

// CPU seconds of this process (user + system): on a shared machine a process may run a
// quarter of the wall time, so both clocks are kept.
static double cpu_secs() {
  timespec t{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
  return t.tv_sec + t.tv_nsec * 1e-9;
}

static int parse_file_bench(const std::string& path, int repeat) {
  const double mb = std::filesystem::file_size(path) / 1e6;
  double best_parse = 1e30, best_scan = 1e30, cpu_parse = 1e30, cpu_scan = 1e30;
  std::uint64_t lines = 0, instrs = 0;
  for (int i = 0; i < repeat; ++i) {
    auto t0 = clk::now();
    double c0 = cpu_secs();
    lines = memchr_lines(path);
    best_scan = std::min(best_scan, secs(t0));
    cpu_scan = std::min(cpu_scan, cpu_secs() - c0);
    auto t1 = clk::now();
    double c1 = cpu_secs();
    Kernel k = AccelSimKernelReader::read(path);
    best_parse = std::min(best_parse, secs(t1));
    cpu_parse = std::min(cpu_parse, cpu_secs() - c1);
    instrs = k.dyn.size();
  }
  nlohmann::json out = {{"file_mb", mb},          {"lines", lines},
                        {"warp_instructions", instrs}, {"repeat", repeat},
                        {"parse_seconds", best_parse}, {"memchr_seconds", best_scan},
                        {"parse_mb_per_s", mb / best_parse}, {"memchr_mb_per_s", mb / best_scan},
                        {"parse_over_memchr", best_parse / best_scan}, {"parse_cpu_seconds", cpu_parse},
                        {"memchr_cpu_seconds", cpu_scan}, {"parse_over_memchr_cpu", cpu_parse / cpu_scan},
                        {"peak_rss_mb", peak_rss_mb()}};
  std::printf("%s\n", out.dump(2).c_str());
  return 0;
}

// What-if re-predictions per second through the C++ API: the SM clock of one traced kernel
// (simulation mode) and of one count-only kernel (ncu pages + listing, bounds mode) changes
// every time; best of three timed batches each.
static int whatif_bench(const std::string& root) {
  auto tables = Tables::load_default();
  auto g = GpuSpec::from_catalog(tables, "h200");
  PredictOptions o;
  o.per_pc = false;
  auto rate = [&](const Predictor& p, int points) {
    double best = 1e30, acc = 0;
    for (int r = 0; r < 3; ++r) {
      auto t0 = clk::now();
      for (int i = 0; i < points; ++i) {
        auto w = g;
        w.set("sm_clock_mhz", 900 + i);
        acc += p.predict(w, o).time_us;
      }
      best = std::min(best, secs(t0));
    }
    return nlohmann::json{{"points", points}, {"seconds", best}, {"per_second", points / best}, {"checksum_us", acc / 3}};
  };
  Session traced(load(std::vector<std::string>{root + "/tests/data/h200/devsample/kernel-20.traceg.xz"}));
  const std::string ex = root + "/examples/sgemm-h200/";
  Session counts(load(std::vector<std::string>{ex + "ncu_source.csv.xz", ex + "ncu_raw.csv.xz", ex + "devkernels_sm90.cuobjdump.sass.xz"}));
  std::size_t sgemm = 0;
  for (std::size_t i = 0; i < counts.size(); ++i)
    if (counts.predictor(i).analysis().kernel->launch.name.find("sgemm_smem_tiled") != std::string::npos) { sgemm = i; break; }
  // A sweep (Predictor::predict_times, what gpuperf.sweep calls): `points` specs with the SM
  // clock spread over 900-1980 MHz and 7 DRAM bandwidths, on one thread. Cold: the caches
  // emptied first (the rounds at the nodes are computed); warm: a second sweep over the same
  // specs (best of three).
  auto sweep = [&](const Predictor& p, int points) {
    std::vector<GpuSpec> specs(static_cast<std::size_t>(points), g);
    for (int i = 0; i < points; ++i) {
      specs[static_cast<std::size_t>(i)].set("sm_clock_mhz", 900 + 1080.0 * i / points);
      specs[static_cast<std::size_t>(i)].set("dram_bandwidth_gbs", 2000 + (i % 7) * 300);
    }
    p.clear_cache();
    const std::size_t computed0 = p.cache_info().rounds_computed;
    auto t0 = clk::now();
    double acc = 0;
    for (double t : p.predict_times(specs, o, 1)) acc += t;
    const double cold = secs(t0);
    const std::size_t computed = p.cache_info().rounds_computed - computed0;
    double warm = 1e30;
    for (int r = 0; r < 3; ++r) {
      auto t1 = clk::now();
      for (double t : p.predict_times(specs, o, 1)) acc += t;
      warm = std::min(warm, secs(t1));
    }
    return nlohmann::json{{"points", points}, {"cold_seconds", cold}, {"cold_per_second", points / cold}, {"rounds_computed", computed},
                          {"warm_seconds", warm}, {"warm_per_second", points / warm}, {"checksum_us", acc / 4}};
  };
  nlohmann::json out = {{"traced_simulation", rate(traced.predictor(0), 20)},
                        {"count_only_bounds", rate(counts.predictor(sgemm), 2000)},
                        {"traced_sweep", sweep(traced.predictor(0), 20000)},
                        {"count_only_sweep", sweep(counts.predictor(sgemm), 200000)}};
  std::printf("%s\n", out.dump(2).c_str());
  return 0;
}

int main(int argc, char** argv) {
  {
    std::string root = GPUPERF_DATA_DIR;
    root = root.substr(0, root.rfind('/'));
    for (int i = 1; i < argc; ++i)
      if (std::string(argv[i]) == "--what-if") return whatif_bench(root);
  }
  for (int i = 1; i + 1 < argc; ++i)
    if (std::string(argv[i]) == "--parse-file") {
      int repeat = 3;
      for (int j = 1; j + 1 < argc; ++j)
        if (std::string(argv[j]) == "--repeat") repeat = std::max(1, std::atoi(argv[j + 1]));
      return parse_file_bench(argv[i + 1], repeat);
    }
  std::uint64_t size_mb = 1024;
  std::string root = GPUPERF_DATA_DIR;
  root = root.substr(0, root.rfind('/'));
  std::string trace = root + "/bench/corpus/h200/devsample/traces/kernel-20.traceg.xz";
  std::string ncu = root + "/bench/corpus/h200/devsample";
  bool as_json = false;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (a == "--size-mb" && i + 1 < argc) size_mb = std::stoull(argv[++i]);
    else if (a == "--trace" && i + 1 < argc) trace = argv[++i];
    else if (a == "--ncu" && i + 1 < argc) ncu = argv[++i];
    else if (a == "--json") as_json = true;
  }
  nlohmann::json out;
  auto tables = Tables::load_default();
  // 1. Compressed parse of the real trace.
  {
    auto t0 = clk::now();
    Kernel k = AccelSimKernelReader::read(trace);
    double s = secs(t0);
    std::uint64_t text_bytes = 0;
    {
      ByteSource bs(trace);
      std::vector<char> buf(1 << 20);
      std::size_t n;
      while ((n = bs.read(buf.data(), buf.size())) > 0) text_bytes += n;
    }
    out["xz_parse"] = {{"file", trace}, {"text_mb", text_bytes / 1e6}, {"seconds", s}, {"text_mb_per_s", text_bytes / 1e6 / s},
                       {"warp_instructions", k.dyn.size()}};
  }
  // 2. Large plain-text trace: parse speed, end-to-end, peak memory.
  std::uint64_t ctas = 0;
  std::string big = make_large(trace, size_mb << 20, ctas);
  double mb = std::filesystem::file_size(big) / 1e6;
  {
    AccelSimKernelReader::Options o;
    auto t0 = clk::now();
    Kernel k = AccelSimKernelReader::read(big, o);
    double parse_s = secs(t0);
    auto kp = std::make_shared<const Kernel>(std::move(k));
    auto t1 = clk::now();
    Predictor p(kp);
    double analyze_s = secs(t1);
    auto t2 = clk::now();
    auto r = p.predict(GpuSpec::from_catalog(tables, "h200"));
    double predict_s = secs(t2);
    out["large_trace"] = {{"mb", mb},
                          {"ctas", ctas},
                          {"warp_instructions", kp->dyn.size()},
                          {"parse_seconds", parse_s},
                          {"parse_mb_per_s", mb / parse_s},
                          {"analysis_seconds", analyze_s},
                          {"predict_seconds", predict_s},
                          {"end_to_end_seconds", parse_s + analyze_s + predict_s},
                          {"peak_rss_mb", peak_rss_mb()},
                          {"predicted_time_us", r.time_us}};
  }
  std::filesystem::remove(big);
  // 3. Predictions per second (48 ncu launches) and what-if re-predictions per second.
  {
    Session s(load(std::vector<std::string>{ncu + "/ncu_source.csv.xz", ncu + "/ncu_raw.csv.xz", ncu + "/sass.cuobjdump.sass.xz"}));
    auto g = GpuSpec::from_catalog(tables, "h100");
    PredictOptions o;
    o.per_pc = false;
    auto t0 = clk::now();
    int n = 0;
    while (secs(t0) < 2.0) { s.predict(g, o); n += static_cast<int>(s.size()); }
    double pps = n / secs(t0);
    const Predictor& one = s.predictor(18);  // sgemm_smem_tiled<16>
    auto t1 = clk::now();
    int m = 0;
    double acc = 0;
    while (secs(t1) < 2.0) {
      auto w = g;
      w.set("sm_clock_mhz", 1000 + (m % 1000));
      w.set("dram_bandwidth_gbs", 1000 + (m % 3000));
      acc += one.predict(w, o).time_us;
      ++m;
    }
    out["predictions_per_second"] = pps;
    out["what_if_predictions_per_second"] = m / secs(t1);
    (void)acc;
  }
  out["peak_rss_mb"] = peak_rss_mb();
  out["cores"] = sysconf(_SC_NPROCESSORS_ONLN);
  if (as_json) {
    std::printf("%s\n", out.dump(2).c_str());
  } else {
    auto& x = out["xz_parse"];
    auto& l = out["large_trace"];
    std::printf("xz trace parse:        %.1f MB of text in %.2f s = %.0f MB/s (one core)\n", x["text_mb"].get<double>(), x["seconds"].get<double>(), x["text_mb_per_s"].get<double>());
    std::printf("large .traceg parse:   %.0f MB in %.2f s = %.0f MB/s (one core)\n", l["mb"].get<double>(), l["parse_seconds"].get<double>(), l["parse_mb_per_s"].get<double>());
    std::printf("large trace end-to-end: %.2f s (analysis %.2f s, prediction %.2f s), peak memory %.0f MB\n", l["end_to_end_seconds"].get<double>(),
                l["analysis_seconds"].get<double>(), l["predict_seconds"].get<double>(), l["peak_rss_mb"].get<double>());
    std::printf("predictions:           %.0f kernel predictions/s (ncu+listing input, bounds model)\n", out["predictions_per_second"].get<double>());
    std::printf("what-if re-prediction: %.0f /s (one kernel, clock and bandwidth changed each time)\n", out["what_if_predictions_per_second"].get<double>());
  }
  return 0;
}
