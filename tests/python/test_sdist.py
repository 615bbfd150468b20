"""The sdist builds the package and nothing else: the measured corpus and results stay in the
repository (issue 15: the sdist was 43 MB with bench/corpus inside)."""
import subprocess
import sys
import tarfile

import pytest

from conftest import ROOT


def test_sdist_leaves_out_the_measured_data(tmp_path):
    pytest.importorskip("scikit_build_core")
    code = f"from scikit_build_core.build import build_sdist; print(build_sdist({str(tmp_path)!r}))"
    name = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True).stdout.split()[-1]
    path = tmp_path / name
    with tarfile.open(path) as t:
        names = [n.split("/", 1)[1] for n in t.getnames() if "/" in n]
    for measured in ("bench/corpus/", "bench/heldout/", "bench/results/", "calibrate/results/", "bench/validation/data/",
                     "bench/validation/results/"):
        assert not [n for n in names if n.startswith(measured)], measured
    for needed in ("CMakeLists.txt", "LICENSE", "include/gpuperf/gpuperf.hpp", "src/cli/main.cpp", "latency_tables/gpus.json",
                   "python/gpuperf/__main__.py"):
        assert needed in names, needed
    assert path.stat().st_size < 5 * 1024 * 1024
