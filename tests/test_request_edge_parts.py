"""A key cut by the edge of the window inline completion sends: the part left at the edge does not go out.

The client sends a window of the cell around the cursor (``src/agent/completion/fim-prompt.ts``: 4000
characters before it, 1000 after) and, for a model family it has no fill-in-the-middle format for, nothing
after the cursor. A key the window's start cuts leaves its rest at the start of the text sent; one its end cuts,
or the cursor (a key being typed: its closing quote or the line's end after it), leaves its start at the end; a
secret longer than the text (a PEM, the cursor inside it) leaves a piece of its middle as the whole text. No part
of the request holds the key whole, so the redaction of whole secrets passed such a part (reported as left open
by the third re-check of #35; a reviewer of the first fix found the cursor cases and the Markdown one).
:func:`.model_requests.prepare` now takes the part out (``secret_parts.py``); the last test sends one through a
real Jupyter server to the scripted model server, which records what it received.
"""

from __future__ import annotations

import base64
import json
import random

import pytest
from conftest import SECRET_KEY
from leak_check import leaked
from test_request_split_secret import AFTER, BEFORE, FIM, KEY, SECRETS, completion, forwarded, no_piece_of

from jupyterlab_notebook_agent.model_requests import COMPLETION, prepare
from jupyterlab_notebook_agent.secret_parts import SecretParts, least_part, public_ends

