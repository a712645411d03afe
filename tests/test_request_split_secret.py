"""A key cut in two by the cursor, in a completion request: neither half reaches the upstream.

Inline completion sends the code around the cursor. With the cursor inside a key written in a cell,
the key is cut where the client puts the cursor: between ``prompt`` and ``suffix`` (the completions
API's fields), or at the fill-in-the-middle marker of the model's family in ``prompt``
(``src/agent/completion/fim-format.ts``: Qwen's ``<|fim_suffix|>``, StarCoder's ``<fim_suffix>``,
DeepSeek's ``fim hole`` token (with full-width bars), Code Llama's `` <SUF>``, and Codestral's
``[SUFFIX]after[PREFIX]before``, where the text after the cursor comes first). No part of the body
holds the whole key, so the redaction of whole secrets cannot see it; :func:`.model_requests.prepare`
looks at the cut itself and replaces both halves with ``[redacted]``. The last test sends one through
a real Jupyter server to the scripted model server, which records what it received.
"""

from __future__ import annotations

import json

import pytest
from conftest import SECRET_KEY
from leak_check import leaked

from jupyterlab_notebook_agent.model_requests import COMPLETION, prepare

KEY = "sk-proj-AbC123xyz-0123456789ABCDEF"
#: A key with slashes (AWS's documented example secret): JSON encoders may write them ``\/``.
SLASHED = "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"
SECRETS = (KEY, SLASHED)

BEFORE = "import openai\nclient = openai.OpenAI(api_key='"
AFTER = "')\nclient.models.list()\n"

