"""The one filter every byte the extension sends to the browser goes through.

* Response headers taken from an upstream pass an allowlist, each value validated
  (:func:`passed_headers`); before the headers go out, any header holding a secret is dropped.
* Every body (JSON answers, error messages, upstream error bodies, streamed answers) is
  scrubbed by a :class:`~.redaction.StreamScrubber`: a secret split across chunks is still
  caught, and memory stays bounded however long the stream.

:class:`OutboundFilter` is mixed into every handler of the extension; it finds the
server's secrets in the tornado settings (:mod:`.server_secrets`).
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from typing import Any

from tornado.web import RequestHandler

from .redaction import SecretMatcher, StreamScrubber, matcher_for
from .server_secrets import server_secrets
from .upstream import parse_retry_after

_NUMBER = re.compile(r"\d{1,12}(?:\.\d{1,6})?")
_REQUEST_ID = re.compile(r"[A-Za-z0-9._:/+=-]{1,128}")
_CONTENT_TYPE = re.compile(
    r"(application/json|text/event-stream|text/plain)(\s*;\s*charset=[A-Za-z0-9_-]{1,32})?", re.IGNORECASE
)


def _retry_after(value: str) -> str | None:
    seconds = parse_retry_after({"Retry-After": value})
    return None if seconds is None else str(min(round(seconds), 10**9))


#: Upstream headers the browser may see, each with the check (or rewrite) of its value.
ALLOWED = {
    "Content-Type": lambda v: v if _CONTENT_TYPE.fullmatch(v) else None,
    "X-Request-Id": lambda v: v if _REQUEST_ID.fullmatch(v) else None,
    "Openai-Processing-Ms": lambda v: v if _NUMBER.fullmatch(v) else None,
    "Retry-After": _retry_after,  # delta-seconds only; an HTTP date becomes seconds
    "Retry-After-Ms": lambda v: v if _NUMBER.fullmatch(v) else None,
}


def passed_headers(upstream: Mapping[str, str], matcher: SecretMatcher) -> dict[str, str]:
    """The upstream headers to pass on: allowlisted, valid, and holding no secret."""
    passed = {}
    for name, check in ALLOWED.items():
        value = upstream.get(name)
        if value is None:
            continue
        checked = check(value.strip())
        if checked is not None and not matcher.contains(checked.encode("latin-1", "replace")):
            passed[name] = checked
    return passed


class OutboundFilter(RequestHandler):
    """Scrubs every header and body byte of a response of the server's secrets.

    Bodies written with :meth:`write` may hold back the last few bytes (a secret could
    continue in the next chunk) until the next write or :meth:`finish`; :meth:`write_events`
    is for data that ends where no secret can continue (whole SSE events).
    """

    _scrubber: StreamScrubber | None = None

    def outbound_matcher(self) -> SecretMatcher:
        """The server's secrets now (none when the extension's settings are missing)."""
        secrets = server_secrets(self.settings)
        return secrets.matcher() if secrets is not None else matcher_for(())

    def redact(self, text: str) -> str:
        """``text`` without the server's secrets (for messages and log lines)."""
        return self.outbound_matcher().redact_text(text)

    def _outbound(self) -> StreamScrubber:
        if self._scrubber is None:
            self._scrubber = StreamScrubber(self.outbound_matcher())
        return self._scrubber

    @staticmethod
    def _bytes(chunk: Any) -> bytes:
        if isinstance(chunk, dict):
            chunk = json.dumps(chunk)
        return chunk.encode("utf-8") if isinstance(chunk, str) else bytes(chunk)

    def write(self, chunk: Any) -> None:
        if isinstance(chunk, dict):
            self.set_header("Content-Type", "application/json; charset=UTF-8")
        data = self._outbound().feed(self._bytes(chunk))
        if data:
            super().write(data)

    def write_events(self, chunk: bytes) -> None:
        """Write data that ends at an event boundary: nothing is held back."""
        data = self._outbound().feed(chunk, at_boundary=True)
        if data:
            super().write(data)

    def _drop_secret_headers(self) -> None:
        if getattr(self, "_headers_written", False):
            return
        matcher = self._outbound().matcher
        if not matcher:
            return
        # tornado keeps the response headers in ``_headers`` (an HTTPHeaders) until the first flush.
        for name, value in list(self._headers.get_all()):
            if matcher.contains(str(value).encode("latin-1", "replace")):
                self.clear_header(name)

    def clear(self) -> None:
        # send_error() clears what was written before it: what the scrubber held back goes too.
        self._scrubber = None
        super().clear()

    def flush(self, include_footers: bool = False) -> Any:
        self._drop_secret_headers()
        return super().flush(include_footers)

    def finish(self, chunk: Any = None) -> Any:
        if chunk is not None:
            self.write(chunk)
        tail = self._outbound().flush()
        if tail:
            super().write(tail)
        self._drop_secret_headers()
        return super().finish()
