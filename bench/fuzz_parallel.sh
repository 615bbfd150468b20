#!/usr/bin/env bash
# Many libFuzzer processes per target at once, for a machine with more cores than targets.
# Each target is seeded exactly as tests/fuzz/run_fuzzers.sh seeds it (its seed() function is
# read from that file, and the regression inputs of tests/fuzz/regressions/<t>/ are added), then
# W independent processes of the fuzz binary run on it for FUZZ_SECONDS, with the options and
# environment of run_fuzzers.sh; the W processes of a target share one corpus directory (each
# reloads the others' new units). A finding is what run_fuzzers.sh calls one: a non-zero exit,
# or "runtime error:", "ERROR: AddressSanitizer" or "ERROR: libFuzzer" in a log; its input is
# kept as $FUZZ_BUILD/finding_<target>_*.
#   FUZZ_WORKERS: "target=W ..." or "target=W:SECONDS" (default: 2 per target)
#   FUZZ_SECONDS (default 600), FUZZ_BUILD (default build-fuzz), FUZZ_BIN (default
#   $FUZZ_BUILD/fuzz_readers, built by run_fuzzers.sh), FUZZ_LOADER: a command put before the
#   binary (e.g. a carried ld.so with --library-path).
# Per-target sums (executions = the sum of stat::number_of_executed_units over the processes,
# exec/s, peak RSS, units added, corpus size, clean or not) are written as one run, in the form
# of bench/results/fuzz.json's "runs", to $FUZZ_BUILD/fuzz_parallel_run.json; with
# FUZZ_RECORD=1 the run is also appended to bench/results/fuzz.json and its totals ("seconds"
# there are process-seconds: W x seconds). A run made on another machine is recorded with
#   bench/fuzz_parallel.sh --record RUN.json [MACHINE-DESCRIPTION]
#   FUZZ_SECONDS=540 FUZZ_WORKERS="tables=4 pptgpu=3 sass=3 ncu_raw=3 kernelslist=1:60" bench/fuzz_parallel.sh
set -uo pipefail
cd "$(dirname "$0")/.."

record() {  # record RUN.json [MACHINE]: append a run to bench/results/fuzz.json and add to its totals
  python3 bench/fuzz_record.py "$1" fuzz_parallel "${2:-}"
}
if [ "${1:-}" = --record ]; then record "$2" "${3:-}"; exit $?; fi

