"""The MCP routes with real MCP servers written with the SDK (tests/mcp_test_server.py).

One over stdio (started by the Jupyter server on first use), one over streamable HTTP
(started by the test, refusing requests without the configured header), one whose
command does not exist, and one that never answers the handshake.
"""

from __future__ import annotations

import asyncio
import json
import logging
import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest
from tornado.httpclient import AsyncHTTPClient, HTTPClientError

HERE = Path(__file__).parent
SERVER = str(HERE / "mcp_test_server.py")
ENV_SECRET = "mcp-env-secret-7f3a9c1e5b"
HEADER_SECRET = "mcp-header-secret-2d8e4b6a0c"
SHORT_HEADER = "zq47"  # a short MCP header value: a secret all the same, matched as a whole token
PROVIDER_KEY = "sk-provider-key-for-mcp-tests-0123456789"  # not an MCP secret: the server's model key
SECRETS = (ENV_SECRET, HEADER_SECRET)
SERVERS = "notebook-agent/mcp/servers"
CALL = "notebook-agent/mcp/call"


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def wait_for_port(port: int, process: subprocess.Popen, seconds: float = 20) -> None:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"the HTTP MCP server exited: {process.stderr.read() if process.stderr else ''}")
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.2):
                return
        except OSError:
            time.sleep(0.05)
    raise RuntimeError("the HTTP MCP server did not start")


@pytest.fixture(scope="module")
def http_mcp():
    """The test server over streamable HTTP, wanting ``Authorization: Bearer HEADER_SECRET``."""
    port = free_port()
    env = {**os.environ, "MCP_TEST_TOKEN": HEADER_SECRET}
    process = subprocess.Popen(
        [sys.executable, SERVER, "--http", str(port)], env=env, stderr=subprocess.PIPE, text=True
    )
    wait_for_port(port, process)
    yield f"http://127.0.0.1:{port}/mcp"
    process.terminate()
    process.wait(10)


@pytest.fixture
def marker(tmp_path) -> Path:
    return tmp_path / "hang-cancelled"


@pytest.fixture
def user_file(tmp_path) -> Path:
    path = tmp_path / "user-mcp.json"
    path.write_text(json.dumps({"mcpServers": {"mine": {"command": sys.executable, "args": [SERVER]}}}))
    return path


def servers_config(marker: Path, http_url: str) -> dict:
    return {
        "demo": {
            "command": sys.executable,
            "args": [SERVER],
            "env": {"MCP_TEST_TOKEN": ENV_SECRET, "MCP_TEST_MARKER": str(marker)},
            "timeout": 3,
            "auto_approve": ["station_reading"],
        },
        "web": {
            "url": http_url,
            "headers": {"Authorization": f"Bearer {HEADER_SECRET}", "X-Short": SHORT_HEADER},
            "auto_approve": True,
        },
        "nope": {"command": "/nonexistent/mcp-server-binary"},
        "stuck": {"command": sys.executable, "args": ["-c", "import time; time.sleep(600)"], "start_timeout": 1.5},
        "bad name!": {"command": "x"},
    }


@pytest.fixture
def jp_server_config(jp_server_config, marker, http_mcp, user_file):
    return {
        **jp_server_config,
        "NotebookAgent": {
            "api_key": PROVIDER_KEY,
            "discover_local_servers": False,
            "mcp_servers": servers_config(marker, http_mcp),
            "user_mcp_config": str(user_file),
        },
    }


@pytest.fixture
def log_records(jp_serverapp):
    """Every log record of the server, its extension and the SDK during the test."""
    records: list[str] = []

    class Keep(logging.Handler):
        def emit(self, record: logging.LogRecord) -> None:
            records.append(self.format(record))

    handler = Keep(level=logging.DEBUG)
    handler.setFormatter(logging.Formatter("%(name)s %(message)s"))
    loggers = [logging.getLogger(), jp_serverapp.log, logging.getLogger("tornado.application")]
    levels = [logger.level for logger in loggers]
    for logger in loggers:
        logger.addHandler(handler)
        logger.setLevel(logging.DEBUG)
    yield records
    for logger, level in zip(loggers, levels, strict=True):
        logger.removeHandler(handler)
        logger.setLevel(level)


async def listing(jp_fetch) -> dict:
    response = await jp_fetch(SERVERS, method="POST", body="{}")
    text = response.body.decode()
    assert not any(s in text for s in SECRETS)
    return {s["name"]: s for s in json.loads(text)["servers"]} | {"_": json.loads(text)}


