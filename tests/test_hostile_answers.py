"""Upstream answers that are broken or hostile, on a real Jupyter server (tests/hostile_upstream.py).

* A non-streamed answer that breaks off before its promised length is a 502 that says so,
  not a 200 with none or half of the JSON; one too long to hold, broken after part of it
  went out, ends as a broken transfer, never as a complete one.
* Model names with control characters, line separators or bidi controls, found on a local
  server, are dropped: the browser is offered only plain names.
"""

from __future__ import annotations

import json

import pytest
from hostile_upstream import PLAIN_NAMES, UNSHOWN_NAMES, serve

from jupyterlab_notebook_agent import proxy_handler
from jupyterlab_notebook_agent.discovery import parse_model_list

CHAT = "notebook-agent/v1/chat/completions"
MODELS = "notebook-agent/v1/models"
CONFIG = "notebook-agent/config"
PROVIDER = "X-Notebook-Agent-Provider"
KEY = "sk-hostile-answers-0123456789-stays-here"

pytestmark = pytest.mark.fault_category("upstream answers")


@pytest.fixture
def hostile():
    server, echo = serve()
    echo.get_mode = "names"
    yield server.server_port, echo
    server.shutdown()


@pytest.fixture
def discover(request) -> bool:
    return getattr(request, "param", False)


@pytest.fixture
def jp_server_config(hostile, discover, monkeypatch):
    for name in ("OPENAI_BASE_URL", "OPENAI_API_KEY", "AZURE_OPENAI_API_KEY", "NOTEBOOK_AGENT_MODEL"):
        monkeypatch.delenv(name, raising=False)
    port, _ = hostile
    agent: dict = {"discover_local_servers": discover, "discover_ports": [port]}
    if not discover:
        agent["providers"] = {"hostile": {"base_url": f"http://127.0.0.1:{port}/v1", "api_key": KEY}}
    return {"ServerApp": {"jpserver_extensions": {"jupyterlab_notebook_agent": True}}, "NotebookAgent": agent}


async def chat(jp_fetch, model: str, **extra):
    body = json.dumps({"model": model, "messages": [{"role": "user", "content": "hi"}], **extra})
    return await jp_fetch(CHAT, method="POST", body=body, headers={PROVIDER: "hostile"}, raise_error=False)


@pytest.mark.parametrize("sent", [0, 1, 40, 150])
async def test_a_non_streamed_answer_that_breaks_off_is_a_502_with_its_cause(jp_fetch, sent, findings):
    with findings.case(f"cut after {sent} bytes"):
        response = await chat(jp_fetch, f"cut:{sent}")
        assert response.code == 502, (response.code, response.body[:300])
        error = json.loads(response.body)["error"]
        assert error["type"] == "upstream_broken"
        assert f"broke off its answer after {sent} bytes" in error["message"]
        assert "nothing of it was passed on" in error["message"]
        assert response.headers["X-Should-Retry"] == "false"
        assert KEY not in response.body.decode()


async def test_a_broken_model_list_is_a_502_and_whole_answers_pass(jp_fetch, hostile):
    _, echo = hostile
    echo.get_mode = "cut:30"
    response = await jp_fetch(MODELS, headers={PROVIDER: "hostile"}, raise_error=False)
    assert response.code == 502 and json.loads(response.body)["error"]["type"] == "upstream_broken"
    # Whole answers, held until they are, pass as they came.
    echo.get_mode = "json"
    response = await jp_fetch(MODELS, headers={PROVIDER: "hostile"}, raise_error=False)
    assert response.code == 200 and json.loads(response.body)["id"] == "chatcmpl-echo"
    response = await chat(jp_fetch, "json")
    assert response.code == 200 and json.loads(response.body)["choices"][0]["index"] == 1
    assert KEY not in response.body.decode()


async def test_a_long_answer_that_breaks_after_part_went_out_is_a_broken_transfer(jp_fetch, monkeypatch):
    monkeypatch.setattr(proxy_handler, "MAX_HELD_ANSWER", 64)  # hold less than the 150 bytes that come
    try:
        response = await chat(jp_fetch, "cut:150")
    except Exception as error:  # noqa: BLE001 - the client's own error for a transfer cut short
        assert "closed" in str(error).lower() or getattr(error, "code", None) == 599, repr(error)
    else:
        raise AssertionError(f"a broken answer arrived as complete: {response.code} {response.body[:200]!r}")


@pytest.mark.parametrize("discover", [True], indirect=True)
async def test_found_model_names_with_control_characters_are_dropped(jp_fetch, hostile):
    port, _ = hostile
    config = json.loads((await jp_fetch(CONFIG)).body)
    [found] = config["discovery"]["servers"]
    assert found["port"] == port
    assert found["models"] == list(PLAIN_NAMES)
    [provider] = config["providers"]
    assert provider["default_model"] == PLAIN_NAMES[0]
    text = json.dumps(config, ensure_ascii=False)
    assert not any(name in text for name in UNSHOWN_NAMES)


def test_a_list_of_only_unshown_names_offers_no_model():
    from jupyterlab_notebook_agent.discovery import plain_name

    body = json.dumps({"data": [{"id": name} for name in UNSHOWN_NAMES]}).encode()
    assert parse_model_list(body) == ([], [])
    assert all(plain_name(name) for name in PLAIN_NAMES)
    assert not any(plain_name(name) for name in UNSHOWN_NAMES)
