"""What the model routes accept, and a request made ready to forward: checked, its model filled in, redacted.

A request is checked (a JSON object, UTF-8, not absurdly nested, the basic field types of its
route) before anything is forwarded, the server's default model is filled in when it names none,
and every server-held secret in it is replaced by ``[redacted]``: a key a cell printed, that the
agent read back (or that sits in the code around the cursor), never reaches a model provider. A key the
cursor cuts in two (inline completion's text before the cursor ends with its start, the text after begins
with its rest: no part of the body holds it whole) is found at the cut: both halves become ``[redacted]``.
A part of a key left at an edge of the text sent (cut by the window's edge or by the cursor) becomes
``[redacted]`` too, and a secret of several lines in a Markdown cell above, as the client comments it
(``secret_parts.py``).

Plain functions of bytes and text, with no server in them: :func:`prepare` runs in a worker process
for a large body (``request_worker.py``), so that parsing and scanning it never holds the event loop.
"""

from __future__ import annotations

import json
import re
from typing import Any, NamedTuple

from .json_input import BadInputError, json_type, parse_json_object
from .redaction import REDACTED, SecretMatcher, matcher_for
from .secret_parts import parts_for

#: The routes' names, as :func:`prepare` takes them.
CHAT, COMPLETION = "chat", "completion"

#: A field's accepted Python types and how a message names them.
FieldTypes = dict[str, tuple[tuple[type, ...], str]]

#: Fields of a chat request whose type the proxy checks (the upstream checks the rest).
_FIELD_TYPES: FieldTypes = {
    "model": ((str,), "a string"),
    "messages": ((list,), "an array"),
    "stream": ((bool,), "a boolean"),
    "tools": ((list,), "an array"),
}

#: Fields of a completion request whose type the proxy checks (``prompt``, ``max_tokens``
#: and ``stop`` have checks of their own in :func:`_completion_request`).
_COMPLETION_FIELD_TYPES: FieldTypes = {
    "model": ((str,), "a string"),
    "suffix": ((str,), "a string"),
    "stream": ((bool,), "a boolean"),
    "stream_options": ((dict,), "an object"),
    "temperature": ((int, float), "a number"),
}

#: The most tokens a completion may ask for: inline completions are short, and the key is the server's.
MAX_COMPLETION_TOKENS = 4096

#: The most stop sequences a completion may send (OpenAI's own limit).
MAX_STOP_SEQUENCES = 4

#: The markers at the cursor in the fill-in-the-middle prompts the client writes (``src/agent/completion/
#: fim-format.ts``): ``<prefix>before<marker>after<middle>``, the text before the cursor right before the
#: marker and the text after it right after (Qwen and CodeGemma, StarCoder, DeepSeek, Code Llama).
_CURSOR_MARKERS = ("<|fim_suffix|>", "<fim_suffix>", "<\uff5cfim\u2581hole\uff5c>", " <SUF>")
#: Codestral writes the text after the cursor first: ``[SUFFIX]after[PREFIX]before``. The cursor joins the
#: prompt's end to the start of what follows its first ``[SUFFIX]``.
_SUFFIX_FIRST, _PREFIX_LAST = "[SUFFIX]", "[PREFIX]"
_MARKERS = (*_CURSOR_MARKERS, _SUFFIX_FIRST, _PREFIX_LAST)
_MARKER_SPLIT = re.compile("(" + "|".join(re.escape(m) for m in _MARKERS) + ")")
#: Every marker of those formats, the cursor's and those around the window: the text between two (or a marker and
#: the prompt's start or end) is one piece of the window, with an edge at each end.
_FIM_MARKERS = (
    *_MARKERS,
    *("<|fim_prefix|>", "<|fim_middle|>", "<fim_prefix>", "<fim_middle>", "<PRE> ", " <MID>"),
    *("<\uff5cfim\u2581begin\uff5c>", "<\uff5cfim\u2581end\uff5c>"),
)
_FIM_SPLIT = re.compile("(" + "|".join(re.escape(m) for m in _FIM_MARKERS) + ")")
_REDACTED_TEXT = REDACTED.decode()
#: A prompt with more markers than this (the client writes one or two) is first looked at as a whole.
_FEW_CUTS = 8


