#!/usr/bin/env python3
"""What-if sweeps through the public API (gpuperf.sweep), measured:

- error: the interpolated rounds of a sweep (the default) against a full prediction of every
  point (sweep(exact=True), what predict() gives), for every traced kernel in tests/data and
  bench/corpus (simulation mode) and every kernel of the count-only ncu + listing inputs
  (bounds mode), at 4 SM clocks drawn at random (fixed seed) over 800-2000 MHz on the H200 and
  on the A100 with a 20 MiB L2;
- re-predictions per second on one core (n_jobs=1): a traced kernel (kernel-20, SGEMM,
  simulation mode) and a count-only one (sgemm_smem_tiled from examples/sgemm-h200, bounds
  mode), on a grid of SM clocks x DRAM bandwidths; cold (a freshly loaded trace: the rounds at
  the nodes are computed) and warm (the same sweep again on that trace);
- the same cold traced sweep on 2 threads against 1 (results identical).

Writes the "what_if" section of bench/results/speed.json (the other sections are left as they are).

    python3 bench/what_if_error.py        (after pip install .; about 5 minutes since 3594a60, an hour before, on 2 busy cores)
"""
import glob
import json
import os
import random
import time

import numpy as np

import gpuperf

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
OUT = os.path.join(ROOT, "bench", "results", "speed.json")


def traced_inputs():
    pats = ["tests/data/*/*/kernel-*.traceg.xz", "bench/corpus/*/*/traces/kernel-*.traceg.xz"]
    return sorted(p for pat in pats for p in glob.glob(os.path.join(ROOT, pat)))


def count_only_inputs():
    out = []
    for d in sorted(glob.glob(os.path.join(ROOT, "bench/corpus/*/*"))):
        src, raw = os.path.join(d, "ncu_source.csv.xz"), os.path.join(d, "ncu_raw.csv.xz")
        sass = os.path.join(d, "sass.cuobjdump.sass.xz")
        if os.path.exists(src) and os.path.exists(raw):
            out.append([src, raw] + ([sass] if os.path.exists(sass) else []))
    return out


def errors(points_per_kernel=4):
    rng = random.Random(17)
    rows = []
    settings = [("h200", {}), ("a100", {"l2_mib": [20]})]
    for kind, inputs in (("traced", traced_inputs()), ("count_only", count_only_inputs())):
        for inp in inputs:
            t = gpuperf.Trace(inp)
            for gpu, extra in settings:
                clocks = sorted(round(rng.uniform(800, 2000), 3) for _ in range(points_per_kernel))
                try:
                    fast = gpuperf.sweep(t, gpu, n_jobs=1, sm_clock_mhz=clocks, **extra)
                    full = gpuperf.sweep(t, gpu, n_jobs=1, exact=True, sm_clock_mhz=clocks, **extra)
                except gpuperf.ModelError:  # a kernel that cannot launch on that GPU
                    continue
                rel = (fast.time_us.to_numpy() / full.time_us.to_numpy() - 1.0)
                name = os.path.relpath(inp if isinstance(inp, str) else os.path.dirname(inp[0]), ROOT)
                for k, e in zip(fast.kernel, rel):
                    rows.append((kind, name, gpu, k, abs(float(e))))
    out = {}
    for kind in ("traced", "count_only"):
        e = np.array([r[4] for r in rows if r[0] == kind])
        worst = max((r for r in rows if r[0] == kind), key=lambda r: r[4])
        out[kind] = {"points": int(e.size), "kernels": len({(r[1], r[3]) for r in rows if r[0] == kind}),
                     "max_abs_rel_error_percent": round(100 * float(e.max()), 3),
                     "p99_abs_rel_error_percent": round(100 * float(np.quantile(e, 0.99)), 3),
                     "median_abs_rel_error_percent": round(100 * float(np.median(e)), 4),
                     "points_over_1_percent": int((e > 0.01).sum()),
                     "worst": {"input": worst[1], "gpu": worst[2], "kernel": worst[3]}}
    return out


def rate(inp, kernel, points_clock, points_bw):
    grid = {"sm_clock_mhz": list(np.round(np.linspace(900, 1980, points_clock), 3)),
            "dram_bandwidth_gbs": list(np.round(np.linspace(1500, 4800, points_bw), 1))}
    t = gpuperf.Trace(inp)
    sel = {"kernel": kernel, "launch_count": 1}  # one kernel: a row is one re-prediction
    t0 = time.perf_counter()
    a = gpuperf.sweep(t, "h200", n_jobs=1, **sel, **grid)
    cold = time.perf_counter() - t0
    warm = min(_timed(lambda: gpuperf.sweep(t, "h200", n_jobs=1, **sel, **grid)) for _ in range(3))
    n = len(a)
    return {"points": n, "cold_seconds": round(cold, 3), "cold_per_second": round(n / cold), "warm_seconds": round(warm, 4),
            "warm_per_second": round(n / warm)}


def _timed(fn):
    t0 = time.perf_counter()
    fn()
    return time.perf_counter() - t0


def two_threads():
    path = os.path.join(ROOT, "tests/data/h200/devsample/kernel-20.traceg.xz")
    grid = {"sm_clock_mhz": list(np.linspace(900, 1980, 200)), "dram_bandwidth_gbs": [2000, 3350, 4800]}
    one, two, same = [], [], True
    for _ in range(2):
        for n_jobs, acc in ((1, one), (2, two)):
            t = gpuperf.Trace(path)
            t0 = time.perf_counter()
            df = gpuperf.sweep(t, "h200", n_jobs=n_jobs, **grid)
            acc.append((time.perf_counter() - t0, df))
    same = all(df.equals(one[0][1]) for _, df in one + two)
    a, b = min(x for x, _ in one), min(x for x, _ in two)
    return {"what": "cold sweep of kernel-20 (600 points) on a freshly loaded trace, n_jobs=1 vs 2", "seconds_1_thread": round(a, 3),
            "seconds_2_threads": round(b, 3), "speedup_2_threads": round(a / b, 2), "identical": bool(same),
            "load_average": [round(x, 1) for x in os.getloadavg()]}


def save(key, value):
    data = json.load(open(OUT)) if os.path.exists(OUT) else {}
    section = data.setdefault("what_if", {})
    section["generated_by"] = "bench/what_if_error.py"
    section["nodes"] = "rounds at DRAM latencies 2^(k/32) SM cycles, interpolated linearly; own rounds where the time at the nodes jitters"
    section[key] = value
    with open(OUT, "w") as f:
        json.dump(data, f, indent=2)
        f.write("\n")
    print(key, json.dumps(value, indent=2), flush=True)


def main():
    ex = os.path.join(ROOT, "examples/sgemm-h200")
    counts = [os.path.join(ex, f) for f in ("ncu_source.csv.xz", "ncu_raw.csv.xz", "devkernels_sm90.cuobjdump.sass.xz")]
    save("sweep_per_second_one_core", {
        "traced_simulation": rate(os.path.join(ROOT, "tests/data/h200/devsample/kernel-20.traceg.xz"), None, 200, 100),
        "count_only_bounds": rate(counts, "sgemm_smem_tiled", 1000, 100)})
    save("two_threads", two_threads())
    save("interpolation_error", errors())


if __name__ == "__main__":
    main()
