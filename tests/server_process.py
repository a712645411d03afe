"""A real ``jupyter server`` process for the tests that need one of their own.

pytest-jupyter's server runs inside the pytest process, so what the process was started
with (its argv, the environment block ``/proc/<pid>/environ`` shows, its log at start-up)
cannot be chosen per test; these tests start a server process instead.
"""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import jupyterlab_notebook_agent

TOKEN = "process-test-token-0123456789abcdef"


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def request(url: str, token: str, method: str = "GET", body: bytes | None = None, headers: dict | None = None):
    """(status, body) of one HTTP request, errors included."""
    headers = {"Authorization": f"token {token}", **(headers or {})}
    req = urllib.request.Request(url, data=body, method=method, headers=headers)
    try:
        with urllib.request.urlopen(req, timeout=30) as response:
            return response.status, response.read()
    except urllib.error.HTTPError as error:
        return error.code, error.read()


@dataclass
class ServerProcess:
    base: str
    token: str
    port: int
    log_file: Path
    process: subprocess.Popen


@contextmanager
def server_process(tmp_path: Path, env: dict[str, str], args: list[str] = ()) -> Iterator[ServerProcess]:
    """A Jupyter server with this checkout's extension, ``env`` its whole environment (plus paths)."""
    port = free_port()
    package_root = str(Path(jupyterlab_notebook_agent.__file__).resolve().parents[1])
    env = {
        **env,
        "PYTHONPATH": os.pathsep.join([package_root, os.environ.get("PYTHONPATH", "")]),
        "JUPYTER_DATA_DIR": str(tmp_path / "data"),
        "JUPYTER_RUNTIME_DIR": str(tmp_path / "runtime"),
    }
    root = tmp_path / "root"
    root.mkdir(exist_ok=True)
    log_file = tmp_path / "server.log"
    command = [sys.executable, "-m", "jupyter_server", "--no-browser", "--allow-root", f"--port={port}", *args]
    command += ["--ServerApp.port_retries=0", f"--ServerApp.root_dir={root}", f"--IdentityProvider.token={TOKEN}"]
    with open(log_file, "wb") as log:
        process = subprocess.Popen(command, env=env, stdout=log, stderr=subprocess.STDOUT)
    server = ServerProcess(f"http://127.0.0.1:{port}/", TOKEN, port, log_file, process)
    try:
        _wait_until_up(server)
        yield server
    finally:
        process.terminate()
        process.wait(timeout=30)


def _wait_until_up(server: ServerProcess) -> None:
    deadline = time.monotonic() + 60
    while True:
        try:
            if request(server.base + "api/status", server.token)[0] == 200:
                return
        except OSError:
            pass  # not listening yet
        assert server.process.poll() is None and time.monotonic() < deadline, server.log_file.read_text()[-3000:]
        time.sleep(0.2)
