#!/usr/bin/env bash
# Reproducible builds: the extension built from the same sources in two
# folders with different names (each with its own node_modules, hard-linked
# from this checkout's) must give byte-identical files, and no emitted file
# may name the folder it was built in or carry a file:/// path.
# Needs Node and jupyter-builder on PATH (scripts/test-all.sh installs both).
set -euo pipefail
cd "$(dirname "$0")/.."
root="$PWD"
work="$(mktemp -d "${TMPDIR:-/tmp}/notebook-agent-repro.XXXXXX")"
# KEEP_REPRO=1 keeps both builds to look into a difference.
[ -n "${KEEP_REPRO:-}" ] || trap 'rm -rf "$work"' EXIT
modules="$(realpath node_modules)"

build_in() {
  local dir="$1"
  mkdir -p "$dir"
  # The sources as a fresh clone has them: tracked and untracked files git
  # does not ignore (so no lib/, build output or node_modules link).
  git ls-files -z --cached --others --exclude-standard | xargs -0 cp --parents -t "$dir"
  # Hard links: a second node_modules at another path in seconds; a copy
  # where the temporary folder is on another file system.
  cp -al "$modules" "$dir/node_modules" 2> /dev/null || cp -a "$modules" "$dir/node_modules"
  (cd "$dir" && npm run --silent build:prod > build.log 2>&1) || {
    cat "$dir/build.log"
    echo "reproducible build: the build in $dir failed" >&2
    exit 1
  }
}

started=$SECONDS
build_in "$work/first"
build_in "$work/second-checkout"
out=jupyterlab_notebook_agent/labextension

if ! diff -r "$work/first/$out" "$work/second-checkout/$out" > "$work/diff.txt"; then
  head -40 "$work/diff.txt"
  echo "reproducible build: the two builds differ (above)" >&2
  exit 1
fi
# No build-machine paths in what ships (the folder, its node_modules, any file:/// URL).
leaks="$(grep -rlE "file:///|$work|$modules" "$work/first/$out" || true)"
if [ -n "$leaks" ]; then
  for file in $leaks; do
    grep -oE ".{60}(file:///|$work|$modules).{60}" "$file" | head -3
  done
  echo "reproducible build: absolute build paths in: $leaks" >&2
  exit 1
fi
files=$(find "$work/first/$out" -type f | wc -l)
echo "reproducible build: $files files identical in two folders, no absolute paths ($((SECONDS - started)) s)"
