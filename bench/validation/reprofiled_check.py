#!/usr/bin/env python3
"""What the L2's reads from L1 change in count-only predictions, on the train part's programs
(Rodinia, HeCBench) profiled again on the H200 with the counters the corpus' first profiles lack
(`tools/device/collect_validation.py --phase reprofile --suite rodinia --suite hecbench`, into
data/h200/<suite>/<program>/reprofiled/).

  python3 bench/validation/reprofiled_check.py [--gpuperf build/gpuperf] > bench/validation/results/reprofiled_check.txt

Each launch is predicted from its new profile twice: as it is, and with the L2's reads from L1
(`lts__t_sectors_srcunit_tex_op_read*`) blanked, which leaves the kernel-wide L2 rate the model
took before. For the H200 against the new profile's own durations; for the H100 (the H200's
profile predicting the other GPU) against the manifest's H100 durations of the same launch.
Train part only: these programs may be read per kernel.
"""
import argparse
import csv
import lzma
import math
import os
import tempfile
from collections import defaultdict

from evaluate import report
from ingest import read_ncu_raw

HERE = os.path.dirname(os.path.abspath(__file__))
FROM_L1 = ("lts__t_sectors_srcunit_tex_op_read.sum", "lts__t_sectors_srcunit_tex_op_read_lookup_hit.sum")


def predict(gpuperf, inputs, gpu):
    """launch id -> predicted kernel duration in us ({} where gpuperf failed)."""
    return {lid: k["time_us"] for lid, k in report(gpuperf, inputs, gpu, "duration")[0].items()}


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--gpuperf", default=os.path.join(HERE, "..", "..", "build", "gpuperf"))
    a = ap.parse_args()
    manifest = list(csv.DictReader(open(os.path.join(HERE, "manifest.csv"))))
    suites = ("rodinia", "hecbench")
    if any(r["suite"] in suites and r["split"] != "train" for r in manifest):
        raise SystemExit("%s are not all in the train part: this check reads them per kernel" % " and ".join(suites))
    h100 = {(r["suite"], r["program"], int(r["launch"])): float(r["ncu_time_us"]) for r in manifest
            if r["gpu"] == "h100" and r["suite"] in suites and r["ncu_time_us"]}
    errors, ratios = defaultdict(list), defaultdict(list)
    for suite, program in sorted((s, p) for s in suites for p in os.listdir(os.path.join(HERE, "data", "h200", s))):
        d = os.path.join(HERE, "data", "h200", suite, program, "reprofiled")
        if not os.path.exists(os.path.join(d, "ncu_raw.csv.xz")):
            continue
        measured = {lid: us for lid, _, us, _, _ in read_ncu_raw(os.path.join(d, "ncu_raw.csv.xz"))}
        rows = list(csv.reader(lzma.open(os.path.join(d, "ncu_raw.csv.xz"), "rt")))
        blank = [rows[0].index(c) for c in FROM_L1]
        source, listing = os.path.join(d, "ncu_source.csv.xz"), os.path.join(d, "sass.cuobjdump.sass.xz")
        with tempfile.TemporaryDirectory() as tmp:
            kernel_wide = os.path.join(tmp, "ncu_raw.csv")
            with open(kernel_wide, "w", newline="") as f:
                w = csv.writer(f, quoting=csv.QUOTE_ALL)
                for i, r in enumerate(rows):
                    w.writerow([("" if i >= 2 and j in blank else v) for j, v in enumerate(r)])
            for gpu in ("h200", "h100"):
                before = predict(a.gpuperf, [source, kernel_wide, listing], gpu)
                after = predict(a.gpuperf, [source, os.path.join(d, "ncu_raw.csv.xz"), listing], gpu)
                for lid, p0 in before.items():
                    m = measured.get(lid) if gpu == "h200" else h100.get((suite, program, lid))
                    if not m or lid not in after:
                        continue
                    errors[gpu].append((abs(p0 - m) / m, abs(after[lid] - m) / m))
                    errors[(gpu, suite)].append(errors[gpu][-1])
                    ratios[(suite + "/" + program, gpu)].append((p0 / m, after[lid] / m))
    for gpu, src in (("h200", "its own profiles"), ("h100", "the H200's profiles")):
        for key, what in [(gpu, "all")] + [((gpu, s), s) for s in suites]:
            e = errors[key]
            print("%s from %s, %s: %d launches, MAPE %.2f %% (kernel-wide L2 rate) -> %.2f %% (reads from L1)" %
                  (gpu.upper(), src, what, len(e), 100 * sum(x for x, _ in e) / len(e), 100 * sum(y for _, y in e) / len(e)))
    print("programs that moved (geometric mean of predicted / measured, mean |ln|):")
    for (program, gpu), v in sorted(ratios.items()):
        before = sum(abs(math.log(x)) for x, _ in v) / len(v)
        after = sum(abs(math.log(y)) for _, y in v) / len(v)
        if abs(before - after) > 0.005:
            gm = [math.exp(sum(math.log(r[i]) for r in v) / len(v)) for i in (0, 1)]
            print("  %-32s %s %2d launches  %.2fx -> %.2fx  %.3f -> %.3f" % (program, gpu.upper(), len(v), gm[0], gm[1], before, after))


if __name__ == "__main__":
    main()
