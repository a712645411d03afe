#!/usr/bin/env bash
# The one test command: installs what the tests need on a fresh Debian
# machine (Chromium, npm and Python packages, in that order: the build needs
# jupyter-builder from the Python ones), builds and installs the extension,
# then runs lint, type-checks, unit, Python and UI tests, and the built wheel
# in clean environments. Run it in a virtual environment (.ci/run makes one).
set -euo pipefail
cd "$(dirname "$0")/.."
export PIP_DISABLE_PIP_VERSION_CHECK=1
# Each step's time, listed at the end (the CI budget is 30 minutes).
step_name=""
step_started=$SECONDS
timings=()
step() {
  if [ -n "$step_name" ]; then timings+=("$((SECONDS - step_started)) s  $step_name"); fi
  step_name="$*"
  step_started=$SECONDS
  printf '\n=== %s\n' "$*"
}
summary() {
  timings+=("$((SECONDS - step_started)) s  $step_name")
  printf 'Step timings (total %d min %d s):\n' $((SECONDS / 60)) $((SECONDS % 60))
  printf '  %s\n' "${timings[@]}"
}
trap summary EXIT

step "Chromium for the UI tests"
CHROMIUM_PATH="${CHROMIUM_PATH:-/usr/bin/chromium}"
if [ ! -x "$CHROMIUM_PATH" ]; then
  SUDO=""
  [ "$(id -u)" = 0 ] || SUDO="sudo"
  $SUDO apt-get update -q
  $SUDO apt-get install -y -q chromium
fi
"$CHROMIUM_PATH" --version

step "npm packages"
# onnxruntime-node (pulled in by @huggingface/transformers) would download GPU
# binaries from a host CI cannot reach; its CPU binaries ship in the package.
npm ci --no-audit --no-fund --onnxruntime-node-install=skip
(cd ui-tests && npm ci --no-audit --no-fund)

step "Python test dependencies (pip), then build the extension and install it"
# A symlink left by an earlier `labextension develop` (from another checkout)
# would make pip's uninstall of the old editable install follow it: drop it.
share="$(python -c 'import sys; print(sys.prefix)')/share/jupyter/labextensions/jupyterlab-notebook-agent"
if [ -L "$share" ]; then rm "$share"; fi
# The Python dependencies first: they bring jupyter-builder, which the build
# needs. The editable install's own build hook is skipped (it would run
# `npm install` and build in pip's isolated environment); the build follows.
SKIP_JUPYTER_BUILDER=1 python -m pip install -q -e ".[test]"
npm run build:prod
jupyter labextension develop --overwrite . > /dev/null
jupyter labextension list 2>&1 | grep -E "jupyterlab-notebook-agent .*enabled.*OK"
jupyter server extension list 2>&1 | grep -E "jupyterlab_notebook_agent .*enabled"

step "Lint"
npm run lint
ruff check .
ruff format --check .

step "Type-check (the extension, and src/agent without the DOM)"
npm run typecheck

step "Type-check against the lowest JupyterLab declared (4.0.0's packages)"
./scripts/check-floor-types.sh

step "Reproducible build (two clean builds in two folders, no absolute paths)"
./scripts/check-reproducible-build.sh

step "Unit tests of the agent core (Node)"
npx jest

step "Server extension tests (pytest, real Jupyter server)"
python -m pytest

step "JupyterHub: two local users, per-user keys and chats (docs/jupyterhub.md; own ports 8901, 8902, 8911)"
if [ "$(id -u)" = 0 ]; then ./scripts/jupyterhub-check.sh; else sudo ./scripts/jupyterhub-check.sh; fi

step "UI tests (Galata/Playwright in Chromium, real kernel, real proxy)"
(cd ui-tests && npx playwright test)

step "Security UI tests (XSS corpus, keys, prompt injection; own servers on 8892 and 8766)"
security_log="$(mktemp)"
(cd ui-tests && npx playwright test -c playwright.security.config.js) 2>&1 | tee "$security_log"
echo "Security summary:"
grep '^SECURITY' "$security_log"
rm -f "$security_log"

step "Local model UI tests (in-browser model, WebAssembly and WebGPU rungs; own server on 8891)"
# Builds the tiny random-weight test model first (~5 s, tests/local_model/).
(cd ui-tests && npx playwright test -c playwright.local-model.config.js)

step "Scaling-out UI tests (kernels on a Kernel Gateway, local model servers found; own servers on 8767-8769, 8893-8895)"
(cd ui-tests && npx playwright test -c playwright.scale.config.js)

step "The wheel as users install it (sdist, wheel, no Node; JupyterLab 4.0 and Notebook 7 in Chromium; own ports 8941, 8943)"
./scripts/test-wheel.sh
