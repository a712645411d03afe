"""The outbound filter against JSON's short escapes and secrets with line breaks, on a real server.

A key with a slash (common in base64 tokens) that an upstream echoes PHP-style as ``sk-proj\\/…``,
with no ``\\u`` escape anywhere in the answer, and secrets that span lines (a PEM key and JSON
credentials in an MCP server's ``env``), echoed with their line breaks as ``\\n`` or ``\\r\\n``, with
``\\"`` and as a JSON string of a JSON string (a tool result holding JSON): none of it may reach the
browser, in a JSON answer or a stream however it is chunked, and the answers must still parse.
"""

from __future__ import annotations

import json

import pytest
from hostile_upstream import serve
from leak_check import leaked, response_text

CHAT = "notebook-agent/v1/chat/completions"
PROVIDER = "X-Notebook-Agent-Provider"

SLASH_KEY = "sk-proj/Abc+def/0123456789/must-stay-on-the-server"
PEM = (
    "-----BEGIN PRIVATE KEY-----\n"
    "MIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcwggSjAgEAAoIBAQC7/pem+line/0123\n"
    "Zm9vYmFyYmF6cXV4MDEyMzQ1Njc4OWFiY2RlZmdoaWprbG1ub3Bx/rstuvwx==\n"
    "-----END PRIVATE KEY-----"
)
CREDENTIALS = json.dumps(
    {"type": "service_account", "client_email": "bot@x.iam", "private_key": "-----BEGIN-----\nQUJD/credential+xyz\n"},
    indent=2,
)
QUOTED = 'pass"word/with-quote-0123456789'
SECRETS = (SLASH_KEY, PEM, CREDENTIALS, QUOTED)
#: Pieces of the multi-line secrets that are secret on their own (a leak of any line counts).
LINES = ("MIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcwggSjAgEAAoIBAQC7", "Zm9vYmFyYmF6cXV4MDEy", "QUJD/credential+xyz")

pytestmark = pytest.mark.fault_category("outbound filter")


@pytest.fixture
def hostile():
    server, echo = serve()
    echo.extra = [PEM, CREDENTIALS, QUOTED]
    yield f"http://127.0.0.1:{server.server_port}", echo
    server.shutdown()


@pytest.fixture
def jp_server_config(hostile, monkeypatch):
    for name in ("OPENAI_BASE_URL", "OPENAI_API_KEY", "AZURE_OPENAI_API_KEY"):
        monkeypatch.delenv(name, raising=False)
    url, _ = hostile
    env = {"PEM_KEY": PEM, "GOOGLE_CREDENTIALS": CREDENTIALS, "PASSWORD": QUOTED}
    return {
        "ServerApp": {"jpserver_extensions": {"jupyterlab_notebook_agent": True}},
        "NotebookAgent": {
            "providers": {"hostile": {"base_url": f"{url}/v1", "api_key": SLASH_KEY}},
            "default_provider": "hostile",
            "mcp_servers": {"tools": {"command": "python", "args": ["-c", "pass"], "env": env}},
        },
    }


def found_in(text: str) -> list[str]:
    """The secrets (or lines of them) in ``text``, as it is or with JSON strings decoded once or twice."""
    forms = [text]
    for _ in range(2):
        try:
            forms.append(json.loads(f'"{forms[-1]}"'))
        except ValueError:
            break
    found = leaked(text, SECRETS)
    for form in forms:
        for secret in (*SECRETS, *LINES):
            if secret in form or secret.replace("\n", "\r\n") in form:
                found.append(secret)
    return sorted(set(found))


async def chat(jp_fetch, model: str, **extra):
    body = json.dumps({"model": model, "messages": [{"role": "user", "content": "hi"}], **extra})
    return await jp_fetch(CHAT, method="POST", body=body, headers={PROVIDER: "hostile"}, raise_error=False)


async def test_short_escapes_and_multi_line_secrets_are_redacted_in_a_json_answer(jp_fetch, findings):
    with findings.case("short escapes, JSON answer"):
        response = await chat(jp_fetch, "escapes")
        assert response.code == 200
        text = response_text(response)
        assert "\\u" not in text  # nothing but short escapes: the case the filter skipped
        content = json.loads(response.body)["choices"][0]["message"]["content"]
        found = found_in(text) + found_in(content)
        findings.leak_if(bool(found), f"short escapes: {found}")
        assert not found
        assert content.count("[redacted]") == 5 * len(SECRETS)


@pytest.mark.parametrize("chunk", [1, 5, 64, 1 << 20])
async def test_short_escapes_and_multi_line_secrets_are_redacted_in_streams(jp_fetch, findings, chunk):
    with findings.case(f"short escapes, SSE in {chunk}-byte chunks"):
        response = await chat(jp_fetch, f"sse-escapes:{chunk}", stream=True)
        assert response.code == 200
        text = response.body.decode()
        deltas = []
        for block in text.split("\n\n"):
            data = "".join(line[6:] for line in block.split("\n") if line.startswith("data: "))
            if data and data != "[DONE]":
                deltas.append(json.loads(data)["choices"][0]["delta"]["content"])
        found = found_in(text) + [s for d in deltas for s in found_in(d)]
        findings.leak_if(bool(found), f"short escapes in a stream: {found}")
        assert not found
        assert len(deltas) == 5 * len(SECRETS) and all(d.strip('"') == "[redacted]" for d in deltas)
