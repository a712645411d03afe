"""The look-behind across SSE events on its own (sse_deltas.py; issue #35, D4).

Streams of chat and completion events, cut every way, through :class:`DeltaScrubber`: what a client
joins per choice and field is the text as sent with ``[redacted]`` for the key, every event still
parses, and events with nothing to hold pass as the very same bytes.
"""

from __future__ import annotations

import json
import random

import pytest

from jupyterlab_notebook_agent.redaction import SecretMatcher, StreamScrubber
from jupyterlab_notebook_agent.sse_deltas import DeltaScrubber, _closing_quote
from jupyterlab_notebook_agent.tool_call_grouping import ToolCallGrouping, js_number

KEY = "sk-deltas-0123456789-abcdefghij"
SHORT = "zq47"
TEXT = f"the key is {KEY}, the header {SHORT}; items and stuff {SHORT}x"
EXPECTED = "the key is [redacted], the header [redacted]; items and stuff zq47x"

pytestmark = pytest.mark.fault_category("outbound filter")


@pytest.fixture(params=[True, False], ids=["hyperscan", "re"])
def matcher(request) -> SecretMatcher:
    return SecretMatcher((KEY, SHORT), compiled=request.param)


def chat_event(text: str, index: int = 0, field: str = "content", finish: str | None = None) -> bytes:
    delta = {field: text} if text else {}
    payload = {"id": "c", "object": "chat.completion.chunk", "choices": [{"index": index, "delta": delta}]}
    payload["choices"][0]["finish_reason"] = finish
    return f"data: {json.dumps(payload)}\n\n".encode()


def completion_event(text: str, index: int = 0, finish: str | None = None) -> bytes:
    payload = {"id": "c", "object": "text_completion", "choices": [{"index": index, "text": text}]}
    payload["choices"][0]["finish_reason"] = finish
    return f"data: {json.dumps(payload)}\n\n".encode()


def pieces(text: str, rng: random.Random, most: int) -> list[str]:
    cuts = sorted(rng.sample(range(1, len(text)), rng.randint(1, min(most, len(text) - 1))))
    return [text[a:b] for a, b in zip([0, *cuts], [*cuts, len(text)])]


def run(matcher: SecretMatcher, events: list[bytes], batch: int = 1) -> bytes:
    """``events``, ``batch`` at a time, through the look across events and then each event's own scrub, as the
    proxy sends them (proxy_handler.py)."""
    deltas, scrubber = DeltaScrubber(matcher), StreamScrubber(matcher)
    out = [deltas.feed(b"".join(events[i : i + batch])) for i in range(0, len(events), batch)]
    return b"".join(scrubber.feed(chunk, at_boundary=True) for chunk in [*out, deltas.flush()])


def joined(body: bytes) -> dict[tuple[int, str], str]:
    texts: dict[tuple[int, str], str] = {}
    for block in body.decode().split("\n\n"):
        data = "".join(line[5:].lstrip() for line in block.splitlines() if line.startswith("data:"))
        if not data or data == "[DONE]":
            continue
        for choice in json.loads(data)["choices"]:
            delta = choice.get("delta") or {}
            fields = {"text": choice.get("text"), "content": delta.get("content")}
            for call in delta.get("tool_calls") or []:
                fields[f"args{call['index']}"] = call.get("function", {}).get("arguments")
            for name, text in fields.items():
                if text:
                    texts[(choice["index"], name)] = texts.get((choice["index"], name), "") + text
    return texts


@pytest.mark.parametrize("make", [chat_event, completion_event], ids=["chat", "completion"])
def test_a_secret_cut_anywhere_across_deltas_is_redacted_once_joined(matcher, make):
    rng = random.Random(35)
    field = "content" if make is chat_event else "text"
    for round_ in range(300):
        events = [make(p) for p in pieces(TEXT, rng, 40)]
        events += [make("", finish="stop"), b"data: [DONE]\n\n"]
        body = run(matcher, events, batch=1 + round_ % 3)
        assert joined(body) == {(0, field): EXPECTED}, body
        assert body.endswith(b"data: [DONE]\n\n")


