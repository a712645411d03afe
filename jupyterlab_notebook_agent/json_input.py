"""Reading a JSON request body so that no malformed one can cause a 500.

Bad UTF-8, invalid JSON, nesting deep enough to exhaust the parser's recursion, ``NaN``,
``Infinity`` and numbers too big for a float (which would make later answers invalid JSON
for the browser), and a body of the wrong type all become :class:`BadInputError`: the route
answers 400 with its message.
"""

from __future__ import annotations

import json
import math
from typing import Any


class BadInputError(ValueError):
    """A request the route refuses; ``field`` names the part at fault when there is one."""

    def __init__(self, message: str, field: str | None = None) -> None:
        super().__init__(message)
        self.field = field


def _no_constant(name: str) -> Any:
    raise BadInputError(f"{name} is not a JSON number (JSON has no NaN or Infinity)")


def _finite(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):
        raise BadInputError(f"the number {text[:40]} is too large")
    return value


def parse_json(body: bytes | None, what: str = "The request body") -> Any:
    """The JSON value of ``body``; raises :class:`BadInputError` saying what is wrong with it."""
    try:
        text = (body or b"").decode("utf-8")
    except UnicodeDecodeError as error:
        raise BadInputError(f"{what} is not valid UTF-8 (at byte {error.start}).") from None
    if not text.strip():
        raise BadInputError(f"{what} is empty: send a JSON object.")
    try:
        return json.loads(text, parse_constant=_no_constant, parse_float=_finite)
    except BadInputError as error:
        raise BadInputError(f"{what} is not valid JSON: {error}.") from None
    except RecursionError:
        raise BadInputError(f"{what} is nested too deeply.") from None
    except ValueError as error:
        raise BadInputError(f"{what} is not valid JSON: {error}.") from None


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
