"""Reading a JSON request body so that no malformed one can cause a 500.

Bad UTF-8, invalid JSON, nesting deep enough to exhaust the parser's recursion, ``NaN``,
``Infinity`` and numbers too big for a float (which would make later answers invalid JSON
for the browser), and a body of the wrong type all become :class:`BadInputError`: the route
answers 400 with its message.
"""

from __future__ import annotations

import json
import math
import re
from typing import Any

#: A ``\\uD800``-``\\uDFFF`` escape: only then can a parsed string hold a lone surrogate.
_SURROGATE_ESCAPE = re.compile(r"\\u[dD][89a-fA-F]")


class BadInputError(ValueError):
    """A request the route refuses; ``field`` names the part at fault when there is one."""

    def __init__(self, message: str, field: str | None = None) -> None:
        super().__init__(message)
        self.field = field


class _NotFinite:
    """Stands for a NaN, an Infinity or a number too large for a float, to find where it was."""

    def __init__(self, text: str) -> None:
        self.text = text


def _no_constant(name: str) -> Any:
    raise BadInputError(f"{name} is not a JSON number (JSON has no NaN or Infinity)")


def _finite(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):
        raise BadInputError(f"the number {text[:40]} is too large")
    return value


def _finite_or_marker(text: str) -> Any:
    value = float(text)
    return value if math.isfinite(value) else _NotFinite(text)


def _where(value: Any) -> str | None:
    """The path (``items[3].x``) of the first non-finite number in ``value``."""
    stack: list[tuple[str, Any]] = [("", value)]
    while stack:
        path, item = stack.pop()
        if isinstance(item, _NotFinite):
            return path or None
        if isinstance(item, dict):
            stack.extend((f"{path}.{k}" if path else str(k), v) for k, v in reversed(list(item.items())))
        elif isinstance(item, list):
            stack.extend((f"{path}[{i}]", v) for i, v in reversed(list(enumerate(item))))
    return None


def parse_json(body: bytes | None, what: str = "The request body") -> Any:
    """The JSON value of ``body``; raises :class:`BadInputError` saying what is wrong with it."""
    try:
        text = (body or b"").decode("utf-8")
    except UnicodeDecodeError as error:
        raise BadInputError(f"{what} is not valid UTF-8 (at byte {error.start}).") from None
    if not text.strip():
        raise BadInputError(f"{what} is empty: send a JSON object.")
    try:
        value = json.loads(text, parse_constant=_no_constant, parse_float=_finite)
    except BadInputError as error:
        marked = json.loads(text, parse_constant=_NotFinite, parse_float=_finite_or_marker)
        field = _where(marked)
        where = f" (at {field})" if field else ""
        raise BadInputError(f"{what} is not valid JSON{where}: {error}.", field) from None
    except RecursionError:
        raise BadInputError(f"{what} is nested too deeply.") from None
    except ValueError as error:
        raise BadInputError(f"{what} is not valid JSON: {error}.") from None
    if _SURROGATE_ESCAPE.search(text) and _lone_surrogate(value):
        raise BadInputError(f"{what} holds a lone UTF-16 surrogate (\\uD800-\\uDFFF), which is not text.")
    return value


def _lone_surrogate(value: Any) -> bool:
    """Whether ``value`` holds a string with a lone surrogate (only ``\\u`` escapes can make one)."""
    try:
        json.dumps(value, ensure_ascii=False).encode("utf-8")
    except UnicodeEncodeError:
        return True
    return False


def parse_json_object(body: bytes | None, what: str = "The request body") -> dict[str, Any]:
    """Like :func:`parse_json`, for a body that must be a JSON object."""
    value = parse_json(body, what)
    if not isinstance(value, dict):
        raise BadInputError(f"{what} must be a JSON object, not {_type(value)}.")
    return value


def _type(value: Any) -> str:
    names = {list: "an array", str: "a string", bool: "a boolean", int: "a number", float: "a number"}
    return "null" if value is None else names.get(type(value), type(value).__name__)


def json_type(value: Any) -> str:
    """How JSON calls the type of ``value`` ("an array", "a string", ...), for messages."""
    return _type(value)


def query_text(handler: Any, name: str, default: str | None = None, limit: int = 4096) -> str | None:
    """A query argument as sent, refused when it is not text (tornado's own getter turns control
    characters into spaces, so ``?notebook=a%00b`` would silently ask about ``a b``)."""
    values = handler.request.query_arguments.get(name)
    if not values:
        return default
    try:
        text = values[-1].decode("utf-8")
    except UnicodeDecodeError:
        raise BadInputError(f"{name} is not valid UTF-8.", name) from None
    if len(text) > limit:
        raise BadInputError(f"{name} must be at most {limit} characters.", name)
    if any(ord(c) < 0x20 or c == "\x7f" for c in text):
        raise BadInputError(f"{name} must not contain control characters (such as NUL).", name)
    return text
