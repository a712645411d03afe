"""Every route answers malformed input with a 4xx and a clear message, never a 500.

One shared corpus of bad request bodies (deep nesting, bad UTF-8, NUL raw and escaped, lone
surrogates, NaN, numbers too big, wrong types, empty, truncated) and one of bad path and
query values (NUL, control characters, bad UTF-8, absurd lengths), and one parametrized test
per kind of route, on a real Jupyter server. Nothing malformed reaches the model endpoint.
"""

from __future__ import annotations

import json

import pytest
from tornado.httpclient import AsyncHTTPClient

pytestmark = pytest.mark.fault_category("malformed input")

#: Bad request bodies, shared by every route that takes one.
BAD_BODIES: dict[str, bytes] = {
    "nested arrays 100000 deep": b"[" * 100_000 + b"]" * 100_000,
    "nested objects 50000 deep": b'{"a":' * 50_000 + b"1" + b"}" * 50_000,
    "nested 100000 deep in a field": b'{"api_key": "k", "messages": ' + b"[" * 100_000 + b"]" * 100_000 + b"}",
    "bad UTF-8": b'{"api_key": "\xff\xfe", "title": "\xc3\x28", "messages": []}',
    "a UTF-8 byte order mark": b'\xef\xbb\xbf{"api_key": "sk-x"}',
    "a raw NUL": b'{"api_key": "a\x00b", "messages": []}',
    "NUL escaped in every name": b'{"api_key": "k\\u0000", "model": "m\\u0000", "title": "t\\u0000", "messages": []}',
    "a lone surrogate": b'{"api_key": "\\ud800", "model": "\\ud800", "title": "\\ud800", "messages": []}',
    "NaN": b'{"api_key": NaN, "model": NaN, "updated": NaN, "messages": NaN}',
    "Infinity": b'{"updated": Infinity, "messages": [], "model": -Infinity}',
    "a number too big for a float": b'{"updated": 1e999, "messages": [], "api_key": 1e999}',
    "an array": b"[]",
    "a string": b'"just a string"',
    "a number": b"42",
    "null": b"null",
    "true": b"true",
    "wrong field types": b'{"api_key": 5, "messages": "x", "model": 5, "title": 5, "updated": "x", "stream": "yes"}',
    "messages not objects": b'{"messages": [1, "two", null], "api_key": ["k"], "items": "x"}',
    "empty": b"",
    "whitespace": b"  \n ",
    "truncated": b'{"api_key": "sk-',
    "not JSON": b"api_key=sk-x&title=hello",
}

#: Bodies bad for one route only (elsewhere they may be well-formed), tried there besides the shared ones.
ROUTE_BAD_BODIES: dict[str, dict[str, bytes]] = {
    "notebook-agent/v1/completions": {
        "a lone surrogate in the prompt": b'{"prompt": "def f(\\ud800"}',
        "bad UTF-8 in the prompt": b'{"prompt": "\xc3\x28"}',
        "NaN temperature": b'{"prompt": "x", "temperature": NaN}',
        "a temperature too big for a float": b'{"prompt": "x", "temperature": 1e999}',
        "nested 100000 deep in stream_options": b'{"prompt": "x", "stream_options": '
        + b"[" * 100_000
        + b"]" * 100_000
        + b"}",
        "a token array prompt": b'{"prompt": [1, 2, 3]}',
        "max_tokens too big for a float": b'{"prompt": "x", "max_tokens": 1e999}',
        "max_tokens a huge integer": b'{"prompt": "x", "max_tokens": ' + b"9" * 5000 + b"}",
    },
    "notebook-agent/mcp/call": {
        "a number too big inside arguments": b'{"name": "demo__pid", "arguments": {"x": 1e999}}',
        "a lone surrogate inside arguments": b'{"name": "demo__pid", "arguments": {"x": "\\ud800"}}',
        "NUL in a tool name": b'{"name": "demo__p\\u0000id", "arguments": {}}',
        "bad UTF-8 inside arguments": b'{"name": "demo__pid", "arguments": {"x": "\xc3\x28"}}',
        "arguments not an object": b'{"name": "demo__pid", "arguments": [1]}',
    },
}

#: Bad values for a path segment or a query argument (already percent-encoded).
BAD_VALUES: dict[str, str] = {
    "NUL": "a%00b",
    "a line break": "a%0Ab",
    "other control characters": "%01%1B%7F",
    "bad UTF-8": "%FF%FE",
    "a half UTF-8 character": "%C3",
    "10000 characters": "x" * 10_000,
}


@pytest.fixture
def jp_server_config(jp_server_config, tmp_path, model_server):
    models = tmp_path / "models"
    (models / "tiny").mkdir(parents=True)
    (models / "tiny" / "config.json").write_text("{}")
    # Discovery looks only at the scripted server's port (found when no endpoint is configured).
    port = int(model_server[0].rsplit(":", 1)[1].split("/")[0])
    agent = {"local_models_dir": str(models), "discover_local_servers": True, "discover_ports": [port]}
    return {**jp_server_config, "NotebookAgent": agent}


def clear_message(body: bytes) -> str:
    """The message of an error answer (JSON ``error.message`` or ``message``, else the text)."""
    text = body.decode("utf-8", "replace")
    try:
        answer = json.loads(text)
    except ValueError:
        return text.strip()
    if isinstance(answer, dict):
        error = answer.get("error")
        if isinstance(error, dict) and error.get("message"):
            return str(error["message"])
        if answer.get("message"):
            return str(answer["message"])
    return ""


