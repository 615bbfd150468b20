#!/usr/bin/env bash
# On a GPU machine: calibrate/alu_pipe_probe.cu's issue intervals ($OUT/alu_pipe_probe.h200.jsonl, two runs), the
# SASS of its kernels with each kernel's opcode counts ($OUT/alu_pipe_probe.sass.txt.xz,
# $OUT/alu_pipe_probe.opcodes.txt) and Nsight Compute's instruction counts by pipe for one launch
# of each kernel ($OUT/alu_pipe_probe.ncu.csv.xz; counts only, no times).
#   OUT=/tmp/probes calibrate/run_alu_pipe_probe.sh
set -uo pipefail
cd "$(dirname "$0")/.."
OUT=${OUT:-/tmp/probes}
B=/tmp/probe-build
mkdir -p "$OUT" "$B"
{ nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,clocks.max.mem --format=csv; nvcc --version | tail -1; ncu --version | tail -1; } > "$OUT/alu_pipe_env.txt" 2>&1
nvcc -O3 -arch=sm_90 -o "$B/alu_pipe_probe" calibrate/alu_pipe_probe.cu || exit 1
cuobjdump -sass "$B/alu_pipe_probe" > "$B/alu_pipe_probe.sass.txt"
xz -9 -c "$B/alu_pipe_probe.sass.txt" > "$OUT/alu_pipe_probe.sass.txt.xz"
# Per kernel: how many of each opcode its SASS holds.
awk '/Function :/ { k = $3 } /\/\*[0-9a-f]{4}\*\// { for (i = 1; i <= NF; ++i) if ($i ~ /^[A-Z][A-Z0-9_.]+$/ && $i !~ /^R[0-9]/ && $i !~ /^P[0-9T]/) { split($i, o, "."); n[k " " o[1]]++; break } }
     END { for (x in n) print x, n[x] }' "$B/alu_pipe_probe.sass.txt" | sort > "$OUT/alu_pipe_probe.opcodes.txt"
{ timeout 120 "$B/alu_pipe_probe" > "$OUT/alu_pipe_probe.h200.jsonl"; timeout 120 "$B/alu_pipe_probe" > "$OUT/alu_pipe_probe.h200.run2.jsonl"; } 2> "$OUT/alu_pipe_probe.err"
ncu --query-metrics 2>/dev/null | grep -o '^sm__inst_executed_pipe_[a-z0-9_]*' | sort -u > "$B/pipe_metrics.txt"
metrics=$(paste -sd, "$B/pipe_metrics.txt" | sed 's/\([a-z0-9_]*\)/\1.sum/g')
timeout 400 ncu --csv --metrics "smsp__inst_executed.sum,$metrics" -c 200 "$B/alu_pipe_probe" 2> "$OUT/alu_pipe_probe.ncu.err" | xz -9 > "$OUT/alu_pipe_probe.ncu.csv.xz"
ls -la "$OUT"
