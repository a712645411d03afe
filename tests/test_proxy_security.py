"""Abuse of the model proxy: what test_proxy.py and test_providers.py do not cover yet.

The proxy must forward only to endpoints configured on the server: not to a host
an upstream redirects to, not to ``file:`` or other schemes, not to internal
addresses (cloud metadata, the Jupyter server itself, other loopback services),
however the URL is spelled; and every route needs authentication, and the XSRF
token when a browser session cookie is all the request has.
"""

from __future__ import annotations

import json

import pytest
from conftest import SECRET_KEY
from scripted_model_server import serve
from tornado.httpclient import AsyncHTTPClient

CHAT = "notebook-agent/v1/chat/completions"
BASE_URL_HEADER = "X-Notebook-Agent-Base-Url"

pytestmark = pytest.mark.fault_category("proxy security")

#: Configured as allowed by a careless admin; never to be forwarded to.
NON_HTTP_ALLOWED = ["file:///etc", "ftp://127.0.0.1/v1", "javascript:alert(1)"]


@pytest.fixture
def jp_server_config(jp_server_config):
    return {**jp_server_config, "NotebookAgent": {"allowed_base_urls": NON_HTTP_ALLOWED}}


def chat_body() -> str:
    return json.dumps({"messages": [{"role": "user", "content": "hi"}], "stream": True})


@pytest.fixture
def elsewhere():
    """Another loopback service: a host the proxy must never be steered to."""
    server, script = serve(0)
    yield f"http://127.0.0.1:{server.server_port}", script
    server.shutdown()


def _no_leak(findings, response, *scripts) -> None:
    text = response.body.decode(errors="replace") + json.dumps(dict(response.headers.get_all()))
    findings.leak_if(SECRET_KEY in text, "the key in a response")
    for script in scripts:
        findings.leak_if(bool(script.requests), "a request forwarded that should have been refused")


REDIRECT_STATUSES = (301, 302, 303, 307, 308)

#: Endpoints a request may name in the base-URL header; none is configured.
#: {jupyter}: this Jupyter server; {elsewhere}: another loopback service; {model}: the configured host.
REFUSED_TARGETS = (
    "file:///etc/passwd",
    "file://localhost/etc/passwd",
    "ftp://127.0.0.1/v1",
    "gopher://127.0.0.1:70/_x",
    "javascript:alert(1)",
    "data:text/plain,hello",
    "//evil.invalid/v1",
    "http://169.254.169.254/latest/meta-data/",
    "http://[fd00:ec2::254]/latest/meta-data/",
    "http://metadata.google.internal/computeMetadata/v1/",
    "{jupyter}api/contents",
    "{jupyter}notebook-agent/v1",
    "{elsewhere}/v1",
    "{model}@{elsewhere_host}/v1",
    "{model}/../../_requests",
    "{model}/v1/../../_script",
    "{model}%2f..%2f_requests",
    "http://0.0.0.0:{jupyter_port}/",
    "http://[::1]:{jupyter_port}/",
    " {elsewhere}/v1",
)


async def test_redirects_are_never_followed(jp_fetch, configured, elsewhere, findings):
    _, script = configured
    other, other_script = elsewhere
    for status in REDIRECT_STATUSES:
        with findings.case(f"redirect {status}"):
            script.load([{"status": status, "headers": {"Location": f"{other}/v1/chat/completions"}}])
            response = await jp_fetch(CHAT, method="POST", body=chat_body(), raise_error=False)
            _no_leak(findings, response, other_script)
            assert response.code == 502
            error = json.loads(response.body)["error"]
            assert error["type"] == "upstream_redirect"
            assert f"{status} to {other}" in error["message"]
            assert "Location" not in response.headers
            assert len(script.requests) == 1
            assert other_script.requests == []