def test_each_choice_and_tool_call_is_joined_on_its_own(matcher):
    rng = random.Random(4)
    first, second = pieces(TEXT, rng, 12), pieces(TEXT, rng, 30)
    events = []
    for i in range(max(len(first), len(second))):
        if i < len(first):
            events.append(chat_event(first[i], index=0))
        if i < len(second):
            call = {"index": 1, "function": {"arguments": second[i]}}
            payload = {"choices": [{"index": 1, "delta": {"tool_calls": [call]}, "finish_reason": None}]}
            events.append(f"data: {json.dumps(payload)}\n\n".encode())
    events += [chat_event("", index=0, finish="stop"), chat_event("", index=1, finish="tool_calls")]
    assert joined(run(matcher, events)) == {(0, "content"): EXPECTED, (1, "args1"): EXPECTED}


def test_what_is_held_when_the_stream_ends_or_breaks_comes_out_after_the_rest(matcher):
    events = [chat_event("so far: "), chat_event(KEY[:9])]  # the start of a key, and no more
    scrubber = DeltaScrubber(matcher)
    out = b"".join(scrubber.feed(e) for e in events)
    assert joined(out) == {(0, "content"): "so far: "}
    assert joined(out + scrubber.flush()) == {(0, "content"): "so far: " + KEY[:9]}
    assert scrubber.flush() == b""


def test_events_with_nothing_to_hold_pass_as_the_same_bytes(matcher):
    scrubber = DeltaScrubber(matcher)
    for text in ("plain text ", "items ", "a \\u0041 b ", "Größe ", 'quote " ', "x" * 70_000):
        for event in (chat_event(text), completion_event(text), b'data: {"choices": []}\n\n', b": ping\n\n"):
            assert scrubber.feed(event) is event
    assert scrubber.feed(b"data: [DONE]\n\n") == b"data: [DONE]\n\n"


def test_other_lines_crlf_and_events_that_are_not_json_survive(matcher):
    scrubber = DeltaScrubber(matcher)
    out = scrubber.feed(b"event: message\r\nid: 7\r\n" + chat_event("key " + KEY[:5]).replace(b"\n", b"\r\n"))
    assert out.startswith(b"event: message\nid: 7\ndata: ") and b"key " in out and KEY[:5].encode() not in out
    assert scrubber.feed(b"data: not json\n\n") == b"data: not json\n\n"
    two_lines = b'data: {"choices": [{"index": 0,\ndata: "delta": {"content": "' + KEY[5:].encode() + b'"}}]}\n\n'
    out = scrubber.feed(two_lines)
    assert joined(out) == {(0, "content"): "[redacted]"}


def test_the_end_of_a_string_is_found_past_any_number_of_escaped_quotes():
    """``_closing_quote`` against json's own reading: strings with no, a few and many escaped quotes (code
    streams ``row[\\"units\\"]``: past a few, json's scanner reads the rest) and backslashes before them."""
    rng = random.Random(35)
    alphabet = ['"', "\\", "x", "ö", "\n", "\t", " ", "\\u0041", "文"]
    for case in range(3000):
        text = "".join(rng.choice(alphabet) for _ in range(rng.randint(0, 8 + case % 60)))
        for ascii_only in (True, False):
            encoded = json.dumps(text, ensure_ascii=ascii_only).encode()
            data = b'data: {"choices": [{"delta": {"content": ' + encoded + b', "role": "a\\"b"}}]}\n\n'
            start = data.index(encoded) + 1
            assert _closing_quote(data, start) == start + len(encoded) - 2, (text, ascii_only)
    many = json.dumps('"' * 40).encode()
    assert _closing_quote(b"x" + many[:-1], 2) == -1  # cut off before its closing quote
    assert _closing_quote(b'x"' + b'\\"' * 20 + b"\\q" + b'"', 2) == -1  # a broken escape: not JSON


