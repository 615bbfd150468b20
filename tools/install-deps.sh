#!/usr/bin/env bash
# Installs what is missing to build and test gpuperf: Debian packages (as root, or via sudo)
# and, for the Python side, a virtual environment in .venv with the PyPI packages.
# Idempotent: installs nothing when everything is present.
set -euo pipefail
cd "$(dirname "$0")/.."

APT_PKGS=(build-essential cmake ninja-build pkg-config git xz-utils
          nlohmann-json3-dev libcli11-dev libboost-math-dev libeigen3-dev doctest-dev pybind11-dev
          liblzma-dev zlib1g-dev libzstd-dev python3-dev python3-venv python3-pip clang libclang-rt-dev)
missing=()
for p in "${APT_PKGS[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
  echo "install-deps: installing ${missing[*]}"
  SUDO=""
  if [ "$(id -u)" != 0 ]; then SUDO=sudo; fi
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

if [ "${1:-}" = "--python" ]; then
  PY=${PYTHON:-python3}
  if [ ! -x .venv/bin/python ]; then "$PY" -m venv .venv; fi
  # distributed: the optional Dask path (gpuperf[dask]), so its LocalCluster test runs in CI.
  want=(pip scikit-build-core pybind11 numpy pandas matplotlib pytest nbclient nbformat ipykernel "dask[distributed]" "tqdm>=4.62")
  if ! .venv/bin/python -c "import scikit_build_core, pybind11, numpy, pandas, matplotlib, pytest, nbclient, nbformat, ipykernel, distributed, tqdm" 2>/dev/null; then
    echo "install-deps: installing Python packages into .venv"
    .venv/bin/python -m pip install -q --upgrade "${want[@]}"
  fi
fi
