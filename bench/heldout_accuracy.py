#!/usr/bin/env python3
"""Held-out accuracy: PyTorch operators (cuBLAS, cuDNN, CUB, PyTorch kernels) the model was never
developed on, profiled once with Nsight Compute on each GPU (bench/heldout/<gpu>, from
bench/heldout/torch_ops.py). Input: ncu counts (bounds model), predicted cold (ncu flushes caches
before each launch). Measured: each launch's ncu gpu__time_duration. Cross-GPU rows predict one
GPU from the other's profile.
  python3 bench/heldout_accuracy.py
"""
import os

import numpy as np
import pandas as pd

import gpuperf

HERE = os.path.dirname(os.path.abspath(__file__))


def main():
    rows = []
    for src in ("h100", "h200"):
        d = os.path.join(HERE, "heldout", src)
        t = gpuperf.load([os.path.join(d, "ncu_source.csv.xz"), os.path.join(d, "ncu_raw.csv.xz")])
        for tgt in ("h100", "h200"):
            meas = gpuperf.load([os.path.join(HERE, "heldout", tgt, f) for f in ("ncu_source.csv.xz", "ncu_raw.csv.xz")]).measured_time_us
            r = gpuperf.predict(t, tgt, per_pc=False)
            for k, m in zip(r.kernels, meas):
                rows.append(dict(source=src, target=tgt, launch=k.launch_id, kernel=gpuperf_name(k.name), predicted_us=k.time_us,
                                 measured_us=m, bottleneck=k.bottleneck, unknown_opcodes=len(k.unknown_opcodes)))
    df = pd.DataFrame(rows)
    df["ape"] = (df.predicted_us - df.measured_us).abs() / df.measured_us * 100
    os.makedirs(os.path.join(HERE, "results"), exist_ok=True)
    df.to_csv(os.path.join(HERE, "results", "heldout_accuracy.csv"), index=False)
    for (s, t), g in df.groupby(["source", "target"]):
        print(f"{t.upper()} from {s.upper()} profile: {len(g)} launches, MAPE {g.ape.mean():.1f}%, median {g.ape.median():.1f}%, "
              f"worst {g.ape.max():.0f}% ({g.loc[g.ape.idxmax(), 'kernel']}), "
              f"Spearman {g.predicted_us.rank().corr(g.measured_us.rank()):.3f}, "
              f"Pearson(log) {np.corrcoef(np.log(g.predicted_us), np.log(g.measured_us))[0, 1]:.3f}, "
              f"within 25%: {(g.ape <= 25).mean() * 100:.0f}%")


def gpuperf_name(n):
    n = n[5:] if n.startswith("void ") else n
    return n.split("<")[0].split("(")[0][:60]


if __name__ == "__main__":
    main()