async def send(base: str, auth: dict, method: str, path: str, body: bytes | None, headers: dict | None = None):
    return await AsyncHTTPClient().fetch(
        base + path,
        method=method,
        body=body,
        headers={**auth, **(headers or {})},
        raise_error=False,
        allow_nonstandard_methods=True,
        request_timeout=60,
    )


@pytest.fixture
def base(jp_fetch, jp_http_port, jp_base_url) -> str:
    """The server's URL (jp_fetch: the server listens only once a test asks for its client)."""
    return f"http://localhost:{jp_http_port}{jp_base_url}"


def check(findings, name: str, response, forwarded: list) -> None:
    findings.leak_if(bool(forwarded), f"{name}: forwarded to the model endpoint")
    assert response.code != 500 and 400 <= response.code < 500, (name, response.code, response.body[:300])
    assert len(clear_message(response.body)) > 10, (name, response.body[:300])
    assert not forwarded, name


#: The routes that take a body.
BODY_ROUTES = [
    ("POST", "notebook-agent/v1/chat/completions"),
    ("POST", "notebook-agent/v1/completions"),
    ("PUT", "notebook-agent/keys/default"),
    ("PUT", "notebook-agent/chats/c1"),
    ("POST", "notebook-agent/mcp/call"),
]


@pytest.mark.parametrize("method,path", BODY_ROUTES, ids=[p for _, p in BODY_ROUTES])
async def test_bad_bodies_are_a_4xx(base, jp_auth_header, configured, findings, method, path):
    _, script = configured
    script.load([{"content": "must not be played"}] * 50)
    for name, body in {**BAD_BODIES, **ROUTE_BAD_BODIES.get(path, {})}.items():
        with findings.case(f"{method} {path}: {name}"):
            response = await send(base, jp_auth_header, method, path, body)
            check(findings, name, response, script.requests)


#: Routes that take a path segment or a query argument: (method, URL with {value}).
VALUE_ROUTES = [
    ("GET", "notebook-agent/keys/{value}"),
    ("DELETE", "notebook-agent/keys/{value}"),
    ("GET", "notebook-agent/chats/{value}"),
    ("DELETE", "notebook-agent/chats/{value}"),
    ("GET", "notebook-agent/chats?notebook={value}"),
    ("GET", "notebook-agent/path-check?path={value}"),
    ("GET", "notebook-agent/models/{value}"),
    ("GET", "notebook-agent/models/tiny/{value}"),
]


@pytest.mark.parametrize("method,url", VALUE_ROUTES, ids=[f"{m} {u}" for m, u in VALUE_ROUTES])
async def test_bad_path_and_query_values_are_a_4xx(base, jp_auth_header, configured, findings, method, url):
    _, script = configured
    for name, value in BAD_VALUES.items():
        with findings.case(f"{method} {url}: {name}"):
            response = await send(base, jp_auth_header, method, url.format(value=value), None)
            check(findings, name, response, script.requests)


async def test_bad_provider_names_are_a_4xx(base, jp_auth_header, configured, findings):
    """GET v1/models and POST chat/completions take their input from the provider header."""
    _, script = configured
    script.load([{"content": "must not be played"}] * 10)
    body = json.dumps({"messages": [{"role": "user", "content": "hi"}]}).encode()
    for name, value in {"10000 characters": "p" * 10_000, "odd characters": "../../x;%00", "spaces": "a b"}.items():
        for method, path in (("GET", "notebook-agent/v1/models"), ("POST", "notebook-agent/v1/chat/completions")):
            with findings.case(f"{method} {path}: provider {name}"):
                headers = {"X-Notebook-Agent-Provider": value}
                response = await send(base, jp_auth_header, method, path, body if method == "POST" else None, headers)
                check(findings, name, response, script.requests)


async def test_config_takes_no_input_and_ignores_what_is_sent(base, jp_auth_header, configured, findings):
    for name, value in BAD_VALUES.items():
        with findings.case(f"GET config?x={name}"):
            response = await send(base, jp_auth_header, "GET", f"notebook-agent/config?x={value}", None)
            assert response.code == 200 and json.loads(response.body)["configured"] is True


async def test_discovery_takes_no_input_and_ignores_what_is_sent(
    base, jp_auth_header, model_server, findings, monkeypatch
):
    """POST notebook-agent/discovery looks again; whatever body comes with it, the answer is the look's."""
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)  # nothing configured: discovery is needed
    url, script = model_server
    for name, body in BAD_BODIES.items():
        with findings.case(f"POST discovery: {name}"):
            response = await send(base, jp_auth_header, "POST", "notebook-agent/discovery", body)
            assert response.code == 200, (name, response.code, response.body[:300])
            [found] = json.loads(response.body)["servers"]
            assert found["base_url"] == url
    for name, value in BAD_VALUES.items():
        with findings.case(f"GET discovery?x={name}"):
            response = await send(base, jp_auth_header, "GET", f"notebook-agent/discovery?x={value}", None)
            assert response.code == 200 and json.loads(response.body)["enabled"] is True
    assert all(r["path"].endswith("/models") for r in script.requests)  # only looked, never chatted
