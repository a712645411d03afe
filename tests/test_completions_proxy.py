"""POST notebook-agent/v1/completions (inline completion), on a real Jupyter server.

The route forwards the legacy completions API (prompt and suffix) through the same proxy
as chat: the same key handling, provider choice, allow-list, default model, redaction of
the request and outbound filter. The scripted model server plays the turns; a second one
stands for an ``allowed_base_urls`` endpoint, and an Azure profile points at the first.
"""

from __future__ import annotations

import json
import time

import pytest
from conftest import SECRET_KEY, assert_upstream_closed_at_once, disconnect_mid_stream
from leak_check import leaked, response_text
from scripted_model_server import serve
from tornado.httpclient import AsyncHTTPClient, HTTPRequest

from jupyterlab_notebook_agent.providers import Provider
from jupyterlab_notebook_agent.proxy_handler import NOT_CONFIGURED
from jupyterlab_notebook_agent.v1_handlers import MAX_COMPLETION_TOKENS

COMPLETIONS = "notebook-agent/v1/completions"
CHAT = "notebook-agent/v1/chat/completions"
PROVIDER = "X-Notebook-Agent-Provider"
BASE_URL = "X-Notebook-Agent-Base-Url"

AZURE_KEY = "azure-completions-key-0123456789abcdef"
SECRETS = (SECRET_KEY, AZURE_KEY)

PROMPT = "import pandas as pd\ndf = pd.read_csv("
SUFFIX = ")\ndf.head()\n"


@pytest.fixture
def elsewhere():
    """A second scripted server, listed in allowed_base_urls (forwarded to without a key)."""
    server, script = serve(0)
    yield f"http://127.0.0.1:{server.server_port}/v1", script
    server.shutdown()


@pytest.fixture
def agent_overrides(model_server, elsewhere) -> dict:
    """NotebookAgent config for this module; a test parametrizes it to take it away."""
    root = model_server[0].rsplit("/v1", 1)[0]
    azure = {"kind": "azure", "endpoint": root, "deployment": "coder", "models": ["coder-big"], "api_key": AZURE_KEY}
    return {"providers": {"az": azure}, "allowed_base_urls": [elsewhere[0]]}


@pytest.fixture
def jp_server_config(jp_server_config, agent_overrides):
    return {**jp_server_config, "NotebookAgent": {**jp_server_config["NotebookAgent"], **agent_overrides}}


def completion_body(**fields) -> str:
    return json.dumps({"prompt": PROMPT, "suffix": SUFFIX, "max_tokens": 32, **fields})


async def post_completion(jp_fetch, body: str | None = None, headers=None, **fields):
    body = completion_body(**fields) if body is None else body
    return await jp_fetch(COMPLETIONS, method="POST", body=body, headers=headers or {}, raise_error=False)


def streamed_texts(body: bytes) -> list[str]:
    """The ``choices[0].text`` deltas of a completion stream, in order; fails on a torn event."""
    texts = []
    for block in body.decode().split("\n\n"):
        data = "".join(line[6:] for line in block.split("\n") if line.startswith("data: "))
        if data and data != "[DONE]":
            event = json.loads(data)
            assert event.get("object") == "text_completion", event
            if event["choices"]:
                texts.append(event["choices"][0]["text"])
    return texts


def no_leak(findings, response, what: str) -> None:
    found = leaked(response_text(response), SECRETS)
    findings.leak_if(bool(found), f"{what}: {found}")
    assert not found, f"{what} leaked {found}"


# -- answers ------------------------------------------------------------------------------------


async def test_a_streamed_completion_arrives_chunk_by_chunk(
    jp_fetch, jp_http_port, jp_base_url, jp_auth_header, configured, findings
):
    _, script = configured
    script.load([{"content": "'data/sales.csv', sep=';'", "chunk_size": 4, "delay": 0.15}])
    arrivals: list[tuple[float, bytes]] = []
    start = time.monotonic()
    request = HTTPRequest(
        f"http://localhost:{jp_http_port}{jp_base_url}{COMPLETIONS}",
        method="POST",
        body=completion_body(stream=True),
        headers=jp_auth_header,
        streaming_callback=lambda chunk: arrivals.append((time.monotonic() - start, chunk)),
    )
    response = await AsyncHTTPClient().fetch(request)
    total = time.monotonic() - start
    assert response.code == 200
    assert response.headers["Content-Type"].startswith("text/event-stream")
    body = b"".join(chunk for _, chunk in arrivals)
    assert body.decode().rstrip().endswith("data: [DONE]")
    texts = streamed_texts(body)
    assert "".join(texts) == "'data/sales.csv', sep=';'"
    assert len([t for t in texts if t]) == 7  # 4-character deltas, passed on as deltas
    # Unbuffered: the first bytes reached the client long before the stream ended.
    assert len(arrivals) > 3
    assert arrivals[0][0] < total - 0.6
    [received] = script.requests
    assert received["path"] == "/v1/completions"
    assert received["body"]["prompt"] == PROMPT and received["body"]["suffix"] == SUFFIX
    no_leak(findings, response, "a streamed completion")


