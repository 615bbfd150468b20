#!/usr/bin/env bash
# Held-out validation data: PyTorch operators under Nsight Compute on this GPU -> $OUT/heldout-<gpu>.tar
set -uo pipefail
cd "$(dirname "$0")/../.."
export PATH=/usr/local/cuda/bin:$PATH
OUT=${OUT:-/tmp/gpuperf-device-out}
GPU=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1 | tr 'A-Z ' 'a-z-')
W=/tmp/gpuperf-heldout/$GPU
rm -rf "$W"; mkdir -p "$W"
timeout 500 python3 tools/collect --out "$W/torch_ops" -- python3 bench/heldout/torch_ops.py > "$OUT/heldout.log" 2>&1
echo "collect exit $?" >> "$OUT/heldout.log"
(cd /tmp/gpuperf-heldout && tar -cf "$OUT/heldout-$GPU.tar" .)
ls -la "$OUT"
