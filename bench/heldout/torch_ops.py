"""Held-out validation workload: PyTorch operators whose kernels (cuBLAS, cuDNN, PyTorch's own)
the model was never developed on. Run once under Nsight Compute (tools/collect); every launch's
ncu duration is the measured time the predictions are compared with.
  python3 bench/heldout/torch_ops.py
"""
import torch

torch.backends.cuda.matmul.allow_tf32 = False
torch.backends.cudnn.allow_tf32 = False
dev = "cuda"
g = torch.Generator(device=dev).manual_seed(0)


def r(*shape, dtype=torch.float32):
    return torch.randn(*shape, device=dev, dtype=dtype, generator=g)


ops = {
    "matmul_fp32_2048": lambda: r(2048, 2048) @ r(2048, 2048),
    "matmul_bf16_4096": lambda: r(4096, 4096, dtype=torch.bfloat16) @ r(4096, 4096, dtype=torch.bfloat16),
    "matmul_fp16_1024": lambda: r(1024, 1024, dtype=torch.float16) @ r(1024, 1024, dtype=torch.float16),
    "bmm_fp32_64x256": lambda: torch.bmm(r(64, 256, 256), r(64, 256, 256)),
    "conv2d_fp32": lambda: torch.nn.functional.conv2d(r(32, 64, 56, 56), r(64, 64, 3, 3), padding=1),
    "softmax_4096x4096": lambda: torch.softmax(r(4096, 4096), dim=-1),
    "layernorm_8192x1024": lambda: torch.nn.functional.layer_norm(r(8192, 1024), (1024,)),
    "gelu_16M": lambda: torch.nn.functional.gelu(r(1 << 24)),
    "add_16M": lambda: r(1 << 24) + r(1 << 24),
    "sum_64M": lambda: r(1 << 26).sum(),
    "cumsum_16M": lambda: torch.cumsum(r(1 << 24), 0),
    "transpose_contig_8192": lambda: r(8192, 8192).t().contiguous(),
    "index_select_4M": lambda: r(1 << 20, 64).index_select(0, torch.randint(0, 1 << 20, (1 << 16,), device=dev, generator=g)),
    "sort_4M": lambda: torch.sort(r(1 << 22)),
    "argmax_rows_8192x4096": lambda: r(8192, 4096).argmax(dim=1),
}
for name, fn in ops.items():
    fn()
torch.cuda.synchronize()
print("ran", len(ops), "ops")
