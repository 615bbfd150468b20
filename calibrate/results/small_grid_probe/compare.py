#!/usr/bin/env python3
"""The model against calibrate/small_grid_probe.cu's `app` launches on the H200: `tile_wave` on
1 to 128 CTAs of 16 threads, profiled and traced as the corpus is (`tools/collect --lean`,
`--ctas first:8`, in app/). Prints, per launch, Nsight Compute's duration beside gpuperf's
prediction for the H200 from the trace, from the profile, and from the profile without its L2
reads from L1 (`lts__t_sectors_srcunit_tex_op_read*` blanked: the kernel-wide L2 rate, as for
profiles taken before tools/collect asked for them).

  python3 calibrate/results/small_grid_probe/compare.py [--gpuperf build/gpuperf] > calibrate/results/small_grid_probe/compare.out
"""
import argparse
import csv
import lzma
import math
import os
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from probe_app import durations_us, log_error_summary, predict  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
APP = os.path.join(HERE, "app")
CTAS = [1, 2, 4, 8, 16, 32, 64, 128]
FROM_L1 = ("lts__t_sectors_srcunit_tex_op_read.sum", "lts__t_sectors_srcunit_tex_op_read_lookup_hit.sum")


def raw_without_reads_from_l1(path):
    """A copy of the raw page with the L2's reads from L1 blanked (their column names kept)."""
    rows = list(csv.reader(lzma.open(os.path.join(APP, "ncu_raw.csv.xz"), "rt")))
    cols = [rows[0].index(c) for c in FROM_L1]
    with open(path, "w", newline="") as f:
        w = csv.writer(f, quoting=csv.QUOTE_ALL)
        for i, r in enumerate(rows):
            w.writerow([("" if i >= 2 and j in cols else v) for j, v in enumerate(r)])


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--gpuperf", default=os.path.join(HERE, "..", "..", "..", "build", "gpuperf"))
    a = ap.parse_args()
    listing = os.path.join(APP, "sass.cuobjdump.sass.xz")
    paths = {"trace": predict(a.gpuperf, [os.path.join(APP, "traces", "kernelslist.g"), os.path.join(APP, "traces", "cta_counts.tsv.xz"), listing]),
             "ncu": predict(a.gpuperf, [os.path.join(APP, "ncu_source.csv.xz"), os.path.join(APP, "ncu_raw.csv.xz"), listing])}
    with tempfile.TemporaryDirectory() as tmp:
        raw = os.path.join(tmp, "ncu_raw.csv")
        raw_without_reads_from_l1(raw)
        paths["ncu, kernel-wide L2 rate"] = predict(a.gpuperf, [os.path.join(APP, "ncu_source.csv.xz"), raw, listing])
    print("launch ctas measured_us trace_us trace/measured ncu_us ncu/measured ncu_kernel_wide_us ncu_kernel_wide/measured")
    logs = {p: [] for p in paths}
    for lid, (m, _) in sorted(durations_us(APP).items()):
        cells = []
        for p, reports in paths.items():
            k = reports[lid]
            cells += ["%.2f" % k["time_us"], "%.2f" % (k["time_us"] / m)]
            logs[p].append(math.log(k["time_us"] / m))
        print(lid, CTAS[lid - 1], "%.2f" % m, *cells)
    for p, v in logs.items():
        print("# %s: %s" % (p, log_error_summary(v)))


if __name__ == "__main__":
    main()