class Prepared(NamedTuple):
    """A request made ready to forward, or why not."""

    problem: str | None  #: what is wrong with it (a 400), or None
    field: str | None  #: the field at fault
    body: bytes | None  #: what to forward; None: the body as it came
    model: str | None  #: the model it asks for (after the default was filled in)
    redacted: bool  #: whether a secret was taken out


def checked(route: str, body: bytes) -> dict[str, Any]:
    """The request as JSON; raises :class:`BadInputError` for what the route does not take."""
    return _chat_request(body) if route == CHAT else _completion_request(body)


def prepare(route: str, body: bytes, default_model: str, secrets: tuple[str, ...]) -> Prepared:
    """``body`` checked, given ``default_model`` when it names none and scrubbed of ``secrets``: all at once."""
    try:
        payload = checked(route, body)
    except BadInputError as error:
        return Prepared(str(error), error.field, None, None, False)
    made = ready(route, body, payload, default_model, matcher_for(secrets))
    return made._replace(body=None) if made.body is body else made


def ready(route: str, body: bytes, payload: dict[str, Any], default_model: str, matcher: SecretMatcher) -> Prepared:
    """A request :func:`checked` (``payload``, parsed from ``body``; changed in place) given ``default_model``
    when it names none and scrubbed of ``matcher``'s secrets; its body is ``body`` itself when nothing changed.

    A completion's key cut by the cursor is taken out of the parsed text (:func:`_redact_cursor_cut`: escapes of
    the body's JSON decoded), the body re-serialised only then; the whole secrets are taken out of the bytes.
    """
    # Both looks, always: a request may have a key cut by the cursor and another by the window's edge.
    cut = route == COMPLETION and (_redact_cursor_cut(payload, matcher) | _redact_edge_parts(payload, matcher))
    sent, model = with_default_model(body, payload, default_model)
    if cut and sent is body:
        sent = json.dumps(payload).encode()
    scrubbed = matcher.redact(sent)
    return Prepared(None, None, scrubbed, model, cut or scrubbed is not sent)


def _redact_cursor_cut(payload: dict[str, Any], matcher: SecretMatcher) -> bool:
    """Take out of a completion request's text a secret the cursor cuts in two; whether there was one.

    The client sends the text around the cursor in one of two shapes: ``prompt`` (before) and ``suffix``
    (after), or a fill-in-the-middle ``prompt`` with the marker of the model's family at the cursor
    (:data:`_CURSOR_MARKERS`, or Codestral's suffix-first order). Each such cut is looked at; a secret that
    runs across one has its part on each side replaced by ``[redacted]``. A secret whole on one side is left
    to the redaction of the body.
    """
    if not matcher:
        return False
    prompt = payload["prompt"]
    text = _redact_fim_cuts(prompt, matcher)
    suffix = payload.get("suffix")
    if isinstance(suffix, str):
        cut = _cut_secret(matcher, text, suffix)
        if cut is not None:
            text, payload["suffix"] = cut
    if text is prompt and payload.get("suffix") is suffix:
        return False
    payload["prompt"] = text
    return True


def _redact_edge_parts(payload: dict[str, Any], matcher: SecretMatcher) -> bool:
    """Take out of a completion request's text the part of a secret left at an edge; whether there was one.

    Each piece of the window is looked at, ``suffix`` and the text between the markers of ``prompt``: each
    starts and ends at an edge (the window's, or the cursor, which a typed key's rest never follows). Run after
    :func:`_redact_cursor_cut`, which took out a key whole across the cursor. A part is what
    :class:`.secret_parts.SecretParts` finds; it becomes ``[redacted]``.
    """
    parts = parts_for(frozenset(matcher.secrets)) if matcher else None
    if not parts:
        return False
    changed = False
    pieces = _FIM_SPLIT.split(payload["prompt"])
    for index in range(0, len(pieces), 2):  # the text between the markers
        edged = parts.at_edges(pieces[index])
        if edged is not pieces[index]:
            pieces[index], changed = edged, True
    if changed:
        payload["prompt"] = "".join(pieces)
    suffix = payload.get("suffix")
    if isinstance(suffix, str):
        edged = parts.at_edges(suffix)
        if edged is not suffix:
            payload["suffix"], changed = edged, True
    return changed


