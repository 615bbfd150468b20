#!/usr/bin/env python3
"""Speed of gpuperf on one large .traceg, as ratios to what the machine does with the same
file in the same run (the machine is shared and noisy; ratios travel better than MB/s):

- parsing (`gpuperf_bench --parse-file`) against a memchr line scan, best of 3 each, in one
  process, by wall and by CPU time;
- `gpuperf report` end to end against `wc -l` and `cat > /dev/null`, best of 3 each, by wall
  and by CPU time (a process on a shared machine may get a fraction of a core), with the
  report's peak RSS;
- what-if re-predictions per second through the C++ API (`gpuperf_bench --what-if`: the SM
  clock of a traced kernel in simulation mode and of a count-only kernel in bounds mode, one
  predict() at a time and as a sweep, cold and warm). The "what_if" section (sweeps through
  Python, interpolation error) is bench/what_if_error.py's and is kept as it is.

- with --memory-scaling, the peak RSS and time of `gpuperf report` on the same kernel's CTAs
  repeated to 0.1, 1 and 10 GB, the last one streamed from .xz (about 3 minutes and 11 GB of
  $TMPDIR; the traces are deleted after). Without it, the recorded section is kept.

    python3 bench/speed.py [--build build] [--size-mb 300] [--memory-scaling] [--out bench/results/speed.json]

The trace repeats the CTAs of tests/data/h200/devsample/kernel-20.traceg.xz
(bench/make_large_trace.py) and lives in $TMPDIR: it is never committed.
"""
import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SOURCE = "tests/data/h200/devsample/kernel-20.traceg.xz"


def peak_rss_mb(cmd) -> float:
    """Peak resident memory of one run of cmd, from /usr/bin/time."""
    r = subprocess.run(["/usr/bin/time", "-f", "%M", *cmd], check=True, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    return int(r.stderr.strip().splitlines()[-1]) / 1024


def timed(cmd):
    """Best of 3 runs: (wall seconds, CPU seconds of that run)."""
    best = None
    for _ in range(3):
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        t0 = time.perf_counter()
        subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL)
        wall = time.perf_counter() - t0
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
        if best is None or wall < best[0]:
            best = (wall, cpu)
    return best


def memory_scaling(cli):
    """Peak RSS and wall time of `gpuperf report` as the trace grows 100-fold: the reader
    hands CTAs to the analysis and keeps only those a simulation replays."""
    rows = []
    for size_mb, compress in ((100, False), (1000, False), (10000, True)):
        path = os.path.join(tempfile.gettempdir(), f"gpuperf_scaling_{size_mb}mb.traceg")
        subprocess.run([sys.executable, os.path.join(ROOT, "bench/make_large_trace.py"), os.path.join(ROOT, SOURCE), path, str(size_mb)],
                       check=True, stdout=sys.stderr)
        text_mb = os.path.getsize(path) / 1e6
        if compress:
            subprocess.run(["xz", "-0", "-T2", "-f", path], check=True)
            path += ".xz"
        try:
            t0 = time.perf_counter()
            rss = peak_rss_mb([cli, "report", path, "--gpu", "h200", "--json"])
            rows.append({"trace_mb": round(text_mb), "file": "xz" if compress else "text", "file_mb": round(os.path.getsize(path) / 1e6),
                         "seconds": round(time.perf_counter() - t0, 2), "peak_rss_mb": round(rss, 1)})
        finally:
            os.remove(path)
    peaks = [r["peak_rss_mb"] for r in rows]
    return {"what": "gpuperf report --json on bench/make_large_trace.py copies of " + SOURCE, "runs": rows,
            "rss_10gb_over_1gb": round(peaks[2] / peaks[1], 3)}


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--build", default="build")
    ap.add_argument("--size-mb", type=float, default=300)
    ap.add_argument("--out", default=os.path.join(ROOT, "bench/results/speed.json"))
    ap.add_argument("--memory-scaling", action="store_true")
    a = ap.parse_args()
    big = os.path.join(tempfile.gettempdir(), f"gpuperf_speed_{int(a.size_mb)}mb.traceg")
    if not os.path.exists(big):
        subprocess.run([sys.executable, os.path.join(ROOT, "bench/make_large_trace.py"), os.path.join(ROOT, SOURCE), big, str(a.size_mb)],
                       check=True, stdout=sys.stderr)
    mb = os.path.getsize(big) / 1e6
    bench = os.path.join(a.build, "gpuperf_bench")
    cli = os.path.join(a.build, "gpuperf")
    subprocess.run(["cat", big], check=True, stdout=subprocess.DEVNULL)  # warm the page cache
    parse = json.loads(subprocess.check_output([bench, "--parse-file", big, "--repeat", "3"]))
    wc = timed(["wc", "-l", big])
    cat = timed(["cat", big])
    report = timed([cli, "report", big, "--gpu", "h200", "--json"])
    rss = peak_rss_mb([cli, "report", big, "--gpu", "h200", "--json"])
    whatif = json.loads(subprocess.check_output([bench, "--what-if"]))
    out = {
        "generated_by": "bench/speed.py",
        "machine": {"cores": os.cpu_count(), "note": "shared machine; compare ratios, not MB/s"},
        "trace": {"mb": round(mb, 1), "lines": parse["lines"], "warp_instructions": parse["warp_instructions"],
                  "made_by": f"bench/make_large_trace.py {SOURCE}"},
        "parse": {"parse_mb_per_s": round(parse["parse_mb_per_s"]), "memchr_mb_per_s": round(parse["memchr_mb_per_s"]),
                  "parse_over_memchr": round(parse["parse_over_memchr"], 2),
                  "parse_over_memchr_cpu_time": round(parse["parse_over_memchr_cpu"], 2)},
        "report_end_to_end": {"seconds": round(report[0], 3), "cpu_seconds": round(report[1], 3), "mb_per_s": round(mb / report[0]),
                              "over_wc_l": round(report[0] / wc[0], 1), "over_wc_l_cpu_time": round(report[1] / wc[1], 1),
                              "over_cat": round(report[0] / cat[0], 1), "wc_l_seconds": round(wc[0], 3), "cat_seconds": round(cat[0], 3),
                              "peak_rss_mb": round(rss), "peak_rss_over_trace_size": round(rss * 1.048576 / mb, 2)},
        "what_if_per_second": {k: round(v["per_second"] if "per_second" in v else v["warm_per_second"], 1) for k, v in whatif.items()},
        "what_if_sweep_cold_per_second": {k: round(v["cold_per_second"], 1) for k, v in whatif.items() if "cold_per_second" in v},
    }
    try:
        out["git"] = subprocess.check_output(["git", "-C", ROOT, "describe", "--always", "--dirty"], text=True).strip()
    except (OSError, subprocess.CalledProcessError):
        pass
    if a.memory_scaling:
        out["memory_scaling"] = memory_scaling(cli)
    if os.path.exists(a.out):  # bench/what_if_error.py's section, and the memory scaling unless re-measured, are kept
        recorded = json.load(open(a.out))
        for key in ("what_if", "memory_scaling"):
            if key not in out and recorded.get(key) is not None:
                out[key] = recorded[key]
    os.makedirs(os.path.dirname(a.out), exist_ok=True)
    with open(a.out, "w") as f:
        json.dump(out, f, indent=2)
        f.write("\n")
    print(json.dumps(out, indent=2))


if __name__ == "__main__":
    main()
