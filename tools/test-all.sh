#!/usr/bin/env bash
# Set-up command 2: run every test. C++ (ctest, warnings as errors), the C++ tests again under
# AddressSanitizer + UndefinedBehaviorSanitizer, the table checker, then the Python package
# (pip install . into .venv) with pytest, which also executes the notebooks.
set -euo pipefail
cd "$(dirname "$0")/.."
JOBS=${JOBS:-$(nproc)}
tools/install-deps.sh --python

echo "== C++ build and tests (Release, -Werror)"
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release -DGPUPERF_WERROR=ON >/dev/null
cmake --build build -j "$JOBS"
(cd build && ctest --output-on-failure -j "$JOBS")

echo "== C++ tests under ASan + UBSan"
cmake -S . -B build-asan -G Ninja -DCMAKE_BUILD_TYPE=Debug -DGPUPERF_SANITIZE=ON -DGPUPERF_WERROR=ON -DGPUPERF_BUILD_BENCH=OFF >/dev/null
cmake --build build-asan -j "$JOBS"
(cd build-asan && ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 ctest --output-on-failure -j "$JOBS" -E package)

echo "== libFuzzer on every reader and page (ASan + UBSan, recovery off)"
FUZZ_SECONDS=${FUZZ_SECONDS:-10} FUZZ_JOBS=${FUZZ_JOBS:-$JOBS} tests/fuzz/run_fuzzers.sh

echo "== Python package, API tests and notebooks"
.venv/bin/python -m pip install -q . 
.venv/bin/python -m pytest -q tests/python
