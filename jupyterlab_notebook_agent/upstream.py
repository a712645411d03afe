"""One upstream HTTP request that the proxy can abort at any moment, and the retry policy.

Tornado's ``AsyncHTTPClient`` offers no way to cancel a request in flight: the
proxy could only raise from the streaming callback, i.e. when the *next* chunk
arrives, so a stalled model kept generating (and billing) after the user pressed
Stop. This module drives one HTTP/1.1 exchange with Tornado's public building
blocks (``TCPClient`` + ``HTTP1Connection``) and keeps the socket, so
:meth:`UpstreamCall.close` ends the upstream request immediately.
"""

from __future__ import annotations

import asyncio
import math
import random
import ssl
import time
from collections.abc import Awaitable, Mapping
from dataclasses import dataclass, field
from email.utils import parsedate_to_datetime
from typing import Any, Callable, Optional
from urllib.parse import urlsplit

from tornado.http1connection import HTTP1Connection, HTTP1ConnectionParameters
from tornado.httputil import HTTPHeaders, HTTPMessageDelegate, RequestStartLine, ResponseStartLine
from tornado.ioloop import IOLoop
from tornado.iostream import IOStream, StreamClosedError
from tornado.tcpclient import TCPClient

#: Upstream statuses worth another try: rate limits and overloaded or restarting gateways.
RETRYABLE_STATUSES = frozenset({429, 502, 503, 504})

#: First backoff when the upstream sent no Retry-After; doubled on each further try.
BACKOFF_BASE_S = 0.5

#: Largest response the proxy will relay (a long non-streamed completion is far smaller).
MAX_BODY_BYTES = 512 * 1024 * 1024
MAX_HEADER_BYTES = 64 * 1024

OnHeaders = Callable[["UpstreamResponse"], Optional[Awaitable[None]]]
OnChunk = Callable[[bytes], Optional[Awaitable[None]]]


class UpstreamTimeoutError(Exception):
    """The upstream took longer than the request timeout."""


@dataclass
class UpstreamResponse:
    """What the upstream answered so far."""

    status: int | None = None
    reason: str = ""
    headers: HTTPHeaders = field(default_factory=HTTPHeaders)
    #: True once the whole body was read; False when the connection closed early.
    complete: bool = False


class _Delegate(HTTPMessageDelegate):
    """Hands the response to the caller's callbacks as it is parsed."""

    def __init__(self, response: UpstreamResponse, on_headers: OnHeaders, on_chunk: OnChunk) -> None:
        self.response = response
        self.on_headers = on_headers
        self.on_chunk = on_chunk

    def headers_received(self, start_line: Any, headers: HTTPHeaders) -> Awaitable[None] | None:
        assert isinstance(start_line, ResponseStartLine)
        self.response.status = start_line.code
        self.response.reason = start_line.reason
        self.response.headers = headers
        return self.on_headers(self.response)

    def data_received(self, chunk: bytes) -> Awaitable[None] | None:
        # Returning the caller's awaitable makes the connection wait for it: a
        # slow browser slows down reading from the upstream (back-pressure).
        return self.on_chunk(chunk)

    def finish(self) -> None:
        self.response.complete = True

    def on_connection_close(self) -> None:
        pass  # ``complete`` stays False; the caller decides what that means


