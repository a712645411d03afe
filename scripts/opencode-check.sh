#!/usr/bin/env bash
# A real agent CLI in a live notebook, in one command (#36): OpenCode (npm
# opencode-ai, pinned with its integrity in ui-tests/opencode/package-lock.json,
# installed without running its install scripts) with Qwen2.5-Coder-1.5B on
# llama-server (the real-model lane's verified model and build), connected to
# the Jupyter server's MCP endpoint. ui-tests/tests/outside-opencode.spec.ts
# approves its cell in the sidebar, sees it run, and undoes the run.
#
# llama-server reads the model's tool calls through
# scripts/chat-templates/qwen2.5-coder-json-calls.jinja: the model writes them
# as ```json blocks, which its own template does not call tool calls.
#
# Not part of the test command (about 4 min of model time on 2 cores, plus
# the model's set-up once). Needs what the UI tests need: the extension built
# and installed in the active Python environment (jupyter on PATH), ui-tests'
# npm packages and Chromium, as the README's test command leaves them:
#   source .venv/bin/activate && scripts/opencode-check.sh
set -euo pipefail
cd "$(dirname "$0")/.."
if ! command -v jupyter >/dev/null; then
  echo "jupyter is not on PATH: activate the environment the extension is installed in (see the header)" >&2
  exit 1
fi

# npm install, not npm ci: the lock holds this platform's binaries only (ci wants every platform's); what is
# installed is checked against the lock's integrity. No install scripts: the platform package's binary is run as it is.
(cd ui-tests/opencode && npm install --ignore-scripts --no-save --no-audit --no-fund >/dev/null)
case "$(uname -m)" in
  x86_64) platform=linux-x64 ;;
  *) echo "ui-tests/opencode/package-lock.json pins the linux-x64 binary only, not $(uname -m)" >&2; exit 1 ;;
esac
OPENCODE="$PWD/ui-tests/opencode/node_modules/opencode-$platform/bin/opencode"
"$OPENCODE" --version >/dev/null

paths=$(python3 scripts/real_model.py --setup-only --json | tail -1)
server=$(python3 -c 'import json, sys; print(json.loads(sys.argv[1])["server"])' "$paths")
model=$(python3 -c 'import json, sys; print(json.loads(sys.argv[1])["model"])' "$paths")
port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
log=$(mktemp -t opencode-llama-XXXXXX.log)

"$server" -m "$model" --alias qwen2.5-coder-1.5b-instruct --host 127.0.0.1 --port "$port" \
  --jinja --chat-template-file scripts/chat-templates/qwen2.5-coder-json-calls.jinja \
  -c 16384 -t "$(nproc)" --parallel 1 -n 512 --temp 0 --seed 1 >"$log" 2>&1 &
llama=$!
trap 'kill "$llama" 2>/dev/null || true' EXIT
for _ in $(seq 180); do
  if curl -sf "http://127.0.0.1:$port/health" >/dev/null; then break; fi
  if ! kill -0 "$llama" 2>/dev/null; then
    echo "llama-server exited; its log: $log" >&2
    exit 1
  fi
  sleep 1
done

cd ui-tests
NOTEBOOK_AGENT_OPENCODE="$OPENCODE" \
  NOTEBOOK_AGENT_OPENCODE_MODEL="http://127.0.0.1:$port/v1" \
  npx playwright test -c playwright.outside.config.js tests/outside-opencode.spec.ts --retries 0 "$@"
