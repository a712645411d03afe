"""Forwarding one request to a provider and streaming its answer back.

The server picks the provider, adds its key and forwards to an endpoint
configured on the server, streaming the SSE response back chunk by chunk as it
arrives. Retries, redirects and unreachable endpoints are handled here.

Nothing from the upstream reaches the browser unfiltered (``outbound.py``): its
headers pass an allowlist with validated values, error bodies are scrubbed of
every server-held secret and then cut, and successful bodies (JSON and SSE) are
scrubbed as they stream, a secret split across chunks included, and in a stream
one split across its events' deltas (a key streamed in pieces: ``sse_deltas.py``).

A successful answer that is not a stream (a JSON completion, a model list) is held
until it is whole (up to :data:`MAX_HELD_ANSWER`), so one that breaks off upstream
becomes a 502 saying so, never a 200 with half (or none) of the JSON. A streamed
answer that breaks ends with an error event (``sse_relay.py``); a longer answer than
the hold, broken after part of it went out, ends with the connection closed before
its end, so the client sees a broken transfer rather than a complete one.
"""

from __future__ import annotations

import asyncio
from typing import Any

from tornado.iostream import StreamClosedError

from .agent_handler import _AgentHandler
from .config import NotebookAgent, is_http_url, normalize_base_url
from .key_store import KEY_RULE, KeyStore, is_valid_key
from .outbound import ALLOWED, passed_headers
from .port_owner import trusted_owner
from .providers import Provider, url_only_provider
from .proxy_target import Target
from .redaction import StreamScrubber
from .sse_deltas import DeltaScrubber
from .sse_relay import SseRelay
from .upstream import UpstreamCall, UpstreamResponse, retry_delay

#: Header with which the sidebar may pick one of the server's allowed endpoints.
BASE_URL_HEADER = "X-Notebook-Agent-Base-Url"

#: Header with which the sidebar picks one of the server's providers by name.
PROVIDER_HEADER = "X-Notebook-Agent-Provider"

#: Upstream response headers worth passing on (each value validated, see outbound.py);
#: everything else (cookies, hop-by-hop headers, content length of a body we re-chunk) stays behind.
PASSED_HEADERS = tuple(ALLOWED)

#: Error bodies are buffered (scrubbed as they arrive); longer ones are cut after scrubbing.
MAX_ERROR_BODY = 1024 * 1024

#: A successful answer that is not a stream is held whole up to this size (a completion is far smaller).
MAX_HELD_ANSWER = 16 * 1024 * 1024

NOT_CONFIGURED = (
    "No model endpoint is configured on the Jupyter server. Start JupyterLab with "
    "OPENAI_BASE_URL (and OPENAI_API_KEY if the endpoint needs one) in its environment, "
    "or set c.NotebookAgent.base_url (or c.NotebookAgent.providers) in the server config, then reload."
)


