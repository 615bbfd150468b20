#!/usr/bin/env bash
# Builds the libFuzzer targets with clang and runs each for FUZZ_SECONDS (default 20) on seeds
# from tests/fixtures. Prints one summary line per target; exits non-zero on a crash.
set -euo pipefail
cd "$(dirname "$0")/../.."
command -v clang++ >/dev/null || { echo "fuzz: clang++ not found, skipped"; exit 0; }
B=build-fuzz
cmake -S . -B $B -G Ninja -DCMAKE_CXX_COMPILER=clang++ -DCMAKE_BUILD_TYPE=RelWithDebInfo -DGPUPERF_FUZZ=ON \
  -DGPUPERF_BUILD_TESTS=OFF -DGPUPERF_BUILD_CLI=OFF -DGPUPERF_BUILD_BENCH=OFF >/dev/null || { echo "fuzz: cmake configure FAILED"; exit 1; }
cmake --build $B > $B/build.log 2>&1 || { tail -60 $B/build.log; echo "fuzz: build FAILED"; exit 1; }
S=${FUZZ_SECONDS:-20}
for t in accelsim ncu sass; do
  seeds=$B/seeds_$t; rm -rf "$seeds"; mkdir -p "$seeds"
  case $t in
    accelsim) cp tests/fixtures/accelsim/*.trace* "$seeds/" ;;
    ncu) head -c 20000 <(xz -dc tests/fixtures/devsample/ncu_source.csv.xz) > "$seeds/src.csv"; head -c 20000 <(xz -dc tests/fixtures/devsample/ncu_raw.csv.xz) > "$seeds/raw.csv" ;;
    sass) head -c 20000 <(xz -dc tests/fixtures/devsample/devkernels_sm90.cuobjdump.sass.xz) > "$seeds/a.sass" ;;
  esac
  "$B/fuzz_$t" -max_total_time="$S" -max_len=65536 -rss_limit_mb=4096 "$seeds" > "$B/fuzz_$t.log" 2>&1 || { tail -40 "$B/fuzz_$t.log"; echo "fuzz: $t FAILED"; exit 1; }
  echo "fuzz: $t OK ($(grep -c . "$B/fuzz_$t.log") log lines, $(grep -oE 'stat::number_of_executed_units: [0-9]+|#[0-9]+' "$B/fuzz_$t.log" | tail -1))"
done
