#!/usr/bin/env python3
"""The model against calibrate/const_index_probe.cu's `app` launches on the H200: warp loads of
1, 2, 4, 8, 16 and 32 distinct words of a 16 KiB __constant__ table (a CTA of 32 warps on every
SM), profiled and traced as the corpus is (`tools/collect --lean`, `--ctas first:8`, in app/).
Prints, per launch, Nsight Compute's duration beside gpuperf's prediction for the H200 from the
trace with its SASS listing, and from the profile.

  python3 calibrate/results/const_index_probe/compare.py [--gpuperf build/gpuperf] > calibrate/results/const_index_probe/compare.out
"""
import argparse
import math
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from probe_app import durations_us, predict  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
APP = os.path.join(HERE, "app")
WORDS = [1, 2, 4, 8, 16, 32]


def measured():
    return [us for _, (us, _) in sorted(durations_us(APP).items())]


def predicted(gpuperf, inputs):
    return [k["time_us"] for _, k in sorted(predict(gpuperf, inputs).items())]


def main():
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--gpuperf", default=os.path.join(HERE, "..", "..", "..", "build", "gpuperf"))
    a = ap.parse_args()
    meas = measured()
    sass = os.path.join(APP, "sass.cuobjdump.sass.xz")
    trace = predicted(a.gpuperf, [os.path.join(APP, "traced", "traces", "kernelslist.g"), sass])
    counts = predicted(a.gpuperf, [os.path.join(APP, "ncu_source.csv.xz"), os.path.join(APP, "ncu_raw.csv.xz"), sass])
    print(f"{'words':>5} {'ncu us':>10} {'trace us':>10} {'ratio':>6} {'counts us':>10} {'ratio':>6}")
    for w, m, t, c in zip(WORDS, meas, trace, counts):
        print(f"{w:>5} {m:>10.1f} {t:>10.1f} {t / m:>6.3f} {c:>10.1f} {c / m:>6.3f}")
    for name, p in (("trace", trace), ("counts", counts)):
        print(f"{name}: mean |log2(predicted / measured)| {sum(abs(math.log2(x / m)) for x, m in zip(p, meas)) / len(meas):.3f}")


if __name__ == "__main__":
    main()
