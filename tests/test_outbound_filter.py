"""The outbound filter against a hostile upstream that echoes every secret it receives.

A real Jupyter server proxies to ``hostile_upstream.py``, which sends the key, the profile's
header values and the base URL's query values back in response headers, in JSON and SSE
bodies (split across chunks of 1 to 64 bytes, \\u-escaped, URL-encoded, mixed), in error
bodies and across the 1 MiB cut. Nothing of it may reach the browser, and the answers must
still parse.
"""

from __future__ import annotations

import base64
import json

import pytest
from hostile_upstream import CUT, escaped, serve
from leak_check import leaked, response_text

CHAT = "notebook-agent/v1/chat/completions"
PROVIDER = "X-Notebook-Agent-Provider"

KEY = "sk-hostile-0123456789-must-stay-on-the-server"
ORG = "org-secret-header-0123456789"
QUERY = "query-secret-0123456789"
SHORT = "ab12"  # a short header value: whole tokens only
FLAG = "1"  # reads as a JSON number: only as a whole quoted string
PASSWORD = "url-password-0123456789"
SECRETS = (KEY, ORG, QUERY, SHORT, FLAG)

pytestmark = pytest.mark.fault_category("outbound filter")


@pytest.fixture
def hostile():
    server, echo = serve()
    yield f"http://127.0.0.1:{server.server_port}", echo
    server.shutdown()


@pytest.fixture
def jp_server_config(hostile, closed_port, monkeypatch):
    for name in ("OPENAI_BASE_URL", "OPENAI_API_KEY", "AZURE_OPENAI_API_KEY"):
        monkeypatch.delenv(name, raising=False)
    url, _ = hostile
    providers = {
        "hostile": {
            "base_url": f"{url}/v1?key={QUERY}",
            "api_key": KEY,
            "headers": {"X-Org-Secret": ORG, "X-Short": SHORT, "X-Flag": FLAG},
        },
        "creds": {"base_url": f"http://user:{PASSWORD}@127.0.0.1:{closed_port}/v1"},
        "creds-live": {"base_url": url.replace("http://", f"http://user:{PASSWORD}@") + "/v1", "api_key": KEY},
    }
    return {
        "ServerApp": {"jpserver_extensions": {"jupyterlab_notebook_agent": True}},
        "NotebookAgent": {"providers": providers, "default_provider": "hostile"},
    }


async def chat(jp_fetch, model: str, provider: str = "hostile", **extra):
    body = json.dumps({"model": model, "messages": [{"role": "user", "content": "hi"}], **extra})
    return await jp_fetch(CHAT, method="POST", body=body, headers={PROVIDER: provider}, raise_error=False)


def no_leak(findings, response, what: str) -> None:
    found = leaked(response_text(response), (*SECRETS, PASSWORD))
    findings.leak_if(bool(found), f"{what}: {found}")
    assert not found, f"{what} leaked {found}"


def events(body: bytes) -> list[dict]:
    parsed = []
    for block in body.decode().split("\n\n"):
        data = "".join(line[6:] for line in block.split("\n") if line.startswith("data: "))
        if data and data != "[DONE]":
            parsed.append(json.loads(data))
    return parsed


HEADERS = ("X-Request-Id", "Openai-Processing-Ms", "Retry-After", "Retry-After-Ms", "Content-Type")


async def test_upstream_headers_never_carry_a_secret(jp_fetch, hostile, findings):
    for mode in ("header", "error-header"):
        for name in HEADERS:
            with findings.case(f"{mode}:{name}"):
                response = await chat(jp_fetch, f"{mode}:{name}")
                assert response.code == (200 if mode == "header" else 429)
                no_leak(findings, response, f"{mode}:{name}")
                if name != "Content-Type":
                    assert name not in response.headers  # an invalid value is dropped, not rewritten
                json.loads(response.body)  # the body still parses


