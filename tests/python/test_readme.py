"""The README's example output is what the CLI prints today (it had drifted once)."""
import re
import subprocess

from conftest import ROOT, cli_path


def test_readme_report_example_matches_the_cli():
    text = (ROOT / "README.md").read_text()
    m = re.search(r"Example \(`gpuperf (report [^`]+)`\):\n\n```\n(.*?)```", text, re.S)
    assert m, "README has no report example"
    out = subprocess.run([cli_path(), *m.group(1).split()], capture_output=True, text=True, cwd=ROOT, check=True).stdout
    assert out.rstrip("\n") == m.group(2).rstrip("\n")
