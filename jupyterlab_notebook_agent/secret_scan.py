"""The outbound filter's first look at a buffer: which secrets occur raw, and which escapes occur.

Most bytes the server sends hold no secret, so this look is nearly all the filter costs: it has to
read every byte. It answers two questions: which secrets occur as raw bytes, and whether the
buffer holds escapes (``\\uXXXX``, ``%XX``) in the range of the secrets' characters, which the
filter then decodes to look again (most traffic has none: encoders escape printable ASCII only on
purpose).

Two ways to answer, the same answers:

- Hyperscan (Intel's multi-pattern regular-expression library, the matcher inside Suricata and
  ClamAV): one pass at memory speed for all the secrets and both escape kinds, about 0.05 ms per MB
  of ASCII text and 0.17 of densely ``\\u``-escaped text (``bench/proxy_filter.py``).
- Python: one ``memchr``-led search per secret (:class:`.needle.Needle`) and a ``re`` search per
  escape kind; the ``re`` search has to start a partial match at every ``\\u00`` of text an encoder
  escapes densely (non-ASCII as ``\\u00f6``, servers that write JSON with ``ensure_ascii``): 1.7 ms
  per MB, against about 4 ms per MB for everything else the proxy does.

Hyperscan is used where its wheel is installed (pyproject.toml names the platforms that have one)
and runs (a CPU with SSSE3); elsewhere Python answers. ``tests/test_redaction.py`` runs its table
through both.
"""

from __future__ import annotations

import importlib
import logging
import re
import threading
from types import ModuleType
from typing import NamedTuple

from .needle import Needle

log = logging.getLogger(__name__)


class Look(NamedTuple):
    """What the first look found."""

    raw: frozenset[int]  #: indexes of the secrets found as raw bytes
    unicode: bool  #: a ``\\u`` escape in the secrets' character range
    percent: bool  #: a ``%XX`` escape in that range


class SecretScan:
    """The first look for a fixed list of secrets (raw bytes).

    ``ascii_only``: the secrets' characters are all ASCII, so only escapes of printable ASCII
    (``0x20``-``0x7F``) matter. ``unicode`` and ``percent`` are the expressions (group 1: the hex
    value) the filter decodes escapes with. ``compiled=False``: Python even where Hyperscan runs.
    """

    def __init__(self, secrets: list[bytes], ascii_only: bool, compiled: bool = True) -> None:
        self.unicode = re.compile(rb"\\u00([2-7][0-9a-fA-F])" if ascii_only else rb"\\u([0-9a-fA-F]{4})")
        self.percent = re.compile(rb"%([2-7][0-9a-fA-F])" if ascii_only else rb"%([0-9a-fA-F]{2})")
        self._needles = [Needle(s) for s in secrets]
        self._count = len(secrets)
        # Imported only for a list with secrets: a server that holds none never loads it.
        self._hyperscan = _hyperscan() if compiled and secrets else None
        literals = [b"".join(b"\\x%02x" % byte for byte in s) for s in secrets]
        self._database = _compile(self._hyperscan, [*literals, self.unicode.pattern, self.percent.pattern])
        self._scratch = threading.local()  # Hyperscan scans without the GIL: one scratch space per thread

    @property
    def compiled(self) -> bool:
        """Whether Hyperscan answers (else Python)."""
        return self._database is not None

    def look(self, data: bytes, unicode: bool = True) -> Look:
        """What ``data`` (``bytes``, not a memoryview) holds.

        ``unicode=False``: ``\\u`` escapes don't matter (kernel messages); ``unicode`` is then False.
        """
        if self._database is None:
            return Look(
                frozenset(i for i, needle in enumerate(self._needles) if needle.found_in(data)),
                unicode and b"\\" in data and self.unicode.search(data) is not None,
                b"%" in data and self.percent.search(data) is not None,
            )
        found: set[int] = set()

        def on_match(pattern: int, start: int, end: int, flags: int, context: object) -> None:
            found.add(pattern)

        scratch = getattr(self._scratch, "space", None)
        if scratch is None:
            scratch = self._scratch.space = self._hyperscan.Scratch(self._database)
        # The newline (in no secret, no escape): the engine the wheel bundles (5.4.12) misses a short
        # literal that ends a 17-34 byte buffer, seen on an AVX-512 CPU: "key: k9" came back clean.
        # Scanning one byte more, its match no longer ends the buffer (0 misses in 7.9 million
        # random looks against the Python path, 440 without; tests/test_redaction.py keeps checking).
        self._database.scan(data + b"\n", match_event_handler=on_match, scratch=scratch)
        count = self._count
        return Look(frozenset(i for i in found if i < count), unicode and count in found, count + 1 in found)

    def found_in(self, index: int, data: bytes) -> bool:
        """Whether secret ``index`` occurs raw in ``data`` (for data decoded after the first look)."""
        return self._needles[index].found_in(data)


def _hyperscan() -> ModuleType | None:
    """The ``hyperscan`` module (imported on first use, ~10 ms), or None where it is not installed."""
    try:
        return importlib.import_module("hyperscan")
    except ImportError:
        return None


def _compile(hyperscan: ModuleType | None, patterns: list[bytes]) -> object | None:
    """A Hyperscan block-mode database of ``patterns`` (ids in order), or None where it can't be had."""
    if hyperscan is None:
        return None
    try:
        database = hyperscan.Database(mode=hyperscan.HS_MODE_BLOCK)
        database.compile(
            expressions=patterns,
            ids=list(range(len(patterns))),
            flags=[hyperscan.HS_FLAG_SINGLEMATCH] * len(patterns),
        )
        hyperscan.Scratch(database)  # fails here, not mid-request, on a CPU Hyperscan can't use
    except hyperscan.error:  # such a CPU, or a secret too long for one expression
        # No error text: this module logger is not the server's, whose log lines are redacted.
        log.warning("Notebook Agent: Hyperscan could not compile the secret filter's patterns; using Python")
        return None
    return database
