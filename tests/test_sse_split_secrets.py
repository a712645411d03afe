"""A key split across SSE events, on both streamed routes (issue #35, D4).

The browser joins a stream's deltas (the chat view its content, inline completion its ghost text, the
agent a tool call's arguments), so a key an upstream streams in pieces, two, three, ten or one character
per event, is whole on the screen though no event holds it. A real server proxies to
``hostile_upstream.py``'s ``split`` modes, which stream ``before <key> after`` so cut, also with every
character ``\\u``-escaped, with every key escaped (``"\\u0063ontent"``: the outside re-check's
find), in a tool call's arguments, and from two choices at once; what the browser
joins per choice and field must hold ``[redacted]`` where the key was, and everything around it as sent.
"""

from __future__ import annotations

import json

import pytest
from hostile_upstream import serve
from leak_check import leaked

ROUTES = {"chat": "notebook-agent/v1/chat/completions", "completions": "notebook-agent/v1/completions"}
PROVIDER = "X-Notebook-Agent-Provider"
KEY = "sk-split-0123456789-abcdefghijklmnop"
PIECES = [2, 3, 10, len(KEY)]

pytestmark = pytest.mark.fault_category("outbound filter")


@pytest.fixture
def hostile():
    server, echo = serve()
    yield f"http://127.0.0.1:{server.server_port}", echo
    server.shutdown()


@pytest.fixture
def jp_server_config(hostile, monkeypatch):
    for name in ("OPENAI_BASE_URL", "OPENAI_API_KEY", "AZURE_OPENAI_API_KEY"):
        monkeypatch.delenv(name, raising=False)
    url, _ = hostile
    return {
        "ServerApp": {"jpserver_extensions": {"jupyterlab_notebook_agent": True}},
        "NotebookAgent": {
            "discover_local_servers": False,
            "providers": {"hostile": {"base_url": f"{url}/v1", "api_key": KEY}},
            "default_provider": "hostile",
        },
    }


async def stream(jp_fetch, route: str, mode: str) -> bytes:
    if route == "chat":
        body = {"model": mode, "messages": [{"role": "user", "content": "hi"}], "stream": True}
    else:
        body = {"model": mode, "prompt": "def f(", "max_tokens": 64, "stream": True}
    response = await jp_fetch(
        ROUTES[route], method="POST", body=json.dumps(body), headers={PROVIDER: "hostile"}, raise_error=False
    )
    assert response.code == 200, response.body
    return response.body


def joined(body: bytes) -> dict[tuple[int, str], str]:
    """What a client joins: per choice and field, the deltas' text in order (every event must parse)."""
    texts: dict[tuple[int, str], str] = {}
    events = [b for b in body.decode().split("\n\n") if b.strip()]
    assert events[-1] == "data: [DONE]", events[-3:]
    for block in events[:-1]:
        data = "".join(line[6:] for line in block.split("\n") if line.startswith("data: "))
        for choice in json.loads(data)["choices"]:
            index = choice["index"]
            parts = {"text": choice.get("text")}
            delta = choice.get("delta") or {}
            parts["content"] = delta.get("content")
            for call in delta.get("tool_calls") or []:
                parts[f"tool_calls[{call['index']}].arguments"] = (call.get("function") or {}).get("arguments")
            for field, text in parts.items():
                if text:
                    texts[(index, field)] = texts.get((index, field), "") + text
    return texts


def check(findings, body: bytes, what: str, expected: dict[tuple[int, str], str]) -> None:
    found = leaked(body.decode(), [KEY])
    texts = joined(body)
    found += [f"joined {key}" for key, text in texts.items() if leaked(text, [KEY])]
    findings.leak_if(bool(found), f"{what}: {found}")
    assert not found, (what, texts)
    assert texts == expected, what


@pytest.mark.parametrize("route", ROUTES)
@pytest.mark.parametrize("pieces", PIECES)
async def test_a_key_split_across_deltas_is_redacted(jp_fetch, findings, route, pieces):
    field = "text" if route == "completions" else "content"
    for kind in ("split", "split-escaped", "split-keys"):
        with findings.case(f"{route}: {kind} in {pieces}"):
            body = await stream(jp_fetch, route, f"{kind}:{pieces}")
            check(findings, body, f"{route} {kind}:{pieces}", {(0, field): "before [redacted] after"})


@pytest.mark.parametrize("route", ROUTES)
async def test_a_key_split_across_two_choices_is_redacted_in_each(jp_fetch, findings, route):
    field = "text" if route == "completions" else "content"
    with findings.case(f"{route}: two choices"):
        body = await stream(jp_fetch, route, "split-choices:3")
        expected = {(0, field): "before [redacted] after", (1, field): "before [redacted] after"}
        check(findings, body, f"{route} two choices", expected)


@pytest.mark.parametrize("pieces", [3, len(KEY)])
async def test_a_key_split_across_tool_call_arguments_is_redacted(jp_fetch, findings, pieces):
    with findings.case(f"tool call arguments in {pieces}"):
        body = await stream(jp_fetch, "chat", f"split-tool:{pieces}")
        check(findings, body, "tool call", {(0, "tool_calls[0].arguments"): "before [redacted] after"})


@pytest.mark.parametrize("route", ROUTES)
@pytest.mark.parametrize(
    "content_type", ["Text/Event-Stream", "TEXT/EVENT-STREAM; charset=utf-8", "application/json", "text/plain", "none"]
)
async def test_a_stream_under_any_content_type_is_looked_at_across_events(jp_fetch, findings, route, content_type):
    """A client that asked for a stream reads SSE whatever the Content-Type says (openai-node does; media types are
    case-insensitive anyway): the look across events does not depend on the header (the outside re-check's find)."""
    field = "text" if route == "completions" else "content"
    with findings.case(f"{route}: a key in 3 deltas as {content_type}"):
        body = await stream(jp_fetch, route, f"split@{content_type}:3")
        check(findings, body, f"{route} {content_type}", {(0, field): "before [redacted] after"})


@pytest.mark.parametrize("route", ROUTES)
async def test_the_look_across_events_goes_on_after_an_event_too_long_to_hold(jp_fetch, findings, route):
    """An event over the 1 MiB the relay holds whole goes on as it comes; the events after it are still looked at
    (it had switched the look off for the rest of the stream)."""
    field = "text" if route == "completions" else "content"
    with findings.case(f"{route}: a key in 3 deltas after a 1 MiB event"):
        body = await stream(jp_fetch, route, "split-big:3")
        check(findings, body, f"{route} after a long event", {(0, field): "z" * (1 << 20) + "before [redacted] after"})


@pytest.mark.parametrize("route", ROUTES)
async def test_a_key_cut_around_an_event_too_long_to_hold_is_redacted(jp_fetch, findings, route):
    """What the look held goes out before an event too long to hold (here another choice's); the client has it,
    so the key's next piece is looked at after it (it was passed: the client joined the whole key)."""
    field = "text" if route == "completions" else "content"
    with findings.case(f"{route}: a key in 2 deltas around a 2 MiB event"):
        body = await stream(jp_fetch, route, "split-around-big:2")
        texts = joined(body)
        found = [f"joined {key}" for key, text in texts.items() if leaked(text, [KEY])] + leaked(body.decode(), [KEY])
        findings.leak_if(bool(found), f"{route} around a long event: {found}")
        assert not found, texts[(0, field)]
        assert texts[(1, field)] == "z" * (2 << 20)
        first = texts[(0, field)]
        assert first.startswith("before sk-") and first.endswith("[redacted] after"), first
