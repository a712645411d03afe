"""The model routes' request bodies: a size cap with a clear 413, and large bodies off the event loop (#35, D5).

A 200 MB completion prompt used to be parsed and scanned on the event loop: ``/api/status`` waited 6-9 s.
Now each route has a cap (``max_request_bytes``, 32 MiB, and ``max_completion_request_bytes``, 1 MiB: far
above what the agent and inline completion send), and a body over 1 MiB is checked, given its default
model and scrubbed in a worker process while the server goes on answering.
"""

from __future__ import annotations

import asyncio
import base64
import http.client
import json
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest
from conftest import SECRET_KEY

from jupyterlab_notebook_agent.config import NotebookAgent

CHAT = "notebook-agent/v1/chat/completions"
COMPLETIONS = "notebook-agent/v1/completions"
MB = 1024 * 1024

pytestmark = pytest.mark.fault_category("malformed input")


@pytest.fixture
def jp_server_config(jp_server_config, request):
    agent = dict(jp_server_config["NotebookAgent"])
    if "small_cap" in request.node.name:
        agent["max_request_bytes"] = 2 * MB
    return {**jp_server_config, "NotebookAgent": agent}


def chat_body(text_bytes: int, images: int = 0, **extra) -> bytes:
    """A chat request of about ``text_bytes`` of text and ``images`` images of 500 KB (the agent's largest)."""
    image = "data:image/png;base64," + base64.b64encode(b"\x89PNG" + b"\x00" * 375_000).decode()
    content = [{"type": "text", "text": "look"}] + [{"type": "image_url", "image_url": {"url": image}}] * images
    messages = [{"role": "user", "content": "x" * text_bytes}, {"role": "user", "content": content}]
    return json.dumps({"model": "scripted-model", "messages": messages, **extra}).encode()


def test_the_caps_are_far_above_what_the_agent_and_inline_completion_send():
    config = NotebookAgent()
    assert config.max_request_bytes == 32 * MB and config.max_completion_request_bytes == 1 * MB
    # The agent: a long context and the four images of a step (each at most 500 KB of base64).
    assert len(chat_body(4 * MB, images=4)) < config.max_request_bytes / 4
    # Inline completion: 4000 characters before the cursor and 1000 after, as JSON.
    assert len(json.dumps({"prompt": "é" * 4000, "suffix": "é" * 1000, "max_tokens": 64})) * 20 < MB


async def test_a_body_over_a_small_cap_is_a_413_before_it_is_forwarded(jp_fetch, configured):
    _, script = configured
    script.load([{"content": "ok"}])
    body = chat_body(3 * MB)
    response = await jp_fetch(CHAT, method="POST", body=body, raise_error=False)
    assert response.code == 413, response.body
    error = json.loads(response.body)["error"]
    assert error["type"] == "request_too_large"
    assert "3.0 MB" in error["message"] and "2.0 MB" in error["message"] and "max_request_bytes" in error["message"]
    assert script.recorded() == []
    # Under it, the same route forwards.
    response = await jp_fetch(CHAT, method="POST", body=chat_body(1 * MB), raise_error=False)
    assert response.code == 200, response.body


async def test_a_completion_body_over_its_cap_is_a_413(jp_fetch, configured):
    _, script = configured
    script.load([{"content": "ok"}])
    body = json.dumps({"model": "scripted-model", "prompt": "x" * (MB + 10), "max_tokens": 8})
    response = await jp_fetch(COMPLETIONS, method="POST", body=body, raise_error=False)
    assert response.code == 413, response.body
    assert "max_completion_request_bytes" in json.loads(response.body)["error"]["message"]
    assert script.recorded() == []


async def test_the_agents_largest_request_passes(jp_fetch, configured):
    _, script = configured
    script.load([{"content": "ok"}])
    response = await jp_fetch(CHAT, method="POST", body=chat_body(2 * MB, images=4), raise_error=False)
    assert response.code == 200, response.body
    assert len(script.recorded()) == 1


@pytest.fixture
def raw_upstream(monkeypatch):
    """A model endpoint that keeps each request's raw body and answers at once, parsing nothing: it runs in
    this process, where a parse of 30 MB would hold the GIL and pass for a stall of the server's loop."""
    received: list[bytes] = []

    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def do_POST(self) -> None:
            received.append(self.rfile.read(int(self.headers["Content-Length"])))
            answer = json.dumps({"choices": [{"index": 0, "message": {"role": "assistant", "content": "ok"}}]})
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(answer)))
            self.end_headers()
            self.wfile.write(answer.encode())

        def log_message(self, *args: object) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    monkeypatch.setenv("OPENAI_BASE_URL", f"http://127.0.0.1:{server.server_port}/v1")
    monkeypatch.setenv("OPENAI_API_KEY", SECRET_KEY)
    monkeypatch.setenv("NOTEBOOK_AGENT_MODEL", "scripted-model")
    yield received
    server.shutdown()


def post_in_thread(port: int, path: str, headers: dict, body: bytes) -> dict:
    """POST ``body`` from a thread of its own (not the server's event loop); its status lands in the result."""
    result: dict = {}

    def send() -> None:
        connection = http.client.HTTPConnection("127.0.0.1", port, timeout=120)
        connection.request("POST", path, body=body, headers={**headers, "Content-Type": "application/json"})
        response = connection.getresponse()
        result["status"], result["body"] = response.status, response.read()

    result["thread"] = threading.Thread(target=send, daemon=True)
    result["thread"].start()
    return result


async def test_a_large_body_is_checked_and_scrubbed_off_the_event_loop(
    jp_fetch, jp_http_port, jp_base_url, jp_auth_header, raw_upstream
):
    """30 MB (under the cap) with the server's key in it and no model: the key is taken out, the default
    model put in, and meanwhile ``/api/status`` answers as at rest (it waited for the whole parse before)."""
    await jp_fetch(CHAT, method="POST", body=chat_body(2 * MB), raise_error=False)  # the worker process is started
    text = ("x" * 999 + "\n") * 30_000
    messages = [{"role": "user", "content": text}, {"role": "tool", "tool_call_id": "c", "content": SECRET_KEY}]
    body = json.dumps({"messages": messages}).encode()
    assert MB * 28 < len(body) < NotebookAgent().max_request_bytes
    result = post_in_thread(jp_http_port, f"{jp_base_url}{CHAT}", jp_auth_header, body)
    # The server's event loop is this test's: a stall shows as a long step of this loop, in the request or not.
    slowest, last = 0.0, time.monotonic()
    while result["thread"].is_alive():
        await jp_fetch("api", "status")
        await asyncio.sleep(0.02)
        slowest, last = max(slowest, time.monotonic() - last - 0.02), time.monotonic()
    assert result["status"] == 200, result["body"][:300]
    assert slowest < 0.4, f"/api/status waited {slowest:.2f} s while a 30 MB request was prepared"
    forwarded = json.loads(raw_upstream[-1])
    assert forwarded["model"] == "scripted-model" and forwarded["messages"][1]["content"] == "[redacted]"
    assert forwarded["messages"][0]["content"] == text
