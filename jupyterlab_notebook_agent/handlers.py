"""The model proxy: authenticated Jupyter handlers that forward chat requests.

The browser talks only to its own Jupyter server (no CORS, no key in the
browser); the server picks the provider, adds its key and forwards to an
endpoint configured on the server, streaming the SSE response back chunk by
chunk as it arrives. Keys a user types in the sidebar are stored on the server
(``notebook-agent/keys/<provider>``) and never sent back.
"""

from __future__ import annotations

import asyncio
import json
from dataclasses import dataclass
from typing import Any

from jupyter_server.base.handlers import APIHandler
from jupyter_server.utils import url_path_join
from tornado import web
from tornado.iostream import StreamClosedError

from .config import NotebookAgent, is_http_url, normalize_base_url
from .key_store import KeyStore, default_key_store_path, is_valid_key
from .models_handler import models_handlers
from .providers import Provider, ProviderSet, resolve_providers, url_only_provider
from .sse_relay import SseRelay
from .upstream import UpstreamCall, UpstreamResponse, retry_delay

#: Header with which the sidebar may pick one of the server's allowed endpoints.
BASE_URL_HEADER = "X-Notebook-Agent-Base-Url"

#: Header with which the sidebar picks one of the server's providers by name.
PROVIDER_HEADER = "X-Notebook-Agent-Provider"

#: Upstream response headers worth passing on; everything else (cookies,
#: hop-by-hop headers, content length of a body we re-chunk) stays behind.
PASSED_HEADERS = ("Content-Type", "X-Request-Id", "Openai-Processing-Ms", "Retry-After", "Retry-After-Ms")

#: Error bodies are buffered whole (to scrub keys); longer ones are cut.
MAX_ERROR_BODY = 1024 * 1024

NOT_CONFIGURED = (
    "No model endpoint is configured on the Jupyter server. Start JupyterLab with "
    "OPENAI_BASE_URL (and OPENAI_API_KEY if the endpoint needs one) in its environment, "
    "or set c.NotebookAgent.base_url (or c.NotebookAgent.providers) in the server config, then reload."
)


@dataclass(frozen=True)
class Target:
    """The provider a request goes to, with the key resolved for it."""

    provider: Provider
    key: str

    def redact(self, text: str) -> str:
        for secret in self.provider.secrets(self.key):
            text = text.replace(secret, "[redacted]")
        return text


class _AgentHandler(APIHandler):
    """Shared by every route: the config, the key store, and JSON errors."""

    agent_config: NotebookAgent
    key_store: KeyStore

    def initialize(self, agent_config: NotebookAgent, key_store: KeyStore, **_: Any) -> None:
        self.agent_config = agent_config
        self.key_store = key_store

    def user_keys(self) -> KeyStore | None:
        """The key store, or None when the admin turned user keys off (stored keys are then ignored)."""
        return self.key_store if self.agent_config.allow_user_keys else None

    def provider_set(self) -> ProviderSet:
        return resolve_providers(self.agent_config)

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


