#!/usr/bin/env bash
# Installs a lock written by scripts/lock-test-deps.sh, each package checked
# before anything of it runs: every file is a wheel whose sha256 matches a pin
# in the lock, or pip stops with nothing installed; no sdist is built, so no
# downloaded setup.py or build backend runs. The one way the test command
# installs Python packages from an index (scripts/install-test-deps.sh, the
# wheel check's build and target environments, the JupyterHub check's hub).
#
# Usage: PYTHON=/path/to/venv/bin/python scripts/install-locked.sh LOCK
set -euo pipefail
[ $# = 1 ] || {
  echo "usage: PYTHON=… $0 LOCK" >&2
  exit 2
}
"${PYTHON:-python}" -m pip install -q --no-compile --require-hashes --only-binary :all: -r "$1"
