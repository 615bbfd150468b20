#!/usr/bin/env python3
"""Collect the public validation corpus on the GPU at hand (run on the GPU machine).

  tools/device/collect_validation.py --out DIR [--phase measure|trace|all] [--suite NAME ...]
                                     [--only GLOB ...] [--jobs 4]

For every program of bench/validation/suites/<suite>.json (built beforehand into
third_party/vbin/ by bench/validation/build_<suite>.sh) it runs, in the program's folder:
  prepare      the entry's input generator, if any
  measure      tools/collect with the launch timer (CUDA-event mean of back-to-back replays of
               each launch) and Nsight Compute (lean sections plus memory-traffic counters) for
               launches 1..max_launches, and the SASS listing of the binary; programs one at a
               time, so that the timings are not disturbed
  trace        tools/collect with gpuperf's NVBit tracer for the same launches (CTA-sampled),
               several programs at once (trace timing does not matter)
  counts       the tracer with no CTA traced, only every CTA's warp instructions counted
               (traces/cta_counts.tsv): the grid's distribution of work, for traces taken
               before the tracer wrote it (`--phase counts`, not part of `all`)
  retrace      the tracer again for the launches `--launches` names (e.g. 4-6,8-10), with the
               same sampling and limit, into <program>/retraced/: for launches whose traces an
               improved tracer writes differently (`--phase retrace`, not part of `all`; the
               per-CTA counts stay the count-only run's)
  reprofile    Nsight Compute alone (lean sections plus memory-traffic counters, no timer) into
               <program>/reprofiled/: for counters tools/collect asks for that an earlier
               profile lacks (`--phase reprofile`, not part of `all`)
into DIR/<gpu>/<suite>/<program>/. A program already done (a .measured or .traced marker) is
skipped, so the command can be run again after a time limit. Progress goes to DIR/progress.log.
"""
import argparse
import concurrent.futures
import fnmatch
import itertools
import json
import os
import shlex
import subprocess
import sys
import time

REPO = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
VBIN = os.path.join(REPO, "third_party", "vbin")


def log(out, msg):
    line = time.strftime("%H:%M:%S ") + msg
    print(line, flush=True)
    with open(os.path.join(out, "progress.log"), "a") as f:
        f.write(line + "\n")


def programs(suites, only):
    for name in suites:
        with open(os.path.join(REPO, "bench", "validation", "suites", name + ".json")) as f:
            suite = json.load(f)
        for p in suite["programs"]:
            if only and not any(fnmatch.fnmatch(p["program"], g) or fnmatch.fnmatch(f"{name}/{p['program']}", g) for g in only):
                continue
            yield name, p


def expand(args):
    return [a.replace("$REPO", REPO) for a in args]


def is_elf(path):
    try:
        with open(path, "rb") as f:
            return f.read(4) == b"\x7fELF"
    except OSError:
        return False


def run_collect(out, suite, p, extra, timeout, subdir=""):
    cwd = os.path.normpath(os.path.join(VBIN, p["dir"]))
    dest = os.path.join(out, suite, p["program"], subdir)
    os.makedirs(dest, exist_ok=True)
    cmd = expand(p["cmd"])
    argv = [sys.executable, os.path.join(REPO, "tools", "collect"), "--out", dest, "--launch-count", str(p["max_launches"]),
            "--step-timeout", str(timeout), *extra]
    if "--skip-ncu" not in extra and is_elf(os.path.join(cwd, cmd[0])):
        argv += ["--binary", os.path.join(cwd, cmd[0])]
    t0 = time.time()
    with open(os.path.join(dest, "collect.log"), "a") as logf:
        r = subprocess.run(argv + ["--", *cmd], cwd=cwd, stdout=logf, stderr=subprocess.STDOUT)
    return r.returncode, time.time() - t0


