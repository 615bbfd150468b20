"""Executes every notebook in notebooks/ (outputs are stripped in the repository) as Jupyter
would, with its default inline backend, and checks that each shows its figures: the notebooks
once forced matplotlib's Agg backend and so showed no plot at all in Jupyter (issue 15)."""
import base64
import os
import pathlib

import nbformat
import pytest
from nbclient import NotebookClient

from conftest import ROOT

NOTEBOOKS = sorted((ROOT / "notebooks").glob("*.ipynb"))
# Figures each notebook draws (one image output per figure).
FIGURES = {"explain_kernel.ipynb": 2, "validation.ipynb": 1, "what_if_study.ipynb": 2}
PNG_MAGIC = b"\x89PNG\r\n\x1a\n"


def test_notebooks_exist():
    assert len(NOTEBOOKS) >= 3
    assert {p.name for p in NOTEBOOKS} == set(FIGURES)


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_notebook_executes_and_shows_its_figures(path: pathlib.Path, tmp_path: pathlib.Path, monkeypatch):
    nb = nbformat.read(path, as_version=4)
    for cell in nb.cells:
        if cell.cell_type == "code":
            assert not cell.get("outputs"), f"{path.name}: outputs must be stripped in the repository"
            assert "matplotlib.use(" not in cell.source, f"{path.name}: a forced backend hides the plots in Jupyter"
    monkeypatch.delenv("MPLBACKEND", raising=False)  # the kernel starts as a user's Jupyter would
    NotebookClient(nb, timeout=300, kernel_name="python3", resources={"metadata": {"path": str(path.parent)}}).execute()
    out_dir = pathlib.Path(os.environ.get("GPUPERF_NOTEBOOK_FIGURES", tmp_path))
    out_dir.mkdir(parents=True, exist_ok=True)
    images = [o["data"]["image/png"] for c in nb.cells if c.cell_type == "code" for o in c.get("outputs", [])
              if o.get("output_type") in ("display_data", "execute_result") and "image/png" in o.get("data", {})]
    for i, img in enumerate(images):
        png = base64.b64decode(img)
        assert png.startswith(PNG_MAGIC) and len(png) > 5000, f"{path.name}: figure {i} is not a drawn PNG"
        (out_dir / f"{path.stem}-{i}.png").write_bytes(png)
    assert len(images) >= FIGURES[path.name], f"{path.name}: {len(images)} figure(s) shown, expected {FIGURES[path.name]}"
