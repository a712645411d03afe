"""Finding server-held secrets in bytes, in any mix of raw, escaped and URL-encoded characters.

An upstream that echoes what it received (a debug endpoint, an error message quoting the
``Authorization`` header, a gateway reflecting the request URL), a tool that returns its
environment, a cell that prints a config file, may send a key back in any form its encoder
produces: raw, JSON-escaped (``\\u0073k-…``, ``sk\\/…``, ``\\"``, ``\\n``), ``repr``-escaped
(``\\x0b``, ``\\'``), any of these nested (JSON text inside JSON, ``repr`` of JSON: ``\\\\n``), or
URL-encoded (``%73k-…``), or as HTML character references (``&amp;``, ``&#39;``: a kernel's ``text/html``),
and split anywhere across network chunks. A secret with line breaks (a
PEM key, JSON credentials in an MCP server's ``env``) is matched with ``\\n`` or ``\\r\\n`` line
ends in any of those forms. :class:`SecretMatcher` finds every such occurrence; :class:`StreamScrubber`
applies it to a stream with a bounded look-behind, and :meth:`SecretMatcher.split_text` to text
that arrives in pieces a reader joins (kernel stream messages, SSE deltas).

Speed: a buffer with no secret costs one first look (:mod:`.secret_scan`: secrets as raw
bytes, and escapes that may hide one; one pass in C); only when it sees an escape of a
character some secret holds are the escapes decoded, level by level (:mod:`.escapes`: the one
decoding of JSON and Python escapes every filter uses), and only when a secret (raw, or in a
decoded level) is present does the exact (slower) regular expression run.

Short values (fewer than :data:`LONG` characters) would hit ordinary text: they count only
as a whole token (no letter or digit right before or after), and a value that reads as a
JSON number or literal (``1``, ``true``) only as a whole quoted string (``"1"``), so that
``"index": 1`` survives a header value ``1``. What is not caught: a value deliberately
re-encoded (base64, reversed) by an upstream that has it anyway.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from functools import lru_cache

from .escapes import (
    INCOMPLETE,
    MAX_DEPTH,
    char_forms,
    entity_char,
    longest_form,
    named_references,
    numeric_references,
    unescape_once,
    unescaped_text,
)
from .secret_scan import SecretScan
from .secret_starts import SecretStarts

#: What replaces a secret.
REDACTED = b"[redacted]"

#: Secrets this long or longer are matched anywhere; shorter ones only as whole tokens.
LONG = 8

#: Bytes a short secret's neighbours may not be (a letter, a digit, or part of a UTF-8 character).
_WORD = frozenset(b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789") | frozenset(range(0x80, 0x100))

_JSON_SCALAR = re.compile(r"-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?|true|false|null")


def _char_pattern(char: str) -> bytes:
    """Every way ``char`` can appear (:func:`.escapes.char_forms`), as one group."""
    return b"(?:" + b"|".join(char_forms(char)) + b")"


def _secret_pattern(secret: str) -> bytes:
    """Every way ``secret`` can appear; a line break as ``\\n`` or ``\\r\\n``, raw or escaped."""
    return b"".join(
        b"(?:" + _char_pattern("\r") + b")?" + _char_pattern(c) if c == "\n" else _char_pattern(c) for c in secret
    )


def _max_encoded(secret: str) -> int:
    """The longest form ``secret`` can take (a stream holds back this much); a line break may be ``\\r\\n``."""
    return sum(longest_form(c) + (longest_form("\r") if c == "\n" else 0) for c in secret)


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
        # %XX escapes are decoded only where they stand for a byte of a secret. Encoders escape
        # printable ASCII only on purpose, so for ASCII secrets the first look finds next to none.
        self._bytes = frozenset(b for c in chars for b in c.encode())
        ascii_only = all(ord(c) < 0x80 for c in chars)
        self._plus = " " in chars
        self._lines = "\n" in chars or "\r" in chars
        self._scan = SecretScan([s.encode("utf-8") for s in values], ascii_only, compiled)
        # HTML character references of the secrets' characters, decoded after the first look saw one: named ones
        # by replacing, numeric ones by an expression; ``&amp;`` too, last (``&amp;lt;`` reads as ``&lt;``, one
        # level of HTML at a time: :meth:`_html_decoded` reads them all).
        named = [(ref, c.encode()) for c in chars if c != "&" for ref in named_references(c)]
        numeric = [form for c in chars for form in numeric_references(c)]
        self._named = [*named, *((ref, b"&") for ref in named_references("&"))] if numeric else []
        self._numeric = re.compile(b"|".join(numeric)) if numeric else None
        #: The start of a secret, as it is written, at the end of a text (:meth:`pending_prefix`).
        self.starts = SecretStarts(values, self._short, self._short - self._scalar)

    def __bool__(self) -> bool:
        return bool(self.secrets)

    def _percent_decoded(self, data: bytes, plus: bool) -> bytes:
        """``data`` with the ``%XX`` escapes of secret bytes decoded; ``plus``: ``+`` read as a space first."""

        def percent(match: re.Match[bytes]) -> bytes:
            value = int(match.group(1), 16)
            return bytes((value,)) if value in self._bytes else match.group(0)

        if plus:
            data = data.replace(b"+", b" ")  # before %2B is decoded to "+": a secret holding "+" keeps it
        return self._scan.percent.sub(percent, data)

    def _html_decoded(self, data: bytes) -> bytes:
        """``data`` with the HTML character references of secret characters decoded, at every level of HTML."""
        out = data
        for _ in range(MAX_DEPTH):
            if b"&" not in out:
                break
            level = out
            for ref, char in self._named:
                if ref in out:
                    out = out.replace(ref, char)
            if self._numeric is not None and b"&#" in out and self._numeric.search(out) is not None:
                out = self._numeric.sub(entity_char, out)
            if out is level:
                break
        return out  # ``data`` itself where there was nothing to decode

    def _look_through(
        self, data: bytes, seen: set[int], decoded: bool, escapes: bool = True, html: bool = False, start: int = 0
    ) -> None:
        """Add to ``seen`` the secrets in ``data`` (if ``decoded``) and in each level of its escapes decoded, HTML
        character references decoded or not.

        Decoding references commutes with decoding escapes (a reference holds no backslash, and none is decoded to a
        letter or digit), except where a reference follows a backslash (it completes an escape: ``\\&quot;``, HTML
        text of JSON) or stands for one: only then is a second pass needed, ``html``,
        which decodes references before each level's escapes (``data`` is decoded; ``start``: its level).
        ``escapes=False``: the first look saw no escape that may stand for a secret's character, so only the
        references are decoded (and the escapes they complete, in the second pass).
        """
        level = data
        second_pass = html
        for depth in range(start, MAX_DEPTH + 1):
            if depth or decoded:
                self._found(level, seen)
            if not html:
                as_html = self._html_decoded(level)
                if as_html is not level:
                    if not second_pass and self._completes_escapes(level, as_html, escapes):
                        second_pass = True  # one is enough: it reads every level below this one
                        self._look_through(as_html, seen, True, True, True, depth)
                    else:
                        self._found(as_html, seen)
            if len(seen) == len(self.secrets) or not escapes:
                return
            level, changed = unescape_once(level)
            if not changed:
                return
            if html:
                level = self._html_decoded(level)

    def _completes_escapes(self, level: bytes, as_html: bytes, escapes: bool) -> bool:
        """Whether ``as_html`` (``level``, references decoded) may hold escapes the first look did not see: after a
        backslash (``\\&quot;``), a backslash (``&#92;``), or, where the look saw none, the ``\\n`` of a secret's line
        break (the first look leaves single ones to the raw forms, which ``\\n&quot;`` is not)."""
        if b"\\&" in level or as_html.count(b"\\") != level.count(b"\\"):
            return True
        return not escapes and self._lines and (b"\\n" in as_html or b"\\r" in as_html)

    def _found(self, data: bytes, seen: set[int]) -> None:
        """Add to ``seen`` the secrets that occur raw in ``data``."""
        seen.update(i for i in range(len(self.secrets)) if i not in seen and self._scan.found_in(i, data))

    def candidates(self, data: bytes) -> list[str]:
        """The secrets that may occur in ``data`` (fast; exact matching confirms)."""
        if not self.secrets:
            return []
        look = self._scan.look(data)
        if not look.raw and not look.escape and not look.percent and not look.entity:
            return []
        seen = set(look.raw)
        if len(seen) < len(self.secrets) and (look.escape or look.percent or look.entity):
            if look.percent:  # each level of escapes is looked through after the %XX decoding
                for plus in (False, True) if self._plus and b"+" in data else (False,):
                    self._look_through(self._percent_decoded(data, plus), seen, decoded=True)
            else:
                self._look_through(data, seen, decoded=False, escapes=look.escape)
        return [s for i, s in enumerate(self.secrets) if i in seen]

    def spans(
        self, data: bytes, before: bytes = b"", candidates: list[str] | None = None, open_end: bool = False
    ) -> list[tuple[int, int]]:
        """Where secrets occur in ``data``, merged and sorted. ``before``: bytes that preceded it; ``open_end``:
        more may follow, so a short secret that ends ``data`` is not (yet) a whole token."""
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
                if secret in self._short and (
                    (open_end and end == len(data)) or not self._whole(data, start, end, before, secret in self._scalar)
                ):
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

    def redact(self, data: bytes, before: bytes = b"", open_end: bool = False) -> bytes:
        """``data`` with every secret replaced by ``[redacted]`` (``open_end``: see :meth:`spans`)."""
        if not self.secrets:
            return data
        candidates = self.candidates(data)
        if not candidates:
            return data
        return _replace(data, self.spans(data, before, candidates, open_end))

    def redact_text(self, text: str, open_end: bool = False) -> str:
        """The same for text (messages, log lines)."""
        if not self.secrets or not text:
            return text
        data = text.encode("utf-8", "surrogatepass")
        redacted = self.redact(data, open_end=open_end)
        return text if redacted is data else redacted.decode("utf-8", "replace")

    def pending_prefix(self, text: str) -> int:
        """How many characters at the end of ``text`` could be the start of a secret (0: none).

        The longest end of ``text`` that is a real (shorter) prefix of a secret, as it is written or in
        any level of its escapes (``\\n``, ``\\u0073``, nested: :mod:`.escapes`); for a short secret only at
        the start of a token, as it is matched, and the whole of one too (the next piece may continue the
        word). An escape cut off at the very end (``\\``, ``\\u00``) counts too. For text that arrives in
        pieces a reader joins (:meth:`split_text`).
        """
        if not self.secrets:
            return 0
        best = self._raw_prefix(text)
        offset = max(len(text) - self.look_behind, 0)
        if text.find("\\", offset) < 0:
            return best
        window = text[offset:]
        cut = INCOMPLETE.search(window)
        if cut is not None:  # what follows may make it the next character of a secret
            best = max(best, len(window) - cut.start())
            window = window[: cut.start()]
        levels = unescaped_text(window)
        if cut is not None:  # the text before the cut escape, as it is
            levels.insert(0, (window, list(range(len(window)))))
        for level, origins in levels:
            held = self._raw_prefix(level)
            if held:
                best = max(best, len(text) - offset - origins[len(level) - held])
        return best

    def _raw_prefix(self, text: str) -> int:
        """:meth:`pending_prefix` for the secrets as they are written (no escapes)."""
        return self.starts.in_text(text)

    def split_text(self, held: str, text: str) -> tuple[str, str]:
        """``held`` (what the last call kept) and the next piece ``text``, joined: what may go out now, and the end
        to keep for the next piece (the start of a secret, or a short one that the next piece may make part of a
        longer word; see :meth:`pending_prefix`).

        Only the end is redacted here (a secret that ends where the kept part starts): what goes out is sent
        whole, in one message or event, through :meth:`redact` (the kernel filter, the outbound filter), which
        finds the rest, a secret across ``held`` and ``text`` included. So a long piece costs no more than a
        short one.
        """
        joined = held + text
        cut = max(len(joined) - 2 * self.look_behind, 0)
        end = self.redact_text(joined[cut:], open_end=True)
        keep = self.pending_prefix(end)
        return joined[:cut] + end[: len(end) - keep], end[len(end) - keep :]

    def contains(self, data: bytes) -> bool:
        """Whether ``data`` holds a secret (exactly, as :meth:`redact` would replace)."""
        return bool(self.secrets) and bool(self.candidates(data)) and bool(self.spans(data))


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
        self._active = bool(matcher)
        self._held = b""
        self._before = b""  # the last bytes sent, for the whole-token rule of short secrets

    def feed(self, chunk: bytes, at_boundary: bool = False) -> bytes:
        """Take a chunk; return what may be sent now.

        ``at_boundary``: the chunk ends where no secret can continue (the end of an SSE
        event: a blank line, which no secret contains), so nothing is held back.
        """
        if not self._active:
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
