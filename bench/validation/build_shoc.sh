#!/usr/bin/env bash
# Builds the chosen SHOC CUDA benchmarks for the validation corpus.
# Usage: build_shoc.sh SRC OUT
#   SRC: extracted SHOC snapshot (holding src/common, src/cuda), e.g.
#        git -C <mirror> archive HEAD src/common src/cuda | tar -x -C third_party/suites/shoc
#   OUT: output root; each benchmark lands in OUT/shoc/<Name>/<Name>
# SHOC's autoconf build is bypassed: each benchmark is compiled directly with
# nvcc together with the common sources it needs (option parser, result
# database, timers and src/cuda/common/main.cpp, which calls RunBenchmark), so
# every binary gets -arch=sm_90, -lineinfo and the shared CUDA runtime (the
# launch timer interposes cudaLaunchKernel).  Set ONLY="A B" for a subset.
set -euo pipefail
SRC=$(cd "$1" && pwd)
OUT=$(mkdir -p "$2" && cd "$2" && pwd)
HERE=$(cd "$(dirname "$0")" && pwd)
NVCC=${NVCC:-nvcc}
NVFLAGS=(-O3 -arch=sm_90 -lineinfo -cudart shared -std=c++17 -w)
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
FAILED=()

# Source edits (sed scripts with their reasons) for CUDA 13 / sm_90.
# Each patch says why it exists; *.diff are applied once (skipped when already in).
for p in "$HERE"/patches/shoc/*.sh; do (cd "$SRC" && bash "$p"); done
for p in "$HERE"/patches/shoc/*.diff; do
  if ! (cd "$SRC" && patch -p1 -R -s -f --dry-run < "$p" >/dev/null 2>&1); then
    (cd "$SRC" && patch -p1 -s -N < "$p")
  fi
done

# config.h normally comes from ./configure; only Timer.h and Matrix2D.h read it.
cat > "$TMP/config.h" <<'H'
#define HAVE_GETTIMEOFDAY 1
#define HAVE_SYS_TIME_H 1
#define HAVE_STDINT_H 1
#define restrict __restrict__
H
INC=(-I"$TMP" -I"$SRC/src/common" -I"$SRC/src/cuda/common")

# The common library: what libSHOCCommon.a and the shared main.cpp hold.
COMMON=()
for f in src/common/ResultDatabase.cpp src/common/OptionParser.cpp src/common/Option.cpp \
         src/common/Timer.cpp src/common/ProgressBar.cpp src/common/InvalidArgValue.cpp \
         src/common/Matrix2DStatics.cpp \
         src/cuda/common/main.cpp; do
  o="$TMP/$(basename "${f%.*}").o"
  "$NVCC" "${NVFLAGS[@]}" "${INC[@]}" -c "$SRC/$f" -o "$o"
  COMMON+=("$o")
done

# build NAME DIR SOURCES...   (sources relative to DIR; extra flags allowed)
build() {
  local name=$1 dir=$2; shift 2
  if [[ -n "${ONLY:-}" && " $ONLY " != *" $name "* ]]; then return 0; fi
  local dst="$OUT/shoc/$name"
  mkdir -p "$dst"
  echo "== $name"
  if (cd "$SRC/$dir" && "$NVCC" "${NVFLAGS[@]}" "${INC[@]}" -I. "$@" "${COMMON[@]}" -o "$dst/$name"); then
    strip "$dst/$name"
  else
    FAILED+=("$name")
  fi
}

build Triad      src/cuda/level1/triad      Triad.cu
build Reduction  src/cuda/level1/reduction  Reduction.cu
build Scan       src/cuda/level1/scan       Scan.cu
build Sort       src/cuda/level1/sort       Sort.cu sort_kernel.cu
build MD5Hash    src/cuda/level1/md5hash    MD5Hash.cu
build BFS        src/cuda/level1/bfs        BFS.cu bfs_kernel.cu ../../../common/Graph.cpp
build FFT        src/cuda/level1/fft        FFT.cpp fftlib.cu
build Stencil2D  src/cuda/level1/stencil2d  CUDAStencilKernel.cu CommonCUDAStencilFactory.cpp \
                 Stencil2Dmain.cpp CUDAStencilFactory.cpp
build MaxFlops   src/cuda/level0            MaxFlops.cu
build S3D        src/cuda/level2/s3d        S3D.cu
build MD         src/cuda/level1/md         MD.cu
build Spmv       src/cuda/level1/spmv       Spmv.cu

if ((${#FAILED[@]})); then
  echo "FAILED: ${FAILED[*]}" >&2
  exit 1
fi
echo "all shoc programs built into $OUT/shoc"
