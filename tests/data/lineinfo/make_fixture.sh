#!/usr/bin/env bash
# Makes the line-info fixtures from lineinfo_kernels.cu on a machine with a GPU, nvcc and
# Nsight Compute: built with -lineinfo for sm_90, profiled with the source counters (CUDA
# source imported), the source page exported as SASS only, CUDA only and CUDA with SASS, the
# raw page, and the SASS listings (cuobjdump, and nvdisasm -c -gi of the cubin).
#   tests/data/lineinfo/make_fixture.sh OUTDIR
set -euo pipefail
OUT=$(mkdir -p "$1" && cd "$1" && pwd)
HERE=$(cd "$(dirname "$0")" && pwd)
W=$(mktemp -d)
cd "$W"
cp "$HERE"/lineinfo_kernels.cu "$HERE"/lineinfo_helpers.cuh .
nvcc -arch=sm_90 -O3 -lineinfo -o li lineinfo_kernels.cu
nvcc -arch=sm_90 -O3 -lineinfo -cubin -o li.cubin lineinfo_kernels.cu
ncu --clock-control none --import-source yes --section SourceCounters --section LaunchStats --section Occupancy -f -o rep ./li > ncu.log
for v in sass cuda cuda,sass; do
  ncu --import rep.ncu-rep --page source --print-source "$v" --csv > "$OUT/ncu_source_${v/,/_}.csv"
done
ncu --import rep.ncu-rep --page raw --csv > "$OUT/ncu_raw.csv"
cuobjdump -sass li > "$OUT/lineinfo.cuobjdump.sass"
nvdisasm -c -gi -hex li.cubin > "$OUT/lineinfo.nvdisasm.sass"
{ nvcc --version | tail -n 2; ncu --version | tail -n 1; nvdisasm --version | tail -n 1; } > "$OUT/versions.txt"
