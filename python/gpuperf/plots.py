"""Matplotlib views of a Result: roofline and stall breakdown."""
from __future__ import annotations

import numpy as np


def roofline(result, ax=None):
    import matplotlib.pyplot as plt

    if ax is None:
        _, ax = plt.subplots(figsize=(6, 4))
    ks = [k for k in result.kernels if k.roofline["bytes"]["dram"] > 0 or k.roofline["flops"]]
    peak = max((k.roofline["peak_gflops"] for k in ks), default=1.0) or 1.0
    bw = max((k.roofline["dram_gbs"] for k in ks), default=1.0) or 1.0
    x = np.logspace(-3, 4, 200)
    ax.loglog(x, np.minimum(peak, x * bw), "k-", lw=1.5, label=f"roof: {peak:.0f} GFLOP/s, {bw:.0f} GB/s")
    for k in ks:
        ai = k.roofline["arithmetic_intensity"]["dram"]
        g = k.roofline["achieved_gflops"]
        if ai > 0 and g > 0:
            ax.loglog([ai], [g], "o")
            ax.annotate(f"{k.launch_id}", (ai, g), textcoords="offset points", xytext=(4, 4), fontsize=8)
    ax.set_xlabel("arithmetic intensity (FLOP / DRAM byte)")
    ax.set_ylabel("predicted GFLOP/s")
    ax.set_title(f"Roofline on {result.gpu}")
    ax.legend(fontsize=8)
    return ax


def stall_breakdown(result, ax=None, top: int = 12):
    import matplotlib.pyplot as plt

    if ax is None:
        _, ax = plt.subplots(figsize=(7, 4))
    ks = sorted(result.kernels, key=lambda k: k.time_us, reverse=True)[:top]
    causes = ["dependency", "memory", "pipe", "mio", "barrier", "not_selected", "control"]
    left = np.zeros(len(ks))
    for c in causes:
        vals = np.array([k.stalls.get(c, 0.0) / max(1e-9, sum(k.stalls.values())) for k in ks])
        ax.barh(range(len(ks)), vals, left=left, label=c)
        left += vals
    ax.set_yticks(range(len(ks)))
    ax.set_yticklabels([f"{k.launch_id}: {k.name[:28]}" for k in ks], fontsize=7)
    ax.set_xlabel("share of stall cycles")
    ax.set_title(f"Predicted stall breakdown on {result.gpu}")
    ax.legend(fontsize=7, loc="lower right")
    return ax
