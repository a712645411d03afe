"""Fixtures: a real Jupyter server with the extension, and the scripted model server."""

from __future__ import annotations

import asyncio
import logging
import socket
import sys
import time
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))

from scripted_model_server import Script, serve

pytest_plugins = ("pytest_jupyter.jupyter_server", "fault_summary")

SECRET_KEY = "sk-test-0123456789-never-leaves-the-server"


@pytest.fixture
def jp_server_config(jp_server_config):
    # No looking for model servers on this machine's loopback (test_discovery.py turns it on).
    return {
        "ServerApp": {"jpserver_extensions": {"jupyterlab_notebook_agent": True}},
        "NotebookAgent": {"discover_local_servers": False},
    }


@pytest.fixture
def outside_server_config(configured):
    """The outside agents' tests: the extension, a held key (``configured``), no worker for closed notebooks."""
    return {
        "ServerApp": {"jpserver_extensions": {"jupyterlab_notebook_agent": True}},
        "NotebookAgent": {"discover_local_servers": False, "outside_worker_command": []},
    }


def require_built_command_line() -> None:
    """The test command builds the command line first; without it a test fails, saying so."""
    import shutil

    built = Path(__file__).resolve().parent.parent / "lib" / "cli" / "notebook-agent.cjs"
    if shutil.which("node") is None or not built.exists():
        pytest.fail("needs node and the built command line: run npm run build:cli")


@pytest.fixture
def model_server():
    """The scripted model server, started on a free loopback port."""
    server, script = serve(0)
    yield f"http://127.0.0.1:{server.server_port}/v1", script
    server.shutdown()


async def disconnect_mid_stream(port: int, base_url: str, auth_header: dict, route: str, body: bytes) -> float:
    """POST a streamed request over a raw socket, read until its first SSE event, then close the
    socket as a browser tab would (an aborted fetch): returns when it closed (time.monotonic())."""
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    head = (
        f"POST {base_url}{route} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n"
        f"Authorization: {auth_header['Authorization']}\r\nContent-Type: application/json\r\n"
        f"Content-Length: {len(body)}\r\n\r\n"
    )
    writer.write(head.encode() + body)
    received = b""
    while b"data: " not in received:
        received += await asyncio.wait_for(reader.read(4096), timeout=10)
    assert received.startswith(b"HTTP/1.1 200")
    writer.close()
    return time.monotonic()


async def assert_upstream_closed_at_once(script: Script, closed_at: float) -> None:
    """The one upstream request was cut while the model was between chunks (they come 2 s
    apart), not at its next chunk: the proxy noticed the client leave."""
    [record] = script.requests
    while "disconnected_at" not in record and time.monotonic() - closed_at < 10:
        await asyncio.sleep(0.02)
    assert record["completed"] is False
    assert record["disconnected_at"] - closed_at < 1.0
    assert record["disconnected_after_chunks"] <= 2


@pytest.fixture
def configured(model_server, monkeypatch) -> tuple[str, Script]:
    """The proxy configured through the documented environment variables."""
    url, script = model_server
    monkeypatch.setenv("OPENAI_BASE_URL", url)
    monkeypatch.setenv("OPENAI_API_KEY", SECRET_KEY)
    monkeypatch.setenv("NOTEBOOK_AGENT_MODEL", "scripted-model")
    return url, script


@pytest.fixture
def closed_port() -> int:
    """A loopback port with nothing listening on it."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@pytest.fixture
def server_log(jp_serverapp):
    """Everything the server logs, at every level, while the test runs."""
    records: list[str] = []

    class Collect(logging.Handler):
        def emit(self, record: logging.LogRecord) -> None:
            records.append(self.format(record))

    handler = Collect(level=logging.DEBUG)
    loggers = {
        jp_serverapp.log,
        logging.getLogger(),
        *(logging.getLogger(n) for n in ("tornado.access", "tornado.application", "tornado.general")),
    }
    levels = {logger: logger.level for logger in loggers}
    for logger in loggers:
        logger.addHandler(handler)
        logger.setLevel(logging.DEBUG)
    yield records
    for logger in loggers:
        logger.removeHandler(handler)
        logger.setLevel(levels[logger])
