"""The part of a secret that a cut left at the edge of a text.

Inline completion sends a window of the cell around the cursor: 4000 characters before it, 1000 after, and
with a model family the client has no fill-in-the-middle format for, nothing after it. A key the window's edge
or the cursor cuts leaves its start at the end of a text sent, or its rest at the start, or (a secret longer than
the text: a PEM with the cursor inside) a piece of its middle as the whole text: no part of the request holds it
whole, so the redaction of whole secrets passes it, and the model provider would get most of a key. The cursor is
an edge even where the text after it is sent: a key typed in a cell is followed by its closing quote or the rest
of the line, never by its own rest. :class:`SecretParts` finds such a part, as the secret is written in a cell:
as it is, with either line end, escaped as in a string literal (``\\n``, ``\\"``, ``\\\\``, ``\\uXXXX``), or, for
a secret of several lines in a Markdown cell, with each line made a ``# `` comment (how the client writes the
cells above the cursor: ``fim-prompt.ts``), a form the matcher of whole secrets does not know either
(:meth:`SecretParts.redact_commented`).

A part counts from :func:`least_part` characters of the secret's own on (8, or half of a secret shorter than
16), not counting what any such value begins or ends with (:func:`public_ends`: a URL's scheme, ``Bearer ``, a
vendor's key prefix such as ``sk-proj-``, a PEM's armour lines): fewer say next to nothing of a key, and would
take ordinary code for a secret's (``url = "https://`` where a held secret is a webhook's URL). Secrets shorter
than :data:`.redaction.LONG` count only whole, as the matcher matches them.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable
from functools import lru_cache

from .redaction import LONG, REDACTED

#: The fewest characters of a secret that count as its part.
PART = 8

_REDACTED_TEXT = REDACTED.decode()


#: A line end as a form of a secret writes it: raw, escaped, or in a Markdown comment.
_EOL = r"(?:\r?\n(?:# ?)?|\\r\\n|\\n)"
#: What a value of its kind begins with, whoever holds it: each looked for once, in this order, at a form's start.
_PUBLIC_HEADS = (
    re.compile(rf"-----BEGIN [A-Z0-9 ]{{1,40}}-----{_EOL}?"),  # a PEM's armour
    re.compile(r"(?:Bearer|Basic|Token|bearer|token) "),  # an authorization scheme
    re.compile(r"[A-Za-z][A-Za-z0-9+.-]{0,20}://"),  # a URL's scheme
)
#: A vendor's key prefix (sk-, sk-proj-, sk-ant-api03-, ghp_, github_pat_, xoxb-): short words (up to 6
#: characters: a password's words, ``my_password_``, are no prefix) ending in ``-`` or ``_``, at most
#: :data:`_PREFIX_LONGEST` characters (the most words that fit).
_KEY_PREFIXES = tuple(
    re.compile(rf"[A-Za-z][A-Za-z0-9]{{0,5}}[-_](?:[A-Za-z0-9]{{1,6}}[-_]){{{words}}}") for words in (2, 1, 0)
)
_PREFIX_LONGEST = 14
#: What a value of its kind ends with: a PEM's closing armour.
_PUBLIC_TAIL = re.compile(rf"{_EOL}?-----END [A-Z0-9 ]{{1,40}}-----{_EOL}?\Z")


def least_part(form: str) -> int:
    """The fewest characters of ``form`` of its own (past :func:`public_ends`) that count as a part of it."""
    return max(4, min(PART, len(form) // 2))


def public_ends(form: str) -> tuple[int, int]:
    """How many characters at the start and at the end of ``form`` any value of its kind has (see above)."""
    head = 0
    for public in _PUBLIC_HEADS:  # "Bearer sk-proj-…": a scheme, then a prefix
        match = public.match(form, head)
        if match is not None:
            head = match.end()
    for prefix in _KEY_PREFIXES:
        match = prefix.match(form, head)
        if match is not None and match.end() - head <= _PREFIX_LONGEST:
            head = match.end()
            break
    tail = _PUBLIC_TAIL.search(form, head)
    return head, len(form) - tail.start() if tail else 0


def commented(secret: str) -> str:
    """A secret of several lines as the client writes a Markdown cell that holds it: each line after ``# ``,
    blank ends trimmed (from the secret's first character: the first line's ``# `` comes before it), without
    line ends before or after it (the client trims the cell's source)."""
    lines = "\n".join(f"# {line}".rstrip() for line in secret.strip("\r\n").split("\n"))
    return lines[2:] if lines.startswith("# ") else lines[1:]


def _written(secret: str) -> list[str]:
    """``secret`` as a cell may hold it: as it is, with CR LF line ends, escaped in a string literal, commented."""
    forms = [secret, secret.replace("\n", "\r\n")]
    forms += [json.dumps(form, ensure_ascii=ascii_only)[1:-1] for form in forms[:2] for ascii_only in (False, True)]
    if "\n" in secret.strip("\r\n"):
        forms.append(commented(secret))
    return list(dict.fromkeys(forms))


class SecretParts:
    """Finds a real (shorter) part of a secret at the start or the end of a text, or a text inside one."""

    def __init__(self, secrets: Iterable[str]) -> None:
        secrets = [secret for secret in secrets if len(secret) >= LONG]
        #: (form, the fewest characters of its own that count, its public start and end), longest forms first.
        self._forms = sorted(
            {(form, least_part(form), *public_ends(form)) for secret in secrets for form in _written(secret)},
            key=lambda entry: -len(entry[0]),
        )
        #: Per length a part counts from, every run of that many characters of a form: most texts' ends are
        #: in none, answered by one lookup each.
        self._runs: dict[int, frozenset[str]] = {}
        for least in {entry[1] for entry in self._forms}:
            runs = {form[i : i + n] for form, n, _, _ in self._forms if n == least for i in range(len(form) - n + 1)}
            self._runs[least] = frozenset(runs)
        #: The commented forms (several lines): the matcher of whole secrets does not know them.
        self._commented = sorted({commented(s) for s in secrets if "\n" in s.strip("\r\n")}, key=len, reverse=True)

    def __bool__(self) -> bool:
        return bool(self._forms)

    def _may_touch(self, text: str, start: bool) -> bool:
        """Whether the first (or last) characters of ``text`` are a run of some form: the quick look."""
        for least, runs in self._runs.items():
            if len(text) >= least and (text[:least] if start else text[-least:]) in runs:
                return True
        return False

    def rest_at_start(self, text: str) -> int:
        """How many characters at the start of ``text`` are the end of a secret it does not hold whole (0: none)."""
        if not self._may_touch(text, True):
            return 0
        best = 0
        for form, least, _, tail in self._forms:
            if len(text) < least:
                continue
            probe = text[:least]
            last = len(form) - tail - least  # the part must hold ``least`` characters before the public end
            at = form.find(probe, 1, last + least)
            while 0 < at <= last:  # the longest such end starts first
                length = len(form) - at
                if length <= best:
                    break
                if text.startswith(form[at:]):
                    best = length
                    break
                at = form.find(probe, at + 1, last + least)
        return best

    def start_at_end(self, text: str) -> int:
        """How many characters at the end of ``text`` are the start of a secret it does not hold whole (0: none)."""
        if not self._may_touch(text, False):
            return 0
        best = 0
        for form, least, head, _ in self._forms:
            if len(text) < least:
                continue
            probe = text[-least:]
            # The part must hold ``least`` characters past the public start: the probe lies past it.
            at = form.rfind(probe, head, len(form) - 1)
            while at >= head:  # the longest such start ends last
                length = at + least
                if length <= best:
                    break
                if text.endswith(form[:length]):
                    best = length
                    break
                at = form.rfind(probe, head, at + least - 1)
        return best

    def inside(self, text: str) -> bool:
        """Whether ``text`` is all of it a part of a secret (one that runs past both its ends), holding
        ``least`` characters of its own."""
        if not self._may_touch(text, True) or not self._may_touch(text, False):
            return False
        for form, least, head, tail in self._forms:
            if not least <= len(text) < len(form):
                continue
            at = form.find(text)
            while at >= 0:
                if min(at + len(text), len(form) - tail) - max(at, head) >= least:
                    return True
                at = form.find(text, at + 1)
        return False

    def redact_commented(self, text: str) -> str:
        """``text`` with each secret of several lines written as a Markdown cell's comment replaced."""
        for form in self._commented:
            if form in text:
                text = text.replace(form, _REDACTED_TEXT)
        return text

    def at_edges(self, text: str) -> str:
        """``text`` with a part of a secret at either end, or all of it when it is one, replaced; ``text``
        itself when there is none."""
        if not text:
            return text
        text = self.redact_commented(text)
        if self.inside(text):
            return _REDACTED_TEXT
        cut = self.start_at_end(text)
        if cut:
            text = text[: len(text) - cut] + _REDACTED_TEXT
        cut = self.rest_at_start(text)
        if cut:
            text = _REDACTED_TEXT + text[cut:]
        return text


@lru_cache(maxsize=16)
def parts_for(secrets: frozenset[str]) -> SecretParts:
    """The finder for ``secrets``, shared between requests that hold the same set."""
    return SecretParts(secrets)
