"""The escapes a secret may hide behind, at any depth: the one decoding every filter uses.

A secret reaches a filter as it is, or escaped by whatever wrote it, any number of times over:
JSON (``\\n``, ``\\"``, ``\\/``, ``\\u0073``), Python's ``repr`` (``\\n``, ``\\'``, ``\\x0b``,
``\\U0001f600``, and ``\\xc3\\xb6`` for a ``bytes`` object), and one inside the other: a tool's
``json.dumps`` result inside the MCP answer's JSON holds a line break as ``\\\\n``, ``repr`` of JSON
inside JSON as ``\\\\\\\\n``. Each level doubles the backslashes before an escape.

:func:`unescape_once` reads one level of both languages at once (an escaped backslash, a short
escape, ``\\u``, ``\\U``, ``\\x``); applied again to its own output it reads the next level, so
the filters decode level by level until nothing changes (at most :data:`MAX_DEPTH` times): each
level is exact, so ``\\\\n`` (JSON text of a line break) is a line break at the second level, and
``\\\\\\\\b`` (JSON text of a backslash and a ``b``) stays a backslash and a ``b``.

:func:`char_forms` is the other side: the byte patterns a character takes at any of those depths
(a run of backslashes of any length before its escape), from which the exact expressions that
locate a secret in the original bytes are built. :func:`unescaped_text` decodes a short text
and says where each decoded character came from (for the streams that hold back the start of
a secret: kernel output, SSE deltas).
"""

from __future__ import annotations

import re
from collections.abc import Iterable

#: Levels of escaping decoded (JSON in ``repr`` in JSON in JSON is 4); deeper ones are not looked through.
#: The one place the promised depth (docs/security.md: five levels) is set; the bounds below follow from it.
MAX_DEPTH = 5

#: The longest run of backslashes an exact expression accepts before an escape: each level doubles the run
#: before it and adds one, so at depth ``d`` a ``\\u`` escape follows ``2 ** (d - 1)`` backslashes, a quote
#: ``2 ** d - 1`` and a backslash is ``2 ** d`` of them (32 at depth 5; ``2 ** (MAX_DEPTH - 1)`` missed the
#: last two at the deepest level). Bounded, so that a megabyte of backslashes costs the expression a bounded
#: retry at each byte.
MAX_RUN = 2**MAX_DEPTH

#: The run a stream's look-behind is sized for before a ``\\u`` or ``\\x`` escape (4 levels deep): a secret
#: ``\\u``-escaped character by character 5 levels deep and cut by a network chunk passes (whole, it is found).
#: A short escape (a quote, a backslash, a tab) is held at :data:`MAX_RUN`: see :func:`longest_form`.
HELD_RUN = 8

#: The character a short escape stands for, in JSON or Python (``\\'`` is Python's, ``\\/`` JSON's).
SHORT = {
    ord("n"): "\n",
    ord("r"): "\r",
    ord("t"): "\t",
    ord("b"): "\b",
    ord("f"): "\f",
    ord("/"): "/",
    ord('"'): '"',
    ord("'"): "'",
    ord("\\"): "\\",
}
#: The letter of a character's short escape (the reverse of :data:`SHORT`).
LETTER = {char: chr(letter) for letter, char in SHORT.items()}

#: One escape of one level: a surrogate pair, ``\\u``, ``\\U``, a run of ``\\x`` (one character's
#: UTF-8 bytes in a ``bytes`` repr), or a short one (``\\\\`` is an escaped backslash).
_ONE = (
    rb"\\(?:u([dD][89abAB][0-9a-fA-F]{2})\\u([dD][c-fC-F][0-9a-fA-F]{2})"  # a surrogate pair
    rb"|u([0-9a-fA-F]{4})|U([0-9a-fA-F]{8})"
    rb"|((?:x[0-9a-fA-F]{2})(?:\\x[0-9a-fA-F]{2})*)"  # one run of \x escapes
    rb"""|([nrtbf/"'\\]))"""
)
_ESCAPE = re.compile(_ONE)
_TEXT_ESCAPE = re.compile(_ONE.decode())

