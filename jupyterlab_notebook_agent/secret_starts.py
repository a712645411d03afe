"""The start of a secret at the end of a text: what a stream of pieces must hold back for the next piece.

Text that arrives in pieces a reader joins (a kernel's stream messages, a model's SSE deltas) may
cut a secret anywhere; the filter holds back the end of a piece while it could be the start of
one (:meth:`.redaction.SecretMatcher.pending_prefix`). This answers that question for the secrets
as they are written (escapes are the matcher's: it decodes them and asks again), for text and for
UTF-8 bytes (the raw JSON of a delta that holds no escape), every piece of a stream, so cheaply:

* one expression for all secrets up to :data:`LIMIT` characters, each a chain of optional
  characters (``s(?:k(?:-(?:…)?)?)?``) anchored at the end, searched only over the last
  characters of the text (the leftmost match is the longest end);
* a search for the first character, then a comparison, for longer secrets (a PEM key, JSON
  credentials, long project keys), whose chains would nest too deep for one expression.

A short secret (see :data:`.redaction.LONG`) counts only at the start of a token, as it is matched,
and whole too (``whole``): the next piece may make it part of a longer word, which is no secret.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Any

#: Secrets up to this long are in the one expression (each nests one group per character).
LIMIT = 96

#: Not right after a letter, a digit or a non-ASCII character (text, and UTF-8 bytes).
_TOKEN_START = "(?<![0-9A-Za-z\\u0080-\\U0010ffff])"
_TOKEN_START_BYTES = rb"(?<![0-9A-Za-z\x80-\xff])"


def _chain(units: list[bytes]) -> bytes:
    """``units[0]``, then optionally the next, and so on: every prefix of their sequence, the whole included."""
    pattern = b""
    for unit in reversed(units[1:]):
        pattern = b"(?:" + unit + pattern + b")?"
    return units[0] + pattern


def _forms(secret: str) -> list[str]:
    """A secret in both line-end forms."""
    return list(dict.fromkeys([secret, secret.replace("\n", "\r\n")]))


class SecretStarts:
    """The start of one of ``secrets`` at the end of a text; ``whole``: short secrets that count whole too."""

    def __init__(self, secrets: Iterable[str], short: Iterable[str], whole: Iterable[str]) -> None:
        secrets, short, whole = tuple(secrets), set(short), set(whole)
        text_branches: list[str] = []
        byte_branches: list[bytes] = []
        #: Longer secrets: (form, whether it counts whole), as text and as UTF-8.
        self._long: list[tuple[str, bool]] = []
        longest = longest_utf8 = 0
        for secret in secrets:
            for form in _forms(secret):
                if len(secret) > LIMIT:
                    self._long.append((form, secret in whole))
                    continue
                words = form if secret in whole else form[:-1]
                if not words:
                    continue
                longest = max(longest, len(words))
                longest_utf8 = max(longest_utf8, len(words.encode("utf-8", "surrogatepass")))
                chars = [re.escape(c).encode("utf-8") for c in words]
                text_branches.append(
                    (_TOKEN_START if secret in short else "") + _chain(chars).decode("utf-8", "surrogatepass")
                )
                utf8 = [re.escape(bytes((b,))) for b in words.encode("utf-8", "surrogatepass")]
                byte_branches.append((_TOKEN_START_BYTES if secret in short else b"") + _chain(utf8))
        self._long_utf8 = [(form.encode("utf-8", "surrogatepass"), counts) for form, counts in self._long]
        # The quick answer for most ends: a secret's start that ends a text ends in the first character of a
        # secret or in two characters that follow each other in one (a superset of what the searches find).
        forms = [form for secret in secrets for form in _forms(secret) if form]
        self._firsts = frozenset(form[0] for form in forms)
        self._pairs = frozenset(form[i : i + 2] for form in forms for i in range(len(form) - 1))
        utf8 = [form.encode("utf-8", "surrogatepass") for form in forms]
        self._first_bytes = frozenset(form[0] for form in utf8)
        self._byte_pairs = frozenset(form[i : i + 2] for form in utf8 for i in range(len(form) - 1))
        #: Bytes of a text's end that the longer secrets' search looks at.
        self._long_window = max((len(form) for form, _ in self._long_utf8), default=0)
        #: Characters (and bytes) of a text's end that the expression looks at: its longest match and one more.
        self._window = longest + 1
        self._byte_window = longest_utf8 + 4
        self._text = re.compile("(?:" + "|".join(text_branches) + ")\\Z", re.DOTALL) if text_branches else None
        self._bytes = re.compile(b"(?:" + b"|".join(byte_branches) + b")\\Z", re.DOTALL) if byte_branches else None

    def in_text(self, text: str) -> int:
        """How many characters at the end of ``text`` are the start of a secret (0: none)."""
        if not text or (text[-1] not in self._firsts and text[-2:] not in self._pairs):
            return 0
        best = 0
        if self._text is not None:
            match = self._text.search(text, max(len(text) - self._window, 0))
            best = len(text) - match.start() if match else 0
        if self._long:
            best = max(best, _longest_start(text, self._long))
        return best

    def in_bytes(self, data: bytes, start: int, end: int) -> bool:
        """Whether ``data[start:end]`` (UTF-8 text) ends with the start of a secret."""
        if end <= start:
            return False
        if data[end - 1] not in self._first_bytes and data[max(start, end - 2) : end] not in self._byte_pairs:
            return False
        if self._bytes is not None and self._bytes.search(data, max(end - self._byte_window, start), end):
            return True
        if not self._long_utf8:
            return False
        return _longest_start(data[max(start, end - self._long_window) : end], self._long_utf8) > 0


def _longest_start(text: Any, forms: list[tuple[Any, bool]]) -> int:
    """The longest end of ``text`` (str or bytes) that starts one of ``forms`` (a real prefix, or the whole form
    where it counts whole): a search for the first character, then a comparison."""
    best = 0
    for form, whole in forms:
        first = form[:1]
        pos = text.find(first, max(len(text) - len(form), 0))
        while pos >= 0 and len(text) - pos > best:
            if (len(text) - pos < len(form) or whole) and form.startswith(text[pos:]):
                best = len(text) - pos
                break
            pos = text.find(first, pos + 1)
    return best
