"""Provider profiles, Azure OpenAI, the user key store, abort and retries, on a real Jupyter server.

Three scripted model servers stand in for three providers ("alpha", "beta" and
an Azure resource); a fourth profile ("down") points at a closed port.
"""

from __future__ import annotations

import json
import stat
import time
from pathlib import Path

import pytest
from conftest import assert_upstream_closed_at_once, disconnect_mid_stream
from scripted_model_server import serve

from jupyterlab_notebook_agent.config import NotebookAgent
from jupyterlab_notebook_agent.providers import parse_profile, resolve_providers
from jupyterlab_notebook_agent.upstream import parse_retry_after, retry_delay

CHAT = "notebook-agent/v1/chat/completions"
PROVIDER = "X-Notebook-Agent-Provider"

ALPHA_KEY = "sk-alpha-from-server-config-0123456789"
BETA_KEY = "sk-beta-from-the-environment-0123456789"
AZURE_KEY = "azure0123456789abcdef0123456789ab"
DOWN_KEY = "sk-down-provider-key-0123456789"
USER_KEY = "sk-user-typed-in-the-sidebar-0123456789"
ALL_KEYS = (ALPHA_KEY, BETA_KEY, AZURE_KEY, DOWN_KEY, USER_KEY)


def chat_body(**extra) -> str:
    return json.dumps({"messages": [{"role": "user", "content": "hi"}], "stream": True, **extra})


async def post_chat(jp_fetch, provider: str | None = None, headers=None, **extra):
    headers = dict(headers or {})
    if provider:
        headers[PROVIDER] = provider
    return await jp_fetch(CHAT, method="POST", body=chat_body(**extra), headers=headers, raise_error=False)


def streamed_text(body: bytes) -> str:
    deltas = []
    for line in body.decode().splitlines():
        if line.startswith("data: {"):
            chunk = json.loads(line[6:])
            if chunk["choices"]:
                deltas.append(chunk["choices"][0]["delta"].get("content", ""))
    return "".join(deltas)


@pytest.fixture
def upstreams():
    """Three scripted model servers: name -> (root URL, script)."""
    started = {name: serve(0) for name in ("alpha", "beta", "azure")}
    yield {name: (f"http://127.0.0.1:{server.server_port}", script) for name, (server, script) in started.items()}
    for server, _ in started.values():
        server.shutdown()


@pytest.fixture
def overrides() -> dict:
    """NotebookAgent config merged over the standard profiles; tests parametrize it."""
    return {}


@pytest.fixture
def key_file(tmp_path) -> Path:
    return tmp_path / "private" / "agent" / "keys.json"


