"""Finding server-held secrets in bytes, in any mix of raw, ``\\u``-escaped and URL-encoded characters.

An upstream that echoes what it received (a debug endpoint, an error message quoting the
``Authorization`` header, a gateway reflecting the request URL) may send a key back in any
form its encoder produces: raw, JSON-escaped (``\\u0073k-…``, ``sk\\/…``, ``\\"``, ``\\n``) or URL-encoded
(``%73k-…``), and split anywhere across network chunks. A secret with line breaks (a PEM key,
JSON credentials in an MCP server's ``env``) is matched with ``\\n`` or ``\\r\\n`` line ends, raw or
JSON-escaped. :class:`SecretMatcher` finds every
such occurrence; :class:`StreamScrubber` applies it to a stream with a bounded look-behind.

Speed: a buffer with no secret costs one first look (:mod:`.secret_scan`: secrets as raw
bytes, and escapes that may hide one; one pass in C); only when a secret (or, after decoding
the escapes of secret characters, an escaped one) is present does the exact (slower) regular
expression run. Short escapes (``\\/``, ``\\"``) are decoded wherever a backslash precedes a
character some secret holds; a server whose secrets hold none of ``/"\\`` and no control
character never looks for them.

Short values (fewer than :data:`LONG` characters) would hit ordinary text: they count only
as a whole token (no letter or digit right before or after), and a value that reads as a
JSON number or literal (``1``, ``true``) only as a whole quoted string (``"1"``), so that
``"index": 1`` survives a header value ``1``. What is not caught: a value deliberately
re-encoded (base64, reversed, split across JSON events as separate deltas) by an upstream
that has it anyway.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from functools import lru_cache

from .secret_scan import Look, SecretScan

#: What replaces a secret.
REDACTED = b"[redacted]"

#: Secrets this long or longer are matched anywhere; shorter ones only as whole tokens.
LONG = 8

#: Bytes a short secret's neighbours may not be (a letter, a digit, or part of a UTF-8 character).
_WORD = frozenset(b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789") | frozenset(range(0x80, 0x100))

_JSON_SCALAR = re.compile(r"-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?|true|false|null")

#: JSON's short escapes: the letter after the backslash, and the character it stands for.
_SHORT = {"b": "\b", "f": "\f", "n": "\n", "r": "\r", "t": "\t", "/": "/", '"': '"', "\\": "\\"}
_SHORT_ESCAPE = re.compile(rb'\\([/"\\bfnrt])')
_SHORT_LETTER = {char: letter.encode() for letter, char in _SHORT.items()}


def _hex(value: int, digits: int) -> bytes:
    """Hex digits of ``value`` as a pattern matching either case."""
    text = f"{value:0{digits}x}"
    return b"".join(f"[{c}{c.upper()}]".encode() if c.isalpha() else c.encode() for c in text)


def _char_pattern(char: str) -> bytes:
    """Every way ``char`` can appear: raw UTF-8, JSON ``\\u`` escapes, URL ``%XX`` bytes, short escapes."""
    raw = char.encode("utf-8")
    forms = [re.escape(raw)]
    code = ord(char)
    # ``\\\\u`` too: the escaped form printed as text (JSON escapes its backslash once more).
    if code < 0x10000:
        forms.append(rb"\\?\\u" + _hex(code, 4))
    else:  # a surrogate pair in JSON
        high, low = 0xD800 + ((code - 0x10000) >> 10), 0xDC00 + ((code - 0x10000) & 0x3FF)
        forms.append(rb"\\?\\u" + _hex(high, 4) + rb"\\?\\u" + _hex(low, 4))
    forms.append(b"".join(b"%" + _hex(byte, 2) for byte in raw))
    if char in '/"':  # ``\\/``, and as text (a JSON string of a JSON string: ``\\\\\\/``)
        forms.append(rb"\\(?:\\\\)?" + re.escape(raw))
    elif char == "\\":
        forms.append(rb"\\\\(?:\\\\)?")
    elif char in _SHORT_LETTER:  # ``\\n``, ``\\t``…, and as text (``\\\\n``, a JSON string of a JSON string)
        forms.append(rb"\\?\\" + _SHORT_LETTER[char])
    if char == " ":
        forms.append(rb"\+")
    return b"(?:" + b"|".join(forms) + b")"


def _secret_pattern(secret: str) -> bytes:
    """Every way ``secret`` can appear; a line break as ``\\n`` or ``\\r\\n``, raw or escaped."""
    return b"".join(
        b"(?:" + _char_pattern("\r") + b")?" + _char_pattern(c) if c == "\n" else _char_pattern(c) for c in secret
    )


def _max_encoded(secret: str) -> int:
    """The longest form ``secret`` can take: ``\\\\uXXXX`` (7 bytes), ``%XX`` per UTF-8 byte, a surrogate pair (14).

    A line break may be two escapes (``\\\\u000d\\\\u000a``): 14.
    """
    return sum(14 if ord(c) >= 0x10000 or c == "\n" else max(7, 3 * len(c.encode("utf-8"))) for c in secret)


def _canonical(secret: str) -> str:
    """A secret's line ends as ``\\n`` (its other forms are matched all the same)."""
    return secret.replace("\r\n", "\n")


