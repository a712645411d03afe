"""The matcher and the streaming scrubber on their own: every form, every split, bounded memory."""

from __future__ import annotations

import json

import pytest
from hostile_upstream import escaped, mixed, url_encoded
from leak_check import leaked

from jupyterlab_notebook_agent.redaction import SecretMatcher, StreamScrubber

KEY = "sk-proj-0123456789-abcdefghijklmnop"
SHORT = "ab12"
SCALAR = "1"

pytestmark = pytest.mark.fault_category("outbound filter")


def matcher() -> SecretMatcher:
    return SecretMatcher([KEY, SHORT, SCALAR])


def payload() -> bytes:
    """One JSON document holding the key in every form, the short secrets, and text that must survive.

    Written as JSON text: ``\\u0073`` is an escape JSON decodes to the key's character, ``\\\\u0073``
    the escape printed as text (a backslash, then ``u0073``), ``\\\\`` + an escape a backslash then the key.
    """
    forms = [KEY, escaped(KEY), url_encoded(KEY), mixed(KEY), escaped(KEY).replace("\\", "\\\\"), "\\\\" + escaped(KEY)]
    text = " | ".join(forms) + f" | whole {SHORT} in x{SHORT}y"
    return ('{"index": 1, "n": [1, 2, 11], "t": "' + text + f'", "q": ["{SHORT}", "{SCALAR}"]}}').encode()


def test_every_form_is_redacted_and_the_json_still_parses():
    out = matcher().redact(payload())
    doc = json.loads(out)
    assert not leaked(out.decode(), [KEY, SHORT, SCALAR])
    assert doc["index"] == 1 and doc["n"] == [1, 2, 11]
    assert doc["q"] == ["[redacted]", "[redacted]"]
    assert f"x{SHORT}y" in doc["t"] and "whole [redacted] in" in doc["t"]


def test_a_raw_character_of_an_escape_is_no_hit():
    m = SecretMatcher(["nabcdefgh1"])
    data = json.dumps({"t": "line\nabcdefgh1"}).encode()  # a newline, then "abcdefgh1": not the secret
    assert m.redact(data) == data


@pytest.mark.parametrize("size", [1, 2, 3, 5, 7, 13, 64, 4096])
def test_a_secret_split_anywhere_across_chunks_is_caught(size):
    data = payload() * 3
    whole = matcher().redact(data)
    scrubber = StreamScrubber(matcher())
    pieces = [scrubber.feed(data[i : i + size]) for i in range(0, len(data), size)]
    out = b"".join(pieces) + scrubber.flush()
    assert out == whole
    assert not leaked(out.decode(), [KEY, SHORT, SCALAR])


def test_memory_per_stream_is_bounded_by_the_look_behind():
    m = matcher()
    scrubber = StreamScrubber(m)
    chunk = b"x" * 65536
    for _ in range(200):  # 12.5 MB
        sent = scrubber.feed(chunk)
        assert len(scrubber._held) <= m.look_behind
        assert len(sent) >= len(chunk) - m.look_behind
    assert m.look_behind <= 14 * len(KEY) + 1


def test_no_secrets_means_no_work():
    scrubber = StreamScrubber(SecretMatcher([]))
    chunk = b"data: " + KEY.encode()
    assert scrubber.feed(chunk) is chunk and scrubber.flush() == b""
