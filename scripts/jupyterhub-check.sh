#!/usr/bin/env bash
# JupyterHub with Notebook Agent for two local users, run end to end (docs/jupyterhub.md).
#
# As root on Debian, after `npm run build:prod` (the wheel ships the built extension):
#   ./scripts/jupyterhub-check.sh
# It makes a virtual environment other users can run (Debian's python3: one made
# from an interpreter under /root is unreadable to them), installs JupyterHub,
# JupyterLab and this package into it, configurable-http-proxy with npm, adds two
# users (nbagent-alice, nbagent-bob; removed again at the end unless they existed),
# starts the scripted model server and the hub (LocalProcessSpawner), and runs
# scripts/jupyterhub_check.py. HUB_CHECK_DIR (default /tmp/notebook-agent-hub) keeps
# the environment between runs; HUB_CHECK_PORT (8901) and HUB_CHECK_MODEL_PORT (8902).
set -euo pipefail
# useradd and userdel live in /usr/sbin, which a minimal PATH (env -i, some CI
# runners) lacks.
export PATH="$PATH:/usr/sbin:/sbin"
cd "$(dirname "$0")/.."
export PIP_DISABLE_PIP_VERSION_CHECK=1
checkout="$(pwd)"
work="${HUB_CHECK_DIR:-/tmp/notebook-agent-hub}"
port="${HUB_CHECK_PORT:-8901}"
model_port="${HUB_CHECK_MODEL_PORT:-8902}"
users=(nbagent-alice nbagent-bob)
step() { printf '\n=== %s\n' "$*"; }

[ "$(id -u)" = 0 ] || { echo "Run as root: it adds two local users." >&2; exit 1; }
[ -f jupyterlab_notebook_agent/labextension/static/style.js ] || { echo "Run npm run build:prod first." >&2; exit 1; }
mkdir -p "$work"
chmod 755 "$work"

step "A virtual environment every user can run (Debian's python3)"
if [ ! -x "$work/venv/bin/python" ]; then
  # Debian's venv needs ensurepip, packaged apart (python3-venv).
  /usr/bin/python3 -c "import ensurepip" 2> /dev/null || { apt-get update -q && apt-get install -y -q python3-venv; }
  /usr/bin/python3 -m venv "$work/venv"
fi
# JupyterHub, JupyterLab, ipykernel, this package's dependencies as pyproject.toml declares
# them today and its build backend, each a wheel checked against the sha256 pinned in
# requirements/jupyterhub.txt (tests/test_test_lock.py checks that it covers pyproject.toml:
# a dependency missing here once left every notebook-agent route of the users' servers a 404).
PYTHON="$work/venv/bin/python" scripts/install-locked.sh requirements/jupyterhub.txt
# This checkout, not editable (the users' servers never read the checkout), with the prebuilt
# extension; nothing fetched.
"$work/venv/bin/pip" install -q --no-deps --no-build-isolation --force-reinstall "$checkout"
"$work/venv/bin/python" -c "import jupyterlab_notebook_agent.mcp_handlers"
"$work/venv/bin/jupyterhub" --version

step "configurable-http-proxy"
# Pinned and checked by npm ci against requirements/configurable-http-proxy/package-lock.json.
lock=requirements/configurable-http-proxy/package-lock.json
if ! cmp -s "$lock" "$work/chp/package-lock.json" || [ ! -x "$work/chp/node_modules/.bin/configurable-http-proxy" ]; then
  rm -rf "$work/chp"
  mkdir -p "$work/chp"
  cp requirements/configurable-http-proxy/package.json "$lock" "$work/chp/"
  npm ci -q --no-audit --no-fund --prefix "$work/chp" > /dev/null
fi

step "Two local users"
created=()
for user in "${users[@]}"; do
  if ! id -u "$user" > /dev/null 2>&1; then
    useradd --create-home --shell /bin/bash "$user"
    created+=("$user")
  fi
done

model_pid="" hub_pid=""
cleanup() {
  local status=$?
  if [ "$status" != 0 ] && [ -f "$work/hub.log" ]; then
    echo "--- the end of $work/hub.log:" >&2
    tail -n 40 "$work/hub.log" >&2
  fi
  [ -n "$hub_pid" ] && kill "$hub_pid" 2> /dev/null && wait "$hub_pid" 2> /dev/null || true
  [ -n "$model_pid" ] && kill "$model_pid" 2> /dev/null || true
  # The hub stops the users' servers when it stops.
  for user in "${created[@]}"; do
    userdel --remove "$user" 2> /dev/null || echo "could not remove user $user" >&2
  done
}
trap cleanup EXIT

step "The scripted model server and the hub"
python3 tests/scripted_model_server.py --port "$model_port" > "$work/model.log" 2>&1 &
model_pid=$!
token="$(python3 -c 'import secrets; print(secrets.token_hex(24))')"
cat > "$work/jupyterhub_config.py" << EOF
c.JupyterHub.bind_url = "http://127.0.0.1:$port"
c.JupyterHub.hub_bind_url = "http://127.0.0.1:$((port + 10))"
c.JupyterHub.db_url = "sqlite:///$work/jupyterhub.sqlite"
c.JupyterHub.cookie_secret_file = "$work/jupyterhub_cookie_secret"
c.ConfigurableHTTPProxy.command = ["$work/chp/node_modules/.bin/configurable-http-proxy"]
c.ConfigurableHTTPProxy.pid_file = "$work/proxy.pid"
c.JupyterHub.authenticator_class = "dummy"
c.Authenticator.allowed_users = {$(printf '"%s", ' "${users[@]}")}
c.JupyterHub.spawner_class = "localprocess"
c.Spawner.cmd = ["$work/venv/bin/jupyterhub-singleuser"]
c.Spawner.default_url = "/lab"
c.Spawner.notebook_dir = "~"
# The admin's endpoint for every user (no key: each user stores their own).
c.Spawner.environment = {"OPENAI_BASE_URL": "http://127.0.0.1:$model_port/v1", "NOTEBOOK_AGENT_MODEL": "scripted-model"}
c.JupyterHub.services = [{"name": "check", "api_token": "$token"}]
c.JupyterHub.load_roles = [
    {"name": "check", "scopes": ["admin:users", "admin:servers", "tokens"], "services": ["check"]}
]
EOF
(cd "$work" && exec "$work/venv/bin/jupyterhub" -f "$work/jupyterhub_config.py" > "$work/hub.log" 2>&1) &
hub_pid=$!
python3 - "http://127.0.0.1:$port/hub/api" << 'EOF'
import sys, time, urllib.request
for _ in range(120):
    try:
        print(urllib.request.urlopen(sys.argv[1], timeout=5).read().decode())
        break
    except OSError:
        time.sleep(0.5)
else:
    sys.exit("the hub did not start")
EOF

step "Notebook Agent for each user"
python3 scripts/jupyterhub_check.py "http://127.0.0.1:$port" "$token" "http://127.0.0.1:$model_port" "${users[@]}"