#: Where the cursor cuts the key: one character in, the middle, one character before its end.
CUTS = [1, len(KEY) // 2, len(KEY) - 1]

#: How each model family the client supports writes the prompt (fim-format.ts): before, after -> prompt.
FIM = {
    "qwen": lambda b, a: f"<|fim_prefix|>{b}<|fim_suffix|>{a}<|fim_middle|>",
    "starcoder": lambda b, a: f"<fim_prefix>{b}<fim_suffix>{a}<fim_middle>",
    "deepseek": lambda b, a: f"<\uff5cfim\u2581begin\uff5c>{b}<\uff5cfim\u2581hole\uff5c>{a}<\uff5cfim\u2581end\uff5c>",
    "codellama": lambda b, a: f"<PRE> {b} <SUF>{a} <MID>",
    "codestral": lambda b, a: f"[SUFFIX]{a}[PREFIX]{b}",
}


def forwarded(body: bytes, secrets: tuple[str, ...] = SECRETS) -> dict:
    """What would go upstream: the body ``prepare`` hands back, parsed (it must have changed it)."""
    prepared = prepare(COMPLETION, body, "", secrets)
    assert prepared.problem is None, prepared.problem
    assert prepared.body is not None, "the body went out as it came"
    assert prepared.redacted
    return json.loads(prepared.body)


def no_piece_of(text: str, key: str) -> None:
    """Not a run of 4 or more of the key's characters is left in ``text`` (the whole key neither)."""
    pieces = {key[i : i + 4] for i in range(len(key) - 3)}
    left = sorted(p for p in pieces if p in text)
    assert not left, f"pieces of the key went out: {left} in {text!r}"


def completion(**fields) -> bytes:
    return json.dumps({"model": "m", "max_tokens": 16, **fields}).encode()


# -- prompt and suffix --------------------------------------------------------------------------


@pytest.mark.parametrize("cut", CUTS)
def test_a_key_cut_between_prompt_and_suffix_goes_out_as_two_redactions(cut):
    sent = forwarded(completion(prompt=BEFORE + KEY[:cut], suffix=KEY[cut:] + AFTER))
    assert sent["prompt"] == BEFORE + "[redacted]"
    assert sent["suffix"] == "[redacted]" + AFTER
    no_piece_of(json.dumps(sent), KEY)


def test_a_key_json_escaped_across_the_cut_is_found_in_the_decoded_text():
    # The cut right after a "/" the body writes "\/", and the other half's slash escaped too.
    cut = SLASHED.index("/") + 1
    prompt = json.dumps(BEFORE + SLASHED[:cut]).replace("/", "\\/")
    suffix = json.dumps(SLASHED[cut:] + AFTER).replace("/", "\\/")
    body = f'{{"model": "m", "prompt": {prompt}, "suffix": {suffix}, "max_tokens": 16}}'.encode()
    assert b"\\/" in body
    sent = forwarded(body)
    assert sent["prompt"] == BEFORE + "[redacted]"
    assert sent["suffix"] == "[redacted]" + AFTER
    no_piece_of(json.dumps(sent), SLASHED)


def test_a_key_unicode_escaped_on_both_sides_of_the_cut_is_found():
    # Each side's characters next to the cut written as \u escapes.
    cut = 12
    head, tail = KEY[:cut], KEY[cut:]
    escaped_head = head[:-2] + "".join(f"\\u{ord(c):04x}" for c in head[-2:])
    escaped_tail = "".join(f"\\u{ord(c):04x}" for c in tail[:2]) + tail[2:]
    body = (
        '{"model": "m", "prompt": "api_key = \'' + escaped_head + '", "suffix": "' + escaped_tail + "'\\n\"}"
    ).encode()
    assert KEY[cut - 2 : cut + 2].encode() not in body
    sent = forwarded(body)
    assert sent["prompt"] == "api_key = '[redacted]"
    assert sent["suffix"] == "[redacted]'\n"
    no_piece_of(json.dumps(sent), KEY)


def test_a_key_written_escaped_in_the_cell_and_cut_is_found():
    # The cell holds JSON text, so the key in it is written "\/" (a level of escapes inside the string).
    cut = SLASHED.index("/") + 3
    cell = SLASHED.replace("/", "\\/")
    at = cell.index("\\/") + 4  # the same place in the written form
    assert cell[:at].replace("\\/", "/") == SLASHED[:cut]
    sent = forwarded(completion(prompt='config = \'{"key": "' + cell[:at], suffix=cell[at:] + "\"}'\n"))
    assert sent["prompt"] == 'config = \'{"key": "[redacted]'
    assert sent["suffix"] == "[redacted]\"}'\n"
    no_piece_of((sent["prompt"] + sent["suffix"]).replace("\\/", "/"), SLASHED)


def test_a_cut_key_and_a_whole_one_are_both_taken_out():
    sent = forwarded(completion(prompt=f"a = '{SLASHED}'\nb = '{KEY[:9]}", suffix=f"{KEY[9:]}'\n"))
    assert sent["prompt"] == "a = '[redacted]'\nb = '[redacted]"
    assert sent["suffix"] == "[redacted]'\n"


def test_the_default_model_is_still_filled_in():
    body = json.dumps({"prompt": BEFORE + KEY[:5], "suffix": KEY[5:] + AFTER}).encode()
    prepared = prepare(COMPLETION, body, "coder-default", SECRETS)
    sent = json.loads(prepared.body)
    assert prepared.model == sent["model"] == "coder-default"
    assert sent["prompt"] == BEFORE + "[redacted]" and sent["suffix"] == "[redacted]" + AFTER


# -- fill-in-the-middle prompts -----------------------------------------------------------------


@pytest.mark.parametrize("family", sorted(FIM))
@pytest.mark.parametrize("cut", CUTS)
def test_a_key_cut_at_the_fim_marker_goes_out_as_two_redactions(family, cut):
    write = FIM[family]
    sent = forwarded(completion(prompt=write(BEFORE + KEY[:cut], KEY[cut:] + AFTER)))
    assert sent["prompt"] == write(BEFORE + "[redacted]", "[redacted]" + AFTER)
    no_piece_of(sent["prompt"], KEY)


def test_the_reproduced_request_no_longer_carries_either_half():
    # The request of the report: Qwen's markers, the cursor after "sk-proj-AbC1".
    write = FIM["qwen"]
    prompt = write("client = OpenAI(api_key='sk-proj-AbC1", "23xyz-0123456789ABCDEF')\n")
    sent = forwarded(completion(prompt=prompt))
    assert sent["prompt"] == write("client = OpenAI(api_key='[redacted]", "[redacted]')\n")
    assert "AbC1" not in sent["prompt"] and "23xyz" not in sent["prompt"]


def test_a_key_cut_at_one_of_many_markers_in_the_cell_is_found():
    # The cell itself holds fill-in-the-middle markers (a notebook about them): the client's is one of many.
    cell = "".join(f"t{i} = '<fim_suffix>'\n" for i in range(20))
    write = FIM["starcoder"]
    sent = forwarded(completion(prompt=write(cell + BEFORE + KEY[:7], KEY[7:] + AFTER + cell)))
    assert sent["prompt"] == write(cell + BEFORE + "[redacted]", "[redacted]" + AFTER + cell)
    prepared = prepare(COMPLETION, completion(prompt=write(cell + BEFORE, AFTER + cell)), "", SECRETS)
    assert prepared.body is None


# -- nothing to take out ------------------------------------------------------------------------


@pytest.mark.parametrize(
    "fields",
    [
        {"prompt": BEFORE, "suffix": AFTER},
        {"prompt": FIM["qwen"](BEFORE, AFTER)},
        {"prompt": FIM["codestral"](BEFORE, AFTER)},
        # Fewer characters of a key than a part at the cursor, on either side (test_request_edge_parts.py).
        {"prompt": BEFORE + KEY[:7], "suffix": "XYZ" + AFTER},
        {"prompt": FIM["starcoder"](BEFORE + KEY[:7], KEY[-7:] + AFTER)},
        {"prompt": BEFORE + KEY[:7]},
    ],
    ids=["fields", "qwen", "codestral", "near-miss", "fim-near-miss", "no-suffix-too-short"],
)
def test_a_request_with_no_secret_goes_out_as_it_came(fields):
    body = completion(**fields)
    prepared = prepare(COMPLETION, body, "", SECRETS)
    assert prepared == (None, None, None, "m", False)


def test_no_secrets_held_leaves_a_cut_key_alone():
    prepared = prepare(COMPLETION, completion(prompt=BEFORE + KEY[:5], suffix=KEY[5:]), "", ())
    assert prepared.body is None and not prepared.redacted


# -- through a real server ----------------------------------------------------------------------

#: A body this large is prepared in the request worker (request_worker.OFF_LOOP_BYTES), a smaller one on the loop.
LARGE = 1024 * 1024 + 1


@pytest.fixture
def jp_server_config(jp_server_config):
    """The completion route's cap raised above the worker's threshold, so both paths can be taken."""
    agent = {**jp_server_config["NotebookAgent"], "max_completion_request_bytes": 4 * LARGE}
    return {**jp_server_config, "NotebookAgent": agent}


@pytest.mark.parametrize("size", ["small", "large"])
async def test_a_key_cut_by_the_cursor_never_reaches_the_upstream(jp_fetch, configured, findings, size):
    """The server's own key, written in a cell and cut by the cursor, in both of the client's shapes; a
    small body (inline completion's) is prepared on the event loop, a large one in the request worker."""
    _, script = configured
    script.load([{"content": "ok"}, {"content": "ok"}])
    cut = 11
    above = "# %%\n" + "x = 1\n" * (LARGE // 6) if size == "large" else ""
    before = above + BEFORE
    bodies = [
        {"prompt": before + SECRET_KEY[:cut], "suffix": SECRET_KEY[cut:] + AFTER},
        {"model": "qwen2.5-coder", "prompt": FIM["qwen"](before + SECRET_KEY[:cut], SECRET_KEY[cut:] + AFTER)},
    ]
    for body in bodies:
        text = json.dumps({"max_tokens": 16, **body})
        assert (len(text) > LARGE) == (size == "large")
        response = await jp_fetch("notebook-agent/v1/completions", method="POST", body=text, raise_error=False)
        assert response.code == 200, response.body
    first, second = script.requests
    assert first["body"]["prompt"] == before + "[redacted]"
    assert first["body"]["suffix"] == "[redacted]" + AFTER
    assert second["body"]["prompt"] == FIM["qwen"](before + "[redacted]", "[redacted]" + AFTER)
    forwarded_text = json.dumps([first["body"], second["body"]])
    halves = [SECRET_KEY[:cut][-6:], SECRET_KEY[cut:][:6]]
    found = [h for h in halves if h in forwarded_text] + leaked(forwarded_text, [SECRET_KEY])
    findings.leak_if(bool(found), f"a key cut by the cursor was forwarded upstream: {found}")
    assert not found
    # The key still goes where it belongs: the header.
    assert first["headers"]["authorization"] == f"Bearer {SECRET_KEY}"
