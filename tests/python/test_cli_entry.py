"""The installed package's commands: `gpuperf` in the environment's bin and `python -m gpuperf`
run the same CLI as the C++ build, with the tables shipped inside the package (issue 15: the
wheel had no command at all)."""
import os
import pathlib
import subprocess
import sys

import gpuperf
from conftest import ROOT

BIN = pathlib.Path(sys.executable).parent / "gpuperf"


def run(*args):
    return subprocess.run(list(args), cwd=ROOT, capture_output=True, text=True, timeout=300)


def test_python_m_gpuperf_version():
    r = run(sys.executable, "-m", "gpuperf", "--version")
    assert r.returncode == 0, r.stderr
    assert r.stdout.startswith("gpuperf " + gpuperf.__version__)


def test_console_script_matches_cli_golden():
    assert BIN.exists(), f"pip install . did not install the gpuperf command ({BIN})"
    r = run(str(BIN), "report", "examples/sgemm-h200", "--gpu", "a100")
    assert r.returncode == 0, r.stderr
    assert r.stdout == (ROOT / "tests" / "golden" / "cli" / "report_sgemm_a100.out").read_text()


def test_console_script_usage_error_exit2():
    r = run(str(BIN), "gpus", "--set", "sms=1")
    assert r.returncode == 2
    assert "gpuperf gpus:" in r.stderr


def test_console_script_reads_the_package_tables():
    r = run(str(BIN), "tables", "check")
    assert r.returncode == 0, r.stdout + r.stderr
    pkg_tables = os.path.realpath(os.path.join(os.path.dirname(gpuperf.__file__), "latency_tables"))
    checked = [line.split(" ", 1)[1] for line in r.stdout.splitlines() if line.startswith("checked ")]
    assert checked and all(os.path.realpath(p).startswith(pkg_tables + os.sep) for p in checked), checked