def test_a_field_that_ends_with_a_character_no_secret_holds_is_not_parsed(matcher):
    """Code streams end most deltas with a line break (``\\n`` in the JSON): with no secret holding one, such an
    event passes after the look at its bytes alone; a secret that holds a line break is still held across it."""
    scrubber = DeltaScrubber(matcher)
    for text in ("print(x)\n", 'row["units"]\n', "a\tb\t", 'say "hi"'):
        assert not scrubber._may_hold(chat_event(text)), text
    # An escaped backslash before the letter: the text ends with the letter "n" (the start of a secret), not a
    # line break, and is held.
    n_key = "nq-deltas-0123456789abcdef"
    with_n = SecretMatcher((n_key,), compiled=matcher._scan.compiled)
    path = [chat_event("at C:\\"), chat_event("n"), chat_event(n_key[1:] + " end", finish="stop")]
    assert DeltaScrubber(with_n)._may_hold(chat_event("at C:\\n"))
    assert joined(run(with_n, path)) == {(0, "content"): "at C:\\[redacted] end"}
    pem = "-----BEGIN KEY-----\nMIIEvQIBADANBgkqhkiG9w0BAQEFAASC"
    with_pem = SecretMatcher((KEY, pem), compiled=matcher._scan.compiled)
    deltas = [chat_event("key: -----BEGIN KEY-----\n"), chat_event(pem.split("\n")[1] + " end", finish="stop")]
    assert DeltaScrubber(with_pem)._may_hold(deltas[0])
    assert joined(run(with_pem, deltas)) == {(0, "content"): "key: [redacted] end"}


#: The keys on the way to a joined field, each written as one ``\\u`` escape of its first letter.
ESCAPED_KEYS = ["choices", "index", "delta", "content", "text", "tool_calls", "function", "arguments"]


def escape_key(event: bytes, key: str) -> bytes:
    """``event`` with the key ``"key"`` written as ``"\\u00XXey"``: the same JSON to every parser."""
    return event.replace(f'"{key}"'.encode(), f'"\\u{ord(key[0]):04x}{key[1:]}"'.encode())


@pytest.mark.parametrize("key", [*ESCAPED_KEYS, "all"])
def test_a_secret_cut_across_deltas_whose_keys_are_escaped_is_redacted_once_joined(matcher, key):
    """An outside re-check (2026-12-06): an upstream that writes the field's name escaped (``"\\u0063ontent"``)
    got a key cut in two past the look across events on both routes: the look searched for the names as
    written. Any key on the way to a joined field, escaped, on chat, completion and tool-call events."""
    rng = random.Random(hash(key) % 1000)
    keys = ESCAPED_KEYS if key == "all" else [key]

    def escaped(event: bytes) -> bytes:
        for name in keys:
            event = escape_key(event, name)
        return event

    def call_event(text: str) -> bytes:
        call = {"index": 0, "function": {"arguments": text}}
        return f"data: {json.dumps({'choices': [{'index': 0, 'delta': {'tool_calls': [call]}}]})}\n\n".encode()

    for make, field in ((chat_event, "content"), (completion_event, "text"), (call_event, "args0")):
        for _ in range(40):
            events = [escaped(make(p)) for p in pieces(TEXT, rng, 10)]
            assert any(b"\\u" in e for e in events) or key not in ("all", field), "the escape is in the stream"
            body = run(matcher, [*events, b"data: [DONE]\n\n"], batch=rng.randint(1, 3))
            assert joined(body) == {(0, field): EXPECTED}, (key, body)


def test_a_decoy_choices_key_after_escaped_real_ones_does_not_hide_them(matcher):
    """The look starts at the first ``"choices"`` as written: with the real key escaped and a decoy after it, the
    real choices come first, and the escape before the decoy still sends the event to the parse."""

    def event(text: str) -> bytes:
        payload = {"choices": [{"index": 0, "delta": {"content": text}}], "x": {"choices": []}}
        return escape_key(f"data: {json.dumps(payload)}\n\n".encode(), "choices").replace(
            b'"x": {"\\u0063', b'"x": {"c'
        )

    events = [event(p) for p in ("the key is ", KEY[:10], KEY[10:] + " end")]
    assert b'"x": {"choices"' in events[0] and b'"\\u0063hoices"' in events[0]
    assert joined(run(matcher, [*events, b"data: [DONE]\n\n"])) == {(0, "content"): "the key is [redacted] end"}


def test_events_with_an_escape_in_the_text_only_still_pass_as_the_same_bytes(matcher):
    """The look for escaped keys reads only what lies outside the joined fields' strings."""
    scrubber = DeltaScrubber(matcher)
    for text in ("caf\u00e9 ", "\u00e9" * 30_000, "a \\u0041 b "):
        for event in (chat_event(text).replace("é".encode(), b"\\u00e9"), completion_event(text)):
            assert scrubber.feed(event) is event


# -- what the agent's reader joins (the outside re-check of 2026-12-06) ----------------------------------------------

