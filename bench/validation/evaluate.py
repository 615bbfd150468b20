#!/usr/bin/env python3
"""Accuracy of gpuperf on the public validation corpus (bench/validation/manifest.csv).

  python3 bench/validation/evaluate.py [--gpuperf build/gpuperf] [--jobs N] [--no-plot]

For every launch and target GPU it predicts from each input path:
  trace, same GPU    gpuperf's NVBit trace taken on the GPU predicted for (simulation)
  trace, other GPU   the trace taken on the other GPU (H100 <-> H200)
  ncu, same GPU      the GPU's own Nsight Compute profile (counts + listing; bounds model). The
                     weaker claim: the profile's own traffic counters describe the very run
  ncu, other GPU     the other GPU's profile of the same program and launch (both ways)
Traces the tracer cut short at its instruction limit (the first instructions of the traced CTAs
only) are kept apart: each trace path is reported over complete traces and over all.

Two prediction targets (`gpuperf report --target`):
  duration      compared with the launch's Nsight Compute duration (one launch, caches flushed)
  back-to-back  compared with the CUDA-event time per launch of back-to-back replays, where
                measured (event_time_us)

Per split, GPU, target, path and suite: MAPE, median APE, worst, share within 25 %, Spearman,
median error factor, launches over 2x off, the share of measured times inside the reported 80 %
interval, and the naive bound (max of issue, functional-unit and DRAM cycles plus the same
launch term) beside it. Writes results/predictions.csv, results/summary.md and
results/accuracy.png (predicted vs measured, test part; needs matplotlib). The test part is
reported in aggregate only (per suite at most).
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
GPUS = ("h100", "h200")
TARGETS = ("duration", "back-to-back")
MEASURED = {"duration": "ncu_time_us", "back-to-back": "event_time_us"}
BOUND_COLUMNS = ("sm_rounds", "dram", "l2", "atomics", "busiest_warp", "issue", "functional_unit", "latency", "shared_memory", "l1",
                 "memory_phases")
PATHS = ("trace, same GPU", "trace, other GPU", "ncu, same GPU", "ncu, other GPU")


def measurement_valid(m, target):
    """Whether the manifest row's time for `target` measures its launch. A CUDA-event time per
    launch of back-to-back launches more than 10x shorter than the kernel's own duration (Nsight
    Compute's, caches flushed) did not time this launch: warm caches make a kernel at most a few
    times faster (L2 against DRAM bandwidth and latency), and particlefilter's find_index_kernel
    on the H200 has 3.8 us against 979 us (and 795 us run time). Such rows are left out of the
    back-to-back target (fitting and evaluation alike); the duration target keeps them."""
    if target != "back-to-back":
        return True
    ev, ncu = m["event_time_us"], m["ncu_time_us"]
    return not (ev and ncu and float(ev) < 0.1 * float(ncu))


def report(gpuperf, inputs, gpu, target):
    """launch id -> kernel JSON of `gpuperf report --json`, or {} (with the error) on failure.
    The id is the one the input records (a trace header's kernel id), which is the manifest's
    launch number even where a kernels list leaves out a trace the tracer never wrote; the
    position in the input would pair the following traces with the wrong measurements."""
    r = subprocess.run([gpuperf, "report", *inputs, "--gpu", gpu, "--target", target, "--json", "-q"], capture_output=True, text=True)
    if r.returncode != 0:
        return {}, r.stderr.strip().splitlines()[-1:] or ["exit %d" % r.returncode]
    doc = json.loads(r.stdout)
    return {k["input_launch_id"] or k["launch_id"]: k for k in doc["kernels"]}, []


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
    """The naive issue/bandwidth bound: the model's issue and unit bounds and its DRAM bytes at the
    bandwidth (not its DRAM bound, which also takes gathers at DRAM's random-access rate)."""
    b, m = k["bounds_cycles"], k["memory"]
    gbs = k["roofline"]["dram_gbs"]
    dram = (m["dram_read_bytes"] + m["dram_write_bytes"]) / (gbs * 1e3) * k["sm_clock_mhz"] if gbs > 0 else 0.0
    return max(b["issue"], b["functional_unit"], dram) / k["sm_clock_mhz"] + k["launch_overhead_us"]


def listing_input(d):
    """The program's SASS listing, where collected: its compiler stall counts, barriers and branch
    targets join the ncu pages and the traces alike (a trace records none of them)."""
    listing = os.path.join(d, "sass.cuobjdump.sass.xz")
    return [listing] if os.path.exists(listing) else []


def ncu_inputs(d):
    return [os.path.join(d, "ncu_source.csv.xz"), os.path.join(d, "ncu_raw.csv.xz")] + listing_input(d)


def copy_sources_unknown(k):
    """Whether a kernel's report says its asynchronous copies lack their global sources (a trace
    from the tracer before 2026-11-29): their traffic is assumed, not derived from addresses."""
    return "copy_sources_unknown" in k.get("warning_codes", [])


def trace_inputs(d):
    """A program's traces, the tracer's per-CTA counts of the same launches (ingest.py --counts)
    and its listing, where each was collected."""
    counts = os.path.join(d, "cta_counts.tsv.xz")
    return [os.path.join(d, "traces", "kernelslist.g")] + ([counts] if os.path.exists(counts) else []) + listing_input(d)


def shape_known(dim3):
    """Whether a manifest grid or block was recorded ((0, 0, 0): its profile failed)."""
    return dim3 not in ("", "(0, 0, 0)")


def load_manifest():
    manifest = list(csv.DictReader(open(os.path.join(HERE, "manifest.csv"))))
    by_key = {(r["gpu"], r["suite"], r["program"], int(r["launch"])): r for r in manifest}
    launches_of = defaultdict(list)  # (gpu, suite, program) -> its launches, in manifest order
    for (g, s, p, launch), r in by_key.items():
        launches_of[(g, s, p)].append((launch, r))
    return by_key, launches_of


def predict_rows(gpuperf, splits, jobs, targets=TARGETS):
    """One row per (launch, target GPU, input path, prediction target) of the given splits:
    the prediction, its interval, the naive bound and the measurement it is compared with.
    Shared with fit.py, which asks for the train split only."""
    by_key, launches_of = load_manifest()
    work = []  # one report per (input dataset, path, target GPU, prediction target)
    for src, suite, program in sorted(launches_of):
        if launches_of[(src, suite, program)][0][1]["split"] not in splits:
            continue
        d = os.path.join(HERE, "data", src, suite, program)
        kl = os.path.join(d, "traces", "kernelslist.g")
        for gpu in GPUS:
            if (gpu, suite, program) not in launches_of:
                continue
            same = gpu == src
            for target in targets:
                if not any(r[MEASURED[target]] for _, r in launches_of[(gpu, suite, program)]):
                    continue
                work.append((src, suite, program, gpu, "ncu, same GPU" if same else "ncu, other GPU", target, ncu_inputs(d)))
                if os.path.exists(kl):
                    work.append((src, suite, program, gpu, "trace, same GPU" if same else "trace, other GPU", target, trace_inputs(d)))
    with concurrent.futures.ThreadPoolExecutor(jobs) as pool:
        results = list(pool.map(lambda w: report(gpuperf, w[6], w[3], w[5]), work))

    rows = []
    for (src, suite, program, gpu, path, target, _), (kernels, err) in zip(work, results):
        for launch, m in launches_of[(gpu, suite, program)]:
            measured = m[MEASURED[target]]
            if not measured or not measurement_valid(m, target):
                continue
            inp = by_key.get((src, suite, program, launch))
            # The same launch of the same command on both GPUs, else no cross prediction. A launch
            # whose grid or block differs (a data-dependent grid: the H100 run of Parboil histo
            # crashed and launched its main kernel over 14x67 CTAs, the H200 run over 14x23) is
            # other work, not the same launch; (0, 0, 0) is a launch whose shape went unrecorded.
            if not inp or inp["command"] != m["command"] or inp["kernel"] != m["kernel"]:
                continue
            if any(shape_known(inp[c]) and shape_known(m[c]) and inp[c] != m[c] for c in ("grid", "block")):
                continue
            truncated = path.startswith("trace") and bool(inp["trace"]) and trace_truncated(os.path.join(HERE, inp["trace"]))
            k = kernels.get(launch)
            # A trace of asynchronous copies without their global sources (the tracer before
            # 2026-11-29; the report says so): incomplete like a truncated one.
            sources_unknown = bool(k) and copy_sources_unknown(k)
            rows.append({
                "suite": suite, "program": program, "launch": launch, "kernel": m["kernel"][:80], "gpu": gpu, "input_gpu": src,
                "path": path, "truncated": int(truncated), "sources_unknown": int(sources_unknown), "target": target, "split": m["split"], "measured": float(measured),
                "pred": k["time_us"] if k else None, "low": k["time_range_us"][0] if k else None,
                "high": (float("inf") if k["time_range_us"][1] is None else k["time_range_us"][1]) if k else None, "calibrated": int(k["time_range_calibrated"]) if k else None,
                "mode": k["mode"] if k else "", "launch_term": k["launch_overhead_us"] if k else None,
                "naive": naive_us(k) if k else None, "bottleneck": k["bottleneck"] if k else "",
                # The kernel's bounds in cycles and its clock: what fit.py combines.
                **{"bound_" + b: (k["bounds_cycles"].get(b) if k else None) for b in BOUND_COLUMNS},
                "clock_mhz": k["sm_clock_mhz"] if k else None,
                "error": "" if k else "; ".join(err) or "launch not in report",
            })
    return rows


def complete(r):
    """Whether a row's input describes the launch whole: neither a truncated trace nor one whose
    asynchronous copies lack their global sources (counts inputs always do)."""
    return not r["truncated"] and not r.get("sources_unknown")


def spearman(xs, ys):
    n = len(xs)

    def rank(v):
        order = sorted(range(n), key=lambda i: v[i])
        rk = [0.0] * n
        i = 0
        while i < n:  # ties share their mean rank
            j = i
            while j + 1 < n and v[order[j + 1]] == v[order[i]]:
                j += 1
            for t in range(i, j + 1):
                rk[order[t]] = (i + j) / 2
            i = j + 1
        return rk

    p, m = rank(xs), rank(ys)
    mp, mm = sum(p) / n, sum(m) / n
    cov = sum((a - mp) * (b - mm) for a, b in zip(p, m))
    var = math.sqrt(sum((a - mp) ** 2 for a in p) * sum((b - mm) ** 2 for b in m))
    return cov / var if var else float("nan")


def stats(rows, key="pred"):
    ok = [r for r in rows if r.get(key) and r["measured"]]
    if not ok:
        return None
    ape = sorted(abs(r[key] - r["measured"]) / r["measured"] * 100 for r in ok)
    factor = sorted(max(r[key] / r["measured"], r["measured"] / r[key]) for r in ok)
    n = len(ok)
    inside = [r for r in ok if r.get("low") is not None] if key == "pred" else []
    return {
        "n": n, "mape": sum(ape) / n, "median_ape": ape[n // 2], "worst_ape": ape[-1],
        "within_25": sum(a <= 25 for a in ape) / n * 100, "spearman": spearman([r[key] for r in ok], [r["measured"] for r in ok]),
        "median_factor": factor[n // 2], "over_2x": sum(f > 2 for f in factor),
        "coverage": (sum(r["low"] <= r["measured"] <= r["high"] for r in inside) / len(inside) * 100) if inside else None,
    }


def fmt(x, f):
    return "-" if x is None or (isinstance(x, float) and math.isnan(x)) else format(x, f)


HEADER = ("| launches | MAPE % | median APE % | worst % | within 25 % | Spearman | median factor | > 2x off | "
          "80 % interval holds % | naive MAPE % | naive Spearman | failed |")


def table_row(g):
    s, nv = stats(g), stats(g, "naive")
    if not s:
        return None
    failed = sum(1 for r in g if r["pred"] is None)
    return (f"| {s['n']} | {s['mape']:.1f} | {s['median_ape']:.1f} | {s['worst_ape']:.0f} | {s['within_25']:.0f} | "
            f"{fmt(s['spearman'], '.2f')} | {s['median_factor']:.2f} | {s['over_2x']} | {fmt(s['coverage'], '.0f')} | "
            f"{nv['mape']:.1f} | {fmt(nv['spearman'], '.2f')} | {failed} |")


def summarize(rows):
    """Markdown: headline (test, per GPU, target and path), per suite, then the train part."""
    groups = defaultdict(list)
    for r in rows:
        variants = [r["path"]]
        if r["path"].startswith("trace"):
            variants = [r["path"] + " (all)"] + ([r["path"] + " (complete)"] if complete(r) else [])
        for p in variants:
            groups[(r["split"], r["target"], r["gpu"], p, "all")].append(r)
            groups[(r["split"], r["target"], r["gpu"], p, r["suite"])].append(r)

    def order(k):
        return (k[0] != "test", TARGETS.index(k[1]), k[2], k[3], k[4] != "all", k[4])

    out = []
    for split in ("test", "train"):
        for target in TARGETS:
            for per_suite in (False, True):
                keys = [k for k in sorted(groups, key=order) if k[0] == split and k[1] == target and (k[4] != "all") == per_suite]
                if not keys:
                    continue
                what = "per suite" if per_suite else "all suites"
                vs = "Nsight Compute duration" if target == "duration" else "CUDA-event time per launch, back to back"
                out += [f"### {split} part, target {target} (vs {vs}), {what}", "",
                        "| GPU | input | " + ("suite | " if per_suite else "") + HEADER[2:],
                        "|" + "---|" * (14 + per_suite)]
                for k in keys:
                    row = table_row(groups[k])
                    if row:
                        out.append(f"| {k[2].upper()} | {k[3]} | " + (f"{k[4]} | " if per_suite else "") + row[2:])
                out.append("")
    return "\n".join(out)


def suite_table(rows, split="test", target="duration"):
    """Markdown: per suite, MAPE (and interval coverage) of each input path over both GPUs
    (complete traces), with the naive bound's MAPE over the same launches."""
    paths = [p + (" (complete)" if p.startswith("trace") else "") for p in PATHS]
    head = "| suite | " + " | ".join(f"{p}: MAPE % (naive) / interval holds %" for p in paths) + " |"
    out = [head, "|" + "---|" * (1 + len(paths))]
    sel = [r for r in rows if r["split"] == split and r["target"] == target and complete(r)]
    for suite in ["all"] + sorted({r["suite"] for r in sel}):
        cells = []
        for p in PATHS:
            g = [r for r in sel if r["path"] == p and (suite == "all" or r["suite"] == suite)]
            s, nv = stats(g), stats(g, "naive")
            cells.append(f"{s['mape']:.0f} ({nv['mape']:.0f}) / {fmt(s['coverage'], '.0f')}, n={s['n']}" if s else "-")
        out.append(f"| {suite} | " + " | ".join(cells) + " |")
    return "\n".join(out) + "\n"


def plot(rows, path):
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("matplotlib not installed: no plot", file=sys.stderr)
        return
    test = [r for r in rows if r["split"] == "test" and r["target"] == "duration" and r["pred"] and complete(r)]
    fig, axes = plt.subplots(1, 4, figsize=(13, 3.6), sharex=True, sharey=True)
    suites = sorted({r["suite"] for r in test})
    marks = dict(zip(suites, "os^Dv<>p"))
    labelled = set()
    for ax, p in zip(axes, PATHS):
        for gpu, color in (("h100", "tab:blue"), ("h200", "tab:orange")):
            for s in suites:
                pts = [(r["measured"], r["pred"]) for r in test if r["path"] == p and r["gpu"] == gpu and r["suite"] == s]
                if pts:
                    name = f"{gpu.upper()} {s}"
                    ax.scatter(*zip(*pts), s=9, marker=marks[s], color=color, alpha=0.6, linewidths=0,
                               label=None if name in labelled else name)
                    labelled.add(name)
        lo, hi = 1, 1e5
        ax.plot([lo, hi], [lo, hi], "k-", lw=0.7)
        ax.plot([lo, hi], [2 * lo, 2 * hi], "k:", lw=0.5)
        ax.plot([lo, hi], [lo / 2, hi / 2], "k:", lw=0.5)
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.set_title(p + " (complete traces)" if p.startswith("trace") else p, fontsize=9)
        ax.set_xlabel("measured (ncu duration), us", fontsize=8)
    axes[0].set_ylabel("predicted, us", fontsize=8)
    fig.legend(loc="lower center", ncol=8, fontsize=7, frameon=False)
    fig.suptitle("gpuperf on the validation corpus' test part (dotted: 2x off)", fontsize=10)
    fig.tight_layout(rect=(0, 0.08, 1, 0.95))
    fig.savefig(path, dpi=80)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--gpuperf", default=os.path.join(ROOT, "build", "gpuperf"))
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 2)
    ap.add_argument("--no-plot", action="store_true")
    ap.add_argument("--from-csv", help="summarise an earlier results/predictions.csv instead of predicting again")
    a = ap.parse_args()
    if a.from_csv:
        num = {"launch", "truncated", "sources_unknown", "measured", "pred", "low", "high", "calibrated", "launch_term", "naive", "clock_mhz",
               *("bound_" + b for b in BOUND_COLUMNS)}
        rows = [{k: (float(v) if v != "" else None) if k in num else v for k, v in r.items()} for r in csv.DictReader(open(a.from_csv))]
        for r in rows:
            r["truncated"] = int(r["truncated"])
            r["sources_unknown"] = int(r.get("sources_unknown") or 0)
    else:
        rows = predict_rows(a.gpuperf, {"train", "test"}, a.jobs)
    os.makedirs(os.path.join(HERE, "results"), exist_ok=True)
    if not a.from_csv:
        with open(os.path.join(HERE, "results", "predictions.csv"), "w", newline="") as f:
            w = csv.DictWriter(f, fieldnames=list(rows[0]))
            w.writeheader()
            w.writerows(rows)
    text = ("## Test part, duration target, per suite (both GPUs, complete traces)\n\n" + suite_table(rows) +
            "\n## Train part, duration target, per suite\n\n" + suite_table(rows, "train") + "\n" + summarize(rows))
    open(os.path.join(HERE, "results", "summary.md"), "w").write(text)
    if not a.no_plot:
        plot(rows, os.path.join(HERE, "results", "accuracy.png"))
    print(text)


if __name__ == "__main__":
    sys.exit(main())