def prepare(out, suite, p):
    """Runs the entry's input generator once per machine (a .prepared marker)."""
    dest = os.path.join(out, suite, p["program"])
    os.makedirs(dest, exist_ok=True)
    mark = os.path.join(dest, ".prepared")
    if not p.get("prepare") or os.path.exists(mark):
        return True
    cwd = os.path.normpath(os.path.join(VBIN, p["dir"]))
    try:
        with open(os.path.join(dest, "collect.log"), "a") as logf:
            r = subprocess.run(expand(p["prepare"]), cwd=cwd, stdout=logf, stderr=subprocess.STDOUT, timeout=300)
    except (subprocess.TimeoutExpired, OSError):
        return False
    if r.returncode == 0:
        open(mark, "w").close()
    return r.returncode == 0


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--out", required=True)
    ap.add_argument("--phase", choices=["measure", "trace", "counts", "retrace", "reprofile", "all"], default="all")
    ap.add_argument("--launches", help="--phase retrace: the launch ids to trace again (1-based, e.g. 4-6,8-10)")
    ap.add_argument("--suite", action="append", help="suite names (default: every bench/validation/suites/*.json)")
    ap.add_argument("--only", action="append", default=[], help="program globs (NAME or SUITE/NAME)")
    ap.add_argument("--only-from", help="file of program globs, one a line (e.g. those collected on another GPU)")
    ap.add_argument("--jobs", type=int, default=4, help="programs traced at once")
    ap.add_argument("--timer", default=os.path.join(REPO, "third_party", "launch_timer.so"))
    ap.add_argument("--tracer", default=os.path.join(REPO, "third_party", "tracer-build", "gpuperf_tracer.so"))
    ap.add_argument("--ctas", default="first:8")
    ap.add_argument("--max-instrs", default="2000000")
    ap.add_argument("--no-replay", action="store_true", help="time launches by their run only (no replays)")
    ap.add_argument("--cap", type=int, default=0, help="profile at most this many launches of any program (0: as listed)")
    ap.add_argument("--timeout", type=float, default=300, help="seconds per step of one program")
    a = ap.parse_args()
    gpu = subprocess.run(["nvidia-smi", "--query-gpu=name", "--format=csv,noheader"], capture_output=True, text=True).stdout
    gpu = gpu.strip().splitlines()[0].lower().replace(" ", "-") if gpu.strip() else "unknown-gpu"
    out = os.path.join(os.path.abspath(a.out), gpu)
    os.makedirs(out, exist_ok=True)
    if a.only_from:
        with open(a.only_from) as f:
            a.only += [line.strip() for line in f if line.strip()]
    suites = a.suite or sorted(f[:-5] for f in os.listdir(os.path.join(REPO, "bench", "validation", "suites")) if f.endswith(".json"))
    todo = list(programs(suites, a.only))
    if a.cap:
        for _, p in todo:
            p["max_launches"] = min(p["max_launches"], a.cap)
    # Round-robin over the suites, so that a run cut short by a time limit still covers each.
    by_suite = {}
    for item in todo:
        by_suite.setdefault(item[0], []).append(item)
    todo = [item for group in itertools.zip_longest(*by_suite.values()) for item in group if item]
    log(out, f"{len(todo)} programs of {','.join(suites)} on {gpu}, phase {a.phase}")
    os.environ.setdefault("CUDA_MODULE_LOADING", "EAGER")

    if a.phase in ("measure", "all"):
        for suite, p in todo:
            mark = os.path.join(out, suite, p["program"], ".measured")
            if os.path.exists(mark):
                continue
            if not prepare(out, suite, p):
                log(out, f"{suite}/{p['program']}: prepare failed")
                continue
            rc, dt = run_collect(out, suite, p, ["--timer", a.timer, "--lean"] + (["--no-replay"] if a.no_replay else []), a.timeout)
            log(out, f"{suite}/{p['program']}: measured rc={rc} in {dt:.0f} s")
            open(mark, "w").write(str(rc))

    # Tracer runs, several programs at once (trace timing does not matter): `marker` makes a run
    # that stopped at a time limit go on where it was.
    def tracer_runs(marker, ctas, extra, verb):
        def run(item):
            suite, p = item
            mark = os.path.join(out, suite, p["program"], marker)
            if os.path.exists(mark):
                return None
            if not prepare(out, suite, p):
                return f"{suite}/{p['program']}: prepare failed"
            rc, dt = run_collect(out, suite, p, ["--skip-ncu", "--tracer", a.tracer, "--ctas", ctas, *extra], a.timeout * 2)
            open(mark, "w").write(str(rc))
            return f"{suite}/{p['program']}: {verb} rc={rc} in {dt:.0f} s"

        with concurrent.futures.ThreadPoolExecutor(a.jobs) as pool:
            for msg in pool.map(run, todo):
                if msg:
                    log(out, msg)

    if a.phase in ("trace", "all"):
        tracer_runs(".traced", a.ctas, ["--max-instrs", a.max_instrs], "traced")
    if a.phase == "counts":
        tracer_runs(".counted", "none", [], "counted")
    if a.phase == "retrace":
        if not a.launches:
            ap.error("--phase retrace needs --launches")
        for suite, p in todo:
            if not prepare(out, suite, p):
                log(out, f"{suite}/{p['program']}: prepare failed")
                continue
            cwd = os.path.normpath(os.path.join(VBIN, p["dir"]))
            dest = os.path.join(out, suite, p["program"], "retraced")
            os.makedirs(dest, exist_ok=True)
            env = dict(os.environ, CUDA_INJECTION64_PATH=os.path.abspath(a.tracer), GPUPERF_TRACE_DIR=dest, GPUPERF_TRACE_XZ="1",
                       GPUPERF_TRACE_MAX_INSTRS=a.max_instrs, GPUPERF_TRACE_VERBOSE="1", GPUPERF_TRACE_CTAS=a.ctas,
                       GPUPERF_TRACE_LAUNCHES=a.launches, GPUPERF_TRACE_CTA_COUNTS="0")
            t0 = time.time()
            with open(os.path.join(dest, "tracer.log"), "w") as logf:
                try:
                    rc = subprocess.run(expand(p["cmd"]), cwd=cwd, env=env, stdout=subprocess.DEVNULL, stderr=logf,
                                        timeout=a.timeout * 2).returncode
                except subprocess.TimeoutExpired:
                    rc = "timeout"
            log(out, f"{suite}/{p['program']}: retraced launches {a.launches} rc={rc} in {time.time() - t0:.0f} s")
    if a.phase == "reprofile":
        for suite, p in todo:
            mark = os.path.join(out, suite, p["program"], "reprofiled", ".profiled")
            if os.path.exists(mark):
                continue
            if not prepare(out, suite, p):
                log(out, f"{suite}/{p['program']}: prepare failed")
                continue
            rc, dt = run_collect(out, suite, p, ["--lean"], a.timeout, subdir="reprofiled")
            log(out, f"{suite}/{p['program']}: reprofiled rc={rc} in {dt:.0f} s")
            open(mark, "w").write(str(rc))
    log(out, "done")


if __name__ == "__main__":
    main()
