"""Secrets in nested escapes, end to end on a real server (issue #35, D1).

The secrets are an MCP server's ``env`` values (a PEM key, a value with a tab, a non-ASCII one) and
the provider's key; none holds a backslash (a secret with one made the old filter decode ``\\\\`` and
hid the fault). Each filter gets them as a tool, a cell or a model writes them: a tool returning
``json.dumps({"value": os.environ["PEM_KEY"]})`` or its ``repr`` (``POST mcp/call``), a cell printing
them so (whole, and in two writes a pause apart: two stream messages the notebook joins), a model
answering them (JSON and SSE), and a request whose tool message holds them (what the model receives).
What comes out is read back with Python's parsers at every depth (``test_escape_nesting.leaks``).
"""

from __future__ import annotations

import json
import sys
import uuid

import pytest
from hostile_upstream import NESTED, serve
from jupyter_client.session import Session
from test_escape_nesting import NON_ASCII, PEM, TAB, leaks
from test_kernel_redaction import V1, _pieces, run
from test_mcp import SERVER

CHAT = "notebook-agent/v1/chat/completions"
CALL = "notebook-agent/mcp/call"
KEY = "sk-nested-escapes-0123456789"
ENV = {"PEM_KEY": PEM, "TAB_SECRET": TAB, "NON_ASCII_SECRET": NON_ASCII}
FORMS = ("raw", "json", "json-twice", "repr", "repr-of-json")

pytestmark = pytest.mark.fault_category("outbound filter")


@pytest.fixture
def hostile():
    server, echo = serve()
    echo.extra = list(ENV.values())
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
            "mcp_servers": {"envtool": {"command": sys.executable, "args": [SERVER], "env": ENV, "timeout": 20}},
        },
    }


def no_leak(findings, data: bytes, what: str) -> None:
    found = leaks(data)
    findings.leak_if(bool(found), f"{what}: {found}")
    assert not found, f"{what} leaked {found}: {data[:2000]!r}"


async def test_an_mcp_tool_returning_a_secret_in_nested_escapes_is_redacted(jp_fetch, findings):
    """The issue's case: ``json.dumps({"value": os.environ["PEM_KEY"]})`` came back with the PEM as ``\\\\n``."""
    for name in ENV:
        for form in FORMS:
            with findings.case(f"mcp/call: {name} as {form}"):
                body = json.dumps({"name": "envtool__env_value", "arguments": {"name": name, "form": form}})
                response = await jp_fetch(CALL, method="POST", body=body, raise_error=False)
                assert response.code == 200, response.body
                no_leak(findings, response.body, f"{name} as {form}")
                [part] = json.loads(response.body)["content"]
                assert "[redacted]" in part["text"], part


@pytest.mark.parametrize("mode", ["nested", "sse-nested:1", "sse-nested:64", f"sse-nested:{1 << 20}"])
async def test_a_model_answering_a_secret_in_nested_escapes_is_redacted(jp_fetch, findings, mode):
    with findings.case(f"answer: {mode}"):
        body = json.dumps({"model": mode, "messages": [{"role": "user", "content": "hi"}], "stream": "sse" in mode})
        response = await jp_fetch(CHAT, method="POST", body=body, raise_error=False)
        assert response.code == 200, response.body
        no_leak(findings, response.body, mode)
        assert response.body.count(b"[redacted]") == len(ENV) * len(NESTED)


async def test_a_tool_message_with_a_secret_in_nested_escapes_reaches_the_model_redacted(jp_fetch, hostile, findings):
    """What the browser sends back of a tool's result (the request filter): the model must not receive it."""
    _, echo = hostile
    for name, secret in ENV.items():
        for write in NESTED:
            with findings.case(f"request: {name} as {write(name)[:20]}"):
                messages = [
                    {"role": "user", "content": "read the key"},
                    {"role": "assistant", "tool_calls": [{"id": "c1", "type": "function", "function": {"name": "t"}}]},
                    {"role": "tool", "tool_call_id": "c1", "content": write(secret)},
                ]
                body = json.dumps({"model": "json", "messages": messages})
                response = await jp_fetch(CHAT, method="POST", body=body, raise_error=False)
                assert response.code == 200, response.body
                received = json.dumps(echo.received["body"]).encode()
                no_leak(findings, received, f"the request's tool message ({name})")
                assert echo.received["body"]["messages"][2]["content"].count("[redacted]") == 1


