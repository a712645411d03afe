"""The part of a secret that a cut left at the edge of a text.

Inline completion sends a window of the cell around the cursor: 4000 characters before it, 1000 after, and
with a model family the client has no fill-in-the-middle format for, nothing after it. A key the window's edge
or the cursor cuts leaves its start at the end of the text sent, or its rest at the start: no part of the
request holds it whole, so the redaction of whole secrets passes it, and the model provider would get most of a
key. :class:`SecretParts` finds such a part at an edge, as the secret is written in a cell: as it is, with
either line end, or escaped as in a string literal (``\\n``, ``\\"``, ``\\\\``, ``\\uXXXX``).

A part counts from :func:`least_part` characters on (6, or half of a secret shorter than 12): fewer say
next to nothing of a key, and shorter ones would take ordinary text for a secret's. Secrets shorter than
:data:`.redaction.LONG` count only whole, as the matcher matches them.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from functools import lru_cache

from .redaction import LONG

#: The fewest characters of a secret that count as its part.
PART = 6


def least_part(form: str) -> int:
    """The fewest characters of ``form`` that count as a part of it."""
    return max(3, min(PART, len(form) // 2))


def _written(secret: str) -> list[str]:
    """``secret`` as a cell may hold it: as it is, with CR LF line ends, escaped in a string literal."""
    forms = [secret, secret.replace("\n", "\r\n")]
    forms += [json.dumps(form, ensure_ascii=ascii_only)[1:-1] for form in forms[:2] for ascii_only in (False, True)]
    return list(dict.fromkeys(forms))


class SecretParts:
    """Finds a real (shorter) part of a secret at the start or the end of a text."""

    def __init__(self, secrets: Iterable[str]) -> None:
        #: (form, the fewest characters of it that count), longest forms first.
        self._forms = sorted(
            {(form, least_part(form)) for secret in secrets if len(secret) >= LONG for form in _written(secret)},
            key=lambda entry: -len(entry[0]),
        )

    def __bool__(self) -> bool:
        return bool(self._forms)

    def rest_at_start(self, text: str) -> int:
        """How many characters at the start of ``text`` are the end of a secret it does not hold whole (0: none)."""
        best = 0
        for form, least in self._forms:
            if len(text) < least:
                continue
            probe = text[:least]
            at = form.find(probe, 1)
            while at > 0:  # the longest such end starts first
                length = len(form) - at
                if length <= best:
                    break
                if text.startswith(form[at:]):
                    best = length
                    break
                at = form.find(probe, at + 1)
        return best

    def start_at_end(self, text: str) -> int:
        """How many characters at the end of ``text`` are the start of a secret it does not hold whole (0: none)."""
        best = 0
        for form, least in self._forms:
            if len(text) < least:
                continue
            probe = text[-least:]
            at = form.rfind(probe, 0, len(form) - 1)
            while at >= 0:  # the longest such start ends last
                length = at + least
                if length <= best:
                    break
                if text.endswith(form[:length]):
                    best = length
                    break
                at = form.rfind(probe, 0, at + least - 1)
        return best


@lru_cache(maxsize=16)
def parts_for(secrets: frozenset[str]) -> SecretParts:
    """The finder for ``secrets``, shared between requests that hold the same set."""
    return SecretParts(secrets)