async def call(jp_fetch, name: str, arguments: dict | None = None) -> tuple[int, dict]:
    body = json.dumps({"name": name, "arguments": arguments or {}})
    response = await jp_fetch(CALL, method="POST", body=body, raise_error=False)
    text = response.body.decode()
    assert not any(s in text for s in SECRETS), text
    return response.code, json.loads(text)


async def test_listing_shows_servers_status_and_namespaced_tools(jp_fetch, log_records):
    servers = await listing(jp_fetch)
    demo, web = servers["demo"], servers["web"]
    assert demo["status"] == "connected" and demo["transport"] == "stdio" and demo["source"] == "config"
    tools = {t["name"]: t for t in demo["tools"]}
    assert {"demo__station_reading", "demo__plot", "demo__crash", "demo__hang"} <= set(tools)
    reading = tools["demo__station_reading"]
    assert reading["tool"] == "station_reading" and reading["auto_approve"] is True
    assert reading["input_schema"]["properties"]["station"]["type"] == "string"
    assert reading["input_schema"]["required"] == ["station"]
    assert tools["demo__plot"]["auto_approve"] is False
    # Over HTTP the configured header was sent (the server refuses requests without it).
    assert web["status"] == "connected" and web["transport"] == "http"
    assert all(t["auto_approve"] for t in web["tools"]) and web["tools"]
    assert servers["nope"]["status"] == "failed" and "command not found" in servers["nope"]["error"]
    assert servers["nope"]["tools"] == []
    assert any("bad name!" in e for e in servers["_"]["errors"])
    # The user's file is not read: the admin did not allow it.
    assert "mine" not in servers and servers["_"]["user_servers_allowed"] is False
    assert not any(s in line for line in log_records for s in SECRETS)


async def test_a_get_starts_nothing_a_post_starts_the_servers(jp_fetch):
    """Starting a server runs its command: only a POST (XSRF-checked, ``execute``) does it."""
    looked = json.loads((await jp_fetch(SERVERS)).body)
    statuses = {s["name"]: (s["status"], s["tools"]) for s in looked["servers"]}
    # Nothing ran: even the server whose command does not exist has not failed yet.
    assert statuses == {name: ("idle", []) for name in ("demo", "web", "nope", "stuck")}
    started = await listing(jp_fetch)
    assert started["demo"]["status"] == "connected" and started["nope"]["status"] == "failed"
    # Once started, a GET shows them as they are, tools included.
    again = {s["name"]: s for s in json.loads((await jp_fetch(SERVERS)).body)["servers"]}
    assert again["demo"]["status"] == "connected"
    assert [t["name"] for t in again["demo"]["tools"]] == [t["name"] for t in started["demo"]["tools"]]


async def test_a_server_that_does_not_start_fails_within_its_timeout(jp_fetch):
    started = time.monotonic()
    servers = await listing(jp_fetch)
    elapsed = time.monotonic() - started
    assert servers["stuck"]["status"] == "failed"
    assert "did not start within 1.5 s" in servers["stuck"]["error"]
    assert elapsed < 12, elapsed  # every server is started at once, each bounded by its timeout
    code, answer = await call(jp_fetch, "stuck__anything")
    assert code == 502 and "did not start" in answer["error"]["message"]


async def test_calls_return_text_images_and_resources(jp_fetch):
    code, answer = await call(jp_fetch, "demo__station_reading", {"station": "kew"})
    assert code == 200 and answer["is_error"] is False
    assert answer["content"] == [{"type": "text", "text": "Station kew: 17.25 degrees C, reading id R-4821-KEW"}]
    code, answer = await call(jp_fetch, "demo__plot")
    assert code == 200
    text, image = answer["content"]
    assert text == {"type": "text", "text": "A 4x3 chart of the readings."}
    assert image["type"] == "image" and image["mime_type"] == "image/png"
    assert image["data"].startswith("iVBORw0KGgo")
    code, answer = await call(jp_fetch, "demo__notes")
    assert answer["content"] == [
        {"type": "resource", "uri": "file:///notes.txt", "mime_type": "text/plain", "text": "Calibrated in May."}
    ]
    code, answer = await call(jp_fetch, "web__station_reading", {"station": "oslo"})
    assert code == 200 and "R-4821-OSLO" in answer["content"][0]["text"]


