#!/usr/bin/env bash
# The extension's TypeScript against the lowest JupyterLab it declares: the
# @jupyterlab/* and @lumino/* packages of JupyterLab 4.0.0 (pinned in
# scripts/floor-types/package.json, the rest of their tree by its
# package-lock.json, which scripts/lock-test-deps.sh writes; npm ci checks
# each package's integrity hash; no install script runs: tsc only reads the
# packages' type declarations) installed under build/floor-types, and
# src/ type-checked against them, so code that uses an API newer than the
# declared ranges (package.json, pyproject.toml) fails here. The build itself
# stays on the current JupyterLab.
set -euo pipefail
cd "$(dirname "$0")/.."
started=$SECONDS
dir=build/floor-types
mkdir -p "$dir"
cp scripts/floor-types/package.json scripts/floor-types/package-lock.json "$dir/"
(cd "$dir" && npm ci --ignore-scripts --no-audit --no-fund --loglevel=error > /dev/null)
version="$(node -p "require('./$dir/node_modules/@jupyterlab/application/package.json').version")"
npx tsc -p scripts/floor-types/tsconfig.json
echo "floor types: src/ type-checks against @jupyterlab/application $version and its packages ($((SECONDS - started)) s)"
