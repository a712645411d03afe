"""Hostile MCP servers: input schemas that try to freeze, probe or crash the Jupyter server.

The schemas come from the MCP server (tests/mcp_test_server.py with ``$MCP_TEST_SCHEMAS``),
over stdio and over streamable HTTP, and the arguments from the model: the server must not
fetch anything a schema names, must not stall its event loop on a pattern or a schema that
backtracks, and must answer recursion and reference errors as 400s. A chatty server's stderr
is kept as a bounded tail in memory, and a tool's own JSON-RPC error -32000 is a tool error.
"""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest
from test_mcp import SERVER, free_port, wait_for_port

SERVERS = "notebook-agent/mcp/servers"
CALL = "notebook-agent/mcp/call"
HEADER_SECRET = "mcp-hostile-header-secret-5b1d"
LEAKED = "LEAKED-CONTENT-93f1c7"
REDOS = "a" * 29 + "!"  # 2^29 steps for ^(a+)+$ in a backtracking engine: about 30 s


def nested(depth: int) -> dict:
    value: dict = {}
    for _ in range(depth):
        value = {"a": value}
    return value


def deep_array(depth: int) -> list:
    value: list = []
    for _ in range(depth):
        value = [value]
    return value


class LeakServer:
    """An HTTP server with something a schema could make the Jupyter server fetch; counts requests."""

    def __init__(self) -> None:
        self.requests: list[str] = []
        owner = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:
                owner.requests.append(self.path)
                body = json.dumps({"type": "string", "enum": [LEAKED]}).encode()
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, *args: object) -> None:
                pass

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.port = self.httpd.server_address[1]
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)
        self.thread.start()

    def close(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()


@pytest.fixture(scope="module")
def leak_server():
    server = LeakServer()
    yield server
    server.close()


@pytest.fixture(scope="module")
def fifo(tmp_path_factory) -> Path:
    path = tmp_path_factory.mktemp("fifo") / "schema.fifo"
    os.mkfifo(path)
    return path


def object_schema(**properties: dict) -> dict:
    return {"type": "object", "properties": properties}


@pytest.fixture(scope="module")
def schemas(leak_server, fifo) -> dict:
    leak = f"http://127.0.0.1:{leak_server.port}/leak.json"
    return {
        # Refused where the tools are listed: references outside the schema.
        "ssrf": object_schema(s={"$ref": leak}),
        "ssrf_by_id": {
            "$id": f"http://127.0.0.1:{leak_server.port}/base.json",
            **object_schema(s={"$ref": "leak.json"}),
        },
        "fifo": object_schema(s={"$ref": f"file://{fifo}"}),
        "passwd": object_schema(s={"$ref": "file:///etc/passwd"}),
        "dynamic": object_schema(s={"$dynamicRef": leak}),
        # Offered: their references stay inside the schema; their checks must be bounded.
        "redos": object_schema(s={"type": "string", "pattern": "^(a+)+$"}),
        "redos_keys": {"type": "object", "patternProperties": {"^(a+)+$": {"type": "integer"}}},
        "branches": {
            # Each level tries its first branch in full, fails, then the second: 2^depth steps.
            "type": "object",
            "properties": {"t": {"$ref": "#/$defs/node"}},
            "$defs": {
                "node": {
                    "anyOf": [
                        {"type": "array", "items": {"$ref": "#/$defs/node"}, "maxItems": 0},
                        {"type": "array", "items": {"$ref": "#/$defs/node"}},
                    ]
                }
            },
        },
        "recursive": {"type": "object", "properties": {"a": {"$ref": "#"}}, "additionalProperties": False},
        "dangling": object_schema(s={"$ref": "#/$defs/missing"}),
        "word": object_schema(s={"type": "string", "pattern": "^[a-z]+$"}),
    }


@pytest.fixture(scope="module")
def http_hostile(schemas):
    """The hostile test server over streamable HTTP."""
    port = free_port()
    env = {**os.environ, "MCP_TEST_TOKEN": HEADER_SECRET, "MCP_TEST_SCHEMAS": json.dumps(schemas)}
    process = subprocess.Popen(
        [sys.executable, SERVER, "--http", str(port)], env=env, stderr=subprocess.PIPE, text=True
    )
    wait_for_port(port, process)
    yield f"http://127.0.0.1:{port}/mcp"
    process.terminate()
    process.wait(10)


CHATTY = (
    "import sys, time\n"
    "line = 'x' * 1023 + '\\n'\n"
    "for _ in range(20_000): sys.stderr.write(line)\n"  # 20 MB, then a last line, then silence
    "sys.stderr.write('LAST-STDERR-LINE-7c1e\\n'); sys.stderr.flush()\n"
    "time.sleep(600)\n"
)


@pytest.fixture
def jp_server_config(jp_server_config, schemas, http_hostile, request):
    chatty = {"command": sys.executable, "args": ["-c", CHATTY], "start_timeout": 4}
    # Only where it is tested: every listing waits for its start to fail.
    chatty_servers = {"chatty": chatty} if "chatty" in request.node.name else {}
    return {
        **jp_server_config,
        "NotebookAgent": {
            "api_key": "sk-hostile-schema-tests-0123456789",
            "discover_local_servers": False,
            "mcp_servers": {
                "evil": {
                    "command": sys.executable,
                    "args": [SERVER],
                    "env": {"MCP_TEST_SCHEMAS": json.dumps(schemas)},
                    "timeout": 10,
                    "auto_approve": True,
                },
                "evilweb": {"url": http_hostile, "headers": {"Authorization": f"Bearer {HEADER_SECRET}"}},
                **chatty_servers,
            },
        },
    }


async def listing(jp_fetch) -> dict:
    response = await jp_fetch(SERVERS, method="POST", body="{}")
    return {s["name"]: s for s in json.loads(response.body)["servers"]}


async def call(jp_fetch, name: str, arguments: dict | None = None) -> tuple[int, dict]:
    body = json.dumps({"name": name, "arguments": arguments or {}})
    response = await jp_fetch(CALL, method="POST", body=body, raise_error=False)
    text = response.body.decode()
    assert LEAKED not in text and "root:" not in text, text
    try:
        return response.code, json.loads(text)
    except ValueError:
        return response.code, {"error": {"message": text[:300], "type": "not json"}}


async def responsive_during(jp_fetch, name: str, arguments: dict) -> tuple[int, dict, float, float]:
    """Call ``name``; while it is checked, Jupyter's own status route must answer at once."""
    started = time.monotonic()
    task = asyncio.ensure_future(call(jp_fetch, name, arguments))
    await asyncio.sleep(0.3)
    await jp_fetch("api", "status")
    status_after = time.monotonic() - started
    code, answer = await task
    return code, answer, status_after, time.monotonic() - started


@pytest.mark.parametrize("server", ["evil", "evilweb"])
async def test_tools_whose_schema_refers_outside_itself_are_not_offered(jp_fetch, leak_server, server):
    servers = await listing(jp_fetch)
    assert servers[server]["status"] == "connected", servers[server]
    offered = {t["tool"] for t in servers[server]["tools"]}
    assert {"redos", "recursive", "dangling", "word"} <= offered
    refused = ("ssrf", "ssrf_by_id", "fifo", "passwd", "dynamic")
    assert not offered & set(refused), offered
    skipped = " ".join(servers[server]["skipped_tools"])
    for tool in refused:
        assert f"'{tool}': its input schema refers to" in skipped, skipped
    assert "outside itself" in skipped and "not fetched" in skipped
    for tool in refused:  # called anyway (the browser was told otherwise): refused, nothing read
        started = time.monotonic()
        code, answer = await call(jp_fetch, f"{server}__{tool}", {"s": "x"})
        assert code == 404 and answer["error"]["type"] == "unknown_tool", (tool, code, answer)
        assert "outside itself" in answer["error"]["message"]
        assert time.monotonic() - started < 5  # the FIFO is never opened
    assert leak_server.requests == []


@pytest.mark.parametrize("server", ["evil", "evilweb"])
async def test_a_catastrophic_pattern_is_cut_off_and_the_server_stays_responsive(jp_fetch, server):
    code, answer = await call(jp_fetch, f"{server}__word", {"s": "fine"})  # the checker is started
    assert code == 200 and answer["content"][0]["text"] == "called"
    for tool, arguments in (("redos", {"s": REDOS}), ("redos_keys", {REDOS: 1})):
        code, answer, status_after, elapsed = await responsive_during(jp_fetch, f"{server}__{tool}", arguments)
        assert status_after < 1.5, f"Jupyter did not answer for {status_after:.1f} s while {tool} was checked"
        assert code == 400 and answer["error"]["type"] == "invalid_arguments", answer
        assert "took longer than 2 s" in answer["error"]["message"]
        # The check's 2 s, the kill, and for the second tool what is left of the new worker's start, begun at the
        # kill (Python and jsonschema's imports: 2-4 s on a busy 2-core machine; 8.0 s in all was seen there when
        # it began only with the call): a hang would be far longer.
        assert elapsed < 12, elapsed
    # Patterns still check, and the worker killed above was replaced.
    code, answer = await call(jp_fetch, f"{server}__word", {"s": "Not A Word"})
    assert code == 400 and "does not match '^[a-z]+$'" in answer["error"]["message"]
    code, answer = await call(jp_fetch, f"{server}__redos", {"s": "aaaa"})
    assert code == 200 and answer["content"][0]["text"] == "called"


async def test_a_slow_schema_check_delays_only_calls_to_that_server(jp_fetch):
    """Six concurrent catastrophic calls to one server (issue #35, D6): a harmless call to another server answers
    at once, and each of the six is answered within the bound on its wait (each check is cut at 2 s; one checker
    process for the whole Jupyter server queued them all: the seventh call took ~20 s)."""
    for name in ("evil__word", "evilweb__word"):  # both servers started, their checkers too
        code, answer = await call(jp_fetch, name, {"s": "fine"})
        assert code == 200, answer

    async def timed(name: str, arguments: dict) -> tuple[int, dict, float]:
        started = time.monotonic()
        code, answer = await call(jp_fetch, name, arguments)
        return code, answer, time.monotonic() - started

    slow = [asyncio.ensure_future(timed("evil__redos", {"s": REDOS})) for _ in range(6)]
    await asyncio.sleep(0.5)
    code, answer, took = await timed("evilweb__word", {"s": "fine"})
    assert code == 200 and answer["content"][0]["text"] == "called", answer
    assert took < 2.0, f"a harmless call to another server waited {took:.1f} s"
    results = await asyncio.gather(*slow)
    for code, answer, took in results:
        assert code == 400 and answer["error"]["type"] == "invalid_arguments", answer
        # mcp_schema.WAIT_TIMEOUT_S (5 s) for the checks before it, CHECK_TIMEOUT_S (2 s) for its own, and the new
        # checker's start after a kill (2-4 s on a busy 2-core machine, more beside the other test lane: 11.4 s in
        # all was seen on CI's kind of machine). One queue for all, as before the fix, took ~20 s quiet.
        assert took < 14, f"a call waited {took:.1f} s for the checks before it"
    messages = [answer["error"]["message"] for _, answer, _ in results]
    assert any("took longer than 2 s" in m for m in messages), messages
    assert any("earlier calls to this MCP server took longer than 5 s" in m for m in messages), messages
    # The server's calls go on: its checker was replaced.
    code, answer = await call(jp_fetch, "evil__word", {"s": "fine"})
    assert code == 200, answer


async def test_a_schema_whose_branches_multiply_is_cut_off(jp_fetch):
    code, answer = await call(jp_fetch, "evil__branches", {"t": deep_array(3)})
    assert code == 200, answer
    code, answer, status_after, elapsed = await responsive_during(jp_fetch, "evil__branches", {"t": deep_array(40)})
    assert status_after < 1.5, f"Jupyter did not answer for {status_after:.1f} s"
    assert code == 400 and "took longer than 2 s" in answer["error"]["message"], answer
    assert elapsed < 8, elapsed


async def test_recursion_and_reference_errors_are_400_with_a_clear_message(jp_fetch):
    code, answer = await call(jp_fetch, "evil__recursive", nested(3))
    assert code == 200 and answer["content"][0]["text"] == "called"
    code, answer = await call(jp_fetch, "evil__recursive", {"a": {"b": 1}})
    assert code == 400 and "Additional properties" in answer["error"]["message"]
    code, answer = await call(jp_fetch, "evil__recursive", nested(600))
    assert code == 400 and answer["error"]["type"] == "invalid_arguments", answer
    assert "nested too deeply" in answer["error"]["message"]
    code, answer = await call(jp_fetch, "evil__dangling", {"s": "x"})
    assert code == 400 and answer["error"]["type"] == "invalid_arguments", answer
    assert "reference that cannot be resolved" in answer["error"]["message"]
    assert "nothing is fetched" in answer["error"]["message"]


async def test_a_chatty_servers_stderr_is_a_bounded_tail_in_memory(jp_fetch, jp_serverapp):
    """20 MB of stderr: no (deleted) file grows, memory keeps 64 KB, the last line still explains the failure."""
    proc_fds = Path("/proc/self/fd")
    if not proc_fds.is_dir():
        pytest.skip("needs /proc")
    task = asyncio.ensure_future(listing(jp_fetch))
    manager = jp_serverapp.web_app.settings["notebook_agent_mcp"]
    largest_file = 0
    kept = 0
    for _ in range(25):  # while the server writes and hangs (it never answers the handshake)
        await asyncio.sleep(0.1)
        for fd in proc_fds.iterdir():
            try:
                stat = fd.stat()
            except OSError:
                continue
            if "(deleted)" in os.readlink(fd):
                largest_file = max(largest_file, stat.st_size)
        ring = getattr(manager.connections.get("chatty"), "_stderr", None)
        if hasattr(ring, "__len__"):
            kept = max(kept, len(ring))
    servers = await task
    assert largest_file < 1024 * 1024, f"a file of {largest_file} bytes holds the server's stderr"
    assert 0 < kept <= 64 * 1024, kept
    chatty = servers["chatty"]
    assert chatty["status"] == "failed" and "did not start within 4 s" in chatty["error"]
    assert "LAST-STDERR-LINE-7c1e" in chatty["error"]


async def test_a_tool_answering_json_rpc_server_error_is_a_tool_error_not_a_crash(jp_fetch):
    _, before = await call(jp_fetch, "evil__pid")
    code, answer = await call(jp_fetch, "evil__server_error")
    assert code == 502 and answer["error"]["type"] == "mcp_failed", answer
    assert "the database is down" in answer["error"]["message"]
    assert "restarts" not in answer["error"]["message"]
    _, after = await call(jp_fetch, "evil__pid")
    assert after["content"][0]["text"] == before["content"][0]["text"]  # the same process
    servers = await listing(jp_fetch)
    assert servers["evil"]["restarts"] == 0 and servers["evil"]["status"] == "connected"


async def test_a_tool_list_answering_json_rpc_server_error_is_not_a_crash(jp_fetch):
    """The look before a listing asks for the tools again: an error answer there is an answer too."""
    _, before = await call(jp_fetch, "evil__pid")
    restarts = (await listing(jp_fetch))["evil"]["restarts"]
    code, answer = await call(jp_fetch, "evil__fail_next_listing")
    assert code == 200, answer
    servers = await listing(jp_fetch)  # its look gets -32000
    assert servers["evil"]["status"] == "connected" and servers["evil"]["restarts"] == restarts
    assert "evil__pid" in [t["name"] for t in servers["evil"]["tools"]]
    _, after = await call(jp_fetch, "evil__pid")
    assert after["content"][0]["text"] == before["content"][0]["text"]  # the same process


def test_the_check_itself_resolves_only_references_inside_the_schema(leak_server, fifo, schemas):
    """Defence in depth, below the listing's refusal: the worker's check never fetches a reference."""
    from jupyterlab_notebook_agent.mcp_schema import check, outside_reference

    for tool in ("ssrf", "ssrf_by_id", "fifo", "passwd", "dynamic"):
        assert outside_reference(schemas[tool]) is not None, tool
        started = time.monotonic()
        problem = check(schemas[tool], {"s": "x"})["problem"]
        assert problem and "reference that cannot be resolved" in problem, (tool, problem)
        assert LEAKED not in problem and time.monotonic() - started < 5
    for tool in ("redos", "redos_keys", "branches", "recursive", "dangling", "word"):
        assert outside_reference(schemas[tool]) is None, tool
    assert leak_server.requests == []


async def test_the_listing_starts_each_servers_checker_and_the_first_call_uses_it(jp_fetch, jp_serverapp):
    """The real server and MCP servers: after the sidebar's listing, each server that offers tools has its
    checker's worker starting or running, and the first call checks with that worker (no start of its own)."""
    from jupyterlab_notebook_agent.mcp_handlers import SETTINGS_KEY

    listed = await listing(jp_fetch)
    assert listed["evil"]["tools"] and listed["evilweb"]["tools"]
    checkers = jp_serverapp.web_app.settings[SETTINGS_KEY].checkers
    assert set(checkers) == {"evil", "evilweb"}
    workers = {name: await checker._started() for name, checker in checkers.items()}
    code, answer = await call(jp_fetch, "evil__word", {"s": "Not A Word"})
    assert code == 400 and "does not match" in answer["error"]["message"]
    assert checkers["evil"]._running() is workers["evil"]
    # A second listing starts nothing new.
    await listing(jp_fetch)
    assert {name: checker._running() for name, checker in checkers.items()} == workers
