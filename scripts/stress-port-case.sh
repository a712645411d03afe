#!/usr/bin/env bash
# Run one port-contract case many times on both real ports with the CPU
# loaded, to reproduce a race that shows only under load (issue #37: a hard
# timeout that falls just before a cell starts).
#
#   scripts/stress-port-case.sh [--runs N] [--hogs K] [--port headless|live|both] "<case name>"
#
# --runs: how many times (default 20); --hogs: busy processes beside the
# tests (default: one per core); --port: which real port (default both).
# The headless port runs under Jest (src/headless/__tests__/port-contract.test.ts),
# the live port in Chromium (ui-tests/tests/port-contract.spec.ts; the
# extension must be built and installed, as scripts/test-all.sh does).
# Prints each port's passes out of N; exits 1 when any run failed.
set -uo pipefail
cd "$(dirname "$0")/.."
runs=20
hogs="$(nproc)"
which=both
while [ $# -gt 1 ]; do
  case "$1" in
    --runs) runs="$2" && shift 2 ;;
    --hogs) hogs="$2" && shift 2 ;;
    --port) which="$2" && shift 2 ;;
    *) echo "unknown option $1" >&2 && exit 2 ;;
  esac
done
name="${1:?the name of the case}"

# The case's name as a regular expression matching only itself (Playwright's -g).
regex_escape() {
  python3 -c 'import re, sys; print(re.escape(sys.argv[1]))' "$1"
}

hog_pids=()
stop_hogs() {
  [ ${#hog_pids[@]} = 0 ] || kill "${hog_pids[@]}" 2> /dev/null
}
trap stop_hogs EXIT
for _ in $(seq "$hogs"); do
  ${HOG_NICE:+nice -n "$HOG_NICE"} python3 -c 'while True: pass' &
  hog_pids+=($!)
done
echo "stress: '$name', $runs runs per port, $hogs CPU hog(s) beside ($(nproc) cores)"

failed=0
results=()
if [ "$which" != live ]; then
  log="$(mktemp)"
  PORT_CASE_ONLY="$name" PORT_CASE_REPEAT="$runs" npx jest --runInBand \
    src/headless/__tests__/port-contract.test.ts 2>&1 | tee "$log" > /dev/null
  passed=$(grep -cE '^\s+✓ .*\(run [0-9]+ of' "$log")
  results+=("headless (ServerNotebookPort): $passed of $runs passed")
  [ "$passed" = "$runs" ] || failed=1
  grep -E '^\s+✕|CheckError' "$log" | head -n 40
  rm -f "$log"
fi
if [ "$which" != headless ]; then
  log="$(mktemp)"
  pattern="live port: $(regex_escape "$name")\$"
  (cd ui-tests && npx playwright test tests/port-contract.spec.ts \
    --project configured --retries 0 --repeat-each "$runs" --workers 1 \
    --reporter line -g "$pattern") 2>&1 | tee "$log" > /dev/null
  ok=$(grep -oE '^\s*[0-9]+ passed' "$log" | grep -oE '[0-9]+' || echo 0)
  results+=("live (LiveNotebookPort in Chromium): ${ok:-0} of $runs passed")
  [ "${ok:-0}" = "$runs" ] || failed=1
  grep -E 'CheckError|Error:' "$log" | sort | uniq -c | head -n 20
  rm -f "$log"
fi
printf '%s\n' "${results[@]}"
exit "$failed"
