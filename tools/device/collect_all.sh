#!/usr/bin/env bash
# On a GPU machine: build the tracer, the corpus and the calibration, then calibrate and
# collect the devsample and corpus datasets for this GPU. Results go to $1 (default ./gpuperf-out).
#   NVBIT_PATH=third_party/nvbit tools/device/collect_all.sh OUTDIR [calibrate|devsample|corpus|atomics|latency|rng ...]
set -euo pipefail
cd "$(dirname "$0")/../.."
OUT=$(mkdir -p "${1:-gpuperf-out}" && cd "${1:-gpuperf-out}" && pwd)
shift || true
STEPS=${*:-calibrate devsample corpus}
export PATH=/usr/local/cuda/bin:$PATH
export CUDA_MODULE_LOADING=EAGER
ARCH=${ARCH:-sm_90}
GPU=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1 | tr 'A-Z ' 'a-z-')
BUILD=/tmp/gpuperf-build
mkdir -p "$BUILD"
ARCH=$ARCH tools/tracer/build.sh "$BUILD" >/dev/null
nvcc -O3 -arch=$ARCH -o "$BUILD/dk" bench/corpus/devkernels.cu
nvcc -O3 -arch=$ARCH -o "$BUILD/corpus" bench/corpus/corpus_kernels.cu
nvcc -O3 -arch=$ARCH -o "$BUILD/atomics" bench/corpus/atomic_kernels.cu
nvcc -O3 -arch=$ARCH -o "$BUILD/latency" bench/corpus/latency_kernels.cu
nvcc -O3 -arch=$ARCH -o "$BUILD/rng" bench/corpus/rng_kernels.cu
for step in $STEPS; do
  case $step in
    calibrate) python3 calibrate/run_calibration.py --out "$OUT/calibrate" --arch "$ARCH" 2>&1 | tee "$OUT/calibrate.log" ;;
    devsample)
      python3 tools/collect --out "$OUT/$GPU/devsample" --tracer "$BUILD/gpuperf_tracer.so" --ctas first:16 \
        --full-trace-launches 1,2,25,26 --binary "$BUILD/dk" --time-cmd "$BUILD/dk 50" -- "$BUILD/dk" 1 2>&1 | tail -5 ;;
    corpus)
      python3 tools/collect --out "$OUT/$GPU/corpus" --tracer "$BUILD/gpuperf_tracer.so" --ctas first:16 \
        --binary "$BUILD/corpus" --time-cmd "$BUILD/corpus 50" -- "$BUILD/corpus" 0 2>&1 | tail -5 ;;
    atomics)
      python3 tools/collect --out "$OUT/$GPU/atomics" --tracer "$BUILD/gpuperf_tracer.so" --ctas first:16 \
        --binary "$BUILD/atomics" --time-cmd "$BUILD/atomics 50" -- "$BUILD/atomics" 0 2>&1 | tail -5 ;;
    latency)
      python3 tools/collect --out "$OUT/$GPU/latency" --tracer "$BUILD/gpuperf_tracer.so" --ctas first:16 \
        --binary "$BUILD/latency" --time-cmd "$BUILD/latency 50" -- "$BUILD/latency" 0 2>&1 | tail -5 ;;
    rng)
      # 4 CTAs: a 1024-thread CTA's cuRAND seeding alone is about 2 MB of compressed trace.
      python3 tools/collect --out "$OUT/$GPU/rng" --tracer "$BUILD/gpuperf_tracer.so" --ctas first:4 \
        --binary "$BUILD/rng" --time-cmd "$BUILD/rng 20" -- "$BUILD/rng" 0 2>&1 | tail -5 ;;
  esac
done
du -sh "$OUT"/* || true
