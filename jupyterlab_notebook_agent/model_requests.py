"""What the model routes accept, and a request made ready to forward: checked, its model filled in, redacted.

A request is checked (a JSON object, UTF-8, not absurdly nested, the basic field types of its
route) before anything is forwarded, the server's default model is filled in when it names none,
and every server-held secret in it is replaced by ``[redacted]``: a key a cell printed, that the
agent read back (or that sits in the code around the cursor), never reaches a model provider.

Plain functions of bytes and text, with no server in them: :func:`prepare` runs in a worker process
for a large body (``request_worker.py``), so that parsing and scanning it never holds the event loop.
"""

from __future__ import annotations

import json
from typing import Any, NamedTuple

from .json_input import BadInputError, json_type, parse_json_object
from .redaction import matcher_for

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
    sent, model = with_default_model(body, payload, default_model)
    scrubbed = matcher_for(secrets).redact(sent)
    return Prepared(None, None, None if scrubbed is body else scrubbed, model, scrubbed is not sent)


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
