#!/usr/bin/env bash
# Builds the chosen Rodinia 3.1 CUDA programs for the validation corpus.
# Usage: build_rodinia.sh SRC OUT [program...]
#   SRC: extracted snapshot of yuhc/gpu-rodinia (holds cuda/ and common/)
#   OUT: output root; each program lands in OUT/rodinia/<program>/
# Sources are copied to a scratch folder and patched there; SRC stays pristine.
# One nvcc at a time (the build machine is shared).
set -uo pipefail
if [ $# -lt 2 ]; then echo "usage: $0 SRC OUT [program...]" >&2; exit 2; fi
SRC=$(cd "$1" && pwd)
OUT=$(mkdir -p "$2" && cd "$2" && pwd)
shift 2
HERE=$(cd "$(dirname "$0")" && pwd)
PATCHES=$HERE/patches/rodinia
NVCC_BASE=(nvcc -O3 -arch=sm_90 -lineinfo -cudart shared)
# Force-included compatibility header (cudaThread* calls removed in CUDA 13).
NVCC=("${NVCC_BASE[@]}" -include "$HERE/patches/cuda13_compat.h" -w)
WORK=$(mktemp -d "${TMPDIR:-/tmp}/rodinia-build.XXXXXX")
trap 'rm -rf "$WORK"' EXIT

# Not built: myocyte (needs Rodinia's physiological y.txt/params.txt data, absent from the
# snapshot), heartwall/leukocyte (AVI video input), mummergpu (genome data, texture references),
# cfd (mesh data), huffman/hybridsort (texture references and cutil).
ALL=(backprop bfs b+tree dwt2d gaussian hotspot hotspot3D kmeans lavaMD lud nn nw
     particlefilter pathfinder srad_v1 srad_v2 streamcluster)
if [ $# -gt 0 ]; then PROGS=("$@"); else PROGS=("${ALL[@]}"); fi

# stage <dir under cuda/>: fresh copy of one program's sources in $WORK, cd into it.
stage() {
  rm -rf "$WORK/$1"; mkdir -p "$WORK/$(dirname "$1")"
  cp -r "$SRC/cuda/$1" "$WORK/$1"
  cd "$WORK/$1"
}
# install <program> <binary> [files...]: copy into OUT/rodinia/<program>/ and strip.
install_prog() {
  local prog=$1 bin=$2; shift 2
  local dest="$OUT/rodinia/$prog"
  rm -rf "$dest"; mkdir -p "$dest"
  cp "$bin" "$dest/"; strip "$dest/$(basename "$bin")"
  for f in "$@"; do cp -r "$f" "$dest/"; done
}
apply_patch() { patch -s -p1 < "$PATCHES/$1"; }

build_backprop() {
  stage backprop
  for f in backprop facetrain imagenet; do gcc -O2 -c $f.c -o $f.o || return 1; done
  "${NVCC[@]}" -c backprop_cuda.cu -o backprop_cuda.o || return 1
  "${NVCC[@]}" backprop.o facetrain.o imagenet.o backprop_cuda.o -o backprop -lm || return 1
  install_prog backprop backprop
}
build_bfs() {
  stage bfs
  "${NVCC[@]}" bfs.cu -o bfs.out -I../util || return 1
  install_prog bfs bfs.out
}
build_hotspot() {
  stage hotspot
  "${NVCC[@]}" hotspot.cu -o hotspot || return 1
  install_prog hotspot hotspot
}
build_hotspot3D() {
  stage hotspot3D
  "${NVCC[@]}" 3D.cu -o 3D || return 1
  install_prog hotspot3D 3D
}
build_nn() {
  stage nn
  "${NVCC[@]}" nn_cuda.cu -o nn || return 1
  install_prog nn nn
}
build_nw() {
  stage nw
  "${NVCC[@]}" needle.cu -o needle || return 1
  install_prog nw needle
}
build_pathfinder() {
  stage pathfinder
  "${NVCC[@]}" pathfinder.cu -o pathfinder || return 1
  install_prog pathfinder pathfinder
}
build_srad_v2() {
  stage srad/srad_v2
  # The kernels load the north/south/west/east halo unconditionally and only then overwrite it
  # for boundary blocks, so edge blocks read outside the image buffers (before its start for the
  # first block row). That goes unnoticed in a plain run but faults under a profiler; guarding
  # the first loads with the same boundary tests keeps the results and makes every access valid.
  sed -i 's/^\([[:space:]]*\)north\[ty\]\[tx\] = J_cuda\[index_n\];/\1if ( by > 0 ) north[ty][tx] = J_cuda[index_n];/;
          s/^\([[:space:]]*\)south\[ty\]\[tx\] = J_cuda\[index_s\];/\1if ( by < gridDim.y - 1 ) south[ty][tx] = J_cuda[index_s];/;
          s/^\([[:space:]]*\)west\[ty\]\[tx\] = J_cuda\[index_w\];/\1if ( bx > 0 ) west[ty][tx] = J_cuda[index_w];/;
          s/^\([[:space:]]*\)east\[ty\]\[tx\] = J_cuda\[index_e\];/\1if ( bx < gridDim.x - 1 ) east[ty][tx] = J_cuda[index_e];/;
          s/^\([[:space:]]*\)south_c\[ty\]\[tx\] = C_cuda\[index_s\];/\1if ( by < gridDim.y - 1 ) south_c[ty][tx] = C_cuda[index_s];/;
          s/^\([[:space:]]*\)east_c\[ty\]\[tx\] = C_cuda\[index_e\];/\1if ( bx < gridDim.x - 1 ) east_c[ty][tx] = C_cuda[index_e];/' srad_kernel.cu
  [ "$(grep -c '^[[:space:]]*if ( b[xy] [<>]' srad_kernel.cu)" -eq 6 ] || { echo "srad_v2: halo guard patch did not apply" >&2; return 1; }
  "${NVCC[@]}" srad.cu -o srad || return 1
  install_prog srad_v2 srad
}
build_streamcluster() {
  stage streamcluster
  "${NVCC[@]}" streamcluster_cuda_cpu.cpp streamcluster_cuda.cu streamcluster_header.cu -o sc_gpu || return 1
  install_prog streamcluster sc_gpu
}
build_particlefilter() {
  stage particlefilter
  # Particle seeds are time(0)*i: fixed base for repeatable runs.
  sed -i 's/seed\[i\] = time(0) \* i;/seed[i] = 7 * i;/' ex_particle_CUDA_float_seq.cu
  grep -q 'seed\[i\] = 7 \* i;' ex_particle_CUDA_float_seq.cu || return 1
  "${NVCC[@]}" -use_fast_math ex_particle_CUDA_float_seq.cu -o particlefilter_float -lm || return 1
  install_prog particlefilter particlefilter_float
}

build_gaussian() {
  stage gaussian
  # CUDA 13 dropped cudaDeviceProp::clockRate and ::deviceOverlap; the two
  # lines only print device info, so they are removed.
  sed -i '/deviceProp\.clockRate/d; /deviceProp\. deviceOverlap/d' gaussian.cu
  "${NVCC[@]}" gaussian.cu -o gaussian || return 1
  install_prog gaussian gaussian
}
build_lud() {
  stage lud
  cd cuda
  # create_matrix_from_random seeds with time(NULL): fixed seed for repeatable runs.
  sed -i 's/srand(time(NULL))/srand(7)/' ../common/common.c
  "${NVCC[@]}" -use_fast_math -I../common -I../../util -DGPU_TIMER \
      lud.cu lud_kernel.cu -x cu ../common/common.c -o lud_cuda || return 1
  install_prog lud lud_cuda
}
build_b_tree() {
  stage b+tree
  for f in main util/timer/timer util/num/num; do gcc -O3 -c $f.c -o $f.o || return 1; done
  for f in kernel/kernel_gpu_cuda_wrapper kernel/kernel_gpu_cuda_wrapper_2 util/cuda/cuda; do
    "${NVCC[@]}" -c $f.cu -o $f.o || return 1
  done
  "${NVCC[@]}" main.o kernel/kernel_gpu_cuda_wrapper.o kernel/kernel_gpu_cuda_wrapper_2.o \
      util/timer/timer.o util/num/num.o util/cuda/cuda.o -o b+tree.out -lm || return 1
  install_prog b+tree b+tree.out
}
build_lavaMD() {
  stage lavaMD
  # Particle positions/charges are seeded with time(NULL): fixed seed for repeatable runs.
  sed -i 's/srand(time(NULL))/srand(7)/' main.c
  for f in main util/num/num util/timer/timer; do gcc -O3 -c $f.c -o $f.o || return 1; done
  for f in kernel/kernel_gpu_cuda_wrapper util/device/device; do
    "${NVCC[@]}" -c $f.cu -o $f.o || return 1
  done
  "${NVCC[@]}" main.o kernel/kernel_gpu_cuda_wrapper.o util/num/num.o util/timer/timer.o \
      util/device/device.o -o lavaMD -lm || return 1
  install_prog lavaMD lavaMD
}
build_srad_v1() {
  stage srad/srad_v1
  # The input image path is hard-coded three levels up; read it from the working directory.
  sed -i 's|"../../../data/srad/image.pgm"|"image.pgm"|' main.cu
  "${NVCC[@]}" main.cu -o srad -lm || return 1
  install_prog srad_v1 srad
}
build_kmeans() {
  stage kmeans
  apply_patch kmeans-no-texref.patch || return 1
  for f in cluster getopt kmeans kmeans_clustering rmse; do gcc -O2 -fopenmp -c $f.c -o $f.o || return 1; done
  "${NVCC[@]}" -c kmeans_cuda.cu -o kmeans_cuda.o || return 1
  "${NVCC[@]}" cluster.o getopt.o kmeans.o kmeans_clustering.o kmeans_cuda.o rmse.o \
      -o kmeans -lm -lgomp || return 1
  install_prog kmeans kmeans
}
build_dwt2d() {
  stage dwt2d
  # The input image path is hard-coded (../../data/dwt2d/); read it from the working directory.
  sed -i 's|"../../data/dwt2d/"|""|' main.cu
  "${NVCC[@]}" -I. -Xcompiler -fno-strict-aliasing main.cu dwt.cu components.cu dwt_cuda/fdwt53.cu \
      dwt_cuda/fdwt97.cu dwt_cuda/common.cu dwt_cuda/rdwt97.cu dwt_cuda/rdwt53.cu -o dwt2d || return 1
  install_prog dwt2d dwt2d
}

FAILED=()
for p in "${PROGS[@]}"; do
  fn="build_${p//+/_}"
  if ! declare -F "$fn" >/dev/null; then echo "unknown program: $p" >&2; FAILED+=("$p"); continue; fi
  echo "== $p"
  if ( set -e; "$fn" ); then echo "ok  $p"; else echo "FAILED $p" >&2; FAILED+=("$p"); fi
done
if [ ${#FAILED[@]} -gt 0 ]; then echo "failed: ${FAILED[*]}" >&2; exit 1; fi
echo "all built into $OUT/rodinia"
