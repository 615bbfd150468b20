#!/usr/bin/env python3
"""The model against calibrate/atomic_miss_probe.cu's `app` launches on the H200: 2.16 M atomic
updates (sms x 4 CTAs of 256 threads, 16 a thread) hashed over 4 MiB to 1 GiB, independent
(red, atom) or each from the last one's result (chain), every launch after an L2 flush
(flush_read, 192 MiB), profiled, timed and traced as the corpus is (`tools/collect --lean`,
`--ctas first:8`, in app/). Prints, per launch, Nsight Compute's duration beside gpuperf's
prediction for the H200 from the trace and from the profile, and the model's share of updates
that miss L2.

  python3 calibrate/results/atomic_miss_probe/compare.py [--gpuperf build/gpuperf] > calibrate/results/atomic_miss_probe/compare.out
"""
import argparse
import math
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from probe_app import durations_us, log_error_summary, predict  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
APP = os.path.join(HERE, "app")
CASES = ["red-4m", "red-1g", "atom-4m", "atom-1g", "chain-4m", "chain-1g", "red-64m", "red-256m",  # launches 2, 4, .., 16; odd: the flushes
         # launches 18, .., 26: added after the profile estimator was read off the first eight
         "red-32m", "red-128m", "red-512m", "atom-128m", "lines-1g"]
HELD_OUT = set(CASES[8:])


def measured():
    """launch id -> (ncu duration in us, case) from the raw page."""
    return {lid: (us, CASES[lid // 2 - 1] if lid % 2 == 0 else "flush") for lid, (us, _) in durations_us(APP).items()}


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--gpuperf", default=os.path.join(HERE, "..", "..", "..", "build", "gpuperf"))
    a = ap.parse_args()
    listing = os.path.join(APP, "sass.cuobjdump.sass.xz")
    trace = predict(a.gpuperf, [os.path.join(APP, "traces", "kernelslist.g"), os.path.join(APP, "traces", "cta_counts.tsv.xz"), listing])
    ncu = predict(a.gpuperf, [os.path.join(APP, "ncu_source.csv.xz"), os.path.join(APP, "ncu_raw.csv.xz"), listing])
    print("launch case measured_us trace_us trace/measured trace_miss_share ncu_us ncu/measured")
    logs = {"trace": [], "ncu": [], "trace, added cases": [], "ncu, added cases": []}
    for lid, (m, name) in sorted(measured().items()):
        cells = []
        for path, reports in (("trace", trace), ("ncu", ncu)):
            k = reports.get(lid)
            if k:
                cells += ["%.2f" % k["time_us"], "%.2f" % (k["time_us"] / m)]
                if path == "trace":
                    cells.append("%.2f" % k["memory"]["atomic_l2_miss_share"])
                if name != "flush":
                    logs[path + (", added cases" if name in HELD_OUT else "")].append(math.log(k["time_us"] / m))
            else:
                cells += ["-", "-"] + (["-"] if path == "trace" else [])
        print(lid, name, "%.2f" % m, *cells)
    for path, v in logs.items():
        if not v:
            continue
        print("# %s, the atomic launches: %s" % (path, log_error_summary(v)))


if __name__ == "__main__":
    main()
