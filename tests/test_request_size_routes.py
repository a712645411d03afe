"""Request size on the other JSON routes (after D5): the keys route's cap, chats parsed off the event loop,
and settings the extension cannot use.

An outside review stalled the server through two routes D5 left alone: a 60 MiB PUT to
``notebook-agent/keys/<provider>`` (no cap, parsed on the event loop, answered 200) and a 19 MiB PUT to
``notebook-agent/chats/<id>`` (under its 20 MiB cap, parsed on the loop); ``max_request_bytes = 0`` made the
whole extension fail to load, and so did ``max_chats = -1`` or any other numeric setting below its lowest value.
"""

from __future__ import annotations

import json
import logging
import threading

import pytest
from traitlets.log import get_logger

from jupyterlab_notebook_agent import chats
from jupyterlab_notebook_agent.config import NotebookAgent
from jupyterlab_notebook_agent.key_store import KeyStore

KEYS = "notebook-agent/keys/default"
CHATS = "notebook-agent/chats"
USER_KEY = "sk-user-0123456789abcdef"
MB = 1024 * 1024

pytestmark = pytest.mark.fault_category("malformed input")


@pytest.fixture
def key_file(tmp_path):
    path = tmp_path / "keys" / "keys.json"
    KeyStore(path).set("default", USER_KEY)
    return path


@pytest.fixture
def jp_server_config(jp_server_config, request, tmp_path):
    agent = {**jp_server_config["NotebookAgent"], "key_store_path": str(tmp_path / "keys" / "keys.json")}
    if "unusable_cap" in request.node.name:
        agent["max_request_bytes"] = 0
    if "settings_out_of_range" in request.node.name:
        agent.update(max_chats=-1, max_retries=-1, max_retry_wait=-1.0, discover_timeout=0.0, discover_ports=[0, 8080])
    return {**jp_server_config, "NotebookAgent": agent}


async def test_a_key_body_over_64_kib_is_a_413_and_the_stored_key_stays(jp_fetch, configured, key_file):
    # The review's body, smaller: a valid key and padding the route never reads.
    body = json.dumps({"api_key": "sk-new-key-0000", "pad": [0] * 40_000}).encode()
    assert 64 * 1024 < len(body) < MB
    response = await jp_fetch(KEYS, method="PUT", body=body, raise_error=False)
    assert response.code == 413, response.body[:300]
    error = json.loads(response.body)["error"]
    assert error["type"] == "request_too_large"
    assert "64 KB" in error["message"] and "sk-new-key" not in error["message"]
    assert KeyStore(key_file).get("default") == USER_KEY
    # A key's own body passes, whatever its unknown fields (kept as before: they are ignored).
    response = await jp_fetch(KEYS, method="PUT", body=json.dumps({"api_key": "sk-new-key-0000", "x": 1}))
    assert response.code == 200 and KeyStore(key_file).get("default") == "sk-new-key-0000"