async def test_unconfigured_and_internal_endpoints_are_refused(
    jp_fetch, jp_http_port, jp_base_url, configured, elsewhere, findings
):
    url, script = configured
    other, other_script = elsewhere
    for pattern in REFUSED_TARGETS:
        target = pattern.format(
            jupyter=f"http://127.0.0.1:{jp_http_port}{jp_base_url}",
            jupyter_port=jp_http_port,
            elsewhere=other,
            elsewhere_host=other.split("//", 1)[1],
            model=url.rsplit("/v1", 1)[0],
        )
        with findings.case(target):
            script.load([{"content": "must not be played"}])
            response = await jp_fetch(
                CHAT, method="POST", body=chat_body(), headers={BASE_URL_HEADER: target}, raise_error=False
            )
            _no_leak(findings, response, script, other_script)
            assert response.code == 403, target
            assert json.loads(response.body)["error"]["type"] == "endpoint_not_allowed"
            assert script.requests == [] and other_script.requests == []


async def test_allowed_base_urls_never_admit_other_schemes(jp_fetch, configured, findings):
    """An admin's allowed_base_urls entry that is not http(s) is never forwarded to."""
    for allowed in NON_HTTP_ALLOWED:
        with findings.case(allowed):
            response = await jp_fetch(
                CHAT, method="POST", body=chat_body(), headers={BASE_URL_HEADER: allowed}, raise_error=False
            )
            _no_leak(findings, response, configured[1])
            assert response.code == 403
            assert configured[1].requests == []


#: Every route of the extension, with a request body where it takes one.
ROUTES = (
    ("POST", CHAT, chat_body()),
    ("POST", "notebook-agent/v1/completions", json.dumps({"prompt": "df.", "stream": True})),
    ("GET", "notebook-agent/v1/models", None),
    ("GET", "notebook-agent/config", None),
    ("GET", "notebook-agent/keys/default", None),
    ("PUT", "notebook-agent/keys/default", json.dumps({"api_key": "sk-planted-by-a-cross-site-form"})),
    ("DELETE", "notebook-agent/keys/default", None),
)


async def test_every_route_needs_authentication(jp_fetch, configured, findings):
    _, script = configured
    script.load([{"content": "no"}])
    for method, path, body in ROUTES:
        with findings.case(f"unauthenticated {method} {path}"):
            response = await jp_fetch(path, method=method, body=body, headers={"Authorization": ""}, raise_error=False)
            _no_leak(findings, response, script)
            assert response.code == 403
            assert script.requests == []


async def test_cookie_requests_need_the_xsrf_token_on_every_route(
    jp_fetch, jp_http_port, jp_base_url, jp_auth_header, configured, findings
):
    """A logged-in browser session is not enough for a change: a cross-site form has no XSRF token."""
    _, script = configured
    script.load([{"content": "only for the real page"}])
    base = f"http://localhost:{jp_http_port}{jp_base_url}"
    cookies, _ = await browser_session(base, jp_auth_header)
    for method, path, body in ROUTES:
        if method == "GET":
            continue  # reads change nothing; the same-origin policy keeps their answers from other sites
        with findings.case(f"no XSRF token: {method} {path}"):
            forged = await AsyncHTTPClient().fetch(
                base + path,
                method=method,
                body=body,
                headers={"Cookie": cookies},
                raise_error=False,
                allow_nonstandard_methods=True,
            )
            _no_leak(findings, forged, script)
            assert forged.code == 403
            assert script.requests == []


async def browser_session(base: str, auth_header: dict[str, str]) -> tuple[str, str]:
    """Log in with the token as a browser does; the session cookie and the XSRF token."""
    client = AsyncHTTPClient()
    page = await client.fetch(base + "login", raise_error=False)
    xsrf = next(c.split(";")[0].split("=", 1)[1] for c in page.headers.get_list("Set-Cookie") if c.startswith("_xsrf="))
    login = await client.fetch(
        base + "login",
        method="POST",
        body=f"password={auth_header['Authorization'].split()[1]}&_xsrf={xsrf}",
        headers={"Cookie": f"_xsrf={xsrf}"},
        follow_redirects=False,
        raise_error=False,
    )
    session = "; ".join(c.split(";")[0] for c in login.headers.get_list("Set-Cookie") if c.startswith("username-"))
    assert session, "logging in with the token should set a session cookie"
    return f"{session}; _xsrf={xsrf}", xsrf
