"""The `gpuperf` command and `python -m gpuperf`: run the compiled CLI shipped in this package.

The CLI is the same program as the C++ build's `gpuperf` (src/cli/main.cpp), installed by the
wheel as gpuperf/_bin/gpuperf beside gpuperf/latency_tables.
"""
import os
import sys


def cli_path() -> str:
    """Path of the compiled gpuperf CLI inside the installed package."""
    return os.path.join(os.path.dirname(os.path.abspath(__file__)), "_bin", "gpuperf")


def main() -> None:
    """Replace this process with the CLI, passing the command line through."""
    exe = cli_path()
    if not os.access(exe, os.X_OK):
        sys.stderr.write(f"gpuperf: the compiled CLI is missing ({exe}); reinstall with `pip install .`\n")
        sys.exit(1)
    sys.stdout.flush()
    os.execv(exe, ["gpuperf", *sys.argv[1:]])


if __name__ == "__main__":
    main()
