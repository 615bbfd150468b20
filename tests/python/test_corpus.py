"""The measured corpus: the tracer's counts match Nsight Compute's, and every dataset loads."""
import json
import os
import subprocess
import sys

import pytest

import gpuperf
from conftest import ROOT

CORPUS = ROOT / "bench" / "corpus"
DATASETS = sorted(p for p in CORPUS.glob("h*/*") if (p / "manifest.json").exists())


def test_corpus_has_both_gpus():
    gpus = {p.parent.name for p in DATASETS}
    assert gpus == {"h100", "h200"}
    for p in DATASETS:
        m = json.load(open(p / "manifest.json"))
        assert m["schema"] == "gpuperf.dataset/1"
        assert ("H100" in m["device"]) == (p.parent.name == "h100")


@pytest.mark.parametrize("gpu", ["h100", "h200"])
def test_tracer_counts_equal_ncu_per_pc(gpu):
    """gpuperf's NVBit tracer (unsampled launches 1 and 25 of devkernels) reproduces ncu's per-PC counts exactly."""
    ds = CORPUS / gpu / "devsample"
    out = subprocess.run([sys.executable, str(ROOT / "tools" / "check_trace_counts.py"), str(ds)], capture_output=True, text=True)
    print(out.stdout)
    assert out.returncode == 0, out.stdout + out.stderr
    assert out.stdout.count(" OK") == 2


@pytest.mark.parametrize("ds", DATASETS, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_dataset_predicts(ds):
    t = gpuperf.load([str(ds / "ncu_source.csv.xz"), str(ds / "ncu_raw.csv.xz")])
    r = gpuperf.predict(t, ds.parent.name, per_pc=False)
    assert len(r.kernels) == len(t) >= 10  # devsample 48, corpus 23, atomics 10 launches
    assert all(k.time_us > 0 for k in r.kernels)
    traces = sorted((ds / "traces").glob("kernel-*.traceg.xz"))
    assert len(traces) == len(t)
    k = gpuperf.predict(str(traces[0]), ds.parent.name).kernels[0]
    assert k.mode == "simulation" and k.occupancy["registers_per_thread"] > 0


@pytest.mark.parametrize("gpu", ["h100", "h200"])
def test_heldout_pytorch_profile_loads_and_predicts(gpu):
    """Real library kernels (cuBLAS nvjet/cutlass, cuDNN, CUB, PyTorch): the two ncu pages name them
    differently ("at::native::" vs "native::"); all 44 launches load, nothing is unknown."""
    d = ROOT / "bench" / "heldout" / gpu
    t = gpuperf.load([str(d / "ncu_source.csv.xz"), str(d / "ncu_raw.csv.xz")])
    assert len(t) == 44
    r = gpuperf.predict(t, gpu, per_pc=False)
    assert all(not k.unknown_opcodes for k in r.kernels)
    hgmma = [k for k in r.kernels if k.name.startswith("nvjet_sm90")]
    assert hgmma and all(k.time_us > 0 for k in hgmma)