class _ProxyHandler(_AgentHandler):
    """Forwards one request to the selected provider and streams the answer back."""

    def initialize(self, agent_config: NotebookAgent, key_store: KeyStore, **_: Any) -> None:
        super().initialize(agent_config, key_store)
        self._client_gone = False
        self._gone = asyncio.Event()
        self._call: UpstreamCall | None = None
        self._error_body = bytearray()
        self._streaming = False
        self._relay: SseRelay | None = None

    def on_connection_close(self) -> None:
        # The browser went away (the user pressed Stop): abort upstream now, even
        # if the model is stalled and no further chunk would ever reach us.
        self._client_gone = True
        self._gone.set()
        if self._call is not None:
            self._call.close()
        super().on_connection_close()

    # -- choosing where to forward ---------------------------------------------------------

    def _select_target(self) -> Target | None:
        """The provider to forward to, or None after answering with an error.

        ``X-Notebook-Agent-Provider`` names a provider; without it the default one is
        used. ``X-Notebook-Agent-Base-Url`` (as before providers existed) must match
        that provider's URL — or, with no provider named, any provider's — or be one
        of ``allowed_base_urls`` (forwarded to without a key).
        """
        providers = self.provider_set()
        name = (self.request.headers.get(PROVIDER_HEADER) or "").strip()
        requested = (self.request.headers.get(BASE_URL_HEADER) or "").strip()
        provider: Provider | None = None
        if name:
            provider = providers.providers.get(name)
            if provider is None:
                self.unknown_provider(name, providers)
                return None
        if requested:
            wanted = normalize_base_url(requested)
            if provider is not None:
                candidates = [provider]
            else:
                default = providers.default_provider()
                candidates = ([default] if default else []) + list(providers.providers.values())
            matched = next((p for p in candidates if p.base_url == wanted), None)
            if matched is not None:
                return self._target(matched)
            allowed = {normalize_base_url(u) for u in self.agent_config.allowed_base_urls}
            if wanted in allowed and is_http_url(wanted):
                return self._target(url_only_provider(wanted))
            self.send_json_error(
                403,
                f"The Jupyter server is not configured to forward to {requested}. "
                "Ask the server's admin to add it to c.NotebookAgent.allowed_base_urls, "
                "or clear the base URL in the Notebook Agent settings to use the server's endpoint.",
                "endpoint_not_allowed",
            )
            return None
        provider = provider or providers.default_provider()
        if provider is None:
            self.send_json_error(503, NOT_CONFIGURED, "not_configured")
            return None
        return self._target(provider)

    def _target(self, provider: Provider) -> Target | None:
        key, _ = provider.resolve_key(self.user_keys())
        if key and not is_valid_key(key):
            self.send_json_error(
                500,
                f"The API key for provider {provider.name or provider.base_url!r} contains spaces or control "
                "characters; fix it in the server config, the environment or the stored key.",
                "invalid_key",
            )
            return None
        return Target(provider, key)

    def default_model_for(self, target: Target) -> str:
        """The model filled in when the browser sent none."""
        if target.provider.keyed:
            return target.provider.default_model
        # An allowed_base_urls endpoint has no profile: use the default provider's model, as before.
        default = self.provider_set().default_provider()
        return default.default_model if default else ""

    # -- talking to the upstream -------------------------------------------------------------

    def _on_upstream_headers(self, response: UpstreamResponse) -> None:
        if response.status is not None and response.status < 300:
            # Success: start our response right away; from here on there is no retry.
            self._streaming = True
            if "text/event-stream" in response.headers.get("Content-Type", ""):
                self._relay = SseRelay()  # forwards whole events, so a break can be reported
            self._start_response(response)

    def _start_response(self, response: UpstreamResponse) -> None:
        self.set_status(response.status or 502)
        for name in PASSED_HEADERS:
            if name in response.headers:
                self.set_header(name, response.headers[name])
        self.set_header("Cache-Control", "no-cache")
        self.set_header("X-Accel-Buffering", "no")

    async def _on_upstream_chunk(self, chunk: bytes) -> None:
        if self._client_gone:
            if self._call is not None:
                self._call.close()
            return
        if not self._streaming:
            # Error bodies are buffered so the key can be scrubbed from them whole.
            if len(self._error_body) < MAX_ERROR_BODY:
                self._error_body.extend(chunk[: MAX_ERROR_BODY - len(self._error_body)])
            return
        if self._relay is not None:
            chunk = self._relay.feed(chunk)
            if not chunk:
                return
        try:
            self.write(chunk)
            await self.flush()  # back-pressure: read upstream no faster than the browser reads
        except StreamClosedError:
            self.on_connection_close()

    async def _forward(self, method: str, target: Target, url: str, body: bytes | None) -> None:
        provider = target.provider
        headers = {"Accept": self.request.headers.get("Accept", "application/json")}
        if body is not None:
            headers["Content-Type"] = "application/json"
        headers.update(provider.upstream_headers(target.key))
        attempt = 0
        while True:
            self._error_body = bytearray()
            self._call = UpstreamCall(
                url,
                method=method,
                headers=headers,
                body=body,
                on_headers=self._on_upstream_headers,
                on_chunk=self._on_upstream_chunk,
            )
            try:
                response = await self._call.run()
            except Exception as error:  # noqa: BLE001 - connection errors of every kind
                if self._client_gone:
                    return
                if self._streaming:
                    self.log.warning("Notebook Agent: upstream stream broke: %s", target.redact(str(error)))
                    self._finish_stream(target, error)
                    return
                self._unreachable(target, error)
                return
            if self._client_gone:
                self.log.info("Notebook Agent: the browser closed the request; upstream request aborted")
                return
            if self._streaming:
                self._finish_stream(target, None if response.complete else "the connection closed early")
                return
            status = response.status
            if status is None:
                self._unreachable(target, None)
                return
            wait = retry_delay(
                status, response.headers, attempt, self.agent_config.max_retries, self.agent_config.max_retry_wait
            )
            if wait is not None:
                attempt += 1
                self.log.info(
                    "Notebook Agent: %s answered %s; retry %d of %d in %.1f s",
                    _label(provider),
                    status,
                    attempt,
                    self.agent_config.max_retries,
                    wait,
                )
                if await self._wait_unless_gone(wait):
                    return
                continue
            if 300 <= status < 400:
                self._redirected(target, response)
                return
            self._start_response(response)
            # The proxy applied its retry policy already: the client must not retry on top of it.
            self.set_header("X-Should-Retry", "false")
            self.finish(target.redact(self._error_body.decode("utf-8", "replace")))
            return

    def _finish_stream(self, target: Target, broken: BaseException | str | None) -> None:
        """End a streamed answer; a broken one ends with an error event (see sse_relay.py)."""
        relay = self._relay
        if broken is None or relay is None:
            self.finish(relay.flush() if relay is not None else None)
            return
        self.finish(relay.broken(target.redact(str(broken) or type(broken).__name__)))

    def _redirected(self, target: Target, response: UpstreamResponse) -> None:
        """Redirects are never followed: the proxy talks to configured endpoints only."""
        location = target.redact(response.headers.get("Location", "") or "nowhere")
        self.log.warning("Notebook Agent: %s redirected to %s; not followed", _label(target.provider), location)
        self.send_json_error(
            502,
            f"The model endpoint answered with a redirect ({response.status} to {location}), which the Jupyter "
            "server does not follow: it forwards only to the endpoints configured on it. Set the provider's "
            "base URL to the address the endpoint really serves.",
            "upstream_redirect",
        )

    async def _wait_unless_gone(self, seconds: float) -> bool:
        """Sleep before a retry; True if the browser went away meanwhile."""
        try:
            await asyncio.wait_for(self._gone.wait(), timeout=seconds)
        except asyncio.TimeoutError:
            return False
        return True

    def _unreachable(self, target: Target, error: BaseException | None) -> None:
        reason = target.redact(str(error) or type(error).__name__) if error else "no response"
        where = target.redact(target.provider.base_url)
        self.log.warning("Notebook Agent: could not reach %s: %s", where, reason)
        self.send_json_error(
            502,
            f"Could not reach the model endpoint at {where} ({reason}). "
            "Check that the model server is running and that OPENAI_BASE_URL "
            "(or c.NotebookAgent.base_url, or the provider's base_url/endpoint) points to it.",
            "endpoint_unreachable",
        )