async def test_a_completion_without_stream_comes_back_whole(jp_fetch, configured, findings):
    _, script = configured
    script.load([{"content": "'data/sales.csv'"}])
    response = await post_completion(jp_fetch, stream=False)
    assert response.code == 200
    assert response.headers["Content-Type"].startswith("application/json")
    answer = json.loads(response.body)
    assert answer["object"] == "text_completion"
    assert answer["choices"][0]["text"] == "'data/sales.csv'"
    assert script.requests[0]["path"] == "/v1/completions"
    no_leak(findings, response, "a whole completion")


async def test_the_key_and_default_model_are_added_on_the_server(jp_fetch, configured):
    _, script = configured
    script.load([{"content": "x"}])
    sent = {"prompt": PROMPT, "suffix": SUFFIX, "max_tokens": 16, "temperature": 0, "stop": ["\n\n"], "stream": False}
    response = await post_completion(jp_fetch, body=json.dumps(sent))
    assert response.code == 200
    [received] = script.requests
    assert received["headers"]["authorization"] == f"Bearer {SECRET_KEY}"
    assert received["body"] == {**sent, "model": "scripted-model"}


async def test_chat_and_completions_share_the_script_and_are_told_apart(jp_fetch, configured):
    _, script = configured
    script.load([{"content": "to the chat"}, {"content": "to the completion"}])
    chat = await jp_fetch(CHAT, method="POST", body=json.dumps({"messages": [{"role": "user", "content": "hi"}]}))
    completion = await post_completion(jp_fetch)
    assert json.loads(chat.body)["choices"][0]["message"]["content"] == "to the chat"
    assert json.loads(completion.body)["choices"][0]["text"] == "to the completion"
    assert [r["path"] for r in script.requests] == ["/v1/chat/completions", "/v1/completions"]


# -- secrets ------------------------------------------------------------------------------------


@pytest.mark.parametrize("stream", [True, False])
async def test_a_secret_the_upstream_echoes_never_reaches_the_browser(jp_fetch, configured, findings, stream):
    _, script = configured
    # One delta holds each key: a key split across separate deltas is not caught (redaction.py says so).
    script.load([{"content": f"api_key = '{SECRET_KEY}'  # and {AZURE_KEY}", "chunk_size": 200}])
    response = await post_completion(jp_fetch, stream=stream)
    assert response.code == 200
    no_leak(findings, response, f"a completion (stream={stream}) echoing the keys")
    text = "".join(streamed_texts(response.body)) if stream else json.loads(response.body)["choices"][0]["text"]
    assert text == "api_key = '[redacted]'  # and [redacted]"


async def test_an_upstream_error_quoting_the_key_is_scrubbed(jp_fetch, configured, findings):
    _, script = configured
    script.load([{"status": 401, "error": {"message": f"Incorrect API key provided: {SECRET_KEY}"}}])
    response = await post_completion(jp_fetch)
    assert response.code == 401
    no_leak(findings, response, "a 401 from the completions route")
    assert json.loads(response.body)["error"]["message"] == "Incorrect API key provided: [redacted]"
    assert response.headers["X-Should-Retry"] == "false"


async def test_a_secret_in_the_prompt_is_replaced_before_forwarding(jp_fetch, configured, server_log, findings):
    _, script = configured
    script.load([{"content": "ok"}])
    # The code around the cursor holds this server's key and another provider's.
    prompt = f"client = OpenAI(api_key='{SECRET_KEY}')\nazure = '{AZURE_KEY}'\n"
    response = await post_completion(jp_fetch, prompt=prompt, suffix=f"# {SECRET_KEY}\n")
    assert response.code == 200
    [received] = script.requests
    forwarded = json.dumps(received["body"])
    found = leaked(forwarded, SECRETS)
    findings.leak_if(bool(found), f"forwarded upstream in a completion request: {found}")
    assert not found
    assert received["body"]["prompt"] == "client = OpenAI(api_key='[redacted]')\nazure = '[redacted]'\n"
    assert received["body"]["suffix"] == "# [redacted]\n"
    # The key still goes where it belongs: the header.
    assert received["headers"]["authorization"] == f"Bearer {SECRET_KEY}"
    assert any("removed a server-held secret" in line for line in server_log)


