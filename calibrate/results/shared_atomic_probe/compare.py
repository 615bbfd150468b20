#!/usr/bin/env python3
"""The model against calibrate/shared_atomic_probe.cu's `app` launches on the H200: each form
and pattern as a kernel of its own (a CTA of 32 warps on every SM, 128 requests a warp),
profiled, timed and traced as the corpus is (`tools/collect --lean --ctas first:8`, in app/).
Prints, per launch, Nsight Compute's duration beside gpuperf's prediction for the H200 from the
trace (launches 1-45; the float adds' traces, whose compare-and-swap loops retry far more often
under the tracer, and the two CAS launches the run did not reach are not kept) and from the
profile (all 61).

  python3 calibrate/results/shared_atomic_probe/compare.py [--gpuperf build/gpuperf] > calibrate/results/shared_atomic_probe/compare.out
"""
import argparse
import math
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from probe_app import durations_us, log_error_summary, predict  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
APP = os.path.join(HERE, "app")
FORMS = ["lds", "sts", "inc", "add", "addret", "max", "fadd", "cas", "exch"]
PATTERNS = ["distinct", "share2", "share4", "share8", "share16", "share32", "bank2", "bank4", "bank8", "bank16", "bank32", "rand256",
            "rand1024", "few8"]


def measured():
    """launch id -> (ncu duration in us, form-pattern) from the raw page."""
    out = {}
    for lid, (us, name) in durations_us(APP).items():
        m = re.search(r"rate_kernel<(\d+), (\d+)>", name)
        out[lid] = (us, FORMS[int(m.group(1))] + "-" + PATTERNS[int(m.group(2))])
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--gpuperf", default=os.path.join(HERE, "..", "..", "..", "build", "gpuperf"))
    a = ap.parse_args()
    listing = os.path.join(APP, "sass.cuobjdump.sass.xz")
    trace = predict(a.gpuperf, [os.path.join(APP, "traces", "kernelslist.g"), listing])
    ncu = predict(a.gpuperf, [os.path.join(APP, "ncu_source.csv.xz"), os.path.join(APP, "ncu_raw.csv.xz"), listing])
    print("launch form-pattern measured_us trace_us trace/measured ncu_us ncu/measured")
    logs = {"trace": [], "ncu": []}
    for lid, (m, name) in sorted(measured().items()):
        cells = []
        for path, reports in (("trace", trace), ("ncu", ncu)):
            k = reports.get(lid)
            if k:
                cells += ["%.2f" % k["time_us"], "%.2f" % (k["time_us"] / m)]
                logs[path].append(math.log(k["time_us"] / m))
            else:
                cells += ["-", "-"]
        print(lid, name, "%.2f" % m, *cells)
    for path, v in logs.items():
        print("# %s: %d launches, %s" % (path, len(v), log_error_summary(v)))


if __name__ == "__main__":
    main()
