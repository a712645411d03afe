"""Provider configuration that cannot work, or would leak, is refused or warned about.

Keys HTTP headers cannot carry are refused when stored (and a stored one gets a clear message, not a
misleading 502); names and ids match in full; header names and values must be sendable; credentials
and query strings in a base URL are warned about at load; and a server started with ``--debug``
logs no secret value of a profile, whether it is written in the config file or kept in the
environment (``api_key_env``, ``headers_env``): checked on a real ``jupyter server --debug`` process
and its whole log.
"""

from __future__ import annotations

import json
import os

import pytest
from scripted_model_server import serve
from server_process import request, server_process

from jupyterlab_notebook_agent.config import NotebookAgent
from jupyterlab_notebook_agent.providers import parse_profile, resolve_providers

CHAT = "notebook-agent/v1/chat/completions"

pytestmark = pytest.mark.fault_category("provider config")


@pytest.fixture
def key_file(tmp_path):
    return tmp_path / "keys" / "keys.json"


@pytest.fixture
def jp_server_config(key_file, closed_port, monkeypatch):
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)
    return {
        "ServerApp": {"jpserver_extensions": {"jupyterlab_notebook_agent": True}},
        "NotebookAgent": {
            "providers": {"p": {"base_url": f"http://127.0.0.1:{closed_port}/v1"}},
            "key_store_path": str(key_file),
        },
    }


UNSENDABLE_KEYS = {
    "non-ASCII": "sk-clé-0123456789",
    "a no-break space": "sk-\u00a0-0123456789",
    "DEL": "sk-\x7f-0123456789",
    "an emoji": "sk-🔑-0123456789",
    "4097 characters": "k" * 4097,
}


async def test_keys_http_headers_cannot_carry_are_refused(jp_fetch, key_file, findings):
    for name, key in UNSENDABLE_KEYS.items():
        with findings.case(name):
            response = await jp_fetch(
                "notebook-agent", "keys", "p", method="PUT", body=json.dumps({"api_key": key}), raise_error=False
            )
            assert response.code == 400, name
            message = json.loads(response.body)["error"]["message"]
            assert "printable ASCII" in message and "HTTP header" in message
            findings.leak_if(key in response.body.decode(), "the refused key echoed")
            assert not key_file.exists()


async def test_a_stored_key_that_cannot_be_sent_gets_a_clear_message(jp_fetch, key_file, findings):
    """A key stored before keys were checked: the proxy says what is wrong instead of a 502."""
    key_file.parent.mkdir(parents=True)
    key_file.write_text(json.dumps({"version": 1, "keys": {"p": "sk-clé-0123456789"}}))
    with findings.case("stored non-ASCII key"):
        response = await jp_fetch(CHAT, method="POST", body=json.dumps({"messages": []}), raise_error=False)
        error = json.loads(response.body)["error"]
        assert error["type"] == "invalid_key"
        assert "printable ASCII" in error["message"] and "from user" in error["message"]
        assert "latin-1" not in error["message"]


def test_names_and_header_fields_match_in_full():
    for name in ("alpha\n", "alpha\n\n", " alpha", "al/pha", ""):
        with pytest.raises(ValueError):
            parse_profile(name, {"base_url": "http://h/v1"})
    for headers in ({"X Bad": "v"}, {"X-Ok": "café"}, {"X-Ok": "a\x00b"}, {"X-Ok": 5}):
        with pytest.raises(ValueError):
            parse_profile("x", {"base_url": "http://h/v1", "headers": headers})
    for headers_env in ({"X-Ok": "1BAD"}, {"X-Ok": "A B"}, {"X Bad": "OK"}, {"X-Ok": 5}):
        with pytest.raises(ValueError):
            parse_profile("x", {"base_url": "http://h/v1", "headers_env": headers_env})
    assert parse_profile("alpha", {"base_url": "http://h/v1", "headers": {"X-Title": "Notebook Agent"}}).headers


