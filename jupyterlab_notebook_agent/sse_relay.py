"""Relaying an upstream SSE stream event by event, and saying so when it breaks.

When the model endpoint's connection drops in the middle of a stream, the proxy
can no longer send an error status: the browser already has a 200. Closing the
response cleanly would make a cut-off answer look complete (the agent would take
half a sentence as the final answer, or run a tool call with half its
arguments). So the proxy ends the stream with an error event instead, which the
``openai`` client raises as an error, and the agent reports it.

For that event to parse, the browser must not be left with half an event: the
relay forwards only complete events (up to the last blank line) and holds the
partial one, which is at most one event, so memory stays bounded however long
the stream. A body that never has a blank line is passed on past ``MAX_PENDING``.
"""

from __future__ import annotations

import json
import re

#: Longest partial event held back; past it, bytes are forwarded as they are.
MAX_PENDING = 1024 * 1024

#: The error ``type`` of the event that ends a broken stream.
BROKEN_TYPE = "upstream_stream_broken"

#: An empty line ends an event: a line end (CRLF, LF or CR) right after another one. A CR followed by
#: an LF is one line end (CRLF), never two: a stream with CRLF lines is not cut after each line.
EVENT_END = re.compile(rb"(?:\r\n|\n|\r(?!\n))(?:\r\n|\n|\r(?!\n))")


def last_event_end(data: bytes | bytearray, start: int = 0) -> int:
    """Where the last empty line (``\\n\\n``) that begins at or after ``start`` ends, or 0 (LF line ends).

    Walks back from newline to newline (``memchr``): CPython searches for a two-byte needle such as
    ``b"\\n\\n"`` at ~1-3 GB/s (~24-90 µs per 64 KB, measured), a single byte at memory speed, and an SSE
    stream has few newlines (one per line), so this reads each byte about once.
    """
    end = len(data)
    while (newline := data.rfind(b"\n", start + 1, end)) > 0:
        if data[newline - 1] == 0x0A:
            return newline + 1
        end = newline
    return 0


def event_ends(data: bytes) -> list[int]:
    """Where each empty line (``\\n\\n``) of ``data`` ends, in order (LF line ends; see :func:`last_event_end`)."""
    ends, position, last = [], 0, 0
    while (newline := data.find(b"\n", position)) >= 0:
        if newline > last and data[newline - 1] == 0x0A:
            ends.append(newline + 1)
            last = newline + 1
        position = newline + 1
    return ends


class SseRelay:
    """Splits an SSE byte stream at event boundaries."""

    def __init__(self) -> None:
        self._pending = bytearray()
        #: Whether the last :meth:`feed` returned whole events (False: bytes passed on past MAX_PENDING).
        self.at_boundary = True

    def feed(self, chunk: bytes) -> bytes:
        """Take a network chunk; return the complete events ready to forward."""
        start = max(0, len(self._pending) - 3)
        self._pending.extend(chunk)
        end = 0
        if self._pending.find(b"\r", start) < 0:
            # LF line ends, nearly every stream: memchr from the end. An expression over every byte was most of
            # the proxy's CPU (bench/proxy_filter.py: 5 of 5.6 ms per MB).
            end = last_event_end(self._pending, start)
        else:
            for match in EVENT_END.finditer(self._pending, start):
                end = match.end()  # a CR that ends what came may be half a CRLF: its LF then starts the next piece
        self.at_boundary = end > 0
        if end == 0 and len(self._pending) > MAX_PENDING:
            end = len(self._pending)
        if end == 0:
            return b""
        ready = bytes(self._pending[:end])
        del self._pending[:end]
        return ready

    def flush(self) -> bytes:
        """The stream ended normally: whatever is left."""
        rest = bytes(self._pending)
        self._pending.clear()
        return rest

    def broken(self, reason: str) -> bytes:
        """The stream broke: drop the partial event and return an error event."""
        self._pending.clear()
        message = f"The model endpoint's stream broke off before the end of the answer ({reason})."
        return f"data: {json.dumps({'error': {'message': message, 'type': BROKEN_TYPE}})}\n\n".encode()
