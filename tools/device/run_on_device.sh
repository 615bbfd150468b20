#!/usr/bin/env bash
# One device call: collect everything for the GPU at hand into $OUT as a few tar files.
# Each step is time-limited and keeps going when another fails; logs come back too.
set -uo pipefail
cd "$(dirname "$0")/../.."
OUT=${OUT:-/tmp/gpuperf-device-out}
mkdir -p "$OUT"
W=/tmp/gpuperf-collect
[ "${KEEP:-0}" = 1 ] || rm -rf "$W"; mkdir -p "$W"
export NVBIT_PATH=${NVBIT_PATH:-third_party/nvbit}
GPU=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1 | tr 'A-Z ' 'a-z-')
{ nvidia-smi; nvcc --version | tail -1; ncu --version | tail -1; } > "$OUT/env.txt" 2>&1
for step in ${STEPS:-calibrate devsample corpus}; do
  timeout "${STEP_TIMEOUT:-240}" tools/device/collect_all.sh "$W" "$step" > "$OUT/$step.log" 2>&1
  echo "$step exit $?" >> "$OUT/steps.txt"
done
# Unfinished (uncompressed) traces of a step that ran out of time are dropped; the rest comes
# back in parts of at most 15 MiB (the device tool returns files up to 16 MiB).
find "$W" -name '*.traceg' -delete
(cd "$W" && tar -cf - --exclude=microbench .) | split -b 15M - "$OUT/$GPU-data.tar.part-"
ls -la "$OUT"
