#!/usr/bin/env python3
"""Fits gpuperf's SM/memory overlap exponents, launch terms and calibrated intervals on the
validation corpus' TRAIN part.

  python3 bench/validation/fit.py [--gpuperf build/gpuperf] [--fitter build/gpuperf_fit] [--date YYYY-MM-DD]

For each GPU with measurements (H100, H200) and each prediction target (duration: vs the ncu
duration; back-to-back: vs the CUDA-event time per launch) it predicts every launch of the train
split (split.json) from every input path (traces and ncu profiles of either GPU) with
`gpuperf report --json`, and hands each row's suite and parts (the SM's time and throughput bound, DRAM
and L2 transfer times, the atomics or busiest-warp floor, and the measured time) to
gpuperf_fit (bench/validation/fit_launch_interval.cpp: a grid choice of the overlap exponent per
model mode, one for the GPUs of one SM design (the H100 and the H200 are both sm_90: `--same-sm`),
Eigen least squares for the launch term per GPU and target, and for the back-to-back target the
launch path's period, the shortest time a launch back to back takes (a grid choice),
the suite-robust split-conformal interval of log(measured / predicted) per model mode: the union
of each train suite's interval, with the pooled and the Boost.Math Student-t ones beside it). Traces the tracer
cut short are left out (they hold only the first instructions of their CTAs). The values are
written into latency_tables/gpus.json with the provenance `fitted on validation train split
(<suites>), <gpu>, <date>`, and the fit quality is printed and written to results/fit.json.
Re-running after a model change re-fits: the fit never reads the test part (the fitter refuses
rows of any other split).
"""
import argparse
import datetime
import json
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, HERE)
import evaluate  # noqa: E402

CATALOG = {"h100": "H100-SXM5-80GB", "h200": "H200-SXM-141GB"}


def training_rows(gpuperf, jobs):
    rows = evaluate.predict_rows(gpuperf, {"train"}, jobs)
    assert all(r["split"] == "train" for r in rows)
    return [r for r in rows if r["pred"] is not None and evaluate.complete(r)]


PARTS = ("sm_rounds", "issue", "functional_unit", "shared_memory", "l1", "dram", "l2", "memory_phases")


def parts_us(r):
    """A row's bounds in us as gpuperf_fit reads them (it combines them with gpuperf's own
    bound::overlap_parts and bound::sm_and_memory), then the floor: atomics or busiest warp."""
    b = {k: r["bound_" + k] or 0.0 for k in evaluate.BOUND_COLUMNS}
    return [b[k] / r["clock_mhz"] for k in PARTS] + [max(b["atomics"], b["busiest_warp"]) / r["clock_mhz"]]


def same_sm_arguments(tables):
    """`--same-sm` for each set of the fitted GPUs that share an architecture (the H100 and the
    H200 are both sm_90): one SM design overlaps its work with memory transfers alike, so the
    fitter chooses one overlap exponent per mode for them (two GPUs' rows, half the parameters)."""
    cat = json.load(open(tables))
    arch_of = {gpu: next(g["arch"] for g in cat["gpus"] if g["name"] == name) for gpu, name in CATALOG.items()}
    by_arch = {}
    for gpu, arch in sorted(arch_of.items()):
        by_arch.setdefault(arch, []).append(gpu)
    return [x for gpus in by_arch.values() if len(gpus) > 1 for x in ("--same-sm", ",".join(gpus))]


