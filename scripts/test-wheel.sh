#!/usr/bin/env bash
# The Python package as users get it. From this checkout (the extension
# already built: scripts/test-all.sh builds it first) it builds the sdist and,
# from the sdist, the wheel, with no Node on PATH and no JupyterLab in the
# build environments. Then, for each target below, it installs the wheel
# into a new virtual environment (no Node on PATH), checks that
# `jupyter labextension list` shows the extension OK and runs one real round
# trip in Chromium (ui-tests/wheel, scripted model). It also checks that pip
# refuses to install the wheel beside JupyterLab 3.
#
# Targets (docs/supported-versions.md lists the same):
#   lab-floor      jupyterlab==4.0.0 with jupyter_server==2.4.0, the lowest
#                  versions the package declares
#   notebook-7.0.0 the first Notebook 7 (JupyterLab 4.0's packages inside)
#   notebook-7     the newest Notebook 7 when the lock was written
# Nothing downloaded runs unchecked (#35, D3): the build environment is
# requirements/wheel-build.txt and each target's environment
# requirements/wheel-targets/TARGET.txt, every package pinned with its sha256,
# wheels only (scripts/lock-test-deps.sh writes them); the wheel goes in
# beside them with --no-deps, and `pip check` confirms that what it declares
# is there. WHEEL_RESOLVE=fresh lets pip resolve each target afresh instead,
# as a user's pip does today (wheels only, nothing checked against a pin): the
# way to try a JupyterLab or Notebook newer than the locks.
# WHEEL_TARGETS="lab-floor lab-4.2.7 notebook-7.3.2" picks others (lab-X and
# notebook-X: that JupyterLab or Notebook; one with no lock is resolved
# afresh, and says so). Needs python3 (PYTHON=…), Node and the ui-tests npm
# packages for Playwright itself, and Chromium. KEEP_WHEEL_TEST=1 keeps the
# environments and logs.
set -euo pipefail
cd "$(dirname "$0")/.."
root="$PWD"
PYTHON="$(command -v "${PYTHON:-python3}")"
export PIP_DISABLE_PIP_VERSION_CHECK=1
targets="${WHEEL_TARGETS:-lab-floor notebook-7.0.0 notebook-7}"
work="$(mktemp -d "${TMPDIR:-/tmp}/notebook-agent-wheel.XXXXXX")"
[ -n "${KEEP_WHEEL_TEST:-}" ] || trap 'rm -rf "$work"' EXIT
timings=()
mark() { timings+=("$1: $(($SECONDS - $2)) s"); }

spec_for() {
  case "$1" in
    lab-floor) echo "jupyterlab==4.0.0 jupyter_server==2.4.0" ;;
    notebook-7) echo "notebook>=7,<8" ;;
    lab-[0-9]*) echo "jupyterlab==${1#lab-}" ;;
    notebook-[0-9]*) echo "notebook==${1#notebook-}" ;;
    *) echo "unknown target: $1" >&2 && exit 2 ;;
  esac
}
app_for() { case "$1" in lab-*) echo lab ;; *) echo notebook ;; esac; }

if [ ! -f jupyterlab_notebook_agent/labextension/static/style.js ]; then
  echo "test-wheel: build the extension first (npm run build:prod)" >&2
  exit 1
fi