# -- where it goes ------------------------------------------------------------------------------


@pytest.mark.parametrize("target", ["http://attacker.invalid/v1", "{model}/../_requests", "http://169.254.169.254/"])
async def test_a_base_url_not_configured_or_allowed_is_refused(jp_fetch, configured, elsewhere, findings, target):
    url, script = configured
    script.load([{"content": "must not be played"}])
    elsewhere[1].load([{"content": "must not be played"}])
    target = target.format(model=url)
    response = await post_completion(jp_fetch, headers={BASE_URL: target})
    assert response.code == 403
    assert json.loads(response.body)["error"]["type"] == "endpoint_not_allowed"
    findings.leak_if(bool(script.requests or elsewhere[1].requests), f"a completion forwarded to {target}")
    assert script.requests == [] and elsewhere[1].requests == []
    no_leak(findings, response, "a refused base URL")


async def test_an_allowed_base_url_is_forwarded_to_without_a_key(jp_fetch, configured, elsewhere):
    _, script = configured
    other, other_script = elsewhere
    other_script.load([{"content": "from the allowed one"}])
    response = await post_completion(jp_fetch, headers={BASE_URL: other})
    assert response.code == 200
    assert json.loads(response.body)["choices"][0]["text"] == "from the allowed one"
    [received] = other_script.requests
    assert received["path"] == "/v1/completions"
    assert "authorization" not in received["headers"] and "api-key" not in received["headers"]
    assert received["body"]["model"] == "scripted-model"  # the default provider's model, as chat fills it
    assert script.requests == []


async def test_the_provider_header_picks_the_azure_deployment(jp_fetch, configured):
    _, script = configured
    script.load([{"content": "a"}, {"content": "b"}])
    for model in ("coder-big", "not-a-deployment"):
        response = await post_completion(jp_fetch, headers={PROVIDER: "az"}, model=model)
        assert response.code == 200
    big, fallback = script.requests
    assert big["path"] == "/openai/deployments/coder-big/completions?api-version=2024-10-21"
    assert fallback["path"] == "/openai/deployments/coder/completions?api-version=2024-10-21"
    assert big["headers"]["api-key"] == AZURE_KEY and "authorization" not in big["headers"]


async def test_an_unknown_provider_is_a_404(jp_fetch, configured):
    _, script = configured
    response = await post_completion(jp_fetch, headers={PROVIDER: "nope"})
    assert response.code == 404
    assert json.loads(response.body)["error"]["type"] == "unknown_provider"
    assert script.requests == []


@pytest.mark.parametrize("agent_overrides", [{}])
async def test_no_endpoint_configured_answers_as_chat_does(jp_fetch, monkeypatch):
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)
    response = await post_completion(jp_fetch)
    chat = await jp_fetch(CHAT, method="POST", body=json.dumps({"messages": []}), raise_error=False)
    assert response.code == chat.code == 503
    error = json.loads(response.body)["error"]
    assert error == json.loads(chat.body)["error"]
    assert error == {"message": NOT_CONFIGURED, "type": "not_configured"}


def test_completions_url_sits_beside_chat_url():
    plain = Provider(name="p", kind="openai-compatible", base_url="http://127.0.0.1:8080/v1?tenant=t")
    assert plain.completions_url("m") == "http://127.0.0.1:8080/v1/completions?tenant=t"
    azure = Provider(
        name="a",
        kind="azure",
        base_url="https://r.openai.azure.com",
        deployment="coder",
        models=("big one",),
        api_version="2024-10-21",
    )
    assert azure.completions_url("big one") == (
        "https://r.openai.azure.com/openai/deployments/big%20one/completions?api-version=2024-10-21"
    )
    assert azure.completions_url(None) == azure.chat_url(None).replace("/chat/completions", "/completions")


# -- field checks -------------------------------------------------------------------------------

