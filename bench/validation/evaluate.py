#!/usr/bin/env python3
"""Accuracy of gpuperf on the public validation corpus (bench/validation/manifest.csv).

  python3 bench/validation/evaluate.py [--gpuperf build/gpuperf] [--split test|train|all]

For every launch and target GPU it predicts the launch's duration from each input path:
  ncu        the target GPU's own Nsight Compute profile (counts + listing), bounds model
  ncu-cross  the OTHER GPU's profile of the same program and launch (H100 -> H200 and back)
  trace      gpuperf's NVBit trace (collected on the H100), simulation; for the H200 this is
             a cross-GPU prediction as well. Reported apart: traces the tracer cut short at its
             instruction limit (the first instructions of the traced CTAs only, a lower bound)
and compares it with the launch's Nsight Compute duration (one launch, caches flushed,
predicted cold). The naive bound beside it is max(issue, functional unit, DRAM) cycles at the
clock plus the same launch overhead: what a roofline-style estimate without a latency,
occupancy or cache model gives. Writes bench/validation/results/predictions.csv and
summary.md; the per-kernel rows of the test part are written for the record but the summary
reports the test part in aggregate only.
"""
import argparse
import concurrent.futures
import csv
import functools
import json
import lzma
import math
import os
import subprocess
import sys
from collections import defaultdict

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
GPUS = {"h100": "h100", "h200": "h200"}


def report(gpuperf, inputs, gpu):
    """launch id -> kernel JSON of `gpuperf report --json`, or {} (with the error) on failure."""
    r = subprocess.run([gpuperf, "report", *inputs, "--gpu", gpu, "--json"], capture_output=True, text=True)
    if r.returncode != 0:
        return {}, r.stderr.strip().splitlines()[-1:] or ["exit %d" % r.returncode]
    doc = json.loads(r.stdout)
    return {k["launch_id"]: k for k in doc["kernels"]}, []


@functools.lru_cache(maxsize=None)  # each trace is asked about once per target GPU
def trace_truncated(path):
    """Whether the tracer stopped recording this launch early (its '-truncated at instructions'
    header): the trace then holds only the first instructions of its CTAs."""
    with lzma.open(path, "rt") as f:
        for line in f:
            if line.startswith("-truncated at instructions"):
                return True
            if line.startswith("#traces"):
                return False
    return False


def naive_us(k):
    b = k["bounds_cycles"]
    return max(b["issue"], b["functional_unit"], b["dram"]) / k["sm_clock_mhz"] + k["launch_overhead_us"]


def ncu_inputs(d):
    files = [os.path.join(d, "ncu_source.csv.xz"), os.path.join(d, "ncu_raw.csv.xz")]
    listing = os.path.join(d, "sass.cuobjdump.sass.xz")
    return files + ([listing] if os.path.exists(listing) else [])