async def test_valid_upstream_headers_pass_and_retry_after_is_numeric(jp_fetch, configured, findings):
    _, script = configured
    date = "Wed, 21 Oct 2015 07:28:00 GMT"  # in the past: 0 seconds
    turn = {"status": 429, "error": {"message": "slow down"}, "headers": {"X-Request-Id": "req_7", "Retry-After": date}}
    script.load([turn] * 3)  # retried twice (0 s to wait), then passed on
    with findings.case("valid headers"):
        body = json.dumps({"messages": [], "stream": True})
        response = await jp_fetch(CHAT, method="POST", body=body, headers={PROVIDER: "default"}, raise_error=False)
        assert response.code == 429
        assert response.headers["X-Request-Id"] == "req_7"
        assert response.headers["Retry-After"] == "0"
        assert response.headers["Content-Type"].startswith("application/json")


@pytest.mark.parametrize("value", ["inf", "Infinity", "1e400", "nan"])
async def test_a_retry_after_that_is_no_number_of_seconds_is_dropped(jp_fetch, hostile, findings, value):
    """``float`` reads these; they must neither pass nor break the answer (an overflow was a 500)."""
    for status in (200, 400):
        with findings.case(f"retry-after {value} on {status}"):
            response = await chat(jp_fetch, f"retry-after:{status}:{value}")
            assert response.code == status
            assert "Retry-After" not in response.headers
            json.loads(response.body)


MODELS = "notebook-agent/v1/models"


async def test_model_lists_are_filtered_like_answers(jp_fetch, hostile, findings):
    """``v1/models`` passes upstream headers and bodies too: the same allowlist, the same scrubbing."""
    _, echo = hostile
    for mode in ["json", "error", "error-cut", *(f"{m}:{h}" for m in ("header", "error-header") for h in HEADERS)]:
        echo.get_mode = mode
        with findings.case(f"models {mode}"):
            response = await jp_fetch(MODELS, headers={PROVIDER: "hostile"}, raise_error=False)
            assert response.code == {"json": 200, "error": 401, "error-cut": 400}.get(
                mode, 200 if "error" not in mode else 429
            )
            no_leak(findings, response, f"v1/models {mode}")
            if mode.startswith(("header:", "error-header:")) and not mode.endswith("Content-Type"):
                assert mode.split(":", 1)[1] not in response.headers
            json.loads(response.body)


async def test_json_answers_are_scrubbed_and_still_parse(jp_fetch, hostile, findings):
    with findings.case("json"):
        response = await chat(jp_fetch, "json")
        assert response.code == 200
        no_leak(findings, response, "a 200 JSON answer")
        answer = json.loads(response.body)
        assert answer["choices"][0]["index"] == 1  # the header value "1" is not redacted out of JSON numbers
        assert "[redacted]" in answer["choices"][0]["message"]["content"]


@pytest.mark.parametrize("chunk", [1, 3, 7, 64, 1 << 20])
async def test_streams_are_scrubbed_however_they_are_chunked(jp_fetch, hostile, findings, chunk):
    with findings.case(f"sse:{chunk}"):
        response = await chat(jp_fetch, f"sse:{chunk}", stream=True)
        assert response.code == 200
        no_leak(findings, response, f"an SSE stream in {chunk}-byte chunks")
        got = events(response.body)  # every event still parses
        assert len(got) == 5 * len(SECRETS)
        assert response.body.decode().rstrip().endswith("data: [DONE]")
        assert all(e["choices"][0]["index"] == 0 for e in got)


async def test_error_bodies_are_redacted(jp_fetch, hostile, findings):
    with findings.case("401 quoting the secrets"):
        response = await chat(jp_fetch, "error")
        assert response.code == 401
        no_leak(findings, response, "a 401 body")
        assert "Incorrect API key provided" in json.loads(response.body)["error"]["message"]


async def test_error_bodies_are_redacted_then_cut(jp_fetch, hostile, findings):
    with findings.case("the key across the 1 MiB cut"):
        response = await chat(jp_fetch, "error-cut")
        assert response.code == 400
        body = response.body.decode()
        assert len(response.body) <= CUT
        prefix_kept = any(KEY[:n] in body for n in range(8, len(KEY) + 1))
        findings.leak_if(prefix_kept, "a key prefix kept at the cut")
        assert not prefix_kept
        assert "[redacted]" in body[-40:]