#: Where an edge cuts the key: sixteen characters left on the edge's side (its public "sk-proj-" and a part's
#: least of its own, eight), the middle, one character short of whole.
EDGE_CUTS = [16, len(KEY) // 2 + 1, len(KEY) - 1]
#: The fewest characters of the key's start that count: its public prefix "sk-proj-" and eight of its own.
LEAST_START = public_ends(KEY)[0] + least_part(KEY)

#: The end of the second secret (AWS's example), as the window's start may leave it.
SLASHED_REST = SECRETS[1][-15:]
#: A multi-line secret (a PEM's shape), written in a cell as a string literal: its line ends as ``\n``.
PEM = "-----BEGIN PRIVATE KEY-----\nMIIEvQIBADANBgkqhkiG9w0BAQEFAASC\nBKcwggSjAgEAAoIBAQC7\n-----END PRIVATE KEY-----"
#: A PEM longer than the window after the cursor (1704 characters: 1216 random bytes in 64-character lines).
_PEM_BODY = base64.b64encode(random.Random(50).randbytes(1216)).decode()
LONG_PEM = (
    "-----BEGIN PRIVATE KEY-----\n"
    + "\n".join(_PEM_BODY[i : i + 64] for i in range(0, len(_PEM_BODY), 64))
    + "\n-----END PRIVATE KEY-----\n"
)


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
    """Each keystroke asks for a suggestion: every start of the key from eight characters of its own is redacted,
    and fewer go out as they are."""
    assert LEAST_START == 16
    for typed in range(LEAST_START - 8, LEAST_START):
        assert prepare(COMPLETION, completion(prompt=BEFORE + KEY[:typed]), "", SECRETS).body is None, typed
    for typed in range(LEAST_START, len(KEY) + 1):
        prepared = prepare(COMPLETION, completion(prompt=BEFORE + KEY[:typed]), "", SECRETS)
        sent = json.loads(prepared.body)["prompt"]
        assert sent == BEFORE + "[redacted]", typed


def test_fewer_characters_than_a_part_are_left_as_they_are():
    body = completion(prompt=KEY[-7:] + "\n" + BEFORE + KEY[:7])
    assert prepare(COMPLETION, body, "", SECRETS).body is None


@pytest.mark.parametrize("after", ["", "'", "')\n", "\nprint(1)\n", "other-text')\n"])
def test_the_start_of_a_key_before_the_cursor_goes_out_redacted_whatever_follows(after):
    """A key being typed: at the cell's end (nothing after), before its closing quote, or at a line's end."""
    sent = forwarded(completion(prompt=BEFORE + KEY[:20], suffix=after))
    assert sent["prompt"] == BEFORE + "[redacted]" and sent["suffix"] == after


@pytest.mark.parametrize("family", sorted(FIM))
@pytest.mark.parametrize("after", ["", "')\n"])
def test_the_start_of_a_key_at_the_cursor_of_a_fim_prompt_goes_out_redacted(family, after):
    write = FIM[family]
    sent = forwarded(completion(prompt=write(BEFORE + KEY[:20], after)))
    assert sent["prompt"] == write(BEFORE + "[redacted]", after)


def test_the_rest_of_a_key_after_the_cursor_goes_out_redacted():
    # The cursor put back inside a key: its end after it, other text before (the key's start deleted).
    sent = forwarded(completion(prompt="k = '", suffix=KEY[12:] + "'\n"))
    assert sent["prompt"] == "k = '" and sent["suffix"] == "[redacted]'\n"


def test_both_edges_and_the_cursor_at_once():
    sent = forwarded(
        completion(prompt=SLASHED_REST + "\n" + BEFORE + KEY[:9], suffix=KEY[9:] + AFTER + "b = '" + KEY[:20])
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
def test_the_cursor_inside_a_pem_longer_than_the_window_after_it(family):
    """The text before the cursor ends with the PEM's start; the 1000 characters after it are its middle."""
    cell = 'pem = """' + LONG_PEM + '"""\n'
    cursor = cell.index(LONG_PEM) + 700
    write = FIM[family]
    sent = forwarded(completion(prompt=write(cell[:cursor], cell[cursor:][:1000])), (LONG_PEM,))
    assert sent["prompt"] == write('pem = """[redacted]', "[redacted]")


def test_a_pem_in_a_markdown_cell_above_goes_out_redacted():
    """The client writes a Markdown cell above the cursor as comments: each line after "# " (fim-prompt.ts)."""
    lines = ("Our key:\n\n" + PEM).split("\n")
    markdown = "# %% [markdown]\n" + "\n".join(f"# {line}".rstrip() for line in lines) + "\n\n"
    write = FIM["qwen"]
    sent = forwarded(completion(prompt=write(markdown + "# %%\ny = ", "\n")), (PEM,))
    assert sent["prompt"] == write("# %% [markdown]\n# Our key:\n#\n# [redacted]\n\n# %%\ny = ", "\n")
    assert "MIIEvQ" not in sent["prompt"]


def test_a_plain_prompt_that_looks_like_codestrals_is_looked_at_too():
    sent = forwarded(completion(prompt="[SUFFIX]x = 1\nk = '" + KEY[:20]))
    assert sent["prompt"] == "[SUFFIX]x = 1\nk = '[redacted]"


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
        (
            n
            for form in forms
            for n in range(least_part(form) + public_ends(form)[1], len(form))
            if text.startswith(form[-n:])
        ),
        default=0,
    )


def _slow_start_at_end(forms: list[str], text: str) -> int:
    return max(
        (
            n
            for form in forms
            for n in range(least_part(form) + public_ends(form)[0], len(form))
            if text.endswith(form[:n])
        ),
        default=0,
    )


def _slow_inside(forms: list[str], text: str) -> bool:
    for form in forms:
        head, tail = public_ends(form)
        for at in range(len(form) - len(text) + 1):
            if least_part(form) <= len(text) < len(form) and form[at : at + len(text)] == text:
                if min(at + len(text), len(form) - tail) - max(at, head) >= least_part(form):
                    return True
    return False


def test_secret_parts_agree_with_a_plain_search():
    """Small alphabets make secrets that repeat themselves (``abab…``): the searches' shortcuts must hold."""
    rng = random.Random(35)
    for _ in range(3000):
        alphabet = rng.choice(["ab", "abc\n", "ab-"])
        secret = "".join(rng.choice(alphabet) for _ in range(rng.randint(8, 24)))
        if rng.random() < 0.3:  # a public start: a scheme, a key prefix, an authorization scheme
            secret = rng.choice(["https://", "sk-proj-", "Bearer ab-"]) + secret
        text = "".join(rng.choice(alphabet) for _ in range(rng.randint(0, 30)))
        roll = rng.random()
        if roll < 0.4:  # a real part at one edge
            n = rng.randint(1, len(secret) - 1)
            text = secret[-n:] + text if rng.random() < 0.5 else text + secret[:n]
        elif roll < 0.6:  # a piece of its middle
            i = rng.randint(0, len(secret) - 2)
            text = secret[i : rng.randint(i + 1, len(secret))]
        parts = SecretParts([secret])
        forms = [entry[0] for entry in parts._forms]
        assert parts.rest_at_start(text) == _slow_rest_at_start(forms, text), (secret, text)
        assert parts.start_at_end(text) == _slow_start_at_end(forms, text), (secret, text)
        assert parts.inside(text) == _slow_inside(forms, text), (secret, text)


def test_short_secrets_count_only_whole():
    assert not SecretParts(["abc1234"])  # shorter than redaction.LONG
    assert SecretParts(["abcd1234"]).start_at_end("x = abcd") == 4


def test_what_any_such_value_begins_with_is_no_part():
    """A held "Bearer <key>": code that writes the header keeps "Bearer sk-proj-" (public), and a held webhook
    URL leaves "https://" alone; eight characters of their own are a part."""
    parts = SecretParts(["Bearer " + KEY, "https://hooks.example.com/services/T000/B000/XXXX"])
    assert parts.start_at_end('h = {"Authorization": "Bearer sk-proj-') == 0
    assert parts.start_at_end('h = {"Authorization": "Bearer ' + KEY[:16]) == 23
    assert parts.start_at_end('url = "https://') == 0
    assert parts.start_at_end('url = "https://hooks.ex') == 16


def test_a_passwords_words_are_no_key_prefix():
    """Only short words make a vendor's prefix: "my_password_is_long" counts from "my_" and 8 of its own."""
    assert public_ends("my_password_is_long") == (3, 0)
    assert public_ends("sk-ant-api03-abcdefghijkl") == (13, 0)
    assert SecretParts(["my_password_is_long"]).start_at_end("p = 'my_password") == 11


def test_a_pems_armour_is_no_part_but_its_body_is():
    parts = SecretParts([PEM])
    assert parts.start_at_end('if line.startswith("-----BEGIN PRIVATE KEY-----') == 0
    assert parts.rest_at_start("-----END PRIVATE KEY-----\nfoo()") == 0
    assert parts.start_at_end("x = '" + PEM[:36]) == 36
    assert parts.rest_at_start(PEM[-40:] + "'\n") == 40


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
