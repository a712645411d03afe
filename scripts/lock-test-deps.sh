#!/usr/bin/env bash
# Writes the locks of what the test command installs. Python (requirements/):
# test.txt (the test environment), jupyterhub.txt (the hub check's),
# wheel-build.txt (what scripts/test-wheel.sh builds the package with) and
# wheel-targets/*.txt (what it installs the wheel beside: the package's
# dependencies and each target's JupyterLab or Notebook), every package's
# version pinned with the sha256 of each of its files on PyPI, wheels only, for
# every platform and Python the package supports (uv's universal resolution).
# npm: package-lock.json of the hub's proxy and of the floor type-check's
# JupyterLab 4.0.0 packages (scripts/floor-types). Run it after changing
# pyproject.toml's dependencies, its test extra, a requirements/*.in file or
# those package.json files; tests/test_test_lock.py fails until then.
# uv itself is pinned and runs from a virtual environment of its own.
set -euo pipefail
cd "$(dirname "$0")/.."
uv_version="0.13.9"
tools="$(mktemp -d "${TMPDIR:-/tmp}/notebook-agent-lock.XXXXXX")"
trap 'rm -rf "$tools"' EXIT
python3 -m venv "$tools/venv"
"$tools/venv/bin/python" -m pip install -q "uv==$uv_version"
lock() {
  "$tools/venv/bin/uv" pip compile -q "$@" --generate-hashes --universal --python-version 3.10 \
    --only-binary :all: --custom-compile-command "scripts/lock-test-deps.sh"
}
lock pyproject.toml requirements/build.in --extra test -o requirements/test.txt
# The hub's environment of scripts/jupyterhub-check.sh.
lock pyproject.toml requirements/jupyterhub.in requirements/build.in -o requirements/jupyterhub.txt
# scripts/test-wheel.sh: the build environment (no pyproject.toml: the package's own dependencies are no build
# dependencies), and each target's environment beside the wheel.
lock requirements/wheel-build.in -o requirements/wheel-build.txt
for target in requirements/wheel-targets/*.in; do
  lock pyproject.toml "$target" -o "${target%.in}.txt"
done
# The hub's proxy (npm), and JupyterLab 4.0.0's packages for scripts/check-floor-types.sh: package-lock.json, as
# npm writes it.
(cd requirements/configurable-http-proxy && npm install --package-lock-only --no-audit --no-fund -q)
(cd scripts/floor-types && npm install --package-lock-only --ignore-scripts --no-audit --no-fund -q)
