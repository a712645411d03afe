"""The proxy under a JupyterHub-like base_url (``/user/<name>/``).

On a hub every user's server lives under its own prefix on one origin: the
routes must exist under the prefix only, need that server's authentication,
and refuse cookie-only requests without the XSRF token there too.
"""

from __future__ import annotations

import json

import pytest
from conftest import SECRET_KEY
from test_proxy_security import browser_session
from tornado.httpclient import AsyncHTTPClient

CHAT = "notebook-agent/v1/chat/completions"

pytestmark = pytest.mark.fault_category("proxy security")


@pytest.fixture
def jp_base_url() -> str:
    return "/user/alice/"


def chat_body() -> str:
    return json.dumps({"messages": [{"role": "user", "content": "hi"}], "stream": True})


async def test_routes_live_under_the_users_prefix_only(jp_fetch, jp_http_port, jp_auth_header, configured, findings):
    _, script = configured
    root = f"http://localhost:{jp_http_port}"
    client = AsyncHTTPClient()
    with findings.case("chat under /user/alice/"):
        script.load([{"content": "hello alice"}])
        response = await jp_fetch(CHAT, method="POST", body=chat_body())
        assert "/user/alice/notebook-agent/v1/chat/completions" in response.request.url
        assert response.code == 200
        text = "".join(
            json.loads(line[6:])["choices"][0]["delta"].get("content", "")
            for line in response.body.decode().splitlines()
            if line.startswith("data: {") and json.loads(line[6:])["choices"]
        )
        assert text == "hello alice"
        assert SECRET_KEY not in response.body.decode()
    for path in (
        "/user/alice/notebook-agent/config",
        "/user/alice/notebook-agent/v1/models",
    ):
        with findings.case(f"GET {path}"):
            answer = await client.fetch(root + path, headers=jp_auth_header, raise_error=False)
            findings.leak_if(SECRET_KEY in answer.body.decode(), "the key in a response")
            assert answer.code == 200
    for path in (
        "/notebook-agent/v1/chat/completions",
        "/user/bob/notebook-agent/v1/chat/completions",
        "/user/notebook-agent/v1/chat/completions",
        "/user/alice/../bob/notebook-agent/v1/chat/completions",
    ):
        with findings.case(f"nothing at {path}"):
            script.load([{"content": "must not be played"}])
            answer = await client.fetch(
                root + path, method="POST", body=chat_body(), headers=jp_auth_header, raise_error=False
            )
            findings.leak_if(bool(script.requests), f"forwarded from {path}")
            assert answer.code == 404, path
            assert script.requests == []


async def test_authentication_and_xsrf_under_the_prefix(jp_fetch, jp_http_port, jp_auth_header, configured, findings):
    _, script = configured
    script.load([{"content": "only for alice's page"}])
    base = f"http://localhost:{jp_http_port}/user/alice/"
    client = AsyncHTTPClient()
    with findings.case("unauthenticated under the prefix"):
        answer = await client.fetch(base + CHAT, method="POST", body=chat_body(), raise_error=False)
        findings.leak_if(bool(script.requests), "forwarded without authentication")
        assert answer.code == 403
    cookies, xsrf = await browser_session(base, jp_auth_header)
    with findings.case("session cookie without the XSRF token"):
        forged = await client.fetch(
            base + CHAT, method="POST", body=chat_body(), headers={"Cookie": cookies}, raise_error=False
        )
        findings.leak_if(bool(script.requests), "forwarded without the XSRF token")
        assert forged.code == 403
        assert script.requests == []
    with findings.case("session cookie with the XSRF token"):
        genuine = await client.fetch(
            base + CHAT,
            method="POST",
            body=chat_body(),
            headers={"Cookie": cookies, "X-XSRFToken": xsrf},
            raise_error=False,
        )
        assert genuine.code == 200
        assert len(script.requests) == 1
