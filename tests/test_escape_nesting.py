"""Secrets inside escapes at any depth: JSON text inside JSON, ``repr`` text, ``repr`` of JSON (issue #35, D1).

A differential test: each secret (a line break, ``\\r\\n``, a tab, quotes, slashes, non-ASCII) is encoded
the ways a tool, a cell or an upstream writes it (raw, JSON once and twice, ``repr``, ``repr`` of JSON, …),
carried as it travels (as it is, or as a string in a JSON document), and then run through the matcher, the
streaming scrubber in small chunks, and the join of pieces the kernel filter and the SSE filter use. What
comes out is read back by Python's own parsers (``json.loads``, ``ast.literal_eval``) at every depth: no
reading may hold the secret, or any of its lines.
"""

from __future__ import annotations

import ast
import json
import re

import pytest

from jupyterlab_notebook_agent.redaction import SecretMatcher, StreamScrubber

PEM = "-----BEGIN PRIVATE KEY-----\nMIIEvQIBADANBgkqhkiG9w0BAQ/pem+line\n-----END PRIVATE KEY-----"
#: A key as long as a real one's (longer than the one expression that finds a secret's start at a text's end).
LONG_PEM = "-----BEGIN EC PRIVATE KEY-----\n" + "\n".join(f"MHcCAQEEIN{i}x" + "q7/Zk+" * 10 for i in range(3))
LONG_PEM += "\n-----END EC PRIVATE KEY-----"
CRLF = "first-line-of-a-secret-0123\r\nsecond-line-of-a-secret-4567"
TAB = "tab\tseparated-secret-value-0123"
QUOTES = "pass\"word'with-both-quotes-0123"
SLASHES = "sk-proj/Abc\\def/0123456789-slashes"
NON_ASCII = "Größe-geheimer-Schlüssel-€-😀-0123"
SECRETS = {
    "pem": PEM,
    "long-pem": LONG_PEM,
    "crlf": CRLF,
    "tab": TAB,
    "quotes": QUOTES,
    "slashes": SLASHES,
    "non-ascii": NON_ASCII,
}

ENCODINGS = {
    "raw": lambda s: s,
    "json": json.dumps,
    "json-non-ascii": lambda s: json.dumps(s, ensure_ascii=False),
    "json-twice": lambda s: json.dumps(json.dumps(s)),
    "json-thrice": lambda s: json.dumps(json.dumps(json.dumps(s))),
    "repr": repr,
    "repr-of-json": lambda s: repr(json.dumps(s)),
    "json-of-repr": lambda s: json.dumps(repr(s)),
    "repr-of-bytes": lambda s: repr(s.encode()),
    "in-a-dict": lambda s: json.dumps({"value": s}),
    "repr-of-a-dict": lambda s: repr({"value": s}),
}

#: How the encoded text travels: as it is (a kernel's stream text, a log line), or as a JSON string
#: (an MCP result, a model's answer, a request's tool message), with or without ``ensure_ascii``.
CARRIERS = {
    "bare": lambda text: text.encode("utf-8"),
    "in-json": lambda text: json.dumps({"text": text}).encode(),
    "in-json-utf8": lambda text: json.dumps({"text": text}, ensure_ascii=False).encode("utf-8"),
}

pytestmark = pytest.mark.fault_category("outbound filter")


@pytest.fixture(params=[True, False], ids=["hyperscan", "re"])
def matcher(request) -> SecretMatcher:
    return SecretMatcher(tuple(SECRETS.values()), compiled=request.param)


#: A string literal of JSON or Python (``b'…'`` too) somewhere in a text.
LITERAL = re.compile(r"""b?"(?:[^"\\\n]|\\.)*"|b?'(?:[^'\\\n]|\\.)*'""")