class SecretMatcher:
    """Finds a fixed set of secrets in bytes. Build one with :func:`matcher_for` (cached)."""

    def __init__(self, secrets: Iterable[str], compiled: bool = True) -> None:
        """``compiled=False``: the first look in Python even where Hyperscan runs (tests)."""
        values = sorted({_canonical(s) for s in secrets if s}, key=len, reverse=True)
        self.secrets: tuple[str, ...] = tuple(values)
        self._exact = {s: re.compile(_secret_pattern(s)) for s in values}
        self._short = {s for s in values if len(s) < LONG}
        self._scalar = {s for s in self._short if _JSON_SCALAR.fullmatch(s)}
        #: Bytes a stream must hold back so that a secret split across chunks is still whole.
        self.look_behind = max((_max_encoded(s) for s in values), default=0) + 1
        chars = sorted({c for s in values for c in s})
        # Escapes are decoded only where they stand for a character of a secret. Encoders escape
        # printable ASCII only on purpose, so for ASCII secrets the first look finds next to none.
        self._points = frozenset(ord(c) for c in chars)
        self._bytes = frozenset(b for c in chars for b in c.encode())
        ascii_only = all(ord(c) < 0x80 for c in chars)
        self._plus = " " in chars
        self._scan = SecretScan([s.encode("utf-8") for s in values], ascii_only, compiled)
        #: The characters of secrets a JSON short escape can stand for (decoded when the first look saw one).
        self._short_escapes = {
            letter.encode(): char.encode()
            for letter, char in _SHORT.items()
            if char in chars or (char == "\r" and "\n" in chars)  # a line break may be \r\n
        }
        self._prefix_starts: dict[str, list[str]] = {}
        for secret in values:
            if len(secret) > 1:
                self._prefix_starts.setdefault(secret[0], []).append(secret)

    def __bool__(self) -> bool:
        return bool(self.secrets)

    def _decoded(self, data: bytes, look: Look, plus: bool = False) -> bytes | None:
        """``data`` with the escapes of secret characters decoded (``look``: which kinds it has), or None.

        ``plus``: ``+`` read as a space (a form-encoded space), which a secret holding a ``+`` must not get.
        """
        decoded = 0

        def percent(match: re.Match[bytes]) -> bytes:
            nonlocal decoded
            value = int(match.group(1), 16)
            if value not in self._bytes:
                return match.group(0)
            decoded += 1
            return bytes((value,))

        def unicode(match: re.Match[bytes]) -> bytes:
            nonlocal decoded
            value = int(match.group(1), 16)
            if value not in self._points or 0xD800 <= value < 0xE000:
                return match.group(0)
            decoded += 1
            return chr(value).encode("utf-8")

        out = data
        if plus:
            out, decoded = out.replace(b"+", b" "), 1  # before %2B is decoded to "+"
        if look.percent:
            out = self._scan.percent.sub(percent, out)
        if look.escape:
            if self._short_escapes:
                out, count = self._unescaped(out)
                decoded += count
            out = self._scan.unicode.sub(unicode, out)
            if decoded and b"\\" not in self._short_escapes:
                # ``\\\\u0073`` or ``\\\\\\/``, the escaped form printed as text, leaves a backslash before a
                # secret's character: no secret holds one, so they all go (the exact expression decides).
                out = out.replace(b"\\", b"")
        return out if decoded else None

    def _unescaped(self, data: bytes) -> tuple[bytes, int]:
        """``data`` with the short escapes of secret characters decoded, and how many there were."""
        count = 0

        def short(match: re.Match[bytes]) -> bytes:
            nonlocal count
            char = self._short_escapes.get(match.group(1))
            if char is None:
                return match.group(0)  # kept whole: the escape's letter is not the start of another escape
            count += 1
            return char

        return _SHORT_ESCAPE.sub(short, data), count

    def candidates(self, data: bytes, escapes: bool = True) -> list[str]:
        """The secrets that may occur in ``data`` (fast; exact matching confirms).

        ``escapes=False``: ``\\u`` escapes are not looked for, for kernel messages, which jupyter_client
        serializes without ``\\u`` escapes of printable characters (URL-encoding and short escapes still are).
        """
        if not self.secrets:
            return []
        look = self._scan.look(data, unicode=escapes)
        seen = set(look.raw)
        for plus in (False, True) if self._plus and b"+" in data else (False,):
            if len(seen) == len(self.secrets):
                break
            decoded = self._decoded(data, look, plus)
            for depth in range(2):  # a JSON string of a JSON string (a tool result's JSON): decoded once more
                if decoded is None or len(seen) == len(self.secrets):
                    break
                seen.update(i for i in range(len(self.secrets)) if i not in seen and self._scan.found_in(i, decoded))
                if depth == 0 and self._short_escapes and b"\\" in decoded:
                    decoded, count = self._unescaped(decoded)
                    decoded = decoded if count else None
        return [s for i, s in enumerate(self.secrets) if i in seen]

    def spans(self, data: bytes, before: bytes = b"", candidates: list[str] | None = None) -> list[tuple[int, int]]:
        """Where secrets occur in ``data``, merged and sorted. ``before``: bytes that preceded it."""
        found: list[tuple[int, int]] = []
        for secret in self.candidates(data) if candidates is None else candidates:
            for match in self._exact[secret].finditer(data):
                start, end = match.span()
                if _escaped(data, start, before):
                    if data[start] != 0x5C:
                        continue  # a raw character that belongs to an escape before it (``\\n…``): no hit
                    # ``\\u0073…``: the escaped form shown as text; take its backslash too (streams never
                    # cut right after a backslash, so it is in ``data``).
                    start = max(start - 1, 0)
                if secret in self._short and not self._whole(data, start, end, before, secret in self._scalar):
                    continue
                found.append((start, end))
        found.sort()
        merged: list[tuple[int, int]] = []
        for start, end in found:
            if merged and start <= merged[-1][1]:
                merged[-1] = (merged[-1][0], max(end, merged[-1][1]))
            else:
                merged.append((start, end))
        return merged

    @staticmethod
    def _whole(data: bytes, start: int, end: int, before: bytes, quoted: bool) -> bool:
        prev = data[start - 1] if start > 0 else (before[-1] if before else None)
        nxt = data[end] if end < len(data) else None
        if quoted:
            return prev == ord('"') and nxt == ord('"')
        return prev not in _WORD and nxt not in _WORD

    def redact(self, data: bytes, before: bytes = b"", escapes: bool = True) -> bytes:
        """``data`` with every secret replaced by ``[redacted]`` (``escapes``: see :meth:`candidates`)."""
        if not self.secrets:
            return data
        candidates = self.candidates(data, escapes)
        if not candidates:
            return data
        return _replace(data, self.spans(data, before, candidates))

    def redact_text(self, text: str) -> str:
        """The same for text (messages, log lines)."""
        if not self.secrets or not text:
            return text
        data = text.encode("utf-8", "surrogatepass")
        redacted = self.redact(data)
        return text if redacted is data else redacted.decode("utf-8", "replace")

    def pending_prefix(self, text: str) -> int:
        """How many characters at the end of ``text`` could be the start of a secret (0: none).

        The longest end of ``text`` that is a real (shorter) prefix of a secret as it is written (raw);
        for a short secret only at the start of a token, as it is matched. For a stream that holds
        back what the next piece could complete (the kernel's stream output).
        """
        best = 0
        for first, secrets in self._prefix_starts.items():
            longest = min(max(len(s) for s in secrets) - 1, len(text))
            if longest <= best:
                continue
            pos = text.find(first, len(text) - longest)
            while pos != -1 and len(text) - pos > best:
                tail = text[pos:]
                for secret in secrets:
                    if len(secret) > len(tail) and secret.startswith(tail):
                        short = secret in self._short
                        if not short or pos == 0 or not _word_char(text[pos - 1]):
                            best = len(tail)
                            break
                if best == len(tail):
                    break
                pos = text.find(first, pos + 1)
        return best

    def contains(self, data: bytes) -> bool:
        """Whether ``data`` holds a secret (exactly, as :meth:`redact` would replace)."""
        return bool(self.secrets) and bool(self.candidates(data)) and bool(self.spans(data))


