#!/usr/bin/env bash
# The real-model lane in one command (see scripts/real_model.py --help).
set -euo pipefail
exec python3 "$(dirname "$0")/real_model.py" "$@"
