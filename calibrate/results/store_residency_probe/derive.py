"""The L2's line-write rate and the dirty bytes it keeps, from store_residency_probe's runs
(sm_90 table entries l2_write_rate_fraction and l2_dirty_retained_fraction).

Line-writes: with a cold L2 and arrays that fit it (4-16 MiB each), a kernel's time over its
bytes is a line whose slope is the cost of a byte. A write kernel puts W bytes of stores into
L2; copy and update also fill R = W bytes read from DRAM into it. If stores and fills share the
L2's write side, the three kinds give one rate over W, R + W and R + W bytes (they do: 4.0-4.3
TB/s), while a read kernel's rate is DRAM's. The rate over the L2's measured read bandwidth
(gpus.json l2_bandwidth_gbs) is the table's fraction.

Retention: Nsight Compute's DRAM write bytes of the cold runs (ncu flushes the L2 before each
launch) are the dirty bytes less a near constant, whatever the footprint past it: the L2 keeps
that much dirty data when the kernel ends, and writes back the rest during it.

    python3 calibrate/results/store_residency_probe/derive.py
"""
import csv
import io
import json
import lzma
import os
import statistics

HERE = os.path.dirname(os.path.abspath(__file__))
# gpus.json: l2_mib and the measured l2_bandwidth_gbs of each GPU.
GPUS = {"h100": (50 * 2**20, 6761.0), "h200": (60 * 2**20, 7177.0)}
KINDS = ["empty", "read", "write", "copy", "update"]
SIZES = [4, 8, 12, 16, 24, 32, 48, 64, 96, 128, 256, 512]


def slope(xs, ys):
    mx, my = sum(xs) / len(xs), sum(ys) / len(ys)
    return sum((x - mx) * (y - my) for x, y in zip(xs, ys)) / sum((x - mx) ** 2 for x in xs)


def line_write_bytes(kind, b):
    return {"write": b, "copy": 2 * b, "update": 2 * b, "read": b}[kind]


def rates(path):
    rows = [json.loads(line) for line in open(path)]
    out = {}
    for kind in ["read", "write", "copy", "update"]:
        pts = [(r["mib_per_array"] * 2**20, r["best_us"]) for r in rows
               if r["cold_l2"] and r["kind"] == kind and r["mib_per_array"] <= 16]
        s = slope([line_write_bytes(kind, b) for b, _ in pts], [t for _, t in pts])  # us per byte
        out[kind] = 1e-3 / s  # bytes per us, in GB/s
    return out


def ncu_runs(path):
    text = lzma.open(path, "rt").read()
    lines = [line for line in text.splitlines() if line.startswith('"')]
    by_id = {}
    for r in csv.DictReader(io.StringIO("\n".join(lines))):
        by_id.setdefault(int(r["ID"]), {})[r["Metric Name"]] = float(r["Metric Value"].replace(",", ""))
    # The probe's launch order with one timed launch a point (argument 1): cold points, then warm
    # points each after an untimed launch of the same kernel.
    order = []
    for cold in (1, 0):
        for kind in KINDS:
            for mib in SIZES:
                if kind == "empty" and mib != 4:
                    continue
                if not cold:
                    order.append(None)
                order.append((cold, kind, mib))
    ids = sorted(by_id)
    assert len(ids) == len(order), (len(ids), len(order))
    return {o: by_id[i] for o, i in zip(order, ids) if o is not None and o[0] == 1}


def main():
    all_fractions, all_kept = [], []
    for gpu, (l2_bytes, l2_read_gbs) in GPUS.items():
        print("%s: L2 line-write rate (cold L2, arrays of 4-16 MiB; GB/s of line-written bytes, read: DRAM bytes):" % gpu)
        fractions = []
        for name in ["store_residency_probe.%s.jsonl" % gpu, "store_residency_probe.%s.run2.jsonl" % gpu]:
            r = rates(os.path.join(HERE, name))
            print("  %-40s" % name + "  ".join("%s %.0f" % (k, v) for k, v in r.items()))
            fractions += [r[k] / l2_read_gbs for k in ("write", "copy", "update")]
        print("  over the L2 read rate (%.0f GB/s): %s; mean %.3f" % (l2_read_gbs, ", ".join("%.3f" % f for f in fractions),
                                                                  statistics.mean(fractions)))
        all_fractions.append(statistics.mean(fractions))
        runs = ncu_runs(os.path.join(HERE, "store_residency_probe.%s.ncu.csv.xz" % gpu))
        print("%s: dirty bytes kept in L2 at the kernel's end (ncu, cold L2; footprints of 64-512 MiB a array):" % gpu)
        kept_all = []
        for kind in ["write", "copy", "update"]:
            kept = [mib * 2**20 - runs[(1, kind, mib)]["dram__bytes_write.sum"] for mib in SIZES if mib >= 64]
            kept_all += kept
            print("  %-7s kept %s MB; median %.1f MB = %.3f of the L2" % (kind, ", ".join("%.1f" % (k / 1e6) for k in kept),
                                                                      statistics.median(kept) / 1e6, statistics.median(kept) / l2_bytes))
        print("  all kinds: median %.3f of the L2" % (statistics.median(kept_all) / l2_bytes))
        all_kept.append(statistics.median(kept_all) / l2_bytes)
    print("table (mean of the GPUs): l2_write_rate_fraction %.2f, l2_dirty_retained_fraction %.2f"
          % (statistics.mean(all_fractions), statistics.mean(all_kept)))


if __name__ == "__main__":
    main()
