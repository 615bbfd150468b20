#!/usr/bin/env bash
# Builds gpuperf_tracer.so against an NVBit release (NVIDIA's EULA: NVBit is never committed).
#   NVBIT_PATH=/path/to/nvbit_release tools/tracer/build.sh [OUTDIR]
# NVBIT_PATH is the folder that holds core/ (nvbit.h, libnvbit.a). ARCH defaults to all.
set -euo pipefail
: "${NVBIT_PATH:?set NVBIT_PATH to the NVBit folder that contains core/}"
HERE=$(cd "$(dirname "$0")" && pwd)
OUT=$(mkdir -p "${1:-$HERE/build}" && cd "${1:-$HERE/build}" && pwd)
CORE=$NVBIT_PATH/core
[ -f "$CORE/nvbit.h" ] || CORE=$NVBIT_PATH
ARCH=${ARCH:-all}
NVCC=${NVCC:-nvcc}
mkdir -p "$OUT/tool_func"
"$NVCC" -arch="$ARCH" -I"$CORE" -I"$HERE" -O3 -fatbin "$HERE/tool_func/flush_channel.cu" -o "$OUT/tool_func/flush_channel.fatbin"
bin2c -c --name flush_channel_bin "$OUT/tool_func/flush_channel.fatbin" > "$OUT/tool_func/flush_channel.c"
"$NVCC" -dc -c -std=c++17 -I"$CORE" -I"$HERE" -I"$OUT" -Xptxas -cloning=no -Xcompiler -Wall -arch="$ARCH" -O3 -Xcompiler -fPIC \
  "$HERE/tracer.cu" -o "$OUT/tracer.o"
"$NVCC" -I"$CORE" -I"$HERE" -Xptxas -astoolspatch --keep-device-functions -arch="$ARCH" -Xcompiler -Wall -Xcompiler -fPIC \
  -c "$HERE/inject_funcs.cu" -o "$OUT/inject_funcs.o"
CUDA_LIB=$(dirname "$(command -v "$NVCC")")/../lib64
"$NVCC" -arch="$ARCH" -O3 "$OUT/tracer.o" "$OUT/inject_funcs.o" -L"$CORE" -lnvbit -L"$CUDA_LIB" -lcuda -lcudart_static -shared \
  -o "$OUT/gpuperf_tracer.so"
echo "built $OUT/gpuperf_tracer.so"
