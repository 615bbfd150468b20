#!/usr/bin/env bash
# On a GPU machine: calibrate/atomic_miss_probe.cu measured (chains, loaded lanes, rates, two runs
# each), the app launches' DRAM and L2 counters from Nsight Compute, and the app launches
# profiled, timed and traced as the corpus is (tools/collect), their results into $OUT.
#   OUT=/tmp/probes TRACER=third_party/tracer-build/gpuperf_tracer.so [APP_ONLY=1] calibrate/run_atomic_miss_probe.sh
# TRACER: gpuperf's NVBit tracer (tools/tracer/build.sh); without it the traces are skipped.
# Every step has a time limit, so that one slow step leaves the others' results.
set -uo pipefail
cd "$(dirname "$0")/.."
OUT=${OUT:-/tmp/probes}
TRACER=${TRACER:-third_party/tracer-build/gpuperf_tracer.so}
B=/tmp/probe-build
mkdir -p "$OUT" "$B"
{ nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,clocks.max.mem --format=csv; nvcc --version | tail -1; ncu --version | tail -1; } > "$OUT/env.txt" 2>&1
nvcc -O3 -arch=sm_90 -lineinfo -Icalibrate -o "$B/atomic_miss_probe" calibrate/atomic_miss_probe.cu || exit 1
cuobjdump -sass "$B/atomic_miss_probe" | grep -E "Function|ATOM|RED|LDG" > "$OUT/atomic_miss_probe.sass_ops.txt"
# APP_ONLY=1: only the app launches (profiled, timed, traced), not the chains, lanes and rates.
[ "${APP_ONLY:-0}" = 1 ] || for run in 1 2; do
  for mode in chain lanes rate; do
    timeout 120 "$B/atomic_miss_probe" $mode > "$OUT/atomic_miss_${mode}.run$run.txt" 2>&1
  done
done
M=gpu__time_duration.sum,dram__bytes_read.sum,dram__bytes_write.sum,lts__t_sectors_op_red.sum,lts__t_sectors_op_atom.sum
M=$M,lts__t_sectors_op_red_lookup_hit.sum,lts__t_sectors_op_red_lookup_miss.sum,lts__t_sectors_op_atom_lookup_hit.sum
M=$M,lts__t_sectors_op_atom_lookup_miss.sum,lts__t_requests_op_red.sum,lts__t_requests_op_atom.sum
[ "${APP_ONLY:-0}" = 1 ] || timeout 200 ncu --clock-control none --metrics "$M" --csv "$B/atomic_miss_probe" app > "$OUT/atomic_miss_ncu.csv" 2>/dev/null
D=$B/collect-atomic-miss
rm -rf "$D"
timeout 240 python3 tools/collect --out "$D" --lean --binary "$B/atomic_miss_probe" --step-timeout 200 \
  -- "$B/atomic_miss_probe" app > "$OUT/collect.log" 2>&1
[ -f "$TRACER" ] && timeout 200 python3 tools/collect --out "$D/traced" --skip-ncu --tracer "$TRACER" --ctas first:8 --step-timeout 180 \
  -- "$B/atomic_miss_probe" app >> "$OUT/collect.log" 2>&1
(cd "$D" && tar -cJf "$OUT/atomic_miss_collect.tar.xz" --exclude='*.ncu-rep' .)
# One archive of the small files, so that a copy back that limits its file count keeps them all.
(cd "$OUT" && tar -cJf results.tar.xz --exclude=atomic_miss_collect.tar.xz --exclude=results.tar.xz .)
ls -la "$OUT"
