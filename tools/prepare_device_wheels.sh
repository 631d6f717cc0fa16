#!/usr/bin/env bash
# Wheels for the lent GPU machine (no internet there; Python 3.12 with CuPy, NumPy and pytest, but not the
# packages that run chapters as notebooks). Run here, where pip reaches the index:
#     bash tools/prepare_device_wheels.sh            # -> .whl/ (ignored by git; carried to the device)
# tools/gpu/check_device_profiles.sh and tools/gpu/record_module12.sh install them there with
#     python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site .whl/*.whl
# Versions are the tested lock's (requirements*.txt) where it names them; their dependencies are resolved
# by pip for CPython 3.12 on manylinux x86-64. NumPy and CuPy are never included: the machine's stay.
set -euo pipefail
cd "$(dirname "$0")/.."
rm -rf .whl && mkdir -p .whl
python3 -m pip download --quiet --only-binary=:all: --python-version 3.12 --implementation cp --abi cp312 \
  --platform manylinux_2_28_x86_64 --platform manylinux_2_27_x86_64 --platform manylinux_2_17_x86_64 \
  --platform manylinux2014_x86_64 --platform manylinux1_x86_64 -d .whl \
  jupytext==1.19.6 nbclient==0.11.0 nbformat==5.11.1 ipykernel==7.4.0 ipywidgets==8.1.9 plotly==6.5.2 \
  PyYAML==6.0.3 tqdm==4.67.1 platformdirs==4.5.1
rm -f .whl/numpy-* .whl/cupy*
ls .whl | wc -l | xargs echo "wheels:"; du -sh .whl