def _redact_fim_cuts(prompt: str, matcher: SecretMatcher) -> str:
    """``prompt`` with a secret cut at a fill-in-the-middle marker taken out; ``prompt`` itself when none is.

    Each cursor marker is a cut (the one the client wrote is among them: a cell may hold more); Codestral's
    prompt (``[SUFFIX]`` first) has one, its end joined to the start of the text after ``[SUFFIX]``. A prompt
    with many markers is first looked at as a whole, without them: most such prompts hold no secret.
    """
    suffix_first = prompt.startswith(_SUFFIX_FIRST)
    if not suffix_first and not any(marker in prompt for marker in _CURSOR_MARKERS):
        return prompt
    if sum(prompt.count(marker) for marker in _MARKERS) > _FEW_CUTS:
        view = _MARKER_SPLIT.sub("", prompt)
        if suffix_first:  # and Codestral's cut: the prompt's end, the start after [SUFFIX]
            reach, start = matcher.look_behind, len(_SUFFIX_FIRST)
            view += prompt[-reach:] + prompt[start : start + reach]
        if not matcher.candidates(view.encode("utf-8", "surrogatepass")):
            return prompt  # no secret in the text, across a cut or not
    pieces = _split_at_markers(prompt)
    last = len(pieces) - 1
    cuts = [(index - 1, index + 1) for index in range(1, last, 2) if pieces[index] in _CURSOR_MARKERS]
    if suffix_first and last > 2 and pieces[1] == _SUFFIX_FIRST:
        cuts.append((last, 2))
    changed = False
    for before, after in cuts:
        cut = _cut_secret(matcher, pieces[before], pieces[after])
        if cut is not None:
            pieces[before], pieces[after] = cut
            changed = True
    return "".join(pieces) if changed else prompt


def _split_at_markers(prompt: str) -> list[str]:
    """``prompt`` as text, marker, text, …, text (as :data:`_MARKER_SPLIT` splits it: ``str.find`` is faster)."""
    found = []
    for order, marker in enumerate(_MARKERS):
        at = prompt.find(marker)
        while at >= 0:
            found.append((at, order, marker))
            at = prompt.find(marker, at + len(marker))
    found.sort()
    pieces, end = [], 0
    for at, _, marker in found:
        if at >= end:  # not inside the marker before it
            pieces += (prompt[end:at], marker)
            end = at + len(marker)
    pieces.append(prompt[end:])
    return pieces


def _cut_secret(matcher: SecretMatcher, before: str, after: str) -> tuple[str, str] | None:
    """``before`` and ``after`` with a secret that runs from the one into the other taken out of both, each
    part replaced by ``[redacted]``; None when no secret runs across.

    Only the ends next to the cut are read (``look_behind``: the longest form a secret takes, escaped or not),
    and a run of backslashes is kept whole (it decides what escapes what). One first look finds nothing in
    most requests; the exact match runs only where it sees a secret.
    """
    if not before or not after:
        return None
    start = max(len(before) - matcher.look_behind, 0)
    while start and before[start - 1] == "\\":
        start -= 1
    head = before[start:].encode("utf-8", "surrogatepass")
    data = head + after[: matcher.look_behind].encode("utf-8", "surrogatepass")
    candidates = matcher.candidates(data)
    if not candidates:
        return None
    joint = len(head)
    across = [(s, e) for s, e in matcher.spans(data, candidates=candidates) if s < joint < e]
    if not across:
        return None
    [(first, end)] = across  # spans are merged: one at most runs across the joint
    kept = len(data[:first].decode("utf-8", "surrogatepass"))
    taken = len(data[joint:end].decode("utf-8", "surrogatepass"))
    return before[: start + kept] + _REDACTED_TEXT, _REDACTED_TEXT + after[taken:]


