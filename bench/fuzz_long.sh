#!/usr/bin/env bash
# A long fuzzing run of every reader: tests/fuzz/run_fuzzers.sh with FUZZ_SECONDS per target
# (default 3600), FUZZ_JOBS targets at once (default 2), at low CPU priority. Each target's
# executions, exec/s, corpus size and peak RSS are appended as one run to
# bench/results/fuzz.json, whose per-target totals sum every recorded run (runs go on from the
# corpora the earlier runs left in $FUZZ_BUILD). A finding fails the script; the input is left
# as $FUZZ_BUILD/finding_<target>_*, to be kept under tests/fuzz/regressions/<target>/ with its fix.
#   FUZZ_SECONDS=7200 FUZZ_TARGETS="ncu_raw sass" bench/fuzz_long.sh
set -uo pipefail
cd "$(dirname "$0")/.."
export FUZZ_SECONDS=${FUZZ_SECONDS:-3600}
export FUZZ_JOBS=${FUZZ_JOBS:-2}
export FUZZ_BUILD=${FUZZ_BUILD:-build-fuzz}
TARGETS=${FUZZ_TARGETS:-accelsim ncu_source ncu_raw ncu_lines sass pptgpu_config pptgpu tables kernelslist}
export FUZZ_TARGETS=$TARGETS
started=$(date -u +%Y-%m-%dT%H:%M:%SZ)
rc=0
nice -n 10 tests/fuzz/run_fuzzers.sh || rc=$?
python3 - "$FUZZ_BUILD" "$started" "$rc" $TARGETS <<'PY'
import json, os, re, subprocess, sys, datetime
build, started, rc, targets = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4:]
def stat(log, key):
    m = re.findall(r"stat::%s:\s*(\d+)" % key, log)
    return int(m[-1]) if m else None
run = {"started": started, "finished": datetime.datetime.utcnow().strftime("%Y-%m-%dT%H:%M:%SZ"),
       "seconds_per_target": int(os.environ["FUZZ_SECONDS"]), "jobs": int(os.environ["FUZZ_JOBS"]),
       "compiler": subprocess.run(["clang++", "--version"], capture_output=True, text=True).stdout.splitlines()[0],
       "sanitizers": "address,undefined (-fno-sanitize-recover=all)", "nproc": os.cpu_count(),
       "exit_status": rc, "targets": {}}
for t in targets:
    path = os.path.join(build, f"fuzz_{t}.log")
    if not os.path.exists(path):
        continue
    log = open(path, errors="replace").read()
    execs = stat(log, "number_of_executed_units") or 0
    secs = (stat(log, "average_exec_per_sec") or 0)
    findings = sorted(f for f in os.listdir(build) if f.startswith(f"finding_{t}_"))
    corpus = os.path.join(build, f"corpus_{t}")
    run["targets"][t] = {"executions": execs, "exec_per_s": secs, "peak_rss_mb": stat(log, "peak_rss_mb"),
                         "new_units_added": stat(log, "new_units_added"),
                         "corpus_files": len(os.listdir(corpus)) if os.path.isdir(corpus) else 0,
                         "clean": ("runtime error:" not in log and "ERROR: AddressSanitizer" not in log
                                   and "ERROR: libFuzzer" not in log and not findings),
                         "findings": findings}
with open(os.path.join(build, "fuzz_long_run.json"), "w") as f:
    json.dump(run, f, indent=2)
PY
python3 bench/fuzz_record.py "$FUZZ_BUILD/fuzz_long_run.json" fuzz_long || rc=$?
exit $rc
