"""The base of every model-proxy route: the config, the key store, and JSON error bodies."""

from __future__ import annotations

import json
from typing import Any

from jupyter_server.base.handlers import APIHandler

from .config import NotebookAgent
from .discovery import SETTINGS_KEY, LocalDiscovery, with_found
from .key_store import KeyStore
from .outbound import OutboundFilter
from .providers import ProviderSet, resolve_providers


class _AgentHandler(OutboundFilter, APIHandler):
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
