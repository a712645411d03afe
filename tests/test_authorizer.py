"""Every route of the extension goes through Jupyter Server's Authorizer.

Under the read-only Authorizer of jupyter_server's docs (``is_authorized`` answers
``action == "read"``), Jupyter's own kernels, contents and terminals refuse every change;
the extension's routes must too: no key replaced or removed, no chat written or deleted,
no MCP server started, no request to the model endpoint (the key spent), no scan. What
only reads still answers. Each route asks with a resource of its own and the action its
method needs (``execute`` to spend a key or start an MCP server).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
from conftest import SECRET_KEY
from jupyter_server.auth.authorizer import Authorizer

from jupyterlab_notebook_agent.chats import ChatStore, default_chats_dir
from jupyterlab_notebook_agent.key_store import KeyStore

#: What the Authorizer was asked, oldest first: (HTTP method, action, resource).
ASKED: list[tuple[str, str, str]] = []

USER_KEY = "sk-user-key-stored-before-0123456789"
NEW_KEY = "sk-replacement-key-from-a-reader-0123"
KERNEL = "00000000-0000-0000-0000-000000000000"
CHAT = {
    "notebook": "a.ipynb",
    "title": "Kept",
    "updated": 1,
    "items": [{"kind": "user", "id": "item-1", "text": "Kept"}],
    "history": [{"role": "user", "content": "Kept"}],
}


class ReadOnlyAuthorizer(Authorizer):
    """The read-only Authorizer of jupyter_server's docs (it also notes what it was asked)."""

    def is_authorized(self, handler, user, action, resource) -> bool:
        ASKED.append((handler.request.method, action, resource))
        return action == "read"


class AllowingAuthorizer(Authorizer):
    """Allows everything, as the default one does, and notes what it was asked."""

    def is_authorized(self, handler, user, action, resource) -> bool:
        ASKED.append((handler.request.method, action, resource))
        return True


@pytest.fixture
def authorizer(request):
    return getattr(request, "param", ReadOnlyAuthorizer)


@pytest.fixture
def marker(tmp_path) -> Path:
    """Written by the MCP server's command the moment it starts."""
    return tmp_path / "mcp-server-started"


@pytest.fixture
def key_file(tmp_path) -> Path:
    path = tmp_path / "keys" / "keys.json"
    KeyStore(path).set("default", USER_KEY)
    return path


@pytest.fixture
def jp_server_config(authorizer, configured, key_file, marker):
    ASKED.clear()
    probe = {"command": sys.executable, "args": ["-c", f"open({str(marker)!r}, 'w').close()"], "start_timeout": 2}
    return {
        "ServerApp": {"jpserver_extensions": {"jupyterlab_notebook_agent": True}, "authorizer_class": authorizer},
        "NotebookAgent": {
            "discover_local_servers": False,
            "key_store_path": str(key_file),
            "mcp_servers": {"probe": probe},
        },
    }


def saved_chat() -> ChatStore:
    store = ChatStore(default_chats_dir())
    store.put("kept", CHAT)
    return store


#: Every route of the extension: method, path, body, the action and resource it must ask for.
CHANGES = [
    ("PUT", "notebook-agent/keys/default", {"api_key": NEW_KEY}, "write", "notebook-agent-keys"),
    ("DELETE", "notebook-agent/keys/default", None, "write", "notebook-agent-keys"),
    ("POST", "notebook-agent/v1/chat/completions", {"messages": [{"role": "user", "content": "hi"}]}, "execute",
     "notebook-agent-proxy"),
    ("POST", "notebook-agent/v1/completions", {"prompt": "df."}, "execute", "notebook-agent-proxy"),
    ("PUT", "notebook-agent/chats/written", CHAT, "write", "notebook-agent-chats"),
    ("DELETE", "notebook-agent/chats/kept", None, "write", "notebook-agent-chats"),
    ("POST", "notebook-agent/mcp/call", {"name": "probe__anything", "arguments": {}}, "execute", "notebook-agent-mcp"),
    ("POST", "notebook-agent/mcp/servers", {}, "execute", "notebook-agent-mcp"),
    ("POST", "notebook-agent/discovery", {}, "write", "notebook-agent-discovery"),
    ("POST", f"notebook-agent/kernels/{KERNEL}/no-wait-restart", {}, "write", "kernels"),
]  # fmt: skip
READS = [
    ("GET", "notebook-agent/config", 200, "notebook-agent-config"),
    ("GET", "notebook-agent/keys/default", 200, "notebook-agent-keys"),
    ("GET", "notebook-agent/v1/models", 200, "notebook-agent-proxy"),
    ("GET", "notebook-agent/discovery", 200, "notebook-agent-discovery"),
    ("GET", "notebook-agent/mcp/servers", 200, "notebook-agent-mcp"),
    ("GET", "notebook-agent/chats", 200, "notebook-agent-chats"),
    ("GET", "notebook-agent/chats/kept", 200, "notebook-agent-chats"),
    ("GET", "notebook-agent/path-check?path=a.ipynb", 200, "notebook-agent-path-check"),
    ("GET", "notebook-agent/models/some-model/config.json", 404, "notebook-agent-models"),  # none served: 404
]


