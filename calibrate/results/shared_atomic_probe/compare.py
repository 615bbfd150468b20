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
import csv
import json
import lzma
import math
import os
import re
import subprocess

HERE = os.path.dirname(os.path.abspath(__file__))
APP = os.path.join(HERE, "app")
FORMS = ["lds", "sts", "inc", "add", "addret", "max", "fadd", "cas", "exch"]
PATTERNS = ["distinct", "share2", "share4", "share8", "share16", "share32", "bank2", "bank4", "bank8", "bank16", "bank32", "rand256",
            "rand1024", "few8"]


def measured():
    """launch id -> (ncu duration in us, form-pattern) from the raw page."""
    rows = list(csv.reader(lzma.open(os.path.join(APP, "ncu_raw.csv.xz"), "rt")))
    h = rows[0]
    t, name, ident = h.index("gpu__time_duration.sum"), h.index("Kernel Name"), h.index("ID")
    out = {}
    for r in rows[2:]:
        m = re.search(r"rate_kernel<(\d+), (\d+)>", r[name])
        out[int(r[ident]) + 1] = (float(r[t]) * 1e3, FORMS[int(m.group(1))] + "-" + PATTERNS[int(m.group(2))])
    return out


def predict(gpuperf, inputs):
    r = subprocess.run([gpuperf, "report", *inputs, "--gpu", "h200", "--target", "duration", "--json", "-q"], capture_output=True, text=True,
                       check=True)
    return {k["input_launch_id"]: k for k in json.loads(r.stdout)["kernels"]}


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
        print("# %s: %d launches, mean |log2(predicted / measured)| %.3f, worst %.2fx" %
              (path, len(v), sum(abs(x) for x in v) / len(v) / math.log(2), math.exp(max(abs(x) for x in v))))


if __name__ == "__main__":
    main()
