#!/usr/bin/env bash
# On a GPU machine: the shared-atomic probe and the TMA store probe, measured, profiled and
# traced, their results into $OUT (a few files a step, as calibrate/results/<probe>/ keeps them).
#   OUT=/tmp/probes STEPS="atomics tma" TRACER=third_party/tracer-build/gpuperf_tracer.so calibrate/run_store_atomic_probes.sh
# TRACER: gpuperf's NVBit tracer (tools/tracer/build.sh); without it the traces are skipped.
# Every step has a time limit, so that one slow step leaves the others' results.
set -uo pipefail
cd "$(dirname "$0")/.."
OUT=${OUT:-/tmp/probes}
TRACER=${TRACER:-third_party/tracer-build/gpuperf_tracer.so}
STEPS=${STEPS:-atomics tma}
B=/tmp/probe-build
mkdir -p "$OUT" "$B"
{ nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,clocks.max.mem --format=csv; nvcc --version | tail -1; ncu --version | tail -1; } > "$OUT/env.txt" 2>&1

case " $STEPS " in *" atomics "*)
  nvcc -O3 -arch=sm_90 -lineinfo -Icalibrate -o "$B/shared_atomic_probe" calibrate/shared_atomic_probe.cu || exit 1
  cuobjdump -sass "$B/shared_atomic_probe" | xz > "$OUT/shared_atomic_probe.sass.xz"
  # Rates (three warp counts) and dependent chains, native.
  timeout 120 "$B/shared_atomic_probe" rate > "$OUT/shared_atomic_rate.txt" 2>&1
  timeout 60 "$B/shared_atomic_probe" chain > "$OUT/shared_atomic_chain.txt" 2>&1
  # Nsight Compute's view of every form and pattern: instructions, wavefronts, bank conflicts.
  M=smsp__inst_executed_op_shared_atom.sum,smsp__inst_executed_op_shared_ld.sum,smsp__inst_executed_op_shared_st.sum
  M=$M,l1tex__data_pipe_lsu_wavefronts_mem_shared_op_atom.sum,l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum
  M=$M,l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum,l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_atom.sum
  M=$M,l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum,l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum
  timeout 200 ncu --clock-control none --metrics "$M" --csv "$B/shared_atomic_probe" profile > "$OUT/shared_atomic_ncu.csv" 2>/dev/null
  # Launches to predict whole, profiled, timed and traced as the corpus is (tools/collect). The
  # float adds' retry loops run far longer under the tracer: they are profiled, not traced.
  D=$B/collect-atomics
  timeout 240 python3 tools/collect --out "$D" --lean --binary "$B/shared_atomic_probe" --step-timeout 200 \
    -- "$B/shared_atomic_probe" app lds-distinct,lds-bank4,lds-share32,inc-,add-,addret-,fadd-,cas-distinct,cas-share32 > "$OUT/collect_atomics.log" 2>&1
  [ -f "$TRACER" ] && timeout 150 python3 tools/collect --out "$D/traced" --skip-ncu --tracer "$TRACER" --ctas first:8 --step-timeout 140 \
    -- "$B/shared_atomic_probe" app lds-distinct,lds-bank4,lds-share32,inc-,add-,addret-,cas-distinct,cas-share32 >> "$OUT/collect_atomics.log" 2>&1
  (cd "$D" && tar -cJf "$OUT/shared_atomic_collect.tar.xz" --exclude='*.ncu-rep' .)
;; esac

case " $STEPS " in *" tma "*)
  nvcc -O3 -arch=sm_90a -lineinfo -Icalibrate -o "$B/tma_store_probe" calibrate/tma_store_probe.cu -lcuda || exit 1
  cuobjdump -sass "$B/tma_store_probe" > "$OUT/tma_store_probe.sass.txt"
  # Two native runs, the counters of each configuration, traces of the small ones.
  { timeout 60 "$B/tma_store_probe"; timeout 60 "$B/tma_store_probe"; } > "$OUT/tma_store_runs.txt" 2>&1
  TM=gpu__time_duration.sum,dram__bytes_write.sum,dram__bytes_read.sum,lts__t_sectors_op_write.sum,lts__t_sectors_op_red.sum
  TM=$TM,lts__t_sectors_op_read.sum,lts__t_sectors_op_atom.sum,lts__t_sectors_srcunit_tex.sum
  for c in 0 1 2 3 4 5; do
    timeout 60 ncu --clock-control none --metrics "$TM" --kernel-name regex:tma_store --csv "$B/tma_store_probe" $c 1
  done > "$OUT/tma_store_ncu.csv" 2>&1
  if [ -f "$TRACER" ]; then
    for c in 3 4 5; do
      mkdir -p "$B/tma_trace_$c"
      CUDA_INJECTION64_PATH=$TRACER GPUPERF_TRACE_DIR="$B/tma_trace_$c" GPUPERF_TRACE_KERNEL=tma_store GPUPERF_TRACE_VERBOSE=1 \
        timeout 60 "$B/tma_store_probe" $c 1
    done > "$OUT/tma_store_trace.log" 2>&1
    (cd "$B" && tar -cJf "$OUT/tma_store_traces.tar.xz" tma_trace_3 tma_trace_4 tma_trace_5)
    # Whether the traced boxes are where the copies wrote: tile t (one a CTA, row 0 of the
    # tile grid) at byte 256 t of the tensor, 64 rows of 256 B, 16 KiB apart. Exit 3 if not.
    python3 - "$B" <<'PY' | tee "$OUT/tma_store_check.txt"
import glob, sys
ok = True
for case, op in ((3, "UTMASTG"), (4, "UTMAREDG")):
    offsets, shapes = set(), set()
    for f in glob.glob(f"{sys.argv[1]}/tma_trace_{case}/kernel-*.traceg"):
        for line in open(f):
            t = line.split()
            if op not in line or "3" not in t:
                continue
            i = t.index("3")
            if not t[i + 1].startswith("0x"):
                continue
            offsets.add(int(t[i + 1], 16) - int(t[i + 10], 16))
            shapes.add((int(t[i - 1]), int(t[i + 2]), int(t[i + 3]), int(t[i + 11])))
    good = offsets == {256 * k for k in range(64)} and shapes == {(256, 64, 16384, 16384 * 4096 * 4)}
    print(op, "boxes", "match" if good else "DO NOT match", len(offsets), "offsets", sorted(offsets)[:4], "shapes", shapes)
    ok = ok and good
sys.exit(0 if ok else 3)
PY
  fi
;; esac
ls -la "$OUT"
