#!/usr/bin/env bash
# The extension's TypeScript against the lowest JupyterLab it declares: the
# @jupyterlab/* and @lumino/* packages of JupyterLab 4.0.0 (pinned in
# scripts/floor-types/package.json) installed under build/floor-types, and
# src/ type-checked against them, so code that uses an API newer than the
# declared ranges (package.json, pyproject.toml) fails here. The build itself
# stays on the current JupyterLab.
set -euo pipefail
cd "$(dirname "$0")/.."
started=$SECONDS
dir=build/floor-types
mkdir -p "$dir"
cp scripts/floor-types/package.json "$dir/package.json"
(cd "$dir" && npm install --ignore-scripts --no-audit --no-fund --loglevel=error > /dev/null)
version="$(node -p "require('./$dir/node_modules/@jupyterlab/application/package.json').version")"
npx tsc -p scripts/floor-types/tsconfig.json
echo "floor types: src/ type-checks against @jupyterlab/application $version and its packages ($((SECONDS - started)) s)"
