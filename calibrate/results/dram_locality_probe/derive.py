"""How much an L2 miss fetches from DRAM, from dram_locality_probe's one-thread chases (sm_90
cache entry l2_fill_bytes).

A chase with a stride of 64 B or more misses in L2 at every step: its cold time per step is the
DRAM latency, whatever the stride (64 B to 64 KiB + 128 B, and lines of 256 KiB shuffled). Warm,
every step hits L2. A chase with a stride s below the fill size F finds F/s - 1 of every F/s
steps in L2 (the miss before them brought their sector), so its cold time per step is
(dram + (F/s - 1) * l2) / (F/s). The fill size is the F whose prediction is nearest to the cold
times of strides 4-32 B. Nsight Compute's DRAM bytes per step of the chases of 128 B and more
(one sector asked for) say the same from the other side.

    python3 calibrate/results/dram_locality_probe/derive.py
"""
import csv
import io
import json
import lzma
import os
import statistics

HERE = os.path.dirname(os.path.abspath(__file__))
STEPS = 2048


def load(gpu):
    rows = [json.loads(l) for l in open(os.path.join(HERE, "dram_locality_probe.%s.jsonl" % gpu))]
    return {(r["pattern"], r["stride_bytes"], r["state"]): r["cycles_per_step"] for r in rows if r["pattern"] != "rows"}


def load_rows(gpu):
    rows = [json.loads(l) for l in open(os.path.join(HERE, "dram_locality_probe.%s.jsonl" % gpu))]
    return {(r["stride_bytes"], r["state"], r["ctas"], r["threads_per_cta"]): r["cycles_per_step"] for r in rows if r["pattern"] == "rows"}


def ncu_dram_bytes_per_step(gpu):
    """Per stride, DRAM bytes per step of the cold chase (ncu runs the probe with one launch a
    state: per stride a cold chase, the warm state's two, the L1 one; ncu flushes before each)."""
    text = lzma.open(os.path.join(HERE, "dram_locality_probe.%s.ncu.csv.xz" % gpu), "rt").read().splitlines()
    rows = list(csv.reader(io.StringIO("\n".join(l for l in text if l.startswith('"')))))
    h = rows[0]
    kernels = {}
    for r in rows[1:]:
        kernels.setdefault(int(r[h.index("ID")]), {"name": r[h.index("Kernel Name")]})[r[h.index("Metric Name")]] = float(
            r[h.index("Metric Value")].replace(",", ""))
    chases = [v for _, v in sorted(kernels.items()) if v["name"].startswith("void chase")]
    strides = [json.loads(l)["stride_bytes"] for l in text if l.startswith("{") and '"rows"' not in l][::3]
    return {s: chases[4 * i]["dram__bytes_read.sum"] / STEPS for i, s in enumerate(strides)}


def main():
    extra = {"dram": [], "l2": []}
    for gpu in ("h100", "h200"):
        t = load(gpu)
        far = [t[("stride", s, "cold")] for s in (64, 128, 256, 512, 1024, 2048, 4096, 8192, 16384, 65664)]
        dram = statistics.median(far)
        l2 = statistics.median(v for (p, s, st), v in t.items() if st == "warm_l2")
        print("%s: DRAM %.1f cycles (strides 64 B - 64 KiB, %.1f-%.1f), L2 hit %.1f cycles (warm chases)" % (gpu, dram, min(far), max(far), l2))
        best = None
        for fill in (32, 64, 128):
            err = 0
            for s in (4, 8, 16, 32):
                n = max(1, fill // s)
                pred = (dram + (n - 1) * l2) / n
                err += abs(pred - t[("stride", s, "cold")])
                print("  fill %3d B, stride %2d B: predicted %.1f, measured %.1f" % (fill, s, pred, t[("stride", s, "cold")]))
            if best is None or err < best[1]:
                best = (fill, err)
        print("  fill bytes nearest the cold chases: %d (mean |error| %.1f cycles)" % (best[0], best[1] / 4))
        per_step = ncu_dram_bytes_per_step(gpu)
        print("  ncu DRAM bytes per step, strides of 128 B and more: median %.1f (%s)" % (
            statistics.median(v for s, v in per_step.items() if s >= 128), ", ".join("%d: %.1f" % (s, v) for s, v in sorted(per_step.items()))))
        # Rows: one CTA of n threads, each walking its own row, so a warp request spans n lines.
        # 64 B steps miss every time (cold) or hit (warm); 32 B steps alternate a miss and a fill.
        r = load_rows(gpu)
        lanes = (1, 2, 4, 8, 16, 32)
        d = [r[(64, "cold", 1, n)] for n in lanes]
        h = [r[(64, "warm_l2", 1, n)] for n in lanes]
        print("  a request over n lines (n = %s):" % ", ".join(map(str, lanes)))
        print("    DRAM misses: %s cycles" % ", ".join("%.0f" % v for v in d))
        print("    L2 hits:     %s cycles" % ", ".join("%.0f" % v for v in h))
        print("    fill steps (2 x 32 B step - miss): %s cycles" % ", ".join("%.0f" % (2 * r[(32, "cold", 1, n)] - r[(64, "cold", 1, n)]) for n in lanes))
        print("    32 CTAs of 128 threads (32 lines a request): miss %.0f, 32 B step %.0f" % (r[(64, "cold", 32, 128)], r[(32, "cold", 32, 128)]))
        extra["dram"].append([v - d[0] for v in d])
        extra["l2"].append([v - h[0] for v in h])
    for k in ("dram", "l2"):
        print("latency beyond a one-line request, mean of both GPUs, %s: %s cycles" % (
            k, ", ".join("%d lines %.1f" % (n, statistics.mean(e[i] for e in extra[k])) for i, n in enumerate(lanes))))


if __name__ == "__main__":
    main()