def big_chat(size: int, **fields) -> bytes:
    """A chat of about ``size`` bytes: many short transcript entries, the slowest kind to parse and write."""
    entries = [{"kind": "user", "id": f"item-{i}", "text": "hello"} for i in range(size // 50)]
    return json.dumps({"title": "Big", "notebook": "a.ipynb", "updated": 1, "items": entries, **fields}).encode()


async def test_a_large_chat_is_parsed_off_the_event_loop(jp_fetch, monkeypatch):
    """The server's event loop runs in this test's thread: a parse on it is seen there (no timing needed)."""
    loop_thread = threading.get_ident()
    parsed_in: list[int] = []
    real_parse = chats.parse_json

    def parse_json(*args, **kwargs):
        parsed_in.append(threading.get_ident())
        return real_parse(*args, **kwargs)

    monkeypatch.setattr(chats, "parse_json", parse_json)
    body = big_chat(3 * MB)
    response = await jp_fetch(CHATS, "big", method="PUT", body=body, raise_error=False)
    assert response.code == 200, response.body[:300]
    # In the worker process this module's patch is not there at all; in the fallback thread it is, off the loop.
    assert loop_thread not in parsed_in, "a 3 MB chat was parsed on the server's event loop"
    saved = json.loads((await jp_fetch(CHATS, "big")).body)
    assert saved == {**json.loads(body), "id": "big"}
    listed = json.loads((await jp_fetch(CHATS)).body)["chats"]
    assert [(c["id"], c["title"]) for c in listed] == [("big", "Big")]
    # What is wrong with a large chat is still a 400 naming the field, and the 20 MiB cap stays.
    response = await jp_fetch(CHATS, "big", method="PUT", body=big_chat(2 * MB, title=7), raise_error=False)
    assert response.code == 400 and json.loads(response.body)["error"]["field"] == "title", response.body[:300]
    response = await jp_fetch(CHATS, "big", method="PUT", body=big_chat(21 * MB), raise_error=False)
    assert response.code == 413, response.body[:300]
    assert json.loads((await jp_fetch(CHATS, "big")).body)["title"] == "Big"
    assert loop_thread not in parsed_in


def configured_with(**settings: object) -> tuple[NotebookAgent, str]:
    """A NotebookAgent of ``settings`` and the warnings it logged (one per line)."""
    # The warnings go to the Jupyter server's log (traitlets' logger), which need not reach the root logger.
    records: list[logging.LogRecord] = []
    handler = logging.Handler(logging.WARNING)
    handler.emit = records.append  # type: ignore[method-assign]
    get_logger().addHandler(handler)
    try:
        config = NotebookAgent(**settings)
    finally:
        get_logger().removeHandler(handler)
    return config, "\n".join(r.getMessage() for r in records)


def test_an_unusable_max_request_bytes_falls_back_to_the_default_and_says_what_is_allowed():
    config, said = configured_with(max_request_bytes=0, max_completion_request_bytes=-5)
    assert config.max_request_bytes == 32 * MB and config.max_completion_request_bytes == MB
    assert "max_request_bytes" in said and "max_completion_request_bytes" in said and "at least 1024" in said
    assert NotebookAgent(max_request_bytes=4096).max_request_bytes == 4096


async def test_an_unusable_cap_leaves_the_extension_loaded(jp_fetch, configured):
    response = await jp_fetch("notebook-agent", "config", raise_error=False)
    assert response.code == 200, response.body[:300]
    assert json.loads(response.body)["configured"] is True


def test_every_numeric_setting_out_of_range_falls_back_to_its_default_with_a_warning():
    # Before, traitlets' own ``min=`` raised a TraitError for these: the extension did not load at all.
    config, said = configured_with(
        max_chats=-1, max_retries=-3, max_retry_wait=float("nan"), discover_timeout=0.0, discover_ports=[0, 8080, 70000]
    )
    assert (config.max_chats, config.max_retries, config.max_retry_wait) == (0, 2, 20.0)
    assert config.discover_timeout == 1.0 and config.discover_ports == [8080]
    for name in ("max_chats", "max_retries", "max_retry_wait", "discover_timeout", "discover_ports: 0, 70000"):
        assert f"c.NotebookAgent.{name}" in said, said
    # Values in range are kept as they are.
    kept = NotebookAgent(max_chats=3, max_retries=0, max_retry_wait=0.0, discover_timeout=0.05, discover_ports=[1])
    assert (kept.max_chats, kept.max_retries, kept.max_retry_wait) == (3, 0, 0.0)
    assert kept.discover_timeout == 0.05 and kept.discover_ports == [1]


async def test_settings_out_of_range_leave_the_extension_loaded(jp_fetch, configured):
    response = await jp_fetch("notebook-agent", "config", raise_error=False)
    assert response.code == 200, response.body[:300]
    assert json.loads(response.body)["configured"] is True