async def send(jp_fetch, method: str, path: str, body=None):
    path, _, query = path.partition("?")
    params = dict(part.split("=", 1) for part in query.split("&")) if query else None
    data = json.dumps(body) if body is not None else (b"" if method in ("PUT", "POST") else None)
    kwargs = {"body": data, "allow_nonstandard_methods": True} if data is not None else {}
    return await jp_fetch(*path.split("/"), method=method, params=params, raise_error=False, **kwargs)


def test_every_route_of_the_extension_asks_the_authorizer(jp_serverapp):
    """Listed from the running server: a route added later without a resource fails here."""
    from jupyterlab_notebook_agent.agent_handler import AuthorizedRoute

    routes = {}
    for rule in jp_serverapp.web_app.default_router.rules:
        for inner in getattr(rule.target, "rules", []):
            pattern = getattr(inner.matcher, "regex", None)
            if pattern is not None and "notebook-agent" in pattern.pattern:
                routes[pattern.pattern] = inner.target
    assert len(routes) >= 12, routes
    for pattern, handler in routes.items():
        assert issubclass(handler, AuthorizedRoute), f"{pattern} ({handler.__name__}) bypasses the Authorizer"
        assert handler.auth_resource, f"{pattern} ({handler.__name__}) names no resource"


async def test_a_read_only_user_changes_runs_and_spends_nothing(jp_fetch, configured, key_file, marker, findings):
    _, script = configured
    store = saved_chat()
    for method, path, body, action, resource in CHANGES:
        with findings.case(f"{method} {path}"):
            ASKED.clear()
            response = await send(jp_fetch, method, path, body)
            assert response.code == 403, (method, path, response.code, response.body[:300])
            assert (method, action, resource) in ASKED, (method, path, ASKED)
            assert f"not authorized to {action}".encode() in response.body
    # Nothing changed, ran or went out.
    assert KeyStore(key_file).get("default") == USER_KEY  # not replaced, not removed
    assert store.get("written") is None and store.get("kept") is not None
    assert not marker.exists(), "the MCP server's command ran"
    findings.leak_if(bool(script.recorded()), "a read-only user's chat request reached the model endpoint")
    assert script.recorded() == []


async def test_a_read_only_user_still_reads(jp_fetch):
    saved_chat()
    for method, path, code, resource in READS:
        ASKED.clear()
        response = await send(jp_fetch, method, path)
        assert response.code == code, (path, response.code, response.body[:300])
        assert ASKED == [(method, "read", resource)], (path, ASKED)
    chats = json.loads((await send(jp_fetch, "GET", "notebook-agent/chats")).body)["chats"]
    assert [c["id"] for c in chats] == ["kept"]
    keys = json.loads((await send(jp_fetch, "GET", "notebook-agent/keys/default")).body)
    assert keys == {"provider": "default", "has_key": True, "key_source": "user"}
    assert SECRET_KEY.encode() not in (await send(jp_fetch, "GET", "notebook-agent/config")).body


@pytest.mark.parametrize("authorizer", [AllowingAuthorizer], indirect=True)
async def test_an_authorizer_that_allows_lets_every_change_through(jp_fetch, configured, key_file, marker):
    _, script = configured
    store = saved_chat()
    script.load([{"content": "allowed"}] * 2)  # the chat and the completion
    # The probe's command is no MCP server (it exits at once): the call fails, after starting it.
    expected = {"notebook-agent/mcp/call": (502, 504), f"notebook-agent/kernels/{KERNEL}/no-wait-restart": (404,)}
    for method, path, body, action, resource in CHANGES:
        if method == "DELETE" and "keys" in path:
            continue  # checked below, after the replaced key
        ASKED.clear()
        response = await send(jp_fetch, method, path, body)
        assert ASKED == [(method, action, resource)], (path, ASKED)
        assert response.code in expected.get(path, (204 if method == "DELETE" else 200,)), (path, response.body[:300])
    assert KeyStore(key_file).get("default") == NEW_KEY
    assert store.get("written") is not None and store.get("kept") is None
    assert marker.exists()
    assert [r["path"] for r in script.recorded()] == ["/v1/chat/completions", "/v1/completions"]
    response = await send(jp_fetch, "DELETE", "notebook-agent/keys/default")
    assert response.code == 200 and KeyStore(key_file).get("default") is None
