#!/usr/bin/env bash
# On a GPU machine: the indexed-constant probe measured, profiled and traced, and the validation
# corpus' Parboil programs whose kernels index __constant__ tables re-traced by the tracer that
# writes an indexed LDC's lane words. Results into $OUT (four files).
#   OUT=/tmp/probes calibrate/run_const_probe.sh
# Binaries may come prebuilt (same nvcc as the corpus'): third_party/vbin/const_index_probe and
# bench/validation/build_parboil.sh's third_party/vbin/parboil/; the tracer from
# tools/tracer/build.sh in third_party/tracer-build. Every step has a time limit.
set -uo pipefail
cd "$(dirname "$0")/.."
OUT=${OUT:-/tmp/probes}
TRACER=${TRACER:-third_party/tracer-build/gpuperf_tracer.so}
B=/tmp/probe-build
P=third_party/vbin/const_index_probe
mkdir -p "$OUT" "$B"
R=$OUT/const_index_runs.txt
{ nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,clocks.max.mem --format=csv; nvcc --version | tail -1; ncu --version | tail -1; } > "$R" 2>&1
[ -x "$P" ] || nvcc -O3 -arch=sm_90 -lineinfo -Icalibrate -o "$P" calibrate/const_index_probe.cu || exit 1
cuobjdump -sass "$P" | xz > "$OUT/const_index_probe.sass.xz"
{ echo "== LDC forms"; cuobjdump -sass "$P" | grep -E "Function|LDC" | sed 's|/\* 0x[0-9a-f]* \*/||' | sort | uniq -c; } >> "$R"
# Native: rates and chains, twice.
for run in 1 2; do timeout 60 "$P" rate; timeout 60 "$P" chain; done >> "$R" 2>&1
# Launches to predict whole: profiled (ncu duration, constant-cache counters) and traced.
D=$B/collect-const
timeout 150 python3 tools/collect --out "$D" --lean --binary "$P" --step-timeout 120 -- "$P" app > "$B/collect_const.log" 2>&1
[ -f "$TRACER" ] && timeout 150 python3 tools/collect --out "$D/traced" --skip-ncu --tracer "$TRACER" --ctas first:8 --step-timeout 120 \
  -- "$P" app >> "$B/collect_const.log" 2>&1
cp "$B/collect_const.log" "$D/"
(cd "$D" && tar -cJf "$OUT/const_index_collect.tar.xz" --exclude='*.ncu-rep' .)
# Parboil: the listings of the binaries at hand (to check against the corpus'), then the re-trace.
RT=$B/retrace
mkdir -p "$RT/listings"
for p in cutcp mri-q spmv tpacf; do
  [ -x third_party/vbin/parboil/$p/$p ] && cuobjdump -sass third_party/vbin/parboil/$p/$p | xz > "$RT/listings/$p.sass.xz"
done
timeout 400 python3 tools/device/collect_validation.py --out "$RT" --phase retrace --suite parboil --only cutcp-20k --only mri-q-64 \
  --only spmv-131k --only tpacf-4096x32 --launches 1-16 --timeout 90 > "$RT/retrace.log" 2>&1
(cd "$RT" && tar -cJf "$OUT/parboil_retraced.tar.xz" .)
ls -la "$OUT"