def test_credentials_and_query_strings_in_a_base_url_are_warned_about():
    config = NotebookAgent(
        providers={
            "creds": {"base_url": "https://bot:s3cret-pass-0123@gw.example/v1"},
            "query": {"base_url": "https://gw.example/v1?key=q-secret-0123456789"},
            "plain": {"base_url": "https://gw.example/v1"},
        },
        allowed_base_urls=["https://other:pw-0123456789@x.example/v1"],
    )
    warnings = resolve_providers(config).warnings
    assert any("'creds'" in w and "credentials" in w and "never sent" in w for w in warnings)
    assert any("'query'" in w and "query string" in w for w in warnings)
    assert any("allowed_base_urls" in w and "credentials" in w for w in warnings)
    assert not any("'plain'" in w for w in warnings)
    text = "\n".join(warnings)
    assert "s3cret-pass-0123" not in text and "q-secret-0123456789" not in text and "pw-0123456789" not in text
    query = resolve_providers(config).providers["query"]
    assert query.chat_url(None) == "https://gw.example/v1/chat/completions?key=q-secret-0123456789"
    assert query.public_url == "https://gw.example/v1?key=[redacted]"


# -- --debug, on a real server process --------------------------------------------------------

KEY = "sk-debug-env-key-0123456789"
HEADER = "hdr-debug-env-value-0123456789"
USER_KEY = "sk-debug-user-key-0123456789"
LITERAL = "literal-header-in-config-0123456789"
PASSWORD = "url-password-in-config-0123456789"
QUERY = "url-query-value-in-config-0123456789"


def test_debug_logs_no_secret_value_of_a_profile(tmp_path, findings):
    model, script = serve(0)
    script.load([{"content": "hello"}])
    upstream = f"http://127.0.0.1:{model.server_port}/v1"
    config_dir = tmp_path / "config"
    config_dir.mkdir()
    profiles = {
        "envp": {
            "base_url": upstream,
            "api_key_env": "DEBUG_TEST_KEY",
            "headers_env": {"X-Gateway-Token": "DEBUG_TEST_HEADER"},
        },
        "literal": {"base_url": upstream, "headers": {"X-Literal": LITERAL}},
        "creds": {"base_url": upstream.replace("http://", f"http://user:{PASSWORD}@") + f"?k={QUERY}"},
    }
    (config_dir / "jupyter_server_config.json").write_text(
        json.dumps(
            {
                "ServerApp": {"jpserver_extensions": {"jupyterlab_notebook_agent": True}},
                "NotebookAgent": {"providers": profiles, "default_provider": "envp"},
            }
        )
    )
    env = {**os.environ, "JUPYTER_CONFIG_DIR": str(config_dir), "DEBUG_TEST_KEY": KEY, "DEBUG_TEST_HEADER": HEADER}
    env.pop("OPENAI_API_KEY", None)
    try:
        with server_process(tmp_path, env, ["--debug"]) as server:
            base, token = server.base, server.token
            with findings.case("the headers_env header is sent"):
                status, _ = request(base + CHAT, token, "POST", json.dumps({"messages": [], "stream": True}).encode())
                assert status == 200
                [received] = script.requests
                assert received["headers"]["authorization"] == f"Bearer {KEY}"
                assert received["headers"]["x-gateway-token"] == HEADER
            request(base + "notebook-agent/config", token)
            request(base + "notebook-agent/keys/envp", token, "PUT", json.dumps({"api_key": USER_KEY}).encode())
            request(base + CHAT, token, "POST", json.dumps({"model": "x" * 300}).encode())
            request(base + CHAT, token, "POST", b"{}", {"X-Notebook-Agent-Provider": "literal"})
            log_file = server.log_file
    finally:
        model.shutdown()
    log = log_file.read_text(errors="replace")
    with findings.case("no secret value in the --debug log"):
        assert "[D " in log and "Loaded config file" in log  # it really ran at debug level, from the file
        assert "Notebook Agent: stored a user key for provider 'envp'" in log
        found = [s for s in (KEY, HEADER, USER_KEY, LITERAL, PASSWORD, QUERY) if s in log]
        findings.leak_if(bool(found), f"in the --debug log: {found}")
        assert not found
    with findings.case("credentials and a query string in a base URL are warned about at start"):
        assert "has credentials in it (user:password@): they are never sent upstream" in log
        assert "has a query string: it is kept after the route" in log


def test_which_parts_of_a_url_are_secrets():
    """The password or a bare token, and query values a key could be; not a user name or ``format=json``."""
    from jupyterlab_notebook_agent.config import url_secrets

    assert set(url_secrets("https://me:p%40ss@h/v1?format=json&key=abcdefghij")) == {
        "me:p%40ss",
        "p%40ss",
        "p@ss",
        "me:p@ss",
        "abcdefghij",
    }
    assert url_secrets("https://tok@h/v1") == ["tok"]
    assert url_secrets("https://h/v1?api-version=1") == []
    assert "json" in url_secrets("https://h/v1?format=json", parts=True)["query"]  # the load warning still sees it