def write_tables(fit, train_suites, date, path):
    with open(path) as f:
        cat = json.load(f)
    on = "validation train split (%s)" % ", ".join(train_suites)
    for gpu, per_target in sorted(fit.items()):
        entry = next(g for g in cat["gpus"] if g["name"] == CATALOG[gpu])
        key = "fitted-validation-train-" + gpu
        cat["sources"][key] = {"kind": "fitted", "on": on, "gpu": gpu, "tool": "bench/validation/fit.py", "date": date,
                               "note": "fitted on %s, %s, %s" % (on, gpu, date)}
        ex = per_target.get("overlap_exponent")
        for mode in ("simulation", "bounds"):
            k = "overlap_exponent_" + mode
            entry.pop(k, None)
            if ex and ex[mode] > 0:  # 0: the largest part fitted best; leave the key out
                entry[k] = {"value": ex[mode], "source": key,
                            "note": "grid choice by mean |log(measured / predicted)| over %d train predictions of both modes%s: %.3f (%.3f with perfect overlap)" % (
                                ex["n"], " of %s (one SM design, one exponent)" % ", ".join(ex["chosen_over"]) if len(ex.get("chosen_over", [])) > 1 else "",
                                ex["mean_abs_log_error"], ex["mean_abs_log_error_without"])}
        for target, f in per_target.items():
            if target == "overlap_exponent":
                continue
            t = target.replace("-", "_")
            if target == "back-to-back":
                entry.pop("launch_period_back_to_back_us", None)
                if f.get("launch_period_us", 0) > 0:
                    entry["launch_period_back_to_back_us"] = {
                        "value": round(f["launch_period_us"], 3), "source": key,
                        "note": "the launch path's period: grid choice (0.05 us steps) by mean |log(measured / predicted)| over %d train predictions "
                                "with the launch term re-fitted for each: %.4f" % (f["n"], f["mean_abs_log_error"])}
            entry["launch_" + t + "_us"] = {
                "value": round(f["launch_us"], 3), "source": key,
                "note": "Huber-weighted least squares of relative error over %d train predictions (%d under 10 us); standard error %.3f us; "
                        "train MAPE under 10 us %.1f %% (%.1f %% without a launch term)" % (
                            f["n"], f["n_below_10us"], f["launch_stderr_us"], f["mape_below_10us"], f["mape_below_10us_without_launch"])}
            for mode, iv in f.get("interval", {}).items():
                for end in ("low", "high"):
                    entry["interval_%s_%s_log_%s" % (mode, t, end)] = {
                        "value": round(iv["log_" + end], 4), "source": key,
                        "note": "%s %d %% interval of log(measured / predicted), fitted at %.1f %% (the level at which each train suite left out "
                                "is held, %.0f %% sure: %s), %d train predictions of %d suites; holds %.0f %% of them (%s; pooled split-conformal: %.0f %%)" % (
                            iv["method"], round(iv["level"] * 100), iv["fitted_level"] * 100, iv["held_out_confidence"] * 100,
                            ", ".join("%s %.0f %% (at least %.0f %%)" % (s, c["at_fitted_level"] * 100, c["lower_bound_at_fitted_level"] * 100)
                                      for s, c in sorted(iv["held_out_suite_coverage"].items())),
                            iv["n"], iv["suites"], iv["train_coverage"] * 100,
                            ", ".join("%s %.0f %%" % (s, c * 100) for s, c in sorted(iv["train_coverage_per_suite"].items())),
                            iv["pooled_conformal"]["train_coverage"] * 100)}
    with open(path, "w") as f:
        f.write(json.dumps(cat, indent=1))


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--gpuperf", default=os.path.join(ROOT, "build", "gpuperf"))
    ap.add_argument("--fitter", default=os.path.join(ROOT, "build", "gpuperf_fit"))
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 2)
    ap.add_argument("--date", default=datetime.date.today().isoformat())
    ap.add_argument("--tables", default=os.path.join(ROOT, "latency_tables", "gpus.json"))
    ap.add_argument("--rows", help="re-fit from the rows a previous run wrote (results/fit_rows.tsv) instead of predicting again")
    a = ap.parse_args()
    split = json.load(open(os.path.join(HERE, "split.json")))
    if a.rows:
        tsv = open(a.rows).read()
    else:
        rows = training_rows(a.gpuperf, a.jobs)
        header = "# gpu target mode split suite " + " ".join(k + "_us" for k in PARTS) + " floor_us measured_us (train part; floor: atomics or busiest warp)\n"
        tsv = header + "".join(
            "%s\t%s\t%s\t%s\t%s\t" % (r["gpu"], r["target"], r["mode"], r["split"], r["suite"]) + "\t".join("%.6g" % v for v in [*parts_us(r), r["measured"]]) + "\n"
            for r in rows)
        os.makedirs(os.path.join(HERE, "results"), exist_ok=True)
        with open(os.path.join(HERE, "results", "fit_rows.tsv"), "w") as f:
            f.write(tsv)
    p = subprocess.run([a.fitter, *same_sm_arguments(a.tables)], input=tsv, capture_output=True, text=True)
    if p.returncode != 0:
        sys.exit("gpuperf_fit failed: " + p.stderr.strip())
    fit = json.loads(p.stdout)
    write_tables(fit, split["train"], a.date, a.tables)
    os.makedirs(os.path.join(HERE, "results"), exist_ok=True)
    with open(os.path.join(HERE, "results", "fit.json"), "w") as f:
        json.dump(fit, f, indent=1)
        f.write("\n")
    print(json.dumps(fit, indent=1))


if __name__ == "__main__":
    sys.exit(main())
