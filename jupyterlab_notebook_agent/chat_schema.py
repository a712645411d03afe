"""The shape of a saved chat, checked on every PUT before anything is written.

Mirrors ``IChatRecord`` (src/agent/chat-record.ts). Fields the sidebar does not send may be
missing; fields it does send must have its types. Unknown fields are kept (a newer sidebar
may add some) within the record's size limit. What the History list reads (``.meta``) is
bounded: a title of at most :data:`MAX_TITLE` characters and a notebook path of at most
:data:`MAX_NOTEBOOK`, so the ``.meta`` stays a few kilobytes whatever the chat.
"""

from __future__ import annotations

import math
import re
from typing import Any

from .json_input import BadInputError, json_type

#: Chat ids name files: letters, digits, '_' and '-' only (always ``fullmatch``).
CHAT_ID = re.compile(r"[A-Za-z0-9_-]{1,64}")

MAX_TITLE = 200
MAX_NOTEBOOK = 4096
#: Timestamps are milliseconds since 1970; anything past year 2500 is a client bug.
MAX_TIME = 17e12
MAX_VERSION = 1000

_CONTROL = re.compile(r"[\x00-\x1f\x7f]")


def _text(record: dict[str, Any], name: str, limit: int) -> None:
    if name not in record:
        return
    value = record[name]
    if not isinstance(value, str):
        raise BadInputError(f"{name} must be a string, not {json_type(value)}.", name)
    if len(value) > limit:
        raise BadInputError(f"{name} must be at most {limit} characters (it has {len(value)}).", name)
    if _CONTROL.search(value):
        raise BadInputError(f"{name} must not contain control characters (such as NUL or a line break).", name)


def _number(record: dict[str, Any], name: str, limit: float, integer: bool = False) -> None:
    if name not in record:
        return
    value = record[name]
    kind = int if integer else (int, float)
    if isinstance(value, bool) or not isinstance(value, kind):
        raise BadInputError(f"{name} must be {'an integer' if integer else 'a number'}, not {json_type(value)}.", name)
    if not math.isfinite(value) or not 0 <= value <= limit:
        raise BadInputError(f"{name} must be a number from 0 to {limit:g}.", name)


def _typed(record: dict[str, Any], name: str, kinds: tuple[type, ...], what: str, nullable: bool = False) -> None:
    if name not in record or (nullable and record[name] is None):
        return
    value = record[name]
    if not isinstance(value, kinds):
        raise BadInputError(f"{name} must be {what}, not {json_type(value)}.", name)


def validate_chat(record: Any, chat_id: str) -> None:
    """Raise :class:`BadInputError` naming the first field at fault; return when ``record`` may be saved."""
    if not isinstance(record, dict):
        raise BadInputError(f"A chat must be a JSON object, not {json_type(record)}.")
    if "id" in record and record["id"] != chat_id:
        raise BadInputError(f"id must be the chat's id in the URL ({chat_id}).", "id")
    _number(record, "version", MAX_VERSION, integer=True)
    _text(record, "title", MAX_TITLE)
    _text(record, "notebook", MAX_NOTEBOOK)
    _number(record, "created", MAX_TIME)
    _number(record, "updated", MAX_TIME)
    _typed(record, "entries", (list,), "an array")
    # Chats saved before version 2 kept the transcript and the history apart.
    _typed(record, "items", (list,), "an array")
    _typed(record, "history", (list,), "an array")
    _typed(record, "usage", (dict,), "an object")
    _typed(record, "plan", (list,), "an array or null", nullable=True)
    _typed(record, "choice", (dict,), "an object or null", nullable=True)


def listable(summary: Any) -> dict[str, Any] | None:
    """What the History list shows of a ``.meta`` (or of a chat read for it), or None when it is unreadable.

    A title longer than the limit (saved before there was one) is shortened, not refused.
    """
    if not isinstance(summary, dict) or not isinstance(summary.get("id"), str):
        return None
    if not CHAT_ID.fullmatch(summary["id"]):
        return None
    shown = {k: summary[k] for k in ("id", "title", "notebook", "updated") if summary.get(k) is not None}
    if isinstance(shown.get("title"), str) and len(shown["title"]) > MAX_TITLE:
        shown["title"] = shown["title"][: MAX_TITLE - 1] + "…"
    try:
        validate_chat(shown, shown["id"])
    except BadInputError:
        return None
    return {"title": "", "notebook": "", "updated": 0, **shown}
