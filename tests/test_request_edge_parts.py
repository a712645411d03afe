"""A key cut by the edge of the window inline completion sends: the part left at the edge does not go out.

The client sends a window of the cell around the cursor (``src/agent/completion/fim-prompt.ts``: 4000
characters before it, 1000 after) and, for a model family it has no fill-in-the-middle format for, nothing
after the cursor. A key the window's start cuts leaves its rest at the start of the text sent; one its end cuts,
or the cursor where nothing follows, leaves its start at the end. No part of the request holds the key whole,
so the redaction of whole secrets passed such a part (reported as left open by the third re-check of #35).
:func:`.model_requests.prepare` now takes the part out (``secret_parts.py``); the last test sends one through a
real Jupyter server to the scripted model server, which records what it received.
"""

from __future__ import annotations

import json
import random

import pytest
from conftest import SECRET_KEY
from leak_check import leaked
from test_request_split_secret import AFTER, BEFORE, FIM, KEY, SECRETS, completion, forwarded, no_piece_of

from jupyterlab_notebook_agent.model_requests import COMPLETION, prepare
from jupyterlab_notebook_agent.secret_parts import SecretParts, least_part

#: Where an edge cuts the key: six characters left on the edge's side, the middle, one character short of whole.
EDGE_CUTS = [6, len(KEY) // 2, len(KEY) - 1]

#: A multi-line secret (a PEM's shape), written in a cell as a string literal: its line ends as ``\n``.
#: The end of the second secret (AWS's example), as the window's start may leave it.
SLASHED_REST = SECRETS[1][-15:]
PEM = "-----BEGIN PRIVATE KEY-----\nMIIEvQIBADANBgkqhkiG9w0BAQEFAASC\nBKcwggSjAgEAAoIBAQC7\n-----END PRIVATE KEY-----"


# -- the fields' shape: prompt (before the cursor) and suffix (after) ---------------------------


@pytest.mark.parametrize("kept", EDGE_CUTS)
def test_the_rest_of_a_key_at_the_windows_start_goes_out_redacted(kept):
    sent = forwarded(completion(prompt=KEY[-kept:] + "')\n" + BEFORE, suffix=AFTER))
    assert sent["prompt"] == "[redacted]')\n" + BEFORE
    assert sent["suffix"] == AFTER
    no_piece_of(json.dumps(sent), KEY)


@pytest.mark.parametrize("kept", EDGE_CUTS)
def test_the_start_of_a_key_at_the_windows_end_goes_out_redacted(kept):
    sent = forwarded(completion(prompt=BEFORE, suffix=AFTER + "other = '" + KEY[:kept]))
    assert sent["suffix"] == AFTER + "other = '[redacted]"
    no_piece_of(json.dumps(sent), KEY)


@pytest.mark.parametrize("kept", EDGE_CUTS)
def test_with_nothing_sent_after_the_cursor_the_start_of_a_key_before_it_goes_out_redacted(kept):
    # A family the client has no fill-in-the-middle format for: the prompt alone, the cursor at its end.
    sent = forwarded(completion(prompt=BEFORE + KEY[:kept]))
    assert sent["prompt"] == BEFORE + "[redacted]"
    no_piece_of(sent["prompt"], KEY)


def test_a_key_typed_one_character_at_a_time_never_goes_out_in_part():
    """Each keystroke asks for a suggestion: every prefix of the key from a part's length on is redacted."""
    for typed in range(least_part(KEY), len(KEY) + 1):
        prepared = prepare(COMPLETION, completion(prompt=BEFORE + KEY[:typed]), "", SECRETS)
        sent = json.loads(prepared.body)["prompt"]
        assert sent == BEFORE + "[redacted]", typed


def test_fewer_characters_than_a_part_are_left_as_they_are():
    body = completion(prompt=KEY[-5:] + "\n" + BEFORE + KEY[:5])
    assert prepare(COMPLETION, body, "", SECRETS).body is None


def test_a_part_at_the_cursor_is_no_edge_when_the_text_after_it_is_sent():
    # The start of a key before the cursor and other text after it: the user's own, different key.
    body = completion(prompt=BEFORE + KEY[:20], suffix="other-text')\n")
    assert prepare(COMPLETION, body, "", SECRETS).body is None


def test_both_edges_and_the_cursor_at_once():
    sent = forwarded(
        completion(prompt=SLASHED_REST + "\n" + BEFORE + KEY[:9], suffix=KEY[9:] + AFTER + "b = '" + KEY[:12])
    )
    assert sent["prompt"] == "[redacted]\n" + BEFORE + "[redacted]"
    assert sent["suffix"] == "[redacted]" + AFTER + "b = '[redacted]"


# -- fill-in-the-middle prompts -----------------------------------------------------------------


@pytest.mark.parametrize("family", sorted(FIM))
@pytest.mark.parametrize("kept", EDGE_CUTS)
def test_parts_at_both_edges_of_a_fim_prompt_go_out_redacted(family, kept):
    write = FIM[family]
    sent = forwarded(completion(prompt=write(KEY[-kept:] + "\n" + BEFORE, AFTER + "k = '" + KEY[:kept])))
    assert sent["prompt"] == write("[redacted]\n" + BEFORE, AFTER + "k = '[redacted]")
    no_piece_of(sent["prompt"], KEY)


@pytest.mark.parametrize("family", sorted(FIM))
def test_the_cursor_marker_is_no_edge_in_a_fim_prompt(family):
    # Before the cursor: the start of a key; after it: other text. Not the key: left alone.
    write = FIM[family]
    prepared = prepare(COMPLETION, completion(prompt=write(BEFORE + KEY[:20], "other')\n")), "", SECRETS)
    assert prepared.body is None


def test_a_multi_line_secret_written_escaped_in_a_cell_is_found_at_the_edge():
    literal = json.dumps(PEM)[1:-1]  # "-----BEGIN ...\\nMIIE..." as the cell holds it
    cut = literal.index("\\n", 30) + 1  # between the backslash and the n
    sent = forwarded(completion(prompt=literal[cut:] + '"\n' + BEFORE, suffix=AFTER), (PEM,))
    assert sent["prompt"] == '[redacted]"\n' + BEFORE
    sent = forwarded(completion(prompt=BEFORE + 'pem = "' + literal[:cut]), (PEM,))
    assert sent["prompt"] == BEFORE + 'pem = "[redacted]'


def test_a_multi_line_secret_with_crlf_line_ends_is_found_at_the_edge():
    written = PEM.replace("\n", "\r\n")
    sent = forwarded(completion(prompt=written[40:] + "\n" + BEFORE, suffix=AFTER), (PEM,))
    assert sent["prompt"] == "[redacted]\n" + BEFORE


# -- SecretParts against a plain search -----------------------------------------------------------


def _slow_rest_at_start(forms: list[str], text: str) -> int:
    return max(
        (n for form in forms for n in range(least_part(form), len(form)) if text.startswith(form[-n:])), default=0
    )


def _slow_start_at_end(forms: list[str], text: str) -> int:
    return max((n for form in forms for n in range(least_part(form), len(form)) if text.endswith(form[:n])), default=0)


def test_secret_parts_agree_with_a_plain_search():
    """Small alphabets make secrets that repeat themselves (``abab…``): the searches' shortcuts must hold."""
    rng = random.Random(35)
    for _ in range(3000):
        alphabet = "ab" if rng.random() < 0.5 else "abc\n"
        secret = "".join(rng.choice(alphabet) for _ in range(rng.randint(8, 24)))
        text = "".join(rng.choice(alphabet) for _ in range(rng.randint(0, 30)))
        if rng.random() < 0.5:  # a real part at one edge
            n = rng.randint(1, len(secret) - 1)
            text = secret[-n:] + text if rng.random() < 0.5 else text + secret[:n]
        parts = SecretParts([secret])
        forms = [form for form, _ in parts._forms]
        assert parts.rest_at_start(text) == _slow_rest_at_start(forms, text), (secret, text)
        assert parts.start_at_end(text) == _slow_start_at_end(forms, text), (secret, text)


def test_short_secrets_count_only_whole():
    assert not SecretParts(["abc1234"])  # shorter than redaction.LONG
    assert SecretParts(["abcd1234"]).start_at_end("x = abcd") == 4


# -- through a real server ----------------------------------------------------------------------


async def test_a_part_of_the_servers_key_at_an_edge_never_reaches_the_upstream(jp_fetch, configured, findings):
    """The server's own key, cut by the window's start and by its end, in both of the client's shapes."""
    _, script = configured
    script.load([{"content": "ok"}, {"content": "ok"}, {"content": "ok"}])
    rest, start = SECRET_KEY[-20:], SECRET_KEY[:20]
    bodies = [
        {"prompt": rest + "')\n" + BEFORE, "suffix": AFTER + "k = '" + start},
        {"model": "qwen2.5-coder", "prompt": FIM["qwen"](rest + "')\n" + BEFORE, AFTER + "k = '" + start)},
        {"model": "some-chat-model", "prompt": BEFORE + start},
    ]
    for body in bodies:
        text = json.dumps({"max_tokens": 16, **body})
        response = await jp_fetch("notebook-agent/v1/completions", method="POST", body=text, raise_error=False)
        assert response.code == 200, response.body
    first, second, third = (request["body"] for request in script.requests)
    assert first["prompt"] == "[redacted]')\n" + BEFORE and first["suffix"] == AFTER + "k = '[redacted]"
    assert second["prompt"] == FIM["qwen"]("[redacted]')\n" + BEFORE, AFTER + "k = '[redacted]")
    assert third["prompt"] == BEFORE + "[redacted]"
    forwarded_text = json.dumps([first, second, third])
    found = [p for p in (rest[-8:], start[:8]) if p in forwarded_text] + leaked(forwarded_text, [SECRET_KEY])
    findings.leak_if(bool(found), f"a part of the key at an edge was forwarded upstream: {found}")
    assert not found
