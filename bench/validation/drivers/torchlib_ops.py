"""Validation workload: library kernels reached through PyTorch (cuBLAS/cuBLASLt incl. fp8 and
int8, cuDNN, FlashAttention and memory-efficient attention, CUB, PyTorch's own kernels).
None of these operators is in bench/heldout/torch_ops.py.

  python3 torchlib_ops.py GROUP        GROUP: gemm | attention | conv | sort | misc

Inputs are made on the host and copied to the GPU, so the only kernels launched are the
operators' own (launch ids then start at the first operator). Each group launches well under
40 kernels; each operator runs once.
"""
import sys

import torch
import torch.nn.functional as F

dev = "cuda"
torch.manual_seed(0)


def r(*shape, dtype=torch.float32):
    return torch.randn(*shape, dtype=torch.float32).to(dtype).to(dev)


def ri(high, *shape):
    return torch.randint(0, high, shape).to(dev)


def gemm():
    torch.backends.cuda.matmul.allow_tf32 = True
    a, b = r(4096, 4096), r(4096, 4096)
    h1, h2 = r(8192, 8192, dtype=torch.float16), r(8192, 8192, dtype=torch.float16)
    s1, s2 = r(16, 4096, dtype=torch.bfloat16), r(4096, 4096, dtype=torch.bfloat16)
    x, w, bias = r(8192, 1024, dtype=torch.float16), r(4096, 1024, dtype=torch.float16), r(4096, dtype=torch.float16)
    p, q = r(32, 1024, 1024, dtype=torch.bfloat16), r(32, 1024, 1024, dtype=torch.bfloat16)
    f1 = r(4096, 4096).to(torch.float8_e4m3fn)
    f2 = r(4096, 4096).to(torch.float8_e4m3fn).t()
    one = torch.ones((), device=dev)
    i1, i2 = torch.randint(-8, 8, (2048, 2048), dtype=torch.int8).to(dev), torch.randint(-8, 8, (2048, 2048), dtype=torch.int8).to(dev)
    d1, d2 = r(2048, 2048, dtype=torch.float64), r(2048, 2048, dtype=torch.float64)
    torch.cuda.synchronize()
    a @ b                                  # tf32 GEMM 4096^3
    h1 @ h2                                # fp16 GEMM 8192^3 (wgmma)
    s1 @ s2                                # bf16 skinny GEMM (M=16): GEMV-like
    F.linear(x, w, bias)                   # fp16 GEMM with bias epilogue
    torch.bmm(p, q)                        # batched bf16 GEMM
    torch._scaled_mm(f1, f2, scale_a=one, scale_b=one, out_dtype=torch.bfloat16)  # fp8 GEMM
    torch._int_mm(i1, i2)                  # int8 GEMM
    d1 @ d2                                # fp64 GEMM (DMMA)
    torch.backends.cuda.matmul.allow_tf32 = False
    a[:1000, :1000] @ b[:1000, :3000]      # fp32 SIMT-or-cutlass GEMM, odd sizes


def attention():
    q, k, v = (r(4, 16, 2048, 64, dtype=torch.bfloat16) for _ in range(3))
    ql, kl, vl = (r(1, 32, 8192, 128, dtype=torch.float16) for _ in range(3))
    qf, kf, vf = (r(8, 8, 1024, 64) for _ in range(3))
    qd, kd, vd = r(32, 32, 1, 128, dtype=torch.bfloat16), r(32, 32, 4096, 128, dtype=torch.bfloat16), r(32, 32, 4096, 128, dtype=torch.bfloat16)
    torch.cuda.synchronize()
    from torch.nn.attention import SDPBackend, sdpa_kernel
    with sdpa_kernel(SDPBackend.FLASH_ATTENTION):
        F.scaled_dot_product_attention(q, k, v)                   # flash, bf16
        F.scaled_dot_product_attention(q, k, v, is_causal=True)   # flash, causal
        F.scaled_dot_product_attention(ql, kl, vl, is_causal=True)  # long sequence, d=128
        F.scaled_dot_product_attention(qd, kd, vd)                # decode: one query row
    with sdpa_kernel(SDPBackend.EFFICIENT_ATTENTION):
        F.scaled_dot_product_attention(qf, kf, vf)                # memory-efficient, fp32
        F.scaled_dot_product_attention(q, k, v)                   # memory-efficient, bf16
    with sdpa_kernel(SDPBackend.MATH):
        F.scaled_dot_product_attention(q[:1], k[:1], v[:1])       # unfused: bmm, softmax, bmm