def _check_fields(payload: dict[str, Any], types: FieldTypes) -> None:
    """Each field of ``types`` that is present and not null has its type; the model is a plain name."""
    for name, (kinds, what) in types.items():
        value = payload.get(name)
        if value is not None and (not isinstance(value, kinds) or (bool not in kinds and isinstance(value, bool))):
            raise BadInputError(f"{name} must be {what}, not {json_type(value)}.", name)
    model = payload.get("model")
    if isinstance(model, str) and (len(model) > 256 or any(ord(c) < 0x20 or c == "\x7f" for c in model)):
        raise BadInputError("model must be a name of at most 256 characters without control characters.", "model")


def _chat_request(body: bytes) -> dict[str, Any]:
    """The chat request as JSON; raises :class:`BadInputError` for what no model endpoint could take."""
    payload = parse_json_object(body, "The chat request")
    _check_fields(payload, _FIELD_TYPES)
    for index, message in enumerate(payload.get("messages") or []):
        if not isinstance(message, dict):
            raise BadInputError(f"messages[{index}] must be an object, not {json_type(message)}.", f"messages[{index}]")
    return payload


def _completion_request(body: bytes) -> dict[str, Any]:
    """The completion request as JSON; raises :class:`BadInputError` for what the route does not take.

    ``prompt`` must be one string: the token arrays and lists of prompts the OpenAI API also
    accepts are refused (the redaction reads text, and inline completion sends text).
    """
    payload = parse_json_object(body, "The completion request")
    prompt = payload.get("prompt")
    if prompt is None:
        raise BadInputError("prompt is required: the text before the cursor, as a string.", "prompt")
    if isinstance(prompt, list):
        raise BadInputError(
            "prompt must be a string: token arrays and lists of prompts are not supported by this route.", "prompt"
        )
    if not isinstance(prompt, str):
        raise BadInputError(f"prompt must be a string, not {json_type(prompt)}.", "prompt")
    _check_fields(payload, _COMPLETION_FIELD_TYPES)
    max_tokens = payload.get("max_tokens")
    if max_tokens is not None:
        if not isinstance(max_tokens, int) or isinstance(max_tokens, bool) or max_tokens < 1:
            raise BadInputError(f"max_tokens must be a positive integer, not {_shown(max_tokens)}.", "max_tokens")
        if max_tokens > MAX_COMPLETION_TOKENS:
            raise BadInputError(
                f"max_tokens must be at most {MAX_COMPLETION_TOKENS} on this route (inline completions are short), "
                f"not {max_tokens}.",
                "max_tokens",
            )
    stop = payload.get("stop")
    if stop is not None and not isinstance(stop, str):
        if not isinstance(stop, list):
            raise BadInputError(f"stop must be a string or an array of strings, not {json_type(stop)}.", "stop")
        if len(stop) > MAX_STOP_SEQUENCES:
            raise BadInputError(f"stop may hold at most {MAX_STOP_SEQUENCES} strings, not {len(stop)}.", "stop")
        for index, item in enumerate(stop):
            if not isinstance(item, str):
                raise BadInputError(f"stop[{index}] must be a string, not {json_type(item)}.", "stop")
    return payload


def _shown(value: Any) -> str:
    """A number as it was sent, anything else by its JSON type (for messages)."""
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return repr(value)[:40]
    return json_type(value)


def with_default_model(body: bytes, payload: dict[str, Any], model: str) -> tuple[bytes, str | None]:
    """Fill in the default model when the browser sent none; returns the body and its model."""
    if not payload.get("model") and model:
        payload["model"] = model
        return json.dumps(payload).encode(), model
    sent = payload.get("model")
    return body, sent if isinstance(sent, str) else None