#: Bodies the route refuses: (case, body, param, words the message must hold).
BAD = [
    ("an array", "[]", None, "must be a JSON object"),
    ("not JSON", "prompt=x", None, "not valid JSON"),
    ("no prompt", json.dumps({"suffix": "x"}), "prompt", "prompt is required"),
    ("null prompt", json.dumps({"prompt": None}), "prompt", "prompt is required"),
    ("token array", json.dumps({"prompt": [1, 2, 3]}), "prompt", "token arrays and lists of prompts are not"),
    ("list of prompts", json.dumps({"prompt": ["a", "b"]}), "prompt", "token arrays and lists of prompts are not"),
    ("number prompt", json.dumps({"prompt": 5}), "prompt", "prompt must be a string, not a number"),
    ("suffix", json.dumps({"prompt": "a", "suffix": 5}), "suffix", "suffix must be a string"),
    ("model type", json.dumps({"prompt": "a", "model": ["m"]}), "model", "model must be a string"),
    ("model control", json.dumps({"prompt": "a", "model": "m\nx"}), "model", "without control characters"),
    ("model long", json.dumps({"prompt": "a", "model": "m" * 257}), "model", "at most 256 characters"),
    ("max_tokens 0", json.dumps({"prompt": "a", "max_tokens": 0}), "max_tokens", "positive integer, not 0"),
    ("max_tokens -1", json.dumps({"prompt": "a", "max_tokens": -1}), "max_tokens", "positive integer"),
    ("max_tokens float", json.dumps({"prompt": "a", "max_tokens": 1.5}), "max_tokens", "positive integer, not 1.5"),
    ("max_tokens bool", json.dumps({"prompt": "a", "max_tokens": True}), "max_tokens", "positive integer"),
    ("max_tokens text", json.dumps({"prompt": "a", "max_tokens": "8"}), "max_tokens", "not a string"),
    (
        "max_tokens over the cap",
        json.dumps({"prompt": "a", "max_tokens": MAX_COMPLETION_TOKENS + 1}),
        "max_tokens",
        f"at most {MAX_COMPLETION_TOKENS}",
    ),
    ("stream", json.dumps({"prompt": "a", "stream": "yes"}), "stream", "stream must be a boolean"),
    ("stop number", json.dumps({"prompt": "a", "stop": 5}), "stop", "a string or an array of strings"),
    ("stop list of numbers", json.dumps({"prompt": "a", "stop": ["a", 1]}), "stop", "stop[1] must be a string"),
    ("five stops", json.dumps({"prompt": "a", "stop": list("abcde")}), "stop", "at most 4 strings, not 5"),
    ("temperature", json.dumps({"prompt": "a", "temperature": "hot"}), "temperature", "must be a number"),
    ("temperature bool", json.dumps({"prompt": "a", "temperature": True}), "temperature", "must be a number"),
    ("stream_options", json.dumps({"prompt": "a", "stream_options": True}), "stream_options", "an object"),
]


@pytest.mark.parametrize("case,body,param,words", BAD, ids=[b[0] for b in BAD])
async def test_field_checks_answer_400_with_the_param(jp_fetch, configured, case, body, param, words):
    _, script = configured
    script.load([{"content": "must not be played"}])
    response = await post_completion(jp_fetch, body=body)
    assert response.code == 400, (case, response.body)
    error = json.loads(response.body)["error"]
    assert error["type"] == "invalid_request_error"
    assert error["param"] == param
    assert words in error["message"], error["message"]
    assert script.requests == []


async def test_every_accepted_form_of_the_fields_is_forwarded_as_sent(jp_fetch, configured):
    _, script = configured
    bodies = [
        {"prompt": "", "model": "m"},
        {"prompt": "a", "stop": "\n", "temperature": 0.2, "max_tokens": MAX_COMPLETION_TOKENS, "suffix": ""},
        {"prompt": "a", "stop": list("abcd"), "temperature": 1, "max_tokens": 1, "stream": False},
        {"prompt": "a", "stream": True, "stream_options": {"include_usage": True}, "stop": [], "model": "m"},
        {"prompt": "a", "suffix": None, "stop": None, "max_tokens": None, "n": 1, "echo": False},
    ]
    script.load([{"content": "ok"}] * len(bodies))
    for body in bodies:
        response = await post_completion(jp_fetch, body=json.dumps({"model": "m", **body}))
        assert response.code == 200, (body, response.body)
    assert [r["body"] for r in script.requests] == [{"model": "m", **b} for b in bodies]


# -- abort --------------------------------------------------------------------------------------


async def test_a_client_that_disconnects_mid_stream_closes_the_upstream(
    jp_fetch, jp_http_port, jp_base_url, jp_auth_header, configured
):
    _, script = configured
    # ~100 frames, 2 s apart: the whole stream would take minutes.
    script.load([{"content": "word " * 100, "chunk_size": 5, "delay": 2.0}])
    body = completion_body(stream=True).encode()
    closed_at = await disconnect_mid_stream(jp_http_port, jp_base_url, jp_auth_header, COMPLETIONS, body)
    await assert_upstream_closed_at_once(script, closed_at)
