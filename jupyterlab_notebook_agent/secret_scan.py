"""The outbound filter's first look at a buffer: which secrets occur raw, and which escapes occur.

Most bytes the server sends hold no secret, so this look is nearly all the filter costs: it has to
read every byte. It answers two questions: which secrets occur as raw bytes, and whether the
buffer holds escapes that may stand for a character some secret holds: ``\\uXXXX`` and Python's
``\\xXX`` in the range of the secrets' characters (``\\UXXXXXXXX`` for non-ASCII ones), ``%XX``,
JSON's and Python's short escapes (``\\/``, ``\\"``, ``\\'``, ``\\\\``, ``\\t``, ``\\b``, ``\\f``) of a
character some secret holds, a line break escaped twice or more (``\\\\n``, JSON text inside
JSON), and HTML character references of a character some secret holds (``&amp;``, ``&#39;``: a
kernel's ``text/html``, a DataFrame). The filter then decodes them, level by level (:mod:`.escapes`),
to look again (most traffic has none: encoders escape printable ASCII only on purpose, and most
keys hold none of ``/"'\\``).
A secret with a line break is looked for in four raw forms: with ``\\n`` and ``\\r\\n`` line ends,
each as it is and JSON-escaped (``\\n`` as two characters), so the many ``\\n`` escapes of ordinary
JSON text need no decoding.

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
import json
import logging
import re
import threading
from types import ModuleType
from typing import NamedTuple

from .escapes import entity_pattern
from .needle import Needle

log = logging.getLogger(__name__)


class Look(NamedTuple):
    """What the first look found."""

    raw: frozenset[int]  #: indexes of the secrets found as raw bytes (in one of their raw forms)
    #: a backslash escape that may stand for a secret's character (see the module's docstring)
    escape: bool
    percent: bool  #: a ``%XX`` escape in that range
    entity: bool  #: an HTML character reference of a character some secret holds (``&amp;``, ``&#39;``)


class SecretScan:
    """The first look for a fixed list of secrets (raw bytes).

    ``ascii_only``: the secrets' characters are all ASCII, so only escapes of printable ASCII
    (``0x20``-``0x7F``) matter. ``escape`` finds an escape worth decoding; ``percent`` (group 1: the hex
    value) is the expression the filter decodes ``%XX`` with; ``entity`` (None: the secrets hold no character
    but ASCII letters and digits) the one it decodes HTML character references with (:func:`.escapes.entity_forms`).
    ``compiled=False``: Python even where Hyperscan runs.
    """

    def __init__(self, secrets: list[bytes], ascii_only: bool, compiled: bool = True) -> None:
        every = b"".join(secrets)
        # Control characters (a tab, a PEM key's line breaks) are escaped as \u00XX or \xXX by some encoders.
        low = b"0-7" if any(byte < 0x20 for byte in every) else b"2-7"
        code = rb"u00[" + low + rb"][0-9a-fA-F]|x[" + low + rb"][0-9a-fA-F]"
        if not ascii_only:
            code = rb"u[0-9a-fA-F]{4}|U[0-9a-fA-F]{8}|x[0-9a-fA-F]{2}"
        # Short escapes of the characters the secrets hold; a line break only nested (``\\n``: the raw forms
        # cover ``\n``, which ordinary JSON text is full of).
        letters = bytes(letter for byte, letter in _SHORT_LETTERS.items() if byte in every)
        kinds = [code]
        if letters:
            kinds.append(b"[" + re.escape(letters) + b"]")
        if b"\n" in every or b"\r" in every:
            kinds.append(rb"\\+[nr]")
        #: A backslash escape that may stand for a character of a secret, at any depth.
        self.escape = re.compile(rb"\\(?:" + b"|".join(kinds) + b")")
        self.percent = re.compile(rb"%([2-7][0-9a-fA-F])" if ascii_only else rb"%([0-9a-fA-F]{2})")
        # HTML text (a kernel's text/html, a DataFrame) writes ``&<>"'`` as references: only those of the secrets'
        # characters are looked for, so ordinary HTML (``&amp;`` where no secret holds ``&``) costs no decoding.
        chars = sorted({c for secret in secrets for c in secret.decode("utf-8", "surrogatepass")})
        references = entity_pattern(chars)
        self.entity = re.compile(references) if references is not None else None
        #: (index of the secret, one raw form of it): the secret itself, and for one with a line break its other forms.
        self._forms = [(index, form) for index, secret in enumerate(secrets) for form in raw_forms(secret)]
        self._needles = [(index, Needle(form)) for index, form in self._forms]
        self._count = len(self._forms)
        # Imported only for a list with secrets: a server that holds none never loads it.
        self._hyperscan = _hyperscan() if compiled and secrets else None
        literals = [b"".join(b"\\x%02x" % byte for byte in form) for _, form in self._forms]
        patterns = [*literals, self.escape.pattern, self.percent.pattern]
        if self.entity is not None:
            patterns.append(self.entity.pattern)
        self._patterns = len(patterns)
        #: The last bytes of a long buffer scanned again with the newline (see :meth:`look`): the longest literal,
        #: and more than the longest escape (``\\U0001f600``, ``&#x0020ac;``; a run of backslashes before ``n`` matches
        #: from any two).
        self._tail = max((len(form) for _, form in self._forms), default=0) + 16
        self._database = _compile(self._hyperscan, patterns)
        self._scratch = threading.local()  # Hyperscan scans without the GIL: one scratch space per thread

    @property
    def compiled(self) -> bool:
        """Whether Hyperscan answers (else Python)."""
        return self._database is not None

    def look(self, data: bytes) -> Look:
        """What ``data`` (``bytes``, not a memoryview) holds."""
        if self._database is None:
            raw = set()
            for index, needle in self._needles:
                if index not in raw and needle.found_in(data):
                    raw.add(index)
            escape = b"\\" in data and self.escape.search(data) is not None
            percent = b"%" in data and self.percent.search(data) is not None
            entity = self.entity is not None and b"&" in data and self.entity.search(data) is not None
            return Look(frozenset(raw), escape, percent, entity)
        found: set[int] = set()
        scratch = getattr(self._scratch, "space", None)
        if scratch is None:
            scratch = self._scratch.space = self._hyperscan.Scratch(self._database)
        # The newline (no secret ends with one: they are stripped; no escape does): the engine the wheel
        # bundles (5.4.12) misses a short literal that ends a 17-34 byte buffer, seen on an AVX-512 CPU:
        # "key: k9" came back clean. Scanning one byte more, its match no longer ends the buffer (0 misses
        # in 7.9 million random looks against the Python path, 440 without; tests/test_redaction.py keeps checking).
        # A long buffer is scanned as it is, then its last bytes with the newline, which hold any match that ends
        # it: copying a 64 KB event to append the newline was a fifth of the filter's cost (bench/proxy_filter.py).
        # (Misses were seen only in 17-34 byte buffers; a long buffer's tail is looked at again all the same.)
        # A buffer that already ends with a newline (an SSE event, a line) needs neither: no match ends at that byte.
        scan = self._database.scan
        if data[-1:] == b"\n":
            scan(data, match_event_handler=_collect, context=found, scratch=scratch)
        elif len(data) <= self._tail:
            scan(data + b"\n", match_event_handler=_collect, context=found, scratch=scratch)
        else:
            scan(data, match_event_handler=_collect, context=found, scratch=scratch)
            if len(found) < self._patterns:
                scan(data[-self._tail :] + b"\n", match_event_handler=_collect, context=found, scratch=scratch)
        if not found:
            return _NOTHING
        count, forms = self._count, self._forms
        raw = frozenset(forms[i][0] for i in found if i < count)
        return Look(raw, count in found, count + 1 in found, count + 2 in found)

    def found_in(self, index: int, data: bytes) -> bool:
        """Whether secret ``index`` occurs raw in ``data`` (for data decoded after the first look)."""
        return any(needle.found_in(data) for owner, needle in self._needles if owner == index)


#: The characters JSON and Python write as a short escape, and the letter after the backslash (not ``\\n``,
#: ``\\r``: see :class:`SecretScan`).
_SHORT_LETTERS = {0x2F: 0x2F, 0x22: 0x22, 0x27: 0x27, 0x5C: 0x5C, 0x08: ord("b"), 0x0C: ord("f"), 0x09: ord("t")}


#: A look that found nothing (most buffers: nothing to allocate for them).
_NOTHING = Look(frozenset(), False, False, False)


def _collect(pattern: int, start: int, end: int, flags: int, found: set[int]) -> None:
    """Hyperscan's match callback: the pattern matched (each reports once: ``HS_FLAG_SINGLEMATCH``)."""
    found.add(pattern)


def raw_forms(secret: bytes) -> list[bytes]:
    """The raw forms a secret is looked for in: itself, and for one with a line break, ``\\n`` and
    ``\\r\\n`` line ends, each also as a JSON string writes it (``json.dumps``, non-ASCII kept) and as Python's
    ``repr`` does (a ``"`` as it is: for a secret that holds one, the two differ, and the single ``\\n`` escape
    is one the first look leaves to these forms)."""
    if b"\n" not in secret and b"\r" not in secret:
        return [secret]
    canonical = secret.replace(b"\r\n", b"\n")
    lines = [canonical, canonical.replace(b"\n", b"\r\n")]
    texts = [form.decode("utf-8", "surrogatepass") for form in lines]
    escaped = [json.dumps(text, ensure_ascii=False)[1:-1].encode("utf-8", "surrogatepass") for text in texts]
    escaped += [repr(text)[1:-1].encode("utf-8", "surrogatepass") for text in texts]
    return list(dict.fromkeys([secret, *lines, *escaped]))


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