class _ProxyHandler(_AgentHandler):
    """Forwards one request to the selected provider and streams the answer back."""

    auth_resource = "notebook-agent-proxy"

    def initialize(self, agent_config: NotebookAgent, key_store: KeyStore, **_: Any) -> None:
        super().initialize(agent_config, key_store)
        self._client_gone = False
        self._gone = asyncio.Event()
        self._call: UpstreamCall | None = None
        self._error_body = bytearray()
        self._error_scrubber: StreamScrubber | None = None
        self._streaming = False
        self._relay: SseRelay | None = None
        #: The look-behind across a stream's events, for a key streamed in pieces (sse_deltas.py).
        self._deltas: DeltaScrubber | None = None
        #: A successful answer that is not a stream, held until it is whole (None when not held).
        self._held: bytearray | None = None
        self._target_now: Target | None = None

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
        key, source = provider.resolve_key(self.user_keys())
        if key and not is_valid_key(key):
            self.send_json_error(
                500,
                f"The API key for provider {provider.name or provider.public_url!r} (from {source}) cannot be "
                f"sent: {KEY_RULE}. Fix it in the server config, the environment or the stored key.",
                "invalid_key",
            )
            return None
        self._target_now = Target.make(provider, key, self.outbound_matcher())
        return self._target_now

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
            # Media types are case-insensitive (RFC 9110): ``Text/Event-Stream`` is a stream to every client.
            if "text/event-stream" in response.headers.get("Content-Type", "").lower():
                self._relay = SseRelay()  # forwards whole events, so a break can be reported
                matcher = self._target_now.matcher if self._target_now is not None else self.outbound_matcher()
                self._deltas = DeltaScrubber(matcher)
            else:
                self._held = bytearray()  # held whole, so a break can still be a 502
            self._start_response(response)

    def _start_response(self, response: UpstreamResponse) -> None:
        self.set_status(response.status or 502)
        matcher = self._target_now.matcher if self._target_now is not None else self.outbound_matcher()
        for name, value in passed_headers(response.headers, matcher).items():
            self.set_header(name, value)
        self.set_header("Cache-Control", "no-cache")
        self.set_header("X-Accel-Buffering", "no")

    async def _on_upstream_chunk(self, chunk: bytes) -> None:
        if self._client_gone:
            if self._call is not None:
                self._call.close()
            return
        if not self._streaming:
            # Error bodies are scrubbed as they arrive, then cut: a key at the cut is never half kept.
            if len(self._error_body) < MAX_ERROR_BODY and self._error_scrubber is not None:
                self._error_body.extend(self._error_scrubber.feed(chunk))
            return
        if self._held is not None:
            self._held.extend(chunk)
            if len(self._held) <= MAX_HELD_ANSWER:
                return
            # Too long to hold: pass it on as it comes (a break now can only cut the transfer).
            chunk, self._held = bytes(self._held), None
        try:
            if self._relay is not None:
                chunk = self._relay.feed(chunk)
                if not chunk:
                    return
                if self._relay.at_boundary:
                    self.write_events(self._across_events(chunk))  # whole events: nothing more held back
                else:
                    # An event too long to hold goes on as it comes: what the look-behind holds goes out before it,
                    # and the look goes on with the events after it.
                    if self._deltas is not None:
                        self.write_events(self._deltas.flush())
                    self.write(chunk)
            else:
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
            if not self._owner_trusted(provider):
                return
            self._error_body = bytearray()
            self._error_scrubber = StreamScrubber(target.matcher)
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
            scrubbed = bytes(self._error_body) + self._error_scrubber.flush()
            self.finish(scrubbed[:MAX_ERROR_BODY].decode("utf-8", "replace"))
            return

    def _owner_trusted(self, provider: Provider) -> bool:
        """For a server found on loopback: whether it still runs as a user it may (else answer 403 and look again).

        The server found may have stopped since the look, and another user of the machine started one on its
        port: it would receive the prompt, cells and outputs, and steer the agent with its answers.
        """
        if provider.loopback_port is None:
            return True
        trusted, why = trusted_owner(provider.loopback_port)
        if trusted:
            return True
        self.log.warning(
            "Notebook Agent: not forwarding to the model server on port %d: %s", provider.loopback_port, why
        )
        discovery = self.discovery()
        if discovery is not None:
            discovery.start()  # look again: the picker drops it
        self.send_json_error(
            403,
            f"Not forwarding to the model server on port {provider.loopback_port}: {why}, not the one found "
            "there before. Pick a provider again.",
            "untrusted_server",
        )
        return False

    def _across_events(self, events: bytes | None) -> bytes:
        """Whole ``events`` through the look-behind across events; None: what it holds (the look ends)."""
        if self._deltas is None:
            return events or b""
        if events is None:
            deltas, self._deltas = self._deltas, None
            return deltas.flush()
        return self._deltas.feed(events)

    def _held_across_events(self, target: Target, held: bytes) -> bytes:
        """A whole answer not labelled a stream, through the look across events as well.

        A client that asked for a stream reads the answer as SSE whatever its Content-Type (openai-node does), so
        an answer labelled ``application/json`` or ``text/plain`` can still be events whose deltas it joins. A
        plain JSON answer has no ``data:`` line and passes as it is.
        """
        deltas = DeltaScrubber(target.matcher)
        return deltas.feed(held) + deltas.flush()

    def _finish_stream(self, target: Target, broken: BaseException | str | None) -> None:
        """End a streamed answer; a broken one ends with an error event (see sse_relay.py)."""
        relay = self._relay
        if self._held is not None:
            held, self._held = bytes(self._held), None
            if broken is None:
                self.finish(self._held_across_events(target, held))
            else:
                self._broken_answer(target, broken, len(held))
            return
        if broken is not None and relay is None:
            # Part of a long answer went out with a 200 already: end the transfer unfinished.
            self.log.warning("Notebook Agent: a long answer from %s broke off; transfer cut", _label(target.provider))
            stream = getattr(self.request.connection, "stream", None)
            if stream is not None:
                stream.close()
        if broken is None or relay is None:
            if relay is not None:
                self.write_events(self._across_events(None))  # held text of a choice that never finished
            self.finish(relay.flush() if relay is not None else None)
            return
        # What the filters held back belongs before the error event.
        self.write_events(self._across_events(None))
        self.finish(relay.broken(target.redact(str(broken) or type(broken).__name__)))

    def _broken_answer(self, target: Target, broken: BaseException | str, received: int) -> None:
        """A whole answer that broke off upstream: nothing of it went out, so say so with a 502."""
        reason = target.redact(str(broken) or type(broken).__name__)
        where = target.redact(target.provider.public_url)
        self.log.warning("Notebook Agent: the answer of %s broke off after %d bytes: %s", where, received, reason)
        self.clear()  # the 200 and the upstream's headers set when its answer began
        self.send_json_error(
            502,
            f"The model endpoint at {where} broke off its answer after {received} bytes ({reason}); "
            "nothing of it was passed on. Try again; if it keeps happening, check the model server "
            "(or the proxy in front of it).",
            "upstream_broken",
        )

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
        where = target.redact(target.provider.public_url)
        self.log.warning("Notebook Agent: could not reach %s: %s", where, reason)
        self.send_json_error(
            502,
            f"Could not reach the model endpoint at {where} ({reason}). "
            "Check that the model server is running and that OPENAI_BASE_URL "
            "(or c.NotebookAgent.base_url, or the provider's base_url/endpoint) points to it.",
            "endpoint_unreachable",
        )


def _label(provider: Provider) -> str:
    return f"provider {provider.name!r}" if provider.name else provider.public_url