def _label(provider: Provider) -> str:
    return f"provider {provider.name!r}" if provider.name else provider.base_url


class ChatCompletionsHandler(_ProxyHandler):
    """POST notebook-agent/v1/chat/completions."""

    @web.authenticated
    async def post(self) -> None:
        target = self._select_target()
        if target is None:
            return
        body, model = _with_default_model(self.request.body, self.default_model_for(target))
        # Azure: the deployment in the URL selects the model; the body's "model" is kept
        # as sent (Azure ignores it) and, when it names a listed deployment, picks that one.
        await self._forward("POST", target, target.provider.chat_url(model), body)


class ModelsHandler(_ProxyHandler):
    """GET notebook-agent/v1/models."""

    @web.authenticated
    async def get(self) -> None:
        target = self._select_target()
        if target is None:
            return
        ids = target.provider.model_ids()
        if ids:
            # Configured models (Azure: the deployments) are the answer: Azure's own
            # model list names base models, which are not valid in a deployment URL.
            owner = target.provider.name or "server"
            data = [{"id": i, "object": "model", "created": 0, "owned_by": owner} for i in ids]
            self.finish(json.dumps({"object": "list", "data": data}))
            return
        await self._forward("GET", target, target.provider.models_url(), None)


class ConfigHandler(_AgentHandler):
    """GET notebook-agent/config: what the sidebar may know (never a key)."""

    @web.authenticated
    def get(self) -> None:
        providers = self.provider_set()
        store = self.user_keys()
        default = providers.default_provider()
        default_info = default.describe(store) if default else None
        self.finish(
            json.dumps(
                {
                    # The default provider, in the shape earlier releases reported.
                    "configured": default is not None,
                    "base_url": default.base_url if default else None,
                    "model": (default.default_model or None) if default else None,
                    "has_key": bool(default_info and default_info["has_key"]),
                    "allowed_base_urls": list(self.agent_config.allowed_base_urls),
                    # Provider profiles.
                    "default_provider": providers.default,
                    "providers": [p.describe(store) for p in providers.providers.values()],
                    "allow_user_keys": bool(self.agent_config.allow_user_keys),
                }
            )
        )