def _word_char(char: str) -> bool:
    """A letter, a digit or a non-ASCII character: what a short secret's neighbour may not be."""
    return ord(char) >= 0x80 or (char.isascii() and char.isalnum())


def _escaped(data: bytes, start: int, before: bytes) -> bool:
    """True when an odd run of backslashes precedes ``start``: the match begins inside an escape."""
    run = 0
    index = start - 1
    while index >= 0 and data[index] == 0x5C:
        run += 1
        index -= 1
    if index < 0:
        for byte in reversed(before):
            if byte != 0x5C:
                break
            run += 1
    return run % 2 == 1


def _replace(data: bytes, spans: list[tuple[int, int]]) -> bytes:
    if not spans:
        return data
    pieces = []
    last = 0
    for start, end in spans:
        pieces.append(data[last:start])
        pieces.append(REDACTED)
        last = end
    pieces.append(data[last:])
    return b"".join(pieces)


@lru_cache(maxsize=32)
def _cached(secrets: frozenset[str]) -> SecretMatcher:
    return SecretMatcher(secrets)


def matcher_for(secrets: Iterable[str]) -> SecretMatcher:
    """A matcher for ``secrets``, shared between requests that hold the same set."""
    return _cached(frozenset(secrets))


class StreamScrubber:
    """Redacts a byte stream chunk by chunk, holding back only what a split secret needs.

    A secret that starts in one chunk and ends in the next is caught because the last
    ``look_behind`` bytes are kept until more data (or the end) arrives: memory per stream
    is that many bytes plus one chunk, however long the stream.
    """

    def __init__(self, matcher: SecretMatcher) -> None:
        self.matcher = matcher
        self._held = b""
        self._before = b""  # the last bytes sent, for the whole-token rule of short secrets

    def feed(self, chunk: bytes, at_boundary: bool = False) -> bytes:
        """Take a chunk; return what may be sent now.

        ``at_boundary``: the chunk ends where no secret can continue (the end of an SSE
        event: a blank line, which no secret contains), so nothing is held back.
        """
        if not self.matcher:
            return chunk
        data = self._held + chunk if self._held else chunk
        if at_boundary:
            self._held = b""
            return self._emit(data, self.matcher.redact(data, self._before))
        cut = len(data) - self.matcher.look_behind
        while cut > 0 and data[cut - 1] == 0x5C:
            cut -= 1  # never cut right after a backslash: it may escape what follows
        if cut <= 0:
            self._held = data
            return b""
        candidates = self.matcher.candidates(data)
        spans = self.matcher.spans(data, self._before, candidates) if candidates else []
        for start, end in spans:
            if start < cut < end:
                cut = end
        self._held = data[cut:]
        return self._emit(data[:cut], _replace(data[:cut], [s for s in spans if s[1] <= cut]))

    def flush(self) -> bytes:
        """The stream ended: what was held back, redacted."""
        data, self._held = self._held, b""
        if not data:
            return b""
        return self._emit(data, self.matcher.redact(data, self._before))

    def _emit(self, original: bytes, out: bytes) -> bytes:
        if len(original) >= 16:
            self._before = original[-16:]  # no copy of the whole chunk
        elif original:
            self._before = (self._before + original)[-16:]
        return out
