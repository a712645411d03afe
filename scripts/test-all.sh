#!/usr/bin/env bash
# The one test command: installs what the tests need on a fresh Debian
# machine (Chromium and npm packages beside the Python ones; the build needs
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

# Two lanes at once. The machine has 2 cores, and each lane is mostly one
# single-threaded process (tsc, eslint, webpack) or waits on the network, so
# two at a time take about half as long. Each lane's output goes to a file,
# printed once both ended; it fails if either failed.
lanes() {
  local dir pa pb ra=0 rb=0
  dir="$(mktemp -d)"
  bash -c "set -euo pipefail; started=\$SECONDS; $1; echo \"(\$((SECONDS - started)) s)\"" > "$dir/a.log" 2>&1 &
  pa=$!
  bash -c "set -euo pipefail; started=\$SECONDS; $2; echo \"(\$((SECONDS - started)) s)\"" > "$dir/b.log" 2>&1 &
  pb=$!
  wait "$pa" || ra=$?
  wait "$pb" || rb=$?
  printf -- '--- lane 1: %s (exit %d)\n' "$1" "$ra"
  cat "$dir/a.log"
  printf -- '--- lane 2: %s (exit %d)\n' "$2" "$rb"
  cat "$dir/b.log"
  rm -rf "$dir"
  [ "$ra" = 0 ] && [ "$rb" = 0 ]
}

install_chromium() {
  if [ ! -x "$CHROMIUM_PATH" ]; then
    SUDO=""
    [ "$(id -u)" = 0 ] || SUDO="sudo"
    $SUDO apt-get update -q
    $SUDO apt-get install -y -q chromium
  fi
  "$CHROMIUM_PATH" --version
}
export -f install_chromium
export CHROMIUM_PATH="${CHROMIUM_PATH:-/usr/bin/chromium}"

step "Chromium and npm packages | Python test dependencies (pip)"
# A symlink left by an earlier `labextension develop` (from another checkout)
# would make pip's uninstall of the old editable install follow it: drop it.
share="$(python -c 'import sys; print(sys.prefix)')/share/jupyter/labextensions/jupyterlab-notebook-agent"
if [ -L "$share" ]; then rm "$share"; fi
# onnxruntime-node (pulled in by @huggingface/transformers) would download GPU
# binaries from a host CI cannot reach; its CPU binaries ship in the package.
# The Python dependencies bring jupyter-builder, which the build needs. The
# editable install's own build hook is skipped (it would run `npm install`
# and build in pip's isolated environment); the build follows, once both
# lanes are done.
lanes \
  "install_chromium && npm ci --no-audit --no-fund --onnxruntime-node-install=skip && (cd ui-tests && npm ci --no-audit --no-fund)" \
  "SKIP_JUPYTER_BUILDER=1 python -m pip install -q -e '.[test]'"

step "Build the extension and install it"
npm run build:prod
jupyter labextension develop --overwrite . > /dev/null
jupyter labextension list 2>&1 | grep -E "jupyterlab-notebook-agent .*enabled.*OK"
jupyter server extension list 2>&1 | grep -E "jupyterlab_notebook_agent .*enabled"

step "Lint and type-checks | the lowest JupyterLab's types (4.0.0) and the reproducible build"
# Type-checks: the extension, src/agent without the DOM, tests, UI tests,
# benches, eval. The floor: src/ against JupyterLab 4.0.0's packages. The
# reproducible build: two clean builds in two folders, no absolute paths.
lanes \
  "npm run lint && ruff check . && ruff format --check . && npm run typecheck" \
  "./scripts/check-floor-types.sh && ./scripts/check-reproducible-build.sh"

step "Unit and integration tests in Node (Jest; two workers: most suites wait on servers and kernels)"
npx jest --maxWorkers=2

step "Server extension tests (pytest, real Jupyter server) | JupyterHub: two local users (docs/jupyterhub.md; own ports 8901, 8902, 8911)"
hub="./scripts/jupyterhub-check.sh"
[ "$(id -u)" = 0 ] || hub="sudo $hub"
lanes "python -m pytest" "$hub"

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
