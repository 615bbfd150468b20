"""What the probes' compare.py scripts share: the Nsight Compute durations of an app collection
(calibrate/results/<probe>/app/, collected with tools/collect) and gpuperf's predictions of them."""
import csv
import json
import lzma
import math
import os
import subprocess

US_PER_UNIT = {"ms": 1e3, "msecond": 1e3, "us": 1.0, "usecond": 1.0, "ns": 1e-3, "nsecond": 1e-3}


def durations_us(app):
    """Launch id (the raw page's ID + 1) -> (Nsight Compute duration in us, kernel name)."""
    rows = list(csv.reader(lzma.open(os.path.join(app, "ncu_raw.csv.xz"), "rt")))
    head, units = rows[0], rows[1]
    t, name, ident = head.index("gpu__time_duration.sum"), head.index("Kernel Name"), head.index("ID")
    scale = US_PER_UNIT[units[t]]
    return {int(r[ident]) + 1: (float(r[t].replace(",", "")) * scale, r[name]) for r in rows[2:]}


def predict(gpuperf, inputs, gpu="h200"):
    """Input launch id -> gpuperf's JSON report of that launch (kernel duration target)."""
    r = subprocess.run([gpuperf, "report", *inputs, "--gpu", gpu, "--target", "duration", "--json", "-q"], capture_output=True, text=True,
                       check=True)
    return {k["input_launch_id"]: k for k in json.loads(r.stdout)["kernels"]}


def log_error_summary(logs):
    """'mean |log2(predicted / measured)| M, worst Wx' of natural-log ratios `logs`."""
    return "mean |log2(predicted / measured)| %.3f, worst %.2fx" % (sum(abs(x) for x in logs) / len(logs) / math.log(2),
                                                                     math.exp(max(abs(x) for x in logs)))