_PARTIAL = r"\\+(?:u[0-9a-fA-F]{0,3}|U[0-9a-fA-F]{0,7}|x[0-9a-fA-F]?)?"
#: An escape cut off at the end of a text: a run of backslashes, maybe ``u``, ``U`` or ``x`` and some hex
#: digits; or a character cut off: a high surrogate's ``\\u`` (its low half follows), ``\\x`` escapes of
#: bytes above 127 (the rest of a character's UTF-8 may follow).
INCOMPLETE = re.compile(
    r"(?:\\+u[dD][89abAB][0-9a-fA-F]{2}|(?:\\+x[89a-fA-F][0-9a-fA-F])+)(?:" + _PARTIAL + r")?\Z|" + _PARTIAL + r"\Z"
)


def _char(match: re.Match) -> str | None:
    """The character (or characters) one escape stands for; None: leave it as it is (a lone surrogate)."""
    high, low, four, eight, hexes, short = match.groups()
    if high is not None:
        return chr(0x10000 + ((int(high, 16) - 0xD800) << 10) + (int(low, 16) - 0xDC00))
    if four is not None:
        code = int(four, 16)
        return None if 0xD800 <= code < 0xE000 else chr(code)
    if eight is not None:
        code = int(eight, 16)
        return chr(code) if code < 0x110000 and not 0xD800 <= code < 0xE000 else None
    if hexes is not None:
        text = hexes if isinstance(hexes, str) else hexes.decode()
        raw = bytes(int(pair, 16) for pair in re.findall("[0-9a-fA-F]{2}", text))
        # A bytes repr writes each UTF-8 byte of a character as \x; a str repr writes a code point below 256.
        decoded = raw.decode("utf-8", "surrogateescape")
        return "".join(chr(ord(c) - 0xDC00) if 0xDC80 <= ord(c) <= 0xDCFF else c for c in decoded)
    letter = short if isinstance(short, str) else short.decode()
    return SHORT[ord(letter)]


def _bytes_escape(match: re.Match[bytes]) -> bytes:
    char = _char(match)
    return match.group(0) if char is None else char.encode("utf-8", "surrogatepass")


def unescape_once(data: bytes) -> tuple[bytes, bool]:
    """``data`` with one level of JSON and Python escapes read, and whether there was any."""
    if b"\\" not in data:
        return data, False
    out = _ESCAPE.sub(_bytes_escape, data)
    return out, out != data


def unescaped_text(text: str) -> list[tuple[str, list[int]]]:
    """Each level of ``text`` decoded (up to :data:`MAX_DEPTH`), with where each character came from.

    ``[(level 1, origins), (level 2, origins), …]``; ``origins[i]``: the index in ``text`` where the
    escape (or character) that became character ``i`` starts.
    """
    levels: list[tuple[str, list[int]]] = []
    current, origins = text, list(range(len(text)))
    for _ in range(MAX_DEPTH):
        if "\\" not in current:
            break
        pieces: list[str] = []
        mapped: list[int] = []
        last = 0
        for match in _TEXT_ESCAPE.finditer(current):
            start, end = match.span()
            pieces.append(current[last:start])
            mapped.extend(origins[last:start])
            char = _char(match)
            if char is None:
                char, where = match.group(0), origins[start:end]
            else:
                where = [origins[start]] * len(char)
            pieces.append(char)
            mapped.extend(where)
            last = end
        if last == 0:
            break
        pieces.append(current[last:])
        mapped.extend(origins[last:])
        current, origins = "".join(pieces), mapped
        levels.append((current, origins))
    return levels


def _hex(value: int, digits: int) -> bytes:
    """Hex digits of ``value`` as a pattern matching either case."""
    text = f"{value:0{digits}x}"
    return b"".join(f"[{c}{c.upper()}]".encode() if c.isalpha() else c.encode() for c in text)


