#!/usr/bin/env bash
# Builds the chosen Parboil CUDA benchmarks (benchmarks/<name>/src/cuda) for the validation corpus.
# Usage: build_parboil.sh SRC OUT [program...]
#   SRC: extracted snapshot of abduld/Parboil (holds benchmarks/ and common/)
#   OUT: output root; each program lands in OUT/parboil/<program>/
# Sources are copied to a scratch folder and patched there; SRC stays pristine.
# One compiler at a time (the build machine is shared).
set -uo pipefail
if [ $# -lt 2 ]; then echo "usage: $0 SRC OUT [program...]" >&2; exit 2; fi
SRC=$(cd "$1" && pwd)
OUT=$(mkdir -p "$2" && cd "$2" && pwd)
shift 2
HERE=$(cd "$(dirname "$0")" && pwd)
CUDA_INC=$(dirname "$(dirname "$(command -v nvcc)")")/include
# Force-included compatibility header (cudaThread* calls removed in CUDA 13).
NVCC=(nvcc -O3 -arch=sm_90 -lineinfo -cudart shared -include "$HERE/patches/cuda13_compat.h" -w)
WORK=$(mktemp -d "${TMPDIR:-/tmp}/parboil-build.XXXXXX")
trap 'rm -rf "$WORK"' EXIT

ALL=(cp sgemm stencil mri-q spmv cutcp histo lbm bfs tpacf)
if [ $# -gt 0 ]; then PROGS=("$@"); else PROGS=("${ALL[@]}"); fi

# The parboil utility library (timers, argument parsing), built once from a staged copy of
# common/. parboil.h defines MEASURE_KERNEL_TIME, which pulls in the OpenCL header <CL/cl.h>
# for an OpenCL-only wrapper, and declares the OpenCL-only pb_sig_clmem; the CUDA build needs
# neither, so the define is commented out and that declaration removed.
PBINC="$WORK/pbcommon/include"
libparboil() {
  [ -f "$WORK/pbcommon/libparboil.a" ] && return 0
  rm -rf "$WORK/pbcommon"; cp -r "$SRC/common" "$WORK/pbcommon"
  sed -i 's|^#define MEASURE_KERNEL_TIME|// &|; /^void pb_sig_clmem(/d' "$PBINC/parboil.h"
  gcc -O2 -I"$PBINC" -I"$CUDA_INC" -c "$WORK/pbcommon/src/parboil_cuda.c" -o "$WORK/pbcommon/parboil_cuda.o" || return 1
  gcc -O2 -I"$PBINC" -c "$WORK/pbcommon/src/args.c" -o "$WORK/pbcommon/args.o" || return 1
  ar rcs "$WORK/pbcommon/libparboil.a" "$WORK/pbcommon/parboil_cuda.o" "$WORK/pbcommon/args.o"
}
# stage <benchmark>: fresh copy of benchmarks/<benchmark> in $WORK, cd into its src/cuda.
stage() {
  rm -rf "$WORK/$1"; cp -r "$SRC/benchmarks/$1" "$WORK/$1"
  cd "$WORK/$1/src/cuda"
}
# compile_link <binary> <sources...>: .c with gcc, .cc/.cpp with g++, .cu with nvcc; link with nvcc.
compile_link() {
  local bin=$1; shift
  local objs=() f o
  for f in "$@"; do
    o="${f%.*}.o"
    case "$f" in
      *.c) gcc -O3 -ffast-math -I"$PBINC" -I"$CUDA_INC" -I. -c "$f" -o "$o" || return 1 ;;
      *.cc|*.cpp) g++ -O3 -ffast-math -I"$PBINC" -I"$CUDA_INC" -I. -c "$f" -o "$o" || return 1 ;;
      *.cu) "${NVCC[@]}" -I"$PBINC" -I. -c "$f" -o "$o" || return 1 ;;
    esac
    objs+=("$o")
  done
  "${NVCC[@]}" "${objs[@]}" "$WORK/pbcommon/libparboil.a" -o "$bin" -lm -lstdc++ || return 1
}
# install_prog <program> <binary> [files...]: copy into OUT/parboil/<program>/ and strip.
install_prog() {
  local prog=$1 bin=$2; shift 2
  local dest="$OUT/parboil/$prog"
  rm -rf "$dest"; mkdir -p "$dest"
  cp "$bin" "$dest/"; strip "$dest/$(basename "$bin")"
  for f in "$@"; do cp -r "$f" "$dest/"; done
}

