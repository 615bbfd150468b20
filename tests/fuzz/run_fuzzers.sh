#!/usr/bin/env bash
# Builds the libFuzzer binary with clang (ASan + UBSan, recovery off) and runs every target
# for FUZZ_SECONDS (default 20) on corpora seeded from tests/fixtures, with a dictionary per
# format. Prints one summary line per target (executions, exec/s); exits non-zero on any
# finding: a crash, a leak, a timeout, an out-of-memory or a sanitizer report.
# FUZZ_TARGETS limits the run to some targets; FUZZ_JOBS>1 runs that many targets at once.
set -euo pipefail
cd "$(dirname "$0")/../.."
command -v clang++ >/dev/null || { echo "fuzz: clang++ not found, skipped"; exit 0; }
B=${FUZZ_BUILD:-build-fuzz}
cmake -S . -B "$B" -G Ninja -DCMAKE_CXX_COMPILER=clang++ -DCMAKE_BUILD_TYPE=RelWithDebInfo -DGPUPERF_FUZZ=ON \
  -DGPUPERF_BUILD_TESTS=OFF -DGPUPERF_BUILD_CLI=OFF -DGPUPERF_BUILD_BENCH=OFF >/dev/null || { echo "fuzz: cmake configure FAILED"; exit 1; }
cmake --build "$B" > "$B/build.log" 2>&1 || { tail -60 "$B/build.log"; echo "fuzz: build FAILED"; exit 1; }
S=${FUZZ_SECONDS:-20}
TARGETS=${FUZZ_TARGETS:-accelsim ncu_source ncu_raw ncu_lines sass pptgpu_config pptgpu tables kernelslist}
FX=tests/fixtures
# Seeds cut a prefix of a fixture with head, which makes xz die of SIGPIPE: under pipefail
# that failed the pipeline, and set -e then ended the target's background job without a word.
seed() {  # seed TARGET DIR: the real fixtures of that format
  local t=$1 d=$2
  case $t in
    accelsim) cp $FX/accelsim/*.trace* "$d/" ;;
    ncu_source) xz -dc $FX/devsample/ncu_source.csv.xz | head -c 60000 > "$d/src.csv" || true
                xz -dc $FX/devsample/ncu_source.csv.xz | head -n 12 > "$d/src_small.csv" || true ;;
    ncu_raw) xz -dc $FX/devsample/ncu_raw.csv.xz | head -n 4 > "$d/raw.csv" || true
             xz -dc $FX/devsample/ncu_raw.csv.xz | head -n 3 | cut -d, -f1-12 > "$d/raw_narrow.csv" || true ;;
    ncu_lines) xz -dc $FX/lineinfo/ncu_source_cuda_sass.csv.xz | head -c 30000 > "$d/lines.csv" || true
               xz -dc $FX/lineinfo/ncu_source_cuda_sass.csv.xz | head -n 8 > "$d/lines_small.csv" || true ;;
    sass) for f in $FX/devsample/*.sass.xz; do xz -dc "$f" | head -c 30000 > "$d/$(basename "$f" .xz)" || true; done ;;
    pptgpu_config) printf 'kernel_1 = { "kernel_name": "Kernel", "num_registers": 18, "shared_mem_bytes": 0,\n  "grid_size": 8, "block_size": 512, "cuda_stream_id": 0 }\nkernel_2 = { "kernel_name": "Kernel2", "num_registers": 12, "shared_mem_bytes": 0, "grid_size": 8, "block_size": 512, "cuda_stream_id": 0 }\n' > "$d/app_config.py" ;;
    pptgpu) local p=$FX/pptgpu/bounds_loop
            { cat $p/sass_traces/kernel_1.sass; printf '\n#MEM\n'; cat $p/memory_traces/kernel_1_block_0.mem
              printf '\n#MEM\n'; cat $p/memory_traces/kernel_1_block_1.mem; } > "$d/folder.txt"
            head -n 40 $p/sass_traces/kernel_1.sass > "$d/short.txt"; printf '\n#MEM\n' >> "$d/short.txt"
            head -n 9 $p/memory_traces/kernel_1_block_2.mem >> "$d/short.txt" ;;
    tables) cp latency_tables/arch/sm_86.json "$d/"; cp latency_tables/arch/sm_80.json "$d/sm_80_as_86.json"
            sed -i 's/"arch": "sm_80"/"arch": "sm_86"/; s/"inherits": null/"inherits": "sm_80"/' "$d/sm_80_as_86.json" ;;
    kernelslist) cp $FX/accelsim/kernelslist.g "$d/" ;;
  esac
}
run_one() {
  local t=$1 seeds=$B/seeds_$t corpus=$B/corpus_$t log=$B/fuzz_$t.log
  rm -rf "$seeds"; mkdir -p "$seeds" "$corpus"
  seed "$t" "$seeds"
  # Regression inputs kept from earlier findings run first, every time.
  [ -d tests/fuzz/regressions/$t ] && cp tests/fuzz/regressions/$t/* "$seeds/" 2>/dev/null || true
  local rc=0
  GPUPERF_FUZZ_TARGET=$t UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 ASAN_OPTIONS=detect_leaks=1 \
    "$B/fuzz_readers" -max_total_time="$S" -max_len=65536 -timeout=20 -rss_limit_mb=2048 -print_final_stats=1 \
    -dict=tests/fuzz/dict/$t.dict -artifact_prefix="$B/finding_${t}_" "$corpus" "$seeds" > "$log" 2>&1 || rc=$?
  if [ $rc -ne 0 ] || grep -q "runtime error:\|ERROR: AddressSanitizer\|ERROR: libFuzzer" "$log"; then
    tail -40 "$log"; echo "fuzz: $t FAILED (inputs: $B/finding_${t}_*)"; return 1
  fi
  local n r
  n=$(grep -oE 'stat::number_of_executed_units: [0-9]+' "$log" | grep -oE '[0-9]+$' || echo 0)
  r=$(grep -oE 'exec/s: [0-9]+' "$log" | tail -1 | grep -oE '[0-9]+$' || echo 0)
  echo "fuzz: $t OK ($n executions in ${S}s, ${r} exec/s)"
}
status=0
if [ "${FUZZ_JOBS:-1}" -gt 1 ]; then
  pids=()
  for t in $TARGETS; do run_one "$t" & pids+=($!); while [ "$(jobs -rp | wc -l)" -ge "$FUZZ_JOBS" ]; do sleep 1; done; done
  for p in "${pids[@]}"; do wait "$p" || status=1; done
else
  for t in $TARGETS; do run_one "$t" || status=1; done
fi
exit $status