PEM = "-----BEGIN KEY-----\nMIIBOgIBAAJBAKj34\n-----END KEY-----"
EMOJI = "tok-\U0001f600-secret-9876543210"
A, B = KEY[:9], KEY[9:]


def event(choice: dict, **extra) -> bytes:
    return f"data: {json.dumps({'id': 'c', 'choices': [choice], **extra})}\n\n".encode()


def reader_view(body: bytes) -> dict[str, str]:
    """What the agent's reader makes of a stream (src/agent/model/accumulator.ts, followed-choice.ts): the first
    choice named (its index as JavaScript reads the number), its text, its thinking (``reasoning_content`` or else
    ``reasoning``), each tool call's arguments as the reader groups fragments into calls (tool_call_grouping.py, held
    to the reader by tests/tool_call_cases.json), the legacy ``function_call``. Lines are read as openai-node reads
    them: each decoded on its own, a byte order mark that starts one dropped."""
    view: dict[str, str] = {}
    followed, calls = None, ToolCallGrouping()
    for block in body.decode("utf-8", "surrogatepass").split("\n\n"):
        lines = [line.removeprefix("\ufeff") for line in block.split("\n")]
        data = "\n".join(line[5:].lstrip(" ") for line in lines if line.startswith("data:"))
        if not data or data == "[DONE]":
            continue
        for position, choice in enumerate(json.loads(data)["choices"]):
            index = js_number(choice.get("index"))
            index = position if index is None else index
            followed = index if followed is None else followed
            if index != followed:
                continue
            delta = choice.get("delta") or {}
            parts = {"text": choice.get("text"), "content": delta.get("content")}
            parts["reasoning"] = delta.get("reasoning_content") or delta.get("reasoning")
            parts["function_call"] = (delta.get("function_call") or {}).get("arguments")
            for fragment in delta.get("tool_calls") or []:
                calls.add(fragment)
            for name, text in parts.items():
                if isinstance(text, str) and text:
                    view[name] = view.get(name, "") + text
    for call in calls.calls:
        if call.arguments:
            view[f"call{call.serial}"] = call.arguments
    return view


def no_secret_joined(matcher: SecretMatcher, events: list[bytes], secret: str = KEY) -> dict[str, str]:
    body = run(matcher, events)
    view = reader_view(body)
    for name, text in view.items():
        assert secret not in text, (name, text, body)
        assert secret.replace("\n", "\r\n") not in text, (name, text, body)
    return view


def test_text_after_a_finish_is_still_looked_at(matcher):
    """A hostile upstream goes on after a choice's ``finish_reason``, and readers keep joining: the start of the key
    went out with the finishing event, the rest is redacted."""
    for field in ("content", "reasoning_content"):
        events = [
            event({"index": 0, "delta": {field: "x " + A}, "finish_reason": "stop"}),
            event({"index": 0, "delta": {field: B[:1]}, "finish_reason": None}),  # one piece that ends no key yet
            event({"index": 0, "delta": {field: B[1:] + " y"}, "finish_reason": None}),
            b"data: [DONE]\n\n",
        ]
        view = no_secret_joined(matcher, events)
        name = "content" if field == "content" else "reasoning"
        assert view[name].startswith("x " + A) and view[name].endswith("[redacted] y"), view
    events = [event({"index": 0, "text": "x " + A, "finish_reason": "length"}), event({"index": 0, "text": B + " y"})]
    assert no_secret_joined(matcher, events)["text"] == "x " + A + "[redacted] y"


def test_tool_call_fragments_are_joined_as_the_reader_joins_them(matcher):
    """Without an index a fragment continues the last call begun; ``0.0`` is ``0``; the legacy ``function_call``."""

    def call(index, arguments, **more):
        fragment = {**({} if index is None else {"index": index}), "function": {"arguments": arguments}, **more}
        return event({"index": 0, "delta": {"tool_calls": [fragment]}})

    first = call(0, '{"k": "' + A, id="c1", type="function")
    first = first.replace(b'"arguments"', b'"name": "run", "arguments"')
    cases = {
        "no index": [first, call(None, B + '"}')],
        "0.0": [first, call(0.0, B + '"}')],
        "two calls, then none": [first, call(1, "{}", id="c2"), call(0, " "), call(None, "zz")],
    }
    for name, events in cases.items():
        view = no_secret_joined(matcher, [*events, b"data: [DONE]\n\n"])
        assert "call0" in view, (name, view)
    legacy = [
        event({"index": 0, "delta": {"function_call": {"name": "run", "arguments": '{"k": "' + A}}}),
        event({"index": 0, "delta": {"function_call": {"arguments": B + '"}'}}}),
    ]
    assert no_secret_joined(matcher, legacy)["function_call"] == '{"k": "[redacted]"}'