def conv():
    x = r(32, 128, 56, 56, dtype=torch.bfloat16).to(memory_format=torch.channels_last)
    w = r(128, 128, 3, 3, dtype=torch.bfloat16).to(memory_format=torch.channels_last)
    xd, wd = r(32, 256, 28, 28), r(256, 1, 3, 3)
    x1, w1 = r(16, 64, 16384), r(128, 64, 5)
    xt, wt = r(16, 64, 32, 32), r(64, 32, 4, 4)
    xb = r(64, 256, 28, 28)
    torch.cuda.synchronize()
    torch.backends.cudnn.benchmark = False
    F.conv2d(x, w, padding=1)                                      # cuDNN implicit GEMM, bf16 NHWC
    F.conv2d(xd, wd, padding=1, groups=256)                        # depthwise, fp32
    F.conv1d(x1, w1, padding=2)                                    # 1-D conv
    F.conv_transpose2d(xt, wt, stride=2, padding=1)                # transposed conv
    F.batch_norm(xb, None, None, training=True)                    # batch norm statistics + apply
    F.max_pool2d(xb, 3, stride=2, padding=1)
    F.adaptive_avg_pool2d(xb, 1)
    F.interpolate(xt, scale_factor=2, mode="bilinear", align_corners=False)
    F.group_norm(xb, 32)


def sort():
    x = r(1 << 24)
    keys = ri(1 << 16, 1 << 22)
    idx = ri(1 << 20, 1 << 22)
    vals = r(1 << 22)
    sorted_b = torch.sort(r(1 << 20))[0]
    torch.cuda.synchronize()
    torch.topk(x, 100)                                    # radix select
    torch.unique(keys)                                    # CUB sort + run-length
    torch.nonzero(x > 1.5)                                # CUB select (scan)
    torch.sort(keys)                                      # CUB radix sort, int64 keys
    torch.bincount(keys[: 1 << 20], minlength=1 << 16)    # global atomics
    torch.zeros(1 << 20, device=dev).scatter_add_(0, idx, vals)  # scattered atomics
    torch.histc(x, bins=256)                              # shared + global atomics
    torch.searchsorted(sorted_b, x[: 1 << 20])            # binary search: latency-bound gather


def misc():
    x = r(8192, 4096)
    xh = r(16384, 4096, dtype=torch.bfloat16)
    logits, target = r(4096, 32000), ri(32000, 4096)
    emb, tok = r(50000, 1024), ri(50000, 8192)
    xd = r(1 << 23, dtype=torch.float64)
    cols = r(4096, 8192)
    t3 = r(256, 512, 128)
    torch.cuda.synchronize()
    F.rms_norm(xh, (4096,))                             # row-wise reduction, bf16
    F.cross_entropy(logits, target)                     # log-softmax + NLL over a large vocabulary
    torch.var_mean(x, dim=1)                            # Welford reduction
    cols.max(dim=0)                                     # column reduction (strided)
    F.embedding(tok, emb)                               # row gather
    torch.gather(x, 1, ri(4096, 8192, 64))              # scattered gather
    torch.exp(xd) * 3.0 + xd                            # fp64 elementwise
    F.dropout(x, 0.1, training=True)                    # Philox RNG
    t3.permute(2, 0, 1).contiguous()                    # 3-D transpose
    torch.where(x > 0, x, x * 0.01)                     # select
    torch.cat([x, x], dim=1)                            # concatenation
    F.silu(xh) * xh                                     # SwiGLU-style elementwise, bf16


GROUPS = {"gemm": gemm, "attention": attention, "conv": conv, "sort": sort, "misc": misc}

if __name__ == "__main__":
    if len(sys.argv) != 2 or sys.argv[1] not in GROUPS:
        sys.exit(f"usage: {sys.argv[0]} {'|'.join(GROUPS)}")
    GROUPS[sys.argv[1]]()
    torch.cuda.synchronize()
    print("ran", sys.argv[1])