async def test_short_secrets_are_redacted_as_whole_tokens_only(jp_fetch, hostile, findings):
    with findings.case("short"):
        response = await chat(jp_fetch, "short")
        no_leak(findings, response, "short secrets")
        answer = json.loads(response.body)
        content = answer["choices"][0]["message"]["content"]
        assert f"whole [redacted] inside x{SHORT}y" in content  # inside a longer word: not a hit
        assert f"inside x{FLAG}y" in content
        assert answer["quoted"] == ["[redacted]", "[redacted]"]
        assert answer["choices"][0]["index"] == 1


async def test_request_bodies_lose_server_secrets_before_the_upstream(jp_fetch, hostile, findings):
    _, echo = hostile
    printed = f"the cell printed {KEY} and {ORG}; escaped: {escaped(KEY)}"
    body = json.dumps({"model": "json", "messages": [{"role": "tool", "content": printed}]}).replace("\\\\", "\\")
    # And \\u-escaped as text (a cell printed the escapes): JSON escapes each backslash once more.
    body = body.replace('"role": "tool"', f'"name": "{escaped(ORG)}", "role": "tool"'.replace("\\", "\\\\"))
    with findings.case("a key in the request body"):
        response = await jp_fetch(CHAT, method="POST", body=body, headers={PROVIDER: "hostile"}, raise_error=False)
        assert response.code == 200
        message = echo.received["body"]["messages"][0]
        sent = message["content"]
        found = leaked(sent + message["name"], (KEY, ORG))
        findings.leak_if(bool(found), f"forwarded upstream: {found}")
        assert not found
        assert sent.count("[redacted]") == 3 and sent.startswith("the cell printed [redacted]")
        assert message["name"] == "[redacted]"
        # The credentials themselves still travel where they belong: the headers and the query.
        assert echo.received["headers"]["authorization"] == f"Bearer {KEY}"


async def test_a_base_url_query_string_is_kept_after_the_route(jp_fetch, hostile, findings):
    _, echo = hostile
    with findings.case("query after the route"):
        await chat(jp_fetch, "json")
        assert echo.received["path"] == f"/v1/chat/completions?key={QUERY}"


async def test_url_credentials_are_secrets_in_config_messages_and_logs(jp_fetch, hostile, server_log, findings):
    with findings.case("GET config"):
        response = await jp_fetch("notebook-agent", "config")
        no_leak(findings, response, "GET config")
        by_name = {p["name"]: p for p in json.loads(response.body)["providers"]}
        assert by_name["hostile"]["base_url"].endswith("/v1?key=[redacted]")
        assert by_name["creds"]["base_url"].startswith("http://[redacted]@127.0.0.1:")
    with findings.case("502 from a URL with credentials"):
        response = await chat(jp_fetch, "json", provider="creds")
        assert response.code == 502
        no_leak(findings, response, "a 502 message")
        assert "[redacted]@127.0.0.1" in json.loads(response.body)["error"]["message"]
    with findings.case("the log"):
        log = "\n".join(server_log)
        assert "could not reach" in log
        found = leaked(log, (*SECRETS, PASSWORD))
        findings.leak_if(bool(found), f"in the log: {found}")
        assert not found


async def test_url_credentials_are_never_sent_upstream(jp_fetch, hostile, findings):
    """docs/security.md says so, and the warning at load says so: the request line and headers must not carry them."""
    _, echo = hostile
    with findings.case("URL credentials upstream"):
        response = await chat(jp_fetch, "json", provider="creds-live")
        assert response.code == 200
        sent = json.dumps(echo.received)
        basic = base64.b64encode(f"user:{PASSWORD}".encode()).decode()
        findings.leak_if(PASSWORD in sent or basic in sent, "URL credentials sent upstream")
        assert PASSWORD not in sent and basic not in sent
        assert echo.received["headers"]["authorization"] == f"Bearer {KEY}"  # the key the profile names goes
        no_leak(findings, response, "an answer through a URL with credentials")
