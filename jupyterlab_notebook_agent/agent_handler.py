"""The base of every model-proxy route: the config, the key store, and JSON error bodies.

And :class:`AuthorizedRoute`, through which every route of the extension asks Jupyter
Server's Authorizer (``c.ServerApp.authorizer_class``) before its method runs, each with a
resource of its own:

==============================  ==========================================  ==========================
resource                        routes (under ``notebook-agent/``)           actions
==============================  ==========================================  ==========================
``notebook-agent-proxy``        ``v1/models``, ``v1/chat/completions``,      GET read; POST execute
                                ``v1/completions``
``notebook-agent-config``       ``config``                                   GET read
``notebook-agent-keys``         ``keys/<provider>``                          GET read; PUT, DELETE write
``notebook-agent-discovery``    ``discovery``                                GET read; POST write
``notebook-agent-chats``        ``chats``, ``chats/<id>``                    GET read; PUT, DELETE write
``notebook-agent-mcp``          ``mcp/servers``, ``mcp/call``                GET read; POST execute
``notebook-agent-path-check``   ``path-check``                               GET read
``notebook-agent-models``       ``models/<file>`` (local model files)        GET, HEAD read
``kernels``                     ``kernels/<id>/no-wait-restart``             POST write (as the kernels API)
``notebook-agent-outside``      ``mcp`` (outside agents' MCP endpoint)       read to connect; per tool read,
                                                                             write or execute
==============================  ==========================================  ==========================

A chat completion (and a completion) needs ``execute``: it spends the key the server holds (often the admin's)
and its answer drives code the agent runs, as a kernel or a terminal does; it stores nothing,
so ``write`` (editing files, saving chats) does not imply it. Starting the MCP servers
(``POST mcp/servers``) needs ``execute`` too, as calling them does: it runs their commands;
``GET mcp/servers`` only shows them as they are.
"""

from __future__ import annotations

import inspect
import json
from typing import Any

from jupyter_server.auth.decorator import authorized
from jupyter_server.auth.utils import HTTP_METHOD_TO_AUTH_ACTION
from jupyter_server.base.handlers import APIHandler, JupyterHandler
from tornado import web

from .config import NotebookAgent
from .discovery import SETTINGS_KEY, LocalDiscovery, with_found
from .key_store import KeyStore
from .outbound import OutboundFilter
from .providers import ProviderSet, resolve_providers


def _allowed(_handler: Any) -> None:
    """What :func:`authorized` guards in :meth:`AuthorizedRoute.prepare`: nothing more to do."""


class AuthorizedRoute(JupyterHandler):
    """Asks Jupyter's Authorizer, before any method runs, whether the user may do this here.

    ``auth_resource`` names the route's resource (a route without one is refused). The
    action is Jupyter's own for the HTTP method (GET/HEAD/OPTIONS read, POST/PUT/PATCH/DELETE
    write), except for the methods in ``auth_execute``, which need ``execute``. The check is
    jupyter_server's own :func:`~jupyter_server.auth.decorator.authorized` (403 when
    refused). A request with no user is left to ``@web.authenticated`` on the method.
    """

    auth_resource: str = ""
    auth_execute: tuple[str, ...] = ()

    def auth_action(self) -> str:
        method = (self.request.method or "").upper()
        return "execute" if method in self.auth_execute else HTTP_METHOD_TO_AUTH_ACTION.get(method, "execute")

    async def prepare(self) -> None:  # type: ignore[override]
        prepared = super().prepare()
        if inspect.isawaitable(prepared):
            await prepared
        if self._finished or not self.current_user:
            return
        if not self.auth_resource:
            raise web.HTTPError(403, f"{type(self).__name__} names no resource to authorize.")
        # jupyter_server 2.4 (the floor) wraps a plain function plainly (nothing to await); later ones
        # always return a coroutine. Both raise the same 403.
        checked = authorized(self.auth_action(), self.auth_resource)(_allowed)(self)
        if inspect.isawaitable(checked):
            await checked


class _AgentHandler(AuthorizedRoute, OutboundFilter, APIHandler):
    """Shared by every route: the config, the key store, JSON errors, and the outbound filter."""

    agent_config: NotebookAgent
    key_store: KeyStore

    def initialize(self, agent_config: NotebookAgent, key_store: KeyStore, **_: Any) -> None:
        self.agent_config = agent_config
        self.key_store = key_store

    def user_keys(self) -> KeyStore | None:
        """The key store, or None when the admin turned user keys off (stored keys are then ignored)."""
        return self.key_store if self.agent_config.allow_user_keys else None

    def provider_set(self) -> ProviderSet:
        # With no endpoint configured, the model servers found on loopback (discovery.py).
        return with_found(resolve_providers(self.agent_config), self.discovery())

    def discovery(self) -> LocalDiscovery | None:
        return self.settings.get(SETTINGS_KEY)

    async def discovery_settled(self) -> None:
        """Let a look for local servers under way finish first (it takes a second at most)."""
        discovery = self.discovery()
        if discovery is not None:
            await discovery.settled()

    def send_json_error(self, status: int, message: str, kind: str, **extra: Any) -> None:
        self.set_status(status)
        self.set_header("Content-Type", "application/json")
        # A configuration problem will not fix itself: tell the openai client not to retry.
        self.set_header("X-Should-Retry", "false")
        self.finish(json.dumps({"error": {"message": message, "type": kind, **extra}}))

    def unknown_provider(self, name: str, providers: ProviderSet) -> None:
        known = list(providers.providers)
        self.send_json_error(
            404,
            f"The Jupyter server has no model provider named {name!r}. "
            f"Known providers: {', '.join(known) if known else 'none'}.",
            "unknown_provider",
            providers=known,
        )