async def test_long_results_are_bounded(jp_fetch):
    code, answer = await call(jp_fetch, "demo__huge")
    assert code == 200
    (part,) = answer["content"]
    assert len(part["text"]) == 200_000 and part["truncated"] == 100_000


async def test_arguments_are_validated_against_the_tool_schema(jp_fetch):
    code, answer = await call(jp_fetch, "demo__station_reading", {"station": 7})
    assert code == 400 and answer["error"]["type"] == "invalid_arguments"
    assert "station" in answer["error"]["message"]
    code, answer = await call(jp_fetch, "demo__station_reading", {})
    assert code == 400 and "'station' is a required property" in answer["error"]["message"]


async def test_unknown_servers_and_tools_are_404(jp_fetch):
    code, answer = await call(jp_fetch, "ghost__tool")
    assert code == 404 and answer["error"]["type"] == "unknown_tool"
    code, answer = await call(jp_fetch, "demo__ghost")
    assert code == 404 and "no tool 'ghost'" in answer["error"]["message"]
    code, _ = await call(jp_fetch, "mine__pid")  # the user's server: not allowed here
    assert code == 404


async def test_a_crash_is_an_error_and_the_next_call_restarts_the_server(jp_fetch):
    _, first = await call(jp_fetch, "demo__pid")
    code, answer = await call(jp_fetch, "demo__crash")
    assert code == 502 and answer["error"]["type"] == "mcp_crashed"
    assert "restarts on the next call" in answer["error"]["message"]
    code, second = await call(jp_fetch, "demo__pid")
    assert code == 200 and second["content"][0]["text"] != first["content"][0]["text"]
    servers = await listing(jp_fetch)
    assert servers["demo"]["status"] == "connected" and servers["demo"]["restarts"] == 1


async def test_a_crash_between_calls_shows_in_the_listing_and_heals(jp_fetch):
    _, answer = await call(jp_fetch, "demo__pid")
    os.kill(int(answer["content"][0]["text"]), signal.SIGKILL)
    await asyncio.sleep(0.2)
    servers = await listing(jp_fetch)
    assert servers["demo"]["status"] == "connected" and servers["demo"]["restarts"] == 1
    code, again = await call(jp_fetch, "demo__pid")
    assert code == 200 and again["content"][0]["text"] != answer["content"][0]["text"]


async def test_a_hanging_tool_times_out_within_bound_and_is_cancelled(jp_fetch, marker):
    await call(jp_fetch, "demo__pid")  # started (a start has its own bound, start_timeout)
    started = time.monotonic()
    code, answer = await call(jp_fetch, "demo__hang")
    elapsed = time.monotonic() - started
    assert code == 504 and answer["error"]["type"] == "mcp_timeout"
    assert "did not answer within 3 s" in answer["error"]["message"]
    assert 2.9 < elapsed < 8, elapsed
    for _ in range(50):
        if marker.exists():
            break
        await asyncio.sleep(0.1)
    assert marker.read_text() == "cancelled"
    # The sidebar's notice: the server is up, its last call timed out.
    servers = await listing(jp_fetch)
    assert servers["demo"]["status"] == "connected"
    assert "hang did not answer within 3 s" in servers["demo"]["notice"]
    code, _ = await call(jp_fetch, "demo__pid")  # the server is still usable
    assert code == 200
    assert (await listing(jp_fetch))["demo"]["notice"] is None


async def test_garbage_from_a_server_is_a_clear_error(jp_fetch):
    code, answer = await call(jp_fetch, "demo__garbage")
    assert code == 502 and answer["error"]["type"] == "mcp_invalid"
    assert "not an MCP tool result" in answer["error"]["message"]
    assert "not an MCP tool result" in (await listing(jp_fetch))["demo"]["notice"]


async def test_stop_cancels_the_call_on_the_mcp_server(jp_fetch, jp_http_port, jp_base_url, jp_auth_header, marker):
    """The browser aborting its request (Stop) cancels the tool call in flight."""
    await call(jp_fetch, "demo__pid")  # started
    url = f"http://127.0.0.1:{jp_http_port}{jp_base_url}{CALL}"
    body = json.dumps({"name": "demo__hang", "arguments": {}})
    with pytest.raises(HTTPClientError) as aborted:
        await AsyncHTTPClient().fetch(url, method="POST", body=body, headers=jp_auth_header, request_timeout=0.8)
    assert aborted.value.code == 599  # our side gave up, as fetch's AbortController does
    for _ in range(15):  # well before the 3 s timeout would have cancelled it
        if marker.exists():
            break
        await asyncio.sleep(0.1)
    assert marker.read_text() == "cancelled"


