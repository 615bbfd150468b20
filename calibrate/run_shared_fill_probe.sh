#!/usr/bin/env bash
# On a GPU machine: calibrate/shared_fill_probe.cu's timings ($OUT/shared_fill_probe.jsonl) and its
# app launches profiled, timed and traced as the corpus is (tools/collect), the collection into
# $OUT/shared_fill_collect.tar.xz.
#   OUT=/tmp/probes TRACER=third_party/tracer-build/gpuperf_tracer.so calibrate/run_shared_fill_probe.sh
# TRACER: gpuperf's NVBit tracer (tools/tracer/build.sh); without it the traces are skipped.
set -uo pipefail
cd "$(dirname "$0")/.."
OUT=${OUT:-/tmp/probes}
TRACER=${TRACER:-third_party/tracer-build/gpuperf_tracer.so}
B=/tmp/probe-build
D=$B/collect-shared-fill
mkdir -p "$OUT" "$B"
rm -rf "$D"
{ nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,clocks.max.mem --format=csv; nvcc --version | tail -1; ncu --version | tail -1; } > "$OUT/env.txt" 2>&1
nvcc -O3 -arch=sm_90 -lineinfo -Icalibrate -o "$B/shared_fill_probe" calibrate/shared_fill_probe.cu || exit 1
timeout 240 "$B/shared_fill_probe" time > "$OUT/shared_fill_probe.jsonl" 2> "$OUT/shared_fill_probe.err"
timeout 200 python3 tools/collect --out "$D" --lean --binary "$B/shared_fill_probe" --step-timeout 180 -- "$B/shared_fill_probe" app > "$OUT/collect.log" 2>&1
[ -f "$TRACER" ] && timeout 200 python3 tools/collect --out "$D/traced" --skip-ncu --tracer "$TRACER" --ctas first:8 --step-timeout 180 \
  -- "$B/shared_fill_probe" app >> "$OUT/collect.log" 2>&1
(cd "$D" && tar -cJf "$OUT/shared_fill_collect.tar.xz" --exclude='*.ncu-rep' .)
ls -la "$OUT"
