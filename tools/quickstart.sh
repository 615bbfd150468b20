#!/usr/bin/env bash
# Set-up command 1: install what is missing, build, and run the main job -- `gpuperf report` on
# the bundled example for the default GPU (a100).
set -euo pipefail
cd "$(dirname "$0")/.."
tools/install-deps.sh
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build build --target gpuperf_cli
./build/gpuperf report examples/sgemm-h200 --gpu a100 "$@"
