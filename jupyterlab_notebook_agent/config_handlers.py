"""The sidebar's config and key routes: what it may know, and the user's own keys.

Keys a user types in the sidebar are stored on the server
(``notebook-agent/keys/<provider>``) and never sent back. URLs are shown with
their credentials and query values redacted. A key's PUT body may be at most
:data:`MAX_KEY_BODY` (a 413 beyond, before it is read as JSON).
"""

from __future__ import annotations

import json

from tornado import web

from .agent_handler import _AgentHandler
from .config import public_url
from .discovery import describe as describe_discovery
from .json_input import BadInputError, parse_json_object
from .key_store import KEY_RULE, MAX_KEY_LENGTH, is_valid_key
from .providers import Provider

#: The largest body PUT notebook-agent/keys/<provider> takes. A key is at most 4096 ASCII characters
#: (MAX_KEY_LENGTH): even written as \u escapes (6 bytes each, 24 KiB) in ``{"api_key": ...}`` it fits with
#: room to spare, and a body this small parses in well under a millisecond, so the event loop never waits.
MAX_KEY_BODY = 64 * 1024


class ConfigHandler(_AgentHandler):
    """GET notebook-agent/config: what the sidebar may know (never a key)."""

    auth_resource = "notebook-agent-config"

    @web.authenticated
    async def get(self) -> None:
        await self.discovery_settled()
        providers = self.provider_set()
        store = self.user_keys()
        default = providers.default_provider()
        default_info = default.describe(store) if default else None
        self.finish(
            json.dumps(
                {
                    # The default provider, in the shape earlier releases reported.
                    "configured": default is not None,
                    "base_url": default.public_url if default else None,
                    "model": (default.default_model or None) if default else None,
                    "has_key": bool(default_info and default_info["has_key"]),
                    "allowed_base_urls": [public_url(u) for u in self.agent_config.allowed_base_urls],
                    # Provider profiles.
                    "default_provider": providers.default,
                    "providers": [p.describe(store) for p in providers.providers.values()],
                    "allow_user_keys": bool(self.agent_config.allow_user_keys),
                    # Model servers found on loopback (offered as providers when none is configured).
                    "discovery": describe_discovery(self.discovery()),
                }
            )
        )


class KeysHandler(_AgentHandler):
    """GET/PUT/DELETE notebook-agent/keys/<provider>: the user's own key, stored on the server.

    Answers only ``{"provider", "has_key", "key_source"}``, never the key.
    """

    auth_resource = "notebook-agent-keys"

    def _provider(self, name: str) -> Provider | None:
        providers = self.provider_set()
        provider = providers.providers.get(name)
        if provider is None:
            self.unknown_provider(name, providers)
        return provider

    def _allowed(self) -> bool:
        if self.agent_config.allow_user_keys:
            return True
        self.send_json_error(
            403,
            "This Jupyter server does not store user API keys (c.NotebookAgent.allow_user_keys = False). "
            "Ask its admin to configure the provider's key.",
            "user_keys_disabled",
        )
        return False

    def _writable_provider(self, name: str) -> Provider | None:
        """The provider whose stored key may change, or None once an error was sent."""
        return self._provider(name) if self._allowed() else None

    def _answer(self, provider: Provider) -> None:
        key, source = provider.resolve_key(self.user_keys())
        self.finish(json.dumps({"provider": provider.name, "has_key": bool(key), "key_source": source}))

    @web.authenticated
    async def get(self, name: str) -> None:
        # A found local server is a provider once the first look settled (as for config).
        await self.discovery_settled()
        provider = self._provider(name)
        if provider is not None:
            self._answer(provider)

    @web.authenticated
    async def put(self, name: str) -> None:
        body = self.request.body or b""
        if len(body) > MAX_KEY_BODY:
            self.send_json_error(
                413,
                f"The body is {len(body) // 1024} KB; this route takes at most {MAX_KEY_BODY // 1024} KB. "
                f'Send only {{"api_key": "<key>"}}: a key is at most {MAX_KEY_LENGTH} characters.',
                "request_too_large",
            )
            return
        await self.discovery_settled()
        provider = self._writable_provider(name)
        if provider is None:
            return
        # Never quote what was sent: it may be a key.
        try:
            payload = parse_json_object(body, "The body")
        except BadInputError as error:
            self.send_json_error(400, f'{error} Send {{"api_key": "<key>"}}.', "invalid_key")
            return
        key = payload.get("api_key")
        if not isinstance(key, str) or not is_valid_key(key.strip()):
            what = "is missing" if key is None else "is not a string" if not isinstance(key, str) else "was refused"
            self.send_json_error(400, f'api_key {what}: send {{"api_key": "<key>"}}; {KEY_RULE}.', "invalid_key")
            return
        try:
            self.key_store.set(provider.name, key.strip())
        except OSError as error:
            self.log.error("Notebook Agent: could not store the key for %r: %s", provider.name, error.strerror)
            self.send_json_error(500, f"Could not store the key ({error.strerror}).", "key_store_error")
            return
        self.log.info("Notebook Agent: stored a user key for provider %r", provider.name)
        self._answer(provider)

    @web.authenticated
    async def delete(self, name: str) -> None:
        await self.discovery_settled()
        provider = self._writable_provider(name)
        if provider is None:
            return
        try:
            removed = self.key_store.delete(provider.name)
        except OSError as error:
            self.send_json_error(500, f"Could not remove the key ({error.strerror}).", "key_store_error")
            return
        if removed:
            self.log.info("Notebook Agent: removed the user key for provider %r", provider.name)
        self._answer(provider)