#: A run of backslashes: an escape at any depth up to :data:`MAX_DEPTH`.
_RUN = rb"\\{1,%d}" % MAX_RUN

#: The names HTML gives the characters ``html.escape``, pandas and template engines escape (XML's ``&apos;``
#: too), each as it is written and in HTML5's upper-case spelling where there is one.
NAMED = {"&": ("amp", "AMP"), "<": ("lt", "LT"), ">": ("gt", "GT"), '"': ("quot", "QUOT"), "'": ("apos",)}
#: The character each name stands for (the reverse of :data:`NAMED`).
_NAME_CHAR = {name.encode(): char for char, names in NAMED.items() for name in names}
#: The ``&`` that starts a character reference, as it is or ``\\u0026``: HTML-safe JSON encoders (Go's,
#: Jinja's ``tojson``) escape it, so HTML text in their JSON holds ``\\u0026amp;``.
_AMP = b"(?:&|" + _RUN + b"u0026)"
#: HTML text shown as HTML (a table's source in a ``<pre>``) writes a reference's ``&`` as ``&amp;``, once more
#: at each level: ``&amp;lt;``, ``&amp;amp;lt;``, up to :data:`MAX_DEPTH` levels in all.
_NESTED = b"(?:amp;){0,%d}" % (MAX_DEPTH - 1)


def _plain(char: str) -> bool:
    """An ASCII letter or digit: no encoder writes one as a character reference unless it means to hide it."""
    return char.isascii() and char.isalnum()


def entity_forms(char: str) -> list[bytes]:
    """``char`` as an HTML character reference, as regular-expression alternatives (bytes), ``&`` and ``;`` included.

    Its name (:data:`NAMED`), and for a character that is not an ASCII letter or digit ``&#NN;`` and ``&#xHH;``
    (either case, up to two leading zeros: ``html.escape``'s ``&#x27;``, markupsafe's ``&#39;``, PHP's ``&#039;``);
    HTML-escaped again up to :data:`MAX_DEPTH` levels in all (``&amp;lt;``).
    """
    return [b"&" + _NESTED + form[1:] for form in named_references(char) + numeric_references(char)]


def entity_pattern(chars: Iterable[str]) -> bytes | None:
    """One expression that finds :func:`entity_forms` of all ``chars`` (None: none has one), for the first look.

    Their nesting factored out and unbounded (``(?:amp;)*``): Hyperscan compiled the alternatives each with its
    own ``(?:amp;){0,4}`` in 0.46 s (7 secrets) and this in 12 ms, and with ``(?:amp;){0,4}`` factored out the
    engine the wheel bundles (5.4.12) missed ``&#8364;`` in a 35-byte buffer that Python's ``re`` found.
    """
    bodies = [form[1:] for char in chars for form in named_references(char) + numeric_references(char)]
    return b"&(?:amp;)*(?:" + b"|".join(bodies) + b")" if bodies else None


def named_references(char: str) -> list[bytes]:
    """The named references of ``char`` (``&amp;``, ``&AMP;``): literal bytes, which are also expressions."""
    return [b"&" + name.encode() + b";" for name in NAMED.get(char, ())]


def numeric_references(char: str) -> list[bytes]:
    """``char``'s numeric references (``&#39;``, ``&#x27;``), as expressions; none for an ASCII letter or digit."""
    if _plain(char):
        return []
    code = ord(char)
    return [b"&#0{0,2}%d;" % code, b"&#[xX]0{0,2}" + _hex(code, len(f"{code:x}")) + b";"]


