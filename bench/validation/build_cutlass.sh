#!/usr/bin/env bash
# Builds the chosen CUTLASS examples for the validation corpus.
# Usage: build_cutlass.sh SRC OUT [example...]
#   SRC: extracted snapshot of NVIDIA/cutlass (holds include/, tools/util/include/, examples/)
#   OUT: output root; each example lands in OUT/cutlass/<example>/
# CUTLASS is header-only: each example is one .cu compiled against include/ and
# tools/util/include/. Hopper examples need sm_90a (wgmma, TMA, clusters); the
# Ampere-style examples are built for sm_90a too, which the H100/H200 run as is.
# Each example folder is copied to a scratch folder and patched there (patches under
# patches/cutlass/, each says why); SRC stays pristine.
# One nvcc at a time (the build machine is shared); each compile can take minutes.
set -uo pipefail
if [ $# -lt 2 ]; then echo "usage: $0 SRC OUT [example...]" >&2; exit 2; fi
SRC=$(cd "$1" && pwd)
OUT=$(mkdir -p "$2" && cd "$2" && pwd)
shift 2
HERE=$(cd "$(dirname "$0")" && pwd)
PATCHES=$HERE/patches/cutlass
# Flags of CUTLASS's own CMake Release build of the examples (-O3 -DNDEBUG,
# --expt-relaxed-constexpr, C++17), plus the shared runtime that the launch timer needs.
# NDEBUG matters: device asserts inside the wgmma pipeline make ptxas serialize wgmma.
# --compress-mode=size keeps the binaries small (3 MB -> 1 MB for the larger examples);
# it changes only how the fatbin is stored, not the SASS.
NVCC=(nvcc -O3 -DNDEBUG -std=c++17 -arch=sm_90a -lineinfo --expt-relaxed-constexpr -cudart shared
      --compress-mode=size
      -I"$SRC/include" -I"$SRC/tools/util/include" -I"$SRC/examples/common" -w)
# Some examples call the driver API (cuMemsetD32Async, cuGetErrorString), as CUTLASS's
# CMake does they link libcuda; the stub here, the driver's library on the GPU machine.
CUDA_STUBS=$(dirname "$(command -v nvcc)")/../lib64/stubs
LIBS=(-L"$CUDA_STUBS" -lcuda)
WORK=$(mktemp -d "${TMPDIR:-/tmp}/cutlass-build.XXXXXX")
trap 'rm -rf "$WORK"' EXIT

# Patches per example (applied with patch -p1 from the scratch copy's root).
declare -A PATCH=(
  [54_hopper_fp8_warp_specialized_gemm]=54_verify_option.patch
)
# example folder : source file (relative to the folder)
declare -A SRCFILE=(
  [00_basic_gemm]=basic_gemm.cu
  [48_hopper_warp_specialized_gemm]=48_hopper_warp_specialized_gemm.cu
  [54_hopper_fp8_warp_specialized_gemm]=54_hopper_fp8_warp_specialized_gemm.cu
  [14_ampere_tf32_tensorop_gemm]=ampere_tf32_tensorop_gemm.cu
  [16_ampere_tensorop_conv2dfprop]=ampere_tensorop_conv2dfprop.cu
  [46_depthwise_simt_conv2dfprop]=depthwise_simt_conv2dfprop.cu
  [35_gemm_softmax]=gemm_softmax.cu
  [47_ampere_gemm_universal_streamk]=ampere_gemm_universal_streamk.cu
  [41_fused_multi_head_attention]=fused_multihead_attention_fixed_seqlen.cu
  [24_gemm_grouped]=gemm_grouped.cu
  [57_hopper_grouped_gemm]=57_hopper_grouped_gemm.cu
)
ALL=(00_basic_gemm 48_hopper_warp_specialized_gemm 54_hopper_fp8_warp_specialized_gemm
     14_ampere_tf32_tensorop_gemm 16_ampere_tensorop_conv2dfprop 46_depthwise_simt_conv2dfprop
     35_gemm_softmax 47_ampere_gemm_universal_streamk 41_fused_multi_head_attention
     24_gemm_grouped 57_hopper_grouped_gemm)
if [ $# -gt 0 ]; then PROGS=("$@"); else PROGS=("${ALL[@]}"); fi

failed=()
for ex in "${PROGS[@]}"; do
  src=${SRCFILE[$ex]:-}
  if [ -z "$src" ]; then echo "unknown example: $ex" >&2; failed+=("$ex"); continue; fi
  echo "== $ex"
  start=$SECONDS
  rm -rf "$WORK/examples/$ex"; mkdir -p "$WORK/examples"
  cp -r "$SRC/examples/$ex" "$WORK/examples/$ex"
  if [ -n "${PATCH[$ex]:-}" ] && ! (cd "$WORK" && patch -s -p1 < "$PATCHES/${PATCH[$ex]}"); then
    echo "   patch ${PATCH[$ex]} failed" >&2; failed+=("$ex"); continue
  fi
  # Compile from the example's own folder so its local headers are found.
  if (cd "$WORK/examples/$ex" && "${NVCC[@]}" "$src" -o "$WORK/$ex.bin" "${LIBS[@]}"); then
    dest="$OUT/cutlass/$ex"
    rm -rf "$dest"; mkdir -p "$dest"
    cp "$WORK/$ex.bin" "$dest/$ex"; strip "$dest/$ex"
    echo "   built in $((SECONDS - start)) s"
  else
    echo "   FAILED after $((SECONDS - start)) s" >&2
    failed+=("$ex")
  fi
done
if [ ${#failed[@]} -gt 0 ]; then echo "failed: ${failed[*]}" >&2; exit 1; fi
