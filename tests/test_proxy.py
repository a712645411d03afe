"""The model proxy, against a real Jupyter server and the scripted model server over HTTP."""

from __future__ import annotations

import json
import time

import pytest
from conftest import SECRET_KEY
from tornado.httpclient import AsyncHTTPClient, HTTPClientError, HTTPRequest

CHAT = "notebook-agent/v1/chat/completions"


def chat_body(**extra) -> str:
    return json.dumps({"messages": [{"role": "user", "content": "hi"}], "stream": True, **extra})


async def post_chat(jp_fetch, headers=None, **extra):
    return await jp_fetch(CHAT, method="POST", body=chat_body(**extra), headers=headers or {}, raise_error=False)


async def test_streams_chunks_as_they_arrive(jp_fetch, jp_http_port, jp_base_url, jp_auth_header, configured):
    _, script = configured
    script.load([{"content": "one two three four five six", "chunk_size": 4, "delay": 0.15}])
    arrivals: list[tuple[float, bytes]] = []
    start = time.monotonic()
    request = HTTPRequest(
        f"http://localhost:{jp_http_port}{jp_base_url}{CHAT}",
        method="POST",
        body=chat_body(),
        headers=jp_auth_header,
        streaming_callback=lambda chunk: arrivals.append((time.monotonic() - start, chunk)),
    )
    response = await AsyncHTTPClient().fetch(request)
    total = time.monotonic() - start
    assert response.code == 200
    assert response.headers["Content-Type"].startswith("text/event-stream")
    body = b"".join(chunk for _, chunk in arrivals).decode()
    assert body.rstrip().endswith("data: [DONE]")
    deltas = [
        json.loads(line[6:])["choices"][0]["delta"].get("content", "")
        for line in body.splitlines()
        if line.startswith("data: {") and json.loads(line[6:])["choices"]
    ]
    assert "".join(deltas) == "one two three four five six"
    # Unbuffered: the first bytes reached the client long before the stream ended.
    assert len(arrivals) > 3
    assert arrivals[0][0] < total - 0.6


async def test_adds_key_and_default_model_on_the_server(jp_fetch, configured):
    _, script = configured
    script.load([{"content": "ok"}])
    response = await post_chat(jp_fetch)
    assert response.code == 200
    [received] = script.requests
    assert received["headers"]["authorization"] == f"Bearer {SECRET_KEY}"
    assert received["body"]["model"] == "scripted-model"
    assert received["body"]["messages"] == [{"role": "user", "content": "hi"}]


async def test_browser_never_sees_the_key(jp_fetch, configured):
    _, script = configured
    # Some providers echo the key in their 401 message; the proxy must scrub it.
    script.load([{"status": 401, "error": {"message": f"Incorrect API key provided: {SECRET_KEY}"}}])
    response = await post_chat(jp_fetch)
    assert response.code == 401
    assert SECRET_KEY not in response.body.decode()
    assert all(SECRET_KEY not in value for value in response.headers.values())
    assert "Incorrect API key" in json.loads(response.body)["error"]["message"]
    config = await jp_fetch("notebook-agent", "config")
    payload = json.loads(config.body)
    assert SECRET_KEY not in config.body.decode()
    assert payload["has_key"] is True and payload["configured"] is True


async def test_models_route_forwards(jp_fetch, configured):
    response = await jp_fetch("notebook-agent", "v1", "models")
    assert [m["id"] for m in json.loads(response.body)["data"]] == ["scripted-model"]


async def test_refuses_unauthenticated_requests(jp_fetch, configured):
    _, script = configured
    script.load([{"content": "should not be played"}])
    with pytest.raises(HTTPClientError) as error:
        await jp_fetch(CHAT, method="POST", body=chat_body(), headers={"Authorization": ""})
    assert error.value.code == 403
    assert script.requests == []


async def test_refuses_cookie_requests_without_xsrf(jp_fetch, jp_http_port, jp_base_url, jp_auth_header, configured):
    """A logged-in browser session still needs the XSRF token: cross-site forms cannot call the proxy."""
    _, script = configured
    script.load([{"content": "only for the real page"}])
    base = f"http://localhost:{jp_http_port}{jp_base_url}"
    client = AsyncHTTPClient()
    login_page = await client.fetch(base + "login", raise_error=False)
    xsrf = _cookie(login_page, "_xsrf")
    login = await client.fetch(
        base + "login",
        method="POST",
        body=f"password={jp_auth_header['Authorization'].split()[1]}&_xsrf={xsrf}",
        headers={"Cookie": f"_xsrf={xsrf}"},
        follow_redirects=False,
        raise_error=False,
    )
    session_cookie = "; ".join(
        c.split(";")[0] for c in login.headers.get_list("Set-Cookie") if c.startswith("username-")
    )
    assert session_cookie, "logging in with the token should set a session cookie"
    cookies = f"{session_cookie}; _xsrf={xsrf}"
    forged = await client.fetch(
        base + CHAT, method="POST", body=chat_body(), headers={"Cookie": cookies}, raise_error=False
    )
    assert forged.code == 403
    assert script.requests == []
    genuine = await client.fetch(
        base + CHAT,
        method="POST",
        body=chat_body(),
        headers={"Cookie": cookies, "X-XSRFToken": xsrf},
        raise_error=False,
    )
    assert genuine.code == 200
    assert len(script.requests) == 1


async def test_refuses_endpoints_not_configured_on_the_server(jp_fetch, configured):
    _, script = configured
    script.load([{"content": "nope"}])
    response = await post_chat(jp_fetch, headers={"X-Notebook-Agent-Base-Url": "http://attacker.invalid/v1"})
    assert response.code == 403
    assert "not configured to forward" in json.loads(response.body)["error"]["message"]
    assert script.requests == []


async def test_selecting_the_configured_endpoint_explicitly_is_allowed(jp_fetch, configured):
    url, script = configured
    script.load([{"content": "fine"}])
    response = await post_chat(jp_fetch, headers={"X-Notebook-Agent-Base-Url": url + "/"})
    assert response.code == 200
    assert script.requests[0]["headers"]["authorization"] == f"Bearer {SECRET_KEY}"


async def test_no_endpoint_configured_says_how_to_fix_it(jp_fetch, monkeypatch):
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)
    response = await post_chat(jp_fetch)
    assert response.code == 503
    error = json.loads(response.body)["error"]
    assert error["type"] == "not_configured"
    assert "OPENAI_BASE_URL" in error["message"]


async def test_unreachable_endpoint_says_so(jp_fetch, monkeypatch, closed_port):
    monkeypatch.setenv("OPENAI_BASE_URL", f"http://127.0.0.1:{closed_port}/v1")
    monkeypatch.setenv("OPENAI_API_KEY", SECRET_KEY)
    response = await post_chat(jp_fetch)
    assert response.code == 502
    error = json.loads(response.body)["error"]
    assert error["type"] == "endpoint_unreachable"
    assert f"127.0.0.1:{closed_port}" in error["message"]
    assert SECRET_KEY not in response.body.decode()


def _cookie(response, name: str) -> str:
    for header in response.headers.get_list("Set-Cookie"):
        key, _, rest = header.partition("=")
        if key == name:
            return rest.split(";")[0]
    raise AssertionError(f"no {name} cookie in {response.headers.get_list('Set-Cookie')}")
