#!/usr/bin/env bash
# Build the test extension with the same jupyter-builder as Notebook Agent,
# into test-extension/labextensions/ (the UI test server adds that folder
# with --LabApp.extra_labextensions_path; nothing is installed anywhere).
# Skipped when the build is newer than its sources.
set -euo pipefail
cd "$(dirname "$0")"
out=labextensions/notebook-agent-test-tool/package.json
if [[ -f "$out" && "$out" -nt index.js && "$out" -nt package.json ]]; then
  exit 0
fi
# The builder resolves from the extension's own node_modules: the repository's.
[[ -e node_modules ]] || ln -s ../../node_modules node_modules
jupyter-builder build .