def test_thinking_in_either_field_is_one_text(matcher):
    events = [
        event({"index": 0, "delta": {"reasoning_content": "x " + A}}),
        event({"index": 0, "delta": {"reasoning": B + " y"}}),
    ]
    assert no_secret_joined(matcher, events)["reasoning"] == "x [redacted] y"


@pytest.mark.parametrize("line", [b": keep-alive", b"id: 7", b"event: message", b":"])
def test_a_line_readers_skip_between_a_key_and_its_value_hides_nothing(matcher, line):
    first = b'data: {"choices":[{"index":0,"delta":{"content":\n' + line + b'\ndata: "x ' + A.encode() + b'"}}]}\n\n'
    assert no_secret_joined(matcher, [first, event({"index": 0, "delta": {"content": B + " y"}})]) == {
        "content": "x [redacted] y"
    }
    # A "field" that starts in a line readers skip, whose string would run into the real one.
    decoy = b': "content":"\ndata: {"choices":[{"index":0,"delta":{"content":"x ' + A.encode() + b'"}}]}\n\n'
    no_secret_joined(matcher, [decoy, event({"index": 0, "delta": {"content": B + " y"}})])


def test_an_event_with_a_number_longer_than_python_reads_is_still_looked_at(matcher):
    first = b'data: {"choices":[{"index":0,"delta":{"content":"x ' + A.encode() + b'"}}],"n":' + b"1" * 5000 + b"}\n\n"
    no_secret_joined(matcher, [first, event({"index": 0, "delta": {"content": B + " y"}})])


def test_a_crlf_secret_cut_after_its_cr_and_a_surrogate_pair_cut_in_two():
    pem, emoji = SecretMatcher((KEY, PEM)), SecretMatcher((KEY, EMOJI))
    crlf = PEM.replace("\n", "\r\n")
    cut = crlf.index("\r") + 1
    pieces = [crlf[:cut], crlf[cut:30], crlf[30:]]
    no_secret_joined(pem, [event({"index": 0, "delta": {"content": p}}) for p in pieces], PEM)
    at = EMOJI.index("\U0001f600")
    halves = [
        b'data: {"choices":[{"index":0,"delta":{"content":"x ' + EMOJI[:at].encode() + b'\\ud83d"}}]}\n\n',
        b'data: {"choices":[{"index":0,"delta":{"content":"\\ude00' + EMOJI[at + 1 :].encode() + b' y"}}]}\n\n',
    ]
    assert no_secret_joined(emoji, halves, EMOJI)["content"] == "x [redacted] y"


def test_choices_are_joined_apart_and_the_reader_follows_the_first(matcher):
    """Choice 0 finishes with the start of a key, choice 1 carries the rest: readers join choices apart (the agent's
    follows the first), so neither text holds it; held text never moves to another choice."""
    events = [
        event({"index": 0, "delta": {"content": "x " + A}, "finish_reason": "stop"}),
        event({"index": 1, "delta": {"content": B + " y"}, "finish_reason": None}),
    ]
    body = run(matcher, [*events, b"data: [DONE]\n\n"])
    assert reader_view(body) == {"content": "x " + A}
    assert joined(body) == {(0, "content"): "x " + A, (1, "content"): B + " y"}


def test_a_data_line_that_starts_with_a_byte_order_mark_is_looked_at(matcher):
    """openai-node decodes each line with a TextDecoder, which drops a BOM that starts it: the line is data to it."""
    bom = "\ufeff".encode()
    for make, name in ((chat_event, "content"), (completion_event, "text")):
        events = [bom + make("x " + A), make(B + " y"), b"data: [DONE]\n\n"]
        assert no_secret_joined(matcher, events)[name] == "x [redacted] y"
    calls = [
        bom + event({"index": 0, "delta": {"tool_calls": [{"index": 0, "id": "a", "function": {"name": "run_code"}}]}}),
        bom + event({"index": 0, "delta": {"tool_calls": [{"index": 0, "function": {"arguments": '{"code": "' + A}}]}}),
        event({"index": 0, "delta": {"tool_calls": [{"index": 0, "function": {"arguments": B + '"}'}}]}}),
    ]
    assert no_secret_joined(matcher, calls)["call0"] == '{"code": "[redacted]"}'