# A PATH with everything of this machine's but Node: links to every program
# in its PATH directories except node, npm, npx and corepack (and nothing of
# the virtual environment this script runs in).
nonode="$work/no-node-bin"
mkdir -p "$nonode"
IFS=: read -ra dirs <<< "$PATH"
for dir in "${dirs[@]}"; do
  [ -d "$dir" ] || continue
  if [ -n "${VIRTUAL_ENV:-}" ] && [ "$dir" = "$VIRTUAL_ENV/bin" ]; then continue; fi
  for program in "$dir"/*; do
    name="$(basename "$program")"
    case "$name" in node | nodejs | npm | npx | corepack) continue ;; esac
    if [ -x "$program" ] && [ ! -e "$nonode/$name" ]; then
      ln -s "$program" "$nonode/$name"
    fi
  done
done
if PATH="$nonode" command -v node > /dev/null; then
  echo "test-wheel: node is still on the no-Node PATH" >&2
  exit 1
fi

step_started=$SECONDS
echo "=== sdist, then the wheel from the sdist (no Node on PATH)"
# `python -m build --no-isolation` builds the sdist from the checkout and the
# wheel from that sdist in one environment made here from
# requirements/wheel-build.txt alone: pyproject.toml's build requirements and
# its build hook's, pinned with their hashes, where an isolated build would
# fetch the newest hatchling and run it unchecked. build itself checks that
# the environment holds everything the package asks for to be built.
build_env="$work/venv-build"
"$PYTHON" -m venv "$build_env"
PYTHON="$build_env/bin/python" scripts/install-locked.sh requirements/wheel-build.txt > "$work/build-env.log" 2>&1 || {
  cat "$work/build-env.log"
  exit 1
}
"$build_env/bin/pip" freeze --exclude-editable | sort > "$work/build-deps.txt"
echo "build environment (pinned): $(tr '\n' ' ' < "$work/build-deps.txt")"
if grep -qiE '^(jupyterlab|notebook)==' "$work/build-deps.txt"; then
  echo "test-wheel: the build environment holds JupyterLab" >&2
  exit 1
fi
PATH="$nonode" "$build_env/bin/python" -m build --no-isolation -o "$work/dist" . > "$work/build.log" 2>&1 || {
  cat "$work/build.log"
  exit 1
}
wheel="$(ls "$work"/dist/*.whl)"
sdist="$(ls "$work"/dist/*.tar.gz)"
tar -tzf "$sdist" > "$work/sdist.txt"
grep -q 'labextension/static/style.js' "$work/sdist.txt" || {
  echo "test-wheel: the sdist lacks the prebuilt extension" >&2
  exit 1
}
# The UI tests' own extension (ui-tests/test-extension) is no part of the
# product: its build is never packed, and the wheel holds none of it.
if grep -q 'notebook-agent-test-tool/' "$work/sdist.txt" ||
  "$PYTHON" -m zipfile -l "$wheel" | grep -q 'notebook-agent-test-tool\|test-extension'; then
  echo "test-wheel: the UI tests' test extension is in the sdist's build or the wheel" >&2
  exit 1
fi
echo "built $(basename "$sdist") and $(basename "$wheel") ($(du -k "$wheel" | cut -f1) KiB)"
mark "build sdist + wheel" "$step_started"

step_started=$SECONDS
echo "=== pip refuses the wheel beside JupyterLab 3; the wheel installed for $targets (at once)"
# pip spends its time on the index, downloads and unpacking, so the targets'
# environments are made side by side; each target is checked on its own after.
jl3_refused() {
  "$PYTHON" -m venv "$work/venv-jl3"
  if "$work/venv-jl3/bin/pip" install -q --dry-run --only-binary :all: "$wheel" "jupyterlab>=3.6,<4" > "$work/jl3.log" 2>&1; then
    echo "test-wheel: pip would install the wheel with JupyterLab 3" >&2
    return 1
  fi
  grep -q 'ResolutionImpossible\|conflicting dependencies' "$work/jl3.log"
}
lock_for() { echo "requirements/wheel-targets/$1.txt"; }
install_target() {
  local venv="$work/venv-$1" spec lock
  spec="$(spec_for "$1")"
  lock="$(lock_for "$1")"
  "$PYTHON" -m venv "$venv"
  # (--no-compile: byte-code is written on first import instead, for the
  # modules used; compiling all of JupyterLab three times at once is a
  # minute of CPU on two cores. --only-binary: no sdist is built, so no
  # downloaded setup.py or build backend runs here.)
  if [ "${WHEEL_RESOLVE:-}" != fresh ] && [ -f "$lock" ]; then
    echo "from $lock (pinned, hashes checked)"
    PYTHON="$venv/bin/python" scripts/install-locked.sh "$lock" 2>&1 | { grep -v '^WARNING: Location' || true; }
    PATH="$venv/bin:$nonode" "$venv/bin/pip" install -q --no-compile --no-deps --no-index "$wheel"
    "$venv/bin/pip" check
  else
    echo "resolved afresh: $spec (no lock checked${WHEEL_RESOLVE:+; WHEEL_RESOLVE=$WHEEL_RESOLVE})"
    # shellcheck disable=SC2086 # the spec is several requirements
    PATH="$venv/bin:$nonode" "$venv/bin/pip" install -q --no-compile --only-binary :all: "$wheel" $spec 2>&1 |
      { grep -v '^WARNING: Location' || true; }
  fi
}
declare -A installing=()
jl3_refused > "$work/jl3-check.log" 2>&1 &
installing[jl3]=$!
for target in $targets; do
  install_target "$target" > "$work/install-$target.log" 2>&1 &
  installing[$target]=$!
done
failed=0
for name in "${!installing[@]}"; do
  if ! wait "${installing[$name]}"; then
    echo "test-wheel: $name failed:" >&2
    cat "$work/jl3.log" "$work/jl3-check.log" "$work/install-$name.log" 2> /dev/null | tail -40 >&2
    failed=1
  fi
done
[ "$failed" = 0 ] || exit 1
echo "refused: $(grep -m1 '^ERROR: Cannot install' "$work/jl3.log")"
mark "JupyterLab 3 refused, environments made" "$step_started"

for target in $targets; do
  step_started=$SECONDS
  spec="$(spec_for "$target")"
  app="$(app_for "$target")"
  venv="$work/venv-$target"
  echo "=== $target: the wheel with $spec, no Node on PATH"
  cat "$work/install-$target.log"
  "$venv/bin/pip" show jupyterlab notebook jupyter_server 2> /dev/null |
    awk '/^Name:/{n=$2} /^Version:/{printf "%s %s  ", n, $2} END{print ""}'
  listing="$(env -i HOME="$HOME" PATH="$venv/bin:$nonode" JUPYTER_CONFIG_DIR="$work/$target/config" \
    "$venv/bin/jupyter" labextension list 2>&1 | sed 's/\x1b\[[0-9;]*m//g')"
  echo "$listing" | grep 'jupyterlab-notebook-agent'
  if ! echo "$listing" | grep -qE 'jupyterlab-notebook-agent v[^ ]+ enabled .*OK'; then
    echo "$listing"
    echo "test-wheel: $target: labextension list does not show the extension OK" >&2
    exit 1
  fi
  mkdir -p "$work/$target"
  (
    cd ui-tests
    NOTEBOOK_AGENT_WHEEL_VENV="$venv" NOTEBOOK_AGENT_WHEEL_APP="$app" \
      NOTEBOOK_AGENT_WHEEL_DIR="$work/$target" NOTEBOOK_AGENT_WHEEL_PATH="$venv/bin:$nonode" \
      npx playwright test -c playwright.wheel.config.js
  )
  mark "$target" "$step_started"
done

echo "=== installed-wheel timings"
printf '  %s\n' "${timings[@]}"