def readings(text: str) -> list[str]:
    """``text`` and every string Python's parsers read out of the literals in it, to any depth.

    The independent side of the comparison: no code of the filter, only ``json.loads`` and
    ``ast.literal_eval`` on every string literal found, again in what they return.
    """
    found, todo = [], [text]
    while todo and len(found) < 2000:
        item = todo.pop()
        found.append(item)
        for literal in LITERAL.findall(item):
            for parse in (json.loads, ast.literal_eval):
                try:
                    value = parse(literal)
                except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
                    continue
                if isinstance(value, bytes):
                    value = value.decode("utf-8", "replace")
                if isinstance(value, str) and value != item and value not in found:
                    todo.append(value)
    return found


def pieces_of(secret: str) -> list[str]:
    """The secret and its lines: a leak of one line of a PEM key is a leak."""
    lines = [line for line in secret.replace("\r\n", "\n").split("\n") if len(line) >= 8]
    return [secret, secret.replace("\r\n", "\n"), *lines]


def leaks(out: bytes) -> list[str]:
    text = out.decode("utf-8", "replace")
    return sorted({p for t in readings(text) for s in SECRETS.values() for p in pieces_of(s) if p in t})


CASES = [
    pytest.param(secret, encode, carry, id=f"{name}-{how}-{carrier}")
    for name, secret in SECRETS.items()
    for how, encode in ENCODINGS.items()
    for carrier, carry in CARRIERS.items()
]


@pytest.mark.parametrize(("secret", "encode", "carry"), CASES)
def test_a_secret_in_nested_escapes_is_redacted(matcher, secret, encode, carry):
    data = carry("before " + encode(secret) + " after")
    assert leaks(data), "the case must hold the secret before it is redacted"
    out = matcher.redact(data)
    assert not leaks(out), out
    assert b"[redacted]" in out
    if carry is not CARRIERS["bare"]:
        assert json.loads(out)["text"].startswith("before ")  # still JSON, the text around it kept


@pytest.mark.parametrize(("secret", "encode", "carry"), CASES[:: len(CARRIERS)])
@pytest.mark.parametrize("size", [1, 7, 64])
def test_a_secret_in_nested_escapes_is_redacted_across_chunks(matcher, secret, encode, carry, size):
    data = carry(("before " + encode(secret) + " after ") * 2)
    scrubber = StreamScrubber(matcher)
    out = b"".join(scrubber.feed(data[i : i + size]) for i in range(0, len(data), size)) + scrubber.flush()
    assert not leaks(out), out
    assert out == matcher.redact(data)


def join_pieces(matcher: SecretMatcher, pieces: list[str]) -> str:
    """What a reader joining ``pieces`` sees after the filter's join (kernel stream messages, SSE deltas)."""
    sent, held = [], ""
    for piece in pieces:
        joined = matcher.redact_text(held + piece)
        keep = matcher.pending_prefix(joined)
        sent.append(joined[: len(joined) - keep])
        held = joined[len(joined) - keep :]
    return "".join(sent) + matcher.redact_text(held)


@pytest.mark.parametrize(("secret", "encode", "carry"), CASES[:: len(CARRIERS)])
def test_a_secret_in_nested_escapes_is_redacted_across_pieces(matcher, secret, encode, carry):
    """Two pieces cut at every place, as a cell printing in two writes or a model in two deltas sends them."""
    text = "before " + encode(secret) + " after"
    for cut in range(1, len(text)):
        joined = join_pieces(matcher, [text[:cut], text[cut:]])
        assert not leaks(joined.encode()), (cut, joined)
        assert "[redacted]" in joined and joined.startswith("before ") and joined.endswith(" after"), (cut, joined)


@pytest.mark.parametrize("name", SECRETS)
def test_a_secret_one_character_a_piece_is_redacted(matcher, name):
    for encode in (ENCODINGS["raw"], ENCODINGS["json"], ENCODINGS["repr-of-json"]):
        text = "x " + encode(SECRETS[name]) + " y"
        joined = join_pieces(matcher, list(text))
        assert not leaks(joined.encode()), joined
        assert joined == matcher.redact_text(text)


def test_text_with_no_secret_is_never_held(matcher):
    for text in ("plain words ", "a\\nb\\tc ", 'C:\\\\Users\\\\x "quoted" ', "50 %", "Größe 😀 "):
        assert matcher.redact_text(text) == text and matcher.pending_prefix(text) == 0, text