def test_text_that_follows_what_was_flushed_before_a_long_event_is_looked_at_after_it(matcher):
    """An event too long to hold goes on unread (proxy_handler.py): what the look held goes out before it, and the
    client has it; the next piece of the same field must be looked at after it."""
    deltas, scrubber = DeltaScrubber(matcher), StreamScrubber(matcher)
    out = [deltas.feed(chat_event("x " + A)), deltas.flush(), b": " + b"p" * 100 + b"\n\n"]
    out += [deltas.feed(chat_event(B + " y")), deltas.feed(b"data: [DONE]\n\n"), deltas.flush()]
    body = b"".join(scrubber.feed(chunk, at_boundary=True) for chunk in out)
    assert reader_view(body)["content"] == "x " + A + "[redacted] y"


def test_numbers_javascript_reads_as_one_are_one_choice_and_one_call(matcher):
    """2**53 and 2**53 + 1 are the same double: the reader joins the two as one choice, or one tool call."""
    big = 2**53
    choices = [
        event({"index": big, "delta": {"content": "x " + A}, "finish_reason": "stop"}),
        event({"index": big + 1, "delta": {"content": B + " y"}}),
    ]
    assert no_secret_joined(matcher, choices)["content"] == "x " + A + "[redacted] y"

    def call(index, arguments, **more):
        return event({"index": 0, "delta": {"tool_calls": [{"index": index, "function": arguments, **more}]}})

    calls = [call(big, {"name": "run_code", "arguments": '{"code": "' + A}, id="a"), call(big + 1, {"arguments": B})]
    assert no_secret_joined(matcher, calls)["call0"] == '{"code": "[redacted]'


@pytest.mark.parametrize("parsed", [False, True], ids=["plain", "parsed"])
def test_a_call_begun_again_at_the_same_index_then_a_fragment_without_one(matcher, parsed):
    """Ollama sends every call at index 0, told apart by its id: a fragment without an index then continues the last
    call the reader made, not the last index the server saw begin. ``parsed``: the first events hold an escape
    (``\\u0061``), which sends them to the parse (once, only events the look parsed were counted)."""

    def call(fragment, finish=None):
        return event({"index": 0, "delta": {"tool_calls": [fragment]}, "finish_reason": finish})

    events = [
        call({"index": 0, "id": "a", "function": {"name": "f", "arguments": "{}"}}),
        call({"index": 1, "id": "b", "function": {"name": "g", "arguments": "{}"}}),
        call({"index": 0, "id": "c", "function": {"name": "run_code", "arguments": '{"code": "' + A}}, "tool_calls"),
        call({"function": {"arguments": B + '"}'}}),
    ]
    if parsed:
        events[:2] = [e.replace(b'"id": "', b'"id": "\\u0061') for e in events[:2]]
    assert no_secret_joined(matcher, events)["call2"] == '{"code": "' + A + '[redacted]"}'


def test_two_fragments_of_one_call_in_one_event_both_keep_their_text(matcher):
    fragments = [{"index": 0, "function": {"arguments": '{"code": "x'}}, {"index": 0, "function": {"arguments": 'y"}'}}]
    head = event({"index": 0, "delta": {"tool_calls": [{"index": 0, "id": "a", "function": {"name": "run"}}]}})
    body = run(matcher, [head, event({"index": 0, "delta": {"tool_calls": fragments}}), b"data: [DONE]\n\n"])
    assert reader_view(body)["call0"] == '{"code": "xy"}'
    fragments[1]["function"]["arguments"] = A
    tail = event({"index": 0, "delta": {"tool_calls": [{"index": 0, "function": {"arguments": B + '"}'}}]}})
    events = [head, event({"index": 0, "delta": {"tool_calls": fragments}}), tail, b"data: [DONE]\n\n"]
    assert no_secret_joined(matcher, events)["call0"] == '{"code": "x[redacted]"}'
