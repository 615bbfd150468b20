#!/usr/bin/env python3
"""The model against calibrate/shared_fill_probe.cu's `app` launches on the H200: one CTA on each
SM walking 128 steps of 32-line gathers through 1 GiB, profiled and traced as the corpus is
(`tools/collect --lean`, `--ctas first:8`, in app/). Prints, per launch, Nsight Compute's
duration beside gpuperf's prediction for the H200 from the trace and from the profile.

  python3 calibrate/results/shared_fill_probe/compare.py [--gpuperf build/gpuperf] > calibrate/results/shared_fill_probe/compare.out
"""
import argparse
import math
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from probe_app import durations_us, log_error_summary, predict  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
APP = os.path.join(HERE, "app")
# The app's launches in order (shared_fill_probe.cu, mode app): mode and warps a CTA.
LAUNCHES = ["sector-8", "own-8", "sector-1", "sector-16", "line-4", "coal-8"]


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--gpuperf", default=os.path.join(HERE, "..", "..", "..", "build", "gpuperf"))
    a = ap.parse_args()
    listing = os.path.join(APP, "sass.cuobjdump.sass.xz")
    paths = {"trace": predict(a.gpuperf, [os.path.join(APP, "traces", "kernelslist.g"), os.path.join(APP, "traces", "cta_counts.tsv.xz"), listing]),
             "ncu": predict(a.gpuperf, [os.path.join(APP, "ncu_source.csv.xz"), os.path.join(APP, "ncu_raw.csv.xz"), listing])}
    print("launch case measured_us trace_us trace/measured ncu_us ncu/measured")
    logs = {p: [] for p in paths}
    for lid, (m, _) in sorted(durations_us(APP).items()):
        cells = []
        for p, reports in paths.items():
            k = reports[lid]
            cells += ["%.2f" % k["time_us"], "%.2f" % (k["time_us"] / m)]
            logs[p].append(math.log(k["time_us"] / m))
        print(lid, LAUNCHES[lid - 1], "%.2f" % m, *cells)
    for p, v in logs.items():
        print("# %s: %s" % (p, log_error_summary(v)))


if __name__ == "__main__":
    sys.exit(main())
