#!/usr/bin/env bash
# Builds the chosen HeCBench CUDA programs for the validation corpus.
# Usage: build_hecbench.sh SRC OUT
#   SRC: extracted HeCBench snapshot (holding src/<name>-cuda/), e.g.
#        git -C <mirror> archive HEAD $(sed -n 's/^build \([^ ]*\) .*/src\/\1-cuda/p' \
#          build_hecbench.sh) src/rmsnorm-cuda | tar -x -C third_party/suites/hecbench
#        (layernorm includes a header of rmsnorm-cuda)
#   OUT: output root; each program lands in OUT/hecbench/<name>/main
# Compiles directly with nvcc instead of the suite's Makefiles so that every
# binary gets -arch=sm_90, -lineinfo and the shared CUDA runtime (the launch
# timer interposes cudaLaunchKernel).  Set ONLY="a b" to build a subset.
set -euo pipefail
SRC=$(cd "$1" && pwd)
OUT=$(mkdir -p "$2" && cd "$2" && pwd)
HERE=$(cd "$(dirname "$0")" && pwd)
NVCC=${NVCC:-nvcc}
NVFLAGS=(-O3 -arch=sm_90 -lineinfo -cudart shared -std=c++17)
FAILED=()

# build NAME [extra nvcc args and sources...]   (run inside src/NAME-cuda)
build() {
  local name=$1; shift
  if [[ -n "${ONLY:-}" && " $ONLY " != *" $name "* ]]; then return 0; fi
  local dir="$SRC/src/$name-cuda" dst="$OUT/hecbench/$name"
  mkdir -p "$dst"
  echo "== $name"
  if (cd "$dir" && "$NVCC" "${NVFLAGS[@]}" "$@" -o "$dst/main"); then
    strip "$dst/main"
  else
    FAILED+=("$name")
  fi
}

# patch NAME: apply bench/validation/patches/hecbench/NAME.sh (idempotent sed edits)
patch_src() {
  local f="$HERE/patches/hecbench/$1.sh"
  [[ -f $f ]] && (cd "$SRC/src/$1-cuda" && bash "$f")
  return 0
}

build histogram      histogram_compare.cu
build softmax        main.cu
build layernorm      -I../rmsnorm-cuda main.cu
build attention      main.cu
build scan           main.cu
build bitonic-sort   main.cu
build radixsort      main.cu RadixSort.cu Scan.cu
build nbody          main.cu GSimulation.cu
build jacobi         main.cu
build convolution1D  main.cu
build matrix-rotate  main.cu
build matrixT        main.cu
build wmma           main.cu
patch_src randomAccess
build randomAccess   main.cu
build atomicReduction reduction.cu
build stencil1d      stencil_1d.cu
build floydwarshall  main.cu
build thomas         main.cu cuThomasBatch.cu
build shuffle        main.cu
build reverse2D      main.cu
build simpleSpmv     main.cpp kernels.cu utils.cpp
build page-rank      main.cu
build su3            -DMILC_COMPLEX su3_nn_bench.cu
build bsearch        main.cu
build xsbench        Main.cu Simulation.cu io.cu GridInit.cu XSutils.cu Materials.cu

if ((${#FAILED[@]})); then
  echo "FAILED: ${FAILED[*]}" >&2
  exit 1
fi
echo "all hecbench programs built into $OUT/hecbench"
