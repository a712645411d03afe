"""Which tool call a streamed fragment belongs to, as the agent's reader decides it.

The look across a stream's events (``sse_deltas.py``) joins each tool call's ``arguments`` to find a key streamed
in pieces. It must join the same fragments the browser joins, or a key cut between two fragments that the
browser puts in one call passes the look: a server that sends every call at index 0 told apart by its ``id``
(Ollama), or a fragment without an index after such a call. So this is the rule of
``src/agent/model/accumulator.ts`` (``_addToolCall``, ``startsNewCall``, ``merge``), step for step; the two are
held together by ``tests/tool_call_cases.json``, which both test suites play.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass, field
from typing import Any


@dataclass
class PendingCall:
    """One call as the reader has it so far."""

    serial: int  #: which call of the choice, in the order they began
    key: Any = 0  #: the reader's sort key: the index it began with, or its place without one
    id: Any = ""
    name: Any = ""
    arguments: str = ""


@dataclass
class ToolCallGrouping:
    """One choice's calls, in the order they began."""

    calls: list[PendingCall] = field(default_factory=list)
    latest_by_index: dict[Any, PendingCall] = field(default_factory=dict)

    def add(self, fragment: dict[str, Any]) -> PendingCall:
        """The call ``fragment`` (one entry of ``delta.tool_calls``) joins; it is merged into it."""
        index = js_number(fragment.get("index"))
        indexed = index is not None
        function = fragment.get("function") if isinstance(fragment.get("function"), dict) else {}
        part = PendingCall(
            -1,
            id=_or_empty(fragment.get("id")),
            name=_or_empty(function.get("name")),
            arguments=arguments_text(function),
        )
        target = self.latest_by_index.get(index) if indexed else (self.calls[-1] if self.calls else None)
        call = target
        if call is None or _starts_new_call(call, part, indexed):
            call = PendingCall(len(self.calls), index if indexed else len(self.calls))
            self.calls.append(call)
        if indexed:
            self.latest_by_index[index] = call
        call.id = call.id or part.id
        call.name = call.name or part.name
        call.arguments += part.arguments
        return call


def js_number(value: Any) -> int | float | None:
    """A JSON number as JavaScript holds it (a double: 2**53 + 1 is 2**53), or None for anything else.

    Integral values come back as ``int`` (``1.0`` is ``1``), so that they print as the client reads them.
    """
    if not isinstance(value, (int, float)) or isinstance(value, bool):
        return None
    try:
        number = float(value)
    except OverflowError:  # more digits than a double holds: JavaScript reads Infinity
        return math.copysign(math.inf, value)
    return int(number) if number.is_integer() else number


def arguments_text(function: dict[str, Any]) -> str:
    """A fragment's ``arguments`` as the reader joins them: a string as it is, an object as its JSON (Ollama sends
    the object itself), anything else nothing."""
    arguments = function.get("arguments")
    if isinstance(arguments, str):
        return arguments
    if isinstance(arguments, dict):
        return json.dumps(arguments, separators=(",", ":"), ensure_ascii=False)
    return ""


def _or_empty(value: Any) -> Any:
    """JavaScript's ``value || ''``: what JavaScript calls falsy becomes ``''`` (an empty list or object is not)."""
    if value is None or value is False or value == "" or (_is_number(value) and (value == 0 or value != value)):
        return ""
    return value


def _is_number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _starts_new_call(call: PendingCall, part: PendingCall, indexed: bool) -> bool:
    """Whether a fragment that carries an id or name begins another call (``startsNewCall``)."""
    if part.id == "" and part.name == "":
        return False  # a bare argument fragment always continues
    if part.name != "" and call.name != "" and not _same(part.name, call.name):
        return True
    if part.id != "" and _same(part.id, call.id):
        # Nothing below can say yes to the call's own id; answered before the parse, which would cost
        # O(n) per fragment, O(n^2) a call, with llama.cpp repeating id and name on every fragment.
        return False
    if not _complete(call):
        return False  # ids alone split only finished calls
    if part.id != "" and call.id != "":
        return True  # Ollama: every call at index 0, told apart by its id
    return not indexed and part.name != ""


def _same(a: Any, b: Any) -> bool:
    """JavaScript's ``a === b`` for JSON values: ``true`` is not ``1``, and two arrays or objects never are."""
    if isinstance(a, bool) or isinstance(b, bool):
        return a is b
    if _is_number(a) or _is_number(b):
        return _is_number(a) and _is_number(b) and a == b
    if isinstance(a, str) or isinstance(b, str):
        return isinstance(a, str) and isinstance(b, str) and a == b
    return a is b


def _complete(call: PendingCall) -> bool:
    """A call with a name and arguments that parse as JSON (``JSON.parse``: no NaN or Infinity)."""
    if call.name == "" or call.arguments == "":
        return False
    try:
        json.loads(call.arguments, parse_constant=_refuse)
    except (ValueError, RecursionError):
        return False
    return True


def _refuse(name: str) -> Any:
    raise ValueError(name)
