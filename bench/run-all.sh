#!/usr/bin/env bash
# Run every benchmark, one after the other (they compete for CPU otherwise),
# and print their figures. Exits non-zero only if a benchmark crashed; a
# missed target is printed as MISS and does not fail the run.
#   npm run bench              # all
#   npm run bench -- --quick   # skip the browser benchmarks (and the local model's)
set -u
cd "$(dirname "$0")/.."
# The servers import this checkout's Python package (the kernel websocket
# class, the proxy), wherever the package happens to be installed from.
export PYTHONPATH="$PWD${PYTHONPATH:+:$PYTHONPATH}"

benches=(kernel-roundtrip agent-overhead stream-accumulator observation-sizes context-cost)
if [[ "${1:-}" != "--quick" ]]; then
  benches+=(round-trips)
fi
if [[ "${1:-}" != "--quick" ]]; then
  benches+=(lab-startup ui-streaming local-vs-llamacpp inline-completion)
fi

crashed=()
for bench in "${benches[@]}"; do
  printf '\n===== %s =====\n' "$bench"
  started=$SECONDS
  if ! npx tsx "bench/$bench.ts"; then
    crashed+=("$bench")
  fi
  printf '(%s: %d s)\n' "$bench" $((SECONDS - started))
done

if ((${#crashed[@]})); then
  printf '\ncrashed: %s\n' "${crashed[*]}"
  exit 1
fi
printf '\nall %d benchmarks ran\n' "${#benches[@]}"
