"""MCP servers under a real ``jupyter server --debug`` process, configured as an admin would.

The user's ``<jupyter config dir>/notebook_agent/mcp.json`` is read (the admin allowed it),
a stdio server's tools are called through the routes, nothing secret reaches the log,
and the stdio servers end when Jupyter is stopped with SIGTERM.
"""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path

import jupyterlab_notebook_agent

HERE = Path(__file__).parent
SERVER = str(HERE / "mcp_test_server.py")
ADMIN_SECRET = "admin-env-secret-4c1d9e7f20"
USER_SECRET = "user-env-secret-8b2a6f3e51"


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def _request(url: str, token: str, body: dict | None = None) -> tuple[int, dict]:
    data = json.dumps(body).encode() if body is not None else None
    request = urllib.request.Request(url, data=data, method="POST" if data else "GET")
    request.add_header("Authorization", f"token {token}")
    try:
        with urllib.request.urlopen(request, timeout=90) as response:
            return response.status, json.loads(response.read())
    except urllib.error.HTTPError as error:
        return error.code, json.loads(error.read())


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return True


def test_a_real_server_runs_admin_and_user_servers_logs_no_secret_and_stops_them(tmp_path: Path):
    config_dir = tmp_path / "config"
    (config_dir / "notebook_agent").mkdir(parents=True)
    admin = {"command": sys.executable, "args": [SERVER], "env": {"MCP_TEST_TOKEN": ADMIN_SECRET}}
    (config_dir / "jupyter_server_config.json").write_text(
        json.dumps(
            {
                "ServerApp": {"jpserver_extensions": {"jupyterlab_notebook_agent": True}},
                "NotebookAgent": {
                    "discover_local_servers": False,
                    "allow_user_mcp_servers": True,
                    "mcp_servers": {"admin": admin},
                },
            }
        )
    )
    user = {"command": sys.executable, "args": [SERVER], "env": {"MCP_TEST_TOKEN": USER_SECRET}}
    (config_dir / "notebook_agent" / "mcp.json").write_text(json.dumps({"mcpServers": {"mine": user}}))
    port, token = _free_port(), "mcp-process-test-token-0123456789"
    package_root = str(Path(jupyterlab_notebook_agent.__file__).resolve().parents[1])
    env = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join([package_root, os.environ.get("PYTHONPATH", "")]),
        "JUPYTER_CONFIG_DIR": str(config_dir),
        "JUPYTER_DATA_DIR": str(tmp_path / "data"),
        "JUPYTER_RUNTIME_DIR": str(tmp_path / "runtime"),
    }
    root = tmp_path / "root"
    root.mkdir()
    args = [sys.executable, "-m", "jupyter_server", "--debug", "--no-browser", "--allow-root", f"--port={port}"]
    args += ["--ServerApp.port_retries=0", f"--ServerApp.root_dir={root}", f"--IdentityProvider.token={token}"]
    log_file = tmp_path / "server.log"
    with open(log_file, "wb") as log:
        server = subprocess.Popen(args, env=env, stdout=log, stderr=subprocess.STDOUT)
    base = f"http://127.0.0.1:{port}/notebook-agent/mcp/"
    pids: list[int] = []
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                status, listing = _request(base + "servers", token)
                break
            except OSError:
                assert server.poll() is None and time.monotonic() < deadline, log_file.read_text()[-3000:]
                time.sleep(0.3)
        assert status == 200
        # Looking starts nothing (a read-only user may look); POST starts the servers.
        assert {s["name"]: s["status"] for s in listing["servers"]} == {"admin": "idle", "mine": "idle"}
        status, listing = _request(base + "servers", token, {})
        assert status == 200
        servers = {s["name"]: s for s in listing["servers"]}
        assert servers["admin"]["status"] == "connected" and servers["admin"]["source"] == "config"
        assert servers["mine"]["status"] == "connected" and servers["mine"]["source"] == "user"
        for name in ("admin", "mine"):
            status, answer = _request(base + "call", token, {"name": f"{name}__whoami"})
            assert (status, answer["content"][0]["text"]) == (200, "token=[redacted]")
            status, answer = _request(base + "call", token, {"name": f"{name}__pid"})
            pids.append(int(answer["content"][0]["text"]))
        status, answer = _request(base + "call", token, {"name": "admin__crash"})
        assert status == 502
        status, answer = _request(base + "call", token, {"name": "admin__pid"})
        pids.append(int(answer["content"][0]["text"]))
        assert all(_alive(pid) for pid in pids[1:])
    finally:
        server.send_signal(signal.SIGTERM)
        server.wait(timeout=60)
    deadline = time.monotonic() + 10
    while any(_alive(pid) for pid in pids) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert not [pid for pid in pids if _alive(pid)], "stdio MCP servers outlived Jupyter"
    log = log_file.read_text(errors="replace")
    assert "[D " in log and "Loaded config file" in log  # it ran at debug level, from the file
    assert "MCP server 'admin': the server stopped" in log  # the crash was logged, and how
    assert ADMIN_SECRET not in log and USER_SECRET not in log
