#!/usr/bin/env bash
# The Python test dependencies, each checked before anything of it runs:
# requirements/test.txt (the test extra, the package's own dependencies and
# its build backend, all versions pinned with their hashes) through
# scripts/install-locked.sh. Then this checkout, editable, with nothing
# fetched: its dependencies and its build backend come from the lock
# (--no-deps --no-build-isolation); SKIP_JUPYTER_BUILDER skips the build hook,
# which would run `npm install` (the test command builds after).
#
# Usage: scripts/install-test-deps.sh [LOCK]   (default requirements/test.txt,
# which scripts/lock-test-deps.sh writes). PYTHON: the interpreter to install
# into (default: python).
set -euo pipefail
cd "$(dirname "$0")/.."
python="${PYTHON:-python}"
PYTHON="$python" scripts/install-locked.sh "${1:-requirements/test.txt}"
SKIP_JUPYTER_BUILDER=1 "$python" -m pip install -q --no-compile --no-deps --no-build-isolation -e .
