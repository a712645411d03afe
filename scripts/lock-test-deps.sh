#!/usr/bin/env bash
# Writes requirements/test.txt: every package the test command installs, each
# version pinned with the sha256 of each of its files on PyPI, wheels only,
# for every platform and Python the package supports (uv's universal
# resolution). Run it after changing pyproject.toml's dependencies, its test
# extra or requirements/build.in; tests/test_test_lock.py fails until then.
# uv itself is pinned and runs from a virtual environment of its own.
set -euo pipefail
cd "$(dirname "$0")/.."
uv_version="0.13.9"
tools="$(mktemp -d "${TMPDIR:-/tmp}/notebook-agent-lock.XXXXXX")"
trap 'rm -rf "$tools"' EXIT
python3 -m venv "$tools/venv"
"$tools/venv/bin/python" -m pip install -q "uv==$uv_version"
"$tools/venv/bin/uv" pip compile pyproject.toml requirements/build.in --extra test \
  --generate-hashes --universal --python-version 3.10 --only-binary :all: \
  --custom-compile-command "scripts/lock-test-deps.sh" -o requirements/test.txt