def stats(rows, key="pred"):
    ok = [r for r in rows if r.get(key) and r["measured"]]
    if not ok:
        return None
    ape = sorted(abs(r[key] - r["measured"]) / r["measured"] * 100 for r in ok)
    factor = sorted(max(r[key] / r["measured"], r["measured"] / r[key]) for r in ok)
    n = len(ok)

    def rank(xs):
        order = sorted(range(n), key=lambda i: xs[i])
        rk = [0.0] * n
        for pos, i in enumerate(order):
            rk[i] = pos
        return rk

    p, m = rank([r[key] for r in ok]), rank([r["measured"] for r in ok])
    mp, mm = sum(p) / n, sum(m) / n
    cov = sum((a - mp) * (b - mm) for a, b in zip(p, m))
    var = math.sqrt(sum((a - mp) ** 2 for a in p) * sum((b - mm) ** 2 for b in m)) or 1
    inside = [r for r in ok if r.get("low") is not None and key == "pred"]
    return {
        "n": n, "mape": sum(ape) / n, "median_ape": ape[n // 2], "worst_ape": ape[-1],
        "within_25": sum(a <= 25 for a in ape) / n * 100, "spearman": cov / var, "median_factor": factor[n // 2],
        "over_2x": sum(f > 2 for f in factor),
        "range_coverage": (sum(r["low"] <= r["measured"] <= r["high"] for r in inside) / len(inside) * 100) if inside else None,
    }


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--gpuperf", default=os.path.join(ROOT, "build", "gpuperf"))
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 2)
    a = ap.parse_args()
    manifest = list(csv.DictReader(open(os.path.join(HERE, "manifest.csv"))))
    by_key = {(r["gpu"], r["suite"], r["program"], int(r["launch"])): r for r in manifest}
    launches_of = defaultdict(list)  # (gpu, suite, program) -> its launches, in manifest order
    for (g, s, p, launch), r in by_key.items():
        launches_of[(g, s, p)].append((launch, r))
    programs = sorted(launches_of)

    # One report per (input dataset, path, target GPU).
    jobs = []
    for gpu, suite, program in programs:
        d = os.path.join(HERE, "data", gpu, suite, program)
        for target in GPUS:
            path = "ncu" if target == gpu else "ncu-cross"
            jobs.append((gpu, suite, program, target, path, ncu_inputs(d)))
            kl = os.path.join(d, "traces", "kernelslist.g")
            if os.path.exists(kl):
                jobs.append((gpu, suite, program, target, "trace", [kl]))
    with concurrent.futures.ThreadPoolExecutor(a.jobs) as pool:
        results = list(pool.map(lambda j: report(a.gpuperf, j[5], GPUS[j[3]]), jobs))

    rows = []
    for (src, suite, program, target, path, _), (kernels, err) in zip(jobs, results):
        for launch, m in launches_of[(target, suite, program)]:
            if path == "ncu-cross":
                other = by_key.get((src, suite, program, launch))
                # The same launch of the same command on both GPUs, else no cross prediction.
                if not other or other["command"] != m["command"] or other["kernel"] != m["kernel"]:
                    continue
            k = kernels.get(launch)
            if path == "trace":
                t = by_key[(src, suite, program, launch)]["trace"] if (src, suite, program, launch) in by_key else ""
                if t and trace_truncated(os.path.join(HERE, t)):
                    path_name = "trace (truncated)"
                else:
                    path_name = "trace (complete)"
            else:
                path_name = path
            rows.append({
                "suite": suite, "program": program, "launch": launch, "kernel": m["kernel"][:80], "target": target,
                "input_gpu": src, "path": path_name, "split": m["split"],
                "measured": float(m["ncu_time_us"]) if m["ncu_time_us"] else None,
                "pred": k["time_us"] if k else None, "low": k["time_range_us"][0] if k else None,
                "high": k["time_range_us"][1] if k else None, "naive": naive_us(k) if k else None,
                "bottleneck": k["bottleneck"] if k else "", "error": "" if k else "; ".join(err) or "launch not in report",
            })
    os.makedirs(os.path.join(HERE, "results"), exist_ok=True)
    with open(os.path.join(HERE, "results", "predictions.csv"), "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=list(rows[0]))
        w.writeheader()
        w.writerows(rows)

    groups = defaultdict(list)
    for r in rows:
        groups[(r["split"], r["target"], r["path"], "all")].append(r)
        groups[(r["split"], r["target"], r["path"], r["suite"])].append(r)
        if r["path"].startswith("trace"):  # every trace, complete or cut short by the tracer's limit
            groups[(r["split"], r["target"], "trace (all)", "all")].append(r)
            groups[(r["split"], r["target"], "trace (all)", r["suite"])].append(r)
    lines = ["| split | GPU | input | suite | launches | MAPE % | median APE % | worst % | within 25 % | Spearman | "
             "median factor | > 2x off | range holds % | naive MAPE % | naive Spearman | failed |",
             "|" + "---|" * 16]
    for key in sorted(groups, key=lambda k: (k[0] != "test", k[1], k[2], k[3] != "all", k[3])):
        g = groups[key]
        s, nv = stats(g), stats(g, "naive")
        failed = sum(1 for r in g if r["pred"] is None)
        if not s:
            continue
        lines.append(f"| {key[0]} | {key[1].upper()} | {key[2]} | {key[3]} | {s['n']} | {s['mape']:.1f} | {s['median_ape']:.1f} | "
                     f"{s['worst_ape']:.0f} | {s['within_25']:.0f} | {s['spearman']:.2f} | {s['median_factor']:.2f} | {s['over_2x']} | "
                     f"{s['range_coverage']:.0f} | {nv['mape']:.1f} | {nv['spearman']:.2f} | {failed} |")
    text = "\n".join(lines) + "\n"
    open(os.path.join(HERE, "results", "summary.md"), "w").write(text)
    print(text)


if __name__ == "__main__":
    sys.exit(main())