def entity_char(match: re.Match[bytes]) -> bytes:
    """The character (UTF-8) one of :func:`entity_forms` (with a plain ``&``) stands for: ``re.sub``'s callback
    (the filter replaces named ones with ``bytes.replace``: no Python call per ``&amp;``)."""
    body = match.group(0)[1:-1]
    if body[:1] != b"#":
        return _NAME_CHAR[body].encode()
    code = int(body[2:], 16) if body[1:2] in (b"x", b"X") else int(body[1:])
    return chr(code).encode("utf-8", "surrogatepass")


def _longest_entity(char: str) -> int:
    """The most bytes one of :func:`entity_forms` of ``char`` takes, with a plain ``&`` and escaped as HTML once
    (0: it has none); a stream holds back no more: a reference nested deeper and cut by a network chunk passes."""
    if _plain(char):
        return 0
    code = ord(char)
    named = max((len(name) + 2 for name in NAMED.get(char, ())), default=0)
    return max(named, len(f"&#00{code};"), len(f"&#x00{code:x};"))


def char_forms(char: str) -> list[bytes]:
    """Every way ``char`` can appear, as regular-expression alternatives (bytes).

    Raw UTF-8; ``\\u`` (a surrogate pair above U+FFFF) and, above U+FFFF, ``\\U``; ``\\x`` for a code
    point below 256 and, for a non-ASCII character, its UTF-8 bytes as ``\\x`` escapes (a ``bytes``
    repr); its short escape; ``%XX`` per UTF-8 byte; ``+`` for a space; an HTML character reference
    (:func:`entity_forms`; HTML text is escaped as a whole before or after the other escapes, so the
    reference's ``&`` may be ``\\u``-escaped and a short escape's character a reference: ``\\&quot;``).
    Every escape after a run of backslashes of any length (any depth of nesting).
    """
    raw = char.encode("utf-8")
    code = ord(char)
    forms = [re.escape(raw)]
    if code < 0x10000:
        forms.append(_RUN + b"u" + _hex(code, 4))
    else:
        high, low = 0xD800 + ((code - 0x10000) >> 10), 0xDC00 + ((code - 0x10000) & 0x3FF)
        forms.append(_RUN + b"u" + _hex(high, 4) + _RUN + b"u" + _hex(low, 4))
        forms.append(_RUN + b"U" + _hex(code, 8))
    if code < 0x100:
        forms.append(_RUN + b"x" + _hex(code, 2))
    if code >= 0x80:
        forms.append(b"".join(_RUN + b"x" + _hex(byte, 2) for byte in raw))
    if char == "\\":
        forms.append(_RUN)
    elif char in LETTER:
        letter = LETTER[char]
        forms.append(_RUN + b"(?:" + b"|".join([re.escape(letter.encode()), *entity_forms(letter)]) + b")")
    forms.append(b"".join(b"%" + _hex(byte, 2) for byte in raw))
    if char == " ":
        forms.append(rb"\+")
    forms.extend(_AMP + form[1:] for form in entity_forms(char))
    return forms


def longest_form(char: str) -> int:
    """The most bytes ``char`` takes in one of :func:`char_forms`, with runs of up to :data:`HELD_RUN` backslashes
    before a ``\\u`` or ``\\x`` escape and :data:`MAX_RUN` before a short one (a quote or a backslash at the
    deepest level: these are what a secret holding them is written with, and a few bytes each)."""
    utf8 = len(char.encode("utf-8"))
    code = ord(char)
    longest = max(utf8 * 3, HELD_RUN + 5)  # %XX per byte; \\…\\uXXXX
    if code >= 0x10000:
        longest = max(longest, 2 * (HELD_RUN + 5), HELD_RUN + 9)
    if code >= 0x80:
        longest = max(longest, utf8 * (HELD_RUN + 3))
    if char == "\\":
        longest = max(longest, MAX_RUN)
    elif char in LETTER:
        longest = max(longest, MAX_RUN + max(1, _longest_entity(LETTER[char])))
    entity = _longest_entity(char)
    if entity:
        longest = max(longest, entity - 1 + HELD_RUN + 5)  # its & as \\…\\u0026
    return longest