async def test_secrets_in_results_and_stderr_never_reach_a_response_or_a_log(jp_fetch, log_records):
    code, answer = await call(jp_fetch, "demo__whoami")  # the tool echoes its env secret
    assert code == 200 and answer["content"][0]["text"] == "token=[redacted]"
    code, answer = await call(jp_fetch, "web__whoami")
    assert answer["content"][0]["text"] == "token=[redacted]"
    await call(jp_fetch, "demo__crash")  # the server printed its token to stderr at start
    await call(jp_fetch, "demo__garbage")
    await listing(jp_fetch)
    assert log_records  # the log was captured
    assert not any(s in line for line in log_records for s in SECRETS)


async def test_every_server_secret_in_any_form_is_scrubbed_from_mcp_answers(jp_fetch, log_records):
    """MCP answers go through the server's one outbound filter: the model key too, escaped or encoded."""
    from hostile_upstream import escaped, mixed, url_encoded
    from leak_check import leaked

    for form in (PROVIDER_KEY, escaped(PROVIDER_KEY), url_encoded(PROVIDER_KEY), mixed(PROVIDER_KEY), ENV_SECRET):
        code, answer = await call(jp_fetch, "demo__station_reading", {"station": form})  # the tool echoes it
        text = answer["content"][0]["text"]
        assert code == 200 and text.startswith("Station [redacted]: 17.25"), text
        assert not leaked(text, [PROVIDER_KEY, ENV_SECRET])
    code, answer = await call(jp_fetch, "demo__station_reading", {"station": SHORT_HEADER})
    assert (
        answer["content"][0]["text"] == f"Station [redacted]: 17.25 degrees C, reading id R-4821-{SHORT_HEADER.upper()}"
    )
    code, answer = await call(jp_fetch, "demo__station_reading", {"station": f"x{SHORT_HEADER}y"})
    assert f"x{SHORT_HEADER}y" in answer["content"][0]["text"]  # inside a word: not that value
    assert not any(PROVIDER_KEY in line for line in log_records)


@pytest.mark.parametrize(
    "body",
    [
        b"",
        b"not json",
        b"\xff\xfe",
        b"[1, 2]",
        b'"demo__pid"',
        b'{"name": 5}',
        b'{"name": "demo"}',
        b'{"name": "demo__pid", "arguments": []}',
        b'{"name": "demo__pid", "arguments": {"x": NaN}}',
        b'{"name": "demo__pid", "extra": 1}',
        b'{"name": "' + b"a" * 100 + b'__x"}',
        b'{"name": "demo__p\\u0000id"}',
        b"[" * 100_000 + b"]" * 100_000,
    ],
)
async def test_malformed_bodies_are_400(jp_fetch, body):
    response = await jp_fetch(CALL, method="POST", body=body, raise_error=False, allow_nonstandard_methods=True)
    assert response.code == 400, response.body[:200]
    assert json.loads(response.body)["error"]["type"] == "invalid_request"


async def test_oversized_bodies_are_refused(jp_fetch):
    body = json.dumps({"name": "demo__pid", "arguments": {"x": "y" * (1024 * 1024)}})
    response = await jp_fetch(CALL, method="POST", body=body, raise_error=False)
    assert response.code == 400 and "larger than" in json.loads(response.body)["error"]["message"]


async def test_the_routes_need_authentication(jp_fetch, jp_http_port, jp_base_url):
    client = AsyncHTTPClient()
    routes = ((SERVERS, "GET", None), (SERVERS, "POST", b"{}"), (CALL, "POST", b'{"name": "demo__pid"}'))
    for path, method, body in routes:
        url = f"http://127.0.0.1:{jp_http_port}{jp_base_url}{path}"
        response = await client.fetch(url, method=method, body=body, raise_error=False)
        assert response.code == 403, (path, response.code)


async def test_servers_stop_with_jupyter(jp_fetch, jp_serverapp):
    _, answer = await call(jp_fetch, "demo__pid")
    pid = int(answer["content"][0]["text"])
    await jp_serverapp.cleanup_extensions()
    for _ in range(50):
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            break
        await asyncio.sleep(0.1)
    else:
        pytest.fail("the stdio MCP server outlived Jupyter's cleanup")
