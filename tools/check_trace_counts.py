#!/usr/bin/env python3
"""Checks that traced per-PC warp-instruction counts equal Nsight Compute's for the same launches.

  python3 tools/check_trace_counts.py DATASET [launch ...]
DATASET holds ncu_source.csv.xz, ncu_raw.csv.xz and traces_full/kernel-N.traceg.xz (tools/collect).
Exit status 1 if any PC differs. PCs are compared as offsets from the function start.
"""
import os
import sys

import gpuperf


def main():
    ds = sys.argv[1]
    launches = [int(x) for x in sys.argv[2:]] or sorted(
        int(f.split("-")[1].split(".")[0]) for f in os.listdir(os.path.join(ds, "traces_full")) if f.startswith("kernel-"))
    ncu = gpuperf.load([os.path.join(ds, "ncu_source.csv.xz"), os.path.join(ds, "ncu_raw.csv.xz")])
    bad = 0
    for lid in launches:
        tr = gpuperf.predict(os.path.join(ds, "traces_full", f"kernel-{lid}.traceg.xz"), "h200", per_pc=True).kernels[0]
        nc = gpuperf.predict(ncu, "h200", kernel=lid, per_pc=True).kernels[0]
        t = {p["pc"]: p["warp_executions"] for p in tr.data["per_pc"]}
        base = min(p["pc"] for p in nc.data["per_pc"])
        n = {p["pc"] - base: p["warp_executions"] for p in nc.data["per_pc"] if p["warp_executions"] > 0}
        diff = {pc: (t.get(pc, 0), n.get(pc, 0)) for pc in set(t) | set(n) if t.get(pc, 0) != n.get(pc, 0)}
        total_t, total_n = sum(t.values()), sum(n.values())
        status = "OK" if not diff else f"{len(diff)} PCs differ"
        print(f"launch {lid:3d} {tr.name[:40]:40s} traced {total_t:12.0f}  ncu {total_n:12.0f}  {len(n)} PCs  {status}")
        for pc, (a, b) in sorted(diff.items())[:5]:
            print(f"    pc {pc:#06x}: traced {a:.0f} ncu {b:.0f}")
        bad += bool(diff)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
