import os
import pathlib

import matplotlib

matplotlib.use("Agg")

ROOT = pathlib.Path(__file__).resolve().parents[2]
FIX = ROOT / "tests" / "fixtures"
DEVSAMPLE = [str(FIX / "devsample" / "ncu_source.csv.xz"), str(FIX / "devsample" / "ncu_raw.csv.xz")]


def cli_path() -> str:
    p = os.environ.get("GPUPERF_CLI", str(ROOT / "build" / "gpuperf"))
    assert os.path.exists(p), f"the gpuperf CLI is needed for differential tests: build it (cmake --build build) or set GPUPERF_CLI; missing {p}"
    return p