build_cp() {
  stage cp
  compile_link cp main.cu cuenergy_pre8_coalesce.cu || return 1
  install_prog cp cp
}
build_sgemm() {
  stage sgemm
  compile_link sgemm main.cu io.cc || return 1
  install_prog sgemm sgemm
}
build_stencil() {
  stage stencil
  "${NVCC[@]}" --use_fast_math -I"$PBINC" -I. -c main.cu -o main.o || return 1
  compile_link stencil main.o file.cc || return 1
  install_prog stencil stencil
}
build_mri-q() {
  stage mri-q
  "${NVCC[@]}" --use_fast_math -I"$PBINC" -I. -c main.cu -o main.o || return 1
  compile_link mri-q main.o file.cc || return 1
  install_prog mri-q mri-q
}
build_spmv() {
  stage spmv
  # CUDA 13 removed texture references; this declaration is unused by the kernel.
  sed -i '/^texture<float,1> tex_x_float;/d' spmv_jds.h
  local cd_dir=../../common_src/convert-dataset
  "${NVCC[@]}" --use_fast_math -I"$PBINC" -I. -I$cd_dir -c main.cu -o main.o || return 1
  gcc -O3 -I$cd_dir -c $cd_dir/convert_dataset.c -o convert_dataset.o || return 1
  gcc -O3 -I$cd_dir -c $cd_dir/mmio.c -o mmio.o || return 1
  compile_link spmv main.o file.cc gpu_info.cc convert_dataset.o mmio.o || return 1
  install_prog spmv spmv
}
build_cutcp() {
  stage cutcp
  compile_link cutcp main.c readatom.c output.c excl.c cutcpu.c cutoff6overlap.cu || return 1
  install_prog cutcp cutcp
}
build_histo() {
  stage histo
  compile_link histo main.cu histo_final.cu histo_intermediates.cu histo_main.cu histo_prescan.cu util.cu || return 1
  install_prog histo histo
}
build_lbm() {
  stage lbm
  compile_link lbm main.cc lbm.cu || return 1
  install_prog lbm lbm
}
build_tpacf() {
  stage tpacf
  compile_link tpacf _args.cc model_io.cc main.cu || return 1
  install_prog tpacf tpacf
}

build_bfs() {
  stage bfs
  # CUDA 12+ removed texture references: the node and edge arrays are read through
  # __device__ pointers set with cudaMemcpyToSymbol instead of tex1Dfetch on bound textures.
  sed -i 's/^texture<Node> g_graph_node_ref;/__device__ Node *g_graph_node_ref;/;
          s/^texture<Edge> g_graph_edge_ref;/__device__ Edge *g_graph_edge_ref;/;
          s/tex1Dfetch(g_graph_node_ref,pid)/g_graph_node_ref[pid]/;
          s/tex1Dfetch(g_graph_edge_ref,i)/g_graph_edge_ref[i]/' kernel.cu
  sed -i 's/cudaBindTexture(0,g_graph_node_ref,d_graph_nodes, sizeof(Node)\*num_of_nodes);/cudaMemcpyToSymbol(g_graph_node_ref, \&d_graph_nodes, sizeof(Node *));/;
          s/cudaBindTexture(0,g_graph_edge_ref,d_graph_edges,sizeof(Edge)\*num_of_edges);/cudaMemcpyToSymbol(g_graph_edge_ref, \&d_graph_edges, sizeof(Edge *));/;
          /cudaUnbindTexture/d' main.cu
  if grep -q 'texture<\|tex1Dfetch\|cudaBindTexture' kernel.cu main.cu; then echo "bfs: texture patch did not apply" >&2; return 1; fi
  "${NVCC[@]}" --use_fast_math -I"$PBINC" -I. -c main.cu -o main.o || return 1
  compile_link bfs main.o || return 1
  install_prog bfs bfs
}

libparboil || { echo "libparboil failed" >&2; exit 1; }
FAILED=()
for p in "${PROGS[@]}"; do
  fn="build_$p"
  if ! declare -F "$fn" >/dev/null; then echo "unknown program: $p" >&2; FAILED+=("$p"); continue; fi
  echo "== $p"
  if ( "$fn" ); then echo "ok  $p"; else echo "FAILED $p" >&2; FAILED+=("$p"); fi
done
if [ ${#FAILED[@]} -gt 0 ]; then echo "failed: ${FAILED[*]}" >&2; exit 1; fi
echo "all built into $OUT/parboil"