class KeysHandler(_AgentHandler):
    """GET/PUT/DELETE notebook-agent/keys/<provider>: the user's own key, stored on the server.

    Answers only ``{"provider", "has_key", "key_source"}``, never the key.
    """

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
    def get(self, name: str) -> None:
        provider = self._provider(name)
        if provider is not None:
            self._answer(provider)

    @web.authenticated
    def put(self, name: str) -> None:
        provider = self._writable_provider(name)
        if provider is None:
            return
        try:
            payload = json.loads(self.request.body or b"{}")
        except ValueError:
            payload = None
        key = payload.get("api_key") if isinstance(payload, dict) else None
        if not isinstance(key, str) or not is_valid_key(key.strip()):
            # Never quote what was sent: it may be a key.
            self.send_json_error(
                400,
                'Send {"api_key": "<key>"}: a non-empty key without spaces or control characters.',
                "invalid_key",
            )
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
    def delete(self, name: str) -> None:
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


def _with_default_model(body: bytes, model: str) -> tuple[bytes, str | None]:
    """Fill in the default model when the browser sent none; returns the body and its model."""
    try:
        payload: Any = json.loads(body or b"{}")
    except ValueError:
        return body, None  # let the upstream server report the malformed request
    if not isinstance(payload, dict):
        return body, None
    if not payload.get("model") and model:
        payload["model"] = model
        return json.dumps(payload).encode(), model
    sent = payload.get("model")
    return body, sent if isinstance(sent, str) else None


def setup_handlers(web_app: Any, agent_config: NotebookAgent, key_store: KeyStore | None = None) -> None:
    """Register the proxy routes (and the local models folder) under the server's base_url."""
    if key_store is None:
        key_store = KeyStore(agent_config.key_store_path or default_key_store_path())
    base = url_path_join(web_app.settings["base_url"], "notebook-agent")
    options = {"agent_config": agent_config, "key_store": key_store}
    web_app.add_handlers(
        ".*$",
        [
            (url_path_join(base, "v1", "chat", "completions"), ChatCompletionsHandler, options),
            (url_path_join(base, "v1", "models"), ModelsHandler, options),
            (url_path_join(base, "config"), ConfigHandler, options),
            (url_path_join(base, "keys", r"([^/]+)"), KeysHandler, options),
            *models_handlers(web_app.settings["base_url"], agent_config.local_models_dir),
        ],
    )