class UpstreamCall:
    """One request to the model endpoint; :meth:`close` aborts it at any point."""

    def __init__(
        self,
        url: str,
        *,
        method: str,
        headers: Mapping[str, str],
        body: bytes | None,
        on_headers: OnHeaders,
        on_chunk: OnChunk,
        connect_timeout: float = 15.0,
        request_timeout: float = 900.0,
    ) -> None:
        self.url = url
        self.method = method
        self.headers = dict(headers)
        self.body = body
        self.response = UpstreamResponse()
        self._delegate = _Delegate(self.response, on_headers, on_chunk)
        self.connect_timeout = connect_timeout
        self.request_timeout = request_timeout
        self._closed = False
        self._timed_out = False
        self._connecting: asyncio.Future[IOStream] | None = None
        self._stream: IOStream | None = None

    @property
    def closed(self) -> bool:
        """True once :meth:`close` was called (by the proxy, not by the upstream)."""
        return self._closed

    def close(self) -> None:
        """Abort now: cancel the connect, or close the socket mid-response."""
        self._closed = True
        if self._connecting is not None and not self._connecting.done():
            self._connecting.cancel()
        if self._stream is not None:
            self._stream.close()

    def _on_timeout(self) -> None:
        self._timed_out = True
        self.close()

    async def run(self) -> UpstreamResponse:
        """Send the request and read the response through the callbacks.

        Returns the response (``complete`` False when :meth:`close` cut it short);
        raises on connection errors and timeouts.
        """
        parts = urlsplit(self.url)
        https = parts.scheme == "https"
        host = parts.hostname or ""
        port = parts.port or (443 if https else 80)
        target = (parts.path or "/") + (f"?{parts.query}" if parts.query else "")
        host_header = f"[{host}]" if ":" in host else host
        if parts.port:
            host_header += f":{parts.port}"
        headers = HTTPHeaders(
            {
                "Host": host_header,
                "Connection": "close",
                "Accept-Encoding": "gzip",
                "User-Agent": "jupyterlab-notebook-agent",
            }
        )
        for name, value in self.headers.items():
            headers[name] = value
        if self.body is not None:
            headers["Content-Length"] = str(len(self.body))

        loop = IOLoop.current()
        timeout = loop.call_later(self.request_timeout, self._on_timeout)
        try:
            self._connecting = asyncio.ensure_future(
                TCPClient().connect(
                    host,
                    port,
                    ssl_options=ssl.create_default_context() if https else None,
                    max_buffer_size=MAX_BODY_BYTES,
                    timeout=self.connect_timeout,
                )
            )
            try:
                stream = await self._connecting
            except asyncio.CancelledError:
                if self._closed:
                    return self._finished()
                raise
            if self._closed:
                stream.close()
                return self._finished()
            self._stream = stream
            stream.set_nodelay(True)
            connection = HTTP1Connection(
                stream,
                True,
                HTTP1ConnectionParameters(
                    no_keep_alive=True,
                    max_header_size=MAX_HEADER_BYTES,
                    max_body_size=MAX_BODY_BYTES,
                    decompress=True,
                ),
            )
            connection.write_headers(RequestStartLine(self.method, target, "HTTP/1.1"), headers)
            if self.body is not None:
                connection.write(self.body)
            connection.finish()
            try:
                await connection.read_response(self._delegate)
            except StreamClosedError:
                if not self._closed:
                    raise
            return self._finished()
        finally:
            loop.remove_timeout(timeout)
            if self._stream is not None:
                self._stream.close()

    def _finished(self) -> UpstreamResponse:
        if self._timed_out:
            raise UpstreamTimeoutError(f"no complete answer within {self.request_timeout:g} s")
        return self.response


def _finite(text: str | None) -> float | None:
    """``text`` as a finite number, or None (``float`` also reads ``inf``, ``nan`` and ``1e400``)."""
    try:
        value = float(text) if text else None
    except ValueError:
        return None
    return value if value is not None and math.isfinite(value) else None


def parse_retry_after(headers: Mapping[str, str], now: float | None = None) -> float | None:
    """Seconds the upstream asked us to wait, from ``retry-after-ms`` or ``Retry-After``.

    ``Retry-After`` may be delta-seconds or an HTTP date (RFC 9110); OpenAI also
    sends the more precise ``retry-after-ms``. None when absent or unreadable.
    """
    millis = _finite(headers.get("retry-after-ms"))
    if millis is not None:
        return max(0.0, millis / 1000)
    value = (headers.get("Retry-After") or "").strip()
    if not value:
        return None
    seconds = _finite(value)
    if seconds is not None:
        return max(0.0, seconds)
    try:
        when = parsedate_to_datetime(value)
    except (TypeError, ValueError, IndexError):
        return None
    return max(0.0, when.timestamp() - (time.time() if now is None else now))


def retry_delay(
    status: int, headers: Mapping[str, str], attempt: int, max_retries: int, max_wait: float
) -> float | None:
    """How long to wait before retrying after ``status``, or None to give up.

    ``attempt`` counts the retries already made. A Retry-After longer than
    ``max_wait`` is not waited for: the answer goes to the browser at once (with
    its Retry-After), rather than holding the request open and likely failing.
    """
    if status not in RETRYABLE_STATUSES or attempt >= max_retries:
        return None
    after = parse_retry_after(headers)
    if after is None:
        backoff = BACKOFF_BASE_S * (2**attempt)
        return min(max_wait, backoff * random.uniform(1.0, 1.25))  # jitter, not crypto
    return after if after <= max_wait else None
