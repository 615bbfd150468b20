#!/usr/bin/env python3
"""How far the trace path's cache model is from the kernel's own memory traffic.

  python3 bench/validation/traffic.py [--gpuperf build/gpuperf] [--jobs N] [--list-train]

For every launch with a complete trace, predicted for the GPU it was traced on (kernel-duration
target: a cold L2, as Nsight Compute measures), it sets the DRAM bytes read and written that
gpuperf derives from the traced addresses beside Nsight Compute's dram__bytes_read.sum and
dram__bytes_write.sum of the same launch (raw page row = launch id). These are traffic counters,
never times, and nothing here feeds the model: it is a check of the memory stage alone.

It writes results/traffic.md: per split, GPU and suite, the median and mean log2 of
(modelled + 1 MiB) / (measured + 1 MiB) for reads and for writes, and the share of launches more
than 1.5x off. `--list-train` also prints each train launch (the test part is reported in
aggregate only, as everywhere in this corpus).
"""
import argparse
import concurrent.futures
import csv
import io
import lzma
import math
import os
import statistics
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, HERE)
import evaluate  # noqa: E402

MIB = 1024.0 * 1024.0
UNIT = {"byte": 1.0, "Kbyte": 1e3, "Mbyte": 1e6, "Gbyte": 1e9, "Tbyte": 1e12}


def measured_traffic(raw_path):
    """launch id -> (DRAM bytes read, DRAM bytes written) from an ncu raw page."""
    with lzma.open(raw_path, "rt") as f:
        rows = list(csv.reader(io.StringIO(f.read())))
    head, units = rows[0], rows[1]
    rd, wr = head.index("dram__bytes_read.sum"), head.index("dram__bytes_write.sum")

    def value(row, i):
        return float(row[i].replace(",", "")) * UNIT[units[i]]

    return {n + 1: (value(r, rd), value(r, wr)) for n, r in enumerate(rows[2:]) if len(r) > wr}


def collect(gpuperf, jobs):
    by_key, launches_of = evaluate.load_manifest()
    work = []
    for gpu, suite, program in sorted(launches_of):
        d = os.path.join(HERE, "data", gpu, suite, program)
        kl = os.path.join(d, "traces", "kernelslist.g")
        raw = os.path.join(d, "ncu_raw.csv.xz")
        if not os.path.exists(kl) or not os.path.exists(raw):
            continue
        work.append((gpu, suite, program, evaluate.trace_inputs(d), raw))
    with concurrent.futures.ThreadPoolExecutor(jobs) as pool:
        reports = list(pool.map(lambda w: evaluate.report(gpuperf, w[3], w[0], "duration")[0], work))
    rows = []
    for (gpu, suite, program, _, raw), kernels in zip(work, reports):
        measured = measured_traffic(raw)
        for launch, m in launches_of[(gpu, suite, program)]:
            if launch not in kernels or launch not in measured or not m["trace"]:
                continue
            if evaluate.trace_truncated(os.path.join(HERE, m["trace"])):
                continue
            if evaluate.copy_sources_unknown(kernels[launch]):
                continue
            mem = kernels[launch]["memory"]
            rows.append({"split": m["split"], "gpu": gpu, "suite": suite, "program": program, "launch": launch,
                         "read": mem["dram_read_bytes"], "written": mem["dram_write_bytes"],
                         "read_measured": measured[launch][0], "written_measured": measured[launch][1]})
    return rows


def log2_ratio(model, measured):
    return math.log2((model + MIB) / (measured + MIB))


def table(rows):
    out = ["| split | GPU | suite | launches | reads: median log2 (model/ncu) | reads: mean | reads >1.5x off % | "
           "writes: median log2 | writes: mean | writes >1.5x off % |", "|---|---|---|---|---|---|---|---|---|---|"]
    groups = {}
    for r in rows:
        groups.setdefault((r["split"], r["gpu"], r["suite"]), []).append(r)
        groups.setdefault((r["split"], r["gpu"], "all"), []).append(r)
    off = math.log2(1.5)
    for (split, gpu, suite), g in sorted(groups.items()):
        rd = [log2_ratio(r["read"], r["read_measured"]) for r in g]
        wr = [log2_ratio(r["written"], r["written_measured"]) for r in g]
        out.append("| %s | %s | %s | %d | %+.2f | %+.2f | %.0f | %+.2f | %+.2f | %.0f |" % (
            split, gpu.upper(), suite, len(g), statistics.median(rd), statistics.mean(rd), 100 * sum(abs(x) > off for x in rd) / len(rd),
            statistics.median(wr), statistics.mean(wr), 100 * sum(abs(x) > off for x in wr) / len(wr)))
    return "\n".join(out) + "\n"


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--gpuperf", default=os.path.join(ROOT, "build", "gpuperf"))
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 2)
    ap.add_argument("--list-train", action="store_true")
    a = ap.parse_args()
    rows = collect(a.gpuperf, a.jobs)
    text = ("# Trace-path DRAM traffic against Nsight Compute's counters (complete traces, same GPU, cold L2)\n\n"
            "log2 of (modelled + 1 MiB) / (measured + 1 MiB): 0 is exact, +1 twice the measured bytes.\n\n" + table(rows))
    os.makedirs(os.path.join(HERE, "results"), exist_ok=True)
    with open(os.path.join(HERE, "results", "traffic.md"), "w") as f:
        f.write(text)
    print(text)
    if a.list_train:
        for r in sorted(rows, key=lambda r: -abs(log2_ratio(r["read"], r["read_measured"]))):
            if r["split"] == "train":
                print("%s %-9s %-26s %3d  read %9.2f MB (ncu %9.2f)  written %9.2f MB (ncu %9.2f)" % (
                    r["gpu"], r["suite"], r["program"], r["launch"], r["read"] / 1e6, r["read_measured"] / 1e6, r["written"] / 1e6, r["written_measured"] / 1e6))


if __name__ == "__main__":
    sys.exit(main())