#: The cell's own writing of each form (its code holds no secret: it is built from pieces at run time).
KERNEL_FORMS = {
    "json": "json.dumps({'value': s})",
    "json-twice": "json.dumps(json.dumps({'value': s}))",
    "repr": "repr(s)",
    "repr-of-json": "repr(json.dumps({'value': s}))",
    "repr-of-bytes": "repr(s.encode())",
    "a config file holding it": "'c.NotebookAgent.secrets = [' + repr(s) + ']'",
}
#: The same, here, for where to cut a form in two.
LOCAL_FORMS = {
    "json": lambda s: json.dumps({"value": s}),
    "repr": repr,
    "repr-of-json": lambda s: repr(json.dumps({"value": s})),
}


def _streams(messages: list[dict]) -> str:
    return "".join(m["content"]["text"] for m in messages if m["header"]["msg_type"] == "stream")


def cuts(text: str) -> list[int]:
    """Places to cut ``text`` in two: inside the secret's first line, at its first escape, past it."""
    value = text.find('value": "')
    first = value + len('value": "') if value >= 0 else 1  # JSON text, or a repr
    escape = text.index("\\", first) if "\\" in text[first:] else first + 7
    return sorted({first + 3, escape, escape + 1, min(escape + 12, len(text) - 2)})


@pytest.mark.parametrize("protocol", [None, V1], ids=["json-protocol", "v1-protocol"])
async def test_a_cell_printing_a_secret_in_nested_escapes_is_redacted(jp_fetch, jp_ws_fetch, findings, protocol):
    """Whole, and in two writes a pause apart (two stream messages, which the notebook joins)."""
    response = await jp_fetch("api", "kernels", method="POST", body=json.dumps({"name": "python3"}))
    kernel_id = json.loads(response.body)["id"]
    params = {"session_id": uuid.uuid4().hex}
    ws = await jp_ws_fetch(
        "api", "kernels", kernel_id, "channels", params=params, subprotocols=[V1] if protocol else None
    )
    session, name = Session(), protocol or "json"
    try:
        await run(ws, session, protocol, "import json, sys, time")
        for variable, secret in ENV.items():
            await run(ws, session, protocol, f"s = {_pieces(secret)}")
            for form, code in KERNEL_FORMS.items():
                with findings.case(f"{name}: {variable} printed as {form}"):
                    text, messages = await run(ws, session, protocol, f"print({code})")
                    no_leak(findings, text.encode(), f"{variable} printed as {form}")
                    no_leak(findings, _streams(messages).encode(), f"{variable} printed as {form}")
                    assert "[redacted]" in _streams(messages)
            for form, write in LOCAL_FORMS.items():
                for cut in cuts(write(secret)):
                    with findings.case(f"{name}: {variable} printed as {form} in two at {cut}"):
                        code = (
                            f"t = {KERNEL_FORMS[form]}\n"
                            f"sys.stdout.write(t[:{cut}]); sys.stdout.flush(); time.sleep(0.4)\nprint(t[{cut}:])"
                        )
                        text, messages = await run(ws, session, protocol, code)
                        joined = _streams(messages)
                        no_leak(findings, text.encode(), f"{variable} as {form} cut at {cut}")
                        no_leak(findings, joined.encode(), f"{variable} as {form} cut at {cut}, joined")
                        assert "[redacted]" in joined, joined
    finally:
        ws.close()
        await jp_fetch("api", "kernels", kernel_id, method="DELETE")
