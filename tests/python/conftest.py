import os
import pathlib

import matplotlib
import pytest

matplotlib.use("Agg")

ROOT = pathlib.Path(__file__).resolve().parents[2]
FIX = ROOT / "tests" / "fixtures"
DEVSAMPLE = [str(FIX / "devsample" / "ncu_source.csv.xz"), str(FIX / "devsample" / "ncu_raw.csv.xz")]


def cli_path() -> str:
    p = os.environ.get("GPUPERF_CLI", str(ROOT / "build" / "gpuperf"))
    assert os.path.exists(p), f"the gpuperf CLI is needed for differential tests: build it (cmake --build build) or set GPUPERF_CLI; missing {p}"
    return p


@pytest.fixture(autouse=True)
def isolated_environment(tmp_path_factory, monkeypatch):
    """Tests see no user tables: a fresh HOME and XDG_CONFIG_HOME, and no $GPUPERF_TABLES."""
    home = tmp_path_factory.mktemp("home")
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(home / ".config"))
    monkeypatch.delenv("GPUPERF_TABLES", raising=False)
