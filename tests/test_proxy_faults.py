"""The proxy under upstream faults, and its memory under a 100 MB stream.

A stream that breaks off upstream must not reach the browser as a complete
answer; an upstream error the proxy already retried must not be retried again by
the client; a 100 MB answer must pass through in O(1) memory.
"""

from __future__ import annotations

import json
import os
import time

import pytest
from conftest import SECRET_KEY
from tornado.httpclient import AsyncHTTPClient, HTTPRequest

from jupyterlab_notebook_agent.sse_relay import BROKEN_TYPE, MAX_PENDING, SseRelay

CHAT = "notebook-agent/v1/chat/completions"

pytestmark = pytest.mark.fault_category("proxy faults")


def chat_body(**extra) -> str:
    return json.dumps({"messages": [{"role": "user", "content": "hi"}], "stream": True, **extra})


async def post_chat(jp_fetch, **extra):
    return await jp_fetch(CHAT, method="POST", body=chat_body(**extra), raise_error=False)


def events(body: bytes) -> list[dict]:
    """The JSON events of an SSE body ([DONE] left out); fails on a torn event."""
    found = []
    for block in body.decode().replace("\r\n", "\n").split("\n\n"):
        data = "".join(line[6:] for line in block.split("\n") if line.startswith("data: "))
        if data and data != "[DONE]":
            found.append(json.loads(data))
    return found


async def test_a_stream_broken_upstream_ends_with_an_error_event(jp_fetch, configured, findings):
    _, script = configured
    script.load([{"content": "The mean of column a is 42.5 and", "chunk_size": 4, "drop_after": 6}])
    response = await post_chat(jp_fetch)
    assert response.code == 200
    body = response.body.decode()
    findings.leak_if(SECRET_KEY in body, "key in a broken stream")
    got = events(response.body)  # every event parses: no half event reached the client
    text = "".join(e["choices"][0]["delta"].get("content", "") for e in got if e.get("choices"))
    assert text == "The mean of column a"[: len(text)] and text
    assert got[-1]["error"]["type"] == BROKEN_TYPE
    assert "broke off" in got[-1]["error"]["message"]
    assert "[DONE]" not in body
    assert SECRET_KEY not in body


async def test_a_complete_stream_passes_byte_for_byte(jp_fetch, jp_http_port, jp_base_url, jp_auth_header, configured):
    _, script = configured
    raw = 'data: {"choices": [{"delta": {"content": "a"}}]}\r\n\r\n: keep-alive\n\ndata: {"choi'
    raw += 'ces": [{"delta": {"content": "b"}}]}\n\ndata: [DONE]\n\n'
    script.load([{"sse": raw, "chunk_size": 5}])
    response = await post_chat(jp_fetch)
    assert response.code == 200
    assert response.body.decode() == raw


async def test_upstream_errors_say_not_to_retry_again(jp_fetch, configured):
    """The proxy retried already: the openai client must not multiply the attempts."""
    _, script = configured
    script.load([{"status": 503, "error": {"message": f"overloaded {n}"}} for n in range(3)])
    response = await post_chat(jp_fetch)
    assert response.code == 503
    assert response.headers["X-Should-Retry"] == "false"
    assert len(script.requests) == 3  # 1 + max_retries, and no more
    script.load([{"status": 500, "error": {"message": "boom"}}])
    response = await post_chat(jp_fetch)
    assert (response.code, response.headers["X-Should-Retry"]) == (500, "false")


def test_the_relay_forwards_whole_events_only():
    relay = SseRelay()
    assert relay.feed(b'data: {"a"') == b""
    assert relay.feed(b": 1}\n\ndata: {") == b'data: {"a": 1}\n\n'
    assert relay.feed(b'"b": 2}\r\n\r\n') == b'data: {"b": 2}\r\n\r\n'
    assert relay.feed(b"data: x\r\r") == b"data: x\r\r"
    assert relay.feed(b"data: y\n\r\n") == b"data: y\n\r\n"
    assert relay.feed(b"data: tail") == b""
    assert relay.flush() == b"data: tail"
    relay.feed(b"data: half")
    error = relay.broken("reset by peer")
    assert error.startswith(b"data: {") and error.endswith(b"\n\n")
    assert json.loads(error[6:])["error"]["type"] == BROKEN_TYPE
    assert relay.flush() == b""
    # No blank line ever: passed on rather than held without bound.
    big = b"x" * (MAX_PENDING + 1)
    assert relay.feed(big) == big


def _rss() -> int:
    with open("/proc/self/statm") as statm:
        return int(statm.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")


@pytest.mark.fault_category("proxy load")
async def test_a_100_mb_stream_passes_in_constant_memory(
    jp_fetch, jp_http_port, jp_base_url, jp_auth_header, configured, findings
):
    """The server, the upstream and the client all run in this process: none may buffer the stream."""
    _, script = configured
    total = 100 * 1024 * 1024
    # Warm up (first-use allocations of the HTTP machinery) before the baseline.
    script.load([{"stream_bytes": 1024 * 1024}])
    await post_chat(jp_fetch)
    script.load([{"stream_bytes": total}])
    received = 0
    peak = baseline = _rss()

    def on_chunk(chunk: bytes) -> None:
        nonlocal received, peak
        received += len(chunk)
        if received % (4 * 1024 * 1024) < len(chunk):
            peak = max(peak, _rss())

    start = time.monotonic()
    request = HTTPRequest(
        f"http://localhost:{jp_http_port}{jp_base_url}{CHAT}",
        method="POST",
        body=chat_body(),
        headers=jp_auth_header,
        streaming_callback=on_chunk,
        request_timeout=120,
    )
    response = await AsyncHTTPClient(max_body_size=200 * 1024 * 1024).fetch(request)
    elapsed = time.monotonic() - start
    peak = max(peak, _rss())
    growth_mb = (peak - baseline) / 1024 / 1024
    streamed = received / 1024 / 1024
    print(f"\n[proxy load] {streamed:.0f} MB streamed in {elapsed:.1f} s; peak memory growth {growth_mb:.1f} MB")
    findings.leak_if(growth_mb > 8, f"memory grew {growth_mb:.1f} MB")
    assert response.code == 200
    assert received >= total - 64 * 1024
    assert growth_mb < 8