B=${FUZZ_BUILD:-build-fuzz}
BIN=${FUZZ_BIN:-$B/fuzz_readers}
S=${FUZZ_SECONDS:-600}
WORKERS=${FUZZ_WORKERS:-accelsim=2 ncu_source=2 ncu_raw=2 ncu_lines=2 sass=2 pptgpu_config=2 pptgpu=2 tables=2 kernelslist=2}
[ -x "$BIN" ] || { echo "fuzz_parallel: no fuzz binary $BIN (build it with tests/fuzz/run_fuzzers.sh)"; exit 1; }
FX=tests/fixtures
eval "$(sed -n '/^seed() {/,/^}/p' tests/fuzz/run_fuzzers.sh)"   # the seeds of run_fuzzers.sh, unchanged
declare -F seed >/dev/null || { echo "fuzz_parallel: no seed() in tests/fuzz/run_fuzzers.sh"; exit 1; }
started=$(date -u +%Y-%m-%dT%H:%M:%SZ)
pids=(); names=()
for spec in $WORKERS; do
  t=${spec%%=*}; w=${spec#*=}; secs=$S
  case $w in *:*) secs=${w#*:}; w=${w%%:*} ;; esac
  seeds=$B/seeds_$t; corpus=$B/corpus_$t
  rm -rf "$seeds"; mkdir -p "$seeds" "$corpus"
  seed "$t" "$seeds"
  [ -d tests/fuzz/regressions/$t ] && cp tests/fuzz/regressions/$t/* "$seeds/" 2>/dev/null || true
  echo "$t $w $secs" >> "$B/fuzz_parallel_plan.$$"
  for i in $(seq 1 "$w"); do
    GPUPERF_FUZZ_TARGET=$t UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 ASAN_OPTIONS=detect_leaks=1 \
      ${FUZZ_LOADER:-} "$BIN" -max_total_time="$secs" -max_len=65536 -timeout=20 -rss_limit_mb=2048 -print_final_stats=1 \
      -dict=tests/fuzz/dict/$t.dict -artifact_prefix="$B/finding_${t}_" "$corpus" "$seeds" > "$B/fuzz_${t}_$i.log" 2>&1 &
    pids+=($!); names+=("$t $i")
  done
done
status=0
for k in "${!pids[@]}"; do
  rc=0; wait "${pids[$k]}" || rc=$?
  read -r t i <<< "${names[$k]}"
  echo "$rc" > "$B/fuzz_${t}_$i.rc"
  if [ $rc -ne 0 ] || grep -q "runtime error:\|ERROR: AddressSanitizer\|ERROR: libFuzzer" "$B/fuzz_${t}_$i.log"; then
    tail -40 "$B/fuzz_${t}_$i.log"; echo "fuzz_parallel: $t process $i FAILED (exit $rc; inputs: $B/finding_${t}_*)"; status=1
  fi
done
python3 - "$B" "$started" "$status" "$B/fuzz_parallel_plan.$$" <<'PY'
import json, os, re, subprocess, sys, datetime
build, started, rc, plan = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4]
def stat(log, key):
    m = re.findall(r"stat::%s:\s*(\d+)" % key, log)
    return int(m[-1]) if m else None
try:
    compiler = subprocess.run(["clang++", "--version"], capture_output=True, text=True).stdout.splitlines()[0]
except Exception:
    compiler = os.environ.get("FUZZ_COMPILER", "unknown")
run = {"started": started, "finished": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"),
       "script": "bench/fuzz_parallel.sh", "seconds_per_target": int(os.environ.get("FUZZ_SECONDS", "600")),
       "workers": {}, "compiler": os.environ.get("FUZZ_COMPILER", compiler),
       "sanitizers": "address,undefined (-fno-sanitize-recover=all)", "nproc": os.cpu_count(),
       "exit_status": rc, "targets": {}}
for line in open(plan):
    t, w, secs = line.split(); w, secs = int(w), int(secs)
    run["workers"][t] = w
    logs = [open(os.path.join(build, f"fuzz_{t}_{i}.log"), errors="replace").read() for i in range(1, w + 1)]
    rcs = [int(open(os.path.join(build, f"fuzz_{t}_{i}.rc")).read()) for i in range(1, w + 1)]
    execs = [stat(l, "number_of_executed_units") or 0 for l in logs]
    findings = sorted(f for f in os.listdir(build) if f.startswith(f"finding_{t}_"))
    corpus = os.path.join(build, f"corpus_{t}")
    bad = any(s in l for l in logs for s in ("runtime error:", "ERROR: AddressSanitizer", "ERROR: libFuzzer"))
    run["targets"][t] = {"workers": w, "seconds": secs, "process_seconds": w * secs,
                         "executions": sum(execs), "executions_per_process": execs,
                         "exec_per_s": round(sum(execs) / secs), "exec_per_s_per_process": round(sum(execs) / secs / w),
                         "peak_rss_mb": max((stat(l, "peak_rss_mb") or 0) for l in logs),
                         "new_units_added": sum((stat(l, "new_units_added") or 0) for l in logs),
                         "corpus_files": len(os.listdir(corpus)) if os.path.isdir(corpus) else 0,
                         "exit_codes": rcs, "clean": not bad and not findings and not any(rcs),
                         "findings": findings}
os.remove(plan)
with open(os.path.join(build, "fuzz_parallel_run.json"), "w") as f:
    json.dump(run, f, indent=2)
    f.write("\n")
for t, r in run["targets"].items():
    print(f"fuzz_parallel: {t}: {r['executions']} executions in {r['seconds']}s by {r['workers']} processes, "
          f"{r['exec_per_s']} exec/s, {r['corpus_files']} corpus files, {'clean' if r['clean'] else 'FINDING'}")
PY
[ "${FUZZ_RECORD:-0}" = 1 ] && record "$B/fuzz_parallel_run.json"
exit $status