@pytest.fixture
def jp_server_config(upstreams, overrides, key_file, closed_port, monkeypatch):
    for name in ("OPENAI_BASE_URL", "OPENAI_API_KEY", "NOTEBOOK_AGENT_MODEL", "AZURE_OPENAI_API_KEY"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("BETA_TEST_KEY", BETA_KEY)
    monkeypatch.setenv("AZURE_TEST_KEY", AZURE_KEY)
    agent = {
        "providers": {
            "alpha": {
                "kind": "openai-compatible",
                "base_url": upstreams["alpha"][0] + "/v1",
                "api_key": ALPHA_KEY,
                "models": ["alpha-small", "alpha-large"],
            },
            "beta": {"kind": "openai", "base_url": upstreams["beta"][0] + "/v1/", "api_key_env": "BETA_TEST_KEY"},
            "azure": {
                "kind": "azure",
                "endpoint": upstreams["azure"][0] + "/",
                "deployment": "gpt-4o",
                "api_version": "2024-10-21",
                "api_key_env": "AZURE_TEST_KEY",
                "models": ["gpt-4o-mini-eu"],
            },
            "down": {"base_url": f"http://127.0.0.1:{closed_port}/v1", "api_key": DOWN_KEY},
        },
        "default_provider": "alpha",
        "key_store_path": str(key_file),
        **overrides,
    }
    return {"ServerApp": {"jpserver_extensions": {"jupyterlab_notebook_agent": True}}, "NotebookAgent": agent}


# -- routing -------------------------------------------------------------------------------


async def test_the_header_picks_the_provider(jp_fetch, upstreams):
    alpha, beta = upstreams["alpha"][1], upstreams["beta"][1]
    alpha.load([{"content": "from alpha"}, {"content": "alpha again"}])
    beta.load([{"content": "from beta"}, {"content": "beta by url"}])

    response = await post_chat(jp_fetch, "beta")
    assert response.code == 200
    assert streamed_text(response.body) == "from beta"
    [received] = beta.requests
    assert received["headers"]["authorization"] == f"Bearer {BETA_KEY}"  # api_key_env
    assert received["path"] == "/v1/chat/completions"
    assert alpha.requests == []

    # No header: the default provider, its key from the server config, its default model filled in.
    response = await post_chat(jp_fetch)
    assert streamed_text(response.body) == "from alpha"
    [received] = alpha.requests
    assert received["headers"]["authorization"] == f"Bearer {ALPHA_KEY}"
    assert received["body"]["model"] == "alpha-small"

    # A model the browser chose is kept.
    await post_chat(jp_fetch, "alpha", model="alpha-large")
    assert alpha.requests[1]["body"]["model"] == "alpha-large"

    # The base-URL header still works and finds the provider (and its key) by URL.
    response = await post_chat(jp_fetch, headers={"X-Notebook-Agent-Base-Url": upstreams["beta"][0] + "/v1"})
    assert streamed_text(response.body) == "beta by url"
    assert beta.requests[1]["headers"]["authorization"] == f"Bearer {BETA_KEY}"


async def test_unknown_provider_is_a_404_listing_the_known_ones(jp_fetch, upstreams):
    response = await post_chat(jp_fetch, "nope")
    assert response.code == 404
    error = json.loads(response.body)["error"]
    assert error["type"] == "unknown_provider"
    assert error["providers"] == ["alpha", "beta", "azure", "down"]
    assert "alpha, beta, azure, down" in error["message"]
    models = await jp_fetch("notebook-agent", "v1", "models", headers={PROVIDER: "nope"}, raise_error=False)
    assert models.code == 404
    assert all(script.requests == [] for _, script in upstreams.values())


async def test_a_base_url_outside_the_provider_is_refused(jp_fetch, upstreams):
    response = await post_chat(jp_fetch, "alpha", headers={"X-Notebook-Agent-Base-Url": upstreams["beta"][0] + "/v1"})
    assert response.code == 403
    assert json.loads(response.body)["error"]["type"] == "endpoint_not_allowed"
    assert upstreams["beta"][1].requests == []


async def test_configured_models_are_answered_by_the_server(jp_fetch, upstreams):
    response = await jp_fetch("notebook-agent", "v1", "models", headers={PROVIDER: "alpha"})
    assert [m["id"] for m in json.loads(response.body)["data"]] == ["alpha-small", "alpha-large"]
    # No models configured: forwarded upstream.
    response = await jp_fetch("notebook-agent", "v1", "models", headers={PROVIDER: "beta"})
    assert [m["id"] for m in json.loads(response.body)["data"]] == ["scripted-model"]


# -- Azure ---------------------------------------------------------------------------------


async def test_azure_url_and_header_shape(jp_fetch, upstreams):
    script = upstreams["azure"][1]
    script.load([{"content": "from azure"}, {"content": "second deployment"}])
    response = await post_chat(jp_fetch, "azure")
    assert response.code == 200
    assert streamed_text(response.body) == "from azure"
    [received] = script.requests
    assert received["path"] == "/openai/deployments/gpt-4o/chat/completions?api-version=2024-10-21"
    assert received["headers"]["api-key"] == AZURE_KEY
    assert "authorization" not in received["headers"]
    assert received["body"]["model"] == "gpt-4o"  # kept (Azure ignores it); filled with the deployment

    # A model naming another listed deployment goes to that deployment.
    await post_chat(jp_fetch, "azure", model="gpt-4o-mini-eu")
    assert script.requests[1]["path"] == "/openai/deployments/gpt-4o-mini-eu/chat/completions?api-version=2024-10-21"

    models = await jp_fetch("notebook-agent", "v1", "models", headers={PROVIDER: "azure"})
    assert [m["id"] for m in json.loads(models.body)["data"]] == ["gpt-4o", "gpt-4o-mini-eu"]


async def test_azure_errors_never_show_the_key(jp_fetch, upstreams):
    script = upstreams["azure"][1]
    script.load([{"status": 401, "error": {"message": f"Access denied: invalid key {AZURE_KEY}."}}])
    response = await post_chat(jp_fetch, "azure")
    assert response.code == 401
    assert AZURE_KEY not in response.body.decode()
    assert "[redacted]" in json.loads(response.body)["error"]["message"]
    assert all(AZURE_KEY not in value for value in response.headers.values())


# -- config --------------------------------------------------------------------------------


async def test_config_lists_providers_without_keys(jp_fetch, upstreams):
    response = await jp_fetch("notebook-agent", "config")
    text = response.body.decode()
    assert not any(key in text for key in ALL_KEYS)
    config = json.loads(text)
    assert config["default_provider"] == "alpha"
    assert config["allow_user_keys"] is True
    # The legacy fields describe the default provider.
    assert config["configured"] is True
    assert config["base_url"] == upstreams["alpha"][0] + "/v1"
    assert config["model"] == "alpha-small"
    assert config["has_key"] is True
    by_name = {p["name"]: p for p in config["providers"]}
    assert list(by_name) == ["alpha", "beta", "azure", "down"]
    assert by_name["alpha"] == {
        "name": "alpha",
        "kind": "openai-compatible",
        "base_url": upstreams["alpha"][0] + "/v1",
        "models": ["alpha-small", "alpha-large"],
        "default_model": "alpha-small",
        "has_key": True,
        "key_source": "config",
        "takes_key": True,
    }
    assert by_name["beta"]["base_url"] == upstreams["beta"][0] + "/v1"
    assert by_name["beta"]["key_source"] == "env"
    assert by_name["beta"]["default_model"] is None
    azure = by_name["azure"]
    assert azure["kind"] == "azure"
    assert azure["endpoint"] == upstreams["azure"][0]
    assert (azure["deployment"], azure["api_version"]) == ("gpt-4o", "2024-10-21")
    assert azure["models"] == ["gpt-4o", "gpt-4o-mini-eu"]
    assert azure["default_model"] == "gpt-4o"
    assert azure["has_key"] is True and azure["key_source"] == "env"
    assert all("headers" not in p and "api_key" not in p for p in config["providers"])


@pytest.mark.parametrize("overrides", [{"providers": {}, "default_provider": ""}])
async def test_the_legacy_endpoint_is_the_default_provider(jp_fetch, upstreams, monkeypatch):
    url, script = upstreams["beta"]
    monkeypatch.setenv("OPENAI_BASE_URL", url + "/v1")
    monkeypatch.setenv("OPENAI_API_KEY", BETA_KEY)
    monkeypatch.setenv("NOTEBOOK_AGENT_MODEL", "legacy-model")
    config = json.loads((await jp_fetch("notebook-agent", "config")).body)
    assert config["default_provider"] == "default"
    [default] = config["providers"]
    assert default["name"] == "default" and default["key_source"] == "env"
    assert default["default_model"] == "legacy-model"
    script.load([{"content": "legacy"}, {"content": "by name"}])
    await post_chat(jp_fetch)
    await post_chat(jp_fetch, "default")
    assert [r["headers"]["authorization"] for r in script.requests] == [f"Bearer {BETA_KEY}"] * 2
    assert script.requests[0]["body"]["model"] == "legacy-model"


@pytest.mark.parametrize("overrides", [{"default_provider": ""}])
async def test_legacy_endpoint_stays_the_default_next_to_profiles(jp_fetch, upstreams, monkeypatch):
    monkeypatch.setenv("OPENAI_BASE_URL", upstreams["beta"][0] + "/v1")
    config = json.loads((await jp_fetch("notebook-agent", "config")).body)
    assert config["default_provider"] == "default"
    assert [p["name"] for p in config["providers"]] == ["alpha", "beta", "azure", "down", "default"]
    monkeypatch.delenv("OPENAI_BASE_URL")
    config = json.loads((await jp_fetch("notebook-agent", "config")).body)
    assert config["default_provider"] == "alpha"  # the first profile


# -- the user key store --------------------------------------------------------------------


async def test_user_keys_are_stored_privately_and_never_echoed(jp_fetch, upstreams, key_file):
    beta = upstreams["beta"][1]
    beta.load([{"content": "with the user key"}, {"content": "with the env key"}])

    response = await jp_fetch(
        "notebook-agent", "keys", "beta", method="PUT", body=json.dumps({"api_key": f"  {USER_KEY}\n"})
    )
    assert response.code == 200
    assert json.loads(response.body) == {"provider": "beta", "has_key": True, "key_source": "user"}
    assert USER_KEY not in response.body.decode()
    assert all(USER_KEY not in value for value in response.headers.values())

    assert stat.S_IMODE(key_file.stat().st_mode) == 0o600
    assert stat.S_IMODE(key_file.parent.stat().st_mode) == 0o700
    assert stat.S_IMODE(key_file.parent.parent.stat().st_mode) == 0o700
    assert json.loads(key_file.read_text())["keys"] == {"beta": USER_KEY}

    # The stored key beats the environment's.
    await post_chat(jp_fetch, "beta")
    assert beta.requests[0]["headers"]["authorization"] == f"Bearer {USER_KEY}"
    config = await jp_fetch("notebook-agent", "config")
    assert USER_KEY not in config.body.decode()
    assert {p["name"]: p["key_source"] for p in json.loads(config.body)["providers"]}["beta"] == "user"
    status = await jp_fetch("notebook-agent", "keys", "beta")
    assert json.loads(status.body) == {"provider": "beta", "has_key": True, "key_source": "user"}

    response = await jp_fetch("notebook-agent", "keys", "beta", method="DELETE")
    assert json.loads(response.body) == {"provider": "beta", "has_key": True, "key_source": "env"}
    assert json.loads(key_file.read_text())["keys"] == {}
    await post_chat(jp_fetch, "beta")
    assert beta.requests[1]["headers"]["authorization"] == f"Bearer {BETA_KEY}"


async def test_user_key_beats_server_config_and_works_for_azure(jp_fetch, upstreams):
    await jp_fetch("notebook-agent", "keys", "alpha", method="PUT", body=json.dumps({"api_key": USER_KEY}))
    await jp_fetch("notebook-agent", "keys", "azure", method="PUT", body=json.dumps({"api_key": USER_KEY}))
    upstreams["alpha"][1].load([{"content": "a"}])
    upstreams["azure"][1].load([{"content": "z"}])
    await post_chat(jp_fetch, "alpha")
    await post_chat(jp_fetch, "azure")
    assert upstreams["alpha"][1].requests[0]["headers"]["authorization"] == f"Bearer {USER_KEY}"
    assert upstreams["azure"][1].requests[0]["headers"]["api-key"] == USER_KEY


async def test_key_routes_refuse_bad_requests(jp_fetch, key_file):
    unknown = await jp_fetch(
        "notebook-agent", "keys", "nope", method="PUT", body=json.dumps({"api_key": USER_KEY}), raise_error=False
    )
    assert unknown.code == 404
    assert json.loads(unknown.body)["error"]["providers"] == ["alpha", "beta", "azure", "down"]
    for body in ({"api_key": ""}, {"api_key": "two words"}, {"api_key": 5}, {"key": USER_KEY}, "not json"):
        response = await jp_fetch(
            "notebook-agent",
            "keys",
            "beta",
            method="PUT",
            body=body if isinstance(body, str) else json.dumps(body),
            raise_error=False,
        )
        assert response.code == 400, body
        assert USER_KEY not in response.body.decode() and "two words" not in response.body.decode()
    assert not key_file.exists()


async def test_key_routes_need_authentication(jp_fetch, key_file):
    response = await jp_fetch(
        "notebook-agent",
        "keys",
        "beta",
        method="PUT",
        body=json.dumps({"api_key": USER_KEY}),
        headers={"Authorization": ""},
        raise_error=False,
    )
    assert response.code == 403
    assert not key_file.exists()


@pytest.mark.parametrize("overrides", [{"allow_user_keys": False}])
async def test_user_keys_can_be_turned_off(jp_fetch, upstreams, key_file):
    # A key stored earlier is ignored once the admin turns user keys off.
    key_file.parent.mkdir(parents=True)
    key_file.write_text(json.dumps({"version": 1, "keys": {"alpha": USER_KEY}}))
    for method, body in (("PUT", json.dumps({"api_key": USER_KEY})), ("DELETE", None)):
        response = await jp_fetch("notebook-agent", "keys", "alpha", method=method, body=body, raise_error=False)
        assert response.code == 403
        assert json.loads(response.body)["error"]["type"] == "user_keys_disabled"
    config = json.loads((await jp_fetch("notebook-agent", "config")).body)
    assert config["allow_user_keys"] is False
    assert config["providers"][0]["key_source"] == "config"
    upstreams["alpha"][1].load([{"content": "admin key"}])
    await post_chat(jp_fetch, "alpha")
    assert upstreams["alpha"][1].requests[0]["headers"]["authorization"] == f"Bearer {ALPHA_KEY}"


@pytest.mark.parametrize("overrides", [{"key_store_path": ""}])
async def test_keys_live_in_the_jupyter_data_dir_by_default(jp_fetch, jp_data_dir):
    await jp_fetch("notebook-agent", "keys", "beta", method="PUT", body=json.dumps({"api_key": USER_KEY}))
    path = Path(jp_data_dir) / "notebook_agent" / "keys.json"
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert stat.S_IMODE(path.parent.stat().st_mode) == 0o700


# -- abort and retries ---------------------------------------------------------------------


async def test_browser_disconnect_aborts_a_stalled_upstream(
    jp_fetch, jp_http_port, jp_base_url, jp_auth_header, upstreams
):
    script = upstreams["alpha"][1]
    # ~100 frames, 2 s apart: the whole stream would take minutes.
    script.load([{"content": "word " * 100, "chunk_size": 5, "delay": 2.0}])
    closed_at = await disconnect_mid_stream(jp_http_port, jp_base_url, jp_auth_header, CHAT, chat_body().encode())
    await assert_upstream_closed_at_once(script, closed_at)


async def test_429_with_retry_after_is_retried(jp_fetch, upstreams, server_log):
    script = upstreams["alpha"][1]
    script.load(
        [
            {"status": 429, "error": {"message": "Rate limit reached"}, "headers": {"Retry-After": "1"}},
            {"content": "after the wait"},
        ]
    )
    start = time.monotonic()
    response = await post_chat(jp_fetch)
    elapsed = time.monotonic() - start
    assert response.code == 200
    assert streamed_text(response.body) == "after the wait"
    assert len(script.requests) == 2
    assert 0.9 <= elapsed < 15
    assert any("answered 429; retry 1 of 2 in 1.0 s" in line for line in server_log)


async def test_gateway_errors_are_retried_twice_then_passed_on(jp_fetch, upstreams):
    script = upstreams["alpha"][1]
    script.load([{"status": 503, "error": {"message": f"overloaded {n}"}} for n in range(3)] + [{"content": "x"}])
    start = time.monotonic()
    response = await post_chat(jp_fetch)
    assert response.code == 503
    assert json.loads(response.body)["error"]["message"] == "overloaded 2"
    assert len(script.requests) == 3
    assert time.monotonic() - start >= 1.4  # backoff 0.5 s, then 1 s


async def test_no_retry_for_other_errors_or_long_retry_after(jp_fetch, upstreams):
    script = upstreams["alpha"][1]
    script.load([{"status": 500, "error": {"message": "boom"}}, {"content": "never"}])
    assert (await post_chat(jp_fetch)).code == 500
    assert len(script.requests) == 1
    script.load([{"status": 429, "error": {"message": "quota"}, "headers": {"Retry-After": "120"}}, {"content": "no"}])
    start = time.monotonic()
    response = await post_chat(jp_fetch)
    assert response.code == 429
    assert response.headers["Retry-After"] == "120"
    assert len(script.requests) == 1
    assert time.monotonic() - start < 5


# -- keys never leak -----------------------------------------------------------------------


async def test_no_key_in_any_response_or_log(jp_fetch, upstreams, server_log):
    responses = []
    for name, key in (("alpha", ALPHA_KEY), ("beta", BETA_KEY), ("azure", AZURE_KEY)):
        upstreams[name][1].load([{"status": 401, "error": {"message": f"Incorrect API key provided: {key}"}}])
        responses.append(await post_chat(jp_fetch, name))
    responses.append(await post_chat(jp_fetch, "down"))  # unreachable
    responses.append(
        await jp_fetch("notebook-agent", "keys", "beta", method="PUT", body=json.dumps({"api_key": USER_KEY}))
    )
    upstreams["beta"][1].load([{"status": 429, "headers": {"Retry-After": "0"}}, {"content": "ok"}])
    responses.append(await post_chat(jp_fetch, "beta"))
    responses.append(await jp_fetch("notebook-agent", "config"))
    responses.append(await jp_fetch("notebook-agent", "keys", "beta", method="DELETE"))
    assert [r.code for r in responses] == [401, 401, 401, 502, 200, 200, 200, 200]
    for response in responses:
        text = response.body.decode() + json.dumps(dict(response.headers.get_all()))
        assert not any(key in text for key in ALL_KEYS), text
    assert any("could not reach" in line for line in server_log), "the server log should have been captured"
    assert any("stored a user key for provider 'beta'" in line for line in server_log)
    assert not any(key in line for line in server_log for key in ALL_KEYS)


# -- units ---------------------------------------------------------------------------------


def test_retry_policy():
    assert parse_retry_after({"Retry-After": "3"}) == 3
    assert parse_retry_after({"retry-after-ms": "250", "Retry-After": "3"}) == 0.25
    assert parse_retry_after({"Retry-After": "Wed, 21 Oct 2015 07:28:00 GMT"}, now=1445412470.0) == 10
    assert parse_retry_after({"Retry-After": "soon"}) is None
    assert retry_delay(429, {"Retry-After": "1"}, 0, 2, 20) == 1
    assert retry_delay(429, {"Retry-After": "1"}, 2, 2, 20) is None  # out of retries
    assert retry_delay(429, {"Retry-After": "60"}, 0, 2, 20) is None  # longer than the cap
    assert retry_delay(500, {}, 0, 2, 20) is None
    assert 0.5 <= retry_delay(503, {}, 0, 2, 20) <= 0.625
    assert 1.0 <= retry_delay(504, {}, 1, 2, 20) <= 1.25


def test_profiles_are_validated(monkeypatch):
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)
    assert parse_profile("o", {"kind": "openai"}).base_url == "https://api.openai.com/v1"
    assert parse_profile("o", {"kind": "openai"}).api_key_env == "OPENAI_API_KEY"
    azure = parse_profile("az", {"kind": "azure", "endpoint": "https://x.openai.azure.com/openai/", "deployment": "d"})
    assert (azure.base_url, azure.api_version, azure.api_key_env) == (
        "https://x.openai.azure.com",
        "2024-10-21",
        "AZURE_OPENAI_API_KEY",
    )
    for name, profile in (
        ("bad name!", {"base_url": "http://h/v1"}),
        ("x", {"kind": "gemini", "base_url": "http://h/v1"}),
        ("x", {"base_url": "ftp://h"}),
        ("x", {"kind": "azure", "endpoint": "https://x.openai.azure.com"}),
        ("x", {"base_url": "http://h/v1", "api_key": "has space"}),
        ("x", {"base_url": "http://h/v1", "headers": {"X": "a\nb"}}),
        ("x", {"base_url": "http://h/v1", "modle": "typo"}),
    ):
        with pytest.raises(ValueError):
            parse_profile(name, profile)
    config = NotebookAgent(providers={"ok": {"base_url": "http://h/v1"}, "bad": {"kind": "nope"}}, default_provider="x")
    resolved = resolve_providers(config)
    assert list(resolved.providers) == ["ok"] and resolved.default == "ok"
    assert len(resolved.errors) == 2


