"""The CTA slot turnaround from dispatch_overlap_probe's timings (sm_90 table curve
cta_slot_turnaround_cycles_vs_warps_per_cta).

For each CTA shape, the points where the CTAs' lives bound the time (spin at least 1,500 cycles
for 8-warp CTAs, 6,000 for 1-warp ones: past the corner where the starts alone bound it) lie on a
line over the spin whose slope is one SM cycle per round. Its intercept holds the back-to-back
launch term, the first round's staggered start (every slot's CTA dispatched one interval after
the last) and one turnaround per round.

    python3 calibrate/results/dispatch_overlap_probe/turnaround.py [h100|h200] [run file]

The H100's first run (dispatch_overlap_probe.h100.jsonl) is the default; an H200 run takes the
H200's own launch term from its calibration results.
"""
import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
CALIBRATE = os.path.dirname(os.path.dirname(HERE))
CLOCK_MHZ = 1980.0


def results(path):
    rows = json.load(open(path))
    rows = rows.get("results", rows) if isinstance(rows, dict) else rows
    return {r["bench"]: r["value"] for r in rows if isinstance(r, dict) and "bench" in r}


def launch_term_us(bench):
    # Back-to-back launches of kernels that spin x us take x + this, once x passes ~3 us.
    pts = [(float(k.rsplit("_", 1)[1]), v) for k, v in bench.items() if k.startswith("launch.back_to_back_us_spin_")]
    long = [v - x for x, v in pts if x >= 3]
    return sum(long) / len(long)


def line(xs, ys):
    n = len(xs)
    mx, my = sum(xs) / n, sum(ys) / n
    slope = sum((x - mx) * (y - my) for x, y in zip(xs, ys)) / sum((x - mx) ** 2 for x in xs)
    return slope, my - slope * mx


def main():
    gpu = sys.argv[1] if len(sys.argv) > 1 else "h100"
    calibration = {"h100": "nvidia-h100-80gb-hbm3", "h200": "nvidia-h200"}[gpu]
    run = sys.argv[2] if len(sys.argv) > 2 else f"dispatch_overlap_probe.{gpu}.jsonl"
    bench = results(os.path.join(CALIBRATE, "results", f"{calibration}.results.json"))
    table = json.load(open(os.path.join(CALIBRATE, "..", "latency_tables", "arch", "sm_90.json")))
    interval = table["curves"]["cta_dispatch_interval_cycles_vs_warps_per_cta"]
    launch = launch_term_us(bench)
    points = [json.loads(l) for l in open(os.path.join(HERE, run))]
    for threads, from_spin in ((32, 6000), (256, 1500)):
        pts = [p for p in points if p["threads"] == threads and p["spin_cycles"] >= from_spin]
        slope, intercept = line([p["spin_cycles"] for p in pts], [p["best_us"] for p in pts])
        p0 = pts[0]
        warps = threads // 32
        dispatch = dict(zip(interval["x"], interval["y"]))[warps]
        stagger_cycles = p0["sms"] * p0["ctas_per_sm"] * dispatch
        body_cycles = (intercept - launch) * CLOCK_MHZ
        turnaround = (body_cycles - stagger_cycles) / p0["rounds"]
        print(json.dumps({"warps_per_cta": warps, "rounds": p0["rounds"], "slope_us_per_cycle": round(slope, 6),
                          "clock_mhz_from_slope": round(p0["rounds"] / slope, 1), "intercept_us": round(intercept, 3),
                          "launch_term_us": round(launch, 3), "first_round_stagger_cycles": round(stagger_cycles, 1),
                          "turnaround_cycles": round(turnaround, 1)}))


if __name__ == "__main__":
    main()