def test_only_endpoints_that_take_a_key_offer_one():
    """ "Set API key…" is offered for a keyed endpoint, not for a key-less local one."""
    from jupyterlab_notebook_agent.providers import parse_profile

    local = parse_profile("ollama", {"base_url": "http://localhost:11434/v1"})
    assert local.describe(None)["takes_key"] is False
    assert parse_profile("lm", {"base_url": "http://127.0.0.1:1234/v1"}).takes_key is False
    keyed_local = parse_profile("gateway", {"base_url": "http://127.0.0.1:4000/v1", "api_key_env": "GATEWAY_KEY"})
    assert keyed_local.takes_key is True
    assert parse_profile("remote", {"base_url": "https://api.example.com/v1"}).takes_key is True


def test_the_environment_endpoint_on_loopback_takes_no_key(monkeypatch):
    """``OPENAI_BASE_URL`` at llama-server with no key set: no "Set API key…"; a remote one keeps it."""
    from types import SimpleNamespace

    from jupyterlab_notebook_agent.providers import legacy_provider

    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    config = SimpleNamespace(base_url="", api_key="", model="")
    monkeypatch.setenv("OPENAI_BASE_URL", "http://127.0.0.1:8080/v1")
    assert legacy_provider(config).takes_key is False
    monkeypatch.setenv("OPENAI_BASE_URL", "https://api.openai.com/v1")
    assert legacy_provider(config).takes_key is True
